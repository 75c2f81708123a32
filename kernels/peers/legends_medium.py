"""burraco-legends' bot ``legends_medium``, with the conventions of :mod:`kernels.peers.common`."""
import numpy as np
from numba import carray, njit

from kernels.core.cards import CVALUE, JOKER, N_COUNT
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_LAYOFF, PH_DISCARD, PH_PICKUP,
                                    create_action)
from kernels.engine.legal import OK, can_create
from kernels.peers.common import (NEG, _first_wild, _key_face, _low_rank_key, _suit_keys,
                                  discard_ok, finish_meld, first_legal_discard, forms_trio,
                                  has_burraco, is_wild, mem, note, pile_top, single_layoff,
                                  stock_left, take_if)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_PILE_SIZE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN
from kernels.table.work import views


# ---------------------------------------------------------------- legends_medium
@njit(cache=True, _nrt=False)
def _put(rows, i, a, b, c, d, e, f):
    rows[i, 0] = a
    rows[i, 1] = b
    rows[i, 2] = c
    rows[i, 3] = d
    rows[i, 4] = e
    rows[i, 5] = f


@njit(cache=True)
def legends_new_meld(st, rv, team, seat, wilds_ok, sel):
    """legends' new meld, longest first: runs (maximal stretches of 3+ naturals
    of a suit), sets (every natural of a rank, 3 to 8), and when ``wilds_ok``
    a pair of a rank plus the first wild or a stretch with one gap plus the
    first wild, each only when no candidate so far is as long; skipped when it
    leaves one card and no close is possible, or none after the pozzetto
    without a close.  Returns the create id or -1."""
    hc = st.hcnt[seat]
    hn = st.hn[seat]
    took = st.g[G_POZZETTO_TAKEN + team] != 0
    burraco = has_burraco(st, team)
    w = _first_wild(hc)
    held = np.zeros(15, np.int64)
    # candidates: (length, kind, suit or rank, lo key, hi key, gap key) in cand rows, best first
    cands = np.zeros((64, 6), np.int64)
    nc = 0
    longest = 0
    for s in range(4):
        _suit_keys(hc, s, held)
        k = 2
        while k <= 13:
            if held[k] == 0:
                k += 1
                continue
            j = k
            while j + 1 <= 13 and held[j + 1] == 1:
                j += 1
            if j - k + 1 >= 3:
                _put(cands, nc, j - k + 1, 0, s, k, j, -1)
                nc += 1
                longest = max(longest, j - k + 1)
            k = j + 1
    for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        c = 0
        for s in range(4):
            c += hc[13 * s + r]
        if c >= 3:
            _put(cands, nc, min(c, 8), 1, r, 0, 0, -1)
            nc += 1
            longest = max(longest, min(c, 8))
    if wilds_ok and w >= 0:
        if longest < 3:
            for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
                c = 0
                for s in range(4):
                    c += hc[13 * s + r]
                if c == 2:
                    _put(cands, nc, 3, 2, r, 0, 0, -1)
                    nc += 1
                    longest = 3
                    break
        for s in range(4):
            _suit_keys(hc, s, held)
            for g in range(3, 13):
                if held[g] == 1 or held[g - 1] == 0 or held[g + 1] == 0:
                    continue
                lo = g - 1
                while lo - 1 >= 2 and held[lo - 1] == 1:
                    lo -= 1
                hi = g + 1
                while hi + 1 <= 13 and held[hi + 1] == 1:
                    hi += 1
                if hi - lo + 1 > longest and nc < 64:
                    _put(cands, nc, hi - lo + 1, 3, s, lo, hi, g)
                    nc += 1
                    longest = hi - lo + 1
    while True:
        bi = -1
        for i in range(nc):
            if cands[i, 0] > 0 and (bi < 0 or cands[i, 0] > cands[bi, 0]):
                bi = i
        if bi < 0:
            return -1
        ln, kind, key, lo, hi, gap = (cands[bi, 0], cands[bi, 1], cands[bi, 2], cands[bi, 3],
                                      cands[bi, 4], cands[bi, 5])
        cands[bi, 0] = 0
        for f in range(N_COUNT):
            sel[f] = 0
        if kind == 0 or kind == 3:
            for k in range(lo, hi + 1):
                if k != gap:
                    sel[_key_face(key, k)] = 1
            if kind == 3:
                sel[w] += 1
        else:
            left = 8 if kind == 1 else 2
            for s in range(4):
                for _ in range(hc[13 * s + key]):
                    if left > 0:
                        sel[13 * s + key] += 1
                        left -= 1
            if kind == 2:
                sel[w] += 1
        rest = hn - ln
        closes = took and (burraco or ln >= 7)
        if (rest == 1 and not closes) or (rest == 0 and took and not closes):
            continue
        a = create_action(sel)
        if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
            return a


@njit(cache=True, _nrt=False)
def legends_discard(st, rv, team, seat):
    """Never a wild while a natural is held; the natural with the lowest
    10 * usefulness - points, usefulness = 3 per other natural of its rank,
    3 per natural of its suit one rank away, 1 per natural two ranks away
    (ties to hand order)."""
    hc = st.hcnt[seat]
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if hc[c] == 0 or is_wild(c) or not discard_ok(st, rv, team, seat, c):
            continue
        r = c % 13
        s = c // 13
        u = 0
        for t in range(4):
            u += 3 * hc[13 * t + r]
        u -= 3
        kc = _low_rank_key(r)
        for q in range(13):
            if q == 1 or hc[13 * s + q] == 0:
                continue
            dk = abs(_low_rank_key(q) - kc)
            if dk == 1:
                u += 3 * hc[13 * s + q]
            elif dk == 2:
                u += hc[13 * s + q]
        sc = -(10.0 * u - CVALUE[c])
        if sc > bs:
            bs = sc
            best = c
    if best >= 0:
        return A_DISCARD + best
    return first_legal_discard(st, rv, team, seat)


@njit(cache=True)
def legends_medium_chooser(work):
    """``legends_medium``: the pile when it has at most ``pile_max`` cards, its top
    is a natural and makes a natural 3-card meld with the hand; lay-offs first
    (never below ``keep_min`` cards, a wild only when wilds are allowed now:
    two wilds held, the stock under ``wild_stock_below`` or the hand at most
    ``wild_hand_at_most``), then new melds (:func:`legends_new_meld`);
    discard :func:`legends_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    hc = st.hcnt[seat]
    if ph == PH_PICKUP:
        top = pile_top(st)
        return take_if(ids, n, top >= 0 and st.g[G_PILE_SIZE] <= p[0] and not is_wild(top)
                       and forms_trio(hc, top, rv, True))
    if ph == PH_DISCARD:
        return legends_discard(st, rv, team, seat)
    nw = hc[JOKER]
    for s in range(4):
        nw += hc[13 * s + 1]
    wilds_ok = nw >= 2 or stock_left(st) < p[1] or st.hn[seat] <= p[2]
    if m[1] == 0 and st.hn[seat] - 1 >= p[3]:
        for i in range(n):
            a = ids[i]
            if a < A_LAYOFF or a >= A_CREATE:
                continue
            if is_wild((a - A_LAYOFF) % N_COUNT) and not wilds_ok:
                continue
            if single_layoff(st, rv, team, seat, a, scratch):
                return note(m, a)
    return note(m, finish_meld(ids, n, legends_new_meld(st, rv, team, seat, wilds_ok, sel)))


def legends_medium_callback(work_addr, words):
    """:func:`legends_medium_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return legends_medium_chooser(carray(_as_i64_pointer(work_addr), words))
