"""gioco-burraco's bots ``masu_normal`` and ``masu_easy``, with the conventions of :mod:`kernels.peers.common`."""
from numba import carray, njit

from kernels.core.cards import CIDX, CVALUE, N_COUNT
from kernels.engine.actions import A_CREATE, A_DISCARD, A_DRAW, A_LAYOFF, PH_DISCARD, PH_PICKUP
from kernels.peers.common import (NEG, TRIOS, action_cards, class_rank, discard_ok, finish_meld,
                                  fits_team, has_burraco, is_wild, opp_team, points_of,
                                  result_meld, single_layoff, take_if, trio_allowed,
                                  trio_count_with, trio_fit, wilds_of)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_PILE_SIZE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN, MI_LEN
from kernels.table.work import views


# ---------------------------------------------------------------- masu_*
@njit(cache=True)
def masu_meld_score(st, rv, team, seat, a, normal, sel, scratch):
    """Lexicographic rank of a create or lay-off (higher is better), or ``NEG``
    for a lay-off of several cards.  ``normal``: closure this turn, pozzetto
    al volo, class gain, class after; then (both profiles) more cards, fewer
    wilds, more points."""
    if a < A_CREATE and not single_layoff(st, rv, team, seat, a, scratch):
        return NEG
    k = action_cards(a, sel)
    nw = wilds_of(sel)
    pts = points_of(sel)
    s = k * 1e7 + (20 - nw) * 1e5 + pts
    if not normal:
        return s
    left = st.hn[seat] - k
    # the card left in hand after the action (when one is left)
    last = -1
    if left == 1:
        for c in range(N_COUNT):
            if st.hcnt[seat, c] - sel[c] > 0:
                last = c
    mi = result_meld(st, team, a, sel)
    after = class_rank(sel, rv)
    before = 0
    if mi >= 0:
        sel[(a - A_LAYOFF) % N_COUNT] -= 1
        before = class_rank(sel, rv)
        sel[(a - A_LAYOFF) % N_COUNT] += 1
    took = st.g[G_POZZETTO_TAKEN + team] != 0
    poz = left == 0 and not took
    burraco = has_burraco(st, team) or k + (0 if mi < 0 else st.minfo[team, mi, MI_LEN]) >= 7
    closure = (not poz) and took and left == 1 and last >= 0 and not is_wild(last) and burraco
    return (closure * 1e14 + poz * 1e13 + (after - before + 3) * 1e11 + after * 1e10 + s)


@njit(cache=True)
def masu_discard(st, rv, team, seat, normal, hc):
    """The discard of ``masu_normal`` (closes, not a wild, fits no own meld, fewer
    future 3-card melds, fits no opposing meld, more points) or ``masu_easy``
    (not a wild, more points); ties to the lowest face.  ``hc`` is a work
    array."""
    opp = opp_team(st, rv, seat)
    for f in range(N_COUNT):
        hc[f] = st.hcnt[seat, f]
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if hc[c] == 0 or not discard_ok(st, rv, team, seat, c):
            continue
        s = (not is_wild(c)) * 1e9 + CVALUE[c]
        if normal:
            closes = st.hn[seat] == 1 and st.g[G_POZZETTO_TAKEN + team] != 0
            hc[c] -= 1
            fut = trio_count_with(hc, c, rv) if hc[c] >= 0 else 0
            hc[c] += 1
            s += (closes * 1e12 + (not fits_team(st, team, c)) * 1e8
                  + (999 - min(fut, 999)) * 1e4 + (not fits_team(st, opp, c)) * 1e3)
        if s > bs:
            bs = s
            best = c
    return A_DISCARD + best


@njit(cache=True)
def masu_chooser(work, normal):
    """``masu_normal`` (``normal`` true) or ``masu_easy``.  Pickup: normal takes
    the pile when one of its cards is used by a 3-card meld with the hand and
    the rest of the pile, or fits an own meld; easy always draws.  Meld phase:
    the best of every create and single-card lay-off by :func:`masu_meld_score`
    until none is left.  Discard: :func:`masu_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        if not normal:
            return A_DRAW
        for f in range(N_COUNT):
            need[f] = 0
        for i in range(st.g[G_PILE_SIZE]):
            need[CIDX[st.pile[i]]] += 1
        want = False
        for f in range(N_COUNT):
            if need[f] > 0 and fits_team(st, team, f):
                want = True
        if not want:
            for i in range(TRIOS.shape[0]):
                if trio_allowed(i, rv) and trio_fit(i, st.hcnt[seat], need) == 2:
                    want = True
                    break
        return take_if(ids, n, want)
    if ph == PH_DISCARD:
        return masu_discard(st, rv, team, seat, normal, need)
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF:
            continue
        s = masu_meld_score(st, rv, team, seat, a, normal, sel, scratch)
        if s > bs:
            bs = s
            best = a
    return finish_meld(ids, n, best)


@njit(cache=True)
def masu_normal_chooser(work):
    """``masu_normal`` (:func:`masu_chooser`)."""
    return masu_chooser(work, True)


def masu_normal_callback(work_addr, words):
    """:func:`masu_normal_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return masu_normal_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def masu_easy_chooser(work):
    """``masu_easy`` (:func:`masu_chooser`)."""
    return masu_chooser(work, False)


def masu_easy_callback(work_addr, words):
    """:func:`masu_easy_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return masu_easy_chooser(carray(_as_i64_pointer(work_addr), words))
