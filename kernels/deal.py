"""Shuffle and 4-player deal (RULES.md R6, R8, R9).

The deal of hand ``i`` is a function of ``(run_seed, i)`` only: first the
dealer seat is drawn (R6: uniformly at random), then the 108 ids are
shuffled by Fisher-Yates.  The shuffled deck ``deck`` (int64[108]) is split
in the fixed order of R8 (R9 makes any fixed split equivalent):

* seat ``s`` (0..3) holds ``deck[11*s : 11*s + 11]``;
* pozzetto 0 is ``deck[44:55]``, pozzetto 1 is ``deck[55:66]``;
* the up-card starting the discard pile is ``deck[66]``;
* the stock is ``deck[67:108]``, top card first (41 cards).
"""
import numpy as np
from numba import njit

from .rng import bounded, seed_hand

HAND_SIZE = 11
POZZETTO_SIZE = 11
POZ0_AT = 44
POZ1_AT = 55
UPCARD_AT = 66
STOCK_AT = 67
STOCK_SIZE = 41


@njit(cache=True, _nrt=False)
def shuffle_deal(state, deck):
    """Draw the dealer and shuffle ``deck`` in place.

    Parameters
    ----------
    state : numpy.ndarray
        ``uint64[4]`` generator state of the hand (advanced).
    deck : numpy.ndarray
        ``int64[108]``, overwritten with a uniform permutation of 0..107.

    Returns
    -------
    int
        The dealer seat, 0..3 (R6); the first player is ``dealer + 1 mod 4``.
    """
    dealer = bounded(state, np.int64(4))
    for i in range(108):
        deck[i] = i
    for i in range(107, 0, -1):
        j = bounded(state, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return dealer


@njit(cache=True)
def deal_hand(run_seed, hand_index, deck):
    """The deal of hand ``hand_index`` of the run seeded ``run_seed``.

    Parameters
    ----------
    run_seed : uint64
    hand_index : int64
    deck : numpy.ndarray
        ``int64[108]``, overwritten with the shuffled deck (layout in the
        module docstring).

    Returns
    -------
    int
        Dealer seat (0..3).
    """
    state = np.empty(4, np.uint64)
    seed_hand(run_seed, hand_index, state)
    return shuffle_deal(state, deck)
