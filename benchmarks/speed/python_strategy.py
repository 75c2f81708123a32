"""Hands/s of Python strategies (sim.pystrategy) beside the built-in heuristic.

    python benchmarks/speed/python_strategy.py [--hands 400] [--builtin-hands 40000] [--quick]
        [--repeats N] [--out PATH]

Prints a Markdown table (docs/strategies.md quotes it). Every figure is the
median of ``--repeats`` (3) timed repeats of ``sim.simulate`` (seed 1, default rules) after an
untimed warm-up that compiles or loads the kernels:

* the built-in ``heuristic`` on every seat (the parallel batch kernel), on 1
  thread and on all threads;
* a trivial Python strategy (``FirstLegal``: the first legal action) on every
  seat (in this process, and in one worker process per core), and on seats 0
  and 2 with ``heuristic`` on 1 and 3;
* the small strategy of docs/examples/pile_taker.py (``PileTaker``) on seats 0
  and 2 against ``expert``;

with the Python decisions per hand and the hand time per Python decision
(observation, legal actions, choose and apply, plus the built-in seats' share
of the hand).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import REPO, emit, parser  # noqa: E402

import sim  # noqa: E402

ROOT = str(REPO)


class FirstLegal:
    """Always the first legal action (draw, end the meld phase, the lowest discard)."""

    def choose(self, observation, legal_actions):
        return legal_actions[0]


DECISIONS = [0]                  # Python decisions made by the counted strategies


def counted(cls):
    """A subclass of strategy class ``cls`` that counts its decisions in DECISIONS."""
    class Counted(cls):
        def choose(self, observation, legal_actions):
            DECISIONS[0] += 1
            return super().choose(observation, legal_actions)
    Counted.__name__ = Counted.__qualname__ = cls.__name__
    return Counted


def pile_taker():
    """The strategy of docs/strategies.md (class), loaded from its example file."""
    path = os.path.join(ROOT, "docs", "examples", "pile_taker.py")
    return sim.pystrategy.load(f"{path}:PileTaker").target


def timed(hands, strategies, threads=None, repeats=3):
    """(median hands/s, min, max) of sim.simulate over ``repeats`` runs."""
    sim.simulate(min(hands, 20), 1, strategies=strategies, threads=threads)   # warm-up
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sim.simulate(hands, 1, strategies=strategies, threads=threads, return_frame=False)
        rates.append(hands / (time.perf_counter() - t0))
    return statistics.median(rates), min(rates), max(rates)


def main(argv=None):
    ap = parser(__doc__, repeats=(3, 2))
    ap.add_argument("--hands", type=int, default=None,
                    help="hands of each Python run (default 400, 40 with --quick)")
    ap.add_argument("--builtin-hands", type=int, default=None,
                    help="hands of each built-in run (default 40000, 4000 with --quick)")
    args = ap.parse_args(argv)
    args.hands = args.hands or (40 if args.quick else 400)
    args.builtin_hands = args.builtin_hands or (4_000 if args.quick else 40_000)
    repeats = args.repeats or (2 if args.quick else 3)
    import numba
    threads = numba.config.NUMBA_NUM_THREADS
    rows = []

    def row(label, hands, strategies, thr=None):
        DECISIONS[0] = 0
        med, lo, hi = timed(hands, strategies, thr, repeats)
        extra = ""
        if DECISIONS[0]:
            n = min(hands, 200)
            DECISIONS[0] = 0
            t0 = time.perf_counter()
            sim.simulate(n, 1, strategies=strategies, return_frame=False)
            dt = time.perf_counter() - t0
            extra = (f"{DECISIONS[0] / n:.0f} Python decisions per hand; hand time / Python "
                     f"decisions: {dt / DECISIONS[0] * 1e6:.0f} µs")
        rows.append((label, f"{med:,.0f}", f"{lo:,.0f} – {hi:,.0f}", f"{hands:,}", extra))
        print(f"{label}: {med:,.0f} hands/s", file=sys.stderr)

    row("built-in heuristic, every seat, 1 thread (batch kernel)", args.builtin_hands,
        "heuristic", 1)
    row(f"built-in heuristic, every seat, {threads} threads (batch kernel)", args.builtin_hands,
        "heuristic", threads)
    first = counted(FirstLegal)
    row("Python FirstLegal, every seat", args.hands, first)
    row(f"Python FirstLegal, every seat, {threads} worker processes (threads={threads})",
        args.hands, first, threads)
    row("Python FirstLegal on seats 0, 2; heuristic on 1, 3", args.hands,
        [first, "heuristic", first, "heuristic"])
    taker = counted(pile_taker())
    row("Python PileTaker (docs/examples/pile_taker.py) on seats 0, 2; expert on 1, 3",
        args.hands, [taker, "expert", taker, "expert"])

    lines = [f"| run | hands/s (median of {repeats}) | range | hands per repeat | notes |",
             "|---|---:|---|---:|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", f"`python benchmarks/speed/python_strategy.py --hands {args.hands} --builtin-hands "
              f"{args.builtin_hands} --repeats {repeats}`; Python {sys.version.split()[0]}, numba "
              f"{numba.__version__}, {os.cpu_count()} cores"]
    emit(lines, args.out)


if __name__ == "__main__":
    main()
