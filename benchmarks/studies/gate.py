#!/usr/bin/env python
"""The offline gate: each player's regret and top-1 agreement on decisions valued precisely.

    python benchmarks/studies/gate.py --labels DIR [--decisions N] [--out FILE.md]
        [--seed S] [SPEC ...]

``DIR`` is a label run (``burraco label``, docs/labels.md) whose teacher values every
candidate precisely, e.g. the flat search on 512 worlds per candidate, on label seeds that
no training run used::

    burraco label --hands 150 --seed 900 --out DIR \\
        --strategy rollout:halving=0,worlds=512,rollouts=6144,max_candidates=12

Each hand of ``DIR`` is played again with the step API (``sim.Game``, the deal
``2**62 + hand`` of the label seed): at a labelled decision the teacher's stored action,
elsewhere the base policy's (``expert``: the teacher's meld phase), and the replay is
checked at every labelled decision (the stored observation is the seat's, the first
candidate is the base policy's choice).  At each labelled decision with two candidates
or more, every SPEC (default: ``expert``, the ``learned`` player, today's flat search and
the new ``rollout``) chooses from the same position, on a copy of the game; a search
draws its worlds from the copy's generator (other worlds than the teacher's).  A choice
among the stored candidates is valued by its stored mean; the player's regret there is
the best candidate's mean minus the choice's (points, >= 0) and its top-1 is 1 when the
choice is the best candidate.  A choice outside the stored candidates (the teacher keeps
at most ``max_candidates``) is counted apart and left out of the means.

The report gives, per player and per phase (pickup, discard, both), the decisions
valued, the mean regret with its 95% interval (over decisions), the top-1 share with its
Wilson interval, and the share of choices outside the candidates.  The best candidate's
mean is itself noisy (its standard error is in the report): the regrets of every player
carry the same upward bias, so compare players with each other, not with 0.

The report is an output: write it outside the repository (default: stdout).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

PLAYERS = ("expert", "learned", "learned:pickup_margin=0,discard_margin=0",
           "rollout:halving=0,worlds=32,rollouts=400,max_candidates=12", "rollout")
PHASES = {0: "pickup", 3: "discard"}


def wilson(k: int, n: int) -> tuple:
    """The 95% Wilson interval of a share ``k / n``."""
    if n == 0:
        return float("nan"), float("nan")
    z = 1.959964
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def replay_choices(run: Path, players, decisions: int, progress=True) -> tuple:
    """Each player's choice at each labelled decision of ``run`` (up to ``decisions``
    decisions with 2+ candidates).

    Returns ``(rows, picks)``: the label rows used (dicts) and ``picks[player]``, a list
    of action ids, one per row.

    Raises
    ------
    RuntimeError
        The replay left the labelled hand (another base policy or rules than the run's).
    """
    from kernels.engine.observe import TENSOR_SIZE
    from kernels.table.state import G_PHASE
    from sim.batch.labels import LABEL_HAND_OFFSET, label_manifest, load_labels
    from sim.play.game import Game

    man = label_manifest(run)
    if man is None:
        raise SystemExit(f"gate: --labels: {run} is not a label run (no _manifest.json)")
    cfg = man["config"]
    seed, rules = int(cfg["seed"]), cfg["rules"]
    table = load_labels(run).to_pylist()
    table.sort(key=lambda r: (r["hand"], r["turn"], r["phase"]))
    by_hand: dict = {}
    for r in table:
        by_hand.setdefault(r["hand"], []).append(r)
    used, picks = [], {p: [] for p in players}
    t0 = time.perf_counter()
    for hand in sorted(by_hand):
        if len(used) >= decisions:
            break
        rows = by_hand[hand]
        game = Game.new(seed, LABEL_HAND_OFFSET + hand, rules=rules, strategies="expert")
        k = 0
        while not game.is_over and k < len(rows):
            row = rows[k]
            here = (row["turn"] == game.turn and row["seat"] == game.current_seat
                    and row["phase"] == int(game._g[G_PHASE]))
            if not here:
                game.apply(game.choose())
                continue
            seat = row["seat"]
            obs = np.zeros(TENSOR_SIZE, np.float32)
            obs[np.array(row["obs_index"], np.int64)] = row["obs_value"]
            if not np.array_equal(obs, game.observation_tensor(seat)) \
                    or row["candidates"][0] != game.choose():
                raise RuntimeError(f"gate: hand {hand} turn {row['turn']}: the replay left the "
                                   f"labelled hand (is the teacher's base policy expert's?)")
            if len(row["candidates"]) >= 2 and len(used) < decisions:
                used.append(row)
                for p in players:
                    g = game.clone()
                    g._set_strategy(seat, p)
                    picks[p].append(g.choose())
            game.apply(row["chosen"])
            k += 1
        if k != len(rows):
            raise RuntimeError(f"gate: hand {hand}: {len(rows) - k} labelled decisions not met")
        if progress:
            print(f"gate: hand {hand}: {len(used)} decisions ({time.perf_counter() - t0:.0f} s)",
                  file=sys.stderr)
    return used, picks


def score(rows, picks) -> dict:
    """Per phase (and ``both``): decisions, regret mean and 95% interval, top-1 share and
    its interval, choices outside the candidates."""
    out = {}
    for name, keep in (("pickup", {0}), ("discard", {3}), ("both", {0, 3})):
        reg, top, outside = [], 0, 0
        for r, a in zip(rows, picks):
            if r["phase"] not in keep:
                continue
            cand = list(r["candidates"])
            if a not in cand:
                outside += 1
                continue
            mean = np.asarray(r["mean"], np.float64)
            best = float(mean.max())
            reg.append(best - mean[cand.index(a)])
            top += int(mean[cand.index(a)] >= best)
        n = len(reg)
        m = float(np.mean(reg)) if n else float("nan")
        h = 1.96 * float(np.std(reg, ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
        out[name] = {"decisions": n, "regret": m, "regret_lo": m - h, "regret_hi": m + h,
                     "top1": top / n if n else float("nan"), "top1_ci": wilson(top, n),
                     "outside": outside}
    return out


def report(run: Path, rows, results: dict, seconds: float, command: str) -> str:
    from sim.batch.labels import label_manifest
    man = label_manifest(run)["config"]
    se_best = [float(np.asarray(r["se"])[int(np.argmax(r["mean"]))]) for r in rows]
    lines = [
        "# The offline gate",
        "",
        f"Decisions of the label run `{run.name}` (label seed {man['seed']}, teacher "
        f"`{man['teacher']}`), {len(rows)} with two candidates or more; the best "
        f"candidate's standard error: median {np.median(se_best):.1f} points.",
        "",
        "| player | phase | decisions | regret (points) | 95% interval | top-1 | 95% interval "
        "| outside the candidates |",
        "|---|---|---:|---:|---|---:|---|---:|",
    ]
    for p, res in results.items():
        for ph in ("pickup", "discard", "both"):
            r = res[ph]
            lines.append(f"| `{p}` | {ph} | {r['decisions']:,} | {r['regret']:.2f} | "
                         f"{r['regret_lo']:.2f} .. {r['regret_hi']:.2f} | {r['top1']:.3f} | "
                         f"{r['top1_ci'][0]:.3f} .. {r['top1_ci'][1]:.3f} | {r['outside']} |")
    lines += ["", f"Run time {seconds:.0f} s. Command: `{command}`", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="The offline gate: players' regret and top-1 agreement on precisely "
                    "valued decisions of a label run.")
    ap.add_argument("players", nargs="*", metavar="SPEC",
                    help=f"strategy specs to rate (default: {' '.join(PLAYERS)})")
    ap.add_argument("--labels", required=True, type=Path, metavar="DIR",
                    help="a label run valued precisely (see the module's docstring)")
    ap.add_argument("--decisions", type=int, default=10_000, metavar="N",
                    help="at most this many decisions with 2+ candidates (default 10000)")
    ap.add_argument("--out", type=Path, metavar="FILE.md", help="write the report here")
    ap.add_argument("--json", type=Path, metavar="FILE.json", help="also write the figures")
    a = ap.parse_args(argv)
    if a.decisions < 1:
        ap.error(f"--decisions: {a.decisions}: must be at least 1")
    players = a.players or list(PLAYERS)
    import sim.strategies
    for p in players:
        try:
            sim.strategies.resolve(p)
        except ValueError as exc:
            ap.error(f"SPEC {p!r}: {exc}")
    t0 = time.perf_counter()
    rows, picks = replay_choices(a.labels, players, a.decisions)
    results = {p: score(rows, picks[p]) for p in players}
    text = report(a.labels, rows, results, time.perf_counter() - t0,
                  "python benchmarks/studies/gate.py " + " ".join(sys.argv[1:]))
    if a.out:
        a.out.write_text(text)
    if a.json:
        a.json.write_text(json.dumps(results, indent=1))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
