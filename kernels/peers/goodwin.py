"""burraco-game's players: ``goodwin_random``, ``goodwin_low`` and ``goodwin_ismcts``.

The random player, the low AI and the SO-ISMCTS search (a fresh tree per
action, determinizations of the unseen cards with random playouts), with the
conventions of :mod:`kernels.peers.common`.
"""
import numpy as np
from numba import carray, njit

from kernels.core import layout as L
from kernels.core.cards import CIDX, N_COUNT
from kernels.core.melds import ANY_RANK, KIND_SEQ, analyze
from kernels.core.rng import bounded, next_u64, seed_hand
from kernels.engine.actions import (A_CREATE, A_LAYOFF, N_SET_MELDS, PH_DISCARD, PH_OVER,
                                    PH_PICKUP, apply_action, create_action)
from kernels.engine.legal import OK, can_create
from kernels.peers.common import (NEG, _first_wild, action_cards, finish_meld, first_discard,
                                  has_action, has_burraco, mem, note, random_discard,
                                  single_layoff, stock_left, take_if)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_OPEN_ROW, G_PHASE, G_PILE_SIZE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN, G_TURN, MI_KIND
from kernels.table.work import views
from kernels.table.worlds import _card_at, deal_ids, unseen_places


# ---------------------------------------------------------------- goodwin_random
@njit(cache=True)
def goodwin_random_chooser(work):
    """``goodwin_random``: coin-flip pickup; melds everything in the order new
    sequence (most naturals, natural-only first) > lay-off on a sequence > new
    set (most naturals, natural-only first) > lay-off on a set; a uniformly
    drawn discard."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, bounded(rng, 2) == 1)
    if ph == PH_DISCARD:
        return random_discard(st, rv, team, seat, rng)
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF:
            continue
        if a < A_CREATE:
            if not single_layoff(st, rv, team, seat, a, scratch):
                continue
            mi = (a - A_LAYOFF) // N_COUNT
            s = 3e6 if st.minfo[team, mi, MI_KIND] == KIND_SEQ else 1e6
        else:
            k = action_cards(a, sel)
            nw = analyze(sel, ANY_RANK)[1]
            s = (4e6 if a - A_CREATE >= N_SET_MELDS else 2e6) + 10.0 * (k - nw) + (nw == 0)
        if s > bs:
            bs = s
            best = a
    return finish_meld(ids, n, best)


def goodwin_random_callback(work_addr, words):
    """:func:`goodwin_random_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return goodwin_random_chooser(carray(_as_i64_pointer(work_addr), words))


# ---------------------------------------------------------------- goodwin_low
@njit(cache=True)
def goodwin_low_candidate(st, rv, team, seat, skip_invalid, sel):
    """``goodwin_low``'s new meld: its candidate list (per suit, sliding windows of
    the suit's distinct naturals, aces high, longest first, a one-rank gap filled
    with the first wild; then groups of a rank) and the first of it; an invalid
    first candidate (2 cards) melds nothing unless ``skip_invalid``.  Returns
    the create id or -1."""
    hc = st.hcnt[seat]
    w = _first_wild(hc)
    minlen = 2 if w >= 0 else 3
    keys = np.zeros(13, np.int64)
    for s in range(4):
        m = 0
        for k in range(2, 14):
            r = 0 if k == 13 else k
            if hc[13 * s + r] > 0:
                keys[m] = k
                m += 1
        for length in range(m, minlen - 1, -1):
            for lo in range(0, m - length + 1):
                span = keys[lo + length - 1] - keys[lo] + 1
                if span != length and not (span == length + 1 and w >= 0):
                    continue
                for f in range(N_COUNT):
                    sel[f] = 0
                for j in range(lo, lo + length):
                    r = 0 if keys[j] == 13 else keys[j]
                    sel[13 * s + r] = 1
                if span == length + 1:
                    sel[w] += 1
                a = create_action(sel)
                if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                    return a
                if a < 0 and not skip_invalid and span < 3:
                    return -1
    for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        k = 0
        for s in range(4):
            k += hc[13 * s + r]
        if k >= 3 or (k >= 2 and w >= 0):
            for f in range(N_COUNT):
                sel[f] = 0
            for s in range(4):
                sel[13 * s + r] = hc[13 * s + r]
            a = create_action(sel)
            if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                return a
            if a < 0 and not skip_invalid:
                return -1
    return -1


@njit(cache=True)
def goodwin_low_chooser(work):
    """``goodwin_low``: the pile when it has more than ``pile_min - 1`` cards;
    at most one new meld per turn (:func:`goodwin_low_candidate`), never a
    lay-off; discards the first card in the canonical order."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, st.g[G_PILE_SIZE] >= p[0])
    if ph == PH_DISCARD:
        return first_discard(ids, n)
    a = -1
    if m[1] == 0:
        a = goodwin_low_candidate(st, rv, team, seat, p[1] != 0, sel)
    return note(m, finish_meld(ids, n, a))


def goodwin_low_callback(work_addr, words):
    """:func:`goodwin_low_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return goodwin_low_chooser(carray(_as_i64_pointer(work_addr), words))


# ---------------------------------------------------------------- goodwin_ismcts
#: the parameter slots of goodwin_ismcts (sim.peers)
GI_ITERATIONS, GI_C_UCT, GI_W_BURRACO, GI_W_POZZETTO, GI_H0 = 0, 1, 2, 3, 4   # GI_H0..+6: H(0..)
GI_STOP_AT_STOCK_END = 11


@njit(cache=True)
def determinize(src, seat, rng, world, places, ids):
    """Copy the work buffer ``src`` into ``world`` and deal the cards ``seat``
    cannot see again (R11: :func:`kernels.table.worlds.unseen_places`), uniformly
    from ``rng``.  The unseen cards are sorted by face (then id) before the
    shuffle, so the world's faces depend on what the seat knows and on ``rng``
    only, never on where the hidden cards really are."""
    for i in range(src.shape[0]):
        world[i] = src[i]
    st = views(world)[0]
    n = unseen_places(world, seat, places)
    for k in range(n):
        cid = _card_at(st, places, k)
        ids[k] = CIDX[cid] * 128 + cid            # by face first (the seat knows faces)
    ids[:n].sort()
    for k in range(n):
        ids[k] = ids[k] % 128
    deal_ids(st, places, ids, n, seat, rng)
    # the world's own random stream (playouts, expansion) from the searcher's
    seed_hand(next_u64(rng), np.int64(0), views(world)[4])
    st.g[G_OPEN_ROW] = 0


@njit(cache=True, _nrt=False)
def ismcts_reward(st, rv, q, p):
    """``s(q)``: ``w_burraco`` when q's team holds a burraco, ``w_pozzetto`` when
    it took its pozzetto, plus ``H`` of q's hand size (``p[GI_H0 + k]`` for a
    hand of k = 0..6 classes: 0, 1, 2, 3-4, 5-6, 7-9, 10+ cards)."""
    team = st.g[G_TEAM + q]
    h = st.hn[q]
    if h == 0:
        k = 0
    elif h == 1:
        k = 1
    elif h == 2:
        k = 2
    elif h <= 4:
        k = 3
    elif h <= 6:
        k = 4
    elif h <= 9:
        k = 5
    else:
        k = 6
    return (p[GI_W_BURRACO] * has_burraco(st, team) + p[GI_W_POZZETTO] * (st.g[G_POZZETTO_TAKEN + team] != 0)
            + p[GI_H0 + k])


@njit(cache=True)
def ismcts_search(work, p, iterations):
    """SO-ISMCTS over the seat to move's atomic actions of this turn (Cowling et
    al.; docs/peer_bots.md, goodwin_ismcts): ``iterations`` determinizations,
    UCB selection among the children legal in each (``mean + c_uct *
    sqrt(ln(availability) / visits)``), one random expansion, a uniformly
    random playout for every seat to the end of the hand (or, with
    ``stop_at_stock_end``, until the stock reaches its reserve), the reward of
    :func:`ismcts_reward` for the seat to move at the end (1 - s for a seat of
    the other team); a path that ends with the seat's own discard is scored
    there.  Returns the root child with the most visits (the first created on
    ties)."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    root_team = st.g[G_TEAM + seat]
    turn = st.g[G_TURN]
    ids0, n0 = legal(work)
    if n0 == 1:
        return ids0[0]
    cap = iterations + 2
    act = np.full(cap, -1, np.int64)
    first = np.full(cap, -1, np.int64)
    nxt = np.full(cap, -1, np.int64)
    visits = np.zeros(cap, np.float64)
    total = np.zeros(cap, np.float64)
    avail = np.ones(cap, np.float64)
    path = np.zeros(cap, np.int64)
    nn = 1
    world = np.empty(work.shape[0], np.int64)
    places = np.empty((108, 3), np.int64)
    cards = np.empty(108, np.int64)
    untried = np.empty(16400, np.int64)
    c_uct = p[GI_C_UCT]
    for it in range(iterations):
        determinize(work, seat, rng, world, places, cards)
        ws = views(world)[0]
        wrng = views(world)[4]
        node = 0
        depth = 0
        path[0] = 0
        playout = False
        while True:
            if ws.g[G_PHASE] == PH_OVER or ws.g[G_TURN] != turn:
                playout = False       # the hand is over, or the seat's discard ended the path
                break
            ids, n = legal(world)
            # untried legal moves, and the legal children's availability
            nu = 0
            for i in range(n):
                a = ids[i]
                ch = first[node]
                found = False
                while ch >= 0:
                    if act[ch] == a:
                        found = True
                        break
                    ch = nxt[ch]
                if not found:
                    untried[nu] = a
                    nu += 1
            if nu > 0:
                a = untried[bounded(wrng, nu)]
                child = nn
                nn += 1
                act[child] = a
                nxt[child] = first[node]
                first[node] = child
                apply_action(world, a)
                depth += 1
                path[depth] = child
                # a discard (the turn passed) or the end of the hand: scored here
                playout = ws.g[G_TURN] == turn and ws.g[G_PHASE] != PH_OVER
                break
            best = -1
            bs = NEG
            ch = first[node]
            while ch >= 0:
                if has_action(ids, n, act[ch]):
                    avail[ch] += 1.0
                    u = total[ch] / visits[ch] + c_uct * np.sqrt(np.log(avail[ch]) / visits[ch])
                    if u > bs:
                        bs = u
                        best = ch
                ch = nxt[ch]
            apply_action(world, act[best])
            node = best
            depth += 1
            path[depth] = best
        if playout:
            reserve = rv[L.RV_STOCK_RESERVE]
            while ws.g[G_PHASE] != PH_OVER:
                if p[GI_STOP_AT_STOCK_END] != 0 and stock_left(ws) <= reserve:
                    break
                ids, n = legal(world)
                apply_action(world, ids[bounded(wrng, n)])
        q = ws.g[G_SEAT] if playout else seat
        s = ismcts_reward(ws, rv, q, p)
        r = s if ws.g[G_TEAM + q] == root_team else 1.0 - s
        for d in range(1, depth + 1):
            visits[path[d]] += 1.0
            total[path[d]] += r
    best = -1
    bv = -1.0
    ch = first[0]
    while ch >= 0:
        if visits[ch] >= bv:      # children are listed newest first: >= keeps the first created
            bv = visits[ch]
            best = ch
        ch = nxt[ch]
    return act[best]


@njit(cache=True)
def goodwin_ismcts_chooser(work):
    """``goodwin_ismcts``: every decision (pickup, each meld-phase action, the
    discard) by :func:`ismcts_search` with ``iterations`` determinizations."""
    parts = views(work)
    p = parts[2][parts[0].g[G_SEAT]]
    return ismcts_search(work, p, np.int64(max(1.0, p[GI_ITERATIONS])))


def goodwin_ismcts_callback(work_addr, words):
    """:func:`goodwin_ismcts_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return goodwin_ismcts_chooser(carray(_as_i64_pointer(work_addr), words))
