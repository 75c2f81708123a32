"""Label runs: the ``rollout`` search's values at every searched decision, as Parquet.

:func:`label_run` (``burraco label``) plays hands with a *teacher*, a ``rollout`` spec on
every seat, and writes one row per searched decision (:data:`LABEL_SCHEMA`, docs/labels.md)
into ``DIR/labels/`` shards of a run directory (:mod:`sim.batch.rundir`, kind ``labels``).
The run is driven by :func:`sim.batch.runner._run` like ``simulate``'s: the lock (one writer),
the manifest, resuming shard by shard, the progress bar, the local executor (threads) and
the Dask executor (:func:`sim.batch.executors.shard_job`).  A shard ``[a, b)`` holds the rows
of hands ``a .. b-1`` in hand and decision order.

The hands are played by :func:`kernels.search.label.label_hand` (the kernels that play
``simulate``: ``new_hand``, the search ``kernels.search.player.rollout_search`` that the
``rollout`` strategy calls, ``apply_action``), one compiled call per hand, the hands of a
shard on ``threads`` threads at once.

**Label seeds.**  Hand ``i`` of label seed ``S`` is dealt as hand :data:`LABEL_HAND_OFFSET`
``+ i`` of run seed ``S``: every evaluation (``simulate``, ``compare``, ``sweep``, ``tune``,
``analyze``, match runs) deals hand indices below ``10**12 * 65536 < 2**62``, so no
evaluation ever deals a label hand (the rule is recorded in the manifest's ``label_seed``).
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kernels.core import layout as L

from sim import strategies as _strategies
from sim.core.match import MATCH_STRIDE
from sim.strategies.specs import resolve_for
from sim.batch import rundir
from sim.batch.executors import HandWork
from sim.batch.runner import MAX_HANDS, _options, _run
from sim.batch.summary import ShardDone

#: The default teacher: sequential halving over 256 worlds at most, 120 rollouts a decision, the
#: pickup searched with the same budget as the discard (docs/strategies.md, the `rollout` sweep).
DEFAULT_TEACHER = "rollout:halving=1,worlds=256,rollouts=120,pickup_share=1"
#: Hand ``i`` of a label run of seed ``S`` is the deal ``LABEL_HAND_OFFSET + i`` of seed ``S``.
LABEL_HAND_OFFSET = 2 ** 62
assert MAX_HANDS * MATCH_STRIDE < LABEL_HAND_OFFSET     # no evaluation deals a label hand
#: Version of :data:`LABEL_SCHEMA` (the manifest's ``labels_schema``).
LABELS_SCHEMA_VERSION = 1
LABEL_SEED_RULE = (f"hand i of label seed S is dealt as hand {LABEL_HAND_OFFSET} + i (2**62 + i) "
                   "of run seed S (kernels.play.game.new_hand); simulate, compare, sweep, tune, "
                   "analyze and match runs deal hand indices below 10**12 * 65536 < 2**62")

#: One row per searched decision (docs/labels.md; the schema shared with the learned player).
LABEL_SCHEMA = pa.schema([
    pa.field("hand", pa.int64()),               # hand index in the run (label seed)
    pa.field("turn", pa.int16()),               # the hand's turn counter g[G_TURN]
    pa.field("seat", pa.int8()),                # seat to move
    pa.field("phase", pa.int8()),               # PH_PICKUP / PH_DISCARD / PH_MELD
    pa.field("obs_index", pa.list_(pa.int16())),   # nonzero entries of the observation tensor
    pa.field("obs_value", pa.list_(pa.float32())),  # their values
    pa.field("candidates", pa.list_(pa.int16())),  # the base policy's choice first
    pa.field("mean", pa.list_(pa.float32())),   # mean rollout result per candidate (points)
    pa.field("se", pa.list_(pa.float32())),     # its standard error (NaN: fewer than 2 worlds)
    pa.field("worlds", pa.list_(pa.int16())),   # worlds it was rolled out on
    pa.field("chosen", pa.int16()),             # the action the search played
])


def _kernels():
    from kernels.search import label
    return label


def full_spec(spec: str) -> tuple[str, np.ndarray]:
    """A ``rollout`` spec with every parameter written out (``rollouts_played``, an output,
    left out), and its parameter row.

    Raises
    ------
    ValueError
        ``spec`` is not a built-in strategy spec, or not a ``rollout`` one.
    """
    if not isinstance(spec, str):
        raise ValueError(f"teacher must be a rollout strategy spec (str), got {spec!r}")
    name, _kind, vec = resolve_for("teacher", spec)
    base = name.split(":")[0]
    if base != "rollout":
        raise ValueError(f"teacher: {spec!r} is not a rollout spec; the labels are the "
                         "values of the search (e.g. 'rollout:halving=1,worlds=256,"
                         "rollouts=120')")
    strat = _strategies.get("rollout")
    parts = [f"{k}={vec[slot]:g}" for k, (slot, _d, _doc) in sorted(strat.params.items())
             if k != "rollouts_played"]
    return "rollout:" + ",".join(parts), vec


def git_commit() -> dict:
    """The git commit of the source tree this package runs from: ``{"commit": sha or None,
    "dirty": bool or None}``."""
    root = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(["git", "-C", os.fspath(root), "rev-parse", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        if sha.returncode != 0:
            return {"commit": None, "dirty": None}
        st = subprocess.run(["git", "-C", os.fspath(root), "status", "--porcelain",
                             "--untracked-files=no"], capture_output=True, text=True, timeout=10)
        return {"commit": sha.stdout.strip(), "dirty": bool(st.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def values_to_columns(worlds: np.ndarray, total: np.ndarray, square: np.ndarray) -> tuple:
    """Per candidate the mean result and its standard error (float64 arrays) from its
    worlds ``n``, the sum of its results and of their squares: ``mean = total / n`` and
    ``se = sqrt(var / n)`` with the sample variance ``(square - n mean**2) / (n - 1)``
    (NaN when ``n < 2``)."""
    n = worlds.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        var = np.maximum(square - n * mean * mean, 0.0) / (n - 1)
        se = np.sqrt(var / n)
    se[worlds < 2] = np.nan
    return mean, se


def _list(counts: np.ndarray, values: np.ndarray, typ) -> pa.ListArray:
    offsets = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    if offsets[-1] >= 2 ** 31:
        raise ValueError("label shard too large: use a smaller shard_size")
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(values, typ))


def hands_to_table(hands: list, parts: list) -> pa.Table:
    """The :data:`LABEL_SCHEMA` table of labelled hands: ``hands`` their indices, ``parts``
    the :func:`kernels.search.label.label_hand` outputs, in the same order."""
    K = _kernels()
    if not parts:
        return LABEL_SCHEMA.empty_table()
    rows = np.concatenate([p[0] for p in parts]).reshape(-1, K.N_ROW)
    hand = np.concatenate([np.full(p[0].shape[0], h, np.int64) for h, p in zip(hands, parts)])
    cand, worlds, total, square, oi, ov = (np.concatenate([p[k] for p in parts])
                                           for k in range(1, 7))
    mean, se = values_to_columns(worlds, total, square)
    nc, nz = rows[:, K.R_CANDIDATES], rows[:, K.R_NONZERO]
    cols = [pa.array(hand, pa.int64()), pa.array(rows[:, K.R_TURN].astype(np.int16)),
            pa.array(rows[:, K.R_SEAT].astype(np.int8)),
            pa.array(rows[:, K.R_PHASE].astype(np.int8)),
            _list(nz, oi.astype(np.int16), pa.int16()), _list(nz, ov, pa.float32()),
            _list(nc, cand.astype(np.int16), pa.int16()),
            _list(nc, mean.astype(np.float32), pa.float32()),
            _list(nc, se.astype(np.float32), pa.float32()),
            _list(nc, worlds.astype(np.int16), pa.int16()),
            pa.array(rows[:, K.R_CHOSEN].astype(np.int16))]
    return pa.Table.from_arrays(cols, schema=LABEL_SCHEMA)


def label_hands(seed: int, hands, rules_vec: np.ndarray, params: np.ndarray,
                on_hand: Callable[[int], None] | None = None, offset: int = LABEL_HAND_OFFSET,
                ) -> tuple[np.ndarray, pa.Table]:
    """Label the hands ``hands`` (increasing indices) of label seed ``seed``: their records
    (``int32[len(hands), N_REC]``) and the :data:`LABEL_SCHEMA` table of their rows.

    Hand ``i`` is the deal ``offset + i`` of ``seed`` (``offset`` 0 labels ``simulate``'s
    hands: for tests).  The hands run on ``numba.get_num_threads()`` threads, a hand per
    task (a work buffer per thread); ``on_hand(1)`` after each (in this thread).  Ctrl-C: the
    hands not started are cancelled, the running ones finish, the exception propagates.
    """
    import threading

    import numba
    K = _kernels()
    hands = [int(h) for h in hands]
    kinds = np.full(4, L.POLICY_HEURISTIC, np.int64)    # read by nothing: see label_hand
    rec = np.zeros((len(hands), L.N_REC), np.int32)
    parts: list = [None] * len(hands)
    local = threading.local()

    def one(j: int) -> int:
        work = getattr(local, "work", None)
        if work is None:
            work = local.work = K.new_work()
        parts[j] = K.label_hand(np.uint64(seed), np.int64(offset + hands[j]), rules_vec, kinds,
                                params, work, rec[j])
        return j

    threads = min(numba.get_num_threads(), max(1, len(hands)))
    if threads <= 1:
        for j in range(len(hands)):
            one(j)
            if on_hand is not None:
                on_hand(1)
    else:
        pool = ThreadPoolExecutor(threads, thread_name_prefix="burraco-label")
        try:
            for f in as_completed([pool.submit(one, j) for j in range(len(hands))]):
                f.result()
                if on_hand is not None:
                    on_hand(1)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return rec, hands_to_table(hands, parts)


@dataclass(frozen=True, eq=False)
class LabelWork(HandWork):
    """How to label, store and read back a shard of a label run (sent to Dask workers): the
    rows of hands ``a .. b-1`` in ``DIR/labels/``, one file."""

    manifest_extra: dict = dataclasses.field(default_factory=dict)
    kind = "labels"
    unit = "hand"
    kernel = "label_hand"

    def run(self, a: int, b: int, on_progress=None) -> tuple:
        """``(records, table)`` of the shard; ``on_progress(1)`` after each hand."""
        return label_hands(self.seed, range(a, b), self.rules.to_vector(), self.params,
                           on_progress)

    def tables(self, a: int, records: np.ndarray, block: pa.Table) -> list:
        return [block]

    def read(self, files: list, a: int, b: int) -> tuple | None:
        """``(records, table, [table])`` of a complete shard of this run on disk (no
        records: a label shard does not keep them), or None."""
        return rundir.read_hand_table_shard(files, a, b, LABEL_SCHEMA, self.run_id)


@dataclass
class LabelSummary:
    """What :func:`label_run` returns.

    Attributes
    ----------
    hands, rows : int
        Hands of the run and decisions labelled (rows), resumed shards included.
    new_hands, new_rows : int
        Those labelled by this call.
    seconds : float
        Wall time of the shards labelled by this call (s; the compile before them left out).
    table : pyarrow.Table or None
        Every row, in hand order (``return_table``), else None.
    out : str or None
        The run directory.
    """

    hands: int
    rows: int
    new_hands: int
    new_rows: int
    seconds: float
    table: pa.Table | None
    out: str | None

    @property
    def rows_per_second(self) -> float:
        """Decisions labelled per second by this call."""
        return self.new_rows / self.seconds if self.seconds > 0 else float("nan")

    def text(self) -> str:
        """A line for the end of ``burraco label``."""
        where = f" in {self.out}" if self.out else ""
        if not self.new_hands:
            return f"{self.rows:,} decisions of {self.hands:,} hands labelled{where} (nothing new)"
        return (f"{self.rows:,} decisions of {self.hands:,} hands labelled{where}; this run: "
                f"{self.new_rows:,} decisions of {self.new_hands:,} hands in "
                f"{self.seconds:,.1f} s ({self.rows_per_second:,.1f} decisions/s, "
                f"{self.new_hands / self.seconds:,.2f} hands/s)")


def label_run(hands: int, seed: int, teacher: str = DEFAULT_TEACHER, rules=None,
              out: str | os.PathLike | None = None, shard_size: int | None = None,
              threads: int | None = None, progress: bool | str = False,
              overwrite: bool = False, return_table: bool | None = None,
              callback: Callable[[ShardDone], None] | None = None, executor: str = "local",
              scheduler: str | None = None, workers: int | None = None) -> LabelSummary:
    """Label hands ``0 .. hands-1`` of label seed ``seed`` with the search ``teacher`` on every
    seat: one row per searched decision (:data:`LABEL_SCHEMA`).

    Parameters
    ----------
    hands : int
        Number of hands, 1 .. 10**12 - 1; more than the run in ``out`` holds extends it.
    seed : int
        Label seed, ``0 <= seed < 2**64``: hand ``i`` is the deal ``2**62 + i`` of ``seed``,
        which no evaluation run deals (:data:`LABEL_SEED_RULE`).
    teacher : str
        A ``rollout`` spec (default :data:`DEFAULT_TEACHER`); the manifest records it with
        every parameter.
    rules, shard_size, threads, progress, overwrite, callback, executor, scheduler, workers
        As for :func:`sim.batch.runner.simulate` (``shard_size`` default 100 hands; ``progress``
        labelled ``label``; the Dask executor compiles the label kernel in each worker).
    out : str or os.PathLike, optional
        Run directory: ``out/labels/shard-*.parquet`` and ``out/_manifest.json``.  The same
        teacher, rules and seed resume it (a different one is refused: ``ValueError``, one
        line); a second writer is refused (:class:`sim._util.lock.LockedError`).
    return_table : bool, optional
        Keep every row in the result (default: only without ``out``).

    Returns
    -------
    LabelSummary
    """
    hands = int(hands)
    if not 1 <= hands <= MAX_HANDS:
        raise ValueError(f"hands must be 1..{MAX_HANDS}, got {hands}")
    full, vec = full_spec(teacher)
    o = _options(seed, full, rules, threads, progress if progress is not True else "label",
                 False, overwrite, False, callback, out, "local", None, workers)
    if scheduler is not None or executor != "local":
        if scheduler is not None:
            executor = "dask"
        if executor != "dask":
            raise ValueError(f"executor must be 'local' or 'dask', got {executor!r}")
        o = dataclasses.replace(o, executor="dask", scheduler=scheduler,
                                threads=1 if threads is None else o.threads)
    if return_table is None:
        return_table = out is None
    o = dataclasses.replace(o, return_frame=bool(return_table))
    names = [full if n is not None else None for n in o.names]
    params = np.tile(vec, (4, 1))
    config = {"hands": hands, "seed": o.seed, "strategies": names, "teacher": full,
              "rules": o.rules.to_dict(), "shard_size": shard_size,
              "label_seed": {"rule": LABEL_SEED_RULE, "hand_offset": LABEL_HAND_OFFSET},
              "labels_schema": LABELS_SCHEMA_VERSION}
    extra = {"teacher": full, "label_seed": config["label_seed"],
             "labels_schema": LABELS_SCHEMA_VERSION, "git": git_commit()}
    work = LabelWork(o.seed, o.rules, np.full(4, L.POLICY_HEURISTIC, np.int64), params, False,
                     "", tuple(names), extra)
    counts = {"hands": 0, "rows": 0, "new_hands": 0, "new_rows": 0, "seconds": 0.0}
    user = o.callback

    def count(shard: ShardDone) -> None:
        n = shard.matches.num_rows if shard.matches is not None else 0
        counts["hands"] += shard.stop - shard.start
        counts["rows"] += n
        if not shard.resumed:
            counts["new_hands"] += shard.stop - shard.start
            counts["new_rows"] += n
            counts["seconds"] += shard.seconds
        if user is not None:
            user(shard)

    o = dataclasses.replace(o, callback=count)
    tables = _run(work, hands, config, o)
    table = None
    if tables is not None:
        parts = [tables[a][0] for a in sorted(tables)]
        table = pa.concat_tables(parts) if parts else LABEL_SCHEMA.empty_table()
    return LabelSummary(counts["hands"], counts["rows"], counts["new_hands"], counts["new_rows"],
                        counts["seconds"], table, os.fspath(out) if out is not None else None)


def label_manifest(out: str | os.PathLike) -> dict | None:
    """The manifest of the label run in ``out`` to resume: None when ``out`` holds no manifest
    or another kind of run (the run then refuses it); ``ValueError`` (one line) for a damaged
    one."""
    if not os.path.isfile(os.path.join(out, rundir.MANIFEST)):
        return None
    manifest = rundir.read_manifest(out, "out")
    return manifest if manifest["kind"] == "labels" else None


def hands_done(out: str | os.PathLike) -> int:
    """Hands of the label run in ``out`` in complete shards (0 when it cannot be told)."""
    try:
        m = rundir.read_manifest(out, "out")
    except ValueError:
        return 0
    listed = set(m.get("shards") or [])
    return sum(b - a for a, b in rundir.manifest_bounds(m) if rundir.shard_name(a, b) in listed)


def load_labels(run: str | os.PathLike) -> pa.Table:
    """Every row of the label run in ``run`` (its shards listed by the manifest, in hand
    order) as one table of :data:`LABEL_SCHEMA`."""
    manifest = rundir.read_manifest(run, "run")
    if manifest["kind"] != "labels":
        raise ValueError(f"run: {os.fspath(run)!r} holds a {manifest['kind']} run, not labels "
                         "(burraco label)")
    parts = []
    for a, b in rundir.manifest_bounds(manifest):
        f = rundir.shard_files(Path(run), "labels", manifest["format"], a, b)[0]
        if f.exists():
            parts.append(pq.read_table(f).replace_schema_metadata(None))
    return pa.concat_tables(parts) if parts else LABEL_SCHEMA.empty_table()
