"""Parameter sweeps: a grid of one or two strategy parameters, every point compared
with a reference on the same deals.

Each grid point is the base strategy with the point's parameter values.  It
plays hands ``0 .. hands-1`` of ``seed`` against the reference with seats
swapped (:func:`sim.experiments.comparison.compare_hands`), so every point sees the same
deals and the differences between points are not deal luck.

Output directory (optional, :mod:`sim.batch.workdir`): one Parquet file per grid point,
``points/point-NNN.parquet``, with the parameter values as columns followed by the
per-deal columns of :func:`~sim.experiments.comparison.compare_hands` (``paired_diff``: no column is
named after a ``DataFrame`` attribute); ``points/`` reads as one dataset
(``pd.read_parquet(DIR + "/points")``).  ``_summary.csv`` holds the summary table and
``_sweep.json`` the configuration (with ``finished`` true once the sweep is complete).
A point file is written as the hidden ``points/.point-NNN.parquet.tmp`` and renamed when
complete, so the dataset never shows a half-written file.  Every point file carries its
sweep's identity in its Parquet key-value metadata (:data:`POINT_META_KEY`: the JSON of
``_sweep.json`` without ``finished``), from which :func:`repair_sweep` rebuilds a damaged
or missing ``_sweep.json``.

A sweep checks the directory before it creates anything and again under
:class:`sim._util.lock.DirectoryLock` (:func:`sim._util.lock.claim`: a refusal leaves it as it was).
Running the same sweep again (``_sweep.json`` equal in base, grid, hands, seed, reference
and rules) resumes it: the sound point files are read back, the others computed, and the
files end as those of an uninterrupted sweep; a complete sweep run again reads every point
back and writes nothing (no file is touched, so it works in a directory it may not write).
A different sweep is refused, or replaced with ``overwrite``; files the sweep did not
write beside it are kept and noted, a non-empty directory holding no sweep and a file in
``points/`` that is not a point file are refused, and only a sweep's own files are ever
deleted: a point file of another sweep (its metadata names another configuration, or, in
a file without that metadata, the parameter values, columns or deals are not those of its
point) is refused with or without ``overwrite``, while a damaged point file of this sweep
(unreadable, truncated, wrong rows) is computed again.  A sweep of format 1 (point files
beside ``_sweep.json``, the column ``diff``) is refused until :func:`repair_sweep` moves it.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim._util.lock import claim
from sim._util.text import resuming_line
from sim._version import __version__
from sim.core.cards import check_int
from sim.core.rules import Rules
from sim.experiments.comparison import compare_hands, paired_rules, summarize_pairs
from sim.batch.workdir import (Layout, complete, note_others, os_error, overwrite_hint, refuse_shape,
                              repair, scan, state_text, status_lines, write_tagged, write_text)
from sim.strategies import get, resolve, resolve_for
from sim.strategies.pystrategy import is_python_spec

SWEEP_JSON = "_sweep.json"
SUMMARY_CSV = "_summary.csv"
POINTS_DIR = "points"
#: 2: point files in ``points/``, per-deal column ``paired_diff``; 1: point files beside
#: ``_sweep.json``, the column ``diff`` (read by ``burraco summarize DIR --repair`` only).
SWEEP_FORMAT = 2
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
        directory is locked (:class:`sim._util.lock.DirectoryLock`) from before it
        is inspected until the sweep ends.
    overwrite : bool
        Delete the files of an earlier sweep in ``out`` (whatever its
        configuration) instead of resuming or refusing it.  Only the sweep's
        own files are deleted (other files are kept), and only after every check
        has passed (a point file of a sweep other than the one its
        ``_sweep.json`` names is refused).
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
        :data:`sim.experiments.comparison.SUMMARY_COLUMNS` (A = the point, B = the
        reference; ``mean_diff`` in points per hand).

    Raises
    ------
    ValueError
        Unknown strategy or parameter, an empty or too large grid, bad hands,
        seed or rules; an ``out`` that is a file, is not empty and holds no
        sweep, holds a file in ``points/`` that is not a point file or a point
        file of another sweep (refused with or without ``overwrite``), or holds a
        different sweep, a damaged or missing ``_sweep.json`` beside point files,
        or a sweep of the earlier layout (refused unless ``overwrite``); nothing
        in ``out`` is created or deleted then.
    sim.lock.LockedError
        Another process is writing ``out`` (a ``ValueError`` too).
    sim.batch.outdir.OutputError
        A file of ``out`` cannot be written (a ``ValueError``; the points
        completed so far are kept).
    KeyboardInterrupt
        Passed on; the points completed so far are kept and the same call
        resumes.
    """
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
            raise ValueError(f"grid: strategy {strat.name!r} has no parameter {name!r}; allowed: "
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
        resolve(s, rules)                   # validates every value before any work
    config = {"base": base, "grid": {k: list(v) for k, v in grid.items()}, "hands": hands,
              "seed": seed, "reference": reference, "rules": rules.to_dict()}
    if out is None:
        return _run_points(points, specs, names, config, rules, None, {}, threads, progress,
                           callback)
    out = Path(out)

    def check(d: Path) -> bool:
        return _check_out(d, config, overwrite, len(points)).writes_nothing

    with claim(out, check, os_error(LAYOUT)) as hold:
        plan = _check_out(out, config, overwrite, len(points))    # again, under the lock
        hold.keep()
        try:
            resumed = _open_out(out, plan, config, points, names, hands, progress)
        except OSError as exc:
            raise os_error(LAYOUT)(out, exc) from None
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
#: The sweep directory (sim.workdir): ``_sweep.json``, ``points/point-NNN.parquet``,
#: ``_summary.csv``; before ``points/`` (format 1) the point files were at the top.
LAYOUT = Layout(what="sweep", command="burraco sweep", state=SWEEP_JSON, data=POINTS_DIR,
                pattern=r"point-(\d{3})\.parquet", name="point-{:03d}.parquet",
                derived=(SUMMARY_CSV,), meta_key=POINT_META_KEY, unit="point",
                legacy_top=True)
_KEYS = ("base", "grid", "hands", "seed", "reference", "rules")

#: Per-deal columns of a point file after the parameter values (sim.comparison.compare_hands).
_DEAL_FIELDS = [pa.field("hand_index", pa.int64()), pa.field("a_score_t0", pa.int64()),
                pa.field("b_score_t1", pa.int64()), pa.field("b_score_t0", pa.int64()),
                pa.field("a_score_t1", pa.int64()), pa.field("paired_diff", pa.float64())]
#: The per-deal difference's name in point files of format 1 (``DataFrame.diff`` hid it).
_LEGACY_DIFF = "diff"


def _point_path(out: Path, k: int) -> Path:
    return out / POINTS_DIR / LAYOUT.name.format(k)


def _same(key: str, a, b) -> bool:
    # the grid in order and with its types (1 and 1.0 give different columns); the rest as JSON
    return json.dumps(a, sort_keys=key != "grid") == json.dumps(b, sort_keys=key != "grid")


@dataclass
class _Plan:
    resume: dict            # index -> point file to read back
    delete: list            # files to delete before writing
    found: object           # sim.workdir.Scan
    writes_nothing: bool    # a complete sweep run again (sim.workdir.complete)


def _check_out(out: Path, config: dict, overwrite: bool, n_points: int) -> _Plan:
    """Check ``out`` for this sweep and plan its writing; reads only (every refusal is here).

    Files the sweep did not write beside it are kept; a file in ``points/`` that is not a
    point file, a point file of another sweep, a different sweep (unless ``overwrite``),
    a damaged ``_sweep.json`` beside point files (unless ``overwrite``) and the layout of
    an earlier burraco-sim (unless ``overwrite``) are refused, each saying what leads on.
    """
    where = os.fspath(out)
    found = scan(out, LAYOUT, _KEYS)
    refuse_shape(out, LAYOUT, found, overwrite)
    state = found.state
    if state is not None and not overwrite:
        old = {k: state[k] for k in config}
        keys = [k for k in config if not _same(k, old[k], config[k])]
        old_version = state.get("versions", {}).get("burraco_sim", "unknown") \
            if isinstance(state.get("versions"), dict) else "unknown"
        if keys:
            raise ValueError(f"out: {where!r} holds a different sweep (differs in: "
                             f"{', '.join(keys)}); use another directory, or "
                             f"{overwrite_hint(found, LAYOUT)}")
        if old_version != __version__:
            raise ValueError(f"out: {where!r} holds a sweep of burraco-sim {old_version} "
                             f"(this is {__version__}); use another directory, or "
                             f"{overwrite_hint(found, LAYOUT)}")
    # the sweep a point file must belong to: this one, or with overwrite the one replaced
    owner = (config, __version__) if not overwrite else _old_sweep(state)
    names = list(config["grid"]) if owner is None else list(owner[0]["grid"])
    if owner is not None:
        own_config, own_version = owner
        own_points = [dict(zip(names, c)) for c in itertools.product(*own_config["grid"].values())]
        for k, p in sorted({**found.legacy, **found.files}.items()):
            why = _foreign(p, own_points[k] if k < len(own_points) else None, names,
                           own_config, own_version)
            if why is None and k >= len(own_points):
                why = f"beyond the {len(own_points)} points of its grid"
            if why:
                raise ValueError(f"out: {os.fspath(p)!r} belongs to another sweep ({why}); "
                                 "move it out of the directory, then run the command again "
                                 "(nothing was changed)")
    delete = list(found.temps)
    resume = dict(found.files)
    if overwrite:                           # the sweep's own files, never the others
        delete += [*found.files.values(), *found.legacy.values()]
        delete += [out / n for n in (SWEEP_JSON, SUMMARY_CSV) if (out / n).is_file()]
        resume = {}
    done = not overwrite and complete(out, LAYOUT, found, _identity(config, n_points), n_points)
    return _Plan(resume, delete, found, done)


def _open_out(out: Path, plan: _Plan, config: dict, points: list, names: list, hands: int,
              progress: bool) -> dict:
    """Carry out ``plan`` in a locked ``out`` whose checks passed; write its
    ``_sweep.json`` (unfinished) unless every point is read back: a complete sweep run
    again writes nothing.  Returns ``{index: summary row}`` of the sound point files to
    resume."""
    where = os.fspath(out)
    note_others(out, LAYOUT, plan.found)
    for p in plan.delete:
        p.unlink(missing_ok=True)
    if not (out / POINTS_DIR).is_dir():
        (out / POINTS_DIR).mkdir()
    resumed = {}
    for k, p in sorted(plan.resume.items()):
        row = _read_point(p, points[k], names, hands, config)
        if row is None:
            print(f"sweep: {os.fspath(p)!r} is incomplete or corrupt: computing that point "
                  "again", file=sys.stderr, flush=True)
        else:
            resumed[k] = row
    if progress and resumed:
        print(resuming_line(len(resumed), len(points), "point", where), file=sys.stderr,
              flush=True)
    if len(resumed) < len(points):
        _write_meta(out, config, len(points), finished=False)
    return resumed


def _identity(config: dict, n_points: int) -> dict:
    """``_sweep.json`` without ``finished``: what a point file's metadata holds."""
    return {"format": SWEEP_FORMAT, **config, "points": n_points,
            "versions": {"burraco_sim": __version__}}


def _write_meta(out: Path, config: dict, n_points: int, finished: bool) -> None:
    write_text(out / SWEEP_JSON, state_text(_identity(config, n_points), finished))


def _old_sweep(meta):
    """``(config, version)`` of the sweep of a usable ``_sweep.json`` (parsed), else None."""
    try:
        config = {k: meta[k] for k in _KEYS}
        version = meta.get("versions", {}).get("burraco_sim", "unknown")
        if not isinstance(config["grid"], dict) or not all(
                isinstance(v, list) for v in config["grid"].values()):
            return None
        return config, version
    except (KeyError, TypeError, AttributeError):
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
        table = _current(pq.read_table(path))
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


def _current(table: pa.Table) -> pa.Table:
    """A point table with the per-deal difference under its current name (a file of
    format 1 calls it ``diff``)."""
    if _LEGACY_DIFF in table.column_names and "paired_diff" not in table.column_names:
        names = ["paired_diff" if n == _LEGACY_DIFF else n for n in table.column_names]
        table = table.rename_columns(names)
    return table


def _point_schema(point: dict, names: list) -> pa.Schema:
    return pa.schema([pa.field(n, pa.int64() if isinstance(point[n], int) else pa.float64())
                      for n in names] + _DEAL_FIELDS)


def _attrs(spec: str, config: dict) -> dict:
    rules = Rules.from_dict(config["rules"])
    return {"a": resolve(spec, rules)[0], "b": resolve(config["reference"], rules)[0],
            "seed": config["seed"],
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
                               os.fspath(_point_path(out, k)), True))
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
            path = _point_path(out, k)
            try:
                write_tagged(per, path, POINT_META_KEY, _identity(config, len(points)))
            except OSError as exc:
                raise os_error(LAYOUT, len(rows))(path, exc) from None
        rows[k] = row
        if callback is not None:
            callback(PointDone(k, dict(pt), row, os.fspath(path) if path else None, False))
    summary = pd.concat([rows[k] for k in range(len(points))], ignore_index=True)
    if out is not None:
        try:
            write_text(out / SUMMARY_CSV, summary.to_csv(index=False))
            _write_meta(out, config, len(points), finished=True)
        except OSError as exc:
            raise os_error(LAYOUT, len(rows))(out, exc) from None
    return summary


def _group(ident: dict) -> str:
    """Equal for the point files of one sweep (configuration, points, version)."""
    return json.dumps([{k: ident.get(k) for k in (*_KEYS, "points")},
                       (ident.get("versions") or {}).get("burraco_sim")], sort_keys=True)


def _convert(path: Path, ident: dict) -> pa.Table:
    return _current(pq.read_table(path))


def _finish(out: Path, ident: dict, numbers: list) -> bool:
    """After a repair: with every point file sound, write ``_summary.csv``; complete?"""
    config = {k: ident[k] for k in _KEYS}
    names = list(config["grid"])
    points = [dict(zip(names, c)) for c in itertools.product(*config["grid"].values())]
    if sorted(numbers) != list(range(len(points))):
        return False
    rows = [_read_point(_point_path(out, k), pt, names, config["hands"], config)
            for k, pt in enumerate(points)]
    if any(r is None for r in rows):
        return False
    write_text(out / SUMMARY_CSV, pd.concat(rows, ignore_index=True).to_csv(index=False))
    return True


def repair_sweep(out: str | os.PathLike):
    """Rebuild ``_sweep.json`` of a sweep directory from its point files (``burraco
    summarize DIR --repair``).

    Every point file carries its sweep's identity (:data:`POINT_META_KEY`); the state is
    rebuilt from it without computing a point again or deleting a file (the old
    ``_sweep.json`` is kept as ``_sweep.json.replaced-TIME``).  A sweep of the earlier
    layout (point files beside ``_sweep.json``, per-deal column ``diff``) is moved into
    ``points/`` with the column named ``paired_diff``.  With every point there,
    ``_summary.csv`` is written and the sweep is ``finished``; else the same ``burraco
    sweep`` command finishes it.

    Parameters
    ----------
    out : str or os.PathLike
        A sweep directory.

    Returns
    -------
    sim.workdir.Repaired

    Raises
    ------
    ValueError
        No point file naming its sweep, point files of several sweeps and no
        ``_sweep.json`` naming one, a file in the way (one line; nothing changed).
    sim.lock.LockedError
        Another process writes the directory.
    """
    return repair(out, LAYOUT, _group, _convert, _finish,
                  current=lambda i: {**i, "format": SWEEP_FORMAT})


def sweep_status(out: str | os.PathLike) -> tuple:
    """What ``burraco summarize`` prints for a sweep directory, and whether it is sound.

    Returns
    -------
    (str, bool)
        The lines (progress, problems and what leads on, other files; the summary table
        when the sweep is complete), and False when its ``_sweep.json`` is damaged or
        missing, it is in an earlier layout or holds a stray file.
    """
    out = Path(out)
    found = scan(out, LAYOUT, _KEYS)
    state = found.state
    total = state.get("points") if state else None
    lines = status_lines(out, LAYOUT, total, len(found.files))
    if state and state.get("finished") and (out / SUMMARY_CSV).is_file():
        with contextlib.suppress(Exception):
            lines.append(format_table(pd.read_csv(out / SUMMARY_CSV), list(state["grid"])))
    return "\n".join(lines), state is not None and not found.legacy and not found.stray


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
    for c in names:                       # parameter values as written: 8, not 8.0
        t[c] = t[c].map(lambda x: f"{x:g}" if isinstance(x, (int, float)) else x)
    t["a_win_share"] = t["a_win_share"].map(lambda x: f"{x:.1%}")
    t["a_mean_score"] = t["a_mean_score"].map(lambda x: f"{x:.1f}")
    t = t.rename(columns={"mean_diff": "diff vs ref", "ci95_low": "95% low",
                          "ci95_high": "95% high", "a_win_share": "games won",
                          "a_mean_score": "mean score"})
    text = t.to_string(index=False)
    if no_interval:
        text += "\n95% interval: none, it needs at least two deals per point"
    return text
