"""Small jitted loops around single kernels, for ``benchmarks/speed/run.py`` and
``benchmarks/speed/step_api.py``.

Each loop returns a checksum so the compiler cannot drop the work.  Numba's
cache only watches this file, not the kernels these loops call, so the scripts
clear their cache entries whenever the kernel sources change
(:func:`harness.guard_helper_cache`).
"""
from pathlib import Path

import numpy as np
from numba import njit

import kernels

if (Path(kernels.__file__).parent / "play").is_dir():      # the kernels in subpackages by layer
    from kernels.core.cards import N_COUNT
    from kernels.core.deal import deal_hand
    from kernels.core.melds import analyze
    from kernels.core.rng import bounded, seed_hand
    from kernels.engine.actions import N_ACTIONS, PH_OVER, apply_action, legal_actions
    from kernels.play.game import choose, new_hand
    from kernels.strategies.choosers import meld_search
    from kernels.table.state import G_PHASE, G_SEAT
    from kernels.table.work import W_G
    from kernels.table.worlds import sample_world
else:   # a baseline revision of the before-and-after figures: flat modules (told by the
        # package's directory: an editable install of another checkout would supply a layer)
    from kernels.actions import N_ACTIONS, PH_OVER, apply_action, legal_actions
    from kernels.cards import N_COUNT
    from kernels.deal import deal_hand
    from kernels.game import choose, new_hand
    from kernels.melds import analyze
    from kernels.policies import meld_search
    from kernels.rng import bounded, seed_hand
    from kernels.state import G_PHASE, G_SEAT
    from kernels.work import W_G
    from kernels.worlds import sample_world


@njit(cache=True)
def deal_loop(seed, start, count):
    """Deal hands ``start .. start+count-1`` of run ``seed``; returns a checksum."""
    deck = np.empty(108, np.int64)
    acc = 0
    for i in range(count):
        acc += deal_hand(seed, start + i, deck, np.int64(4)) + deck[0] + deck[107]
    return acc


@njit(cache=True)
def analyze_loop(cnts, set_mask, passes):
    """``passes`` sweeps of :func:`kernels.core.melds.analyze` over the rows of
    ``cnts`` (int64[n, 53]); returns how many checks found a valid meld."""
    valid = 0
    for _ in range(passes):
        for i in range(cnts.shape[0]):
            if analyze(cnts[i], set_mask)[0] != 0:
                valid += 1
    return valid


@njit(cache=True)
def meld_search_loop(hands, rv, p, st):
    """:func:`kernels.strategies.choosers.meld_search` on every row of ``hands``
    (int64[n, k] card ids) with scratch state ``st``; returns
    ``(melds, cards melded)`` summed over the hands."""
    sel = np.zeros(N_COUNT, np.int64)
    scratch = np.zeros(N_COUNT, np.int64)
    melds = 0
    cards = 0
    for i in range(hands.shape[0]):
        m, c = meld_search(hands[i], rv, p, st, sel, scratch)
        melds += m
        cards += c
    return melds, cards


# ---------------------------------------------------------------- the step API's kernel path
@njit(cache=True)
def steps_loop(seed, start, count, rv, kinds, params, work, random_legal):
    """Deal hands ``start .. start+count-1`` of run ``seed`` into ``work`` (no event
    log) and play each to its end, one ``apply_action`` per step; returns
    ``(steps, illegal)``.

    ``random_legal`` 1: each step is ``legal_actions`` and a uniformly drawn legal
    id (from a generator of its own, not the hand's); 0: the seat's built-in
    strategy (``kinds``/``params``) through ``choose``.
    """
    out = np.empty(N_ACTIONS, np.int64)
    rng = np.empty(4, np.uint64)
    seed_hand(seed ^ np.uint64(0xA5A5), start, rng)
    steps = 0
    illegal = 0
    for i in range(count):
        new_hand(seed, start + i, np.int64(-1), rv, kinds, params, np.int64(0), np.int64(0),
                 np.int64(0), work)
        while work[W_G + G_PHASE] != PH_OVER:
            if random_legal:
                a = out[bounded(rng, np.int64(legal_actions(work, out)))]
            else:
                a = choose(work)
            if apply_action(work, a) != 0:
                illegal += 1
                break
            steps += 1
    return steps, illegal


@njit(cache=True)
def positions_loop(seed, rv, kinds, params, stops, positions):
    """Row ``i`` of ``positions`` (int64[n, work words], no event log) becomes hand
    ``i`` of run ``seed`` after ``stops[i]`` decisions of the built-in strategies
    (fewer if the hand ends first); returns the decisions played."""
    played = 0
    for i in range(positions.shape[0]):
        work = positions[i]
        new_hand(seed, np.int64(i), np.int64(-1), rv, kinds, params, np.int64(0), np.int64(0),
                 np.int64(0), work)
        for _ in range(stops[i]):
            if work[W_G + G_PHASE] == PH_OVER:
                break
            apply_action(work, choose(work))
            played += 1
    return played


@njit(cache=True)
def sample_worlds_loop(positions, seed, count, dst):
    """``count`` calls of :func:`kernels.table.worlds.sample_world`, position ``k % n`` for
    the seat to move there, sample index ``k``, into ``dst``; returns the unseen
    cards dealt again, summed."""
    cards = 0
    n = positions.shape[0]
    for k in range(count):
        src = positions[k % n]
        cards += sample_world(src, src[W_G + G_SEAT], seed, np.int64(k), dst)
    return cards


@njit(cache=True)
def copy_loop(src, dst, count):
    """``count`` copies of ``src`` into ``dst`` word by word (as ``sample_world`` starts);
    returns a checksum."""
    acc = 0
    for k in range(count):
        for i in range(src.shape[0]):
            dst[i] = src[i]
        acc += dst[k % dst.shape[0]]
    return acc
