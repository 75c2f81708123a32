"""Actions in words: the fixed action space of :class:`sim.play.game.Game`, what an
action id means (:func:`action_kind`, :func:`action_faces`, :func:`action_meld`), the rule
an illegal one breaks (:func:`action_reason`), its check (:func:`check_action`), and the
text of an action and back (:class:`ActionWords`, ``Game.action_text``,
``Game.action_from_text``).
"""
from __future__ import annotations

import functools
import operator
import re

import numpy as np

from kernels.engine import actions as KA
from kernels.engine import legal as KL
from kernels.engine import placement as KP
from kernels.core import melds as KM
from kernels.table import state as KS
from kernels.core.cards import CIDX, N_COUNT

from sim.core import notation
from sim.table.melds import reading_order


N_ACTIONS = KA.N_ACTIONS


PHASES = KA.PHASES


A_DRAW, A_TAKE, A_END_MELD = KA.A_DRAW, KA.A_TAKE, KA.A_END_MELD


_BAD_TEXT = {
    KA.BAD_PHASE: "it is not an action of this phase",
    KA.BAD_ACTION_ID: f"no such action id (ids are 0..{N_ACTIONS - 1})",
    KA.BAD_TAKE: "R34 (take_pile_requires_meld): the pile may be taken only if a meld or "
                 "lay-off can use it at once",
    KA.BAD_MUST_PLACE: "R34 (take_pile_requires_meld): after taking the pile, a meld or lay-off "
                       "must come before the meld phase ends",
    KA.BAD_EMPTY_PILE: "R33: there is no discard pile to take",
    KA.BAD_DISCARD_FACE: "R36/R37: no card of that face in the hand may be discarded",
    KA.BAD_OPEN_LAYOFF: "R24/R38: a lay-off of several cards is under way and must go on "
                        "(the next card on the same meld: alone its first card left a dead end)",
}


def action_reason(code: int) -> str:
    """The rule an illegal action breaks, from an ``apply_action`` code (0: legal)."""
    code = int(code)
    if code == 0:
        return ""
    if code in _BAD_TEXT:
        return _BAD_TEXT[code]
    if code >= KL.MELD_REASON_BASE:
        return KM.REASONS[code - KL.MELD_REASON_BASE]
    return KL.LEGAL_REASONS[code]


def action_kind(action: int) -> str:
    """What an action id does, without a game: ``"draw"``, ``"take"``, ``"end"``,
    ``"discard"``, ``"lay_off"`` or ``"meld"`` (a new meld).

    Raises
    ------
    TypeError, ValueError
        ``action`` is not an id of the action space (:func:`check_action`).
    """
    a = check_action(action)
    if a <= KA.A_END_MELD:
        return ("draw", "take", "end")[a]
    if a < KA.A_LAYOFF:
        return "discard"
    return "lay_off" if a < KA.A_CREATE else "meld"


def action_faces(action: int) -> tuple:
    """The card faces an action moves (0..51 ``13*suit + rank``, rank 0 the ace;
    52 a joker): the discarded or laid-off card's face, a new meld's faces in
    reading order; ``()`` for draw, take and end.

    Raises
    ------
    TypeError, ValueError
        ``action`` is not an id of the action space (:func:`check_action`).
    """
    a = check_action(action)
    kind = action_kind(a)
    if kind == "discard":
        return (a - KA.A_DISCARD,)
    if kind == "lay_off":
        return ((a - KA.A_LAYOFF) % N_COUNT,)
    if kind == "meld":
        return _create_faces(a - KA.A_CREATE)
    return ()


@functools.lru_cache(maxsize=None)
def _create_faces(row: int) -> tuple:
    """The faces of row ``row`` of the meld table, in reading order."""
    return tuple(_meld_faces(KA.MELD_CNT[row]))


def action_meld(action: int) -> int | None:
    """The index of the own side's meld a lay-off goes on (as
    ``Observation.melds[...]["index"]``); None for any other action."""
    a = check_action(action)
    return (a - KA.A_LAYOFF) // N_COUNT if action_kind(a) == "lay_off" else None


def check_action(action, limit: int = N_ACTIONS, what: str = "action", ids: str | None = None,
                 noun: str = "an action id") -> int:
    """``action`` as an ``int`` action id 0 .. ``limit - 1``, the one check of an action's
    type and range that :meth:`Game.apply`, :meth:`Game.action_text`, the ``action_*``
    helpers and the environments of :mod:`sim.envs` share.

    An action id is an integer: a Python ``int``, a numpy integer (``np.int64`` as
    Gymnasium's ``Discrete.sample`` returns it) or a 0-dimensional integer array
    (anything ``operator.index`` takes), never a ``bool``.  A float is refused even
    with an integral value (``1.0``), as are strings, None and arrays of one or more
    elements.

    Parameters
    ----------
    action : object
        What was given as an action.
    limit : int
        One past the largest id accepted: :data:`N_ACTIONS` (the action space), or
        ``N_ACTIONS + 108`` where a discard of one copy (``N_ACTIONS + card id``)
        is accepted too.
    what : str
        How the message names the action (``"step: action"``).
    ids, noun : str
        What the message says the allowed ids are (default: the action space's)
        and what an allowed id is (default ``"an action id"``).

    Returns
    -------
    int
        The action id.

    Raises
    ------
    TypeError
        ``action`` is not an integer (a bool, a float, a string, None, an array).
    ValueError
        ``action`` is an integer outside 0 .. ``limit - 1``.
    """
    if ids is None:
        ids = f"ids are 0..{min(limit, N_ACTIONS) - 1}"
        if limit > N_ACTIONS:
            ids += f" (and N_ACTIONS + card id up to {limit - 1}, a discard of that copy)"
    try:
        if isinstance(action, bool):
            raise TypeError
        a = operator.index(action)
    except TypeError:
        kind = (f"an array of shape {action.shape} and dtype {action.dtype}"
                if isinstance(action, np.ndarray) else
                "None" if action is None else f"a {type(action).__name__}")
        raise TypeError(f"{what} {action!r} is not {noun}: expected an integer, got "
                        f"{kind}; {ids}") from None
    if not 0 <= a < limit:
        raise ValueError(f"{what} {a} is not {noun}: {ids}")
    return a


def _face_text(f: int) -> str:
    return "JK" if f == 52 else notation.format_card(int(f))


#: the card ids of the copies of each face a meld's counts stand for (R1: copies are alike)
_FACE_IDS = tuple((f, f + 54) if f < 52 else (52, 53, 106, 107) for f in range(N_COUNT))


def _meld_faces(cnt, nat=None) -> list[int]:
    """The faces of a meld's counts in reading order (:func:`sim.table.melds.reading_order`:
    a set by suit, a sequence by slot with the wild where it stands); ``nat``: the
    sequence's natural 2s under ``lock_two_roles`` (None: the canonical reading)."""
    ids = [c for f in range(N_COUNT) for c in _FACE_IDS[f][:int(cnt[f])]]
    return [int(CIDX[c]) for c in reading_order(ids, nat, KM.ANY_RANK).cards]


_CREATE_ROW = None


_CARD_TEXT = tuple(notation.format_card(c) for c in range(108))   # card id -> text


_CARD_FACE = tuple(int(CIDX[c]) for c in range(108))              # card id -> face


_FACE_TEXT = tuple(_face_text(f) for f in range(N_COUNT))         # face -> text


_MELD_CARDS: dict = {}         # a meld's counts (bytes) -> (texts, faces) in reading order


def _meld_cards(cnt, nat=None) -> tuple:
    """``(texts, faces)`` of a meld's cards in reading order (:func:`_meld_faces`), cached."""
    key = (cnt.tobytes(), nat)
    cards = _MELD_CARDS.get(key)
    if cards is None:
        if len(_MELD_CARDS) > 200_000:
            _MELD_CARDS.clear()
        faces = tuple(_meld_faces(cnt, nat))
        cards = _MELD_CARDS[key] = (tuple(_FACE_TEXT[f] for f in faces), faces)
    return cards


def _create_rows() -> dict:
    global _CREATE_ROW
    if _CREATE_ROW is None:
        _CREATE_ROW = {KA.MELD_CNT[k].tobytes(): k for k in range(KA.N_MELDS)}
    return _CREATE_ROW


def _parse_faces(text: str, what: str) -> list[int]:
    """Count faces (0..52) of a card list; copies do not matter."""
    try:
        ids = notation.parse(text)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
    return [int(CIDX[int(i)]) for i in ids]


class ActionWords:
    """The actions of a :class:`sim.play.game.Game` in words (a base class of ``Game``)."""

    def action_text(self, action: int) -> str:
        """The action in words: "take the pile (5 cards: ...)", "meld 7♥ 8♥ 9♥",
        "lay off 10♥ on meld 2", "discard K♣ (closes)".

        Raises
        ------
        TypeError, ValueError
            ``action`` is not an id of the action space (:func:`check_action`).
        """
        return self._describe(check_action(action))

    def _describe(self, a: int) -> str:
        st = self.state
        g = st.g
        seat = int(g[KS.G_SEAT])
        if a == KA.A_DRAW:
            return "draw from the stock"
        if a == KA.A_TAKE:
            n = int(g[KS.G_PILE_SIZE])
            cards = " ".join(notation.format_card(int(c)) for c in st.pile[:n])
            return f"take the pile ({n} card{'s' if n != 1 else ''}: {cards})"
        if a == KA.A_END_MELD:
            return "end the meld phase"
        if a < KA.A_LAYOFF:
            f = a - KA.A_DISCARD
            text = f"discard {_face_text(f)}"
            if int(g[KS.G_PHASE]) == KA.PH_DISCARD and int(st.hn[seat]) == 1 \
                    and int(st.hcnt[seat, f]) == 1:
                cid = int(st.hand[seat, 0])
                code, closes = KL.can_discard(st, self.rules.to_vector(), int(g[KS.G_TEAM + seat]),
                                              seat, cid)
                if code == 0 and closes:
                    text += " (closes)"
                elif code == 0:
                    text += " (to the pozzetto)"
            return text
        if a < KA.A_CREATE:
            mi, f = divmod(a - KA.A_LAYOFF, N_COUNT)
            text = f"lay off {_face_text(f)} on meld {mi}"
            if int(g[KS.G_OPEN_LAYOFF]) == 0 and int(st.hn[seat]) == 2 \
                    and int(g[KS.G_PHASE]) in (KA.PH_PLACE, KA.PH_MELD):
                rest = [int(c) for c in st.hand[seat, :2]]
                team = int(g[KS.G_TEAM + seat])
                rv = self.rules.to_vector()
                code = KL.can_layoff(st, rv, team, seat, mi, f, np.zeros(N_COUNT, np.int64))[0]
                if code != 0 and KP.lay_off_opens(st, rv, team, seat, mi, f,
                                                  np.ones(N_COUNT, np.int64),
                                                  np.zeros(N_COUNT, np.int64)):
                    # alone a dead end: the first card of a lay-off of two (R24 with R38)
                    other = rest[1] if CIDX[rest[0]] == f else rest[0]
                    text += f" (then {notation.format_card(other)}: a lay-off of two cards)"
            return text
        row = a - KA.A_CREATE
        return "meld " + " ".join(_face_text(f) for f in _meld_faces(KA.MELD_CNT[row]))

    def action_from_text(self, text: str) -> int:
        """The action id of a text as :meth:`action_text` writes it (case and the
        parts in parentheses do not matter; "draw", "take", "end" are enough).

        Raises
        ------
        ValueError
            The text names no action (the message lists the accepted forms).
        """
        if not isinstance(text, str):
            raise ValueError(f"action text: expected a string, got {text!r}")
        t = re.sub(r"\(.*?\)", "", text).strip()
        low = t.lower()
        forms = ("accepted forms: 'draw', 'take', 'end', 'discard K♣', 'meld 7♥ 8♥ 9♥', "
                 "'lay off 10♥ on meld 2'")
        if low in ("draw", "draw from the stock", "stock"):
            return KA.A_DRAW
        if low in ("take", "take the pile", "take the discard pile", "pile"):
            return KA.A_TAKE
        if low in ("end", "end the meld phase", "end meld phase"):
            return KA.A_END_MELD
        m = re.fullmatch(r"discard\s+(\S+)", t, re.IGNORECASE)
        if m:
            faces = _parse_faces(m.group(1), "action text")
            return KA.A_DISCARD + faces[0]
        m = re.fullmatch(r"lay\s*off\s+(\S+)\s+on\s+meld\s+(\d+)", t, re.IGNORECASE)
        if m:
            f = _parse_faces(m.group(1), "action text")[0]
            mi = int(m.group(2))
            if mi >= KS.MMAX:
                raise ValueError(f"action text: meld {mi} does not exist (0..{KS.MMAX - 1})")
            return KA.A_LAYOFF + N_COUNT * mi + f
        m = re.fullmatch(r"meld\s+(.+)", t, re.IGNORECASE)
        if m:
            cnt = np.zeros(N_COUNT, np.int8)
            for f in _parse_faces(m.group(1), "action text"):
                cnt[f] += 1
            row = _create_rows().get(cnt.tobytes())
            if row is None:
                raise ValueError(f"action text: {m.group(1)!r} is not a valid meld (R15-R19)")
            return KA.A_CREATE + row
        raise ValueError(f"action text: {text!r} names no action; {forms}")
