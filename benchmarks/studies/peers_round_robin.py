#!/usr/bin/env python
"""Round robin of the peer bots, ``expert`` and ``heuristic``.

    python benchmarks/studies/peers_round_robin.py [--hands N] [--seed S] [--md]
        [--only NAME ...] [--against NAME ...]

Every pair plays ``sim.compare`` (the paired design: each deal played twice, seats
swapped) on the same ``N`` deals of seed ``S``.  Prints, per pair, the mean margin of the
first over the second in points per hand with its 95% interval and the deal count, then
each strategy's mean margin over all its opponents (a ranking).  ``--md`` prints the
tables as Markdown (docs/peer_bots.md).  With ``--against`` only the pairs of each
strategy of ``--only`` with each of ``--against`` are played (not all pairs).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))      # this checkout's sim
import sim  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--md", action="store_true")
    ap.add_argument("--only", nargs="*", default=None, help="strategies (default: all)")
    ap.add_argument("--against", nargs="*", default=None,
                    help="play each of --only against each of these only")
    args = ap.parse_args(argv)
    names = args.only or (list(sim.peers.PEERS) + ["heuristic", "expert"])
    if args.against:
        pairs = [(a, b) for b in args.against for a in names if a != b]
        names = list(dict.fromkeys(names + args.against))
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    t0 = time.time()
    sim.peers.register_all()
    rows = []
    for a, b in pairs:
        t1 = time.time()
        r = sim.compare(a, b, hands=args.hands, seed=args.seed).iloc[0]
        rows.append((a, b, r["mean_diff"], r["ci95_low"], r["ci95_high"], int(r["hands"])))
        line = (f"{a:>16} - {b:<16} {r['mean_diff']:+8.1f}  "
                f"[{r['ci95_low']:+8.1f}, {r['ci95_high']:+8.1f}]  n={int(r['hands'])}  "
                f"{time.time() - t1:.0f} s")
        # with --md each pair still shows on stderr as it ends (a long run can be followed)
        print(line, file=sys.stderr if args.md else sys.stdout, flush=True)
    # each strategy's mean margin over its opponents
    total = {n: [] for n in names}
    for a, b, m, lo, hi, n in rows:
        total[a].append(m)
        total[b].append(-m)
    ranking = sorted(names, key=lambda n: -sum(total[n]) / len(total[n]))
    if args.md:
        print("| A | B | A - B (points per hand) | 95% interval | deals |")
        print("|---|---|---:|---|---:|")
        for a, b, m, lo, hi, n in rows:
            if m < 0:
                a, b, m, lo, hi = b, a, -m, -hi, -lo
            print(f"| {a} | {b} | {m:+.1f} | {lo:+.1f} .. {hi:+.1f} | {n:,} |")
        print()
        print("| rank | strategy | mean margin over the others (points per hand) |")
        print("|---:|---|---:|")
        for k, n in enumerate(ranking, 1):
            print(f"| {k} | {n} | {sum(total[n]) / len(total[n]):+.1f} |")
    else:
        print()
        for k, n in enumerate(ranking, 1):
            print(f"{k:>3} {n:<16} {sum(total[n]) / len(total[n]):+8.1f}")
    print(f"\n{len(rows)} pairs, {args.hands} deals each, seed {args.seed}; "
          f"{time.time() - t0:.0f} s, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
