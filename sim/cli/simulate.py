"""``burraco simulate``: simulate hands or whole matches and write Parquet shards plus a  manifest."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from sim._util.text import plural
from sim.cli.common import _count, _rules, _rules_options, _specs, _stopped, _team_options



def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``simulate`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "simulate", help="simulate hands or whole matches and write Parquet shards plus a "
                         "manifest",
        description="Simulate hands 0..N-1 of a run (--hands N), or play matches 0..N-1 to "
                    "their end (--matches N: hand scores add up until a team reaches the "
                    "rules' target_score, 2005, with the totals differing, R60; with 3 players "
                    "a player reaches three_player_target, R63), and write "
                    "them to DIR/hands as Parquet shards (one row per hand) with a "
                    "DIR/_manifest.json; a match run also writes one row per match to "
                    "DIR/matches. Running the same command again resumes an interrupted run "
                    "(options left out are taken from the manifest: 'burraco simulate --out "
                    "DIR' resumes it); --hands N beyond the run's extends it; a different run "
                    "in DIR is refused, and so is a second process writing DIR.")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--hands", type=_count, metavar="N",
                      help="number of hands to simulate (e.g. 1000000 or 1e6; at most "
                           "999999999999, the shard names' 12 digits); more than the run in "
                           "DIR holds extends it with the deals that follow")
    what.add_argument("--matches", type=_count, metavar="N",
                      help="number of whole matches to play instead (e.g. 10000); hand k of "
                           "match m is the deal m*65536+k, the deal rotating by one seat per "
                           "hand (R6)")
    p.add_argument("--where", metavar="EXPR",
                   help="play only the hands of 0..N-1 whose deal satisfies EXPR, a pandas "
                        "DataFrame.query expression over the deal table of sim.deals (columns "
                        "in docs/deals.md: s0_jokers, t0_wilds, p0_jokers, upcard ...), e.g. "
                        "--where 's0_jokers >= 2 and upcard_wild == False'; each row equals "
                        "the full run's row of that hand (but for run_id); the run is a run of "
                        "its own, never mixed with a full run in DIR; says how many hands it "
                        "selected")
    p.add_argument("--max-hands-per-match", type=int, metavar="H",
                   help="with --matches: a match still going after H hands ends without a "
                        "winner, reason 'cap' (default 200; a safety net for strategies that "
                        "never reach the target)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="run seed, 0 <= S < 2**64; hand i depends only on (S, i) (required for "
                        "a new run)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="run directory: DIR/hands (Parquet shards, one row per hand), "
                        "DIR/matches (match runs) and DIR/_manifest.json; an option left out "
                        "when resuming or extending the run in DIR is taken from its manifest")
    p.add_argument("--strategy", action="append", metavar="SPEC",
                   help="strategy spec NAME or NAME:param=value,..., or a Python strategy "
                        "FILE.py:CLASS or MODULE:CLASS (docs/strategies.md; its hands play "
                        "through sim.Game, about 100 hands/s); give it once for all seats "
                        "or 4 times for seats 0..3 (default: heuristic; see 'burraco strategies')")
    _team_options(p)
    p.add_argument("--shard-size", type=int, metavar="K",
                   help="hands per Parquet shard (default 100000, or the run's when resuming); "
                        "with --matches, matches per shard (default 1000000 // "
                        "max-hands-per-match)")
    p.add_argument("--threads", type=int, metavar="T",
                   help="Numba threads (default: all cores); with a Python strategy, worker "
                        "processes that play its hands (default 1: this process)")
    _rules_options(p)
    p.add_argument("--overwrite", action="store_true",
                   help="replace the run in DIR instead of resuming or refusing: its manifest "
                        "and shards are deleted after checking that DIR/hands and DIR/matches "
                        "hold nothing else; other files in DIR are kept")
    p.add_argument("--debug", action="store_true",
                   help="run the kernels' consistency checks (slower); failing hands are "
                        "flagged in the error column and the exit code is 1")
    p.add_argument("--quiet", action="store_true",
                   help="no progress output on stderr (the summary is still printed)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local: this process, all cores (default); dask: one task per shard on "
                        "a Dask cluster (a LocalCluster unless --scheduler); needs the "
                        "'cluster' extra")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (implies "
                        "--executor dask); DIR must be a path every worker can write")
    p.add_argument("--workers", type=int, metavar="W",
                   help="worker processes of the LocalCluster started by --executor dask "
                        "(default 2)")
    p.set_defaults(func=run)
    return p


def _resume_defaults(args: argparse.Namespace) -> None:
    """Fill the options left out from the manifest of the run in --out (resume, extend).

    Only options not given are taken: --hands or --matches (with the kind of run),
    --seed, the strategies (when no strategy option is given), the rules (when no
    rule option is given), --shard-size (left to the runner) and
    --max-hands-per-match.  A new run needs --hands or --matches and --seed.
    """
    from sim.batch.rundir import read_manifest

    manifest = None
    if os.path.isfile(os.path.join(args.out, "_manifest.json")) or (
            args.hands is None and args.matches is None and os.path.isdir(args.out)):
        try:
            manifest = read_manifest(args.out, "out")
        except ValueError:
            if args.hands is None and args.matches is None or args.seed is None:
                raise                 # nothing to fall back on: say what is wrong with it
            manifest = None           # the runner refuses it in one line
    if manifest is None:
        if args.hands is None and args.matches is None:
            raise ValueError("give --hands N or --matches N (the number of hands or matches "
                             f"to play); {args.out!r} holds no run to resume")
        if args.seed is None:
            raise ValueError(f"give --seed S (0 <= S < 2**64); {args.out!r} holds no run to "
                             "resume")
        return
    config = manifest["config"]
    if args.hands is None and args.matches is None:
        setattr(args, manifest["kind"], int(config[manifest["kind"]]))
    if args.seed is None:
        args.seed = int(config["seed"])
    args.recorded_strategies = config["strategies"]
    if not (args.strategy or args.strategy_file):
        # --team0/--team1 alone change the run's seats, as they change --strategy's
        from sim.strategies import recorded_spec
        args.strategy = [recorded_spec(s) if s is not None else "heuristic"
                         for s in config["strategies"]]
        if config.get("strategy_sources"):
            from sim.strategies.pystrategy import check_recorded
            check_recorded(args.strategy, f"the run in {args.out!r}",
                           "the run's strategy options again, its --strategy as")
    if args.rules is None:
        # --rule and --players alone change the run's rules, as they change a preset's
        args.rules_dict = config["rules"]
    if (args.matches is not None and args.max_hands_per_match is None
            and manifest["kind"] == "matches"):
        args.max_hands_per_match = config.get("max_hands_per_match")
    selection = config.get("selection")
    if args.where is None and selection and args.matches is None:
        if selection.get("where") is None:
            raise ValueError(f"out: {args.out!r} holds a run of hands selected in Python "
                             "(sim.simulate(hand_index=...)); resume it there with the same "
                             "hand_index, or use another directory")
        args.where = selection["where"]         # the run's own: --where left out, as the rest


def _as_recorded(seats: list, recorded: list, out: str) -> list:
    """The seats of a resumed run, each Python strategy file given with the file name and
    class the run recorded, and either the recorded file itself or at a new place (the
    recorded one gone), loaded from there but named as recorded
    (:func:`sim.strategies.pystrategy.relocated`), so the run resumes as the same run (one recorded
    by a relative name too)."""
    from sim.strategies.pystrategy import file_spec, relocated
    seats = list(seats)
    for i, (given, old) in enumerate(zip(seats, recorded)):
        new, was = file_spec(given), file_spec(old)
        if not (new and was and (os.path.basename(new[0]), new[1])
                == (os.path.basename(was[0]), was[1]) and os.path.isfile(new[0])):
            continue
        if not os.path.isfile(was[0]) or os.path.samefile(was[0], new[0]):
            seats[i] = relocated([old], [given], f"the run in {out!r}")[0]
    return seats


def run(args: argparse.Namespace) -> int:
    """Run ``burraco simulate``; the exit code."""
    from sim.batch.runner import MatchSummary, Summary, simulate, simulate_matches

    _resume_defaults(args)
    seats = _specs(args)
    if getattr(args, "recorded_strategies", None):
        seats = _as_recorded(seats, args.recorded_strategies, args.out)
    common = dict(strategies=seats, rules=_rules(args), out=args.out,
                  shard_size=args.shard_size, threads=args.threads, progress=not args.quiet,
                  debug=args.debug, overwrite=args.overwrite, return_frame=False,
                  executor=args.executor, scheduler=args.scheduler, workers=args.workers)
    if args.matches is None and args.max_hands_per_match is not None:
        raise ValueError("--max-hands-per-match applies to match runs only (--matches N)")
    if args.where is not None:
        if args.matches is not None:
            raise ValueError("--where selects hands of a hand run (--hands N), not matches")
        from sim.core.deal_features import select
        picked = select(args.seed, args.hands, args.where, common["rules"], what="--where")
        if not picked.size:
            raise ValueError(f"--where {args.where!r} selects none of hands 0..{args.hands - 1}")
        print(f"selected {picked.size:,} of {plural(args.hands, 'hand')} "
              f"({picked.size / args.hands:.2%})"
              f" with --where {args.where!r}", flush=True)
        common.update(hand_index=picked, where=args.where)
    summary = (Summary if args.matches is None else MatchSummary)(out=args.out)
    try:
        if args.matches is None:
            simulate(args.hands, args.seed, callback=summary.add_shard, **common)
        else:
            cap = ({} if args.max_hands_per_match is None
                   else {"max_hands_per_match": args.max_hands_per_match})
            simulate_matches(args.matches, args.seed, callback=summary.add_shard, **common,
                             **cap)
    except KeyboardInterrupt as exc:
        what, code = _stopped(exc)
        hands, matches = summary.hands, (None if args.matches is None else summary.matches)
        from sim.batch.read import check_run
        # a shard renamed into place just before the signal is kept too; no manifest yet
        # (stopped before it was written) leaves the callback's count
        with contextlib.suppress(ValueError, OSError):
            status = check_run(args.out)
            hands = max(hands, status.hands_done)
            matches = None if matches is None else max(matches, status.matches_done)
        done = plural(hands, "hand") if matches is None else plural(matches, "match")
        print(f"burraco: {what}; {done} in completed shards kept in {args.out!r}; run the "
              "same command again to resume", file=sys.stderr)
        return code
    summary.finish()
    print(summary.format())
    hands_dir = os.path.join(args.out, "hands")
    if args.matches is None:
        print(f"hands: {hands_dir} (sim.load({args.out!r}), or pd.read_parquet({hands_dir!r}))")
        errors = summary.as_dict()["debug_errors"]
    else:
        print(f"hands: {hands_dir}, matches: {os.path.join(args.out, 'matches')} "
              f"(sim.load({args.out!r}), sim.load_matches({args.out!r}))")
        errors = summary.hand_summary.as_dict()["debug_errors"]
    if errors:
        print(f"burraco: warning: {plural(errors, 'hand')} failed the debug checks "
              "(non-zero error column)", file=sys.stderr)
        return 1
    return 0
