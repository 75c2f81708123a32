"""``burraco compare``: paired comparison of two strategies on the same deals."""
from __future__ import annotations

import argparse
import json


from sim.cli.common import _json_value, _paired_options, _rules


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``compare`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "compare", help="paired comparison of two strategies on the same deals",
        description="Play hands 0..N-1 of seed S twice: strategy A as team 0 (seats 0, 2) "
                    "against B, then seats swapped. Both games of a deal have the same cards "
                    "(common random numbers), so the luck of the deal cancels out. Prints the "
                    "mean score difference A - B per hand with its 95% interval, the share of "
                    "games won, the mean scores and the variance reduction of this design over "
                    "independent deals.")
    p.add_argument("a", metavar="A", help="strategy spec of A (NAME or NAME:param=value,..., or "
                                          "a Python strategy FILE.py:CLASS or MODULE:CLASS)")
    p.add_argument("b", metavar="B", help="strategy spec of B")
    _paired_options(p, "number of deals; each is played twice (e.g. 200000 or 2e5)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: a readable summary (default); json: the summary row "
                        "(null where there is no value: the interval with one deal)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco compare``; the exit code."""
    from sim.experiments.comparison import compare, format_summary

    row = compare(args.a, args.b, args.hands, args.seed, rules=_rules(args),
                  threads=args.threads, progress=not args.quiet).iloc[0]
    if args.format == "json":
        print(json.dumps({k: _json_value(v) for k, v in row.items()}, indent=2,
                         allow_nan=False))
    else:
        print(format_summary(row))
    return 0
