#!/usr/bin/env python
"""Time per decision of ``goodwin_ismcts`` (docs/peer_bots.md).

    python benchmarks/speed/ismcts_time.py [--iterations 100 1000 20000]
        [--decisions 40] [--seed 1] [--quick] [--out PATH]

Seat 0 plays ``goodwin_ismcts:iterations=K``, the other seats ``expert``; hands of
seed S are played through ``sim.Game`` from hand 0 on, and each of seat 0's decisions
(pickup, each meld-phase action, the discard) is timed until ``--decisions`` of them
(fewer for the default budget: see ``--default-decisions``).  Prints, per budget, the
mean seconds per decision with its 95% interval (normal approximation) and the count,
the median and the time per iteration.  The compilation is done before timing.
``--quick``: 100 and 1,000 iterations, 10 decisions each.
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import emit, parser  # noqa: E402

from sim.play.game import Game  # noqa: E402


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
    ap = parser(__doc__, repeats=None)
    ap.add_argument("--iterations", type=int, nargs="*", default=None,
                    help="budgets (default 100 1000 20000; 100 1000 with --quick)")
    ap.add_argument("--decisions", type=int, default=None,
                    help="decisions timed per budget (default 40, 10 with --quick)")
    ap.add_argument("--default-decisions", type=int, default=12,
                    help="decisions timed at 20,000 iterations (the described default)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    args.iterations = args.iterations or ([100, 1000] if args.quick else [100, 1000, 20000])
    args.decisions = args.decisions or (10 if args.quick else 40)
    time_decisions(5, 3, args.seed)                      # compile
    lines = ["| iterations per action | decisions | mean s per decision, 95% interval | median s "
             "| ms per iteration |", "|---:|---:|---|---:|---:|"]
    print("\n".join(lines), flush=True)
    for k in args.iterations:
        n = args.default_decisions if k >= 20000 else args.decisions
        ts = time_decisions(k, n, args.seed)
        m = statistics.fmean(ts)
        h = 1.96 * statistics.stdev(ts) / len(ts) ** 0.5
        lines.append(f"| {k:,} | {len(ts)} | {m:.3f} ({m - h:.3f} .. {m + h:.3f}) | "
                     f"{statistics.median(ts):.3f} | {1000 * m / k:.3f} |")
        print(lines[-1], flush=True)
    lines += ["", f"seed {args.seed}, load average {os.getloadavg()[0]:.1f}"]
    print("\n".join(lines[-2:]))
    emit(lines, args.out, echo=False)                    # printed row by row above
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
