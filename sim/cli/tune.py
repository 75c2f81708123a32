"""``burraco tune``: tune a heuristic-family strategy by CMA-ES, validated on unseen deals."""
from __future__ import annotations

import argparse
import os
import sys

from sim._util.text import plural
from sim.cli.common import _count, _rules, _rules_options, _stopped



def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``tune`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "tune", help="tune a heuristic-family strategy by CMA-ES, validated on unseen deals",
        description="Search the parameters of BASE (heuristic, expert or a tuned_* strategy) "
                    "with CMA-ES (pycma: the 'tune' extra) within their documented ranges. "
                    "Every candidate of a generation plays the same block of --hands-per-eval "
                    "deals against the reference (the previous generation's mean, or "
                    "--against), seats swapped as in 'burraco compare'; each generation plays a "
                    "fresh block, whose seed derives from --seed. The answer is the search's "
                    "final mean (not its luckiest point), written to DIR/strategy.toml for "
                    "--strategy-file, then validated on --validate-hands deals of a seed the "
                    "search never played, against --validate-against, with a 95% interval; "
                    "the report sets the gains seen during the search beside the validated "
                    "ones (the winner's curse). DIR/log holds every evaluated point (Parquet). "
                    "Running the same command again resumes an interrupted tuning; a "
                    "different tuning in DIR is refused, and so is a second process writing "
                    "DIR (docs/tune.md).")
    p.add_argument("base", metavar="BASE",
                   help="the starting strategy: heuristic, expert, tuned_* or one of them with "
                        "parameters (e.g. expert:set_bias=1); untuned parameters keep its values")
    p.add_argument("--hands-per-eval", type=_count, required=True, metavar="N",
                   help="deals per evaluation of one candidate, each played twice (at least 2; "
                        "e.g. 2000)")
    p.add_argument("--budget", type=_count, required=True, metavar="HANDS",
                   help="deals the search may play in all (e.g. 1e6): a generation costs "
                        "(popsize + 1) x N deals (the +1: the mean against "
                        "--validate-against); at least one generation")
    p.add_argument("--seed", type=int, required=True, metavar="S",
                   help="tuning seed: the blocks of deals, the validation deals and CMA-ES's "
                        "random numbers derive from it")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="directory for the log, the state, strategy.toml and result.json "
                        "(resumed by the same command; locked while the tuning runs)")
    p.add_argument("--params", metavar="A,B,C",
                   help="the parameters to tune, comma separated (default: all 17 of the "
                        "heuristic; see 'burraco strategies')")
    p.add_argument("--against", metavar="SPEC",
                   help="a fixed reference for the objective (default: the search's current "
                        "best, the mean of the previous generation)")
    p.add_argument("--popsize", type=int, metavar="P",
                   help="candidates per generation (default pycma's 4 + int(3 ln n): 12 for "
                        "17 parameters)")
    p.add_argument("--validate-hands", type=_count, default=20_000, metavar="N",
                   help="validation deals, each played twice (default 20000)")
    p.add_argument("--validate-against", default="expert", metavar="SPEC",
                   help="the strategy the gains are measured against (default expert)")
    _rules_options(p, paired=True)
    p.add_argument("--threads", type=int, metavar="T", help="Numba threads (default: all cores)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace another tuning in DIR instead of refusing it: its log, "
                        "_tune.json, strategy.toml and result.json are deleted; other files "
                        "are kept")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco tune``; the exit code."""
    from sim.experiments.tuning import play_command, tune

    done = []                            # generations whose log file is in --out
    try:
        result = tune(args.base, args.hands_per_eval, args.budget, args.seed, out=args.out,
                      rules=_rules(args), params=args.params, against=args.against,
                      popsize=args.popsize, validate_hands=args.validate_hands,
                      validate_against=args.validate_against, overwrite=args.overwrite,
                      threads=args.threads, progress=not args.quiet,
                      callback=lambda g: done.append(g.generations))
    except KeyboardInterrupt as exc:
        what, code = _stopped(exc)
        total = f" of {done[-1]}" if done else ""
        print(f"burraco: {what}; {plural(len(done), 'generation')}{total} kept in {args.out!r}; "
              "run the same command again to resume", file=sys.stderr)
        return code
    print(result.format())
    print(f"strategy file: {result.strategy_file} (play it: "
          f"{play_command(result.strategy_file, result.report['config']['rules'])}); log: "
          f"{os.path.join(args.out, 'log')} (pd.read_parquet); "
          f"report: {os.path.join(args.out, 'result.json')}")
    return 0
