"""The decisions of the built-in policies and their choosers.

The ``random`` policy (uniform over the legal choices at each decision: pickup,
each meld-phase action or stopping, discard), the meld search shared by the
policies, the per-decision dispatch of the ``heuristic`` (:func:`heur_choose`,
built on the judgements of :mod:`kernels.strategies.policies`) and of ``random``
(:func:`rand_choose`), and the choosers of the three built-in kinds
(:func:`heuristic_chooser`, :func:`random_chooser`, :func:`uniform_chooser`;
the interface is :mod:`kernels.strategies.api`).  A policy sees only what its
player may see (R11) and chooses only among legal moves (:mod:`kernels.engine.legal`).
"""
import numpy as np
from numba import njit

from kernels.core.cards import CIDX, JOKER, N_COUNT
from kernels.engine.actions import (A_CREATE, A_CREATE_SEL, A_DISCARD, A_DRAW, A_END_MELD, A_LAYOFF,
                                    A_TAKE, N_ACTIONS, legal_actions, PH_DISCARD, PH_MELD,
                                    PH_PICKUP, PH_PLACE, meld_sel)
from kernels.engine.legal import OK, can_create, can_discard, can_layoff
from kernels.engine.placement import can_take_pile, find_placement, trio_sel
from kernels.core.rng import bounded
from kernels.table.work import W_LEGAL, views
from kernels.table.state import view_i64, G_PHASE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN, NTEAMS, reset_g
from kernels.table.moves import meld_add, meld_create
from kernels.strategies.policies import heur_discard, heur_meld_choice, heur_pickup


# ---------------------------------------------------------------- random
@njit(cache=True, _nrt=False)
def rand_pickup(st, rng):
    """Uniform choice between the stock and the pile."""
    return bounded(rng, np.int64(2)) == 1


@njit(cache=True, _nrt=False)
def rand_meld_choice(st, rv, seat, rng, sel, scratch, cand):
    """One uniform choice among stopping and the random strategy's candidate
    meld-phase actions: an action id, or -1 for "stop".

    Candidates: every legal single-card lay-off, and every legal new 3-card
    meld (3 naturals, or 2 naturals and a wild), in that order.  ``cand`` is
    an ``int64[K, 4]`` work array; ``sel`` and ``scratch`` int64[53] ones.
    Draws one number from ``rng`` (uint64[4], mutated).
    """
    hcnt, nm = st.hcnt, st.nm
    team = st.g[G_TEAM + seat]
    hc = hcnt[seat]
    k = 0
    kmax = cand.shape[0]
    for mi in range(nm[team]):
        for c in range(N_COUNT):
            if hc[c] == 0 or k >= kmax:
                continue
            code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK:
                cand[k, 0] = 1
                cand[k, 1] = mi
                cand[k, 2] = c
                k += 1
    # new 3-card melds: enumerate distinct multisets of three count indices
    for a in range(N_COUNT):
        if hc[a] == 0:
            continue
        for b in range(a, N_COUNT):
            if hc[b] == 0 or (b == a and hc[a] < 2):
                continue
            for c in range(b, N_COUNT):
                if hc[c] == 0 or k >= kmax:
                    continue
                if not trio_sel(hc, a, b, c, sel):
                    continue
                code, kind, nw = can_create(st, rv, team, seat, sel)
                if code == OK:
                    cand[k, 0] = 2
                    cand[k, 1] = a
                    cand[k, 2] = b
                    cand[k, 3] = c
                    k += 1
    pick = bounded(rng, k + 1)
    if pick == k:
        return -1
    if cand[pick, 0] == 1:
        return A_LAYOFF + N_COUNT * cand[pick, 1] + cand[pick, 2]
    trio_sel(hc, cand[pick, 1], cand[pick, 2], cand[pick, 3], sel)
    return A_CREATE_SEL


@njit(cache=True, _nrt=False)
def rand_discard(st, rv, seat, rng):
    """A uniformly chosen legal discard (by card id)."""
    hand, hn = st.hand, st.hn
    team = st.g[G_TEAM + seat]
    n = np.int64(0)
    for i in range(hn[seat]):
        code, closes = can_discard(st, rv, team, seat, hand[seat, i])
        if code == OK:
            n += 1
    if n == 0:
        return -1
    pick = bounded(rng, n)
    for i in range(hn[seat]):
        code, closes = can_discard(st, rv, team, seat, hand[seat, i])
        if code == OK:
            if pick == 0:
                return hand[seat, i]
            pick -= 1
    return -1


# ---------------------------------------------------------------- meld search
@njit(cache=True, _nrt=False)
def meld_search(hand_ids, rv, p, st, sel, scratch):
    """The heuristic's meld search on one hand against an empty table.

    Puts ``hand_ids`` (int64[k]) into seat 0 of the scratch state ``st``
    (a :func:`kernels.table.state.new_state` tuple, reset here) and applies
    :func:`heur_meld_choice`'s actions until it stops (pozzetto taken: no, so the hand
    may be melded out entirely).  Used by the benchmarks.

    Returns
    -------
    tuple of int
        ``(melds, cards_melded)``.
    """
    hand, hn, hcnt, mcnt, minfo, nm, g = st.hand, st.hn, st.hcnt, st.mcnt, st.minfo, st.nm, st.g
    for s in range(4):
        hn[s] = 0
        for c in range(N_COUNT):
            hcnt[s, c] = 0
    for t in range(NTEAMS):
        for mi in range(nm[t]):
            for c in range(N_COUNT):
                mcnt[t, mi, c] = 0
            minfo[t, mi, 0] = 0
        nm[t] = 0
    reset_g(g)
    for t in range(NTEAMS):
        g[G_POZZETTO_TAKEN + t] = 1    # no al-volo refill: search the hand alone
    k = hand_ids.shape[0]
    for i in range(k):
        cid = hand_ids[i]
        hand[0, hn[0]] = cid
        hn[0] += 1
        f = cid % 54
        if f >= 52:
            f = JOKER
        hcnt[0, f] += 1
    a = heur_meld_choice(st, rv, 0, p, sel, scratch)
    while a >= 0:
        if a < A_CREATE:
            meld_add(st, 0, 0, (a - A_LAYOFF) // N_COUNT, (a - A_LAYOFF) % N_COUNT)
        else:
            if a != A_CREATE_SEL:
                meld_sel(a - A_CREATE, sel)
            meld_create(st, 0, 0, sel)
        a = heur_meld_choice(st, rv, 0, p, sel, scratch)
    return nm[0], k - hn[0]


# ---------------------------------------------------------------- choosers
@njit(cache=True, _nrt=False)
def placement_action(st, rv, seat, need, sel, scratch):
    """The first placement :func:`kernels.engine.placement.find_placement` finds for the
    R34 obligation (any card): an action id, or -1 if none exists."""
    team = st.g[G_TEAM + seat]
    for f in range(N_COUNT):
        need[f] = 1
    what, a, b, c = find_placement(st, rv, team, seat, need, sel, scratch)
    if what == 1:
        return A_LAYOFF + N_COUNT * a + b
    if what == 2:
        trio_sel(st.hcnt[seat], a, b, c, sel)
        return A_CREATE_SEL
    return -1


@njit(cache=True, _nrt=False)
def meld_or_end(a, st, rv, seat, need, sel, scratch):
    """A chooser's meld-phase action ``a``, or when it stops (-1): "end the meld
    phase", or right after an R34 pickup with no placement yet (phase
    ``place``) the first placement found (the R34 obligation)."""
    if a >= 0:
        return a
    if st.g[G_PHASE] == PH_PLACE:
        return placement_action(st, rv, seat, need, sel, scratch)
    return A_END_MELD


@njit(cache=True, inline="always", _nrt=False)
def heur_choose(st, rv, seat, p, sel, scratch, vals, need):
    """The ``heuristic`` strategy's action id at the decision ``st`` waits for.

    Reads only what ``seat`` may know (R11); ``st`` is not mutated.  Pickup:
    :func:`heur_pickup`, drawing when R34 forbids the pile.  Meld phase:
    :func:`heur_meld_choice`, or "end"; right after an R34 pickup that made no
    placement yet, the first placement found instead of "end".  Discard: the
    face of :func:`heur_discard`'s card (the engine discards the same copy).
    ``sel``, ``scratch``, ``need`` (int64[53]) and ``vals`` (float64[53]) are
    work arrays.
    """
    g = st.g
    ph = g[G_PHASE]
    if ph == PH_PICKUP:
        team = g[G_TEAM + seat]
        if heur_pickup(st, rv, seat, p) and can_take_pile(st, rv, team, seat, need, sel,
                                                          scratch):
            return A_TAKE
        return A_DRAW
    if ph == PH_MELD or ph == PH_PLACE:
        return meld_or_end(heur_meld_choice(st, rv, seat, p, sel, scratch), st, rv, seat, need, sel,
                           scratch)
    if ph == PH_DISCARD:
        cid = heur_discard(st, rv, seat, p, vals, scratch)
        if cid < 0:
            return -1
        return A_DISCARD + CIDX[cid]
    return -1


@njit(cache=True, inline="always", _nrt=False)
def rand_choose(st, rv, seat, rng, sel, scratch, cand, need):
    """The ``random`` strategy's action id (``rng``, uint64[4], is advanced).

    Pickup: the pile or the stock with even odds, drawing when R34 forbids
    the pile.  Meld phase: :func:`rand_meld_choice`; a "stop" right after an
    R34 pickup with no placement yet plays the first placement found.
    Discard: a uniformly chosen hand position among the legal discards, as
    the copy-naming id ``N_ACTIONS + card id``.
    """
    g = st.g
    ph = g[G_PHASE]
    if ph == PH_PICKUP:
        team = g[G_TEAM + seat]
        if rand_pickup(st, rng) and can_take_pile(st, rv, team, seat, need, sel, scratch):
            return A_TAKE
        return A_DRAW
    if ph == PH_MELD or ph == PH_PLACE:
        return meld_or_end(rand_meld_choice(st, rv, seat, rng, sel, scratch, cand), st, rv, seat, need, sel,
                           scratch)
    if ph == PH_DISCARD:
        cid = rand_discard(st, rv, seat, rng)
        if cid < 0:
            return -1
        return N_ACTIONS + cid
    return -1


@njit(cache=True, inline="always")
def heuristic_chooser(work):
    """The ``heuristic`` strategy as a chooser (:mod:`kernels.strategies.api`): its action
    id for the seat to move in the work buffer ``work``, with that seat's
    parameter row."""
    wv = views(work)
    st, rv, params, sel, scratch, need, vals = (
        wv.state, wv.rules, wv.params, wv.sel, wv.scratch, wv.need, wv.vals)
    seat = st.g[G_SEAT]
    return heur_choose(st, rv, seat, params[seat], sel, scratch, vals, need)


@njit(cache=True, inline="always")
def random_chooser(work):
    """The ``random`` strategy as a chooser (:mod:`kernels.strategies.api`); advances the
    hand's generator."""
    wv = views(work)
    st, rv, rng, sel, scratch, need, cand = (
        wv.state, wv.rules, wv.rng, wv.sel, wv.scratch, wv.need, wv.candidates)
    return rand_choose(st, rv, st.g[G_SEAT], rng, sel, scratch, cand, need)


@njit(cache=True)
def open_lay_off_action(work):
    """The action that continues the lay-off of several cards under way
    (``G_OPEN_LAYOFF``, R24 with R38): the one legal action there, whatever the
    strategy (the built-in ones never begin such a lay-off themselves)."""
    out = view_i64(work, W_LEGAL, N_ACTIONS)
    legal_actions(work, out)
    return out[0]


@njit(cache=True)
def uniform_chooser(work):
    """The ``uniform`` strategy: one of the legal actions of the seat to move
    (:func:`kernels.engine.actions.legal_actions`), each as likely, drawn from the
    hand's generator."""
    out = view_i64(work, W_LEGAL, N_ACTIONS)
    n = legal_actions(work, out)
    rng = views(work).rng
    return out[bounded(rng, n)]
