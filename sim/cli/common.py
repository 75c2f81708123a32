"""The options and checks several ``burraco`` commands share: the rule options, the
team options, the paired design's options, strategy specs, counts and JSON values."""
from __future__ import annotations

import argparse
import math
import signal

from sim.core.rules import PRESETS, Rules


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
#: refuses them (:func:`sim.experiments.comparison.paired_rules`).
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
    except ValueError as exc:           # named as typed (burraco rules: --preset or --rules)
        typed = getattr(args, "preset_option", None) or "--rules"
        raise ValueError(f"{typed}: {_without_word(str(exc), 'rules')}") from None
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


def _specs(args: argparse.Namespace) -> list:
    """Seat specs 0..3: the strategy file, then --strategy, then --team0/--team1."""
    from sim.strategies import check_spec, load_file

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


def _json_value(v):
    """A summary value for JSON: NumPy scalars as Python ones, NaN and inf as None (null)."""
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and not math.isfinite(v) else v
