"""PyBurracoBabbo's coded player ``babbo_coded``, with the conventions of :mod:`kernels.peers.common`."""
import numpy as np
from numba import carray, njit

from kernels.core.cards import N_COUNT
from kernels.engine.actions import A_LAYOFF, PH_DISCARD, PH_PICKUP, create_action
from kernels.engine.legal import OK, can_create
from kernels.peers.common import (_first_wild, finish_meld, has_action, has_burraco, mem, note,
                                  random_discard, single_layoff, take_if)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_PILE_SIZE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN
from kernels.table.work import views


# ---------------------------------------------------------------- babbo_coded
@njit(cache=True)
def babbo_candidate(st, rv, team, seat, keep, ace_in_runs, sel, best_sel):
    """``babbo_coded``'s new meld: the longest of its candidates (runs per suit
    with one gap bridged by the first wild, sets of all naturals of a rank plus
    the first wild when one is held) that leaves ``keep`` cards; sequences win
    ties, then suits and ranks in order.  Returns the create id or -1."""
    hc = st.hcnt[seat]
    w = _first_wild(hc)
    hn = st.hn[seat]
    best = -1
    blen = 0
    for s in range(4):
        # the suit's naturals sorted (2s out; aces high when allowed)
        seq = np.zeros(28, np.int64)
        m = 0
        for k in range(2, 14 if ace_in_runs else 13):
            r = 0 if k == 13 else k
            for _ in range(hc[13 * s + r]):
                seq[m] = k
                m += 1
        used_gap = False
        start = 0
        while start < m:
            end = start
            wild_in = False
            while end + 1 < m:
                d = seq[end + 1] - seq[end]
                if d == 1:
                    end += 1
                elif d == 2 and not used_gap and w >= 0:
                    used_gap = True
                    wild_in = True
                    end += 1
                else:
                    if d == 2:
                        used_gap = True
                    break
            length = end - start + 1 + (1 if wild_in else 0)
            if length >= 3 and hn - length >= keep and length > blen:
                for f in range(N_COUNT):
                    sel[f] = 0
                for j in range(start, end + 1):
                    r = 0 if seq[j] == 13 else seq[j]
                    sel[13 * s + r] += 1
                if wild_in:
                    sel[w] += 1
                a = create_action(sel)
                if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                    best = a
                    blen = length
            start = end + 1
    for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        k = 0
        for s in range(4):
            k += hc[13 * s + r]
        length = k + (1 if w >= 0 else 0)
        if k == 0 or length < 3 or hn - length < keep or length <= blen:
            continue
        for f in range(N_COUNT):
            sel[f] = 0
        for s in range(4):
            sel[13 * s + r] = hc[13 * s + r]
        if w >= 0:
            sel[w] += 1
        a = create_action(sel)
        if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
            best = a
            blen = length
    return best


@njit(cache=True)
def babbo_coded_chooser(work):
    """``babbo_coded``: the pile by hand and pile size; one pass of single-card
    lay-offs in hand order, each on the first meld taking it, keeping cards
    back; then at most one new meld, the longest (:func:`babbo_candidate`);
    a uniformly drawn discard."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    h = st.hn[seat]
    B = has_burraco(st, team)
    Z = st.g[G_POZZETTO_TAKEN + team] != 0
    if ph == PH_PICKUP:
        pn = st.g[G_PILE_SIZE]
        if B:
            return take_if(ids, n, h == 2 and pn >= p[1])
        return take_if(ids, n, h == 1 or pn >= p[0])
    if ph == PH_DISCARD:
        return random_discard(st, rv, team, seat, rng)
    if m[1] > 0:
        return finish_meld(ids, n, -1)
    # lay-offs: one pass in hand order, a card never retried
    rem = h - 1
    if rem >= 2 and not (rem == 2 and Z and not B) and (h > 2 or (h == 2 and (not Z or B))):
        for c in range(max(m[3], 0), N_COUNT):
            if st.hcnt[seat, c] == 0:
                continue
            for mi in range(st.nm[team]):
                a = A_LAYOFF + N_COUNT * mi + c
                if has_action(ids, n, a) and single_layoff(st, rv, team, seat, a, scratch):
                    return note(m, a)
    m[3] = N_COUNT          # the pass is over
    keep = p[3] if B else p[2]
    a = babbo_candidate(st, rv, team, seat, keep, p[4] != 0, sel, need)
    return note(m, finish_meld(ids, n, a))


def babbo_coded_callback(work_addr, words):
    """:func:`babbo_coded_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return babbo_coded_chooser(carray(_as_i64_pointer(work_addr), words))
