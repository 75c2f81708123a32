"""The base policy's hard rules: the heuristic's parameters that say "never".

:func:`keeps_base_rules` tells whether a legal action keeps them and
:func:`pile_barred` whether they bar the discard pile.  Both the ``rollout``
search (:mod:`kernels.search.player`, its candidates) and the ``learned`` player
(:mod:`kernels.strategies.learned`, the actions it values) choose only among the
actions that keep them, so ``rollout:pile_min_size=3`` or ``learned:pile_min_size=3``
never takes a pile of fewer than 3 cards.  Reads only what the seat may know (R11).
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import N_COUNT
from kernels.core.layout import (HP_MELD_DELAY_ROUNDS, HP_PILE_AVOID_OPP_2_OR_5, HP_PILE_MIN_SIZE,
                                 HP_PILE_MIN_STOCK, HP_USE_WILD_TO_MELD, HP_WILD_LAYOFF_MIN_LEN)
from kernels.engine.actions import A_CREATE, A_LAYOFF, A_TAKE, N_ACTIONS, meld_sel
from kernels.engine.legal import can_create, layoff_fits
from kernels.strategies.policies import _hold_for_burracos, _is_wild_c
from kernels.table.state import G_PILE_SIZE, G_STOCK_END, G_STOCK_TOP, G_TEAM, G_TURN, MI_LEN, MI_NWILD


@njit(cache=True)
def pile_barred(st, rv, seat, p):
    """The heuristic's hard gates on the discard pile (:func:`kernels.strategies.policies.heur_pickup`
    returns False whenever they hold): a pile of fewer than ``pile_min_size`` cards, a
    stock of fewer than ``pile_min_stock`` cards, or, with ``pile_avoid_opp_2_or_5``, an
    opponent holding 2 or 5 cards."""
    g = st.g
    if (g[G_PILE_SIZE] < p[HP_PILE_MIN_SIZE]
            or g[G_STOCK_END] - g[G_STOCK_TOP] < p[HP_PILE_MIN_STOCK]):
        return True
    if p[HP_PILE_AVOID_OPP_2_OR_5] >= 0.5:
        team = g[G_TEAM + seat]
        for o in range(rv[L.RV_NUM_PLAYERS]):
            if g[G_TEAM + o] != team and (st.hn[o] == 2 or st.hn[o] == 5):
                return True
    return False


@njit(cache=True)
def keeps_base_rules(st, rv, seat, p, a, sel):
    """Does the legal action ``a`` of ``seat`` keep the base policy's hard rules, the
    heuristic's parameters that say "never" (the heuristic itself never breaks them)?

    * taking the pile: not barred by ``pile_min_size``, ``pile_min_stock`` or
      ``pile_avoid_opp_2_or_5`` (:func:`pile_barred`);
    * a new meld or a lay-off: it does not leave the closing card before the team
      has ``close_min_burracos`` burracos (the heuristic's ``_hold_for_burracos``);
      a new meld not in the first ``meld_delay_rounds`` rounds, and with a wild only
      if ``use_wild_to_meld`` or the hand is small (4 cards or fewer); a wild laid off
      as a wild only on a clean meld of at least ``wild_layoff_min_len`` cards, or
      from a small hand.

    Every other action (drawing, ending the meld phase, any discard: a discard that
    closes is the only one of its decision) keeps them.  ``sel`` (int64[53]) is a work
    array (overwritten).
    """
    g = st.g
    if a == A_TAKE:
        return not pile_barred(st, rv, seat, p)
    team = g[G_TEAM + seat]
    hn = st.hn[seat]
    small = hn <= 4
    if A_LAYOFF <= a < A_CREATE:
        mi = (a - A_LAYOFF) // N_COUNT
        c = (a - A_LAYOFF) % N_COUNT
        ln = st.minfo[team, mi, MI_LEN]
        nw = st.minfo[team, mi, MI_NWILD]
        v = layoff_fits(st.mcnt, st.minfo, team, mi, c)
        if v - 1 > nw and _is_wild_c(c):                 # the card goes on as a wild
            if nw > 0 or not (ln >= p[HP_WILD_LAYOFF_MIN_LEN] or small):
                return False
        return not _hold_for_burracos(st.minfo, st.nm, g, team, hn - 1, mi, ln + 1, p)
    if A_CREATE <= a < N_ACTIONS:
        delay = p[HP_MELD_DELAY_ROUNDS]
        if not (delay <= 0.0 or (g[G_TURN] - 1) // 4 + 1 > delay):
            return False
        meld_sel(a - A_CREATE, sel)
        nsel = 0
        for f in range(N_COUNT):
            nsel += sel[f]
        code, kind, nwild = can_create(st, rv, team, seat, sel)
        if nwild > 0 and p[HP_USE_WILD_TO_MELD] < 0.5 and not small:
            return False
        return not _hold_for_burracos(st.minfo, st.nm, g, team, hn - nsel, np.int64(-1),
                                      nsel, p)
    return True
