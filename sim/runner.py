"""Batch runner: validation, shards, resume, Parquet output and the run summary.

A run of ``hands`` hands is split into shards of consecutive hand indices
``[a, b)``, simulated by the parallel kernel ``kernels.game.simulate_range``
(in calls of at most ``KERNEL_CHUNK`` hands); every hand depends only on ``(seed, index)``
(DESIGN.md section 3), so results do not depend on shard size or thread
count.  With an output directory each shard becomes one Parquet file,
written atomically, and ``_manifest.json`` records the run; running the same
configuration again into the same directory resumes it.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from kernels import layout as L

from . import dataset
from . import strategies as _strategies
from ._cards import check_int, rules_or_default
from ._version import __version__
from .rules import Rules
from .rules import Rules

DEFAULT_SHARD_SIZE = 100_000
KERNEL_CHUNK = 16_384           # hands per kernel call inside a shard
MANIFEST = "_manifest.json"
MAX_HANDS = 10**12 - 1          # shard file names hold 12 digits
MANIFEST_FORMAT = 1

_prepared = False


# ---------------------------------------------------------------- shards and summary
@dataclass(frozen=True)
class ShardDone:
    """What the progress callback receives after each shard.

    Attributes
    ----------
    start, stop : int
        Hand indices ``[start, stop)`` of the shard.
    records : numpy.ndarray
        ``int32[stop - start, N_REC]`` kernel records (``REC_COLUMNS``).
    seconds : float
        Wall time spent simulating and writing the shard (s; with Dask, the wall time since
        the previous shard completed); 0 when resumed.
    resumed : bool
        True if the shard was already complete on disk and was read back.
    path : str or None
        Shard file, None without an output directory.
    """

    start: int
    stop: int
    records: np.ndarray
    seconds: float
    resumed: bool
    path: str | None


class Summary:
    """Running summary of a run, fed one record block at a time.

    All figures are computed from the kernel records (``int32[n, N_REC]``),
    so a run of any size is summarised without holding it in memory.
    """

    def __init__(self) -> None:
        self._t0 = time.perf_counter()
        self._t1: float | None = None
        self.hands = 0
        self.hands_simulated = 0
        self.sim_seconds = 0.0
        self._sums = np.zeros(L.N_REC, np.int64)
        self._end = np.zeros(len(L.END_REASONS), np.int64)
        self._errors = 0

    def add(self, records: np.ndarray, seconds: float = 0.0, resumed: bool = False) -> None:
        """Add a block of records.

        Parameters
        ----------
        records : numpy.ndarray
            ``int32[n, N_REC]``.
        seconds : float
            Wall time that produced the block (s), counted in hands/s unless
            ``resumed``.
        resumed : bool
            The block was read back from disk, not simulated now.
        """
        rec = np.asarray(records)
        n = rec.shape[0]
        self.hands += n
        if not resumed:
            self.hands_simulated += n
            self.sim_seconds += seconds
        self._sums += rec.sum(axis=0, dtype=np.int64)
        self._end += np.bincount(rec[:, L.REC_END_REASON], minlength=len(L.END_REASONS))[
            :len(L.END_REASONS)]
        self._errors += int(np.count_nonzero(rec[:, L.REC_ERROR]))

    def add_shard(self, shard: ShardDone) -> None:
        """Callback form of :meth:`add` (pass as ``simulate(callback=...)``)."""
        self.add(shard.records, shard.seconds, shard.resumed)

    def finish(self) -> None:
        """Stop the wall clock used for ``elapsed_s``."""
        self._t1 = time.perf_counter()

    def _team_mean(self, tc: int, team: int) -> float:
        return float(self._sums[L.N_HAND_COLS + team * L.N_TEAM_COLS + tc]) / max(self.hands, 1)

    def as_dict(self) -> dict:
        """The summary figures.

        Returns
        -------
        dict
            ``hands`` (total in the run), ``hands_simulated`` (now, not
            resumed), ``elapsed_s`` (wall time since the summary started),
            ``hands_per_s`` (simulated hands per second of simulation and
            writing, None if nothing was simulated), ``mean_score_t0/_t1``
            (points), ``mean_turns`` (turns per hand), ``end_reason_share``
            (reason -> fraction of hands), ``clean_burracos_per_hand_t0/_t1``,
            ``dirty_burracos_per_hand_t0/_t1`` (melds per hand, dirty includes
            semi-clean) and ``debug_errors`` (hands with a non-zero
            ``error``).
        """
        n = max(self.hands, 1)
        end = self._t1 if self._t1 is not None else time.perf_counter()
        d = {
            "hands": self.hands,
            "hands_simulated": self.hands_simulated,
            "elapsed_s": end - self._t0,
            "hands_per_s": (self.hands_simulated / self.sim_seconds
                            if self.hands_simulated and self.sim_seconds > 0 else None),
            "mean_turns": float(self._sums[L.REC_TURNS]) / n,
            "end_reason_share": {r: float(c) / n for r, c in zip(L.END_REASONS, self._end)},
            "debug_errors": self._errors,
        }
        for t in (0, 1):
            d[f"mean_score_t{t}"] = self._team_mean(L.TC_SCORE, t)
            d[f"clean_burracos_per_hand_t{t}"] = self._team_mean(L.TC_CLEAN, t)
            d[f"dirty_burracos_per_hand_t{t}"] = self._team_mean(L.TC_DIRTY, t)
        return d

    def format(self) -> str:
        """The summary as a plain-text table (what the CLI prints)."""
        d = self.as_dict()
        rate = d["hands_per_s"]
        rows = [
            ("hands", f"{d['hands']:,}", ""),
            ("hands simulated now", f"{d['hands_simulated']:,}", ""),
            ("hands/s", f"{rate:,.0f}" if rate is not None else "-", ""),
            ("elapsed s (incl. start-up)", f"{d['elapsed_s']:.1f}", ""),
            ("mean turns per hand", f"{d['mean_turns']:.2f}", ""),
            ("", "team 0", "team 1"),
            ("mean score per hand", f"{d['mean_score_t0']:.2f}", f"{d['mean_score_t1']:.2f}"),
            ("clean burracos per hand", f"{d['clean_burracos_per_hand_t0']:.3f}",
             f"{d['clean_burracos_per_hand_t1']:.3f}"),
            ("dirty burracos per hand", f"{d['dirty_burracos_per_hand_t0']:.3f}",
             f"{d['dirty_burracos_per_hand_t1']:.3f}"),
            ("", "share", ""),
        ]
        rows += [(f"end: {r}", f"{s:.2%}", "") for r, s in d["end_reason_share"].items()]
        if d["debug_errors"]:
            rows.append(("hands with debug errors", f"{d['debug_errors']:,}", ""))
        w0 = max(len(r[0]) for r in rows)
        w1 = max(len(r[1]) for r in rows)
        return "\n".join(f"{a:<{w0}}  {b:>{w1}}  {c:>10}".rstrip() for a, b, c in rows)


def summarize(blocks: Iterable[np.ndarray] | pd.DataFrame) -> Summary:
    """Summarise records already produced.

    Parameters
    ----------
    blocks : iterable of numpy.ndarray, or pandas.DataFrame
        ``int32[n, N_REC]`` record blocks, or a frame returned by
        :func:`simulate` / :func:`sim.dataset.read_run`.

    Returns
    -------
    Summary
        With every block added as resumed (no timing).
    """
    s = Summary()
    if isinstance(blocks, pd.DataFrame):
        blocks = [dataset.table_to_records(pa.Table.from_pandas(blocks, preserve_index=False))]
    for rec in blocks:
        s.add(rec, resumed=True)
    s.finish()
    return s


# ---------------------------------------------------------------- validation
def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _resolve_strategies(strategies) -> tuple:
    specs = _strategies.seat_specs(strategies)
    resolved = [_strategies.resolve(s) for s in specs]
    names = [r[0] for r in resolved]
    kinds = np.array([r[1] for r in resolved], np.int64)
    params = np.ascontiguousarray(np.stack([r[2] for r in resolved]), np.float64)
    return names, kinds, params


def seat_names(names: Sequence, rules: Rules) -> list:
    """The strategy spec of each of the 4 seat columns; None for a seat that is
    empty under ``rules`` (seats 2 and 3 with 2 players, R61)."""
    return [n if s < rules.num_players else None for s, n in enumerate(names)]


def _max_threads() -> int:
    import numba
    return int(numba.config.NUMBA_NUM_THREADS)


# ---------------------------------------------------------------- kernels
def _kernel():
    from kernels import game
    return game.simulate_range


def kernels_cached() -> bool | None:
    """Whether Numba's on-disk cache holds the game kernel.

    Returns
    -------
    bool or None
        True if the cache index exists (loading is fast), False if the
        kernel will be compiled, None if that cannot be told.
    """
    try:
        return os.path.exists(_kernel()._cache._cache_file._index_path)
    except Exception:       # private Numba attributes; only a hint
        return None


def prepare_kernels(threads: int | None = None) -> float:
    """Compile (or load from cache) the game kernel by simulating one hand.

    Later calls in the same process return at once.

    Parameters
    ----------
    threads : int, optional
        Numba threads to use (default: all).

    Returns
    -------
    float
        Seconds it took (0.0 if already prepared).
    """
    global _prepared
    if _prepared:
        return 0.0
    import numba
    t0 = time.perf_counter()
    kernel = _kernel()
    old = numba.get_num_threads()
    numba.set_num_threads(threads or _max_threads())
    try:
        _, kinds, params = _resolve_strategies(_strategies.HEURISTIC.name)
        out = np.zeros((1, L.N_REC), np.int32)
        kernel(np.uint64(0), np.int64(0), np.int64(1), Rules().to_vector(), kinds, params,
               np.int64(0), out)
    finally:
        numba.set_num_threads(old)
    _prepared = True
    return time.perf_counter() - t0


# ---------------------------------------------------------------- output directory
def _versions() -> dict:
    import numba
    return {"burraco_sim": __version__, "numba": numba.__version__, "numpy": np.__version__,
            "pyarrow": pa.__version__, "pandas": pd.__version__,
            "python": platform.python_version()}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class OutputError(ValueError):
    """The output directory cannot be written (full disk, permissions, a file in the way).

    A ``ValueError``, so the CLI reports it in one line with exit code 2.
    """


def _os_error(what, exc: OSError) -> OutputError:
    return OutputError(f"out: cannot write {os.fspath(what)!r}: {exc.strerror or exc}; the "
                       "completed shards are kept: fix it and run the same command again")


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _os_error(path, exc) from None


def _is_ours(p: Path) -> bool:
    name = p.name
    return p.is_file() and (name in (MANIFEST, MANIFEST + ".tmp")
                            or (name.startswith("shard-") and
                                (name.endswith(".parquet") or name.endswith(".parquet.tmp"))))


def _open_out(out: Path, config: dict, overwrite: bool) -> dict | None:
    """Prepare the output directory; return the manifest to resume, or None."""
    where = os.fspath(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out: {where!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(out, exc) from None
    if overwrite:
        for p in out.iterdir():
            if _is_ours(p):
                p.unlink()
    for p in out.glob("*.tmp"):             # left by an interrupted write
        if _is_ours(p):
            p.unlink()
    manifest_path = out / MANIFEST
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
            old = manifest["config"]
            old_version = manifest["versions"]["burraco_sim"]
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"out: {where!r} holds an unreadable {MANIFEST}; "
                             "use another directory or overwrite (--overwrite)") from None
        if old != config:
            keys = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
            raise ValueError(f"out: {where!r} holds a different run (differs in: "
                             f"{', '.join(keys)}); use another directory or overwrite (--overwrite)")
        if old_version != __version__:
            raise ValueError(f"out: {where!r} holds a run of burraco-sim {old_version}, this is "
                             f"{__version__}; use another directory or overwrite (--overwrite)")
        return manifest
    others = sorted(p.name for p in out.iterdir())
    if others:
        raise ValueError(f"out: {where!r} is not empty and holds no burraco-sim run "
                         f"(found {others[0]!r}); use an empty or new directory")
    return None


def _read_shard(path: Path, a: int, b: int, run_id: str) -> pa.Table | None:
    """Read back a complete shard, or None if it does not belong to this run."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException):
        return None
    if table.num_rows != b - a or table.schema.remove_metadata() != dataset.SCHEMA:
        return None
    idx = table.column("hand_index").to_numpy()
    if idx[0] != a or idx[-1] != b - 1 or table.column("run_id")[0].as_py() != run_id:
        return None
    return table


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


# ---------------------------------------------------------------- Dask
def shard_job(seed: int, a: int, b: int, rules_vec: np.ndarray, kinds: np.ndarray,
              params: np.ndarray, debug: bool, run_id: str, names: list, path: str | None,
              meta: dict, threads: int) -> tuple:
    """Simulate hands ``[a, b)`` of a run and write their shard (a Dask task).

    Runs in any process that has burraco-sim installed; the shard file is
    written under a temporary name and renamed (:func:`sim.dataset.write_shard`).

    Returns
    -------
    tuple
        ``(a, b, records, seconds, path)``; ``records`` is ``int32[b - a, N_REC]``.
    """
    import numba
    t0 = time.perf_counter()
    prepare_kernels(threads)
    numba.set_num_threads(threads)
    rec = _records(seed, a, b, rules_vec, kinds, params, debug)
    if path is not None:
        dataset.write_shard(dataset.records_to_table(rec, a, run_id, names), path, meta)
    return a, b, rec, time.perf_counter() - t0, path


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


# ---------------------------------------------------------------- the run
def simulate(hands: int, seed: int, strategies: str | Sequence[str] = "heuristic",
             rules: Rules | str | dict | None = None, out: str | os.PathLike | None = None,
             shard_size: int | None = None, threads: int | None = None,
             progress: bool = False, debug: bool = False, overwrite: bool = False,
             return_frame: bool = True,
             callback: Callable[[ShardDone], None] | None = None,
             executor: str = "local", scheduler: str | None = None,
             workers: int | None = None) -> pd.DataFrame | None:
    """Simulate hands ``0 .. hands-1`` of a run and return or store their records.

    Parameters
    ----------
    hands : int
        Number of hands, 1 .. 10**12 - 1.
    seed : int
        Run seed, ``0 <= seed < 2**64``; hand i is determined by (seed, i).
    strategies : str, sequence of 4 str, or dict
        One strategy spec (``"name"`` or ``"name:param=value,..."``, see
        :mod:`sim.strategies`) for every seat, one per seat 0..3, or a dict
        such as ``{"team0": spec, "team1": spec}``
        (:func:`sim.strategies.seat_specs`).
    rules : Rules, str, dict or None
        Rule set, preset name or option dict; default ``Rules()``.
    out : str or os.PathLike, optional
        Output directory: one Parquet file per shard plus ``_manifest.json``.
        The same configuration in the same directory resumes the run.
    shard_size : int, optional
        Hands per shard (default 100,000).
    threads : int, optional
        Numba threads, 1 .. ``numba.config.NUMBA_NUM_THREADS`` (default all).
    progress : bool
        On stderr: say when the kernels are being compiled (first run) and
        show a tqdm progress bar (hands, hands/s), updated after each kernel
        call (at most ``KERNEL_CHUNK`` hands).
    debug : bool
        Run the kernels' consistency checks; failures are flagged in the
        ``error`` column, not raised.
    overwrite : bool
        Delete the run files (manifest, shards) already in ``out`` first.
    return_frame : bool
        Return the records as a DataFrame (set False for runs too large to
        hold in memory; use ``callback`` or :func:`sim.dataset.read_run`).
    callback : callable, optional
        Called with a :class:`ShardDone` after each shard, resumed shards
        included: in hand order with the local executor, in completion order
        with Dask.
    executor : {"local", "dask"}
        ``"local"`` runs the shards in this process (all cores through
        Numba); ``"dask"`` submits one task per shard to a Dask distributed
        cluster (:func:`shard_job`), whose workers write their shards to
        ``out`` (a path they all see).  Results are identical.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``); implies
        ``executor="dask"``.  Without it, ``"dask"`` starts a LocalCluster.
    workers : int, optional
        Worker processes of that LocalCluster (default 2), one thread each.

    Returns
    -------
    pandas.DataFrame or None
        One row per hand in hand order, columns as
        :data:`sim.dataset.COLUMNS`; None if ``return_frame`` is False.

    Raises
    ------
    ValueError
        An invalid argument (the message names it), rules the engine does
        not support (:meth:`Rules.check_supported`), or an output directory
        that holds a different run or foreign files.
    KeyboardInterrupt
        Propagated; shards completed so far stay on disk, a shard being
        written is discarded.
    """
    hands = check_int("hands", hands, 1, MAX_HANDS)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    names, kinds, params = _resolve_strategies(strategies)
    rules = rules_or_default(rules)
    rules.check_supported()
    names = seat_names(names, rules)
    shard_size = DEFAULT_SHARD_SIZE if shard_size is None else \
        check_int("shard_size", shard_size, 1, MAX_HANDS)
    max_threads = _max_threads()
    threads_given = threads
    threads = max_threads if threads is None else check_int("threads", threads, 1, max_threads)
    progress = _check_bool("progress", progress)
    debug = _check_bool("debug", debug)
    overwrite = _check_bool("overwrite", overwrite)
    return_frame = _check_bool("return_frame", return_frame)
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be callable, got {callback!r}")
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise ValueError(f"out must be a directory path, got {out!r}")
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ValueError(f"scheduler must be an address such as 'tcp://host:8786', "
                             f"got {scheduler!r}")
        executor = "dask"
    if executor not in ("local", "dask"):
        raise ValueError(f"executor must be 'local' or 'dask', got {executor!r}")
    workers = 2 if workers is None else check_int("workers", workers, 1, 1024)
    if executor == "dask" and threads_given is None:
        threads = 1                  # one Numba thread per Dask task: workers share the cores

    config = {"hands": hands, "seed": seed, "strategies": names, "rules": rules.to_dict(),
              "shard_size": shard_size}
    run_id = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]
    bounds = [(a, min(a + shard_size, hands)) for a in range(0, hands, shard_size)]

    manifest_path = manifest = None
    if out is not None:
        out = Path(out)
        manifest = _open_out(out, config, overwrite)
        manifest_path = out / MANIFEST
        if manifest is None:
            manifest = {"format": MANIFEST_FORMAT, "run_id": run_id, "config": config,
                        "created": _now(), "shards_total": len(bounds), "shards": [],
                        "finished": False}
        manifest.update(versions=_versions(), debug=debug, updated=_now())
        _write_json(manifest_path, manifest)
    done = set(manifest["shards"]) if manifest else set()

    import numba
    old_threads = numba.get_num_threads()
    numba.set_num_threads(threads)
    bar = None
    tables = {}
    client = cluster = None
    try:
        if executor == "dask":
            client, cluster = _dask_client(scheduler, workers)
        if progress and not _prepared:
            cold = kernels_cached() is False
            print("compiling kernels (first run only)..." if cold else "loading kernels...",
                  end=" ", file=sys.stderr, flush=True)
            print(f"done in {prepare_kernels(threads):.1f} s", file=sys.stderr, flush=True)
        prepare_kernels(threads)     # with Dask too: local workers then load the cached kernels
        rules_vec = rules.to_vector()
        paths = [out / dataset.SHARD_PATTERN.format(a=a, b=b) if out is not None else None
                 for a, b in bounds]
        on_disk = {p for p in paths if p is not None and p.exists()}
        if progress:
            from tqdm import tqdm
            # shards already on disk count as the bar's start, so the rate is honest
            bar = tqdm(total=hands, initial=sum(b - a for (a, b), p in zip(bounds, paths)
                                                if p in on_disk),
                       unit="hand", unit_scale=True, file=sys.stderr, dynamic_ncols=True,
                       smoothing=0.1)
        def finish(shard: ShardDone, table: pa.Table) -> None:
            path = Path(shard.path) if shard.path is not None else None
            if manifest is not None and path.name not in done:
                done.add(path.name)
                manifest["shards"] = sorted(done)
                manifest["updated"] = _now()
                _write_json(manifest_path, manifest)
            if return_frame:
                tables[shard.start] = table
            if callback is not None:
                callback(shard)

        todo = []
        for (a, b), path in zip(bounds, paths):
            table = _read_shard(path, a, b, run_id) if path is not None and path.exists() else None
            if table is None and path in on_disk:
                on_disk.discard(path)
                if bar is not None:
                    bar.write(f"{path.name} is incomplete or corrupt: simulating it again")
                    bar.update(-(b - a))
            if table is not None:
                finish(ShardDone(a, b, dataset.table_to_records(table), 0.0, True,
                                 os.fspath(path)), table)
            elif client is None:
                t0 = time.perf_counter()
                rec = _records(seed, a, b, rules_vec, kinds, params, debug,
                               bar.update if bar is not None else None)
                table = dataset.records_to_table(rec, a, run_id, names)
                if path is not None:
                    try:
                        dataset.write_shard(table, path, {"run_id": run_id, "config": config,
                                                          "versions": manifest["versions"]})
                    except OSError as exc:
                        raise _os_error(path, exc) from None
                finish(ShardDone(a, b, rec, time.perf_counter() - t0, False,
                                 os.fspath(path) if path is not None else None), table)
            else:
                todo.append((a, b, path))
        if todo:
            from dask.distributed import as_completed
            meta = {"run_id": run_id, "config": config,
                    "versions": manifest["versions"] if manifest else _versions()}
            futures = [client.submit(shard_job, seed, a, b, rules_vec, kinds, params, debug,
                                     run_id, names, os.fspath(path) if path else None, meta,
                                     threads, pure=False)
                       for a, b, path in todo]
            last = time.perf_counter()
            try:
                for fut in as_completed(futures):
                    try:
                        a, b, rec, _task_seconds, path = fut.result()
                    except OSError as exc:
                        raise _os_error(out, exc) from None
                    fut.release()            # the cluster may forget this shard's records
                    table = dataset.records_to_table(rec, a, run_id, names)
                    if bar is not None:
                        bar.update(b - a)
                    # wall time since the previous shard: tasks overlap, so their own
                    # durations would undercount the rate
                    now = time.perf_counter()
                    finish(ShardDone(a, b, rec, now - last, False, path), table)
                    last = now
            finally:
                for fut in futures:
                    fut.cancel()
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(old_threads)
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    if manifest is not None:
        manifest.update(finished=True, updated=_now())
        _write_json(manifest_path, manifest)
    if not return_frame:
        return None
    return dataset.table_to_frame(pa.concat_tables([tables[a] for a in sorted(tables)]))
