"""Read speed of a run directory: sim.load against the plain readers.

Simulates a run once (kept in --dir, default /tmp/burraco-readers), then times,
after one warm-up read each, ``--repeats`` reads (median) of:

* ``sim.load(DIR)``: the checked reader (footer check of every shard, then pyarrow.dataset);
* ``pd.read_parquet(DIR/hands)``, ``pyarrow.dataset(...).to_table()``, DuckDB and Polars;
* the conversion an earlier ``sim.load`` used (``to_pylist`` per nullable column), as the
  baseline it is compared with.

Usage: ``python benchmarks/speed/readers.py [--hands N] [--quick] [--repeats N] [--dir DIR] [--out PATH]``
(``--quick``: 100,000 hands).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pds

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import emit, parser, warm_median  # noqa: E402


def _old_table_to_frame(table: pa.Table) -> pd.DataFrame:
    """The frame conversion of an earlier ``sim.load`` (the baseline)."""
    df = table.to_pandas().reset_index(drop=True)
    nullable = {pa.int8(): "Int8", pa.int16(): "Int16", pa.int32(): "Int32",
                pa.bool_(): "boolean"}
    for field in table.schema:
        if field.nullable and field.type in nullable and field.name in df:
            df[field.name] = pd.array(table.column(field.name).to_pylist(),
                                      dtype=nullable[field.type])
    return df


def main(argv=None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--hands", type=int, default=None,
                    help="hands of the run read back (default 1000000, 100000 with --quick)")
    ap.add_argument("--dir", default="/tmp/burraco-readers", help="where the run is kept")
    args = ap.parse_args(argv)
    args.hands = args.hands or (100_000 if args.quick else 1_000_000)
    args.repeats = args.repeats or (3 if args.quick else 5)

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
    times = {name: warm_median(read, args.repeats)[0] for name, read in readers.items()}
    base = times["pd.read_parquet"]
    lines = [f"{args.hands:,} hands, {len(list(hands.glob('*.parquet')))} shards, median of "
             f"{args.repeats} after a warm-up",
             f"{'reader':<42} {'seconds':>8} {'x pd.read_parquet':>18}"]
    lines += [f"{name:<42} {t:>8.3f} {t / base:>18.2f}" for name, t in times.items()]
    emit(lines, args.out)


if __name__ == "__main__":
    main()
