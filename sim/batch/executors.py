"""Executing the work of a run: simulating a shard, writing its files, reading it back.

A shard of a run is simulated by a *work* object, which says how a shard of
its kind is played, stored and read back: :class:`HandWork` (hands ``[a, b)``
of a hand run, through the kernel ``kernels.play.game.simulate_range``),
:class:`SelectedHandWork` (the selected hands among them,
``simulate(hand_index=...)``, through ``kernels.play.game.simulate_hands``),
:class:`MatchWork` (matches ``[a, b)``, :func:`sim.core.match.play_block`) and
:class:`PythonHandWork` (hands with a Python strategy on some seat, played
through :class:`sim.play.game.Game`, in this process or in forked worker processes:
:func:`_play_forked`).  A work object is sent whole to a Dask worker
(:func:`shard_job`, the task of ``executor="dask"``; :func:`_dask_client`) or
to a forked worker, so it holds only what pickles.  The kernels are called in
blocks of at most :data:`KERNEL_CHUNK` hands, so progress is fine-grained and
Ctrl-C answers within seconds; :func:`prepare_kernels` compiles or loads them
once per process.

Where the files go and what a complete shard is follow :mod:`sim.batch.rundir`; the
run (manifest, resume, progress, executors) is driven by :mod:`sim.batch.runner`,
which re-exports the public names of this module.
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.core import layout as L

from sim import strategies as _strategies
from sim._util import compiling
from sim.core import dataset
from sim.core.match import DEFAULT_MAX_HANDS, MatchBlock, play_block
from sim.core.rules import Rules
from sim.play import game
from sim.play.game import Game
from sim.batch import rundir
from sim.batch.rundir import _read_shard, _read_table

KERNEL_CHUNK = 16_384           # hands per kernel call inside a shard

_prepared: set = set()          # kernels compiled or loaded in this process


def _max_threads() -> int:
    import numba
    return int(numba.config.NUMBA_NUM_THREADS)


# ---------------------------------------------------------------- kernels
def _kernel(name: str = "simulate_range"):
    if name == "label_hand":                # label runs (sim.batch.labels)
        from kernels.search import label
        return label.label_hand
    from kernels.play import game
    return getattr(game, "new_hand" if name == "step" else name)


def kernels_cached(kernel: str = "simulate_range") -> bool | None:
    """Whether Numba's on-disk cache holds a game kernel.

    Parameters
    ----------
    kernel : str
        ``"simulate_range"`` (hand runs), ``"simulate_hands"`` (match runs) or
        ``"label_hand"`` (label runs).

    Returns
    -------
    bool or None
        True if the cache index exists (loading is fast), False if the
        kernel will be compiled, None if that cannot be told.
    """
    if kernel in ("simulate_range", "simulate_hands"):     # Python drivers of one loop
        kernel = "play_hands_chunk"
    return compiling.on_disk(_kernel(kernel))


def prepare_kernels(threads: int | None = None, kernel: str = "simulate_range") -> float:
    """Compile (or load from cache) a game kernel by simulating one hand.

    Later calls in the same process for the same kernel return at once.

    Parameters
    ----------
    threads : int, optional
        Numba threads to use (default: all).
    kernel : str
        ``"simulate_range"`` (hand runs), ``"simulate_hands"`` (match runs) or
        ``"step"`` (the step kernels of :class:`sim.play.game.Game`, for hand runs with
        a Python strategy) or ``"label_hand"`` (label runs: one hand labelled with a small
        search, :func:`kernels.search.label.label_hand`).

    Returns
    -------
    float
        Seconds it took (0.0 if already prepared).
    """
    if kernel in _prepared:
        return 0.0
    import numba
    t0 = time.perf_counter()
    fn = _kernel(kernel)
    old = numba.get_num_threads()
    numba.set_num_threads(threads or _max_threads())
    try:
        kinds = np.full(4, _strategies.HEURISTIC.kind, np.int64)     # heuristic at every seat
        params = np.tile(_strategies.HEURISTIC.vector(), (4, 1))
        out = np.zeros((1, L.N_REC), np.int32)
        if kernel == "step":
            game._kernels()                     # announces and compiles on a cold cache
            game.warm_up()
        elif kernel == "label_hand":            # one hand labelled with a small search
            from kernels.table.work import work_words
            row = _strategies.get("rollout").vector({"worlds": 2, "rollouts": 4})
            fn(np.uint64(0), np.int64(0), Rules().to_vector(), kinds, np.tile(row, (4, 1)),
               np.zeros(work_words(0, 0), np.int64), np.zeros(L.N_REC, np.int32))
        elif kernel == "simulate_range":
            fn(np.uint64(0), np.int64(0), np.int64(1), Rules().to_vector(), kinds, params,
               np.int64(0), out)
        else:
            fn(np.uint64(0), np.zeros(1, np.int64), np.full(1, -1, np.int64),
               Rules().to_vector(), kinds, params, np.int64(0), out)
    finally:
        numba.set_num_threads(old)
    _prepared.add(kernel)
    return time.perf_counter() - t0


def _records(seed, a, b, rules_vec, kinds, params, debug, on_chunk=None) -> np.ndarray:
    """Kernel records ``int32[b - a, N_REC]`` of hands ``[a, b)``.

    The kernel is called for at most ``KERNEL_CHUNK`` hands at a time, so that
    progress is fine-grained and Ctrl-C (handled between calls) answers within
    seconds; ``on_chunk(n)`` is called after each call.
    """
    kernel = _kernel()
    rec = np.zeros((b - a, L.N_REC), np.int32)
    for c in range(a, b, KERNEL_CHUNK):
        n = min(KERNEL_CHUNK, b - c)
        kernel(np.uint64(seed), np.int64(c), np.int64(n), rules_vec, kinds, params,
               np.int64(debug), rec[c - a:c - a + n])
        if on_chunk is not None:
            on_chunk(n)
    return rec


# ---------------------------------------------------------------- the work of a shard
@dataclass(frozen=True, eq=False)
class HandWork:
    """How to simulate, store and read back a shard of a hand run (sent to Dask workers).

    A shard ``[a, b)`` holds hands ``a .. b-1`` in one file.
    """

    seed: int
    rules: Rules
    kinds: np.ndarray
    params: np.ndarray
    debug: bool
    run_id: str
    names: tuple
    kind = "hands"
    unit = "hand"
    kernel = "simulate_range"

    def files(self, out: Path, a: int, b: int) -> list:
        """The shard's files, in writing order (the last one marks the shard complete):
        ``out/hands/shard-...parquet``."""
        return rundir.shard_files(out, self.kind, rundir.FORMAT, a, b)

    def size(self, a: int, b: int) -> int:
        """Hands (match runs: matches) in shard ``[a, b)``."""
        return b - a

    def run(self, a: int, b: int, on_progress=None) -> tuple:
        """``(records, None)`` of the shard; ``on_progress(hands)`` after each kernel call."""
        return _records(self.seed, a, b, self.rules.to_vector(), self.kinds, self.params,
                        self.debug, on_progress), None

    def tables(self, a: int, records: np.ndarray, block) -> list:
        """The shard's tables, one per file of :meth:`files`."""
        return [dataset.records_to_table(records, a, self.run_id, self.names)]

    def read(self, files: list, a: int, b: int) -> tuple | None:
        """``(records, None, tables)`` of a complete shard on disk, or None."""
        table = _read_shard(files[0], a, b, self.run_id)
        return None if table is None else (dataset.table_to_records(table), None, [table])


def _selected_records(seed, idx, rules_vec, kinds, params, debug, on_chunk=None) -> np.ndarray:
    """Kernel records ``int32[len(idx), N_REC]`` of the listed hands (``idx`` int64), each
    with its deal's own dealer (R6), in calls of at most ``KERNEL_CHUNK`` hands
    (``kernels.play.game.simulate_hands``: the records of ``simulate_range``)."""
    kernel = _kernel("simulate_hands")
    rec = np.zeros((idx.shape[0], L.N_REC), np.int32)
    for c in range(0, idx.shape[0], KERNEL_CHUNK):
        part = idx[c:c + KERNEL_CHUNK]
        kernel(np.uint64(seed), part, np.full(part.shape[0], -1, np.int64), rules_vec, kinds,
               params, np.int64(debug), rec[c:c + part.shape[0]])
        if on_chunk is not None:
            on_chunk(part.shape[0])
    return rec


@dataclass(frozen=True, eq=False)
class SelectedHandWork(HandWork):
    """A shard of a run of selected hands (``simulate(hand_index=...)``, ``burraco
    simulate --where``): shard ``[a, b)`` holds the selected hands among ``a .. b-1``
    (possibly none: an empty file), each row equal to that hand's row in the full
    run but for ``run_id``.

    ``selection`` is the sorted ``int64`` array of every selected hand index.
    """

    selection: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))
    kernel = "simulate_hands"

    def indices(self, a: int, b: int) -> np.ndarray:
        """The selected hand indices in ``[a, b)`` (int64, increasing)."""
        lo, hi = np.searchsorted(self.selection, [a, b])
        return self.selection[lo:hi]

    def size(self, a: int, b: int) -> int:
        return int(self.indices(a, b).shape[0])

    def run(self, a: int, b: int, on_progress=None) -> tuple:
        return _selected_records(self.seed, self.indices(a, b), self.rules.to_vector(),
                                 self.kinds, self.params, self.debug, on_progress), None

    def tables(self, a: int, records: np.ndarray, block) -> list:
        lo = int(np.searchsorted(self.selection, a))       # the shard's hands follow a
        idx = self.selection[lo:lo + records.shape[0]]
        return [dataset.records_to_table(records, idx, self.run_id, self.names)]

    def read(self, files: list, a: int, b: int) -> tuple | None:
        idx = self.indices(a, b)
        table = _read_table(files[0], dataset.SCHEMA, idx.shape[0], self.run_id)
        if table is None or not np.array_equal(table.column("hand_index").to_numpy(), idx):
            return None
        if idx.shape[0] == 0 and dataset.read_metadata(files[0]).get("run_id") != self.run_id:
            return None
        return dataset.table_to_records(table), None, [table]


@dataclass(frozen=True, eq=False)
class MatchWork(HandWork):
    """A shard of a match run: matches ``a .. b-1``, in two files (the match table under
    ``matches/``, written first, and the hand rows under ``hands/``)."""

    max_hands: int = DEFAULT_MAX_HANDS
    kind = "matches"
    unit = "match"
    kernel = "simulate_hands"


    def run(self, a: int, b: int, on_progress=None) -> tuple:
        """``(records, block)``; ``on_progress(matches)`` after each round."""
        block = play_block(self.seed, a, b, self.rules, self.kinds, self.params, self.debug,
                           self.max_hands, on_progress, KERNEL_CHUNK)
        return block.records, block

    def tables(self, a: int, records: np.ndarray, block: MatchBlock) -> list:
        hands, matches = dataset.match_tables(block, self.run_id, self.names)
        return [matches, hands]

    def read(self, files: list, a: int, b: int) -> tuple | None:
        matches = _read_table(files[0], dataset.MATCH_SCHEMA, b - a, self.run_id)
        if matches is None:
            return None
        m = matches.column("match").to_numpy()
        if m[0] != a or m[-1] != b - 1:
            return None
        hands = _read_table(files[1], dataset.MATCH_HAND_SCHEMA,
                            int(matches.column("hands").to_numpy().sum()), self.run_id)
        if hands is None or hands.column("match")[0].as_py() != a:
            return None
        block = dataset.match_block(hands, matches)
        return block.records, block, [matches, hands]


@dataclass(frozen=True, eq=False)
class PythonHandWork(HandWork):
    """A shard of a hand run in which some seat plays a Python strategy
    (:mod:`sim.strategies.pystrategy`): every hand is played through :class:`sim.play.game.Game`,
    the Python seats through their ``choose``, the built-in seats a turn per
    kernel call; the records and files are those of :class:`HandWork`.

    ``players`` holds a :class:`sim.strategies.pystrategy.Player` per Python seat (None
    for a built-in one), made once per run: its ``reset`` is called at the
    start of every hand.  With ``processes`` > 1 the hands of a shard are
    played in that many forked worker processes (each with its own copy of
    the strategy objects), in chunks, and put back in hand order: the same
    records as one process, provided a strategy decides from what ``reset``
    and ``choose`` give it.
    """

    players: tuple = ()
    processes: int = 1
    kernel = "step"

    def run(self, a: int, b: int, on_progress=None) -> tuple:
        """``(records, None)`` of the shard; ``on_progress(hands)`` after each hand
        (after each chunk with worker processes).

        Raises
        ------
        sim.pystrategy.StrategyError
            A Python strategy raised, returned no action id or an illegal one
            (naming the seat, the hand, the action and the rule it breaks): the
            first such hand in hand order.
        """
        if self.processes > 1 and b - a >= 2 * self.processes and _can_fork():
            return _play_forked(self, a, b, on_progress), None
        return self.play(a, b, on_progress), None

    def play(self, a: int, b: int, on_progress=None) -> np.ndarray:
        """The records of hands ``[a, b)``, played in this process."""
        rec = np.zeros((b - a, L.N_REC), np.int32)
        names, players, work = list(self.names), list(self.players), None
        for i in range(a, b):
            game = Game._deal(self.seed, i, self.rules, -1, self.kinds, self.params, names,
                              players, self.debug, log=(0, 0), work=work)
            work = game._work
            game._play_python()
            _kernel("record")(work, rec[i - a])
            if on_progress is not None:
                on_progress(1)
        return rec


def _can_fork() -> bool:
    import multiprocessing
    return "fork" in multiprocessing.get_all_start_methods()


def _forked_worker(work: PythonHandWork, conn) -> None:
    """A forked worker: play the chunks ``(a, b)`` the parent sends, answer
    ``(a, records, None)`` or ``(a, None, exception)``, stop at ``None``.

    Ctrl-C and SIGTERM are left to the parent, which kills its workers.
    """
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        bounds = conn.recv()
        if bounds is None:
            break
        a, b = bounds
        try:
            conn.send((a, work.play(a, b), None))
        except BaseException as exc:          # sent back: the parent raises the first in hand order
            try:
                conn.send((a, None, exc))
            except Exception:                 # an exception that does not pickle
                conn.send((a, None, RuntimeError(f"{type(exc).__name__}: {exc}")))
    conn.close()


def _play_forked(work: PythonHandWork, a: int, b: int, on_progress=None) -> np.ndarray:
    """:meth:`PythonHandWork.play` of ``[a, b)`` in ``work.processes`` forked processes,
    in chunks of at most 64 hands, records in hand order.

    Each worker owns a pipe; the parent hands out the next chunk to whichever
    worker answered.  On a chunk's error no new chunk is handed out, the chunks
    before it are waited for (so the error raised is the first in hand order,
    as one process would raise it), and then every worker is killed (SIGKILL)
    and reaped: nothing here waits on a lock a dead or stuck worker could hold
    (``multiprocessing.Pool.terminate`` could hang in a process with threads).
    """
    import multiprocessing
    from multiprocessing.connection import wait
    chunk = max(1, min(64, (b - a) // (4 * work.processes)))
    todo = [(c, min(b, c + chunk)) for c in range(a, b, chunk)]
    rec = np.zeros((b - a, L.N_REC), np.int32)
    ctx = multiprocessing.get_context("fork")
    procs, conns, busy = [], [], {}          # busy: connection -> chunk start
    errors: dict = {}                       # chunk start -> exception
    nxt = 0
    try:
        for _ in range(min(work.processes, len(todo))):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=_forked_worker, args=(work, theirs), daemon=True)
            p.start()
            theirs.close()
            procs.append(p)
            conns.append(mine)
        for conn in conns:
            conn.send(todo[nxt])
            busy[conn] = todo[nxt][0]
            nxt += 1
        while busy:
            for conn in wait(list(busy)):
                try:
                    c, block, exc = conn.recv()
                except EOFError:
                    c = busy[conn]
                    dead = procs[conns.index(conn)]
                    dead.join(1)
                    block, exc = None, RuntimeError(
                        f"a worker process playing hands {c}.. died (exit code {dead.exitcode})")
                del busy[conn]
                if exc is not None:
                    errors[c] = exc
                else:
                    rec[c - a:c - a + block.shape[0]] = block
                    if on_progress is not None:
                        on_progress(block.shape[0])
                if errors:
                    first = min(errors)
                    if all(s > first for s in busy.values()):
                        raise errors[first]
                elif nxt < len(todo):
                    conn.send(todo[nxt])
                    busy[conn] = todo[nxt][0]
                    nxt += 1
        for conn in conns:
            conn.send(None)
        for p in procs:
            p.join()
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        for p in procs:
            p.join()
        for conn in conns:
            conn.close()
    return rec


def _write_tables(tables: list, files: list, meta: dict) -> None:
    for table, path in zip(tables, files):
        path.parent.mkdir(exist_ok=True)
        dataset.write_shard(table, path, meta)


# ---------------------------------------------------------------- Dask
def resolved_here(work: HandWork) -> HandWork:
    """``work`` with the policy kinds and parameter rows of its C-callback strategies
    (``rollout``, ``learned``, the peer bots) resolved again from their names in this
    process: a callback's address, and the ``learned`` weights' address in its row, are
    those of the process that resolved them, so a Dask worker resolves them itself
    (the same code, cached kernels, the same weights file).  Other seats are unchanged;
    ``work`` itself is not mutated.

    Raises
    ------
    ValueError
        A strategy that this process cannot resolve by name (a Numba chooser registered
        in another process, a weights file that is not here).
    """
    seats = [s for s, k in enumerate(work.kinds) if _strategies.is_registered(k)]
    if not seats:
        return work
    kinds, params = work.kinds.copy(), work.params.copy()
    for s in seats:
        _name, kinds[s], params[s] = _strategies.resolve(work.names[s])
    return dataclasses.replace(work, kinds=kinds, params=params)


def shard_job(work: HandWork, a: int, b: int, files: list | None, meta: dict,
              threads: int) -> tuple:
    """Simulate shard ``[a, b)`` of a run and write its files (a Dask task).

    Runs in any process that has burraco-sim installed; each file is written
    under a temporary name and renamed (:func:`sim.core.dataset.write_shard`).

    Returns
    -------
    tuple
        ``(a, b, records, block, seconds, path)``: the shard's records
        (``int32[hands, N_REC]``), its :class:`sim.core.match.MatchBlock` (match runs,
        else None) and the path of its last file (None without files).
    """
    import numba
    t0 = time.perf_counter()
    work = resolved_here(work)
    prepare_kernels(threads, work.kernel)
    numba.set_num_threads(threads)
    rec, block = work.run(a, b)
    if files is not None:
        _write_tables(work.tables(a, rec, block), files, meta)
    return (a, b, rec, block, time.perf_counter() - t0,
            os.fspath(files[-1]) if files is not None else None)


def _dask_client(scheduler: str | None, workers: int):
    """A Dask client (and the LocalCluster it owns, or None)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("executor 'dask' needs dask.distributed: pip install -e \".[cluster]\"") \
            from None
    if scheduler is not None:
        try:
            return Client(scheduler, timeout="20s"), None
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"scheduler: cannot reach {scheduler!r} "
                             f"({' '.join(str(exc).split())[:160]})") from None
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster
