"""The deal of one hand of a run, exactly as the simulation plays it (R6, R8)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.core import deal as KD

from sim.core import cards as _cards


@dataclass(frozen=True)
class Deal:
    """The deal of one hand.

    Attributes
    ----------
    hands : list of numpy.ndarray
        One array of ``int8`` card ids per seat (0..num_players-1),
        ``hand_size`` (11) each.
    pozzetti : list of numpy.ndarray
        Arrays of ``int8`` ids in the order they are handed out (R40): two
        of ``pozzetto_size`` (11); with 3 players pozzetto A (18) and B (11)
        in ``solo_18``, three of 11 in ``individual_3x11``.
    discard : int
        The up-card starting the discard pile (R10).
    stock : numpy.ndarray
        ``int8`` ids, top card first (41 cards with 4 players, 63 with 2, 45
        or 41 with 3).
    dealer : int
        Dealer seat (R6); ``first_player`` is the next seat.
    first_player : int
    """

    hands: list
    pozzetti: list
    discard: int
    stock: np.ndarray
    dealer: int
    first_player: int


def deal(seed, hand_index, rules=None) -> Deal:
    """Deal hand ``hand_index`` of the run ``burraco simulate --seed seed``.

    Parameters
    ----------
    seed : int
        Run seed, 0 <= seed < 2**64.
    hand_index : int
        0-based index of the hand in the run.
    rules : sim.Rules, str or None
        Players, hand and pozzetto sizes (R8, R61); default preset when None.

    Returns
    -------
    Deal

    Raises
    ------
    ValueError
        Seed or index out of range, or unsupported rules.
    """
    seed = _cards.check_int("seed", seed, 0, 2**64 - 1)
    hand_index = _cards.check_int("hand_index", hand_index, 0, 2**63 - 1)
    r = _cards.rules_or_default(rules)
    r.check_supported()
    deck = np.empty(108, np.int64)
    dealer = int(KD.deal_hand(np.uint64(seed), np.int64(hand_index), deck, np.int64(r.num_players)))
    return split(deck, r, dealer)


def split(deck, rules, dealer: int) -> Deal:
    """The deal of a deck in dealing order (R8, R61-R63; :mod:`kernels.core.deal`).

    Parameters
    ----------
    deck : array_like of int
        The 108 card ids in dealing order (a permutation of 0..107; not checked).
    rules : sim.Rules, str or None
        Players, hand and pozzetto sizes.
    dealer : int
        The dealer seat (R6).

    Returns
    -------
    Deal
    """
    r = _cards.rules_or_default(rules)
    rv = r.to_vector()
    n = r.num_players
    at, up, stock_at, _size = (int(x) for x in KD.deal_offsets(rv))
    count, *sizes = (int(x) for x in KD.pozzetto_sizes(rv))
    starts = [at + sum(sizes[:k]) for k in range(count)]
    d = np.asarray(deck).astype(np.int8)
    h = r.hand_size
    return Deal(
        hands=[d[h * s:h * s + h].copy() for s in range(n)],
        pozzetti=[d[a:a + size].copy() for a, size in zip(starts, sizes)],
        discard=int(d[up]),
        stock=d[stock_at:].copy(),
        dealer=int(dealer),
        first_player=(int(dealer) + 1) % n,
    )
