"""``burraco analyze``: evaluate every candidate action of a position file, or of a decision  of a simulated hand, by rollouts."""
from __future__ import annotations

import argparse
import json
import os
import sys

from sim._util.text import not_a_directory
from sim.cli.common import _count, _refuse_run_fixed, _rules, _rules_options, _specs, _team_options
from sim.core.cards import check_int



def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``analyze`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "analyze", help="evaluate every candidate action of a position file, or of a decision "
                        "of a simulated hand, by rollouts",
        description="Read a position (docs/positions.md: one seat's view at its own decision) "
                    "and evaluate each candidate action: on every sampled world (the cards the "
                    "seat cannot see dealt again from the seed) apply the candidate and play "
                    "the hand to its end with the rollout strategy. All candidates share the "
                    "same worlds (common random numbers). Prints, best first, the mean result "
                    "(own side's hand score minus the opponents', points) with its 95% "
                    "interval, the mean own score, the chance of closing, the paired "
                    "difference to the best with its interval and the probability of being "
                    "best; then the variance reduction of the pairing, the time and the "
                    "rollouts/s (docs/analyze.md). With --hand I --turn T --decision D, the "
                    "decision of a simulated hand instead: hand I of the run in DIR, or of "
                    "--seed S with the run's --strategy and rule options as 'burraco replay' "
                    "takes them, played by its strategies up to that decision; the table marks "
                    "the action the strategy chose with '*'.")
    p.add_argument("position", nargs="?", metavar="POSITION_FILE | DIR",
                   help="position file, .toml or .json (docs/positions.md); with --hand, a "
                        "run directory (optional: or --seed S)")
    p.add_argument("--rollouts", type=_count, default=1000, metavar="N",
                   help="sampled worlds, each rolled out once per candidate (default 1000)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="analysis seed: the worlds and the position's unseen cards (default "
                        "0); with --hand and no DIR, the run's seed (the worlds then come "
                        "from --analysis-seed)")
    p.add_argument("--policy", default="expert", metavar="SPEC",
                   help="rollout strategy of every seat: a built-in or registered spec, e.g. "
                        "expert (default) or heuristic:pile_threshold=3, or a Python strategy "
                        "FILE.py:CLASS (rolled out through sim.Game, 100-200 times slower)")
    p.add_argument("--objective", choices=("hand", "match"), default="hand",
                   help="hand: rank the hand result (default); match: the probability of "
                        "winning the match, played on with the rollout strategy after this "
                        "hand (needs the match totals: a position's [match] totals, or a hand "
                        "of a match run)")
    g = p.add_argument_group("a decision of a simulated hand")
    g.add_argument("--hand", type=int, metavar="I",
                   help="hand index in the run (a match run's hand_index column)")
    g.add_argument("--turn", type=int, metavar="T",
                   help="the turn, counted from 1 as in 'burraco replay'")
    g.add_argument("--decision", choices=("pickup", "meld", "discard"), metavar="D",
                   help="pickup, meld (the turn's first meld-phase decision) or discard")
    g.add_argument("--analysis-seed", type=int, metavar="A",
                   help="with --hand: the seed of the sampled worlds (default 0)")
    g.add_argument("--dealer", type=int, metavar="D",
                   help="without DIR: dealer seat, as in a match hand (default: the deal's own)")
    g.add_argument("--strategy", action="append", metavar="SPEC",
                   help="without DIR: the run's strategy spec, once for all seats or 4 times "
                        "(default: heuristic); with DIR: FILE.py:CLASS, where a Python strategy "
                        "file of the run is now (the file name and class the run recorded)")
    _team_options(g)
    _rules_options(g)
    p.add_argument("--candidates", metavar="TEXT;TEXT",
                   help="only these actions, in the words of the table, separated by ';' "
                        "(e.g. \"discard K♣; discard 7♥\"); default: every legal action")
    p.add_argument("--threads", type=int, metavar="T",
                   help="Numba threads (default: all cores); the table does not depend on it")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: a table (default); json: {position, analysis, candidates}, "
                        "candidates best first")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar; with --format json no timing line on stderr")
    p.add_argument("--until-separated", action="store_true",
                   help="roll out --batch worlds at a time until the best candidate is separated "
                        "from every other (or within --margin of it), at most --max-rollouts "
                        "worlds; --rollouts is then not used (docs/analyze.md)")
    p.add_argument("--max-rollouts", type=_count, default=20_000, metavar="N",
                   help="the cap of --until-separated (worlds, default 20000)")
    p.add_argument("--batch", type=_count, default=1_000, metavar="N",
                   help="worlds between the looks of --until-separated (default 1000)")
    p.add_argument("--margin", type=float, default=0.0, metavar="POINTS",
                   help="--until-separated: a candidate within POINTS of the best needs no "
                        "separating (default 0)")
    p.add_argument("--adjust", choices=("none", "strata", "cv"), default="none",
                   help="beyond common random numbers: post-stratify on the wilds dealt to the "
                        "opponents, or control variates of the deal features (default none)")
    p.add_argument("--worlds", choices=("sampled", "model", "true"), default="sampled",
                   help="sampled worlds (default), worlds sampled by the card-location model "
                        "(the unseen cards weighted by what the other seats discarded, passed "
                        "on and melded), or the true hidden cards (only for a simulated hand: "
                        "a position file does not hold them)")
    p.set_defaults(func=run)
    return p


#: Options of 'burraco analyze' that only a decision of a simulated hand (--hand) takes.
_DECISION_ONLY = (("turn", "--turn"), ("decision", "--decision"),
                  ("analysis_seed", "--analysis-seed"), ("dealer", "--dealer"),
                  ("strategy", "--strategy"), ("team0", "--team0"), ("team1", "--team1"),
                  ("strategy_file", "--strategy-file"), ("rules", "--rules"),
                  ("rule", "--rule"), ("players", "--players"))


def _analyze_target(args: argparse.Namespace) -> str:
    """What ``burraco analyze`` is asked to analyze: ``"position"`` (a position file) or
    ``"decision"`` (--hand I --turn T --decision D of a run directory or of --seed S).

    Raises
    ------
    ValueError
        Arguments that fit neither; the message names the argument at fault and what
        analyze takes instead (the positional argument first, as it decides the rest).
    """
    where = args.position
    if args.hand is None:
        if where is not None and os.path.isdir(where):
            raise ValueError(f"DIR: {where!r} is a directory; analyze takes a position file "
                             "(burraco analyze POSITION_FILE), or a decision of the run in a "
                             f"directory: burraco analyze {where} --hand I --turn T --decision D")
        for attr, option in _DECISION_ONLY:
            if getattr(args, attr) not in (None, []):
                raise ValueError(f"{option} applies to a decision of a simulated hand (--hand I "
                                 "--turn T --decision D); a position file carries its own "
                                 "settings")
        if where is None:
            raise ValueError("POSITION_FILE: give a position file, or --hand I --turn T "
                             "--decision D for a decision of a simulated hand")
        if not os.path.isfile(where):
            why = "does not exist" if not os.path.lexists(where) else "is not a file"
            raise ValueError(f"POSITION_FILE: {where!r} {why}")
        return "position"
    if where is not None:
        if os.path.isfile(where):
            raise ValueError(f"--hand: {where!r} is a file; --hand I analyzes a decision of "
                             "a simulated hand, of the run in a directory (burraco analyze DIR "
                             "--hand I ...) or of --seed S; a position file carries its own "
                             "decision (leave --hand, --turn and --decision out)")
        if not os.path.isdir(where):
            raise ValueError(not_a_directory("DIR", where))
        _refuse_run_fixed(args)
    elif args.seed is None:
        raise ValueError("--hand needs a run directory or --seed: burraco analyze DIR --hand I "
                         "--turn T --decision D, or --seed S with the run's --strategy and "
                         "rule options")
    for attr, option in (("turn", "--turn"), ("decision", "--decision")):
        if getattr(args, attr) is None:
            raise ValueError(f"{option}: give it with --hand (the turn, from 1 as in "
                             "'burraco replay', and pickup, meld or discard)")
    return "decision"


def _analyze_decision(args: argparse.Namespace, common: dict):
    """The analysis of ``burraco analyze [DIR] --hand I --turn T --decision D``."""
    from sim.analysis.decision import analyze_decision

    if args.position is not None:
        settings = {"run": args.position, "python_files": args.strategy}
    else:
        settings = {"seed": args.seed, "strategies": _specs(args), "rules": _rules(args),
                    "dealer": args.dealer}
    seed = 0 if args.analysis_seed is None else check_int("analysis_seed", args.analysis_seed,
                                                           0, 2**64 - 1)
    return analyze_decision(args.hand, args.turn, args.decision, **settings,
                            analysis_seed=seed, **common)


def run(args: argparse.Namespace) -> int:
    """Run ``burraco analyze``; the exit code."""
    from sim.analysis import evaluate as A

    common = {"rollouts": args.rollouts, "policy": args.policy, "candidates": args.candidates,
              "threads": args.threads, "progress": not args.quiet, "objective": args.objective,
              "until_separated": args.until_separated, "max_rollouts": args.max_rollouts,
              "batch": args.batch, "margin": args.margin, "adjust": args.adjust,
              "worlds": args.worlds}
    if _analyze_target(args) == "decision":
        df = _analyze_decision(args, common)
    else:
        df = A.analyze(args.position, seed=0 if args.seed is None else args.seed, **common)
    if args.format == "json":
        print(json.dumps(A.to_document(df), indent=2, ensure_ascii=False, allow_nan=False))
        if not args.quiet:
            print(A.timing_text(df), file=sys.stderr)
    else:
        where = args.position
        if args.hand is not None:
            where = (f"hand {args.hand} of the run in {args.position}" if args.position
                     else f"hand {args.hand} of seed {args.seed}")
        print(A.format_table(df, where))
        print(A.timing_text(df))
    return 0
