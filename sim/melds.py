"""Meld validity and laying off, through the simulation's own kernels.

Implements RULES.md R12-R20 (validity, natural two, aces, canonical
reading), R24-R26 (lay-off steps and wild movement) and R27-R29, R56
(classes and burraco bonuses) by calling :mod:`kernels.melds`, the code the
simulation runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kernels import melds as KM
from kernels.cards import CVALUE

from . import _cards
from .rules import Rules

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
        Bonus the meld scores (R56): clean / dirty / semi-clean (if the rules
        enable it) for 7+ cards, else 0; points.
    reason : str
        Why it is invalid, citing the rule ID; empty when valid.
    cards : tuple of int
        Card ids of the meld judged (for :func:`lay_off`, the meld after the
        addition, so lay-offs can be chained); ``str(check.text)`` in notation.
    """

    valid: bool
    kind: str | None
    clean: bool
    points: int
    burraco_bonus: int
    reason: str = ""
    cards: tuple = ()

    @property
    def text(self) -> str:
        """The meld's cards in the project notation."""
        from . import notation
        return notation.format(self.cards)


def _rules(rules) -> Rules:
    r = _cards.rules_or_default(rules)
    _cards.refuse(r, "lock_two_roles")
    return r


def _verdict(cnt: np.ndarray, r: Rules, ids=()) -> MeldCheck:
    rv = r.to_vector()
    from kernels import layout as L
    kind, nwild, nat2, key, lo, hi, wslot, why = KM.analyze(cnt, rv[L.RV_SET_RANKS_MASK])
    points = int((cnt * CVALUE).sum())
    if kind == KM.KIND_NONE:
        return MeldCheck(False, None, False, points, 0, KM.REASONS[why], tuple(int(i) for i in ids))
    cls = KM.burraco_class(cnt, 0x1FFF, rv[L.RV_SEMI_CLEAN_RULE])
    bonus = 0
    if cls == 1:
        bonus = r.clean_bonus
    elif cls == 3 and r.semi_clean_bonus:
        bonus = r.semi_clean_bonus
    elif cls >= 2:
        bonus = r.dirty_bonus
    return MeldCheck(True, _KINDS[kind], nwild == 0, points, int(bonus), "",
                     tuple(int(i) for i in ids))


def check(cards, rules=None) -> MeldCheck:
    """Is ``cards``, laid down as one new meld, valid (R15-R20)?

    Parameters
    ----------
    cards : str or array_like of int
        Notation (``"A♠ 2♠ 3♠"``) or card ids (0..107).
    rules : sim.Rules, str or None
        Rule set (default preset when None); ``set_ranks`` restricts sets,
        ``semi_clean_bonus``/``semi_clean_rule`` and the bonus values shape
        ``burraco_bonus``.

    Returns
    -------
    MeldCheck

    Raises
    ------
    ValueError
        Bad notation or ids, or an option the engine does not support yet.
    """
    r = _rules(rules)
    card_ids = _cards.ids(cards)
    return _verdict(_cards.counts(card_ids), r, card_ids)


def lay_off(meld_cards, added_cards, rules=None) -> MeldCheck:
    """The meld after laying ``added_cards`` off on it in one action (R24).

    The action is legal iff the added cards can be put on the meld one at a
    time, in some order, each single step legal (R24 (a) and (b), which gives
    the wild-movement rules R19, R24 and the role changes of R25).

    Parameters
    ----------
    meld_cards : str or array_like of int
        A valid meld on the table.
    added_cards : str or array_like of int
        One or more cards from hand.
    rules : sim.Rules, str or None

    Returns
    -------
    MeldCheck
        Describes the meld after the addition; ``valid`` is False (with the
        reason) when the addition is illegal or the starting meld is invalid.

    Raises
    ------
    ValueError
        Bad notation or ids, a card in both arguments, or an unsupported
        option.
    """
    r = _rules(rules)
    base_ids = _cards.ids(meld_cards, "meld_cards")
    add_ids = _cards.ids(added_cards, "added_cards")
    if isinstance(meld_cards, str) and isinstance(added_cards, str):
        # parse together so that two copies get two ids (R1)
        both = _cards.ids(f"{meld_cards} {added_cards}")
        base_ids, add_ids = both[:len(base_ids)], both[len(base_ids):]
    elif np.intersect1d(base_ids, add_ids).size:
        raise ValueError("added_cards: a card id is already in the meld")
    if len(add_ids) == 0:
        raise ValueError("added_cards: at least one card is needed")
    base = _cards.counts(base_ids)
    start = check(base_ids, r)
    if not start.valid:
        return MeldCheck(False, None, False, start.points, 0,
                         "the meld on the table is not valid: " + start.reason)
    final = base + _cards.counts(add_ids)
    all_ids = tuple(int(i) for i in np.concatenate([base_ids, add_ids]))
    if _reachable(tuple(base), tuple(_cards.counts(add_ids))):
        return _verdict(final, r, all_ids)
    return MeldCheck(False, None, False, int((final * CVALUE).sum()), 0,
                     "R24: no order of adding these cards keeps every step legal "
                     "(a fixed wild moves only when its natural card is added; a meld "
                     "that has a wild takes no other wild)", all_ids)


@lru_cache(maxsize=4096)
def _reachable(meld: tuple, todo: tuple) -> bool:
    """Depth-first search over orders of single-card steps (R24)."""
    if not any(todo):
        return True
    cnt = np.array(meld, np.int64)
    kind, nwild, nat2, key, *_ = KM.analyze(cnt, 0x1FFF)
    for c, k in enumerate(todo):
        if k == 0:
            continue
        ok, *_rest = KM.layoff_step(cnt, kind, nwild, nat2, key, c, 0x1FFF)
        if ok:
            nxt = list(meld)
            nxt[c] += 1
            rest = list(todo)
            rest[c] -= 1
            if _reachable(tuple(nxt), tuple(rest)):
                return True
    return False
