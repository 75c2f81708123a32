"""Thilanguis/Buraco's bot ``thilanguis_bot``.

With the conventions of :mod:`kernels.peers.common`.  It keeps its
"sequences only" play under our rules, where every set is legal: it simply
never makes a set.
"""
from numba import carray, njit

from kernels.core import layout as L
from kernels.core.cards import CIDX, JOKER, N_COUNT
from kernels.core.melds import KIND_SEQ
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_LAYOFF, PH_DISCARD, PH_PICKUP,
                                    create_action)
from kernels.engine.legal import OK, can_create, layoff_fits
from kernels.peers.common import (NEG, TRIOS, TRIO_IS_SET, TRIO_JOKER, TRIO_NWILD, TRIO_OFF2,
                                  dirties, discard_ok, finish_meld, fits_team, has_burraco,
                                  has_seq_of_suit, is_wild, opp_team, pile_top, single_layoff,
                                  stock_left, take_if, team_points, trio_fit)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import (G_ACTIONS, G_PHASE, G_PILE_SIZE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN, MI_KIND,
                                 MI_LEN, MI_NWILD)
from kernels.table.work import views


# ---------------------------------------------------------------- thilanguis_bot
#: the parameter slots of thilanguis_bot (sim.peers)
TP_PANIC_STOCK, TP_DESPERATE_LEAD, TP_DESPERATE_STOCK, TP_RUSH_HAND, TP_ENDGAME_STOCK = 0, 1, 2, 3, 4
TP_ENDGAME_HAND, TP_JUICY_PILE, TP_BIG_PILE_REFUSE, TP_DUO_DIRTY_STOCK, TP_DUO_WILD_STOCK = 5, 6, 7, 8, 9
TP_MAX_ACTIONS, TP_W_WILD, TP_W_OPP, TP_W_OWN, TP_W_ACE = 10, 11, 12, 13, 14


@njit(cache=True, _nrt=False)
def thil_modes(st, rv, team, seat, p):
    """thilanguis' modes at this decision: ``(panic, desperate, rushing,
    endgame)`` (docs/peer_bots.md)."""
    np_ = rv[L.RV_NUM_PLAYERS]
    opp = opp_team(st, rv, seat)
    stock = stock_left(st)
    took = st.g[G_POZZETTO_TAKEN + team] != 0
    opp_took = st.g[G_POZZETTO_TAKEN + opp] != 0
    short = False
    for s in range(np_):
        if st.g[G_TEAM + s] == opp and st.hn[s] <= 3:
            short = True
    panic = (opp_took and has_burraco(st, opp) and short) or \
        stock - rv[L.RV_STOCK_RESERVE] <= p[TP_PANIC_STOCK]
    desperate = (team_points(st, rv, opp) - team_points(st, rv, team) > p[TP_DESPERATE_LEAD]
                 or (opp_took and not took and stock < p[TP_DESPERATE_STOCK]) or panic)
    rushing = not took and st.hn[seat] <= p[TP_RUSH_HAND]
    endgame = stock <= p[TP_ENDGAME_STOCK] or (took and st.hn[seat] <= p[TP_ENDGAME_HAND])
    return panic, desperate, rushing, endgame


@njit(cache=True, _nrt=False)
def thil_safe(st, team, k, panic, clean7):
    """thilanguis' ``safe``: an action leaving ``k`` cards."""
    return (k > 1 or panic or st.g[G_POZZETTO_TAKEN + team] == 0 or has_burraco(st, team) or clean7)


@njit(cache=True, _nrt=False)
def thil_trio(st, rv, team, seat, top, want, off2_ok, other_suit_ok, sel):
    """A 3-card sequence of two hand cards (and ``top`` when >= 0): ``want`` 0
    clean (a 2 only as natural), 1 clean or with a 2 of its suit as the only
    wild, 2 exactly one wild (an off-suit 2 only with ``off2_ok``), 3 the only
    wild a 2 of its suit; a second sequence of a suit only with
    ``other_suit_ok``.  Returns the create id (-1 none; with ``top``, 1 when
    one exists)."""
    hc = st.hcnt[seat]
    for f in range(N_COUNT):
        sel[f] = 0
    if top >= 0:
        sel[top] = 1
    for i in range(TRIOS.shape[0]):
        if TRIO_IS_SET[i] == 1:
            continue
        nw = TRIO_NWILD[i]
        same2 = nw == 1 and TRIO_OFF2[i] == 0 and TRIO_JOKER[i] == 0
        if want == 0 and nw > 0:
            continue
        if want == 1 and nw > 0 and not same2:
            continue
        if want == 2 and (nw != 1 or (TRIO_OFF2[i] == 1 and not off2_ok)):
            continue
        if want == 3 and not same2:
            continue
        fit = trio_fit(i, hc, sel)
        if fit == 0 or (top >= 0 and fit != 2) or (top < 0 and fit != 1):
            continue
        suit = -1
        for j in range(3):
            f = TRIOS[i, j]
            if f != JOKER and f % 13 != 1:
                suit = f // 13
        if suit >= 0 and not other_suit_ok and has_seq_of_suit(st, team, suit):
            continue
        if top >= 0:
            return 1
        for f in range(N_COUNT):
            sel[f] = 0
        for j in range(3):
            sel[TRIOS[i, j]] += 1
        a = create_action(sel)
        if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
            return a
        for f in range(N_COUNT):
            sel[f] = 0
    return -1


@njit(cache=True)
def thil_pickup(st, rv, team, seat, p, sel):
    """thilanguis' pickup rules 1-6 (first match wins), under the endgame's
    refusal of a big pile."""
    panic, desperate, rushing, endgame = thil_modes(st, rv, team, seat, p)
    pn = st.g[G_PILE_SIZE]
    top = pile_top(st)
    if top < 0 or (endgame and pn >= p[TP_BIG_PILE_REFUSE] and not panic):
        return False
    hc = st.hcnt[seat]
    # 1. the top card on an own meld without a wild more
    for mi in range(st.nm[team]):
        v = layoff_fits(st.mcnt, st.minfo, team, mi, top)
        if v > 0 and v - 1 == st.minfo[team, mi, MI_NWILD]:
            return True
    # 2. a perfectly clean 3-card sequence
    if thil_trio(st, rv, team, seat, top, 0, False, desperate, sel) > 0:
        return True
    # 3. a juicy pile: a sequence whose only wild is a 2 of its suit
    if pn >= p[TP_JUICY_PILE] and thil_trio(st, rv, team, seat, top, 3, False, desperate, sel) > 0:
        return True
    # 4. dirty plays
    if desperate or (rushing and pn >= p[TP_JUICY_PILE]):
        off2 = desperate or rushing
        for mi in range(st.nm[team]):
            v = layoff_fits(st.mcnt, st.minfo, team, mi, top)
            if v <= 1 or st.minfo[team, mi, MI_NWILD] > 0:
                continue
            if st.minfo[team, mi, MI_LEN] >= 7:
                continue            # never dirty a clean burraco
            if top != JOKER and top % 13 == 1 and not off2:
                continue
            return True
        if thil_trio(st, rv, team, seat, top, 2, off2, desperate, sel) > 0:
            return True
    # 5. the free pile (aberto)
    if stock_left(st) > 0:
        wild = False
        for i in range(pn):
            if is_wild(CIDX[st.pile[i]]):
                wild = True
        if wild and pn <= p[TP_JUICY_PILE]:
            return True
        if pn > 5 and not rushing:
            return False
        if rushing and pn >= 3:
            return True
        if pn >= 4:
            return True
    return False


@njit(cache=True, _nrt=False)
def thil_discard(st, rv, team, seat, p):
    """The discard of least danger (ties to hand order): a joker or 2
    ``w_wild``; else ``w_opp`` when it fits an opposing meld, ``w_own`` an own
    meld, ``w_ace`` for an ace of a suit the team has a sequence of."""
    opp = opp_team(st, rv, seat)
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if st.hcnt[seat, c] == 0 or not discard_ok(st, rv, team, seat, c):
            continue
        if is_wild(c):
            d = p[TP_W_WILD]
        else:
            d = 0.0
            if fits_team(st, opp, c):
                d += p[TP_W_OPP]
            if fits_team(st, team, c):
                d += p[TP_W_OWN]
            if c % 13 == 0 and has_seq_of_suit(st, team, c // 13):
                d += p[TP_W_ACE]
        if -d > bs:
            bs = -d
            best = c
    return A_DISCARD + best


@njit(cache=True)
def thil_meld(st, rv, team, seat, p, ids, n, sel, scratch):
    """thilanguis' meld-phase action: the first applicable of its rules 1-4
    (docs/peer_bots.md), -1 to stop."""
    if st.g[G_ACTIONS] >= p[TP_MAX_ACTIONS]:
        return -1
    panic, desperate, rushing, endgame = thil_modes(st, rv, team, seat, p)
    hn = st.hn[seat]
    stock = stock_left(st)
    # 1. a natural on an own meld, never dirtying a clean one while holding 2+
    # 2. a 2 of the suit onto a clean sequence as its natural 2
    for rule in range(2):
        for i in range(n):
            a = ids[i]
            if a < A_LAYOFF or a >= A_CREATE:
                continue
            c = (a - A_LAYOFF) % N_COUNT
            mi = (a - A_LAYOFF) // N_COUNT
            if (rule == 0 and is_wild(c)) or (rule == 1 and (c == JOKER or c % 13 != 1)):
                continue
            if not single_layoff(st, rv, team, seat, a, scratch):
                continue
            dirty = dirties(st, team, a, sel)
            if rule == 1 and (dirty or st.minfo[team, mi, MI_KIND] != KIND_SEQ):
                continue
            if dirty and hn > 1:
                continue
            clean7 = not dirty and st.minfo[team, mi, MI_NWILD] == 0 and st.minfo[team, mi, MI_LEN] == 6
            if thil_safe(st, team, hn - 1, panic, clean7):
                return a
    # 3. a new 3-card sequence, clean or with a 2 of its suit as its only wild
    if thil_safe(st, team, hn - 3, panic, False):
        a = thil_trio(st, rv, team, seat, -1, 1, False, desperate, sel)
        if a >= 0:
            return a
    # 4. dirty plays
    if (rushing or desperate or endgame) and not (rv[L.RV_NUM_PLAYERS] == 4 and not desperate
                                                   and stock > p[TP_DUO_DIRTY_STOCK]):
        off2 = desperate or rushing or hn <= 2
        if desperate or rv[L.RV_NUM_PLAYERS] != 4 or stock <= p[TP_DUO_WILD_STOCK]:
            for i in range(n):
                a = ids[i]
                if a < A_LAYOFF or a >= A_CREATE:
                    continue
                c = (a - A_LAYOFF) % N_COUNT
                mi = (a - A_LAYOFF) // N_COUNT
                if not is_wild(c) or st.minfo[team, mi, MI_KIND] != KIND_SEQ \
                        or st.minfo[team, mi, MI_NWILD] > 0 or st.minfo[team, mi, MI_LEN] >= 7:
                    continue
                if not single_layoff(st, rv, team, seat, a, scratch):
                    continue
                if c != JOKER:
                    suit = -1
                    for r in range(13):
                        if r != 1 and st.mcnt[team, mi, 13 * (c // 13) + r] > 0:
                            suit = c // 13
                    if suit < 0 and not off2:
                        continue
                if dirties(st, team, a, sel) and hn > 1:
                    continue
                if thil_safe(st, team, hn - 1, panic, False):
                    return a
        if (3 <= hn <= 6 or panic) and thil_safe(st, team, hn - 3, panic, False):
            a = thil_trio(st, rv, team, seat, -1, 2, off2, desperate, sel)
            if a >= 0:
                return a
    return -1


@njit(cache=True)
def thilanguis_bot_chooser(work):
    """``thilanguis_bot`` (sequences only): pickup :func:`thil_pickup`, meld phase
    :func:`thil_meld` (one action per call, at most ``max_actions`` a turn),
    discard :func:`thil_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, thil_pickup(st, rv, team, seat, p, sel))
    if ph == PH_DISCARD:
        return thil_discard(st, rv, team, seat, p)
    return finish_meld(ids, n, thil_meld(st, rv, team, seat, p, ids, n, sel, scratch))


def thilanguis_bot_callback(work_addr, words):
    """:func:`thilanguis_bot_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return thilanguis_bot_chooser(carray(_as_i64_pointer(work_addr), words))
