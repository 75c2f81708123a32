"""Chunks of independent work on a thread pool: the parallel loops' driver.

Numba compiles a ``parallel=True`` loop as four libraries (the function, the
gufunc body and two wrappers), each holding, linked in, everything the loop
calls: for the game that is four more optimizations of the whole call tree
(``benchmarks/compile.md``).  The batch entry points therefore compile their
loop body once, as an ``@njit(nogil=True)`` function of one chunk, and run the
chunks from Python threads with :func:`run_chunks`; each chunk releases the GIL,
so the threads run at once.
"""
from concurrent.futures import ThreadPoolExecutor


def chunk_bounds(count: int, nchunks: int) -> list:
    """``[(k, lo, hi)]``: ``count`` items split into ``min(count, nchunks)`` slices
    ``lo .. hi-1`` in order, as the old ``prange`` loops split them."""
    n = min(int(count), int(nchunks))
    return [(k, count * k // n, count * (k + 1) // n) for k in range(n)]


def run_chunks(body, count: int, nchunks: int) -> None:
    """Call ``body(k, lo, hi)`` for each slice of :func:`chunk_bounds` on
    ``numba.get_num_threads()`` threads (set it with ``numba.set_num_threads``).

    The slices go to the threads as they finish, so a busy core slows only its
    own slices.  ``body`` must release the GIL for the threads to overlap (a
    ``nogil`` kernel) and its results must not depend on which thread runs a
    slice.  On an exception (Ctrl-C included) the slices not started are
    cancelled and the running ones finish before it propagates.
    """
    import numba
    bounds = chunk_bounds(count, nchunks)
    threads = min(numba.get_num_threads(), len(bounds))
    if threads <= 1:
        for b in bounds:
            body(*b)
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="burraco-chunks")
    try:
        futures = [pool.submit(body, *b) for b in bounds]
        for f in futures:               # in order: the first failed slice's exception is raised
            f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
