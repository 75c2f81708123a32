#!/usr/bin/env python
"""Speed of the deal table (sim.deals); prints the figures of benchmarks/speed/deals.md.

    python benchmarks/speed/deals.py [--hands N] [--quick] [--repeats N] [--out PATH]

* ``kernels.table.deal_features.deal_features`` alone (int16 feature rows, all threads);
* ``sim.deals`` (the kernel plus the DataFrame with its documented columns);
* ``sim.deal_features.select`` of ``s0_jokers + s2_jokers >= 2`` (deals plus the query);
* ``sim.simulate(hand_index=...)`` of the selected hands beside a full run of the same
  number of hands (hands/s of each), on 100,000 hands.

Each figure is the median of ``--repeats`` timed calls after an untimed warm-up (which
also compiles or loads the kernels); ``--quick`` plays 100,000 deals and 20,000 hands.  The load average before and after is printed:
figures taken on a busy machine are slower.
"""
from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import emit, parser, warm_median  # noqa: E402

import sim  # noqa: E402
from kernels.table import deal_features as KF
from sim import deal_features as DF


def main(argv=None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--hands", type=int, default=None,
                    help="deals of the table figures (default 1000000, 100000 with --quick)")
    args = ap.parse_args(argv)
    n = args.hands or (100_000 if args.quick else 1_000_000)
    r = args.repeats or (3 if args.quick else 5)
    timed = warm_median
    out = [f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
           f"numba threads {numba.get_num_threads()}, load average {os.getloadavg()[0]:.2f}"]
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
    out += ["", f"{n:,} deals, median of {r} (min .. max):",
            "| figure | deals/s | range | s per call |", "|---|---:|---:|---:|"]
    for name, m, a, b, s in rows:
        out.append(f"| {name} | {m:,.0f} | {a:,.0f} .. {b:,.0f} | {s:.3f} |")
    hands = 20_000 if args.quick else 100_000
    idx = DF.select(1, hands, where)
    med_sel, _, _ = timed(lambda: sim.simulate(hands, 1, hand_index=idx), max(1, r // 2))
    med_full, _, _ = timed(lambda: sim.simulate(len(idx), 1), max(1, r // 2))
    out += ["", f"selected {len(idx):,} of {hands:,} hands with {where!r}:",
            "| run | hands | s | hands/s |", "|---|---:|---:|---:|",
            f"| simulate(hand_index=selected) | {len(idx):,} | {med_sel:.2f} | "
            f"{len(idx) / med_sel:,.0f} |",
            f"| simulate({len(idx):,}) full | {len(idx):,} | {med_full:.2f} | "
            f"{len(idx) / med_full:,.0f} |",
            "", f"load average after: {os.getloadavg()[0]:.2f}"]
    emit(out, args.out)


if __name__ == "__main__":
    main()
