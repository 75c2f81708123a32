"""kernels.core.threads: the slices of the parallel loops and their thread pool."""
from __future__ import annotations

import threading
import time

import numba
import numpy as np
import pytest

from kernels.play import game
from kernels.core.threads import chunk_bounds, run_chunks


def test_chunk_bounds_split_in_order_as_prange_did():
    assert chunk_bounds(10, 4) == [(0, 0, 2), (1, 2, 5), (2, 5, 7), (3, 7, 10)]
    assert chunk_bounds(3, 256) == [(0, 0, 1), (1, 1, 2), (2, 2, 3)]
    assert chunk_bounds(0, 256) == []
    b = chunk_bounds(16_384, 256)
    assert len(b) == 256 and b[0][1] == 0 and b[-1][2] == 16_384
    assert all(b[k][2] == b[k + 1][1] for k in range(255))


@pytest.mark.parametrize("threads", [1, 2])
def test_every_slice_runs_once(threads):
    seen, lock = [], threading.Lock()

    def body(k, lo, hi):
        with lock:
            seen.append((k, lo, hi))

    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        run_chunks(body, 1000, 64)
    finally:
        numba.set_num_threads(old)
    assert sorted(seen) == chunk_bounds(1000, 64)


def test_an_error_propagates_and_the_slices_not_started_are_cancelled():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 Numba threads (NUMBA_NUM_THREADS is 1 on this machine)")
    ran = []

    def body(k, lo, hi):
        ran.append(k)
        if k == 0:
            raise RuntimeError("slice 0 failed")
        time.sleep(0.005)

    old = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with pytest.raises(RuntimeError, match="slice 0 failed"):
            run_chunks(body, 256, 256)
    finally:
        numba.set_num_threads(old)
    assert 0 in ran and len(ran) < 256


def test_hand_records_do_not_depend_on_the_thread_count():
    from sim import Rules
    from sim.strategies import resolve
    _, kind, p = resolve("heuristic")
    outs = []
    old = numba.get_num_threads()
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            out = np.zeros((300, game.L.N_REC), np.int32)
            game.simulate_range(np.uint64(4), np.int64(10), np.int64(300), Rules().to_vector(),
                                np.full(4, kind, np.int64), np.tile(p, (4, 1)), np.int64(0), out)
            outs.append(out)
    finally:
        numba.set_num_threads(old)
    serial = np.zeros_like(outs[0])
    game.simulate_range_serial(np.uint64(4), np.int64(10), np.int64(300), Rules().to_vector(),
                               np.full(4, kind, np.int64), np.tile(p, (4, 1)), np.int64(0), serial)
    for out in outs:
        assert np.array_equal(out, serial)
    assert (serial[:, game.L.REC_TURNS] > 0).all()
