"""``burraco strategies``: list the strategies and their parameters."""
from __future__ import annotations

import argparse


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``strategies`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser("strategies", help="list the strategies and their parameters",
                       description="List the strategy names and their tunable parameters.")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco strategies``; the exit code."""
    from sim.strategies import STRATEGIES

    for s in STRATEGIES.values():
        print(f"{s.name}: {s.doc}")
        for name, (_slot, default, doc) in s.params.items():
            lo, hi, whole = s.limits.get(name, (None, None, False))
            rng = f" [{'whole ' if whole else ''}{lo:g}..{hi:g}]" if lo is not None else ""
            print(f"    {name} = {default:g}{rng}: {doc}")
    from sim.strategies import LAZY
    for name, (doc, _load) in LAZY.items():
        if name not in STRATEGIES:
            print(f"{name}: {doc} (compiled on first use; docs/peer_bots.md)")
    print("spec syntax: NAME or NAME:param=value,param=value")
    print("Python strategies: FILE.py:CLASS or MODULE:CLASS, a class with "
          "choose(observation, legal_actions) -> action (docs/strategies.md)")
    return 0
