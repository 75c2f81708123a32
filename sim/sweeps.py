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
summary table and ``_sweep.json`` the configuration.  Files are written under
a temporary name and renamed when complete.
"""
from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ._cards import check_int
from .comparison import compare_hands, paired_rules, summarize_pairs
from .strategies import get, resolve


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
          threads: int | None = None, progress: bool = False) -> pd.DataFrame:
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
        module docstring).  An existing non-empty directory is refused unless
        ``overwrite``.
    overwrite : bool
        Replace the files of an earlier sweep in ``out``.
    threads : int, optional
        Numba threads (default all).
    progress : bool
        Progress bars on stderr.

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
        seed or rules, or an output directory that is not empty.
    """
    strat = get(base.partition(":")[0].strip())
    resolve(base)
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
    resolve(reference)
    names = list(grid)
    points = [dict(zip(names, combo)) for combo in itertools.product(*grid.values())]
    if len(points) > 1000:
        raise ValueError(f"the grid has {len(points)} points; at most 1000")
    specs = [_point_spec(base, pt) for pt in points]
    for s in specs:
        resolve(s)                          # validates every value before any work
    if out is not None:
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise ValueError(f"out: {str(out)!r} is a file, not a directory")
        if out.exists() and any(out.iterdir()):
            foreign = sorted(f.name for f in out.iterdir()
                             if not f.name.startswith(("point-", "_summary.csv", "_sweep.json")))
            if foreign:
                raise ValueError(f"out: {str(out)!r} holds files that are not a sweep's (found "
                                 f"{foreign[0]!r}); use an empty or new directory")
            if not overwrite:
                raise ValueError(f"out: {str(out)!r} is not empty (use overwrite=True / "
                                 "--overwrite to replace an earlier sweep)")
            for f in out.iterdir():
                f.unlink()
        out.mkdir(parents=True, exist_ok=True)
        _write_text(out / "_sweep.json", json.dumps(
            {"base": base, "grid": grid, "hands": hands, "seed": seed, "reference": reference,
             "rules": rules.to_dict()}, indent=2))
    rows = []
    for k, (pt, spec) in enumerate(zip(points, specs)):
        per = compare_hands(spec, reference, hands, seed, rules, threads, progress)
        row = summarize_pairs(per)
        for name in reversed(names):
            row.insert(0, name, pt[name])
            per.insert(0, name, pt[name])
        rows.append(row)
        if out is not None:
            path = out / f"point-{k:03d}.parquet"
            tmp = path.with_suffix(".parquet.tmp")
            pq.write_table(pa.Table.from_pandas(per, preserve_index=False), tmp)
            os.replace(tmp, path)
    summary = pd.concat(rows, ignore_index=True)
    if out is not None:
        _write_text(out / "_summary.csv", summary.to_csv(index=False))
    return summary


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


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
