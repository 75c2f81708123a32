"""The strategy questions' figures as small PNG files (docs/questions.md).

    python -m sim.figures [--out docs/figures] [--hands N] [--seed S] [--only NAME,...]
                          [--threads T] [--player SPEC]

Each figure answers one strategy question of ``notebooks/`` (or compares the
rule sets, as ``benchmarks/rule_sets.py`` does) from runs of stated size,
with the notebook's own computation: the same ``sim`` calls (``simulate``,
``sweep``, ``deals``, ``deal_features.play_decks``), the same seeds and, by
default, the same hand counts, so a figure's answer is the notebook's answer.
Every figure is 800 x 450 pixels (dpi 100), has the question as its title,
plain-word labels, the 95% intervals as error bars and a footer with the hand
count, the seed and the strategies.

``--player SPEC`` answers every question for another player on every seat (the
base of the sweeps' variants too: ``learned:pile_min_size=3`` against
``learned``), into ``docs/figures/<player>/`` by default (:func:`player_dir`);
without it the player is the notebooks' (``expert``; ``heuristic`` for the
clean-or-dirty sweep and the rule sets).

Each PNG is written atomically (a temporary file, then ``os.replace``), and so
is ``figures.json`` beside them (:data:`INDEX`): for every figure its file,
question, command, hands, seed, strategies, the one-sentence answer with its
interval, the seconds it took and its labels.  A run with ``--only`` updates
the entries of the figures it makes and keeps the others whose PNG is there.

``matplotlib`` is needed by this module only (``pip install -e ".[figures]"``).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

from sim._util.text import OneLineParser, not_a_directory, plural
from sim.strategies import canonical_name
from sim.figures.plots import (DPI, MAX_BYTES, SIZE, _draw_clean_or_dirty, _draw_close_or_build,
                               _draw_first_player, _draw_hand_length, _draw_pile_size,
                               _draw_pozzetto_first, _draw_rule_sets, _draw_summary,
                               _draw_two_jokers, render)
from sim.figures.questions import (CLEAN_GRID, CLOSE_BURRACOS, PILE_SIZES, RULE_SETS,
                                   SUMMARY_SOURCES, Made, Spec, _clean_or_dirty, _close_or_build,
                                   _Ctx, _first_player, _hand_length, _pile_size, _pozzetto_first,
                                   _rule_sets, _summary, _two_jokers, clean_label, mean_ci,
                                   point_label)

__all__ = ["CLEAN_GRID", "CLOSE_BURRACOS", "DPI", "FIGURES", "INDEX", "MAX_BYTES", "MIN_HANDS",
           "Made", "NAMES", "PILE_SIZES", "PROG", "RULE_SETS", "SIZE", "Spec", "clean_label", "main",
           "mean_ci", "player_dir", "point_label", "read_index", "render", "write_atomic"]

#: The sidecar listing the figures of an output directory.
INDEX = "figures.json"
#: Fewest hands a run may have: below it the intervals mean little.
MIN_HANDS = 1000
PROG = "python -m sim.figures"


FIGURES = {s.name: s for s in (
    Spec("first_player", "How much is it worth to play first in a hand?",
         "notebooks/a_first_player.ipynb", 200_000, 1, _first_player, _draw_first_player),
    Spec("pile_size", "From what pile size is taking the discard pile worth it?",
         "notebooks/b_pile_size.ipynb", 100_000, 2, _pile_size, _draw_pile_size),
    Spec("close_or_build", "Close at once or keep building?",
         "notebooks/c_close_or_build.ipynb", 100_000, 3, _close_or_build, _draw_close_or_build),
    Spec("clean_or_dirty", "Chase the clean burraco or accept the dirty one?",
         "notebooks/d_clean_or_dirty.ipynb", 100_000, 4, _clean_or_dirty, _draw_clean_or_dirty),
    Spec("pozzetto_first", "How much is reaching the pozzetto first worth?",
         "notebooks/e_pozzetto_first.ipynb", 200_000, 5, _pozzetto_first, _draw_pozzetto_first),
    Spec("hand_length", "How long do hands last, and how are the scores distributed?",
         "notebooks/f_hand_length_scores.ipynb", 200_000, 6, _hand_length, _draw_hand_length),
    Spec("two_jokers", "What is holding two jokers worth?",
         "notebooks/g_two_jokers.ipynb", 200_000, 14, _two_jokers, _draw_two_jokers),
    Spec("rule_sets", "How do the results differ between rule sets?",
         "benchmarks/rule_sets.py", 100_000, 2026, _rule_sets, _draw_rule_sets),
    Spec("summary", "What is each choice worth, in points per hand?",
         "the figures above", 0, 0, _summary, _draw_summary, needs=SUMMARY_SOURCES),
)}
#: Figure names in the order they are made.
NAMES = tuple(FIGURES)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: the file is either the old one or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:          # the umask's permissions, as any written file
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def player_dir(player: str) -> str:
    """The default output directory of a player's figures: ``docs/figures`` for
    ``expert``, else ``docs/figures/`` and the canonical spec with every run of characters
    other than letters, digits, ``.`` and ``-`` made one ``_`` (``learned:model=v3`` ->
    ``docs/figures/learned_model_v3``)."""
    import re
    if player == "expert":
        return "docs/figures"
    return "docs/figures/" + re.sub(r"[^A-Za-z0-9.-]+", "_", player).strip("_")


def _command(name: str, hands, seed, player: str = "expert") -> str:
    """The command that makes this figure again: its hands and seed spelled out (for the
    summary, the options of this run: its sources' own defaults otherwise), and the player
    unless it is ``expert``."""
    cmd = f"{PROG} --only {name}"
    if player != "expert":
        cmd += f" --player {player}"
    if hands is not None:
        cmd += f" --hands {hands}"
    if seed is not None:
        cmd += f" --seed {seed}"
    return cmd


def read_index(out: Path) -> list:
    """The entries of ``out/figures.json`` (an empty list if it is missing or unreadable)."""
    try:
        entries = json.loads((out / INDEX).read_text(encoding="utf-8"))["figures"]
        return [e for e in entries if isinstance(e, dict) and e.get("name") in FIGURES]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _write_index(out: Path, entries: dict) -> None:
    """``figures.json``: this run's entries and the earlier ones whose PNG is still there."""
    keep = {e["name"]: e for e in read_index(out) if (out / e.get("file", "")).is_file()}
    keep.update(entries)
    doc = {"generated_by": PROG, "size_px": list(SIZE),
           "figures": [keep[n] for n in NAMES if n in keep]}
    write_atomic(out / INDEX, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode())


# ---------------------------------------------------------------- command line
def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, name="figures", description=(
        "Render the strategy questions' figures (notebooks/) and the rule sets' comparison as "
        "small PNG files, with figures.json listing each one's command, hands, seed and "
        "answer. By default every figure runs its notebook's hand count and seed (474 s in "
        "all measured on two cores shared with other processes, once the kernels are "
        "compiled; docs/questions.md)."))
    p.add_argument("--out", metavar="DIR",
                   help="output directory (default: docs/figures, or docs/figures/PLAYER "
                        "with --player)")
    p.add_argument("--hands", type=int, metavar="N",
                   help="hands of every figure's runs (deals per point for the sweeps, deals "
                        f"looked at for two_jokers; at least {MIN_HANDS}); default: each "
                        "figure's notebook's count (100,000 or 200,000)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="seed of every figure's runs; default: each figure's notebook's seed")
    p.add_argument("--only", metavar="NAME,...",
                   help="make only these figures (the summary makes the ones it draws "
                        "from); names: " + ", ".join(NAMES))
    p.add_argument("--threads", type=int, metavar="T", help="Numba threads (default: all)")
    p.add_argument("--player", default="expert", metavar="SPEC",
                   help="the strategy on every seat, and the base of the sweeps' variants "
                        "(a built-in spec, e.g. learned); default: expert, with the notebooks' "
                        "heuristic for the clean-or-dirty sweep and the rule sets")
    return p


def _check(args) -> list:
    """The names to make, in order; ValueError naming the bad option."""
    import numba
    if args.hands is not None and args.hands < MIN_HANDS:
        raise ValueError(f"--hands must be at least {MIN_HANDS}, got {args.hands}")
    if args.seed is not None and not 0 <= args.seed < 2**64:
        raise ValueError(f"--seed must be in 0 .. 2**64-1, got {args.seed}")
    most = int(numba.config.NUMBA_NUM_THREADS)
    if args.threads is not None and not 1 <= args.threads <= most:
        raise ValueError(f"--threads must be in 1 .. {most}, got {args.threads}")
    args.player_given = args.player
    try:
        args.player = canonical_name(args.player)
    except ValueError as exc:
        raise ValueError(f"--player: {' '.join(str(exc).split())}") from None
    if args.only is None:
        return list(NAMES)
    asked = [n.strip() for n in args.only.split(",") if n.strip()]
    bad = [n for n in asked if n not in FIGURES]
    if bad or not asked:
        raise ValueError(f"--only: unknown figure {', '.join(map(repr, bad)) or 'name'}; "
                         f"allowed: {', '.join(NAMES)}")
    want = set(asked) | {d for n in asked for d in FIGURES[n].needs}
    return [n for n in NAMES if n in want]


def main(argv: list | None = None) -> int:
    """Run ``python -m sim.figures``.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 success, 1 a file could not be written, 2 bad input or matplotlib
        missing (one line on stderr), 130 interrupted (the figures written so
        far are kept and listed).
    """
    args = _parser().parse_args(argv)
    if importlib.util.find_spec("matplotlib") is None or \
            importlib.util.find_spec("PIL") is None:
        print("figures: error: matplotlib is not installed; install it with "
              "pip install -e \".[figures]\"", file=sys.stderr)
        return 2
    try:
        names = _check(args)
        out = Path(args.out if args.out is not None else player_dir(args.player))
        if out.exists() and not out.is_dir():
            raise ValueError(not_a_directory("--out", out))
        out.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as exc:
        print(f"figures: error: {exc}", file=sys.stderr)
        return 2

    def say(text):
        print(text, flush=True)
    ctx = _Ctx(args.threads, say, player=args.player, given=args.player_given)
    entries, done = {}, []
    start = time.time()
    default = "each figure's default"
    say(f"figures: {plural(len(names), 'figure')} into {out} (player: {args.player}; hands: "
        f"{default if args.hands is None else format(args.hands, ',')}; "
        f"seed: {default if args.seed is None else args.seed})")
    try:
        for i, name in enumerate(names, 1):
            spec = FIGURES[name]
            hands = args.hands or spec.hands
            seed = spec.seed if args.seed is None else args.seed
            say(f"[{i}/{len(names)}] {name}: {spec.question}")
            t = time.time()
            made = spec.compute(hands, seed, ctx)
            if not spec.needs:
                made.hands, made.seed = hands, seed
            ctx.made[name] = made
            png, labels = render(spec, made)
            path = out / f"{name}.png"
            write_atomic(path, png)
            seconds = time.time() - t
            # the player as given when the rules picked other models for it (learned's lines)
            who = args.player_given if made.data.get("played") else args.player
            command = (_command(name, args.hands, args.seed, who) if spec.needs
                       else _command(name, hands, seed, who))
            entries[name] = {
                "name": name, "file": path.name, "question": spec.question,
                "source": spec.source, "command": command,
                "hands": made.hands, "hands_text": made.hands_text, "seed": made.seed,
                "player": args.player, "strategy": made.strategy, "answer": made.answer,
                "seconds": round(seconds, 1), "bytes": len(png), "labels": labels}
            _write_index(out, entries)
            done.append((path, made, seconds))
            say(f"    {path} ({len(png) / 1000:.0f} KB, {seconds:.1f} s): {made.answer}")
    except KeyboardInterrupt:
        print(f"figures: interrupted; {plural(len(done), 'figure')} written ({out / INDEX} lists them)",
              file=sys.stderr)
        return 130
    except ValueError as exc:
        print(f"figures: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"figures: error: cannot write in {os.fspath(out)!r}: {exc}", file=sys.stderr)
        return 1
    say(f"\nfigures: {plural(len(done), 'figure')} written to {out} in {time.time() - start:.1f} s "
        f"({out / INDEX} lists them)")
    for path, made, seconds in done:
        say(f"  {path.name}: {made.hands_text}, {seconds:.1f} s\n    {made.answer}")
    return 0
