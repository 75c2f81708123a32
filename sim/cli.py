"""Command line interface: ``burraco simulate | summarize | compare | sweep | tune | replay |
analyze | strategies | rules``.

Invalid input gives one line ``burraco: error: <message>`` on stderr and exit
code 2; an interrupted run keeps its completed shards (a sweep its completed
points) and exits with 130 (Ctrl-C, SIGINT) or 143 (SIGTERM).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import signal
import sys

from . import compiling
from ._version import __version__
from ._text import OneLineParser, not_a_directory, plural
from .rules import PRESETS, Rules

EXAMPLES = """\
examples:
  burraco simulate --hands 1000000 --seed 1 --out runs/demo
  burraco simulate --matches 10000 --seed 1 --out runs/matches   # whole matches to 2005
  burraco simulate --hands 200000 --seed 7 --out runs/t3 --strategy heuristic:pile_threshold=3
  burraco simulate --hands 100000 --seed 2 --out runs/mix \\
      --strategy heuristic --strategy random --strategy heuristic --strategy random
  burraco simulate --hands 100000 --seed 2 --out runs/teams \\
      --team0 heuristic:pile_threshold=3 --team1 heuristic
  burraco simulate --hands 100000 --seed 1 --out runs/jokers \\
      --where "s0_jokers + s2_jokers >= 2"   # only the deals giving team 0 two jokers
  burraco compare heuristic random --hands 20000 --seed 1
  burraco compare my_strategy.py:PileTaker expert --hands 500 --seed 1   # a Python strategy
  burraco compare heuristic:pile_threshold=3 heuristic --hands 200000 --seed 5
  burraco sweep heuristic --param pile_threshold=0.5,1,2,3 --hands 20000 --seed 1 \\
      --out runs/sweep-pile
  burraco tune expert --hands-per-eval 2000 --budget 1e6 --seed 1 --out runs/tune-expert
  burraco replay runs/demo --hand 42           # one hand of a run, every action
  burraco replay runs/matches --hand 65539     # hand 3 of match 1 of a match run
  burraco replay --seed 1 --hand 42 --format json
  burraco replay runs/demo --hand 42 --format html --out hand42.html   # step through it
  burraco analyze examples/position.toml --rollouts 2000   # every candidate action, rolled out
  burraco analyze runs/demo --hand 42 --turn 9 --decision discard   # was that discard right?
  burraco strategies
  burraco rules --preset fibur_italian
"""


def _count(text: str) -> int:
    """argparse type for a hand count: ``1000000``, ``1_000_000`` or ``1e6``."""
    if text.lstrip("+-").replace("_", "").isdigit():
        return int(text)
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    if abs(value) > 1e15:
        raise argparse.ArgumentTypeError(f"{text!r} is far too large")
    return int(value)


class Terminated(KeyboardInterrupt):
    """Raised by the SIGTERM handler that :func:`main` installs, so that a terminated
    command stops as after Ctrl-C (completed shards kept, the shard being written
    discarded); ``signum`` is the signal number."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        """The signal's name, e.g. ``"SIGTERM"``."""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 + the signal number (143 for SIGTERM), as a shell reports a signal death."""
        return 128 + self.signum


def _raise_terminated(signum, frame):
    """SIGTERM handler of :func:`main`: a second SIGTERM during the clean-up ends the
    process at once (the default action)."""
    signal.signal(signum, signal.SIG_DFL)
    raise Terminated(signum)


def _stopped(exc: KeyboardInterrupt) -> tuple[str, int]:
    """How an interruption is reported: ``("interrupted", 130)`` for Ctrl-C,
    ``("terminated by SIGTERM", 143)`` for :class:`Terminated`."""
    if isinstance(exc, Terminated):
        return f"terminated by {exc.name}", exc.exit_code
    return "interrupted", 130


def _team_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--team0", metavar="SPEC",
                   help="strategy of team 0 (seats 0 and 2); overrides --strategy")
    p.add_argument("--team1", metavar="SPEC",
                   help="strategy of team 1 (seats 1 and 3); overrides --strategy")
    p.add_argument("--strategy-file", metavar="FILE",
                   help="TOML file assigning strategies with keys all, team0, team1, "
                        "seat0..seat3 (a spec string or a table with name and parameters); "
                        "--strategy, --team0 and --team1 override it")


#: What ``--players`` says of 3 players in a paired command (compare, sweep, tune), which
#: refuses them (:func:`sim.comparison.paired_rules`).
PAIRED_PLAYERS = ("not 3: the paired design plays each deal twice with the teams' seats "
                  "swapped, and with three players the sides change during a hand (R62)")


def _rules_options(p: argparse.ArgumentParser, paired: bool = False) -> None:
    """--rules PRESET, --rule OPTION=VALUE (repeatable) and --players N (``paired``: the
    help of a paired comparison, which refuses 3 players)."""
    p.add_argument("--rules", default=None, metavar="PRESET",
                   help=f"rule preset: {', '.join(PRESETS)} (default: default; see "
                        "'burraco rules')")
    p.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                   help="change one rule option of the preset, e.g. --rule target_score=1505 "
                        "--rule set_ranks=A,3 --rule take_pile_requires_meld=true (repeatable; "
                        "options in 'burraco rules')")
    p.add_argument("--players", type=int, choices=(2, 3, 4), metavar="N",
                   help=("number of players: 4 (two partnerships, the default) or 2 (R61); "
                         + PAIRED_PLAYERS + "; the same as --rule num_players=N") if paired
                   else ("number of players: 4 (two partnerships, the default), 2 (R61) or 3 "
                         "(R62 solo_18, or R63 with --rule three_player_mode=individual_3x11); "
                         "the same as --rule num_players=N"))


def _rules(args: argparse.Namespace) -> Rules:
    """The rule set of --rules, --rule and --players (ValueError if invalid, beginning
    with the option that gave the value: ``--rules: ...``, ``--rule: ...``)."""
    changes = {}
    for text in args.rule:
        try:
            key, value = Rules.parse_assignment(text)
        except ValueError as exc:
            raise ValueError(f"--rule: {_without_word(str(exc), 'rules')}") from None
        changes[key] = value
    if args.players is not None:
        if changes.get("num_players", args.players) != args.players:
            raise ValueError(f"--players {args.players} and --rule num_players="
                             f"{changes['num_players']} disagree; give one of them")
        changes["num_players"] = args.players
    if getattr(args, "rules_dict", None) is not None:       # the manifest's (resume)
        base = Rules.from_dict(args.rules_dict)
        return base.replace(**changes) if changes else base
    try:
        base = Rules.preset("default" if args.rules is None else args.rules)
    except ValueError as exc:
        raise ValueError(f"--rules: {_without_word(str(exc), 'rules')}") from None
    try:
        return base.replace(**changes) if changes else base
    except ValueError as exc:
        raise ValueError(f"--rule: {_without_word(str(exc), 'rules')}") from None


def _without_word(message: str, word: str) -> str:
    """``message`` without a leading ``word: `` or its singular (the library's name for
    the option)."""
    for w in (word, word.rstrip("s")):
        if message.startswith(w + ": "):
            return message[len(w) + 2:]
    return message


def _paired_options(p: argparse.ArgumentParser, hands_help: str) -> None:
    """Options shared by compare and sweep: deals, seed, rules, threads, quiet."""
    p.add_argument("--hands", type=_count, required=True, metavar="N", help=hands_help)
    p.add_argument("--seed", type=int, required=True, metavar="S", help="run seed")
    _rules_options(p, paired=True)
    p.add_argument("--threads", type=int, metavar="T",
                   help="Numba threads (default: all cores); with a Python strategy, worker "
                        "processes that play its hands (default 1)")
    p.add_argument("--quiet", action="store_true", help="no progress output on stderr")


def build_parser() -> argparse.ArgumentParser:
    """The ``burraco`` argument parser (all sub-commands)."""
    parser = OneLineParser(
        prog="burraco",
        description="Fast Burraco simulator: simulate hands or matches under named strategies "
                    "and rule presets (one Parquet row per hand), compare, sweep and tune "
                    "strategies, replay a hand and analyze a decision.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"burraco-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

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
                      help="number of hands to simulate (e.g. 1000000 or 1e6); more than the "
                           "run in DIR holds extends it with the deals that follow")
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
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser(
        "summarize", help="summary and integrity of a run directory (finished or partial); "
                          "--repair rebuilds its manifest",
        description="Check every shard of DIR against its manifest (unreadable, truncated or "
                    "foreign shards are reported, never read), list every file that is not "
                    "part of the run (stray files in DIR/hands or DIR/matches, which plain "
                    "Parquet readers would read, and other files beside it), and print the "
                    "progress and the same summary as the end of 'burraco simulate' for the "
                    "complete shards (for a match run, the matches and their hands). "
                    "Exit code 1 if a shard is corrupt or a file is stray. --repair rebuilds "
                    "a damaged, missing or hand-edited manifest from the shards. For the "
                    "directory of 'burraco sweep' or 'burraco tune': its progress, problems "
                    "and other files, and --repair rebuilds its _sweep.json or _tune.json.")
    p.add_argument("out", metavar="DIR",
                   help="output directory of 'burraco simulate', 'burraco sweep' or "
                        "'burraco tune'")
    p.add_argument("--repair", action="store_true",
                   help="rebuild DIR/_manifest.json from the configuration every shard carries "
                        "(the old one is kept as _manifest.json.replaced-TIME; no shard is "
                        "simulated again or deleted); also moves a run of the first layout "
                        "(shards beside the manifest) into DIR/hands and DIR/matches; for a "
                        "sweep or tuning, rebuilds _sweep.json or _tune.json from its point "
                        "or log files (and moves an earlier sweep's point files into "
                        "DIR/points)")
    p.set_defaults(func=_cmd_summarize)

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
    p.set_defaults(func=_cmd_compare)

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
    p.set_defaults(func=_cmd_sweep)

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
    p.set_defaults(func=_cmd_tune)

    p = sub.add_parser(
        "replay", help="show one hand of a run as a readable trace, as JSON, or as an HTML page "
                       "that steps through it",
        description="Replay hand I of a run with every action: the deal, each turn (pickup, "
                    "melds, lay-offs, discard, hand size), the tables at the end and each "
                    "team's score breakdown. The replayed hand is the simulated hand (same "
                    "record). 'burraco replay DIR --hand I' replays hand I of the run in DIR "
                    "(a 'burraco simulate --out DIR' directory) with its seed, strategies and "
                    "rules and, for a match hand, its dealer (and with 3 players its "
                    "individual_3x11 rules when the row's individual is true, R63), and checks "
                    "the replay against the hand's row (exit code 1 if they differ). For a "
                    "hand run I is 0..hands-1 (a hand whose shard is not complete yet is "
                    "replayed but not checked); for a match run I is the hand_index of a hand "
                    "row in a complete shard: hand k of match m is m*65536+k. 'burraco replay "
                    "--seed S --hand I' replays hand I of seed S with the options given, which "
                    "must be those of the run (--strategy, --rules, --rule, --players and, for a "
                    "match hand, --dealer). --format html --out FILE writes the hand as one "
                    "self-contained HTML page (no network: inline CSS, script and data) that "
                    "steps through it with buttons, a slider and the left/right arrow keys: "
                    "every hand (or, with --seat K, seat K's face up and the others face down "
                    "with their counts), each side's melds (clean, dirty, burraco), the discard "
                    "pile, the stock and pozzetti, the points on the table, the event in words "
                    "and at the end the score breakdown; an existing FILE is refused unless "
                    "--overwrite (alias --force).")
    p.add_argument("run", nargs="?", metavar="DIR",
                   help="run directory to replay from; the run fixes the seed, strategies, "
                        "rules and dealer, so those options are refused with DIR (but "
                        "--strategy FILE.py:CLASS, saying where a moved Python strategy file "
                        "of the run is now)")
    p.add_argument("--seed", type=int, metavar="S", help="run seed (without DIR)")
    p.add_argument("--hand", type=int, required=True, metavar="I",
                   help="hand index (0-based; a match run's hand_index column)")
    p.add_argument("--dealer", type=int, metavar="D",
                   help="without DIR: dealer seat, as in a match hand (its dealer column); "
                        "default: the deal's own random dealer")
    p.add_argument("--strategy", action="append", metavar="SPEC",
                   help="without DIR: strategy spec (NAME, NAME:param=value,..., FILE.py:CLASS "
                        "or MODULE:CLASS), once for all seats or 4 times (default: heuristic); "
                        "with DIR: FILE.py:CLASS, where a Python strategy file of the run is now "
                        "(the file name and class the run recorded), once per file")
    _team_options(p)
    _rules_options(p)
    p.add_argument("--format", choices=("text", "json", "html"), default="text",
                   help="text: readable trace (default); json: the replay document "
                        "(schema in docs/replay.md); html: a self-contained page stepping through "
                        "the hand (buttons, slider, left/right arrow keys: the hands, melds, "
                        "pile, stock, pozzetti and scores at every step), written to --out")
    p.add_argument("--out", metavar="FILE",
                   help="with --format html (required there): the HTML file to write; written "
                        "to a temporary file beside it and renamed, so never half written")
    p.add_argument("--seat", type=int, metavar="K",
                   help="with --format html: show the hand as seat K sees it (its hand face "
                        "up, the others face down with their counts; the hidden cards are not "
                        "in the file)")
    p.add_argument("--overwrite", "--force", dest="overwrite", action="store_true",
                   help="with --out: replace an existing FILE (refused otherwise)")
    p.set_defaults(func=_cmd_replay)

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
    p.add_argument("--worlds", choices=("sampled", "true"), default="sampled",
                   help="sampled worlds (default) or the true hidden cards (only for a "
                        "simulated hand: a position file does not hold them)")
    p.set_defaults(func=_cmd_analyze)

    p = sub.add_parser("strategies", help="list the strategies and their parameters",
                       description="List the strategy names and their tunable parameters.")
    p.set_defaults(func=_cmd_strategies)

    p = sub.add_parser("rules", help="show every option of a rule preset, with --rule and "
                                     "--players changes, as JSON",
                       description="Print every rule option of a preset (with any --rule and "
                                   "--players changes) as JSON.")
    p.add_argument("--preset", "--rules", dest="rules", default="default", metavar="PRESET",
                   help=f"one of {', '.join(PRESETS)} (default: default)")
    p.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                   help="change one option (repeatable), as for 'burraco simulate'")
    p.add_argument("--players", type=int, choices=(2, 3, 4), metavar="N",
                   help="number of players (2, 3 or 4)")
    p.set_defaults(func=_cmd_rules)
    for name, p in sub.choices.items():
        p.set_defaults(option_names=_option_names(name, p))
    return parser


#: Parameter names of the library that a sub-command's errors name by another option than
#: the one of the same name: {command: {name: option as the user types it}}.
_ALIASES = {
    "summarize": {"run": "DIR", "repair": "DIR"},
    "replay": {"hand_index": "--hand"},
    "analyze": {"hand_index": "--hand", "position": "POSITION_FILE", "run": "DIR"},
}

#: Words that begin a library message about a strategy spec (given by --strategy, --team0,
#: --team1, a strategy file or A/B) or about the rule set (--rules, --rule, --players), not
#: about the option of that name: never replaced.
_NOT_OPTIONS = ("strategy", "rules")


def _option_names(command: str, p: argparse.ArgumentParser) -> dict:
    """``{parameter name: option}`` of one sub-command: each option's destination and its
    long form (``shard_size`` -> ``--shard-size``), each positional argument's and its
    metavar (``base`` -> ``BASE``), then :data:`_ALIASES`."""
    names = {}
    for action in p._actions:
        long = [o for o in action.option_strings if o.startswith("--")]
        if long:
            names[action.dest] = long[0]
        elif not action.option_strings and action.metavar:
            names[action.dest] = action.metavar
    names.update(_ALIASES.get(command, {}))
    for word in _NOT_OPTIONS:
        names.pop(word, None)
    return names


def _in_cli_words(message: str, names: dict) -> str:
    """A library message that begins with a parameter's name (``hands must be ...``,
    ``out: ...``) with the parameter named as the user types it (``--hands must be ...``,
    ``--out: ...``): the CLI's errors name options one way."""
    m = re.match(r"([a-z][a-z0-9_]*)(?=[: ])", message)
    if m and m.group(1) in names:
        return names[m.group(1)] + message[m.end():]
    return message


def _resume_defaults(args: argparse.Namespace) -> None:
    """Fill the options left out from the manifest of the run in --out (resume, extend).

    Only options not given are taken: --hands or --matches (with the kind of run),
    --seed, the strategies (when no strategy option is given), the rules (when no
    rule option is given), --shard-size (left to the runner) and
    --max-hands-per-match.  A new run needs --hands or --matches and --seed.
    """
    from .rundir import read_manifest

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
        args.strategy = [s if s is not None else "heuristic" for s in config["strategies"]]
        if config.get("strategy_sources"):
            from .pystrategy import check_recorded
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
    (:func:`sim.pystrategy.relocated`), so the run resumes as the same run (one recorded
    by a relative name too)."""
    from .pystrategy import file_spec, relocated
    seats = list(seats)
    for i, (given, old) in enumerate(zip(seats, recorded)):
        new, was = file_spec(given), file_spec(old)
        if not (new and was and (os.path.basename(new[0]), new[1])
                == (os.path.basename(was[0]), was[1]) and os.path.isfile(new[0])):
            continue
        if not os.path.isfile(was[0]) or os.path.samefile(was[0], new[0]):
            seats[i] = relocated([old], [given], f"the run in {out!r}")[0]
    return seats


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .runner import MatchSummary, Summary, simulate, simulate_matches

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
        from .deal_features import select
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
        from .runs import check_run
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


def _cmd_summarize(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .runs import repair_run, summarize_run
    from .workdir import kind_of_directory

    kind = None
    if os.path.isdir(args.out) and not os.path.exists(os.path.join(args.out, "_manifest.json")):
        kind = kind_of_directory(Path(args.out))
    if kind is not None:                 # a sweep's or a tuning's directory
        if kind == "sweep":
            from .sweeps import repair_sweep as repair, sweep_status as status
        else:
            from .tuning import repair_tuning as repair, tuning_status as status
        if args.repair:
            print(repair(args.out).format())
        text, sound = status(args.out)
        print(text)
        return 0 if sound else 1
    if args.repair:
        print(repair_run(args.out).format())
    summary, status = summarize_run(args.out)
    print(status.format())
    if summary.hands:
        print(summary.format())
    return 1 if (status.corrupt or status.stray or status.manifest_problem) else 0


def _json_value(v):
    """A summary value for JSON: NumPy scalars as Python ones, NaN and inf as None (null)."""
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _cmd_compare(args: argparse.Namespace) -> int:
    from .comparison import compare, format_summary

    row = compare(args.a, args.b, args.hands, args.seed, rules=_rules(args),
                  threads=args.threads, progress=not args.quiet).iloc[0]
    if args.format == "json":
        print(json.dumps({k: _json_value(v) for k, v in row.items()}, indent=2,
                         allow_nan=False))
    else:
        print(format_summary(row))
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .sweeps import format_table, parse_grid, sweep

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


def _cmd_tune(args: argparse.Namespace) -> int:
    from .tuning import play_command, tune

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


def _specs(args: argparse.Namespace) -> list:
    """Seat specs 0..3: the strategy file, then --strategy, then --team0/--team1."""
    from .strategies import check_spec, load_file

    for option, specs in (("--strategy", args.strategy or []), ("--team0", [args.team0]),
                          ("--team1", [args.team1])):
        for spec in specs:
            if spec is not None:
                check_spec(option, spec)
    seats = load_file(args.strategy_file) if args.strategy_file else ["heuristic"] * 4
    if args.strategy:
        if len(args.strategy) not in (1, 4):
            raise ValueError(f"--strategy: give it once (all seats) or 4 times (seats 0..3), "
                             f"got {len(args.strategy)}")
        seats = args.strategy * 4 if len(args.strategy) == 1 else list(args.strategy)
    if args.team0:
        seats[0] = seats[2] = args.team0
    if args.team1:
        seats[1] = seats[3] = args.team1
    return seats


#: Options of 'burraco replay' and 'burraco analyze --hand' that a run directory fixes:
#: (attribute, option).  --strategy is not one of them: with DIR it says where the run's
#: Python strategy file is now (FILE.py:CLASS, the file name and class the run recorded).
_RUN_FIXED_OPTIONS = (("seed", "--seed"), ("team0", "--team0"), ("team1", "--team1"),
                      ("strategy_file", "--strategy-file"), ("rules", "--rules"),
                      ("rule", "--rule"), ("players", "--players"), ("dealer", "--dealer"))


def _refuse_run_fixed(args: argparse.Namespace) -> None:
    """Refuse an option that the run in DIR fixes (ValueError naming it)."""
    for attr, option in _RUN_FIXED_OPTIONS:
        if getattr(args, attr) not in (None, []):
            hint = (" (the sampled worlds' seed is --analysis-seed)"
                    if attr == "seed" and args.command == "analyze" else "")
            raise ValueError(f"{option} is taken from the run in DIR; leave it out{hint}")


def _cmd_replay(args: argparse.Namespace) -> int:
    from . import trace as R

    if args.format == "html":
        if args.out is None:
            raise ValueError("--format html writes a file: give --out FILE (the page is not "
                             "written to stdout)")
        from .viewer import _check_out
        _check_out(args.out, args.overwrite, "--out", "--overwrite")  # before the replay

    else:
        for option, given in (("--out", args.out is not None),
                              ("--seat", args.seat is not None), ("--overwrite", args.overwrite)):
            if given:
                raise ValueError(f"{option} applies to --format html, not --format {args.format}")
    if args.run is not None:
        _refuse_run_fixed(args)
        try:
            doc = R.replay(run=args.run, hand_index=args.hand, python_files=args.strategy)
        except R.ReplayMismatchError as exc:
            print(f"burraco: error: {exc}", file=sys.stderr)
            return 1
    else:
        if args.seed is None:
            raise ValueError("replay: give a run directory (burraco replay DIR --hand I) or "
                             "--seed S")
        doc = R.replay(args.seed, args.hand, strategies=_specs(args), rules=_rules(args),
                       dealer=args.dealer)
    if args.format == "html":
        return _write_page(doc, args)
    print(R.to_json(doc) if args.format == "json" else R.format_text(doc))
    return 0


def _write_page(doc: dict, args: argparse.Namespace) -> int:
    """``burraco replay --format html``: write the page of ``doc`` to --out."""
    from . import viewer as V

    players = len(doc["deal"]["hands"]) if "deal" in doc else len(doc["start"]["hands"])
    if args.seat is not None and not 0 <= args.seat < players:
        raise ValueError(f"--seat must be a seat of the hand, 0..{players - 1}, got {args.seat}")
    try:
        V.write_html(doc, args.out, seat=args.seat, overwrite=args.overwrite)
    except V.ViewerMismatchError as exc:
        print(f"burraco: error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:            # the file's errors in the options' names
        text = str(exc)
        if text.startswith("path:"):
            raise ValueError("--out:" + text[5:].replace("overwrite=True", "--overwrite")) from None
        raise
    print(f"wrote {args.out}: hand {doc['hand_index']} of seed {doc['seed']}, "
          f"{plural(len(doc['events']) + 1, 'step')}"
          + (f", as seat {args.seat} sees it" if args.seat is not None else ""))
    return 0


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
    from ._cards import check_int
    from .analysis_game import analyze_decision

    if args.position is not None:
        settings = {"run": args.position, "python_files": args.strategy}
    else:
        settings = {"seed": args.seed, "strategies": _specs(args), "rules": _rules(args),
                    "dealer": args.dealer}
    seed = 0 if args.analysis_seed is None else check_int("analysis_seed", args.analysis_seed,
                                                           0, 2**64 - 1)
    return analyze_decision(args.hand, args.turn, args.decision, **settings,
                            analysis_seed=seed, **common)


def _cmd_analyze(args: argparse.Namespace) -> int:
    from . import analysis as A

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


def _cmd_strategies(args: argparse.Namespace) -> int:
    from .strategies import STRATEGIES

    for s in STRATEGIES.values():
        print(f"{s.name}: {s.doc}")
        for name, (_slot, default, doc) in s.params.items():
            lo, hi, whole = s.limits.get(name, (None, None, False))
            rng = f" [{'whole ' if whole else ''}{lo:g}..{hi:g}]" if lo is not None else ""
            print(f"    {name} = {default:g}{rng}: {doc}")
    from .strategies import LAZY
    for name, (doc, _load) in LAZY.items():
        if name not in STRATEGIES:
            print(f"{name}: {doc} (compiled on first use; docs/peer_bots.md)")
    print("spec syntax: NAME or NAME:param=value,param=value")
    print("Python strategies: FILE.py:CLASS or MODULE:CLASS, a class with "
          "choose(observation, legal_actions) -> action (docs/strategies.md)")
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    print(json.dumps(_rules(args).to_dict(), indent=2))
    return 0


def main(argv: list | None = None) -> int:
    """Run the ``burraco`` command.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit code: 0 success, 1 debug checks failed, 2 invalid input,
        130 interrupted (SIGINT, Ctrl-C), 143 terminated (SIGTERM).
        (argparse itself exits with 2 on a malformed command line.)

    Notes
    -----
    While the command runs, SIGTERM raises :class:`Terminated` (a
    ``KeyboardInterrupt``), so a run stops as after Ctrl-C: completed shards
    are kept, the shard being written is discarded; a second SIGTERM ends the
    process at once.  The previous SIGTERM handler is restored before
    returning; called outside the main thread (where Python cannot set
    handlers), SIGTERM keeps its handler.
    """
    args = build_parser().parse_args(argv)
    try:
        old_term = signal.signal(signal.SIGTERM, _raise_terminated)
        if old_term is None:             # set outside Python: cannot be restored as it was
            old_term = signal.SIG_DFL
    except ValueError:                   # not the main thread: no handler can be set
        old_term = None
    announcing = compiling.ENABLED
    compiling.ENABLED = announcing and not getattr(args, "quiet", False)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        message = _in_cli_words(" ".join(str(exc).split()), args.option_names)
        print(f"burraco: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:              # e.g. piped into `head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        what, code = _stopped(exc)
        print(f"burraco: {what}", file=sys.stderr)
        return code
    finally:
        compiling.ENABLED = announcing
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
