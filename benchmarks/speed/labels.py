#!/usr/bin/env python
"""Speed of ``burraco label``: labelled decisions/s against ``simulate``'s decisions/s.

    python benchmarks/speed/labels.py [--quick] [--repeats N] [--out PATH] [--hands H]
        [--seed S] [--threads T] [SPEC]

It plays hands ``0..H-1`` of seed ``S`` with the teacher ``SPEC`` (default the label default,
``rollout:halving=1,worlds=256,rollouts=120,pickup_share=1``) on every seat twice, on ``T``
threads (default 1): through the batch kernel of ``simulate`` (``sim.batch.executors._records``,
the ``rollout`` strategy through its C callback) and through the label kernel
(``sim.batch.labels.label_hands`` with the offset 0, so the very same hands: the records are
checked equal), which also writes a row per searched decision. Decisions/s are the searched
decisions (the label rows, the same in both) over the wall time; the figure is the median
over the repeats, simulate and label alternating, after an untimed warm-up of one hand each.
The ratio of the two is the cost of labelling (the observation, the rows, the Arrow table).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import log, parser, settings  # noqa: E402

MODES = {"full": {"repeats": 3, "hands": 8}, "quick": {"repeats": 1, "hands": 2}}


def main(argv=None) -> int:
    ap = parser(__doc__, out=None, repeats=(3, 1))
    ap.add_argument("spec", nargs="?", default=None, metavar="SPEC")
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    counts = settings(args, MODES)
    if args.hands:
        counts["hands"] = args.hands
    import numba

    from sim.batch import executors
    from sim.batch.labels import DEFAULT_TEACHER, full_spec, label_hands
    from sim.core.rules import Rules
    from sim.strategies import resolve_seats
    spec = args.spec or DEFAULT_TEACHER
    _names, kinds, params, _py = resolve_seats(spec)
    lparams = np.tile(full_spec(spec)[1], (4, 1))
    rv = Rules().to_vector()
    numba.set_num_threads(args.threads)
    n = counts["hands"]
    executors._records(args.seed, 0, 1, rv, kinds, params, False)            # warm-up
    label_hands(args.seed, range(1), rv, lparams, offset=0)
    sims, labs, rows = [], [], None
    for r in range(counts["repeats"]):
        t0 = time.perf_counter()
        ref = executors._records(args.seed, 0, n, rv, kinds, params, False)
        sims.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rec, table = label_hands(args.seed, range(n), rv, lparams, offset=0)
        labs.append(time.perf_counter() - t0)
        assert np.array_equal(rec, ref), "the label kernel played other hands than simulate"
        rows = table.num_rows
        log(f"repeat {r + 1}: simulate {sims[-1]:.2f} s, label {labs[-1]:.2f} s, {rows} rows")
    s, lab = float(np.median(sims)), float(np.median(labs))
    lines = [f"`{spec}` on every seat, hands 0..{n - 1} of seed {args.seed}, {args.threads} "
             f"thread(s), median of {counts['repeats']} repeats; {rows} searched decisions "
             f"({rows / n:.1f} a hand)", "",
             "| run | s | hands/s | searched decisions/s |", "|---|---:|---:|---:|",
             f"| simulate (batch kernel) | {s:.2f} | {n / s:.3f} | {rows / s:.1f} |",
             f"| label (label kernel, rows kept) | {lab:.2f} | {n / lab:.3f} | {rows / lab:.1f} |",
             "", f"label / simulate time: {lab / s:.3f}"]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
