"""Card notation: text <-> card ids (DESIGN.md section 3, RULES.md R1).

A card id is ``54*copy + face`` with ``face = 13*suit + rank`` (rank 0 = ace ..
12 = king; suit 0 = clubs, 1 = diamonds, 2 = hearts, 3 = spades); the jokers
are faces 52 and 53, so the four jokers have ids 52, 53, 106 and 107.

Input tokens are separated by whitespace and/or commas.  A card is a rank
``A 2 3 4 5 6 7 8 9 10 J Q K`` (``T`` is also ten; case-insensitive)
followed by a suit ``c d h s`` or ``♣ ♦ ♥ ♠`` (the outline symbols and the
emoji forms with a variation selector, such as ``♥️``, are accepted too);
a joker is ``JK``.  Output uses ``10``, the suit symbols and ``JK``.
"""
from __future__ import annotations

import re
from typing import Iterable

import numpy as np

from kernels.core import cards as C

RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_TEXT = ("♣", "♦", "♥", "♠")
JOKER_TEXT = "JK"

_RANKS = {name: i for i, name in enumerate(RANK_TEXT)}
_RANKS["T"] = 9
_SUITS = {
    "C": 0, "♣": 0, "♧": 0,
    "D": 1, "♦": 1, "♢": 1,
    "H": 2, "♥": 2, "♡": 2,
    "S": 3, "♠": 3, "♤": 3,
}
_SEP = re.compile(r"[\s,]+")
_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")
# the four joker ids in the order they are handed out
_JOKER_IDS = (C.JOKER, C.JOKER + 1, C.N_FACES + C.JOKER, C.N_FACES + C.JOKER + 1)


def _face(token: str) -> int:
    """Face 0..51 of a natural-card token, or -1 for a joker; ValueError if bad."""
    t = token.translate(_SELECTORS).upper()
    if t == JOKER_TEXT:
        return -1
    rank, suit = _RANKS.get(t[:-1]), _SUITS.get(t[-1:])
    if rank is None or suit is None:
        raise ValueError(
            f"notation: bad card {token!r}; expected a rank (A 2-10 J Q K, T for ten) "
            "followed by a suit (c d h s or ♣ ♦ ♥ ♠), or JK for a joker")
    return 13 * suit + rank


class _Deck:
    """Hands out distinct physical copies; shared across the texts of one call.

    ``owner[i]`` names the argument holding card id ``i`` (None: still free).
    Ids given as numbers are entered with :meth:`hold` first, so a text, which
    names a card and not a copy, gets a copy nobody holds (R1).
    """

    def __init__(self) -> None:
        self.owner = [None] * C.N_CARDS

    def hold(self, card_ids, where: str) -> None:
        """Mark ``card_ids`` (distinct, free) as held by argument ``where``."""
        for cid in card_ids:
            self.owner[int(cid)] = where

    def take(self, token: str, where: str = "notation") -> int:
        face = _face(token)
        copies = _JOKER_IDS if face < 0 else (face, C.N_FACES + face)
        for cid in copies:
            if self.owner[cid] is None:
                self.owner[cid] = where
                return int(cid)
        holders = list(dict.fromkeys(self.owner[cid] for cid in copies))
        held = "" if holders == [where] else " and ".join(holders)
        if face < 0:
            held = held and f"; all four are already in {held}"
            raise ValueError(f"{where}: {token!r} would be a fifth joker (R1: there are 4{held})")
        held = held and f"; both copies are already in {held}"
        raise ValueError(
            f"{where}: {token!r} would be a third copy of {format_card(face)} "
            f"(R1: each card exists twice{held})")

    def parse(self, text: str, where: str = "notation") -> np.ndarray:
        if not isinstance(text, str):
            raise ValueError(f"notation: expected a string of cards, got {text!r}")
        tokens = [t for t in _SEP.split(text) if t]
        return np.array([self.take(t, where) for t in tokens], np.int8)


def parse(text: str) -> np.ndarray:
    """Parse a list of cards into card ids.

    The first occurrence of a card gets copy 0 and the second copy 1; jokers
    get ids 52, 53, 106, 107 in that order.

    Parameters
    ----------
    text : str
        Tokens separated by whitespace and/or commas, e.g. ``"As 2s 3s"``,
        ``"10♥, J♥, Q♥"`` or ``"JK 7c"``.  An empty string gives no cards.

    Returns
    -------
    numpy.ndarray
        ``int8[n]`` card ids in input order (R1 encoding).

    Raises
    ------
    ValueError
        A token that is not a card, a third copy of a card or a fifth joker;
        the message names the token.

    Examples
    --------
    >>> parse("As 2s JK As").tolist()
    [39, 40, 52, 93]
    """
    return _Deck().parse(text)


def parse_many(texts: Iterable[str]) -> list:
    """Parse several card lists drawn from one 108-card deck.

    Copies are counted across all the texts, so the same card written in
    two lists gets two different ids and a third copy anywhere is refused.

    Parameters
    ----------
    texts : iterable of str
        Card lists as accepted by :func:`parse`.

    Returns
    -------
    list of numpy.ndarray
        One ``int8[n_i]`` id array per text.

    Raises
    ------
    ValueError
        As :func:`parse`, over all the texts together.
    """
    deck = _Deck()
    return [deck.parse(t) for t in texts]


def format_card(card: int) -> str:
    """Text of one card id (or face 0..53), e.g. ``"10♥"`` or ``"JK"``.

    Raises
    ------
    ValueError
        ``card`` is not an integer in 0..107.
    """
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) \
            or not 0 <= card < C.N_CARDS:
        raise ValueError(f"notation: card id must be an integer in 0..107, got {card!r}")
    face = int(card) % C.N_FACES
    if face >= C.JOKER:
        return JOKER_TEXT
    return RANK_TEXT[face % 13] + SUIT_TEXT[face // 13]


def format(ids: Iterable[int]) -> str:  # noqa: A001 - the module's public name
    """Format card ids as space-separated text.

    Parameters
    ----------
    ids : iterable of int
        Card ids 0..107 (any integer array or sequence, e.g. the output of
        :func:`parse`).

    Returns
    -------
    str
        E.g. ``"A♠ 2♠ 10♥ JK"``; copies are not distinguished, so
        ``parse(format(ids))`` gives the same faces with copies renumbered
        in order of appearance.

    Raises
    ------
    ValueError
        An id outside 0..107 (including -1, "no card").
    """
    return " ".join(format_card(c) for c in np.asarray(ids).ravel().tolist())
