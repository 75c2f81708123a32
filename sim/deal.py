"""The deal of one hand of a run, exactly as the simulation plays it (R6, R8)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels import deal as KD

from . import _cards


@dataclass(frozen=True)
class Deal:
    """The deal of one hand.

    Attributes
    ----------
    hands : list of numpy.ndarray
        4 arrays of ``int8`` card ids, 11 each, indexed by seat (0..3).
    pozzetti : list of numpy.ndarray
        2 arrays of ``int8`` ids, 11 each; pozzetto 0 goes to the first team
        that qualifies (R40).
    discard : int
        The up-card starting the discard pile (R10).
    stock : numpy.ndarray
        ``int8[41]`` ids, top card first.
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
        Only 4-player rules are supported so far.

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
    _cards.rules_or_default(rules).check_supported()
    deck = np.empty(108, np.int64)
    dealer = int(KD.deal_hand(np.uint64(seed), np.int64(hand_index), deck))
    d = deck.astype(np.int8)
    return Deal(
        hands=[d[11 * s:11 * s + 11].copy() for s in range(4)],
        pozzetti=[d[KD.POZ0_AT:KD.POZ0_AT + 11].copy(), d[KD.POZ1_AT:KD.POZ1_AT + 11].copy()],
        discard=int(d[KD.UPCARD_AT]),
        stock=d[KD.STOCK_AT:].copy(),
        dealer=dealer,
        first_player=(dealer + 1) % 4,
    )
