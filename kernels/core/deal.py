"""Shuffle and deal (RULES.md R6, R8, R9, R61).

The deal of hand ``i`` is a function of ``(run_seed, i)`` and the number of
players ``n`` only: first the dealer seat is drawn (R6: uniformly at random
among the ``n`` seats), then the 108 ids are shuffled by Fisher-Yates.  The
shuffled deck ``deck`` (int64[108]) is split in the fixed order of R8 (R9
makes any fixed split equivalent), with ``h`` = ``hand_size`` and ``p`` =
``pozzetto_size``:

* seat ``s`` (0..n-1) holds ``deck[h*s : h*s + h]``;
* pozzetto 0 is the next ``p`` cards, pozzetto 1 the ``p`` after (with 3
  players: pozzetto A of 18 cards then B of ``p`` in ``solo_18``, three of
  ``p`` in ``individual_3x11``);
* the up-card starting the discard pile is the next card;
* the stock is the rest, top card first.

With 4 players and 11/11 cards: hands ``deck[0:44]``, pozzetti
``deck[44:55]`` and ``deck[55:66]``, up-card ``deck[66]``, stock
``deck[67:108]`` (41 cards).  With 2 players (R61): hands ``deck[0:22]``,
pozzetti ``deck[22:33]`` and ``deck[33:44]``, up-card ``deck[44]``, stock
63 cards.  With 3 players in ``solo_18`` (R62): hands ``deck[0:33]``,
pozzetto A ``deck[33:51]``, B ``deck[51:62]``, up-card ``deck[62]``, stock 45
cards; in ``individual_3x11`` (R63) three pozzetti ``deck[33:66]``, stock 41.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.rng import bounded, seed_hand

@njit(cache=True, _nrt=False)
def pozzetto_sizes(rv):
    """Number and sizes of the deal's pozzetti (R8, R61-R63).

    Returns
    -------
    tuple of int
        ``(count, size0, size1, size2)`` in cards (``size2`` 0 unless there
        are three): two of ``pozzetto_size``; with 3 players ``solo_18`` has
        pozzetto A of ``three_player_pozzetto_a_size`` then B, and
        ``individual_3x11`` three of ``pozzetto_size``.
    """
    p = rv[L.RV_POZZETTO_SIZE]
    if rv[L.RV_NUM_PLAYERS] == 3:
        if rv[L.RV_THREE_PLAYER_MODE] == 0:
            return 2, rv[L.RV_THREE_PLAYER_POZZETTO_A_SIZE], p, 0
        return 3, p, p, p
    return 2, p, p, 0


@njit(cache=True, _nrt=False)
def deal_offsets(rv):
    """Where the parts of the deal start in the shuffled deck (see module docstring).

    Parameters
    ----------
    rv : numpy.ndarray
        ``int64[N_RULES]`` rules vector (players, hand and pozzetto sizes).

    Returns
    -------
    tuple of int
        ``(poz_at, upcard_at, stock_at, stock_size)``: deck position of
        pozzetto 0 (the others follow it, sizes from :func:`pozzetto_sizes`),
        of the up-card and of the stock's top card; stock size in cards.
    """
    count, s0, s1, s2 = pozzetto_sizes(rv)
    poz0 = rv[L.RV_NUM_PLAYERS] * rv[L.RV_HAND_SIZE]
    up = poz0 + s0 + s1 + s2
    return poz0, up, up + 1, 108 - (up + 1)


@njit(cache=True, _nrt=False)
def shuffle_deal(state, deck, n_seats):
    """Draw the dealer and shuffle ``deck`` in place.

    Parameters
    ----------
    state : numpy.ndarray
        ``uint64[4]`` generator state of the hand (advanced).
    deck : numpy.ndarray
        ``int64[108]``, overwritten with a uniform permutation of 0..107.
    n_seats : int64
        Number of players (2, 3 or 4).

    Returns
    -------
    int
        The dealer seat, 0..n_seats-1 (R6); the first player is
        ``dealer + 1 mod n_seats``.
    """
    dealer = bounded(state, n_seats)
    for i in range(108):
        deck[i] = i
    for i in range(107, 0, -1):
        j = bounded(state, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return dealer


@njit(cache=True)
def deal_hand(run_seed, hand_index, deck, n_seats):
    """The deal of hand ``hand_index`` of the run seeded ``run_seed``.

    Parameters
    ----------
    run_seed : uint64
    hand_index : int64
    deck : numpy.ndarray
        ``int64[108]``, overwritten with the shuffled deck (layout in the
        module docstring).
    n_seats : int64
        Number of players (2, 3 or 4).

    Returns
    -------
    int
        Dealer seat (0..n_seats-1).
    """
    state = np.empty(4, np.uint64)
    seed_hand(run_seed, hand_index, state)
    return shuffle_deal(state, deck, n_seats)
