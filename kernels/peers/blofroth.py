"""blofroth's agents ``blofroth_dumb/random/smart/max``, with the conventions of :mod:`kernels.peers.common`."""
from numba import carray, njit

from kernels.core import layout as L
from kernels.core.cards import CIDX, JOKER, N_COUNT
from kernels.core.melds import ANY_RANK, analyze
from kernels.core.rng import bounded
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_LAYOFF, N_SET_MELDS, PH_DISCARD,
                                    PH_PICKUP)
from kernels.peers.common import (NEG, action_cards, discard_ok, finish_meld, fits_team,
                                  forms_trio, is_replacement, meld_value, opp_team,
                                  random_discard, result_meld, single_layoff, take_if)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_PILE_SIZE, G_SEAT, G_TEAM, G_TURN
from kernels.table.work import views


# ---------------------------------------------------------------- blofroth_*
@njit(cache=True, inline="always", _nrt=False)
def peer_order(c):
    """blofroth's hand order: jokers first, then clubs, diamonds, hearts,
    spades, each 2 < 3 < ... < K < A."""
    if c == JOKER:
        return -1
    r = c % 13
    return 13 * (c // 13) + (12 if r == 0 else r - 1)


@njit(cache=True, _nrt=False)
def peer_first_discard(st, rv, team, seat, avoid_team):
    """The first card in blofroth's hand order that may be discarded and, with
    ``avoid_team`` >= 0, gives that team no lay-off; else the first that may be
    discarded.  Returns its discard id."""
    for pass_ in range(2):
        best = -1
        bo = 99
        for c in range(N_COUNT):
            if st.hcnt[seat, c] == 0 or not discard_ok(st, rv, team, seat, c):
                continue
            if pass_ == 0 and avoid_team >= 0 and fits_team(st, avoid_team, c):
                continue
            if peer_order(c) < bo:
                bo = peer_order(c)
                best = c
        if best >= 0:
            return A_DISCARD + best
        if avoid_team < 0:
            break
    return -1


@njit(cache=True, _nrt=False)
def blofroth_class(st, rv, team, seat, a, three_only, scratch, sel):
    """The blofroth action class of a meld-phase id: 1 new sequence, 2 new set
    (3 cards when ``three_only``), 3 append (a single-card lay-off), 4 wild
    replacement; 0 not one of its actions."""
    if a < A_LAYOFF:
        return 0
    if a >= A_CREATE:
        if three_only and action_cards(a, sel) != 3:
            return 0
        return 1 if a - A_CREATE >= N_SET_MELDS else 2
    if not single_layoff(st, rv, team, seat, a, scratch):
        return 0
    return 4 if is_replacement(st, team, a) else 3


@njit(cache=True, _nrt=False)
def blofroth_delta(st, rv, team, a, sel):
    """Change of the team's meld points (cards R2 and bonus R56) by a create
    or lay-off."""
    mi = result_meld(st, team, a, sel)
    after = meld_value(sel, rv)
    if mi < 0:
        return after
    sel[(a - A_LAYOFF) % N_COUNT] -= 1
    return after - meld_value(sel, rv)


@njit(cache=True, _nrt=False)
def blofroth_tie(a):
    """Enumeration position of a lay-off: per hand card in blofroth's hand
    order, then per meld; creates 0."""
    if a >= A_CREATE or a < A_LAYOFF:
        return 0
    c = (a - A_LAYOFF) % N_COUNT
    return (peer_order(c) + 2) * 64 + (a - A_LAYOFF) // N_COUNT


@njit(cache=True)
def blofroth_chooser(work, variant):
    """The four blofroth agents (``variant`` 0 dumb, 1 random, 2 smart, 3 max).

    Pickup: dumb, smart's fallback and max alternate by round (stock on even
    rounds, the pile on odd ones); random flips a coin; smart takes the pile
    when one of its cards gives a new action (a lay-off or a 3-card meld with
    two hand cards).  Meld phase over the peer's action classes (3-card new
    melds, single-card appends, wild replacements): dumb the last listed
    (replacement > append > set > sequence), random a uniform one, smart the
    lowest (class weight, point gain), max the largest point gain.  Discard:
    the first card in the peer's hand order (jokers first); smart the first
    that gives the opponents no lay-off; random a uniform card.
    """
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        odd = ((st.g[G_TURN] - 1) // rv[L.RV_NUM_PLAYERS]) % 2 == 1 and p[0] != 0
        if variant == 1:
            return take_if(ids, n, bounded(rng, 2) == 1)
        if variant == 2:
            hc = st.hcnt[seat]
            for i in range(st.g[G_PILE_SIZE]):
                c = CIDX[st.pile[i]]
                if fits_team(st, team, c) or forms_trio(hc, c, rv, False):
                    return take_if(ids, n, True)
        return take_if(ids, n, odd)
    if ph == PH_DISCARD:
        if variant == 1:
            return random_discard(st, rv, team, seat, rng)
        if variant == 2:
            return peer_first_discard(st, rv, team, seat, opp_team(st, rv, seat))
        return peer_first_discard(st, rv, team, seat, -1)
    three = p[1] != 0
    w = p[2:7]      # smart's class weights: replacement, sequence, sequence with a wild, set, append
    k = 0
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        cl = blofroth_class(st, rv, team, seat, a, three, scratch, sel)
        if cl == 0:
            continue
        k += 1
        if variant == 1:
            if bounded(rng, k) == 0:
                best = a        # reservoir sampling: uniform over the class actions
            continue
        if variant == 0:
            s = cl * 1e6 + blofroth_tie(a) + (a - A_CREATE if a >= A_CREATE else 0) * 1e-5
            better = s >= bs
        elif variant == 2:
            if cl == 4:
                cw = w[0]
            elif cl == 1:
                action_cards(a, sel)
                cw = w[1] if analyze(sel, ANY_RANK)[1] == 0 else w[2]
            elif cl == 2:
                cw = w[3]
            else:
                cw = w[4]
            if cw >= p[7]:
                continue        # "end the meld phase" sorts first
            s = -(cw * 1e8 + blofroth_delta(st, rv, team, a, sel) * 1e4 + blofroth_tie(a))
            better = s > bs
        else:
            d = blofroth_delta(st, rv, team, a, sel)
            if d <= 0:
                continue
            s = d * 1e8 + cl * 1e6 + blofroth_tie(a)
            better = s >= bs
        if better:
            bs = s
            best = a
    return finish_meld(ids, n, best)


@njit(cache=True)
def blofroth_dumb_chooser(work):
    """``blofroth_dumb`` (:func:`blofroth_chooser` variant 0)."""
    return blofroth_chooser(work, 0)


def blofroth_dumb_callback(work_addr, words):
    """:func:`blofroth_dumb_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return blofroth_dumb_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def blofroth_random_chooser(work):
    """``blofroth_random`` (:func:`blofroth_chooser` variant 1)."""
    return blofroth_chooser(work, 1)


def blofroth_random_callback(work_addr, words):
    """:func:`blofroth_random_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return blofroth_random_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def blofroth_smart_chooser(work):
    """``blofroth_smart`` (:func:`blofroth_chooser` variant 2)."""
    return blofroth_chooser(work, 2)


def blofroth_smart_callback(work_addr, words):
    """:func:`blofroth_smart_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return blofroth_smart_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def blofroth_max_chooser(work):
    """``blofroth_max`` (:func:`blofroth_chooser` variant 3)."""
    return blofroth_chooser(work, 3)


def blofroth_max_callback(work_addr, words):
    """:func:`blofroth_max_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return blofroth_max_chooser(carray(_as_i64_pointer(work_addr), words))
