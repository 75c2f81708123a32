"""``burraco rules``: show every option of a rule preset, with --rule and  --players changes, as JSON."""
from __future__ import annotations

import argparse
import json

from sim.cli.common import _rules
from sim.core.rules import PRESETS



def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``rules`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser("rules", help="show every option of a rule preset, with --rule and "
                                     "--players changes, as JSON",
                       description="Print every rule option of a preset (with any --rule and "
                                   "--players changes) as JSON.")
    p.add_argument("--preset", "--rules", dest="rules", default="default", metavar="PRESET",
                   action=_PresetAs, help=f"one of {', '.join(PRESETS)} (default: default)")
    p.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                   help="change one option (repeatable), as for 'burraco simulate'")
    p.add_argument("--players", type=int, choices=(2, 3, 4), metavar="N",
                   help="number of players (2, 3 or 4)")
    p.set_defaults(func=run)
    return p


class _PresetAs(argparse.Action):
    """Store the preset and the option as typed (``--preset`` or ``--rules``), so that an
    error names the option the user gave."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.rules = values
        namespace.preset_option = option_string


def run(args: argparse.Namespace) -> int:
    """Run ``burraco rules``; the exit code."""
    print(json.dumps(_rules(args).to_dict(), indent=2))
    return 0
