"""``burraco sweep``: compare a grid of one or two strategy parameters with a reference."""
from __future__ import annotations

import argparse
import math
import os
import sys

from sim._util.text import plural
from sim.cli.common import _paired_options, _rules, _stopped



def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``sweep`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "sweep", help="compare a grid of one or two strategy parameters with a reference",
        description="For every point of the grid (all combinations of the --param values), "
                    "play strategy BASE with those values against the reference on hands "
                    "0..N-1 of seed S, seats swapped (as 'burraco compare'); every point sees "
                    "the same deals. Prints a table of each point against the reference and, "
                    "with --out, writes one Parquet file per point to DIR/points (parameter "
                    "values as columns, one row per deal) plus _summary.csv and _sweep.json. "
                    "Running the "
                    "same command again resumes an interrupted sweep (the points already in "
                    "DIR are read back); a different sweep in DIR is refused, and so is a DIR "
                    "another process is writing.")
    p.add_argument("base", metavar="BASE", help="strategy spec the grid modifies (e.g. heuristic)")
    p.add_argument("--param", action="append", required=True, metavar="NAME=V1,V2,...",
                   help="a parameter of BASE and its values; give it once or twice")
    _paired_options(p, "deals per grid point; each is played twice")
    p.add_argument("--reference", metavar="SPEC",
                   help="strategy every point plays against (default: BASE's strategy with its "
                        "default parameters)")
    p.add_argument("--out", metavar="DIR",
                   help="directory for the Parquet dataset and summary (resumed by the same "
                        "command; locked while the sweep runs)")
    p.add_argument("--overwrite", action="store_true",
                   help="delete the files of an earlier sweep in DIR (its point files, "
                        "_summary.csv and _sweep.json) instead of resuming or refusing it; "
                        "other files are kept")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco sweep``; the exit code."""
    from sim.experiments.sweeps import format_table, parse_grid, sweep

    grid = parse_grid(args.param)
    kept = set()                         # points whose file is in --out
    try:
        summary = sweep(args.base, grid, args.hands, args.seed, reference=args.reference,
                        rules=_rules(args), out=args.out, overwrite=args.overwrite,
                        threads=args.threads, progress=not args.quiet,
                        callback=lambda done: kept.add(done.index) if done.path else None)
    except KeyboardInterrupt as exc:
        what, code = _stopped(exc)
        if args.out is None:
            print(f"burraco: {what} (without --out nothing is kept)", file=sys.stderr)
        else:
            total = math.prod(len(v) for v in grid.values())
            print(f"burraco: {what}; {plural(len(kept), 'point')} of {total} kept in "
                  f"{args.out!r}; run the same command again to resume", file=sys.stderr)
        return code
    ref = args.reference or args.base.partition(":")[0]
    print(f"{args.base} with {', '.join(grid)} against {ref}: {plural(args.hands, 'deal')} per "
          f"point (each played twice, seats swapped), seed {args.seed}; differences in points per "
          "hand")
    print(format_table(summary, list(grid)))
    if args.out:
        points = os.path.join(args.out, "points")
        print(f"per-deal results: {points} (pd.read_parquet); summary: "
              f"{os.path.join(args.out, '_summary.csv')}")
    return 0
