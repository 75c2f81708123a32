"""``burraco review``: rate every decision of one hand against the best action, by rollouts."""
from __future__ import annotations

import argparse
import os
import sys

from sim._util import outfile
from sim._util.text import not_a_directory, plural
from sim.cli.common import (_RUN_FIXED_OPTIONS, _count, _refuse_run_fixed, _rules, _rules_options,
                            _specs, _stopped, _team_options)
from sim.core.cards import check_int

#: the defaults of --doubtful and --blunder (sim.analysis.review.DOUBTFUL and BLUNDER, which
#: tests/analysis/test_review.py checks they equal; the command line does not import the
#: analysis before it runs)
DOUBTFUL, BLUNDER = 20.0, 60.0
#: the default of --rollouts with --hands (sim.analysis.review_run.DEFAULT_ROLLOUTS, checked
#: equal by tests/analysis/test_review_run.py)
RUN_ROLLOUTS = 200


def _seats(text: str) -> list:
    """argparse type of --seats: ``0,2`` -> ``[0, 2]``."""
    try:
        seats = [int(s) for s in text.replace(" ", "").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seats separated by commas, e.g. 0,2; got "
                                         f"{text!r}") from None
    return seats


def _points(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of points, got {text!r}") from None


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``review`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "review", help="rate every decision of one hand against the best action, by rollouts",
        description="Review one hand as a backgammon player reviews a match: hand I of the run "
                    "in DIR, or of --seed S with the run's --strategy and rule options (as "
                    "'burraco replay' takes them), played by its strategies. At every pickup "
                    "and discard of the chosen seats (and with --meld every meld-phase "
                    "decision) each legal action is rolled out on worlds sampled from that "
                    "seat's view, as 'burraco analyze' does. Each decision gets the chosen "
                    "action, the best one, the loss (the chosen action's mean result below the "
                    "best other action's, cross-fitted: the other picked on half the worlds, "
                    "measured on the other half; points) with its 95% interval, and a mark: ? "
                    "doubtful (loss >= --doubtful) or ?? blunder (loss >= --blunder), never when "
                    "the interval includes 0; then per seat and per team the decisions rated, "
                    "the points lost in all and per decision with 95% intervals, and the marks "
                    "(docs/review.md).")
    p.add_argument("run", nargs="?", metavar="DIR|FILE",
                   help="run directory of the hand (it fixes the seed, strategies, rules and "
                        "dealer; give --hand I, or --hands N for its first N hands), or a hand "
                        "file (.toml or .json: a hand as people played it, the deal and every "
                        "action, or one seat's record of what it saw, reviewed from its view; "
                        "docs/review.md); or give --seed S")
    p.add_argument("--hands", type=_count, metavar="N",
                   help="strength by error rate: review hands 0..N-1 of --seed S played by "
                        "--strategy SPEC on every seat (or of the simulate run in DIR, as its "
                        "strategies played them), written to the run directory --out DIR "
                        "(Parquet shards, resumable), and print the mean loss per hand and per "
                        "decision with 95%% intervals, per strategy when the seats play several "
                        "(docs/review.md)")
    p.add_argument("--hand", type=int, metavar="I",
                   help="hand index (0-based; a match run's hand_index column); with DIR or "
                        "--seed")
    p.add_argument("--seed", type=int, metavar="S",
                   help="without DIR: the run's seed (the worlds' seed is --analysis-seed)")
    p.add_argument("--dealer", type=int, metavar="D",
                   help="without DIR: dealer seat, as in a match hand (default: the deal's own)")
    p.add_argument("--strategy", action="append", metavar="SPEC",
                   help="without DIR: the run's strategy spec, once for all seats or 4 times "
                        "(default: heuristic); with DIR: FILE.py:CLASS, where a Python strategy "
                        "file of the run is now")
    _team_options(p)
    _rules_options(p)
    g = p.add_argument_group("what is reviewed, and how")
    g.add_argument("--seats", type=_seats, metavar="S,S",
                   help="the seats whose decisions are reviewed, e.g. 0,2 (default: every seat)")
    g.add_argument("--meld", action="store_true",
                   help="review the meld-phase decisions too (every meld, lay-off and end of "
                        "the meld phase; many more candidates and decisions)")
    g.add_argument("--rollouts", type=_count, metavar="N",
                   help="sampled worlds per decision, each rolled out once per candidate "
                        f"(default 1000; {RUN_ROLLOUTS} with --hands)")
    g.add_argument("--until-separated", action="store_true",
                   help="per decision, roll out --batch worlds at a time until the best "
                        "candidate is separated from every other (or within --margin), at most "
                        "--max-rollouts; --rollouts is then not used (docs/analyze.md)")
    g.add_argument("--max-rollouts", type=_count, default=20_000, metavar="N",
                   help="the cap of --until-separated (worlds per decision, default 20000)")
    g.add_argument("--batch", type=_count, default=1_000, metavar="N",
                   help="worlds between the looks of --until-separated (default 1000)")
    g.add_argument("--margin", type=float, default=0.0, metavar="POINTS",
                   help="--until-separated: a candidate within POINTS of the best needs no "
                        "separating (default 0)")
    g.add_argument("--policy", default="expert", metavar="SPEC",
                   help="rollout strategy of every seat (default expert)")
    g.add_argument("--analysis-seed", type=int, default=0, metavar="A",
                   help="the seed of the sampled worlds (default 0; each decision's worlds "
                        "come from it and the decision's place in the hand)")
    g.add_argument("--threads", type=int, metavar="T",
                   help="Numba threads (default: all cores); the review does not depend on it")
    g.add_argument("--doubtful", type=_points, default=DOUBTFUL, metavar="POINTS",
                   help=f"mark a loss of at least POINTS doubtful (default {DOUBTFUL:g})")
    g.add_argument("--blunder", type=_points, default=BLUNDER, metavar="POINTS",
                   help=f"mark a loss of at least POINTS a blunder (default {BLUNDER:g})")
    p.add_argument("--format", choices=("text", "json", "html"), default="text",
                   help="text: a table of the decisions and the summary (default); json: one "
                        "document (schema in docs/review.md); html: the hand viewer's page "
                        "(burraco replay --format html) with each rated decision's table beside "
                        "its step, the marks on the step slider and the summary, written to --out")
    p.add_argument("--out", metavar="FILE|DIR",
                   help="write the review to FILE instead of stdout (a temporary file beside it, "
                        "renamed: never half written; an existing FILE is refused unless "
                        "--overwrite); with --hands: the run directory DIR (DIR/reviews, "
                        "DIR/_manifest.json), resumed by the same command")
    p.add_argument("--overwrite", "--force", dest="overwrite", action="store_true",
                   help="with --out: replace an existing FILE (with --hands: the run in DIR)")
    r = p.add_argument_group("with --hands (a review run)")
    r.add_argument("--shard-size", type=_count, metavar="K",
                   help="hands per shard (default 10, or the run's when resuming)")
    r.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local: this process (default); dask: one task per shard on a Dask "
                        "cluster (a LocalCluster unless --scheduler); needs the 'cluster' extra")
    r.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler (implies --executor dask)")
    r.add_argument("--workers", type=int, metavar="W",
                   help="worker processes of the LocalCluster of --executor dask (default 2)")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true",
                     help="a progress bar on stderr, one step per decision (per hand with "
                          "--hands; the default)")
    bar.add_argument("--quiet", action="store_true",
                     help="no progress bar, no compile notice and no timing line on stderr")
    p.set_defaults(func=run)
    return p


def _settings(args: argparse.Namespace) -> dict:
    """The hand's settings: a hand file, the run directory, or --seed and the run's options."""
    if args.run is not None and os.path.isfile(args.run):
        for attr, option in [("hand", "--hand"), ("strategy", "--strategy"),
                             *_RUN_FIXED_OPTIONS]:
            if getattr(args, attr) not in (None, []):
                raise ValueError(f"{option}: the hand file {args.run!r} fixes the hand; leave "
                                 "it out")
        return {"seed": args.run, "hand_file": True}
    if args.run is not None and not os.path.isdir(args.run):
        if not os.path.exists(args.run) and args.run.lower().endswith((".toml", ".json")):
            raise ValueError(f"FILE: the hand file {args.run!r} does not exist")
        raise ValueError(not_a_directory("DIR", args.run))
    if args.hand is None:
        raise ValueError("--hand: give the hand to review (DIR --hand I, --seed S --hand I), "
                         "or review a hand file (burraco review FILE)")
    if args.run is not None:
        _refuse_run_fixed(args)
        return {"run": args.run, "python_files": args.strategy}
    if args.seed is None:
        raise ValueError("--hand needs a run directory or --seed: burraco review DIR --hand I, "
                         "or --seed S --hand I with the run's --strategy and rule options")
    return {"seed": args.seed, "strategies": _specs(args), "rules": _rules(args),
            "dealer": args.dealer}


def _run_many(args: argparse.Namespace) -> int:
    """``burraco review --strategy S --hands N --seed X --out DIR``: a review run."""
    if args.run is not None and os.path.isfile(args.run):
        raise ValueError(f"--hands: {args.run!r} is a hand file (one hand); a review run "
                         "reviews the hands of a run directory or of --seed S")
    if args.run is not None and not os.path.isdir(args.run):
        raise ValueError(not_a_directory("DIR", args.run))
    refused = [("hand", "--hand"), ("dealer", "--dealer"), ("team0", "--team0"),
               ("team1", "--team1"), ("strategy_file", "--strategy-file")]
    for attr, option in refused:
        if option is not None and getattr(args, attr, None) is not None:
            raise ValueError(f"{option} does not go with --hands (a review run rates every "
                             "seat's pickups and discards of hands 0..N-1 of --seed)")
    if args.meld:
        raise ValueError("--meld does not go with --hands (a review run rates pickups and "
                         "discards)")
    if args.format != "text":
        raise ValueError("--format does not go with --hands: the rows are Parquet shards in "
                         "--out DIR (docs/review.md)")
    if args.doubtful != DOUBTFUL or args.blunder != BLUNDER:
        raise ValueError("--doubtful and --blunder do not go with --hands: a review run stores "
                         "the default marks; recompute them from the losses")
    if args.out is None:
        raise ValueError("--hands needs --out DIR (the run directory of the review run)")
    if args.run is not None:
        _refuse_run_fixed(args)
        if args.strategy:
            raise ValueError(f"--strategy: the run in {args.run!r} fixes the strategies; leave "
                             "it out")
    elif args.seed is None:
        raise ValueError("--hands needs --seed S (the run seed of the hands) or a run "
                         "directory DIR")
    elif not args.strategy or len(args.strategy) != 1:
        raise ValueError("--hands needs one --strategy SPEC, played on every seat")
    from sim.analysis import review_run as RR

    check_int("analysis_seed", args.analysis_seed, 0, 2**64 - 1)
    shards = []
    try:
        s = RR.review_run(None if args.run else args.strategy[0], args.hands,
                          None if args.run else args.seed, args.out, run=args.run,
                          rules=None if args.run else _rules(args),
                          rollouts=RUN_ROLLOUTS if args.rollouts is None else args.rollouts,
                          analysis_seed=args.analysis_seed, policy=args.policy,
                          until_separated=args.until_separated, max_rollouts=args.max_rollouts,
                          batch=args.batch, margin=args.margin, seats=args.seats,
                          shard_size=args.shard_size,
                          threads=args.threads, progress=not args.quiet,
                          overwrite=args.overwrite, executor=args.executor,
                          scheduler=args.scheduler, workers=args.workers,
                          callback=lambda x: shards.append(x.stop - x.start))
    except KeyboardInterrupt as exc:
        what, code = _stopped(exc)
        print(f"burraco: {what}; {plural(sum(shards), 'hand')} in completed shards kept in "
              f"{args.out!r}; run the same command again to resume", file=sys.stderr)
        return code
    print(s.text())
    rows = os.path.join(args.out, "reviews")
    print(f"rows: {rows} (sim.analysis.review_run.load_reviews({args.out!r}), or "
          f"pd.read_parquet({rows!r}))")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``burraco review``; the exit code."""
    if args.hands is not None:
        return _run_many(args)
    for option in ("shard_size", "scheduler", "workers"):
        if getattr(args, option) is not None:
            raise ValueError(f"--{option.replace('_', '-')} goes with --hands (a review run)")
    if args.executor != "local":
        raise ValueError("--executor goes with --hands (a review run)")
    if args.rollouts is None:
        args.rollouts = 1000
    if args.format == "html" and args.out is None:
        raise ValueError("--format html writes a file: give --out FILE (the page is not written "
                         "to stdout)")
    if args.out is not None:
        outfile.check_out(args.out, args.overwrite, "--out", "--overwrite")   # before the work
    elif args.overwrite:
        raise ValueError("--overwrite applies to --out FILE")
    settings = _settings(args)
    check_int("analysis_seed", args.analysis_seed, 0, 2**64 - 1)
    from sim.analysis import review as RV

    try:
        r = RV.review(**({} if "hand_file" in settings else {"hand_index": args.hand}),
                      **{k: v for k, v in settings.items() if k != "hand_file"},
                      seats=args.seats, meld=args.meld, rollouts=args.rollouts,
                      analysis_seed=args.analysis_seed, policy=args.policy,
                      threads=args.threads, progress=not args.quiet, doubtful=args.doubtful,
                      blunder=args.blunder, until_separated=args.until_separated,
                      max_rollouts=args.max_rollouts, batch=args.batch, margin=args.margin)
    except ValueError as exc:                 # a hand file's fault: named by the file
        if "hand_file" in settings and str(exc).startswith("hand file: "):
            raise ValueError(f"{args.run}: {str(exc).removeprefix('hand file: ')}") from None
        raise
    source = (f"the hand file {args.run}" if "hand_file" in settings
              else f"hand {args.hand} of the run in {args.run}" if args.run is not None
              else f"hand {args.hand} of seed {args.seed}")
    timing = (f"{len(r.decisions)} decisions, {int((~r.decisions['forced']).sum())} rated "
              f"in {r.info['elapsed_s']:.1f} s")
    if args.format == "html":
        try:
            r.write_html(args.out, overwrite=args.overwrite)
        except RV.viewer.ViewerMismatchError as exc:
            print(f"burraco: error: {exc}", file=sys.stderr)
            return 1
        print(f"wrote {args.out}: review of {source}, {timing}")
        return 0
    text = r.to_json() if args.format == "json" else RV.format_text(r, source)
    if args.out is None:
        print(text)
    else:
        outfile.write_text(args.out, text + "\n", args.overwrite, "--out", "--overwrite")
        print(f"wrote {args.out}: review of {source}, {timing}")
        return 0
    if not args.quiet:
        print(timing, file=sys.stderr)
    return 0
