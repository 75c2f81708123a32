"""Batch runner: the public ``simulate`` and ``simulate_matches``, their options, the run loop.

A run of ``hands`` hands is split into shards of consecutive hand indices
``[a, b)``, simulated by the parallel kernel ``kernels.play.game.simulate_range``
(in calls of at most ``KERNEL_CHUNK`` hands); every hand depends only on ``(seed, index)``
(R5-R11: the deal is a function of the seed and the index), so results do not depend on shard size or thread
count.  With an output directory each shard becomes one Parquet file,
written atomically, and ``_manifest.json`` records the run; running the same
configuration again into the same directory resumes it.

A match run (:func:`simulate_matches`) is split into shards of consecutive
matches, each played to its end by :func:`sim.core.match.play_block` (kernel
``kernels.play.game.simulate_hands``); a shard is two files, the hand rows and,
under ``matches/``, the match table (layout: :mod:`sim.batch.rundir`).

This module checks the arguments (:func:`_options`) and drives a run
(:func:`_run`: the directory's lock, the manifest, resuming, the progress
bar, the shards in this process or as Dask tasks).  The rest is apart:
:mod:`sim.batch.executors` simulates, writes and reads back a shard (the work
objects :class:`HandWork` and :class:`MatchWork`, the forked workers of a
Python strategy, the Dask task :func:`shard_job`, :func:`prepare_kernels`),
:mod:`sim.batch.rundir` is the run directory's format (opening it to write,
resume and its refusals, the manifest, reading a shard back) and
:mod:`sim.batch.summary` the run summary; the names this module held before they
moved are imported here too, so they still import from ``sim.runner``.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from sim import strategies as _strategies
from sim._util import compiling
from sim._util.interrupt import unwrapped as _interrupts_unwrapped
from sim._util.lock import claim
from sim._util.progress import progress_bar
from sim._util.text import not_a_directory
from sim.core import dataset
from sim.core.cards import check_bool as _check_bool
from sim.core.cards import check_int, check_progress, rules_or_default
from sim.core.deal_features import select
from sim.core.match import DEFAULT_MAX_HANDS, MAX_HANDS_LIMIT
from sim.core.rules import Rules
from sim.batch import rundir
# the parts of a run, and the names sim.runner held before they moved (its API: KERNEL_CHUNK,
# DEFAULT_SHARD_SIZE, OutputError, Summary, summarize, ...)
from sim.batch.executors import (  # noqa: F401  (the names sim.runner held)
                                KERNEL_CHUNK, HandWork, MatchWork, PythonHandWork, SelectedHandWork,
                                _dask_client, _max_threads, _prepared, _write_tables,
                                kernels_cached, prepare_kernels, shard_job)
from sim.batch.outdir import (OutputError, _apply_out, _check_out, _now, _os_error, _versions,
                              _write_json)
from sim.batch.rundir import (DEFAULT_SHARD_SIZE, MATCH_SHARD_HANDS, _default_shard_size,
                              selection_config)
from sim.batch.summary import MatchSummary, ShardDone, Summary, summarize
from sim.strategies import python_sources, resolve_seats, seat_names

MANIFEST = rundir.MANIFEST
MAX_HANDS = 10**12 - 1          # shard file names hold 12 digits
MAX_MATCHES = MAX_HANDS         # shard file names hold 12 digits of match indices too


# ---------------------------------------------------------------- the run
@dataclass(frozen=True)
class _Options:
    seed: int
    names: list
    kinds: np.ndarray
    params: np.ndarray
    pythons: tuple
    rules: Rules
    threads: int
    progress: str                # the progress bar's label; "" for none
    debug: bool
    overwrite: bool
    return_frame: bool
    callback: Callable | None
    out: Path | None
    executor: str
    scheduler: str | None
    workers: int


def _options(seed, strategies, rules, threads, progress, debug, overwrite, return_frame,
             callback, out, executor, scheduler, workers) -> _Options:
    """Validate the arguments shared by :func:`simulate` and :func:`simulate_matches`."""
    seed = check_int("seed", seed, 0, 2**64 - 1)
    rules = rules_or_default(rules)
    names, kinds, params, pythons = resolve_seats(strategies, rules)
    rules.check_supported()
    names = seat_names(names, rules)
    pythons = tuple(p if n is not None else None for n, p in zip(names, pythons))
    max_threads = _max_threads()
    threads_given = threads
    threads = max_threads if threads is None else check_int("threads", threads, 1, max_threads)
    progress = check_progress(progress, "simulate")
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
    if executor == "dask" and any(p is not None for p in pythons):
        raise ValueError(f"executor 'dask': the Python strategy {_first_python(names, pythons)!r} "
                         "plays in this process only; use executor 'local'")
    if executor == "dask":
        # the built-in callbacks (rollout, learned, the peer bots) are resolved again by
        # name in each worker (executors.resolved_here); a chooser registered here is not
        registered = [n for n, k, p in zip(names, kinds, pythons)
                      if p is None and _strategies.is_registered(k)
                      and _strategies.registered_here_only(n)]
        if registered:
            raise ValueError(f"executor 'dask': {registered[0]!r} is a Numba chooser registered "
                             "in this process only (sim.strategies.register); use "
                             "executor='local'")
    return _Options(seed, names, kinds, params, pythons, rules, threads, progress, debug, overwrite,
                    return_frame, callback, Path(out) if out is not None else None, executor,
                    scheduler, workers)


def _first_python(names, pythons) -> str | None:
    """The name of the first seat that plays a Python strategy, or None."""
    return next((n for n, p in zip(names, pythons) if p is not None), None)


def _run(work: HandWork, total: int, config: dict, o: _Options) -> dict | None:
    """Simulate (or read back) every shard of a run; the shards' tables by start if
    ``o.return_frame``, else None.

    With an output directory, the directory is checked, made and locked by
    :func:`sim._util.lock.claim` (one writer, :class:`sim._util.lock.DirectoryLock`; a refusal leaves
    it as it was) and held until the end; ``config["shard_size"]`` None means the
    manifest's when resuming (:func:`sim.batch.outdir._check_out`).  A complete run run again
    writes nothing, so it is reported from a directory that cannot be written."""
    out = o.out
    if out is None:
        return _run_locked(work, total, config, o, None, None)
    where = os.fspath(out)
    parent = rundir.inside_run_data(out)
    if parent is not None:
        raise ValueError(f"out: {where!r} is inside the data directory of the run in "
                         f"{os.fspath(parent)!r}; a plain reader of that run would read it: "
                         "use a directory outside it")
    if out.exists() and not out.is_dir():
        raise ValueError(not_a_directory("out", where))

    def check(d: Path) -> bool:
        return _check_out(d, dict(config), o.overwrite, work.kind).writes_nothing

    with claim(out, check, _os_error) as hold:
        plan = _check_out(out, config, o.overwrite, work.kind)   # again, under the lock
        dask = _dask_client(o.scheduler, o.workers) if o.executor == "dask" else None
        hold.keep()
        try:
            _apply_out(plan)
        except OSError as exc:
            raise _os_error(out, exc) from None
        return _run_locked(work, total, config, o, plan.manifest, dask)


def _run_locked(work: HandWork, total: int, config: dict, o: _Options, manifest: dict | None,
                dask: tuple | None) -> dict | None:
    """The run of :func:`_run` once its directory is locked and checked: ``manifest`` is the
    one to resume (None: a new run), ``dask`` the Dask client and cluster or None."""
    out = o.out
    manifest_path, writes = None, False
    done = set(manifest["shards"]) if manifest else set()
    if out is not None:
        manifest_path = out / MANIFEST
        # a complete run run again changes nothing in its manifest: it is not written
        writes = not (manifest and manifest.get("finished"))
        if manifest is None:
            manifest = {"format": rundir.FORMAT, "kind": work.kind,
                        "run_id": rundir.identity(config), "config": config,
                        "extents": [[0, total]], "created": _now(), "shards": [],
                        "finished": False}
            # what a kind of run records beside its configuration (a label run: the label
            # seed rule, the schema, the git commit; sim.batch.labels.LabelWork)
            manifest.update(getattr(work, "manifest_extra", None) or {})
        bounds = rundir.manifest_bounds(manifest)
        if writes:
            manifest.update(versions=_versions(), debug=o.debug, updated=_now(),
                            shards_total=len(bounds))
            try:
                _write_json(manifest_path, manifest)
            except OSError as exc:
                raise _os_error(manifest_path, exc, len(done)) from None
        work = dataclasses.replace(work, run_id=manifest["run_id"])
    else:
        if config["shard_size"] is None:
            config["shard_size"] = _default_shard_size(config)
        work = dataclasses.replace(work, run_id=rundir.identity(config))
        bounds = rundir.bounds([[0, total]], int(config["shard_size"]))
    meta = {"run_id": work.run_id, "config": manifest["config"] if manifest else config,
            "format": rundir.FORMAT,
            "extents": manifest["extents"] if manifest else [[0, total]],
            "versions": manifest["versions"] if writes else _versions()}
    simulated = []                       # shards simulated by this call

    import numba
    old_threads = numba.get_num_threads()
    numba.set_num_threads(o.threads)
    bar = None
    tables = {}
    client, cluster = dask if dask is not None else (None, None)
    prepared = []

    def prepare() -> None:
        """Compile or load the kernels before the first shard is simulated (not at all
        when every shard is read back)."""
        if prepared:
            return
        prepared.append(True)
        if o.progress and work.kernel not in _prepared:
            if bar is not None:          # the lines below go above the progress bar
                bar.clear()
            if kernels_cached(work.kernel) is False:
                with compiling.announce("kernels"):
                    prepare_kernels(o.threads, work.kernel)
            else:
                print("loading kernels...", end=" ", file=sys.stderr, flush=True)
                print(f"done in {prepare_kernels(o.threads, work.kernel):.1f} s",
                      file=sys.stderr, flush=True)
            if bar is not None:
                bar.refresh()
        # with Dask too: local workers then load the cache
        prepare_kernels(o.threads, work.kernel)

    try:
        if o.executor == "dask" and client is None:
            client, cluster = _dask_client(o.scheduler, o.workers)
        files = [work.files(out, a, b) if out is not None else None for a, b in bounds]
        # a shard is on disk once its last file is (each file is renamed into place when complete)
        on_disk = {i for i, f in enumerate(files) if f is not None and f[-1].exists()}
        if len(on_disk) < len(bounds):
            prepare()                    # before the bar, so the compile is not in its time
        if o.progress:
            # shards already on disk count as the bar's start, so the rate is honest
            bar = progress_bar(sum(work.size(a, b) for a, b in bounds), o.progress, work.unit,
                               initial=sum(work.size(a, b) for i, (a, b) in enumerate(bounds)
                                           if i in on_disk))

        def finish(shard: ShardDone, shard_tables: list) -> None:
            name = Path(shard.path).name if shard.path is not None else None
            if manifest is not None and name not in done:
                done.add(name)
                manifest["shards"] = sorted(done)
                manifest["updated"] = _now()
                try:
                    _write_json(manifest_path, manifest)
                except OSError as exc:
                    raise _os_error(manifest_path, exc, len(done)) from None
            if o.return_frame:
                tables[shard.start] = shard_tables
            if o.callback is not None:
                o.callback(shard)

        todo = []
        for i, (a, b) in enumerate(bounds):
            f = files[i]
            back = work.read(f, a, b) if f is not None and f[-1].exists() else None
            if back is None and i in on_disk:
                on_disk.discard(i)
                note = (f"{f[-1].parent.name}/{f[-1].name} is incomplete or corrupt: "
                        "simulating it again")
                if bar is not None:
                    bar.write(note, file=sys.stderr)
                    bar.update(-work.size(a, b))
                else:                    # a warning, not progress: printed with --quiet too
                    print(f"burraco: {note}", file=sys.stderr)
            if back is not None:
                rec, block, shard_tables = back
                finish(ShardDone(a, b, rec, 0.0, True, os.fspath(f[-1]), block), shard_tables)
            elif client is None:
                prepare()
                t0 = time.perf_counter()
                with _interrupts_unwrapped():
                    rec, block = work.run(a, b, bar.update if bar is not None else None)
                shard_tables = work.tables(a, rec, block)
                simulated.append(a)
                if f is not None:
                    try:
                        _write_tables(shard_tables, f, meta)
                    except OSError as exc:
                        raise _os_error(f[-1], exc, len(done)) from None
                finish(ShardDone(a, b, rec, time.perf_counter() - t0, False,
                                 os.fspath(f[-1]) if f is not None else None, block), shard_tables)
            else:
                todo.append((a, b, f))
        if todo:
            from dask.distributed import as_completed
            prepare()
            simulated.extend(a for a, _b, _f in todo)
            futures = [client.submit(shard_job, work, a, b, f, meta, o.threads, pure=False)
                       for a, b, f in todo]
            last = time.perf_counter()
            try:
                for fut in as_completed(futures):
                    try:
                        a, b, rec, block, _task_seconds, path = fut.result()
                    except OSError as exc:
                        raise _os_error(out, exc, len(done)) from None
                    fut.release()            # the cluster may forget this shard's records
                    if bar is not None:
                        bar.update(work.size(a, b))
                    # wall time since the previous shard: tasks overlap, so their own
                    # durations would undercount the rate
                    now = time.perf_counter()
                    finish(ShardDone(a, b, rec, now - last, False, path, block),
                           work.tables(a, rec, block))
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

    if manifest is not None and (writes or simulated):
        manifest.update(finished=True, updated=_now(), versions=meta["versions"])
        try:
            _write_json(manifest_path, manifest)
        except OSError as exc:
            raise _os_error(manifest_path, exc, len(done)) from None
    return tables if o.return_frame else None


def simulate(hands: int, seed: int, strategies: str | Sequence[str] = "heuristic",
             rules: Rules | str | dict | None = None, out: str | os.PathLike | None = None,
             shard_size: int | None = None, threads: int | None = None,
             progress: bool = False, debug: bool = False, overwrite: bool = False,
             return_frame: bool = True,
             callback: Callable[[ShardDone], None] | None = None,
             executor: str = "local", scheduler: str | None = None,
             workers: int | None = None, hand_index=None,
             where: str | None = None) -> pd.DataFrame | None:
    """Simulate hands ``0 .. hands-1`` of a run (or the selected ones) and return or
    store their records.

    Parameters
    ----------
    hands : int
        Number of hands, 1 .. 10**12 - 1.  More than a run in ``out`` holds
        extends it: hands ``N_old .. hands-1`` are added as new shards (the
        same deals an uninterrupted run of ``hands`` would play).
    seed : int
        Run seed, ``0 <= seed < 2**64``; hand i is determined by (seed, i).
    strategies : str, sequence of 4, or dict
        One strategy spec (``"name"`` or ``"name:param=value,..."``, see
        :mod:`sim.strategies`) for every seat, one per seat 0..3, or a dict
        such as ``{"team0": spec, "team1": spec}``
        (:func:`sim.strategies.seat_specs`).  A spec may also be a Python
        strategy (:mod:`sim.strategies.pystrategy`, docs/strategies.md): ``"FILE.py:CLASS"``,
        ``"MODULE:CLASS"``, a class or an object with ``choose(observation,
        legal_actions)``; its hands are played through :class:`sim.play.game.Game`
        (:class:`PythonHandWork`), the records are the same kind, the
        manifest's ``strategy_sources`` holds the digest of each Python
        strategy's source (part of the run id).
    rules : Rules, str, dict or None
        Rule set, preset name or option dict; default ``Rules()``.
    out : str or os.PathLike, optional
        Output directory (:mod:`sim.batch.rundir`): one Parquet file per shard in
        ``out/hands/`` plus ``out/_manifest.json``.  The same configuration in
        the same directory resumes the run.  The directory is locked while
        the run writes it: a second writer is refused (:mod:`sim._util.lock`).
    shard_size : int, optional
        Hands per shard (default: the run's when resuming, else 100,000).
    threads : int, optional
        Numba threads, 1 .. ``numba.config.NUMBA_NUM_THREADS`` (default all).
        With a Python strategy on some seat: worker processes that play the
        shard's hands (forked, each with its own copy of the strategy
        objects; default 1, this process).
    progress : bool or str
        On stderr: say when the kernels are being compiled (first run) and
        show a tqdm progress bar (hands, hands/s), updated after each kernel
        call (at most ``KERNEL_CHUNK`` hands), labelled ``simulate`` (True) or
        with the str given.
    debug : bool
        Run the kernels' consistency checks; failures are flagged in the
        ``error`` column, not raised.
    overwrite : bool
        Replace the run in ``out``: its manifest and shards are deleted first,
        after checking that nothing else sits in its data subdirectories
        (else refused, nothing deleted); other files beside it are kept.
    return_frame : bool
        Return the records as a DataFrame (set False for runs too large to
        hold in memory; use ``callback`` or :func:`sim.load`).
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
    hand_index : array_like of int, optional
        Play only these hands of ``0 .. hands-1`` (distinct; any order, played
        and returned in increasing order).  Each record equals the row of that
        hand in the full run, every column but ``run_id``: a selected run is a
        run of its own (its run id hashes the selection too; docs/deals.md).
        Built-in strategies only.  With ``out``, shard ``[a, b)`` holds the
        selected hands among ``a .. b-1`` (an empty file when there are none)
        and the manifest's ``config.selection`` records the selection (number
        of hands, SHA-256 of the indices, ``where``); resuming needs the same
        selection, and a selected run is never extended nor mixed with a full
        run in one directory (refused, nothing changed).
    where : str, optional
        A ``pandas.DataFrame.query`` expression over the deal table
        (:func:`sim.experiments.decks.deals` of hands ``0 .. hands-1``, columns in
        docs/deals.md), e.g. ``"s0_jokers >= 2"``: play the hands whose deal
        satisfies it.  Given with ``hand_index``, it must be the expression
        that selected ``hand_index`` (what ``burraco simulate --where`` does;
        it is stored in the manifest, and ``burraco simulate --out DIR``
        selects again with it to resume).

    Returns
    -------
    pandas.DataFrame or None
        One row per hand in hand order, columns as
        :data:`sim.core.dataset.COLUMNS`; None if ``return_frame`` is False.

    Raises
    ------
    ValueError
        An invalid argument (the message names it: a hand index out of
        ``0 .. hands-1`` or given twice, a ``where`` that does not evaluate or
        selects no hand), rules the engine does
        not support (:meth:`Rules.check_supported`), a Python strategy that
        does not load or breaks a rule (:class:`sim.strategies.pystrategy.StrategyError`:
        the seat, the hand, the action and the rule), or an output directory
        that holds a different run (a match run included), more hands than
        ``hands``, stray files in ``out/hands``, a damaged manifest, or only
        foreign files; :class:`sim._util.lock.LockedError` if another process
        writes ``out``.
    KeyboardInterrupt
        Propagated; shards completed so far stay on disk, a shard being
        written is discarded.
    """
    hands = check_int("hands", hands, 1, MAX_HANDS)
    shard_size = None if shard_size is None else check_int("shard_size", shard_size, 1, MAX_HANDS)
    o = _options(seed, strategies, rules, threads, progress, debug, overwrite, return_frame,
                 callback, out, executor, scheduler, workers)
    config = {"hands": hands, "seed": o.seed, "strategies": o.names, "rules": o.rules.to_dict(),
              "shard_size": shard_size}
    selection = _selection(hands, o, hand_index, where)
    if selection is not None:
        if _first_python(o.names, o.pythons) is not None:
            raise ValueError(f"hand_index: the Python strategy {_first_python(o.names, o.pythons)!r}"
                             " plays whole runs only; select hands with built-in strategies")
        config["selection"] = selection_config(selection, where)
        work = SelectedHandWork(o.seed, o.rules, o.kinds, o.params, o.debug, "", tuple(o.names),
                                selection)
    elif _first_python(o.names, o.pythons) is None:
        work = HandWork(o.seed, o.rules, o.kinds, o.params, o.debug, "", tuple(o.names))
    else:
        config["strategy_sources"] = python_sources(o.names, o.pythons)
        players = tuple(p.player() if p is not None else None for p in o.pythons)
        work = PythonHandWork(o.seed, o.rules, o.kinds, o.params, o.debug, "", tuple(o.names),
                              players, 1 if threads is None else o.threads)
    tables = _run(work, hands, config, o)
    if tables is None:
        return None
    return dataset.table_to_frame(pa.concat_tables([tables[a][0] for a in sorted(tables)]))


def _selection(hands: int, o: _Options, hand_index, where) -> np.ndarray | None:
    """The sorted hand indices a run plays (None: all of ``0 .. hands-1``)."""
    if where is not None and not isinstance(where, str):
        raise ValueError(f"where must be a pandas query expression (str), got {where!r}")
    if hand_index is None:
        if where is None:
            return None
        idx = select(o.seed, hands, where, o.rules, what="where")
        if not idx.size:
            raise ValueError(f"where: {where!r} selects none of hands 0..{hands - 1}")
        return idx
    arr = np.asarray(hand_index)
    if arr.ndim != 1 or not arr.size or not (np.issubdtype(arr.dtype, np.integer)
                                             and arr.dtype != np.bool_):
        raise ValueError("hand_index must be a non-empty 1-D array of integer hand indices, "
                         f"got {type(hand_index).__name__} of shape {arr.shape}")
    idx = np.sort(arr.astype(np.int64))
    if idx[0] < 0 or idx[-1] >= hands:
        bad = int(idx[0] if idx[0] < 0 else idx[-1])
        raise ValueError(f"hand_index: {bad} is not a hand of the run: give indices in "
                         f"0..{hands - 1} (hands={hands})")
    same = np.flatnonzero(idx[1:] == idx[:-1])
    if same.size:
        raise ValueError(f"hand_index: hand {int(idx[same[0]])} is given twice; a hand is "
                         "played once")
    return idx


class MatchRun(NamedTuple):
    """What :func:`simulate_matches` returns: the hand rows and the match table."""

    hands: pd.DataFrame
    matches: pd.DataFrame


def simulate_matches(matches: int, seed: int, strategies: str | Sequence[str] = "heuristic",
                     rules: Rules | str | dict | None = None,
                     out: str | os.PathLike | None = None, shard_size: int | None = None,
                     threads: int | None = None, progress: bool = False, debug: bool = False,
                     overwrite: bool = False, return_frame: bool = True,
                     callback: Callable[[ShardDone], None] | None = None,
                     executor: str = "local", scheduler: str | None = None,
                     workers: int | None = None,
                     max_hands_per_match: int = DEFAULT_MAX_HANDS) -> MatchRun | None:
    """Play matches ``0 .. matches-1`` of a run to their end (R60) and return or store them.

    Hand ``k`` of match ``m`` is the deal ``m * 65536 + k`` of the seed
    (:data:`sim.core.match.MATCH_STRIDE`), dealt by hand 0's random dealer moved
    on ``k`` seats (R6); see :mod:`sim.core.match`.  Shards are blocks of
    consecutive matches; within a shard, hand ``k`` of all its unfinished
    matches is played in one parallel kernel call.  Results do not depend on
    shard size, thread count or executor.

    Parameters
    ----------
    matches : int
        Number of matches, 1 .. 10**12 - 1; more than a run in ``out`` holds
        extends it with matches ``M_old .. matches-1``.
    seed, strategies, rules, threads, debug, overwrite, callback, executor, scheduler, workers
        As for :func:`simulate`.  ``callback`` gets a :class:`ShardDone`
        whose ``matches`` is the shard's :class:`sim.core.match.MatchBlock`.
    out : str or os.PathLike, optional
        Output directory: per shard, the hand rows in
        ``hands/shard-AAAAAAAAAAAA-BBBBBBBBBBBB.parquet`` (matches ``[A, B)``;
        read by :func:`sim.load` or ``pd.read_parquet(out / "hands")``) and the
        match table in ``matches/`` under the same name
        (:func:`sim.load_matches`), plus ``_manifest.json``.  The same
        configuration resumes the run; a hand run's directory is refused;
        locked while written, as for :func:`simulate`.
    shard_size : int, optional
        Matches per shard (default: the run's when resuming, else
        ``1_000_000 // max_hands_per_match``, so a shard holds at most a
        million hands).
    progress : bool or str
        Compile notice and a progress bar in matches on stderr, labelled
        ``simulate`` (True) or with the str given.
    return_frame : bool
        Return the tables (False for runs too large to hold in memory).
    max_hands_per_match : int
        Safety cap, 1 .. 32767 (default 200): a match not ended by R60
        after that many hands ends without a winner (``reason`` "cap").

    Returns
    -------
    MatchRun or None
        ``(hands, matches)`` DataFrames: one row per hand played
        (:data:`sim.core.dataset.MATCH_HAND_COLUMNS`) ordered by match and hand,
        and one row per match (:data:`sim.core.dataset.MATCH_COLUMNS`; ``winner``
        is nullable ``Int8``, ``<NA>`` if capped); None if ``return_frame``
        is False.

    Raises
    ------
    ValueError
        An invalid argument (the message names it), unsupported rules, or an
        output directory holding a hand run, a different match run or
        foreign files.
    KeyboardInterrupt
        Propagated; shards completed so far stay on disk.
    """
    matches = check_int("matches", matches, 1, MAX_MATCHES)
    cap = check_int("max_hands_per_match", max_hands_per_match, 1, MAX_HANDS_LIMIT)
    shard_size = None if shard_size is None else \
        check_int("shard_size", shard_size, 1, MAX_MATCHES)
    o = _options(seed, strategies, rules, threads, progress, debug, overwrite, return_frame,
                 callback, out, executor, scheduler, workers)
    if _first_python(o.names, o.pythons) is not None:
        raise ValueError(f"simulate_matches: the Python strategy "
                         f"{_first_python(o.names, o.pythons)!r} plays hand runs only "
                         "(sim.simulate, burraco simulate --hands), not match runs")
    if o.rules.num_players == 3 and o.rules.three_player_mode == "solo_18":
        try:                    # R63: the match may switch to individual_3x11 hands
            o.rules.replace(three_player_mode="individual_3x11")
        except ValueError as exc:
            raise ValueError(f"{exc} (a 3-player match switches to individual_3x11 hands, "
                             "three pozzetti of pozzetto_size, once a total reaches "
                             "three_player_switch_at, R63)") from None
    config = {"matches": matches, "max_hands_per_match": cap, "seed": o.seed,
              "strategies": o.names, "rules": o.rules.to_dict(), "shard_size": shard_size}
    work = MatchWork(o.seed, o.rules, o.kinds, o.params, o.debug, "", tuple(o.names), cap)
    tables = _run(work, matches, config, o)
    if tables is None:
        return None
    starts = sorted(tables)
    return MatchRun(
        dataset.table_to_frame(pa.concat_tables([tables[a][1] for a in starts])),
        dataset.matches_to_frame(pa.concat_tables([tables[a][0] for a in starts])))
