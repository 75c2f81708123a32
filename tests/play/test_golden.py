"""The golden playthrough: the readable trace of three hands, compared exactly.

``tests/data/golden_playthrough.txt`` holds what ``burraco replay --seed S --hand I``
prints (``sim.trace.format_text(sim.replay(S, I))``) for three hands of the runs whose
records ``tests/test_digest.py`` pins (same seed, default rules): every turn's pickup,
melds, lay-offs and discard, the tables and the score breakdown.  The digests say that
a record changed; this file shows how the play changed, in words, and lets a reader
follow whole hands (a pile pickup, burracos, both ways of taking a pozzetto, a close).

After a deliberate change of play, rules or the trace format, regenerate the file with
``python -m tests.play.test_golden --write`` (from the repository root) and say why in the
commit message, as for the digests.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import sys
from pathlib import Path

import sim
from sim import trace

TESTS = Path(__file__).resolve().parents[1]
GOLDEN = TESTS / "data" / "golden_playthrough.txt"
REGENERATE = "python -m tests.play.test_golden --write"
#: the seed of the pinned runs of tests/test_digest.py
SEED = 20261129
#: (strategy, hand index, what the hand shows besides a pile pickup of several cards, a
#: burraco, a pozzetto and a close, which every hand here has: features())
HANDS = [
    ("heuristic", 9, {"clean burraco", "pozzetto con lo scarto", "pozzetto penalty"}),
    ("heuristic", 41, {"pozzetto al volo", "pozzetto con lo scarto"}),
    ("random", 5173, {"clean burraco", "pozzetto al volo", "pozzetto con lo scarto"}),
]
EVERY_HAND = {"pile pickup", "burraco", "pozzetto", "close"}


def command(strategy: str, hand: int) -> str:
    """The command line that prints the trace of ``hand``."""
    extra = "" if strategy == "heuristic" else f" --strategy {strategy}"
    return f"burraco replay --seed {SEED} --hand {hand}{extra}"


def golden_text() -> str:
    """The file's expected content, from the engine as it is."""
    out = ["# The golden playthrough: the readable trace of three hands of the pinned runs of",
           f"# tests/test_digest.py (seed {SEED}, default rules), checked line by line by",
           "# tests/play/test_golden.py. After a deliberate change of play, rules or the trace",
           f"# format, regenerate it with `{REGENERATE}`.", ""]
    for strategy, hand, _ in HANDS:
        doc = sim.replay(SEED, hand, strategies=strategy)
        out += [f"=== {command(strategy, hand)}", trace.format_text(doc), ""]
    return "\n".join(out)


def features(doc: dict) -> set:
    """What a replayed hand shows, from its events and its record."""
    ev, res = doc["events"], doc["result"]
    got = set()
    if any(e["type"] == "take_pile" and len(e["card_ids"]) > 1 for e in ev):
        got.add("pile pickup")
    teams = (0, 1)
    if sum(res[f"clean_burracos_t{t}"] + res[f"dirty_burracos_t{t}"] for t in teams):
        got.add("burraco")
    if sum(res[f"clean_burracos_t{t}"] for t in teams):
        got.add("clean burraco")
    modes = {e["mode"] for e in ev if e["type"] == "pozzetto"}
    if modes:
        got.add("pozzetto")
    got |= {{"direct": "pozzetto al volo", "discard": "pozzetto con lo scarto"}[m] for m in modes}
    if any(res[f"pozzetto_penalty_t{t}"] for t in teams):
        got.add("pozzetto penalty")
    if res["end_reason"] == "closed":
        got.add("close")
    return got


def test_the_golden_playthrough_is_the_engines_trace():
    want = golden_text()
    have = GOLDEN.read_text(encoding="utf-8")
    if have != want:
        diff = list(difflib.unified_diff(have.splitlines(), want.splitlines(),
                                         "tests/data/golden_playthrough.txt", "the engine now",
                                         lineterm="", n=1))
        more = f"\n... ({len(diff) - 40} more diff lines)" if len(diff) > 40 else ""
        raise AssertionError(
            "tests/data/golden_playthrough.txt is not the engine's trace of its hands. If the "
            "play, the rules or the trace format changed on purpose, regenerate it with "
            f"`{REGENERATE}` (from the repository root) and say why in the commit "
            "message; otherwise the engine's play changed:\n" + "\n".join(diff[:40]) + more)


def test_the_golden_hands_show_what_they_should():
    """Every hand has a pile pickup of several cards, a burraco, a pozzetto and a close,
    and its own extras (HANDS); after a regeneration that loses one, pick other hands."""
    for strategy, hand, extra in HANDS:
        got = features(sim.replay(SEED, hand, strategies=strategy))
        missing = (EVERY_HAND | extra) - got
        assert not missing, f"{strategy} hand {hand} shows {sorted(got)}, not {sorted(missing)}"


def test_the_golden_hands_are_in_the_pinned_runs():
    """Each hand lies in the block of records tests/test_digest.py pins for its strategy."""
    tree = ast.parse((TESTS / "test_digest.py").read_text(encoding="utf-8"))
    pinned = next(ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) and node.targets[0].id == "PINNED")
    for strategy, hand, _ in HANDS:
        seed, start, n, _ = pinned[strategy]
        assert seed == SEED and start <= hand < start + n, (strategy, hand, pinned[strategy])


def test_each_section_is_what_its_command_prints(capsys):
    """The header of a section is the command that prints it (one hand, the CLI)."""
    strategy, hand, _ = HANDS[-1]
    from sim.cli import main
    assert main(command(strategy, hand).split()[1:]) == 0
    printed = capsys.readouterr().out
    assert printed == trace.format_text(sim.replay(SEED, hand, strategies=strategy)) + "\n"
    assert f"=== {command(strategy, hand)}\n{printed}" in GOLDEN.read_text(encoding="utf-8")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.play.test_golden",
                                description="Print or rewrite tests/data/golden_playthrough.txt")
    p.add_argument("--write", action="store_true", help="rewrite the file")
    args = p.parse_args(argv)
    text = golden_text()
    if args.write:
        GOLDEN.write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {GOLDEN} ({len(text.splitlines())} lines)")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
