#!/usr/bin/env python
"""Speed of the search player ``rollout``: rollouts/s and rollouts per searched decision.

    python benchmarks/speed/search_halving.py [--quick] [--repeats N] [--out PATH]
        [--hands H] [--seed S] [--src DIR] [SPEC ...]

For each strategy spec (default: today's flat search ``rollout:halving=0,...`` and a few
sequential-halving settings) it plays hands ``0..H-1`` of seed ``S`` in ``sim.Game``, the
spec on team 0 and ``expert`` on team 1, one thread, and times every decision of team 0
(``Game.choose``). Every repeat plays the same decisions (a hand depends on its seed and
index alone); the figure is the median over the repeats after an untimed warm-up of one
hand. The rollouts are counted by the search's read-only counter ``rollouts_played`` (a
slot of the seat's parameter row the search adds to); with a source tree that has no such
counter (``--src`` of an older checkout) only the times are reported, and the rollouts of
the same decisions are those the flat search (``halving=0``) counts in a newer tree: its
records, hence its decisions, are identical.

``--src DIR`` measures the ``kernels`` and ``sim`` packages of ``DIR`` (e.g. a
``git archive`` of an older commit) instead of this checkout's.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import fmt, log, parser, settings  # noqa: E402

FLAT = "rollout:halving=0,worlds=32,rollouts=400,max_candidates=12"
DEFAULT_SPECS = (
    FLAT,
    "rollout:halving=1,worlds=32,rollouts=400,max_candidates=12",
    "rollout:halving=1,worlds=64,rollouts=400,max_candidates=12",
    "rollout:halving=1,worlds=64,rollouts=400,max_candidates=12,pickup_share=2",
)
MODES = {"full": {"repeats": 3, "hands": 6}, "quick": {"repeats": 1, "hands": 2}}


def _counter_slot():
    from kernels.core.params import ROLLOUT_PARAMS
    for p in ROLLOUT_PARAMS:
        if p.name == "rollouts_played":
            return p.slot
    return None


def play(spec: str, seed: int, hands: range) -> dict:
    """Play ``hands`` with ``spec`` on team 0 and ``expert`` on team 1: the wall seconds
    of team 0's decisions by phase, their number, and the rollouts counted (None without
    a counter)."""
    from kernels.core import layout as L
    from kernels.table import work as KW
    from sim.play.game import Game
    slot = _counter_slot()
    out = {ph: {"decisions": 0, "searched": 0, "seconds": 0.0, "rollouts": 0}
           for ph in ("pickup", "meld", "discard")}
    for i in hands:
        game = Game.new(seed, i, strategies={"team0": spec, "team1": "expert"})
        while not game.is_over:
            seat = game.current_seat
            ph = game.phase
            if seat % 2 == 0:
                w = game._work
                at = KW.W_PARAMS + L.N_PARAMS * seat + (slot or 0)
                before = w[at:at + 1].view(np.float64)[0] if slot is not None else 0.0
                t0 = time.perf_counter()
                a = game.choose()
                dt = time.perf_counter() - t0
                w = game._work
                after = w[at:at + 1].view(np.float64)[0] if slot is not None else 0.0
                o = out.setdefault(ph, {"decisions": 0, "searched": 0, "seconds": 0.0,
                                        "rollouts": 0})
                o["decisions"] += 1
                o["seconds"] += dt
                n = int(after - before)
                o["rollouts"] += n
                o["searched"] += n > 0
            else:
                a = game.choose()
            game.apply(a)
    if slot is None:
        for o in out.values():
            o["rollouts"] = o["searched"] = None
    return out


def main(argv=None) -> int:
    ap = parser(__doc__, out=None)
    ap.add_argument("specs", nargs="*", default=list(DEFAULT_SPECS), metavar="SPEC")
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--src", type=Path, default=None,
                    help="measure the kernels and sim packages of this directory")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    counts = settings(args, MODES)
    if args.hands:
        counts["hands"] = args.hands
    if args.src is not None:
        sys.path.insert(0, str(args.src.resolve()))
    import kernels
    import sim  # noqa: F401
    log(f"kernels from {Path(kernels.__file__).parent}; counter slot {_counter_slot()}")
    hands = range(counts["hands"])
    rows, lines = [], []
    for spec in args.specs:
        play(spec, args.seed, range(1))                       # warm-up: compiles or loads
        runs = []
        for r in range(counts["repeats"]):
            runs.append(play(spec, args.seed, hands))
            log(f"{spec}: repeat {r + 1}: {sum(o['seconds'] for o in runs[-1].values()):.2f} s")
        secs = {ph: float(np.median([x[ph]["seconds"] for x in runs])) for ph in runs[0]}
        first = runs[0]
        row = {"spec": spec, "hands": counts["hands"], "seed": args.seed,
               "repeats": counts["repeats"], "seconds": secs,
               "seconds_all": [sum(o["seconds"] for o in x.values()) for x in runs],
               "decisions": {ph: first[ph]["decisions"] for ph in first},
               "searched": {ph: first[ph]["searched"] for ph in first},
               "rollouts": {ph: first[ph]["rollouts"] for ph in first}}
        rows.append(row)
    lines.append(f"hands 0..{counts['hands'] - 1} of seed {args.seed}, the spec on team 0 "
                 f"against expert, one thread, median of {counts['repeats']} repeats")
    lines.append("")
    lines.append("| spec | ms / pickup | ms / discard | rollouts / searched pickup | "
                 "rollouts / searched discard | rollouts / turn | rollouts/s (of team 0 decision "
                 "time) |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        d, s, sec, ro = row["decisions"], row["searched"], row["seconds"], row["rollouts"]
        ms_p = 1000 * sec["pickup"] / max(d["pickup"], 1)
        ms_d = 1000 * sec["discard"] / max(d["discard"], 1)
        if ro["pickup"] is None:
            rp = rd = rt = rs = "-"
        else:
            tot = ro["pickup"] + ro["discard"] + ro["meld"]
            rp = fmt(ro["pickup"] / max(s["pickup"], 1))
            rd = fmt(ro["discard"] / max(s["discard"], 1))
            rt = fmt(tot / max(d["pickup"], 1))
            rs = fmt(tot / max(sec["pickup"] + sec["discard"] + sec["meld"], 1e-9))
        lines.append(f"| `{row['spec']}` | {ms_p:.2f} | {ms_d:.2f} | {rp} | {rd} | {rt} | {rs} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out is not None:
        args.out.write_text(text)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
