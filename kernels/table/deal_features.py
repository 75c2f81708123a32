"""Features of the deal of each hand, for questions conditioned on the deal.

:func:`deal_features` deals hands ``first .. first+count-1`` of a run with
the code that deals them in the simulation (:func:`kernels.core.rng.seed_hand`,
:func:`kernels.core.deal.shuffle_deal`, the split of :func:`kernels.core.deal.deal_offsets`
and :func:`kernels.core.deal.pozzetto_sizes`) and counts, per hand, what each
place holds.  Nothing is played.  The Python side (:func:`sim.core.deal_features.deals`)
names the columns.

Row layout of ``out`` (``int16[count, N_FEATURES]``):

* ``F_DEALER``, ``F_FIRST``: dealer seat drawn by the deal (R6) and the next
  seat, who plays first;
* ``F_UPCARD``: id of the up-card starting the discard pile (R10);
* seat ``s`` (0..3; zeros for a seat the rules leave empty) at
  ``F_SEAT + s * N_SEAT_F``: jokers, twos, wilds (jokers + twos, R12),
  pairs (natural faces, twos included, held in both copies), the longest
  natural run (consecutive ranks of one suit, the ace low or high, R13; one
  card per rank, so 14 only with both aces), the card points of the hand (R2);
* pozzetto ``k`` (0..2 in dealing order; zeros for one the rules do not
  deal) at ``F_POZ + k * N_POZ_F``: jokers, twos, wilds;
* the stock at ``F_STOCK``: jokers, twos, wilds, cards.
"""
import numpy as np
from numba import njit, prange

from kernels.core import layout as L
from kernels.core.cards import FACE, RANK, TWO, VALUE
from kernels.core.deal import deal_offsets, pozzetto_sizes, shuffle_deal
from kernels.core.rng import seed_hand

F_DEALER = 0
F_FIRST = 1
F_UPCARD = 2
F_SEAT = 3
# per seat
SF_JOKERS = 0
SF_TWOS = 1
SF_WILDS = 2
SF_PAIRS = 3
SF_RUN = 4
SF_POINTS = 5
N_SEAT_F = 6
F_POZ = F_SEAT + 4 * N_SEAT_F
# per pozzetto, and the first three of the stock
PF_JOKERS = 0
PF_TWOS = 1
PF_WILDS = 2
N_POZ_F = 3
F_STOCK = F_POZ + 3 * N_POZ_F
F_STOCK_CARDS = F_STOCK + 3
N_FEATURES = F_STOCK_CARDS + 1

# features are computed in blocks of hands; a constant (see kernels.play.game.N_CHUNKS)
N_CHUNKS = 256


@njit(cache=True, _nrt=False)
def _wild_counts(deck, a, b, out, at):
    """Jokers, twos and wilds among ``deck[a:b]`` into ``out[at:at+3]``."""
    jokers = 0
    twos = 0
    for i in range(a, b):
        c = deck[i]
        if FACE[c] >= 52:
            jokers += 1
        elif RANK[c] == TWO:
            twos += 1
    out[at + PF_JOKERS] = jokers
    out[at + PF_TWOS] = twos
    out[at + PF_WILDS] = jokers + twos


@njit(cache=True, _nrt=False)
def _longest_run(held, suit):
    """Longest run of consecutive ranks of ``suit`` in ``held`` (int64[52] copies per
    face): the ace low (A-2-3) or high (Q-K-A), one card per rank; A..K..A needs
    both aces (R13)."""
    base = 13 * suit
    best = 0
    # positions 0..13 stand for A, 2, ..., K, A; with fewer than two aces the
    # ladder is cut into A..K and 2..A so that one ace is not counted twice
    two_aces = held[base] >= 2
    for lo, hi in ((0, 14), (0, 13), (1, 14)):
        if two_aces != (hi - lo == 14):
            continue
        run = 0
        for p in range(lo, hi):
            if held[base + p % 13] > 0:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
    return best


@njit(cache=True, _nrt=False)
def _seat_features(deck, a, b, held, out, at):
    """The features of the hand ``deck[a:b]`` into ``out[at:at+N_SEAT_F]``;
    ``held`` (int64[52]) is work space."""
    for f in range(52):
        held[f] = 0
    jokers = 0
    twos = 0
    points = 0
    for i in range(a, b):
        c = deck[i]
        points += VALUE[c]
        if FACE[c] >= 52:
            jokers += 1
            continue
        held[FACE[c]] += 1
        if RANK[c] == TWO:
            twos += 1
    pairs = 0
    for f in range(52):
        if held[f] >= 2:
            pairs += 1
    run = 0
    for s in range(4):
        r = _longest_run(held, s)
        if r > run:
            run = r
    out[at + SF_JOKERS] = jokers
    out[at + SF_TWOS] = twos
    out[at + SF_WILDS] = jokers + twos
    out[at + SF_PAIRS] = pairs
    out[at + SF_RUN] = run
    out[at + SF_POINTS] = points


@njit(cache=True, _nrt=False)
def features_of(deck, dealer, rv, held, out):
    """The features of one shuffled ``deck`` (int64[108], the deal's order) with
    ``dealer`` into ``out`` (int16[N_FEATURES], overwritten); ``held`` (int64[52])
    is work space."""
    for f in range(N_FEATURES):
        out[f] = 0
    n = rv[L.RV_NUM_PLAYERS]
    h = rv[L.RV_HAND_SIZE]
    out[F_DEALER] = dealer
    out[F_FIRST] = (dealer + 1) % n
    for s in range(n):
        _seat_features(deck, h * s, h * s + h, held, out, F_SEAT + s * N_SEAT_F)
    count, s0, s1, s2 = pozzetto_sizes(rv)
    at, up, stock_at, stock_size = deal_offsets(rv)
    _wild_counts(deck, at, at + s0, out, F_POZ)
    _wild_counts(deck, at + s0, at + s0 + s1, out, F_POZ + N_POZ_F)
    if count == 3:
        _wild_counts(deck, at + s0 + s1, at + s0 + s1 + s2, out, F_POZ + 2 * N_POZ_F)
    out[F_UPCARD] = deck[up]
    _wild_counts(deck, stock_at, stock_at + stock_size, out, F_STOCK)
    out[F_STOCK_CARDS] = stock_size


@njit(cache=True, parallel=True)
def deal_features(run_seed, first, count, rv, out):
    """Deal hands ``first .. first+count-1`` of the run seeded ``run_seed`` and
    write their features, in parallel over hands.

    Parameters
    ----------
    run_seed : uint64
        The run's seed.
    first, count : int64
        First hand index and number of hands.
    rv : numpy.ndarray
        ``int64[N_RULES]`` rules vector (players, hand and pozzetto sizes).
    out : numpy.ndarray
        ``int16[count, N_FEATURES]``, one row per hand (mutated; layout in the
        module docstring).
    """
    nchunks = min(count, N_CHUNKS)
    for k in prange(nchunks):
        state = np.empty(4, np.uint64)
        deck = np.empty(108, np.int64)
        held = np.empty(52, np.int64)
        for i in range(count * k // nchunks, count * (k + 1) // nchunks):
            seed_hand(run_seed, first + i, state)
            dealer = shuffle_deal(state, deck, rv[L.RV_NUM_PLAYERS])
            features_of(deck, dealer, rv, held, out[i])


@njit(cache=True)
def deal_decks(run_seed, hand_index, n_seats, decks, dealers):
    """The shuffled deck and dealer of each listed hand, as the simulation deals them.

    Parameters
    ----------
    run_seed : uint64
    hand_index : numpy.ndarray
        ``int64[n]`` hand indices.
    n_seats : int64
        Number of players (2, 3 or 4).
    decks : numpy.ndarray
        ``int64[n, 108]``, overwritten: row ``i`` is the deck of hand
        ``hand_index[i]`` in dealing order (layout in :mod:`kernels.core.deal`).
    dealers : numpy.ndarray
        ``int64[n]``, overwritten with the dealer seats (R6).
    """
    state = np.empty(4, np.uint64)
    for i in range(hand_index.shape[0]):
        seed_hand(run_seed, hand_index[i], state)
        dealers[i] = shuffle_deal(state, decks[i], n_seats)


@njit(cache=True, parallel=True)
def deck_features(decks, dealers, rv, out):
    """:func:`features_of` of each row of ``decks`` (int64[n, 108]) with
    ``dealers`` (int64[n]) into ``out`` (int16[n, N_FEATURES], mutated)."""
    n = decks.shape[0]
    nchunks = min(n, N_CHUNKS)
    for k in prange(nchunks):
        held = np.empty(52, np.int64)
        for i in range(n * k // nchunks, n * (k + 1) // nchunks):
            features_of(decks[i], dealers[i], rv, held, out[i])
