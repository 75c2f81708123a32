"""``burraco replay``: show one hand of a run as a readable trace, as JSON, or as an HTML page  that steps through it."""
from __future__ import annotations

import argparse
import sys

from sim._util.text import plural
from sim.cli.common import _refuse_run_fixed, _rules, _rules_options, _specs, _team_options



def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``replay`` sub-command and its options to the sub-parsers ``sub``."""
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
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco replay``; the exit code."""
    from sim.batch import replay as R

    if args.format == "html":
        if args.out is None:
            raise ValueError("--format html writes a file: give --out FILE (the page is not "
                             "written to stdout)")
        from sim.play.viewer import _check_out
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
    from sim.play import viewer as V

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
