"""Read speed of a run directory: sim.load against the plain readers (issue 12).

Simulates a run once (kept in --dir, default /tmp/burraco-readers), then times,
after one warm-up read each, ``--repeats`` reads (median) of:

* ``sim.load(DIR)``: the checked reader (footer check of every shard, then pyarrow.dataset);
* ``pd.read_parquet(DIR/hands)``, ``pyarrow.dataset(...).to_table()``, DuckDB and Polars;
* the conversion ``sim.load`` used before issue 12 (``to_pylist`` per nullable column), as
  the baseline it is compared with.

Usage: ``python benchmarks/readers.py [--hands 1000000] [--repeats 5]``
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pds


def _old_table_to_frame(table: pa.Table) -> pd.DataFrame:
    """The frame conversion of ``sim.load`` before issue 12 (the baseline)."""
    df = table.to_pandas().reset_index(drop=True)
    nullable = {pa.int8(): "Int8", pa.int16(): "Int16", pa.int32(): "Int32",
                pa.bool_(): "boolean"}
    for field in table.schema:
        if field.nullable and field.type in nullable and field.name in df:
            df[field.name] = pd.array(table.column(field.name).to_pylist(),
                                      dtype=nullable[field.type])
    return df


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dir", default="/tmp/burraco-readers")
    args = ap.parse_args()

    import sim
    from sim import dataset
    out = Path(args.dir)
    if not (out / "_manifest.json").exists() or sim.check_run(out).hands_total != args.hands:
        sim.simulate(args.hands, 1, out=out, overwrite=out.exists(), return_frame=False)
    hands = out / "hands"
    readers = {
        "sim.load": lambda: sim.load(out),
        "pd.read_parquet": lambda: pd.read_parquet(hands),
        "pyarrow.dataset": lambda: pds.dataset(hands).to_table(),
        "before: pyarrow + per-column to_pylist": lambda: _old_table_to_frame(
            pds.dataset(hands, schema=dataset.SCHEMA).to_table()),
    }
    try:
        import duckdb
        readers["duckdb (to pandas)"] = lambda: duckdb.sql(
            f"SELECT * FROM '{hands}/*.parquet'").df()
    except ImportError:
        pass
    try:
        import polars as pl
        readers["polars"] = lambda: pl.read_parquet(f"{hands}/*.parquet")
    except ImportError:
        pass
    times = {}
    for name, read in readers.items():
        read()                                          # warm-up
        runs = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            read()
            runs.append(time.perf_counter() - t0)
        times[name] = statistics.median(runs)
    base = times["pd.read_parquet"]
    print(f"{args.hands:,} hands, {len(list(hands.glob('*.parquet')))} shards, median of "
          f"{args.repeats} after a warm-up")
    print(f"{'reader':<42} {'seconds':>8} {'x pd.read_parquet':>18}")
    for name, t in times.items():
        print(f"{name:<42} {t:>8.3f} {t / base:>18.2f}")


if __name__ == "__main__":
    main()
