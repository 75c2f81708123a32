"""Parameter sweeps: a grid of one or two strategy parameters, every point compared
with a reference on the same deals (issue 5).

Each grid point is the base strategy with the point's parameter values.  It
plays hands ``0 .. hands-1`` of ``seed`` against the reference with seats
swapped (:func:`sim.comparison.compare_hands`), so every point sees the same
deals and the differences between points are not deal luck.

Output directory (optional): one Parquet file per grid point,
``point-NNN.parquet``, with the parameter values as columns followed by the
per-deal columns of :func:`~sim.comparison.compare_hands`; the directory
reads as one dataset (``pd.read_parquet(DIR)``).  ``_summary.csv`` holds the
summary table and ``_sweep.json`` the configuration (with ``finished`` true
once the sweep is complete).  A point file is written as the hidden
``.point-NNN.parquet.tmp`` and renamed when complete, so the dataset never
shows a half-written file; the text files' temporary names start with ``_``.
Every point file carries its sweep's identity in its Parquet key-value metadata
(:data:`POINT_META_KEY`: the JSON of ``_sweep.json`` without ``finished``).

A sweep takes :class:`sim.lock.DirectoryLock` on the directory before it looks
at it.  Running the same sweep again (``_sweep.json`` equal in base, grid,
hands, seed, reference and rules) resumes it: the sound point files are read
back, the others computed, and the files end as those of an uninterrupted
sweep.  A different sweep is refused, or replaced with ``overwrite``; a
directory holding files that are not a sweep's is always refused, and only a
sweep's own files are ever deleted: a point file of another sweep (its
metadata names another configuration, or, in a file without that metadata, the
parameter values, columns or deals are not those of its point) is refused
with or without ``overwrite``, while a damaged point file of this sweep
(unreadable, truncated, wrong rows) is computed again.
"""
from __future__ import annotations

import itertools
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ._cards import check_int
from ._version import __version__
from .comparison import compare_hands, paired_rules, summarize_pairs
from .lock import LOCK_NAME, locked_out_dir
from .rundir import OutputError
from .strategies import get, resolve, resolve_for

SWEEP_JSON = "_sweep.json"
SUMMARY_CSV = "_summary.csv"
SWEEP_FORMAT = 1
MAX_POINTS = 1000                   # point file names hold 3 digits
POINT_META_KEY = b"burraco_sweep"   # Parquet key-value metadata: the sweep of a point file


def parse_grid(items) -> dict:
    """``["name=v1,v2,...", ...]`` (one or two items) -> ``{name: [v1, v2, ...]}``.

    Raises
    ------
    ValueError
        Not ``name=values``, a value that is not a finite number, a repeated
        name, or more than two parameters.
    """
    grid = {}
    for item in items:
        name, eq, values = item.partition("=")
        name = name.strip()
        if not eq or not name or not values.strip():
            raise ValueError(f"--param: expected NAME=V1,V2,..., got {item!r}")
        if name in grid:
            raise ValueError(f"--param: {name!r} given twice")
        vals = []
        for v in values.split(","):
            try:
                x = float(v)
            except ValueError:
                x = float("nan")
            if x != x or x in (float("inf"), float("-inf")):
                raise ValueError(f"--param {name}: {v.strip()!r} is not a finite number")
            vals.append(x)
        grid[name] = vals
    if not 1 <= len(grid) <= 2:
        raise ValueError(f"a sweep varies one or two parameters, got {len(grid)}")
    return grid


def _point_spec(base: str, point: dict) -> str:
    name, _, rest = base.partition(":")
    items = [i for i in rest.split(",") if i.strip()] if rest.strip() else []
    keep = [i for i in items if i.partition("=")[0].strip() not in point]
    items = keep + [f"{k}={v!r}" for k, v in point.items()]
    return name + (":" + ",".join(items) if items else "")


def sweep(base: str, grid: dict, hands: int, seed: int, reference: str | None = None,
          rules=None, out: str | os.PathLike | None = None, overwrite: bool = False,
          threads: int | None = None, progress: bool = False,
          callback=None) -> pd.DataFrame:
    """Compare every point of a parameter grid with a reference on the same deals.

    Parameters
    ----------
    base : str
        Strategy spec the grid modifies (``"heuristic"``, ``"expert:set_bias=1"``).
    grid : dict
        ``{parameter: [values]}`` for one or two parameters of ``base``'s
        strategy (all combinations are played).
    hands : int
        Deals per grid point (each played twice, seats swapped).
    seed : int
        Run seed; the deals are hands ``0 .. hands-1``.
    reference : str, optional
        Strategy every point plays against (default: ``base``'s strategy
        with its default parameters).
    rules : Rules, str, dict or None
        Rule set or preset name.
    out : path, optional
        Directory for the per-deal Parquet dataset and the summary (see the
        module docstring).  A directory holding a sweep with the same
        ``base``, ``grid``, ``hands``, ``seed``, ``reference`` and ``rules``
        (its ``_sweep.json``) is resumed: its sound point files are read
        back, incomplete or corrupt ones (said on stderr) and missing ones
        are computed, and the result is that of an uninterrupted sweep.  The
        directory is locked (:class:`sim.lock.DirectoryLock`) from before it
        is inspected until the sweep ends.
    overwrite : bool
        Delete the files of an earlier sweep in ``out`` (whatever its
        configuration) instead of resuming or refusing it.  Only the sweep's
        own files are deleted, and only after every check has passed (a point
        file of a sweep other than the one its ``_sweep.json`` names is refused).
    threads : int, optional
        Numba threads (default all).
    progress : bool
        Progress bars on stderr, two per point, labelled with the point, its parameter
        values and the seating (``point 2/4 pile_threshold=1: A as team 0``, A the point).
    callback : callable, optional
        Called with a :class:`PointDone` for every point: first for each
        point read back from ``out``, then for each point as it is computed
        (after its file is in place).

    Returns
    -------
    pandas.DataFrame
        One row per grid point: the parameter values, then the columns of
        :data:`sim.comparison.SUMMARY_COLUMNS` (A = the point, B = the
        reference; ``mean_diff`` in points per hand).

    Raises
    ------
    ValueError
        Unknown strategy or parameter, an empty or too large grid, bad hands,
        seed or rules; an ``out`` that is a file, holds files that are not a
        sweep's (refused with or without ``overwrite``), or holds a different
        sweep, an unreadable ``_sweep.json`` or point files without one
        (refused unless ``overwrite``), or a point file of another sweep
        (refused with or without ``overwrite``); nothing in ``out`` is
        deleted then.
    sim.lock.LockedError
        Another process is writing ``out`` (a ``ValueError`` too).
    sim.rundir.OutputError
        A file of ``out`` cannot be written (a ``ValueError``; the points
        completed so far are kept).
    KeyboardInterrupt
        Passed on; the points completed so far are kept and the same call
        resumes.
    """
    from .pystrategy import is_python_spec
    if is_python_spec(base) or not isinstance(base, str):
        raise ValueError(f"base: {base!r} is a Python strategy, which has no parameters for a "
                         "sweep to vary; compare it with 'burraco compare' (sim.compare)")
    if is_python_spec(reference) or not isinstance(reference, (str, type(None))):
        raise ValueError(f"reference: {reference!r} is a Python strategy, and a sweep's "
                         "reference must be a built-in one: a sweep names its reference by its "
                         "spec in _sweep.json and in every point file, to resume and check them, "
                         "and a Python strategy's file may change under the same spec; play a "
                         f"point against it with 'burraco compare BASE:NAME=VALUE {reference}' "
                         "(sim.compare)")
    resolve_for("base", base)
    strat = get(base.partition(":")[0].strip())
    if not isinstance(grid, dict) or not 1 <= len(grid) <= 2:
        raise ValueError("grid must be a dict of one or two parameters -> lists of values")
    for name, values in grid.items():
        if name not in strat.params:
            raise ValueError(f"strategy {strat.name!r} has no parameter {name!r}; allowed: "
                             f"{', '.join(sorted(strat.params)) or 'none'}")
        if not isinstance(values, (list, tuple)) or not values:
            raise ValueError(f"grid[{name!r}] must be a non-empty list of numbers")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ValueError(f"grid[{name!r}]: {v!r} is not a number")
    hands = check_int("hands", hands, 1, 10**9)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    rules = paired_rules(rules, "sweep")
    reference = reference or strat.name
    resolve_for("reference", reference)
    if not isinstance(overwrite, bool):
        raise ValueError(f"overwrite must be True or False, got {overwrite!r}")
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be callable or None, got {callback!r}")
    names = list(grid)
    points = [dict(zip(names, combo)) for combo in itertools.product(*grid.values())]
    if len(points) > MAX_POINTS:
        raise ValueError(f"the grid has {len(points)} points; at most {MAX_POINTS}")
    specs = [_point_spec(base, pt) for pt in points]
    for s in specs:
        resolve(s)                          # validates every value before any work
    config = {"base": base, "grid": {k: list(v) for k, v in grid.items()}, "hands": hands,
              "seed": seed, "reference": reference, "rules": rules.to_dict()}
    if out is None:
        return _run_points(points, specs, names, config, rules, None, {}, threads, progress,
                           callback)
    out = Path(out)
    with locked_out_dir(out, _refuse_foreign, _os_error):
        try:
            resumed = _open_out(out, config, overwrite, points, names, hands, progress)
        except OSError as exc:
            raise _os_error(out, exc) from None
        return _run_points(points, specs, names, config, rules, out, resumed, threads,
                           progress, callback)


@dataclass(frozen=True)
class PointDone:
    """One grid point of a sweep, given to ``sweep``'s ``callback``.

    Attributes
    ----------
    index : int
        Position of the point in the grid (``NNN`` of ``point-NNN.parquet``).
    point : dict
        ``{parameter: value}`` of the point.
    summary : pandas.DataFrame
        The point's summary row (a row of ``sweep``'s result).
    path : str or None
        Its Parquet file, in place when the callback runs (None without ``out``).
    resumed : bool
        The point was read back from ``out``, not computed now.
    """
    index: int
    point: dict
    summary: pd.DataFrame
    path: str | None
    resumed: bool


# --------------------------------------------------------------- the output directory
#: Files a sweep writes in ``out`` (``NNN`` = 3 digits): the point files, the summary,
#: the configuration, their temporary names and the lock file.
_SWEEP_FILE = re.compile(r"point-\d{3}\.parquet|\.?point-\d{3}\.parquet\.tmp|"
                         r"_summary\.csv(\.tmp)?|_sweep\.json(\.tmp)?|" + re.escape(LOCK_NAME))
_POINT = re.compile(r"point-(\d{3})\.parquet")

#: Per-deal columns of a point file after the parameter values (sim.comparison.compare_hands).
_DEAL_FIELDS = [pa.field("hand_index", pa.int64()), pa.field("a_score_t0", pa.int64()),
                pa.field("b_score_t1", pa.int64()), pa.field("b_score_t0", pa.int64()),
                pa.field("a_score_t1", pa.int64()), pa.field("diff", pa.float64())]


def _is_sweep_file(p: Path) -> bool:
    return p.is_file() and not p.is_symlink() and _SWEEP_FILE.fullmatch(p.name) is not None


def _refuse_foreign(out: Path) -> None:
    """ValueError if ``out`` holds anything a sweep does not write."""
    foreign = sorted(p.name for p in out.iterdir() if not _is_sweep_file(p))
    if foreign:
        raise ValueError(f"out: {os.fspath(out)!r} holds files that are not a sweep's (found "
                         f"{foreign[0]!r}); use an empty or new directory")


def _same(key: str, a, b) -> bool:
    # the grid in order and with its types (1 and 1.0 give different columns); the rest as JSON
    return json.dumps(a, sort_keys=key != "grid") == json.dumps(b, sort_keys=key != "grid")


def _open_out(out: Path, config: dict, overwrite: bool, points: list, names: list,
              hands: int, progress: bool) -> dict:
    """Check (and with ``overwrite`` empty) a locked ``out``; write its ``_sweep.json``.

    Returns ``{index: summary row}`` of the sound point files to resume.  Every refusal
    comes before anything is deleted.
    """
    where = os.fspath(out)
    _refuse_foreign(out)                    # again, now that nobody else writes ``out``
    files = sorted(out.iterdir())
    point_files = {int(m.group(1)): p for p in files if (m := _POINT.fullmatch(p.name))}
    meta_path = out / SWEEP_JSON
    if not overwrite:
        if meta_path.exists():
            try:
                meta = json.loads(meta_path.read_text())
                old = {k: meta[k] for k in config}
                old_version = meta.get("versions", {}).get("burraco_sim", "unknown")
            except (ValueError, KeyError, TypeError, AttributeError):
                raise ValueError(f"out: {where!r} holds an unreadable {SWEEP_JSON}; use another "
                                 "directory or overwrite (--overwrite)") from None
            keys = [k for k in config if not _same(k, old[k], config[k])]
            if keys:
                raise ValueError(f"out: {where!r} holds a different sweep (differs in: "
                                 f"{', '.join(keys)}); use another directory or overwrite "
                                 "(--overwrite)")
            if old_version != __version__:
                raise ValueError(f"out: {where!r} holds a sweep of burraco-sim {old_version} "
                                 f"(this is {__version__}); use another directory or overwrite "
                                 "(--overwrite)")
            extra = sorted(k for k in point_files if k >= len(points))
            if extra:
                raise ValueError(f"out: {where!r} holds {point_files[extra[0]].name}, beyond "
                                 f"the {len(points)} points of this grid; use another directory "
                                 "or overwrite (--overwrite)")
        elif point_files or (out / SUMMARY_CSV).exists():
            found = min(point_files.values()).name if point_files else SUMMARY_CSV
            raise ValueError(f"out: {where!r} holds sweep files ({found}) but no {SWEEP_JSON}; "
                             "use another directory or overwrite (--overwrite)")
        owner = (config, __version__)
    else:
        owner = _old_sweep(meta_path)       # the sweep overwrite deletes (None: unknown)
        if owner is None and point_files:
            raise ValueError(f"out: {where!r} holds point files "
                             f"({min(point_files.values()).name}) but no readable "
                             f"{SWEEP_JSON}, so whose they are cannot be told; move them out "
                             "of the directory, then run the command again (nothing was "
                             "changed)")
    if owner is not None:                   # refuse a point file of another sweep
        own_config, own_version = owner
        own_names = list(own_config["grid"])
        own_points = [dict(zip(own_names, c))
                      for c in itertools.product(*own_config["grid"].values())]
        for k, p in sorted(point_files.items()):
            why = _foreign(p, own_points[k] if k < len(own_points) else None, own_names,
                           own_config, own_version)
            if why:
                raise ValueError(f"out: {os.fspath(p)!r} belongs to another sweep ({why}); "
                                 "move it out of the directory, then run the command again "
                                 "(nothing was changed)")
    # every check passed: delete what an earlier sweep left (all of it with overwrite)
    for p in files:
        if p.name != LOCK_NAME and (overwrite or p.name.endswith(".tmp")):
            p.unlink()
    if overwrite:
        point_files = {}
    resumed = {}
    for k, p in sorted(point_files.items()):
        row = _read_point(p, points[k], names, hands, config)
        if row is None:
            print(f"sweep: {os.fspath(p)!r} is incomplete or corrupt: computing that point "
                  "again", file=sys.stderr, flush=True)
        else:
            resumed[k] = row
    if progress and resumed:
        print(f"resuming: {len(resumed)} of {len(points)} points are in {where!r}",
              file=sys.stderr, flush=True)
    _write_meta(out, config, len(points), finished=False)
    return resumed


def _identity(config: dict, n_points: int) -> dict:
    """``_sweep.json`` without ``finished``: what a point file's metadata holds."""
    return {"format": SWEEP_FORMAT, **config, "points": n_points,
            "versions": {"burraco_sim": __version__}}


def _write_meta(out: Path, config: dict, n_points: int, finished: bool) -> None:
    _write_text(out / SWEEP_JSON, json.dumps(
        {**_identity(config, n_points), "finished": finished}, indent=2) + "\n")


def _old_sweep(meta_path: Path):
    """``(config, version)`` of the sweep in a readable ``_sweep.json``, else None."""
    try:
        meta = json.loads(meta_path.read_text())
        config = {k: meta[k] for k in ("base", "grid", "hands", "seed", "reference", "rules")}
        version = meta.get("versions", {}).get("burraco_sim", "unknown")
        if not isinstance(config["grid"], dict) or not all(
                isinstance(v, list) for v in config["grid"].values()):
            return None
        return config, version
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _foreign(path: Path, point: dict | None, names: list, config: dict,
             version: str) -> str | None:
    """Why the point file ``path`` belongs to another sweep than ``config`` (whose point
    it would be is ``point``, None if beyond its grid), or None: it is this sweep's, or
    too damaged to belong to anyone (unreadable Parquet), so computing it again is right.

    A file with :data:`POINT_META_KEY` is judged by it; one without (written before it
    existed) by its columns, parameter values and deals, as :func:`_read_point` does."""
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException):
        return None
    raw = (schema.metadata or {}).get(POINT_META_KEY)
    if raw is not None:
        try:
            meta = json.loads(raw)
            keys = [k for k in config if k not in meta or not _same(k, meta[k], config[k])]
            theirs = meta.get("versions", {}).get("burraco_sim", "unknown")
        except (ValueError, TypeError, AttributeError):
            return f"its {POINT_META_KEY.decode()} metadata is unreadable"
        if keys:
            return f"its metadata differs in: {', '.join(keys)}"
        if theirs != version:
            return f"written by burraco-sim {theirs}, this sweep by {version}"
        return None
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException):
        return None
    if point is None or table.schema.remove_metadata() != _point_schema(point, names):
        return "no sweep metadata, and its columns are not this sweep's"
    for n in names:
        if not (table.column(n).to_numpy() == point[n]).all():
            return f"no sweep metadata, and its {n} is not {point[n]!r}"
    hands = config["hands"]
    if table.num_rows != hands or \
            not np.array_equal(table.column("hand_index").to_numpy(), np.arange(hands)):
        return f"no sweep metadata, and its deals are not hands 0..{hands - 1}"
    return None


def _point_schema(point: dict, names: list) -> pa.Schema:
    return pa.schema([pa.field(n, pa.int64() if isinstance(point[n], int) else pa.float64())
                      for n in names] + _DEAL_FIELDS)


def _attrs(spec: str, config: dict) -> dict:
    return {"a": resolve(spec)[0], "b": resolve(config["reference"])[0], "seed": config["seed"],
            "rules": config["rules"]}


def _read_point(path: Path, point: dict, names: list, hands: int,
                config: dict) -> pd.DataFrame | None:
    """The summary row of a sound point file, or None if it is unreadable, has the wrong
    columns or number of rows, other parameter values or not the hands 0..hands-1."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException):
        return None
    if table.num_rows != hands or table.schema.remove_metadata() != _point_schema(point, names):
        return None
    if any(table.column(c).null_count for c in table.column_names):
        return None
    for n in names:
        if not (table.column(n).to_numpy() == point[n]).all():
            return None
    if not np.array_equal(table.column("hand_index").to_numpy(), np.arange(hands)):
        return None
    per = table.to_pandas()
    per.attrs.update(_attrs(_point_spec(config["base"], point), config))
    return _row(per, point, names)


def _row(per: pd.DataFrame, point: dict, names: list) -> pd.DataFrame:
    row = summarize_pairs(per)
    for n in reversed(names):
        row.insert(0, n, point[n])
    return row


def _run_points(points: list, specs: list, names: list, config: dict, rules, out: Path | None,
                resumed: dict, threads, progress: bool, callback) -> pd.DataFrame:
    """Compute the points not in ``resumed``, write their files; the summary table."""
    rows = dict(resumed)
    for k in sorted(resumed):
        if callback is not None:
            callback(PointDone(k, dict(points[k]), resumed[k],
                               os.fspath(out / f"point-{k:03d}.parquet"), True))
    for k, (pt, spec) in enumerate(zip(points, specs)):
        if k in rows:
            continue
        label = (f"point {k + 1}/{len(points)} "
                 + ", ".join(f"{n}={v:g}" for n, v in pt.items())) if progress else False
        per = compare_hands(spec, config["reference"], config["hands"], config["seed"], rules,
                            threads, label)
        row = _row(per, pt, names)
        for n in reversed(names):
            per.insert(0, n, pt[n])
        path = None
        if out is not None:
            path = out / f"point-{k:03d}.parquet"
            try:
                write_tagged(per, path, POINT_META_KEY, _identity(config, len(points)))
            except OSError as exc:
                raise _os_error(path, exc) from None
        rows[k] = row
        if callback is not None:
            callback(PointDone(k, dict(pt), row, os.fspath(path) if path else None, False))
    summary = pd.concat([rows[k] for k in range(len(points))], ignore_index=True)
    if out is not None:
        _write_text(out / SUMMARY_CSV, summary.to_csv(index=False))
        _write_meta(out, config, len(points), finished=True)
    return summary


def write_tagged(frame: pd.DataFrame, path: Path, key: bytes, identity: dict) -> None:
    """Write ``frame`` to ``path`` as Parquet with ``identity`` (as JSON) under the key-value
    metadata ``key``: as the hidden ``.NAME.tmp`` beside it (``pd.read_parquet`` of the
    directory never reads it), renamed when complete; the temporary file is removed on any
    failure (``OSError`` passed on)."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               key: json.dumps(identity).encode()})
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _os_error(path: Path, exc: OSError) -> OutputError:
    return OutputError(f"out: cannot write {os.fspath(path)!r}: {exc.strerror or exc}; the "
                       "completed points are kept: fix it and run the same command again")


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")    # _-prefixed: pd.read_parquet skips it
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _os_error(path, exc) from None


def format_table(summary: pd.DataFrame, names: list) -> str:
    """The summary as the text table ``burraco sweep`` prints.

    An interval that cannot be computed (one deal per point) is shown as
    ``-``, with a line under the table saying why.
    """
    cols = names + ["mean_diff", "ci95_low", "ci95_high", "a_win_share", "a_mean_score"]
    t = summary[cols].copy()
    no_interval = bool(summary[["ci95_low", "ci95_high"]].isna().to_numpy().any())
    for c in ("mean_diff", "ci95_low", "ci95_high"):
        t[c] = t[c].map(lambda x: "-" if pd.isna(x) else f"{x:+.1f}")
    t["a_win_share"] = t["a_win_share"].map(lambda x: f"{x:.1%}")
    t["a_mean_score"] = t["a_mean_score"].map(lambda x: f"{x:.1f}")
    t = t.rename(columns={"mean_diff": "diff vs ref", "ci95_low": "95% low",
                          "ci95_high": "95% high", "a_win_share": "games won",
                          "a_mean_score": "mean score"})
    text = t.to_string(index=False)
    if no_interval:
        text += "\n95% interval: none, it needs at least two deals per point"
    return text
