"""Decks played by chosen strategies: the records of hands dealt from given card
orders (:func:`play_decks`), for the deal-feature studies of docs/deals.md.

The deal features themselves are computed in :mod:`sim.core.deal_features`; its names
are re-exported here, so ``sim.deal_features`` (this module) keeps ``deals``,
``select``, ``decks``, ``deck_features`` and ``play_decks`` together."""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.core import dataset
from sim.core.cards import check_bool as _check_bool
from sim.core.cards import check_int
from sim.core.deal_features import (CHUNK, COLUMNS, _check_decks, _indices, _rules, deals,
                                    deck_features, decks, select)
from sim.strategies import resolve_builtin_seats, seat_names

__all__ = ["CHUNK", "COLUMNS", "deals", "deck_features", "decks", "play_decks", "select"]


def play_decks(seed: int, hand_index, decks_in, strategies="heuristic", rules=None,
               threads: int | None = None, debug: bool = False) -> pd.DataFrame:
    """Play hands from given decks, each with its hand's dealer and random stream.

    Row ``i`` plays hand ``hand_index[i]`` of the run seeded ``seed`` (its
    dealer, R6, and the generator as the deal leaves it) with the cards laid
    out from ``decks_in[i]`` instead of the hand's shuffle
    (:func:`kernels.play.game.simulate_decks`).  With the unmodified decks of
    :func:`decks` the records are those of ``sim.simulate``; with a deck in
    which some cards changed places (the jokers moved to another seat, say)
    the hand is the same deal with that condition swapped, played with the
    same random numbers: a paired counterpart.

    Parameters
    ----------
    seed : int
        Run seed.
    hand_index : array_like of int
        ``n`` hand indices (>= 0).
    decks_in : array_like
        ``int[n, 108]``, each row a permutation of 0..107 in dealing order.
    strategies : str, sequence of 4, or dict
        Built-in strategy specs (as for ``sim.simulate``; Python strategies
        are refused).
    rules : sim.Rules, str, dict or None
    threads : int, optional
        Numba threads (default all); the records do not depend on it.
    debug : bool
        Run the kernels' consistency checks (``error`` column).

    Returns
    -------
    pandas.DataFrame
        One row per deck, the columns of ``sim.simulate`` (:data:`sim.core.dataset.COLUMNS`);
        ``hand_index`` is ``hand_index[i]`` and ``run_id`` is empty (these
        hands are not a run's).

    Raises
    ------
    ValueError
        A deck that is not a permutation of 0..107, a length mismatch, a bad
        strategy, rules or seed.
    """
    import numba

    from kernels.core import layout as L
    from kernels.play.game import simulate_decks


    seed = check_int("seed", seed, 0, 2**64 - 1)
    idx = _indices(hand_index, "hand_index")
    d = _check_decks(decks_in, "decks")
    if d.shape[0] != idx.shape[0]:
        raise ValueError(f"decks: {d.shape[0]} decks for {idx.shape[0]} hand indices")
    r = _rules(rules)
    names, kinds, params = resolve_builtin_seats(strategies, "play_decks", r)
    debug = _check_bool("debug", debug)
    rec = np.zeros((idx.shape[0], L.N_REC), np.int32)
    old = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS))
    try:
        if idx.shape[0]:
            simulate_decks(np.uint64(seed), idx, d, r.to_vector(), kinds, params,
                           np.int64(debug), rec)
    finally:
        numba.set_num_threads(old)
    table = dataset.records_to_table(rec, idx, "", seat_names(names, r))
    return dataset.table_to_frame(table)
