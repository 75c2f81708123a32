#!/usr/bin/env python
"""Speed of the game side of position analysis; writes benchmarks/speed/analyze_game.md.

    python benchmarks/speed/analyze_game.py [--quick] [--repeats N] [--out PATH]

From ``examples/position.toml`` (seat 3, meld phase of turn 12, match totals 1240 and
985), every legal candidate, on all threads: rollouts/s of ``sim.analyze`` with the
built-in ``expert`` for the hand objective and for ``objective="match"`` (the match
played on after the hand), and with a Python rollout strategy (``PileTaker`` of
docs/examples/pile_taker.py, rolled out through ``sim.Game`` in this process); then
``sim.analyze_decision`` of a decision of a simulated hand (reaching it and the
analysis).  Each figure is the median of the repeats after an untimed warm-up, on the
code of this checkout (no snapshot); the CPU used by other processes is reported.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import REPO, LoadMeter, log, machine_facts, parser, settings, timed  # noqa: E402

MODES = {"full": {"repeats": 5, "worlds": 1_000, "python_worlds": 40, "decision_worlds": 1_000},
         "quick": {"repeats": 2, "worlds": 200, "python_worlds": 8, "decision_worlds": 200}}
POSITION = REPO / "examples" / "position.toml"
PYTHON = f"{REPO / 'docs' / 'examples' / 'pile_taker.py'}:PileTaker"
DECISION = {"hand_index": 14, "turn": 13, "decision": "meld", "seed": 1,
            "strategies": "expert"}


def main(argv=None) -> int:
    args = parser(__doc__, out=Path(__file__).resolve().with_name("analyze_game.md")).parse_args(argv)
    mode = settings(args, MODES)
    import sim

    meter = LoadMeter()
    rows = []

    def figure(name, fn, rollouts, note=""):
        log(f"{name}: warm-up")
        fn()
        secs = timed(fn, mode["repeats"])
        rates = [rollouts / s for s in secs]
        rows.append((name, float(np.median(rates)), min(rates), max(rates),
                     float(np.median(secs)), note))
        log(f"{name}: {np.median(rates):,.0f} rollouts/s")

    n = len(sim.Game.from_position(POSITION).legal_actions())
    w = mode["worlds"]
    figure("hand objective, expert (kernel)",
           lambda: sim.analyze(POSITION, rollouts=w, seed=1), w * n, f"{w:,} worlds x {n}")
    later = sim.analyze(POSITION, rollouts=w, seed=1, objective="match")["later_hands"].mean()
    figure("match objective, expert (kernels.search.match_rollouts)",
           lambda: sim.analyze(POSITION, rollouts=w, seed=1, objective="match"), w * n,
           f"{w:,} worlds x {n}; {later:.2f} later hands per rollout")
    pw = mode["python_worlds"]
    figure("hand objective, Python PileTaker (sim.Game)",
           lambda: sim.analyze(POSITION, rollouts=pw, seed=1, policy=PYTHON), pw * n,
           f"{pw} worlds x {n}; one process")
    figure("match objective, Python PileTaker (sim.Game)",
           lambda: sim.analyze(POSITION, rollouts=pw, seed=1, policy=PYTHON, objective="match"),
           pw * n, f"{pw} worlds x {n}; one process")
    dw = mode["decision_worlds"]
    t0 = time.perf_counter()
    g, _, _ = sim.analysis_game.decision_game(**DECISION)
    reach = time.perf_counter() - t0
    c = len(g.legal_actions())
    figure(f"analyze_decision (hand {DECISION['hand_index']} of seed 1, turn "
           f"{DECISION['turn']}, meld)",
           lambda: sim.analyze_decision(**DECISION, rollouts=dw), dw * c,
           f"{dw:,} worlds x {c}; reaching the decision {reach * 1000:.0f} ms")
    others = meter.cores()

    lines = ["# Position analysis, game side: speed (benchmarks/speed/analyze_game.py)", "",
             (f"Command: `{' '.join(['python', 'benchmarks/speed/analyze_game.py', *(sys.argv[1:] if argv is None else argv)])}`; "
              f"{time.strftime('%Y-%m-%d %H:%M')}; other processes used {others:.2f} cores on "
              "average during the run."), "",
             "| figure | rollouts/s (median) | min – max | s per call | work |",
             "|---|---|---|---|---|"]
    for name, med, lo, hi, secs, note in rows:
        lines.append(f"| {name} | {med:,.0f} | {lo:,.0f} – {hi:,.0f} | {secs:.2f} | {note} |")
    lines += ["", "Machine:", ""] + [f"* {k}: {v}" for k, v in machine_facts().items()]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
