"""Small jitted loops around single kernels, for ``benchmarks/run.py``.

Each loop returns a checksum so the compiler cannot drop the work.  Numba's
cache only watches this file, not the kernels these loops call, so run.py
clears their cache entries whenever the kernel sources change
(:func:`run.guard_helper_cache`).
"""
import numpy as np
from numba import njit

from kernels.deal import deal_hand
from kernels.melds import analyze
from kernels.policies import meld_search


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
    """``passes`` sweeps of :func:`kernels.melds.analyze` over the rows of
    ``cnts`` (int64[n, 53]); returns how many checks found a valid meld."""
    valid = 0
    for _ in range(passes):
        for i in range(cnts.shape[0]):
            if analyze(cnts[i], set_mask)[0] != 0:
                valid += 1
    return valid


@njit(cache=True)
def meld_search_loop(hands, rv, p, st):
    """:func:`kernels.policies.meld_search` on every row of ``hands``
    (int64[n, k] card ids) with scratch state ``st``; returns
    ``(melds, cards melded)`` summed over the hands."""
    sel = np.zeros(53, np.int64)
    scratch = np.zeros(53, np.int64)
    melds = 0
    cards = 0
    for i in range(hands.shape[0]):
        m, c = meld_search(hands[i], rv, p, st, sel, scratch)
        melds += m
        cards += c
    return melds, cards
