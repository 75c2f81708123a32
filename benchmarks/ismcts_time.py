#!/usr/bin/env python
"""Time per decision of ``goodwin_ismcts`` (issue 15, item 3; docs/peer_bots.md).

    PYTHONPATH=. python benchmarks/ismcts_time.py [--iterations 100 1000 20000]
        [--decisions 40] [--seed 1]

Seat 0 plays ``goodwin_ismcts:iterations=K``, the other seats ``expert``; hands of
seed S are played through ``sim.Game`` from hand 0 on, and each of seat 0's decisions
(pickup, each meld-phase action, the discard) is timed until ``--decisions`` of them
(fewer for the default budget: see ``--default-decisions``).  Prints, per budget, the
mean seconds per decision with its 95% interval (normal approximation) and the count,
the median and the time per iteration.  The compilation is done before timing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from sim.play.game import Game


def time_decisions(iterations: int, decisions: int, seed: int) -> list[float]:
    spec = f"goodwin_ismcts:iterations={iterations}"
    out = []
    hand = 0
    while len(out) < decisions:
        g = Game.new(seed, hand, strategies=[spec, "expert", "expert", "expert"])
        while not g.is_over and len(out) < decisions:
            if g.current_seat == 0:
                t = time.perf_counter()
                a = g.choose()
                out.append(time.perf_counter() - t)
            else:
                a = g.choose()
            g.apply(a)
        hand += 1
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, nargs="*", default=[100, 1000, 20000])
    ap.add_argument("--decisions", type=int, default=40)
    ap.add_argument("--default-decisions", type=int, default=12,
                    help="decisions timed at 20,000 iterations (the described default)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    time_decisions(5, 3, args.seed)                      # compile
    print("| iterations per action | decisions | mean s per decision, 95% interval | median s "
          "| ms per iteration |")
    print("|---:|---:|---|---:|---:|")
    for k in args.iterations:
        n = args.default_decisions if k >= 20000 else args.decisions
        ts = time_decisions(k, n, args.seed)
        m = statistics.fmean(ts)
        h = 1.96 * statistics.stdev(ts) / len(ts) ** 0.5
        print(f"| {k:,} | {len(ts)} | {m:.3f} ({m - h:.3f} .. {m + h:.3f}) | "
              f"{statistics.median(ts):.3f} | {1000 * m / k:.3f} |", flush=True)
    print(f"\nseed {args.seed}, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
