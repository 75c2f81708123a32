#!/usr/bin/env python
"""Sequential halving in the search player ``rollout``, at equal cost: a sweep of settings
against today's flat search, head to head.

    python benchmarks/studies/search_halving.py --hands N --seed S --out DIR
        [--baseline SPEC] [--threads T] [--cost-hands K] [SPEC ...]

For every SPEC (default: a handful of ``halving=1`` settings) it

1. counts the rollouts per turn of the spec and of the baseline (``rollout:halving=0,
   worlds=32,rollouts=400,max_candidates=12``, today's ``rollout``) with the search's
   counter ``rollouts_played``: hands ``0..K-1`` of seed ``S + 1000`` in ``sim.Game``, the
   spec on team 0 against ``expert`` (a turn: one pickup; the pickup's, the discard's and the
   meld phase's rollouts, over the turns of team 0);
2. plays ``burraco compare SPEC BASELINE --hands N --seed S --threads T --format json``
   (every deal twice, seats swapped), as a child process of this checkout;
3. writes ``DIR/search_halving_seed{S}.md`` (a table: margin per hand with its 95%
   interval, games won, rollouts per turn and their ratio to the baseline's, wall time, the
   command) and ``DIR/search_halving_seed{S}.jsonl`` (a row per spec) after each spec, so a
   run stopped halfway leaves what it measured.

The results are outputs: write them outside the repository.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BASELINE = "rollout:halving=0,worlds=32,rollouts=400,max_candidates=12"
DEFAULT_SPECS = (
    "rollout:halving=1,worlds=256,rollouts=400,max_candidates=12,pickup_share=0.16",
    "rollout:halving=1,worlds=256,rollouts=320,max_candidates=12,pickup_share=0.5",
    "rollout:halving=1,worlds=256,rollouts=240,max_candidates=12,pickup_share=1",
    "rollout:halving=1,worlds=256,rollouts=200,max_candidates=12,pickup_share=1.5",
    "rollout:halving=0,worlds=64,rollouts=400,max_candidates=6",
)


def rollouts_per_turn(spec: str, seed: int, hands: int) -> dict:
    """The rollouts ``spec`` plays per turn on team 0 against ``expert`` (hands
    ``0..hands-1`` of ``seed``, ``sim.Game``), by the search's counter: ``{"turns",
    "pickup", "discard", "meld", "per_turn"}`` (rollouts in all per phase)."""
    from kernels.core import layout as L
    from kernels.search.player import RP_ROLLOUTS_PLAYED
    from kernels.table import work as KW
    from sim.play.game import Game
    out = {"turns": 0, "pickup": 0, "discard": 0, "meld": 0}
    for i in range(hands):
        game = Game.new(seed, i, strategies={"team0": spec, "team1": "expert"})
        while not game.is_over:
            seat, ph = game.current_seat, game.phase
            at = KW.W_PARAMS + L.N_PARAMS * seat + RP_ROLLOUTS_PLAYED
            before = game._work[at:at + 1].view(np.float64)[0]
            a = game.choose()
            if seat % 2 == 0:
                out[ph] += int(game._work[at:at + 1].view(np.float64)[0] - before)
                out["turns"] += ph == "pickup"
            game.apply(a)
    out["per_turn"] = (out["pickup"] + out["discard"] + out["meld"]) / max(out["turns"], 1)
    return out


def compare(a: str, b: str, hands: int, seed: int, threads: int) -> tuple:
    """``burraco compare A B`` as a child process: ``(summary row, wall seconds, command)``."""
    cmd = [sys.executable, "-m", "sim", "compare", a, b, "--hands", str(hands), "--seed",
           str(seed), "--threads", str(threads), "--format", "json", "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    row = json.loads(done.stdout)
    if isinstance(row, list):
        row = row[0]
    shown = f"burraco compare {a} {b} --hands {hands} --seed {seed} --threads {threads}"
    return row, wall, shown


def table(rows: list, base_cost: dict, args) -> list:
    lines = [f"# Sequential halving in `rollout` at equal cost: seed {args.seed}", "",
             f"Each spec A against the baseline B = `{args.baseline}` (today's `rollout`), "
             f"{args.hands:,} deals of seed {args.seed}, every deal played twice with the seats "
             f"swapped (`burraco compare A B`, {args.threads} threads). Rollouts per turn: the "
             f"search's counter `rollouts_played` over hands 0..{args.cost_hands - 1} of seed "
             f"{args.seed + 1000}, A on team 0 against `expert` (baseline: "
             f"{base_cost['per_turn']:.1f} per turn: pickup "
             f"{base_cost['pickup'] / max(base_cost['turns'], 1):.1f}, discard "
             f"{base_cost['discard'] / max(base_cost['turns'], 1):.1f}). Interval: 95%, "
             "normal, over the deals' paired differences.", "",
             "| A | deals | A - B per hand | 95% interval | games won by A | rollouts per "
             "turn (pickup + discard) | ratio to B | wall s | command |",
             "|---|---:|---:|---|---:|---:|---:|---:|---|"]
    for r in rows:
        c, s = r["cost"], r["summary"]
        t = max(c["turns"], 1)
        lines.append(
            f"| `{r['spec']}` | {s['hands']:,} | {s['mean_diff']:+.1f} | {s['ci95_low']:+.1f} .. "
            f"{s['ci95_high']:+.1f} | {s['a_win_share']:.1%} | {c['per_turn']:.1f} "
            f"({c['pickup'] / t:.1f} + {c['discard'] / t:.1f}) | "
            f"{c['per_turn'] / base_cost['per_turn']:.2f} | {r['wall']:.0f} | `{r['command']}` |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="*", default=list(DEFAULT_SPECS), metavar="SPEC")
    ap.add_argument("--hands", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True, help="directory of the results")
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cost-hands", type=int, default=12)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    md = args.out / f"search_halving_seed{args.seed}.md"
    jl = args.out / f"search_halving_seed{args.seed}.jsonl"
    base_cost = rollouts_per_turn(args.baseline, args.seed + 1000, args.cost_hands)
    print(f"baseline: {base_cost}", file=sys.stderr, flush=True)
    rows = []
    for spec in args.specs:
        cost = rollouts_per_turn(spec, args.seed + 1000, args.cost_hands)
        print(f"{spec}: {cost} ({cost['per_turn'] / base_cost['per_turn']:.2f} x baseline)",
              file=sys.stderr, flush=True)
        summary, wall, command = compare(spec, args.baseline, args.hands, args.seed,
                                         args.threads)
        row = {"spec": spec, "baseline": args.baseline, "cost": cost, "baseline_cost": base_cost,
               "summary": summary, "wall": wall, "command": command}
        rows.append(row)
        with jl.open("a") as f:
            f.write(json.dumps(row) + "\n")
        md.write_text("\n".join(table(rows, base_cost, args)) + "\n")
        print(f"{spec}: {summary['mean_diff']:+.1f} ({summary['ci95_low']:+.1f} .. "
              f"{summary['ci95_high']:+.1f}), {wall:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
