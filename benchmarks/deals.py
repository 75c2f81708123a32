#!/usr/bin/env python
"""Speed of the deal table (issue 14, item 5); prints the figures of benchmarks/deals.md.

    PYTHONPATH=. python benchmarks/deals.py [--hands N] [--repeats R]

* ``kernels.table.deal_features.deal_features`` alone (int16 feature rows, all threads);
* ``sim.deals`` (the kernel plus the DataFrame with its documented columns);
* ``sim.deal_features.select`` of ``s0_jokers + s2_jokers >= 2`` (deals plus the query);
* ``sim.simulate(hand_index=...)`` of the selected hands beside a full run of the same
  number of hands (hands/s of each), on 100,000 hands.

Each figure is the median of ``--repeats`` timed calls after an untimed warm-up (which
also compiles or loads the kernels).  The load average before and after is printed:
figures taken on a busy machine are slower.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numba
import numpy as np

import sim
from kernels.table import deal_features as KF
from sim import deal_features as DF


def timed(fn, repeats: int) -> tuple:
    fn()                                    # warm-up: compile or load
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), max(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n, r = args.hands, args.repeats
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"numba threads {numba.get_num_threads()}, load average {os.getloadavg()[0]:.2f}")
    rv = sim.Rules().to_vector()
    raw = np.empty((n, KF.N_FEATURES), np.int16)
    rows = []
    med, lo, hi = timed(lambda: KF.deal_features(np.uint64(1), np.int64(0), np.int64(n), rv,
                                                 raw), r)
    rows.append(("kernel deal_features", n / med, n / hi, n / lo, med))
    med, lo, hi = timed(lambda: sim.deals(1, n), r)
    rows.append(("sim.deals (DataFrame)", n / med, n / hi, n / lo, med))
    where = "s0_jokers + s2_jokers >= 2"
    med, lo, hi = timed(lambda: DF.select(1, n, where), r)
    rows.append((f"select {where!r}", n / med, n / hi, n / lo, med))
    print(f"\n{n:,} deals, median of {r} (min .. max):")
    print("| figure | deals/s | range | s per call |\n|---|---:|---:|---:|")
    for name, m, a, b, s in rows:
        print(f"| {name} | {m:,.0f} | {a:,.0f} .. {b:,.0f} | {s:.3f} |")
    hands = 100_000
    idx = DF.select(1, hands, where)
    med_sel, _, _ = timed(lambda: sim.simulate(hands, 1, hand_index=idx), max(1, r // 2))
    med_full, _, _ = timed(lambda: sim.simulate(len(idx), 1), max(1, r // 2))
    print(f"\nselected {len(idx):,} of {hands:,} hands with {where!r}:")
    print(f"| run | hands | s | hands/s |\n|---|---:|---:|---:|")
    print(f"| simulate(hand_index=selected) | {len(idx):,} | {med_sel:.2f} | "
          f"{len(idx) / med_sel:,.0f} |")
    print(f"| simulate({len(idx):,}) full | {len(idx):,} | {med_full:.2f} | "
          f"{len(idx) / med_full:,.0f} |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
