"""Command line interface: ``burraco simulate | summarize | compare | sweep | tune | replay |
analyze | review | label | train | strategies | rules | compile``.

Invalid input gives one line ``burraco: error: <message>`` on stderr and exit
code 2; an interrupted run keeps its completed shards (a sweep its completed
points) and exits with 130 (Ctrl-C, SIGINT) or 143 (SIGTERM).
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import sys

from sim._util import compiling
from sim._util.interrupt import wrapped_interrupt
from sim._util.text import OneLineParser
from sim._version import __version__
from sim.cli import (analyze, compare, label, replay, review, rules, simulate, strategies,
                     summarize, sweep, train, tune)
from sim.cli import compile as compile_kernels
from sim.cli.common import Terminated, _raise_terminated, _stopped  # noqa: F401  (Terminated: main's API)

#: the sub-commands, in the order of ``burraco --help``: each module adds its parser
#: (``add_parser``) and runs the command (``run``)
COMMANDS = (simulate, summarize, compare, sweep, tune, replay, analyze, review, label, train,
            strategies, rules, compile_kernels)


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
  burraco review runs/demo --hand 42 --rollouts 500   # every decision rated, blunders marked
  burraco review --seed 1 --hand 42 --strategy expert --seats 0,2 --format json
  burraco review --strategy expert --hands 40 --seed 1 --out runs/rev   # strength by error rate
  burraco label --hands 2000 --seed 1 --out labels/run1   # the search's values, per decision
  burraco strategies
  burraco rules --preset fibur_italian
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``burraco`` argument parser (all sub-commands)."""
    parser = OneLineParser(
        prog="burraco",
        description="Fast Burraco simulator: simulate hands or matches under named strategies "
                    "and rule presets (one Parquet row per hand), compare, sweep and tune "
                    "strategies, replay a hand, analyze a decision and review a hand.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"burraco-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    for command in COMMANDS:
        command.add_parser(sub)
    for name, p in sub.choices.items():
        p.set_defaults(option_names=_option_names(name, p))
    return parser


#: Parameter names of the library that a sub-command's errors name by another option than
#: the one of the same name: {command: {name: option as the user types it}}.
_ALIASES = {
    "summarize": {"run": "DIR", "repair": "DIR"},
    "replay": {"hand_index": "--hand"},
    "analyze": {"hand_index": "--hand", "position": "POSITION_FILE", "run": "DIR"},
    "review": {"hand_index": "--hand", "run": "DIR"},
    "sweep": {"grid": "--param"},
    "label": {"teacher": "--strategy"},
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
    except SystemError as exc:           # an interruption inside a compiled kernel's callback
        ki = wrapped_interrupt(exc)
        if ki is None:
            raise
        what, code = _stopped(ki)
        print(f"burraco: {what}", file=sys.stderr)
        return code
    finally:
        compiling.ENABLED = announcing
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
