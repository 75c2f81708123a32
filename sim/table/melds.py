"""Meld validity and laying off, through the simulation's own kernels.

Implements docs/RULES.md R12-R20 (validity, natural two, aces, canonical
reading), R24-R26 (lay-off steps and wild movement) and R27-R31, R56
(classes and burraco bonuses) by calling :mod:`kernels.core.melds` and
:func:`kernels.table.scoring.burraco_bonus`, the code the simulation runs.

Cards are text or card ids (R1).  A text names cards, not physical copies:
in :func:`lay_off` a card of ``added_cards`` given as text takes a copy the
meld does not hold (a second Q♠ is the other copy, a second joker another
joker), and a third copy of a card is refused.

Under option ``lock_two_roles`` (R25) a 2 keeps the role it entered a meld
with, so a meld's history matters: a meld given as cards is read as if it
had been laid down in one go (its 2s take the roles of the canonical
reading, R20), while a :class:`MeldCheck` returned by :func:`check` or
:func:`lay_off` carries the roles on (``natural_two``) and may be passed
back as ``meld_cards`` to chain lay-offs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from kernels.core import melds as KM
from kernels.table import scoring as KSC
from kernels.core.cards import CVALUE

from sim.core import cards as _cards
from sim.core import notation
from sim.core.rules import Rules

_KINDS = {KM.KIND_SET: "set", KM.KIND_SEQ: "sequence"}


@dataclass(frozen=True)
class MeldCheck:
    """Verdict on a meld.

    Attributes
    ----------
    valid : bool
    kind : str or None
        ``'set'``, ``'sequence'`` or None when invalid.
    clean : bool
        No wild in the canonical reading (R20, R27); False when invalid.
    points : int
        Sum of the card values (R2), points (also given for an invalid meld).
    burraco_bonus : int
        Bonus the meld scores (R56), points: clean / dirty / semi-clean (if
        the rules enable it, R29) for 7+ cards, else 0; under
        ``extra_burraco_classes`` the R31 royal (13+ card sequence) or super
        (8+ card set) bonus when it is higher.  The same value
        :func:`sim.table.scoring.score_team` adds for the meld (both call
        :func:`kernels.table.scoring.burraco_bonus`).
    reason : str
        Why it is invalid, citing the rule ID; empty when valid.
    cards : tuple of int
        Card ids (0..107) of the meld judged (for :func:`lay_off`, the meld
        after the addition, so lay-offs can be chained); ``check.text`` in
        notation.
    natural_two : bool
        A 2 of the sequence's suit counts as its natural 2 (R13) in the
        reading judged: the canonical one (R20), or under ``lock_two_roles``
        the role the meld's 2s kept (R25).  ``clean``, ``burraco_bonus`` and
        a later :func:`lay_off` on this check follow it.
    """

    valid: bool
    kind: str | None
    clean: bool
    points: int
    burraco_bonus: int
    reason: str = ""
    cards: tuple = ()
    natural_two: bool = False

    @property
    def text(self) -> str:
        """The meld's cards in the project notation."""
        return notation.format(self.cards)

    def reading(self, rules=None) -> "Reading":
        """The meld's cards in reading order (:func:`reading_order`), its 2s read with
        the roles this check carries under ``lock_two_roles`` (R25), else canonically
        (R20).

        Raises
        ------
        ValueError
            The meld is not valid.
        """
        if not self.valid:
            raise ValueError(f"reading: {self.text} is not a valid meld ({self.reason})")
        r = _cards.rules_or_default(rules)
        from kernels.core import layout as L
        return reading_order(self.cards, int(self.natural_two) if r.lock_two_roles else None,
                             int(r.to_vector()[L.RV_SET_RANKS_MASK]))


class Reading(NamedTuple):
    """A meld's cards in reading order (:func:`reading_order`)."""

    #: card ids in reading order
    cards: tuple
    #: the ids of the cards read as a wild (at most one in a valid meld, R14)
    wilds: tuple
    #: the id of the 2 read as the sequence's natural 2 (R13), or None
    natural_two: int | None


def reading_order(cards, nat=None, set_mask=0x1FFF) -> Reading:
    """The cards of a valid meld in reading order, the one order the text trace, the
    hand viewer and :meth:`sim.Game.observation` write melds in.

    A set by suit as the notation numbers them (♣ ♦ ♥ ♠, R16), its wild last; a
    sequence by slot, low to high (R17): the ace low (before the 2) or high (after
    the king) as it stands in the sequence, a 2 read as natural in slot 2 (R13), the
    wild in the slot of the card it stands for (R19) or, when it is free, just above
    the highest card (below the lowest when that is the high ace).

    Parameters
    ----------
    cards : array_like of int
        The meld's card ids (0..107), in any order.
    nat : int or None
        Under ``lock_two_roles``, how many of the sequence's own-suit 2s hold the
        natural role (R25); None reads the meld canonically (R20).
    set_mask : int
        The rule set's ranks that may form a set (``set_ranks``).

    Returns
    -------
    Reading
        ``cards`` (ids in reading order), ``wilds`` and ``natural_two``.  An
        invalid meld's cards come back in the order given, with no wild.
    """
    from kernels.core.cards import RANK, SUIT
    ids = [int(c) for c in cards]
    kind, _nwild, nat2, key, lo, hi, wslot, _why = meld_reading(
        _cards.counts(np.array(ids, np.int64)), nat, set_mask)
    if kind == KM.KIND_NONE:
        return Reading(tuple(ids), (), None)
    wilds = [c for c in ids if RANK[c] < 0 or RANK[c] == 1]
    natural_two = None
    if kind == KM.KIND_SEQ and nat2:
        natural_two = next(c for c in wilds if RANK[c] == 1 and SUIT[c] == key)
        wilds.remove(natural_two)
    if kind == KM.KIND_SET:
        naturals = sorted((c for c in ids if c not in wilds), key=lambda c: (int(SUIT[c]), c))
        return Reading(tuple(naturals + wilds), tuple(wilds), None)
    ace = 1 if lo == 1 else 14
    slot = {}
    for c in ids:
        if c not in wilds:
            slot[c] = 2 if c == natural_two else (ace if RANK[c] == 0 else int(RANK[c]) + 1)
    for c in wilds:                                 # at most one wild in a valid meld (R14)
        slot[c] = wslot if wslot >= 0 else (hi + 1 if hi < 14 else lo - 1)
    return Reading(tuple(sorted(ids, key=lambda c: (slot[c], c))), tuple(wilds), natural_two)


def table_meld(card_ids, rules=None, natural_twos=None) -> MeldCheck:
    """The check of a meld as it lies on the table (a replay document's ``start``
    block, a position): its cards, and under ``lock_two_roles`` the number of its
    own-suit 2s holding the natural role (``natural_twos``; None: the canonical
    reading's, R20)."""
    r = _cards.rules_or_default(rules)
    ids = np.asarray(card_ids, np.int64)
    return _verdict(_cards.counts(ids), r, ids, natural_twos if r.lock_two_roles else None)


def meld_reading(cnt: np.ndarray, nat=None, set_mask=0x1FFF) -> tuple:
    """:func:`kernels.core.melds.analyze` of ``cnt``; with ``nat`` (0/1, not None) a
    sequence is read with its 2s' stored roles, ``nat`` of them natural (R25)."""
    reading = KM.analyze(cnt, set_mask)
    if nat is not None and reading[0] == KM.KIND_SEQ:
        reading = KM.analyze_roles(cnt, set_mask, reading[3], nat, 0)
        if reading[0] != KM.KIND_NONE and reading[2] < nat:
            reading = (KM.KIND_NONE,) + reading[1:7] + (KM.WHY_ROLES,)
    return reading


def _verdict(cnt: np.ndarray, r: Rules, ids=(), nat=None) -> MeldCheck:
    """The check of meld ``cnt``; ``nat`` as for :func:`meld_reading` (used only
    under ``lock_two_roles``)."""
    rv = r.to_vector()
    from kernels.core import layout as L
    if not r.lock_two_roles:
        nat = None
    kind, nwild, nat2, key, lo, hi, wslot, why = meld_reading(cnt, nat, rv[L.RV_SET_RANKS_MASK])
    points = int((cnt * CVALUE).sum())
    if kind == KM.KIND_NONE:
        return MeldCheck(False, None, False, points, 0, KM.REASONS[why], tuple(int(i) for i in ids))
    if nat is not None and kind == KM.KIND_SEQ:
        cls = KM.burraco_class_roles(cnt, key, nat2, rv[L.RV_SEMI_CLEAN_RULE])
    else:
        cls = KM.burraco_class(cnt, 0x1FFF, rv[L.RV_SEMI_CLEAN_RULE])
    bonus = KSC.burraco_bonus(cnt, cls, rv)      # the table sim.scoring uses (R56, R31)
    return MeldCheck(True, _KINDS[kind], nwild == 0, points, int(bonus), "",
                     tuple(int(i) for i in ids), bool(nat2))


def check(cards, rules=None) -> MeldCheck:
    """Is ``cards``, laid down as one new meld, valid (R15-R20)?

    Parameters
    ----------
    cards : str or array_like of int
        Notation (``"A♠ 2♠ 3♠"``) or card ids (0..107).
    rules : sim.Rules, str, dict or None
        Rule set (default preset when None); ``set_ranks`` restricts sets,
        ``semi_clean_bonus``/``semi_clean_rule``, ``extra_burraco_classes``
        (R31) and the bonus values shape ``burraco_bonus``.

    Returns
    -------
    MeldCheck

    Raises
    ------
    ValueError
        Bad notation or ids (outside 0..107, the same id twice, a third copy
        of a card or a fifth joker in the text, R1), or a bad rules argument.
    """
    r = _cards.rules_or_default(rules)
    card_ids = _cards.ids(cards)
    return _verdict(_cards.counts(card_ids), r, card_ids)


def lay_off(meld_cards, added_cards, rules=None) -> MeldCheck:
    """The meld after laying ``added_cards`` off on it in one action (R24).

    The action is legal iff the added cards can be put on the meld one at a
    time, in some order, each single step legal (R24 (a) and (b), which gives
    the wild-movement rules R19, R24 and the role changes of R25).  Under
    ``lock_two_roles`` a step must also keep the role of every 2 already in
    the meld, and an added 2 takes the role of the fewest-wild reading that
    does (R25); when several orders are legal, the result is the one with the
    most natural 2s (the 2 goes where it is natural if some order allows it).

    Parameters
    ----------
    meld_cards : str, array_like of int or MeldCheck
        A valid meld on the table (card ids 0..107 or notation).  Given as
        cards, its 2s have the roles of its canonical reading; a
        :class:`MeldCheck` (from :func:`check` or an earlier :func:`lay_off`)
        brings the card ids and the roles it kept.
    added_cards : str or array_like of int
        One or more cards from hand.  Ids are physical cards and must not be
        in the meld.  A text names cards, not copies (R1): each card takes a
        physical copy not yet in the meld, so ``lay_off(check, "JK")`` adds
        another joker and a second Q♠ is the other copy, whichever argument
        is text and whichever copy the meld holds.
    rules : sim.Rules, str, dict or None

    Returns
    -------
    MeldCheck
        Describes the meld after the addition; ``valid`` is False (with the
        reason) when the addition is illegal or the starting meld is invalid.

    Raises
    ------
    ValueError
        Bad notation or ids; a card id in both arguments; a card that would
        be a third copy (both copies already in the meld or the addition) or
        a fifth joker, naming the card (R1); no card to add; or an invalid
        :class:`MeldCheck` as ``meld_cards``.
    """
    r = _cards.rules_or_default(rules)
    nat = None
    if isinstance(meld_cards, MeldCheck):
        if not meld_cards.valid:
            raise ValueError("meld_cards: the MeldCheck given is not a valid meld")
        nat = int(meld_cards.natural_two)
        meld_cards = np.array(meld_cards.cards, np.int64)
    # one deck for both arguments: a card given as text takes a copy the other one lacks (R1)
    base_ids, add_ids = _cards.ids_many([(meld_cards, "meld_cards"), (added_cards, "added_cards")])
    if len(add_ids) == 0:
        raise ValueError("added_cards: at least one card is needed")
    base = _cards.counts(base_ids)
    start = _verdict(base, r, base_ids, nat)
    if not start.valid:
        return MeldCheck(False, None, False, start.points, 0,
                         "the meld on the table is not valid: " + start.reason)
    final = base + _cards.counts(add_ids)
    all_ids = tuple(int(i) for i in np.concatenate([base_ids, add_ids]))
    roles = bool(r.lock_two_roles)
    todo = tuple(_cards.counts(add_ids))
    end_nat = best_order(tuple(base), todo, int(start.natural_two), roles)
    if end_nat >= 0:
        return _verdict(final, r, all_ids, end_nat)
    if roles and best_order(tuple(base), todo, 0, False) >= 0:
        why = KM.REASONS[KM.WHY_ROLES] + " (without lock_two_roles the action would be legal)"
    else:
        why = ("R24: no order of adding these cards keeps every step legal (a fixed wild "
               "moves only when its natural card is added; a meld that has a wild takes no "
               "other wild)")
    return MeldCheck(False, None, False, int((final * CVALUE).sum()), 0, why, all_ids)


@lru_cache(maxsize=4096)
def best_order(meld: tuple, todo: tuple, nat: int, roles: bool) -> int:
    """Depth-first search over the orders of single-card steps adding the counts
    ``todo`` to the meld with counts ``meld`` (R24).

    Returns -1 when no order keeps every step legal.  Otherwise, with
    ``roles`` (``lock_two_roles``, R25; ``nat``: the meld's stored natural
    2s, 0/1), the natural 2s stored at the end of the legal order that leaves
    the most (so the fewest wilds); without ``roles``, any value >= 0.
    """
    if not any(todo):
        return nat
    cnt = np.array(meld, np.int64)
    kind, nwild, nat2, key, *_ = meld_reading(cnt, nat if roles else None)
    step = KM.layoff_step_roles if roles else KM.layoff_step
    best = -1
    for c, k in enumerate(todo):
        if k == 0:
            continue
        ok, _kind, _nwild, new_nat2, *_rest = step(cnt, kind, nwild, nat2, key, c, 0x1FFF)
        if ok:
            nxt = list(meld)
            nxt[c] += 1
            rest = list(todo)
            rest[c] -= 1
            best = max(best, best_order(tuple(nxt), tuple(rest), int(new_nat2), roles))
            if best == 1 or (best >= 0 and not roles):
                return best
    return best
