"""Strength by error rate: the review of many hands of one strategy, as a resumable run
(``burraco review --strategy S --hands N --seed X --out DIR``, docs/review.md).

:func:`review_run` reviews hands ``0 .. N-1`` of run seed ``X`` played by the strategy ``S``
on every seat, with :func:`sim.analysis.review.review` (pickup and discard decisions of every
seat), and writes one row per decision (:data:`REVIEW_SCHEMA`: the review's
:data:`~sim.analysis.review.DECISION_COLUMNS` after a ``hand`` column) into ``DIR/reviews/``
Parquet shards of a run directory (:mod:`sim.batch.rundir`, kind ``reviews``).  The run is
driven by :func:`sim.batch.runner._run` as ``burraco label``'s is: the lock (one writer), the
manifest, resuming shard by shard (a shard ``[a, b)`` holds the rows of hands ``a .. b-1`` in
hand and decision order, written under a temporary name and renamed), the progress bar (one
step per hand), the local executor (the hands of a shard one after the other, each decision's
rollouts on ``threads`` Numba threads) and the Dask executor (one task per shard).

**Seeds.**  Hand ``h`` is reviewed with the analysis seed :func:`hand_seed` ``(A, h)`` of the
run's analysis seed ``A``, so each row is reproduced alone by ``sim.review(seed=X,
hand_index=h, strategies=S, rollouts=..., analysis_seed=hand_seed(A, h))`` (and that hand's
row by ``sim.analyze_decision(..., analysis_seed=row.analysis_seed)``); the rows do not
depend on the shard size, the threads or the executor.

**The strength** (:func:`strength`): over the ``H`` hands (a hand with no rated decision counts
as a loss of 0), the mean loss **per hand** ``mean_h(L_h)``, ``L_h`` the sum of the losses of
hand ``h``'s rated decisions, with the interval ``+- 1.96 sd(L_h) / sqrt(H)``; and the mean
loss **per decision** ``R = sum_h L_h / sum_h n_h`` (``n_h`` the rated decisions of hand
``h``), a ratio whose interval is the **delta method** over hands (the decisions of a hand are
not independent, the hands are): ``se(R) = sqrt(sum_h (L_h - R n_h)**2 / (H (H - 1))) /
mean_h(n_h)``, ``R +- 1.96 se(R)`` (the lower ends of both clipped at 0, as losses are). The
intervals are of the strategy's mean over hands like these (the hands' own sampling), not of
the rollouts' noise alone. The loss is the cross-fitted estimate of :mod:`sim.analysis.review`,
clipped at 0: the rollouts' noise adds a few points per decision at 200 worlds (docs/review.md).
The same figures of the unclipped cross-fitted differences (the column ``difference``: a signed
margin against the best other candidate, not an estimate of the loss) have no clipping noise;
their intervals are not clipped.
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from kernels.core import layout as L

from sim._util.stats import Z95
from sim.core.cards import check_int
from sim.analysis.review import DECISION_COLUMNS, review
from sim.analysis.rollouts import _policy
from sim.batch import rundir
from sim.batch.executors import HandWork
from sim.batch.runner import MAX_HANDS, _options, _run
from sim.batch.summary import ShardDone

__all__ = ["DEFAULT_ROLLOUTS", "REVIEW_SCHEMA", "ReviewRunSummary", "hand_seed",
           "load_reviews", "review_run", "strength"]

#: Sampled worlds per decision of a review run (a single hand's review: 1000).  At 200 worlds
#: a decision's loss has a standard error of a few points; the strength's interval over many
#: hands is dominated by the hands' own spread (docs/review.md).
DEFAULT_ROLLOUTS = 200
#: Version of :data:`REVIEW_SCHEMA` (the manifest's ``reviews_schema``).
REVIEWS_SCHEMA_VERSION = 2

_TYPES = {"int64": pa.int64(), "bool": pa.bool_(), "float64": pa.float64(),
          "uint64": pa.uint64()}
_KINDS = {"decision": "int64", "ply": "int64", "event": "int64", "turn": "int64",
          "seat": "int64", "team": "int64", "legal": "int64", "forced": "bool",
          "chosen": "int64", "best": "int64", "loss": "float64", "loss_low": "float64",
          "loss_high": "float64", "loss_se": "float64", "difference": "float64",
          "p_best": "float64", "worlds": "int64", "analysis_seed": "uint64",
          "z_interval": "float64"}
#: One row per decision of the reviewed hands (docs/review.md): ``hand``, then the columns of
#: :data:`sim.analysis.review.DECISION_COLUMNS` (strings for the others).
REVIEW_SCHEMA = pa.schema([pa.field("hand", pa.int64())] + [
    pa.field(c, _TYPES[_KINDS[c]] if c in _KINDS else pa.string()) for c in DECISION_COLUMNS])


def hand_seed(analysis_seed: int, hand: int) -> int:
    """The analysis seed with which hand ``hand`` of a review run seeded ``analysis_seed``
    is reviewed: ``numpy.random.SeedSequence([analysis_seed, 2**32, hand])`` (0 ..
    2**64-1; the middle word keeps it apart from :func:`sim.analysis.review.decision_seed`)."""
    words = np.random.SeedSequence([int(analysis_seed), 2 ** 32, int(hand)]).generate_state(
        2, np.uint32)
    return int(words[0]) << 32 | int(words[1])


def _table(hands: list, frames: list) -> pa.Table:
    parts = []
    for h, df in zip(hands, frames):
        d = df[list(DECISION_COLUMNS)].copy()
        d.insert(0, "hand", np.int64(h))
        parts.append(d)
    if not parts:
        return REVIEW_SCHEMA.empty_table()
    frame = pd.concat(parts, ignore_index=True)
    return pa.Table.from_pandas(frame, schema=REVIEW_SCHEMA, preserve_index=False)


@dataclass(frozen=True, eq=False)
class ReviewWork(HandWork):
    """How to review, store and read back a shard of a review run (sent to Dask workers):
    the rows of hands ``a .. b-1`` in ``DIR/reviews/``, one file."""

    spec: str = ""
    options: dict = dataclasses.field(default_factory=dict)
    analysis_seed: int = 0
    source: str | None = None          # a simulate run directory whose hands are reviewed
    manifest_extra: dict = dataclasses.field(default_factory=dict)
    kind = "reviews"
    unit = "hand"
    kernel = "step"                    # the Game's kernels (the rollouts compile on first use)

    def run(self, a: int, b: int, on_progress=None) -> tuple:
        """``(records, table)`` of the shard (no records); ``on_progress(1)`` after each hand."""
        import numba                   # the runner (or the Dask task) has set the threads
        hands, frames = list(range(a, b)), []
        for h in hands:
            where = ({"run": self.source} if self.source is not None else
                     {"seed": self.seed, "strategies": self.spec, "rules": self.rules})
            r = review(hand_index=h, **where, analysis_seed=hand_seed(self.analysis_seed, h),
                       threads=numba.get_num_threads(), **self.options)
            frames.append(r.decisions)
            if on_progress is not None:
                on_progress(1)
        return np.zeros((0, L.N_REC), np.int32), _table(hands, frames)

    def tables(self, a: int, records: np.ndarray, block: pa.Table) -> list:
        return [block]

    def read(self, files: list, a: int, b: int) -> tuple | None:
        """``(records, table, [table])`` of a complete shard on disk, or None."""
        return rundir.read_hand_table_shard(files, a, b, REVIEW_SCHEMA, self.run_id)


def _ratio(rows: pd.DataFrame, column: str, H: int) -> tuple:
    """Per hand (mean of the hands' sums, normal interval over hands) and per decision
    (the ratio of sums, delta-method interval over hands) of ``column``:
    ``(per_hand, half_h, per_decision, half_d, decisions)``."""
    idx = pd.RangeIndex(H)
    lh = rows.groupby("hand")[column].sum().reindex(idx, fill_value=0.0).to_numpy(float)
    nh = rows.groupby("hand")[column].count().reindex(idx, fill_value=0).to_numpy(float)
    per_hand = float(lh.mean())
    half_h = float(Z95) * float(lh.std(ddof=1)) / math.sqrt(H) if H > 1 else math.nan
    n = float(nh.sum())
    if n > 0:
        ratio = float(lh.sum()) / n
        se = (math.sqrt(float(((lh - ratio * nh) ** 2).sum()) / (H * (H - 1))) / float(nh.mean())
              if H > 1 else math.nan)
    else:
        ratio = se = math.nan
    return per_hand, half_h, ratio, float(Z95) * se, int(n)


def strength(rows: pd.DataFrame, hands: int | None = None) -> dict:
    """A strategy's mean loss per hand and per decision, with 95% intervals (module
    docstring), from the rows of a review run.

    Parameters
    ----------
    rows : pandas.DataFrame
        The decisions (:data:`REVIEW_SCHEMA`; the columns ``hand``, ``forced``, ``loss``,
        ``difference``).
    hands : int, optional
        The hands reviewed (default: ``hand.max() + 1``; a hand without a row counts 0).

    Returns
    -------
    dict
        ``hands``, ``decisions`` (rated); from the losses (each clipped at 0, as the
        review's marks use them): ``per_hand``, ``per_hand_low``, ``per_hand_high``,
        ``per_decision``, ``per_decision_low``, ``per_decision_high`` (points); from the
        unclipped cross-fitted differences (a signed margin: a decision whose chosen action
        is the best counts its lead below 0): ``difference_per_hand``,
        ``difference_per_hand_low``, ``difference_per_hand_high``,
        ``difference_per_decision``, ``difference_per_decision_low``,
        ``difference_per_decision_high`` (points); ``interval`` (how the intervals are made).

    Raises
    ------
    ValueError
        No hands.
    """
    rated = rows[~rows["forced"].astype(bool)]
    H = int(rows["hand"].max()) + 1 if hands is None else int(hands)
    if H < 1:
        raise ValueError("strength: no hands")
    per_hand, half_h, ratio, half_d, n = _ratio(rated, "loss", H)
    out = {"hands": H, "decisions": n, "per_hand": per_hand,
           "per_hand_low": max(0.0, per_hand - half_h), "per_hand_high": per_hand + half_h,
           "per_decision": ratio, "per_decision_low": max(0.0, ratio - half_d),
           "per_decision_high": ratio + half_d}
    per_hand, half_h, ratio, half_d, _ = _ratio(rated, "difference", H)
    out.update({"difference_per_hand": per_hand, "difference_per_hand_low": per_hand - half_h,
                "difference_per_hand_high": per_hand + half_h,
                "difference_per_decision": ratio,
                "difference_per_decision_low": ratio - half_d,
                "difference_per_decision_high": ratio + half_d,
                "interval": "per hand: normal over hands; per decision: delta method over hands"})
    return out


@dataclass
class ReviewRunSummary:
    """What :func:`review_run` returns.

    Attributes
    ----------
    strategy : str
        The strategy reviewed (on every seat).
    hands, rows, new_hands, new_rows : int
        Hands and decisions (rows) of the run, and those reviewed by this call.
    seconds : float
        Wall time of the shards reviewed by this call (s).
    strength : dict
        :func:`strength` of every row.
    by_strategy : dict
        Strategy spec -> :func:`strength` of the rows of its seats, when the seats play
        more than one strategy (a run's team against team), else empty.
    table : pandas.DataFrame or None
        Every row, in hand order (``return_table``), else None.
    out : str or None
        The run directory.
    """

    strategy: str
    hands: int
    rows: int
    new_hands: int
    new_rows: int
    seconds: float
    strength: dict
    table: pd.DataFrame | None
    out: str | None
    by_strategy: dict = dataclasses.field(default_factory=dict)

    def text(self) -> str:
        """The summary ``burraco review --hands`` prints at the end."""
        s = self.strength
        where = f" in {self.out}" if self.out else ""
        done = (f"this run: {self.new_hands:,} hands ({self.new_rows:,} decisions) in "
                f"{self.seconds:,.1f} s" if self.new_hands else "nothing new")
        lines = [f"{self.strategy}: {self.hands:,} hands reviewed{where}, {s['decisions']:,} "
                 f"decisions rated ({done})", *_strength_lines(s, "  ")]
        for name, part in self.by_strategy.items():
            lines += [f"  {name} ({part['decisions']:,} decisions rated):",
                      *_strength_lines(part, "    ")]
        return "\n".join(lines)


def _strength_lines(s: dict, indent: str) -> list:
    return [
        f"{indent}loss per hand     {s['per_hand']:7.2f} points (95% interval "
        f"{s['per_hand_low']:.2f} .. {s['per_hand_high']:.2f})",
        f"{indent}loss per decision {s['per_decision']:7.3f} points (95% interval "
        f"{s['per_decision_low']:.3f} .. {s['per_decision_high']:.3f}; delta method over "
        "hands)",
        f"{indent}signed            {s['difference_per_decision']:7.3f} points per decision "
        f"(95% interval {s['difference_per_decision_low']:.3f} .. "
        f"{s['difference_per_decision_high']:.3f}): the best other's result minus the "
        "chosen's, not clipped (below 0 where the chosen action leads)"]


def _source_run(run, hands: int, seed, strategy, rules) -> tuple:
    """``(seed, strategies, rules, run_id)`` of the ``simulate`` run in ``run``, checked
    (ValueError, one line): a run of hands ``0 .. M-1`` with ``M >= hands``."""
    where = os.fspath(run)
    for name, value in (("strategy", strategy), ("seed", seed), ("rules", rules)):
        if value is not None:
            raise ValueError(f"{name} is taken from the run in {where!r}; leave it out")
    manifest = rundir.read_manifest(run, "run")
    config = manifest["config"]
    if manifest["kind"] != "hands":
        raise ValueError(f"run: {where!r} holds a {manifest['kind']} run; a review run reviews "
                         "the hands of a simulate run")
    if config.get("selection"):
        raise ValueError(f"run: {where!r} holds selected hands (--where or hand_index); a "
                         "review run reviews hands 0..N-1 of a whole run")
    have = int(config["hands"])
    if hands > have:
        raise ValueError(f"hands: the run in {where!r} holds {have:,} hands, got {hands:,}")
    for a, b in rundir.manifest_bounds(manifest):
        if a < hands and not rundir.shard_files(Path(run), "hands", manifest["format"], a,
                                                b)[-1].exists():
            raise ValueError(f"run: the run in {where!r} has not written hands {a:,}..{b - 1:,} "
                             "yet; finish it (run its command again) or review fewer hands")
    return int(config["seed"]), list(config["strategies"]), config["rules"], manifest["run_id"]


def review_run(strategy: str | None, hands: int, seed: int | None,
               out: str | os.PathLike | None = None, *, run: str | os.PathLike | None = None,
               rules=None, rollouts: int = DEFAULT_ROLLOUTS, analysis_seed: int = 0,
               policy: str = "expert", until_separated: bool = False,
               max_rollouts: int = 20_000, batch: int = 1_000, margin: float = 0.0,
               seats=None, shard_size: int | None = None, threads: int | None = None,
               progress: bool | str = False, overwrite: bool = False,
               return_table: bool | None = None,
               callback: Callable[[ShardDone], None] | None = None, executor: str = "local",
               scheduler: str | None = None, workers: int | None = None) -> ReviewRunSummary:
    """Review hands ``0 .. hands-1`` of seed ``seed`` played by ``strategy`` on every seat:
    every pickup and discard rated (:func:`sim.review`), one row per decision, and the
    strategy's mean loss per hand and per decision (:func:`strength`).

    Parameters
    ----------
    strategy : str or None
        A strategy spec, played on every seat (a built-in or registered one: the rows are
        reproduced by ``sim.review(seed, h, strategy, ...)``); None with ``run``.
    hands : int
        Hands, 1 .. 10**12 - 1; more than the run in ``out`` holds extends it.
    seed : int or None
        The run seed of the hands (hand ``h`` is ``simulate``'s hand ``h`` of ``seed``);
        None with ``run``.
    out : str or os.PathLike, optional
        Run directory: ``out/reviews/shard-*.parquet`` and ``out/_manifest.json``.  The same
        settings resume it (different ones are refused: ``ValueError``, one line); a
        second writer is refused (:class:`sim._util.lock.LockedError`).
    run : str or os.PathLike, optional
        A ``simulate`` run directory: review its hands ``0 .. hands-1`` as its strategies
        played them (its seed, strategies and rules; ``strategy``, ``seed`` and ``rules``
        must be None).  Each hand is reviewed with ``sim.review(run=run, hand_index=h)``,
        which checks the hand played against the run's row; the review run records the
        run's id, and resuming needs the same run.
    rules : sim.Rules or dict, optional
    rollouts : int
        Sampled worlds per decision (default :data:`DEFAULT_ROLLOUTS`).
    analysis_seed : int
        Hand ``h`` is reviewed with :func:`hand_seed` ``(analysis_seed, h)``.
    policy, until_separated, max_rollouts, batch, margin
        As for :func:`sim.review`.
    seats : int or sequence of int, optional
        The seats whose decisions are rated (default: every seat).  Every seat plays
        ``strategy`` either way; rating one seat of many hands costs a quarter of rating
        four, and the per-hand figures are then of that seat's decisions.
    shard_size : int, optional
        Hands per shard (default 10 for a new run; a resumed run keeps its own).
    threads, progress, overwrite, callback, executor, scheduler, workers
        As for :func:`sim.batch.labels.label_run` (``progress`` labelled ``review``, one
        step per hand).
    return_table : bool, optional
        Keep every row in the result (default: only without ``out``).

    Returns
    -------
    ReviewRunSummary
    """
    hands = int(hands)
    if not 1 <= hands <= MAX_HANDS:
        raise ValueError(f"hands must be 1..{MAX_HANDS}, got {hands}")
    source = None
    if run is not None:
        seed, strategy, rules, source = _source_run(run, hands, seed, strategy, rules)
        if out is not None:
            a, b = Path(run).resolve(), Path(out).resolve()
            if a == b or a in b.parents or b in a.parents:
                how = "is" if a == b else "is inside" if a in b.parents else "holds"
                raise ValueError(f"out: {os.fspath(out)!r} {how} the run being reviewed "
                                 f"({os.fspath(run)!r}); write the review run to another "
                                 "directory")
    elif not isinstance(strategy, str):
        raise ValueError(f"strategy must be one strategy spec (str), played on every seat, got "
                         f"{strategy!r}")
    rollouts = check_int("rollouts", rollouts, 2, 10**7)
    analysis_seed = check_int("analysis_seed", analysis_seed, 0, 2**64 - 1)
    if shard_size is not None:
        shard_size = check_int("shard_size", shard_size, 1, MAX_HANDS)
    o = _options(seed, strategy, rules, threads, progress if progress is not True else "review",
                 False, overwrite, False, callback, out, "local", None, workers)
    if not isinstance(policy, str):
        raise ValueError(f"policy must be one strategy spec (str) for a review run, got "
                         f"{policy!r}")
    _policy(policy, o.rules)                       # refused here, before a directory is made
    max_rollouts = check_int("max_rollouts", max_rollouts, 2, 10**7)
    batch = check_int("batch", batch, 2, 10**7)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) \
            or not math.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number of points >= 0, got {margin!r}")
    if source is not None and any(p is not None for p in o.pythons):
        raise ValueError(f"run: the run in {os.fspath(run)!r} plays a Python strategy file; "
                         "a review run takes built-in or registered strategies")
    if any(p is not None for p in o.pythons):
        raise ValueError(f"strategy: {strategy!r} is a Python strategy file; a review run "
                         "takes a built-in or registered strategy")
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
    if seats is not None:
        n = o.rules.num_players
        given = [seats] if isinstance(seats, (int, np.integer)) else seats
        try:
            given = list(given)
        except TypeError:
            raise ValueError(f"seats must be seats of the hand, 0..{n - 1}, got {seats!r}") \
                from None
        bad = [x for x in given if isinstance(x, (bool, np.bool_))
               or not isinstance(x, (int, np.integer)) or not 0 <= x < n]
        if bad or not given:
            raise ValueError(f"seats must be seats of the hand, 0..{n - 1}, got "
                             f"{bad[0] if bad else seats!r}")
        seats = sorted({int(x) for x in given})
    options = {"rollouts": rollouts, "policy": policy, "until_separated": bool(until_separated),
               "max_rollouts": int(max_rollouts), "batch": int(batch), "margin": float(margin)}
    if seats is not None:
        options["seats"] = seats
    settings = dict(options, analysis_seed=analysis_seed,
                    seats="all" if seats is None else list(seats),
                    **({} if source is None else {"source_run": source}),
                    decisions="pickup and discard",
                    hand_seed="hand h: sim.analysis.review_run.hand_seed(analysis_seed, h)")
    config = {"hands": hands, "seed": o.seed, "strategies": list(o.names),
              "rules": o.rules.to_dict(), "shard_size": shard_size, "review": settings,
              "reviews_schema": REVIEWS_SCHEMA_VERSION}
    work = ReviewWork(o.seed, o.rules, o.kinds, o.params, False, "", tuple(o.names),
                      strategy, options, analysis_seed, None if run is None else os.fspath(run),
                      {"review": settings, "reviews_schema": REVIEWS_SCHEMA_VERSION})
    counts = {"hands": 0, "rows": 0, "new_hands": 0, "new_rows": 0, "seconds": 0.0}
    parts: dict = {}
    user = o.callback

    def count(shard: ShardDone) -> None:
        n = shard.matches.num_rows if shard.matches is not None else 0
        counts["hands"] += shard.stop - shard.start
        counts["rows"] += n
        parts[shard.start] = shard.matches
        if not shard.resumed:
            counts["new_hands"] += shard.stop - shard.start
            counts["new_rows"] += n
            counts["seconds"] += shard.seconds
        if user is not None:
            user(shard)

    o = dataclasses.replace(o, callback=count)
    _run(work, hands, config, o)
    blocks = [parts[a] for a in sorted(parts) if parts[a] is not None]
    table = (pa.concat_tables(blocks) if blocks else REVIEW_SCHEMA.empty_table()).to_pandas()
    rated_seats = range(len(o.names)) if seats is None else seats
    name = (strategy if isinstance(strategy, str) else
            ", ".join(dict.fromkeys(o.names[k] for k in rated_seats)))   # the rated seats
    played = list(dict.fromkeys(str(x) for x in table.sort_values("seat", kind="stable")[
        "strategy"]))                                  # in seat order
    by = ({p: strength(table[table["strategy"] == p], hands) for p in played}
          if len(played) > 1 else {})
    return ReviewRunSummary(name, counts["hands"], counts["rows"], counts["new_hands"],
                            counts["new_rows"], counts["seconds"], strength(table, hands),
                            table if return_table else None,
                            os.fspath(out) if out is not None else None, by)


def load_reviews(run: str | os.PathLike) -> pd.DataFrame:
    """Every row of the review run in ``run`` (its shards listed by the manifest, in hand
    order) as a DataFrame of :data:`REVIEW_SCHEMA`'s columns."""
    manifest = rundir.read_manifest(run, "run")
    if manifest["kind"] != "reviews":
        raise ValueError(f"run: {os.fspath(run)!r} holds a {manifest['kind']} run, not a review "
                         "run (burraco review --hands)")
    parts = []
    for a, b in rundir.manifest_bounds(manifest):
        f = rundir.shard_files(Path(run), "reviews", manifest["format"], a, b)[0]
        if f.exists():
            parts.append(pq.read_table(f).replace_schema_metadata(None))
    return (pa.concat_tables(parts) if parts else REVIEW_SCHEMA.empty_table()).to_pandas()
