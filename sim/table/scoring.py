"""Scoring a finished hand for one team (docs/RULES.md R2, R54-R59).

Calls :func:`kernels.table.scoring.score_team`, the function the simulation uses.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.core.cards import N_COUNT
from kernels.table import scoring as KS
from kernels.core import melds as KM
from kernels.table import state as KST
from kernels.table import moves as KSTM

from sim.core import cards as _cards
from sim.table.melds import MeldCheck

POZZETTO_STATES = {"untaken": KS.POZ_UNTAKEN, "taken": KS.POZ_TAKEN, "unplayed": KS.POZ_UNPLAYED}


@dataclass(frozen=True)
class TeamScore:
    """A team's hand score and its components, all in points.

    ``total = meld_points + burraco_bonus + closing_bonus - hand_points -
    pozzetto_penalty`` (R55).  ``clean_burracos``/``dirty_burracos`` count
    melds (dirty includes semi-clean).
    """

    total: int
    meld_points: int
    burraco_bonus: int
    closing_bonus: int
    hand_points: int
    pozzetto_penalty: int
    clean_burracos: int
    dirty_burracos: int
    semi_clean_burracos: int


def score_team(melds, hands, closed, pozzetto, rules=None, pile_close=False) -> TeamScore:
    """Score one team at the end of a hand (R55).

    Parameters
    ----------
    melds : list of (str, array_like of int or sim.melds.MeldCheck)
        The team's melds, each valid (R16-R18).  Under ``lock_two_roles``
        (R25) a meld given as cards is classed with the 2s' roles of its
        canonical reading; a :class:`sim.table.melds.MeldCheck` (from ``lay_off``)
        is classed with the roles its 2s kept.
    hands : list of (str or array_like of int)
        Cards left in each partner's hand; an unplayed pozzetto (R57) is part
        of its holder's hand.
    closed : bool
        The team closed (R45), earning the closing bonus (R47).  A close needs
        the pozzetto taken and a burraco among ``melds`` (a clean one under
        ``require_clean_burraco_to_close``).
    pozzetto : {'taken', 'unplayed', 'untaken'}
        'untaken' costs ``pozzetto_penalty`` (R55); 'unplayed' (taken with the
        discard and never played, R57) costs nothing beyond its cards in hand.
    rules : sim.Rules, str or None
        Bonus values, ``semi_clean_bonus``/``semi_clean_rule`` and
        ``pile_close_no_bonus`` apply.
    pile_close : bool
        The close came in a turn that took the discard pile (matters only
        with ``pile_close_no_bonus``).

    Returns
    -------
    TeamScore

    Raises
    ------
    ValueError
        Bad cards, an invalid meld (naming its index), an unknown
        ``pozzetto`` value, or ``closed`` for a team that could not close
        (R45): pozzetto untaken, no burraco, or no clean burraco under
        ``require_clean_burraco_to_close``.
    """
    r = _cards.rules_or_default(rules)
    if pozzetto not in POZZETTO_STATES:
        raise ValueError(
            f"pozzetto: {pozzetto!r} is not allowed; allowed: {', '.join(POZZETTO_STATES)}")
    if closed and pozzetto == "untaken":
        raise ValueError("closed: a team cannot close without having taken its pozzetto (R45)")
    rv = r.to_vector()
    mc = np.zeros((1, max(1, len(melds)), 53), np.int64)       # one team's rows of the state
    mi = np.zeros((1, max(1, len(melds)), KST.MI_COLS), np.int64)
    for i, m in enumerate(melds):
        nat = None
        if isinstance(m, MeldCheck):
            nat = int(m.natural_two) if m.valid else None
            m = np.array(m.cards, np.int64)
        mc[0, i] = _cards.counts(_cards.ids(m, f"melds[{i}]"))
        kind, *_rest, why = KM.analyze(mc[0, i], 0x1FFF)
        if kind == KM.KIND_NONE:
            raise ValueError(f"melds[{i}]: not a valid meld: {KM.REASONS[why]}")
        KSTM.meld_info_full(mc, mi, 0, i)
        mi[0, i, KST.MI_LOCK] = int(r.lock_two_roles)
        if r.lock_two_roles and nat is not None and kind == KM.KIND_SEQ:
            KSTM.meld_info_roles(mc, mi, 0, i, nat, 0)
            if mi[0, i, KST.MI_KIND] != kind or mi[0, i, KST.MI_NAT2] < nat:
                raise ValueError(f"melds[{i}]: the meld cannot keep the roles of its 2s (R25)")
    hc = np.zeros((max(1, len(hands)), N_COUNT), np.int64)
    for i, h in enumerate(hands):
        hc[i] = _cards.counts(_cards.ids(h, f"hands[{i}]"))
    out = KS.score_team(mc[0], mi[0], len(melds), hc, len(hands), int(bool(closed)),
                        POZZETTO_STATES[pozzetto], int(bool(pile_close)), rv)
    ts = TeamScore(*(int(x) for x in out))
    if closed and r.require_clean_burraco_to_close and ts.clean_burracos == 0:
        raise ValueError("closed: under require_clean_burraco_to_close a team cannot close "
                         "without a clean burraco (R45)")
    if closed and ts.clean_burracos + ts.dirty_burracos == 0:
        raise ValueError("closed: a team cannot close without a burraco (R45)")
    return ts
