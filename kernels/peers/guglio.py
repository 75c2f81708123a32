"""guglio1981/burraco-pwa's bots ``guglio_easy/medium/hard``, with the conventions of :mod:`kernels.peers.common`."""
import numpy as np
from numba import carray, njit

from kernels.core import layout as L
from kernels.core.cards import CVALUE, N_COUNT
from kernels.core.melds import analyze
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_DRAW, A_LAYOFF, PH_DISCARD,
                                    PH_PICKUP, create_action)
from kernels.engine.legal import OK, can_create
from kernels.peers.common import (NEG, discard_ok, finish_meld, first_legal_discard, fits_team,
                                  forms_trio, is_wild, mem, note, opp_team, pile_top,
                                  random_discard_of, single_layoff, take_if, trio_count_with,
                                  uniform)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_SEAT, G_TEAM, MI_LEN
from kernels.table.work import views


# ---------------------------------------------------------------- guglio_*
@njit(cache=True, _nrt=False)
def _prefix_ok(faces, idx, d):
    """Can the cards ``faces[idx[0..d]]`` still be part of one meld (naturals of
    one rank or one suit; at most two jokers and 2s, one outside a sequence)?"""
    w = 0
    r0 = -1
    s0 = -1
    same_rank = True
    same_suit = True
    for j in range(d + 1):
        f = faces[idx[j]]
        if is_wild(f):
            w += 1
            continue
        if r0 < 0:
            r0 = f % 13
            s0 = f // 13
        else:
            if f % 13 != r0:
                same_rank = False
            if f // 13 != s0:
                same_suit = False
    if not same_rank and not same_suit:
        return False
    if w > 2 or (w > 1 and not same_suit):
        return False
    return True


@njit(cache=True)
def first_combination(faces, n, k, rv, sel):
    """The first combination of ``k`` of the hand cards ``faces[:n]`` (hand order)
    in lexicographic order of positions that is a valid meld (R15-R18); fills
    ``sel`` with its counts and returns True, else False."""
    idx = np.zeros(8, np.int64)
    for f in range(N_COUNT):
        sel[f] = 0
    d = 0
    idx[0] = 0
    while True:
        if idx[d] > n - (k - d):
            d -= 1
            if d < 0:
                return False
            f = faces[idx[d]]
            sel[f] -= 1
            j = idx[d] + 1
            while j < n and faces[j] == f:
                j += 1
            idx[d] = j
            continue
        f = faces[idx[d]]
        sel[f] += 1
        ok = _prefix_ok(faces, idx, d)
        if ok and d == k - 1:
            if analyze(sel, rv[L.RV_SET_RANKS_MASK])[0] != 0:
                return True
            ok = False
        if not ok:
            sel[f] -= 1
            j = idx[d] + 1
            while j < n and faces[j] == f:
                j += 1
            idx[d] = j
            continue
        d += 1
        idx[d] = idx[d - 1] + 1


@njit(cache=True)
def guglio_new_meld(st, rv, team, seat, sel):
    """guglio's new meld: for each size from min(7, hand size) down to 3 the
    first valid combination of that size in hand order; the first of them our
    rules accept (R23, R38).  Returns the create id or -1."""
    faces = np.zeros(112, np.int64)
    n = 0
    for f in range(N_COUNT):
        for _ in range(st.hcnt[seat, f]):
            faces[n] = f
            n += 1
    for k in range(min(7, n), 2, -1):
        if first_combination(faces, n, k, rv, sel):
            a = create_action(sel)
            if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                return a
    return -1


@njit(cache=True, _nrt=False)
def guglio_layoff(st, rv, team, seat, ids, n, hard, scratch):
    """guglio's lay-off: the first single-card lay-off in meld order then hand
    order; ``hard`` first onto melds of exactly 6 cards, then onto longer
    melds.  Returns its id or -1."""
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF or a >= A_CREATE or not single_layoff(st, rv, team, seat, a, scratch):
            continue
        s = -float(a)
        if hard:
            ln = st.minfo[team, (a - A_LAYOFF) // N_COUNT, MI_LEN]
            s += (ln == 6) * 1e9 + ln * 1e6
        if s > bs:
            bs = s
            best = a
    return best


@njit(cache=True, _nrt=False)
def guglio_useful(st, rv, team, seat, c):
    """A card of a valid 3-card meld of hand cards, or one that fits an own meld."""
    return trio_count_with(st.hcnt[seat], c, rv) > 0 or fits_team(st, team, c)


@njit(cache=True, _nrt=False)
def guglio_discard(st, rv, team, seat, hard):
    """medium: the non-useful card with the most points, else the card with the
    fewest; hard: among non-useful cards those that fit no opposing meld (most
    points), else the non-useful one with the fewest points, else (all useful)
    the fewest points among those that fit no opposing meld, else among all.
    Ties to hand order; a refused card gives way to the first legal one."""
    opp = opp_team(st, rv, seat)
    # classes: 0 non-useful and safe, 1 non-useful, 2 useful and safe, 3 useful
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if st.hcnt[seat, c] == 0:
            continue
        useful = guglio_useful(st, rv, team, seat, c)
        feeds = hard and fits_team(st, opp, c)
        if not useful:
            if not feeds:
                s = 4e6 + CVALUE[c]
            else:
                s = 3e6 - CVALUE[c]
        else:
            s = (2e6 if not feeds else 1e6) - CVALUE[c]
        if not hard:
            s = (4e6 + CVALUE[c]) if not useful else (1e6 - CVALUE[c])
        if s > bs:
            bs = s
            best = c
    if best >= 0 and discard_ok(st, rv, team, seat, best):
        return A_DISCARD + best
    return first_legal_discard(st, rv, team, seat)


@njit(cache=True)
def guglio_chooser(work, level):
    """The three guglio levels (``level`` 0 easy, 1 medium, 2 hard).

    Pickup: easy always draws; medium and hard take the pile when its top card
    makes a 3-card meld with two hand cards or fits an own meld.  Meld phase,
    one pass per call: a new meld (:func:`guglio_new_meld`), else a lay-off
    (:func:`guglio_layoff`), else stop; easy stops at the start of a pass after
    ``max_new_melds`` new melds or with probability ``p_stop``, and in a pass
    without a new meld skips the lay-offs (stops) with probability
    ``p_skip_layoffs``.  Discard: easy a random non-wild, medium and hard
    :func:`guglio_discard`.
    """
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    if ph == PH_PICKUP:
        if level == 0:
            return A_DRAW
        top = pile_top(st)
        return take_if(ids, n, top >= 0 and (forms_trio(st.hcnt[seat], top, rv, False)
                                             or fits_team(st, team, top)))
    if ph == PH_DISCARD:
        if level == 0:
            return random_discard_of(st, rv, team, seat, rng, True)
        return guglio_discard(st, rv, team, seat, level == 2)
    if level == 0 and (m[1] >= p[1] or uniform(rng) < p[0]):
        return finish_meld(ids, n, -1)
    a = guglio_new_meld(st, rv, team, seat, sel)
    if a < 0:
        if level == 0 and uniform(rng) < p[2]:
            return finish_meld(ids, n, -1)
        a = guglio_layoff(st, rv, team, seat, ids, n, level == 2, scratch)
    return note(m, finish_meld(ids, n, a))


@njit(cache=True)
def guglio_easy_chooser(work):
    """``guglio_easy`` (:func:`guglio_chooser` level 0)."""
    return guglio_chooser(work, 0)


def guglio_easy_callback(work_addr, words):
    """:func:`guglio_easy_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return guglio_easy_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def guglio_medium_chooser(work):
    """``guglio_medium`` (:func:`guglio_chooser` level 1)."""
    return guglio_chooser(work, 1)


def guglio_medium_callback(work_addr, words):
    """:func:`guglio_medium_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return guglio_medium_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def guglio_hard_chooser(work):
    """``guglio_hard`` (:func:`guglio_chooser` level 2)."""
    return guglio_chooser(work, 2)


def guglio_hard_callback(work_addr, words):
    """:func:`guglio_hard_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return guglio_hard_chooser(carray(_as_i64_pointer(work_addr), words))
