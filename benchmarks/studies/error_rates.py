#!/usr/bin/env python
"""Strength by error rate beside the paired margins; writes benchmarks/studies/error_rates.md.

    python benchmarks/studies/error_rates.py [--runs runs/error_rates] [--hands 500]
        [--only S [S ...]] [--threads T]

**Error rate.**  Each strategy plays hands ``0..N-1`` of seed 1 on every seat; seat 0's pickups
and discards are rated by the review (``sim.review_run``; rollout strategy ``expert``, 200 worlds
per decision, analysis seed 0), one review run per strategy in ``RUNS/<name>``, exactly what

    burraco review --strategy S --hands N --seed 1 --rollouts 200 --seats 0 --out RUNS/<name>

writes (``<name>``: the spec with ``:``, ``=`` and ``,`` made ``_``).  A run resumes where it
stopped, and a finished one is read back, so the study can be stopped and run again; the time of
a review run made whole in one go is kept in ``RUNS/<name>.seconds`` (the report's review time).

**Margin.**  Beside it the paired margin of the strategy against ``expert``: ``burraco compare S
expert --hands D --seed 1`` (each deal played both ways; ``D`` 2,000 deals, 200 for the
SO-ISMCTS bot), points a hand, kept per deal under ``RUNS/margins``.

**Do the orders agree?**  The report ranks the strategies both ways, gives the rank correlation
(Spearman) and lists every pair the two measures order differently while each measure's
intervals are apart (a real disagreement, not noise).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))      # this checkout's sim

import sim                                    # noqa: E402
from sim import questions as Q                # noqa: E402
from sim.analysis import review_run as RR     # noqa: E402
from cache import Cache                       # noqa: E402  (benchmarks/studies/cache.py)

BASE = "expert"
#: (spec, kind) in the order of the report's first listing
STRATEGIES = [
    ("expert", "built-in"), ("heuristic", "built-in"), ("tuned_default", "tuned"),
    ("tuned_fibur_italian", "tuned"), ("tuned_fibur_international", "tuned"),
    ("learned", "learned"), ("rollout", "search"),
    *((s, "peer bot") for s in (
        "masu_normal", "guglio_hard", "guglio_medium", "blofroth_smart", "blofroth_max",
        "blofroth_dumb", "blofroth_random", "goodwin_random", "thilanguis_bot", "masu_easy",
        "raphael_bot", "babbo_coded", "valmir_hard", "valmir_medium", "legends_medium",
        "goodwin_low", "guglio_easy", "valmir_easy", "goodwin_ismcts:iterations=100")),
    ("random", "built-in"),
]
ROLLOUTS, SEED, SEATS = 200, 1, [0]
DEALS = {"goodwin_ismcts:iterations=100": 200}
DEFAULT_DEALS = 2_000


def run_name(spec: str) -> str:
    return spec.replace(":", "_").replace("=", "_").replace(",", "_")


def finished(out: Path) -> bool:
    """Whether ``out`` holds a finished review run (its manifest says so)."""
    try:
        return bool(json.loads((out / "_manifest.json").read_text()).get("finished"))
    except (OSError, ValueError):
        return False


def ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n (ties averaged)."""
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(1, len(x) + 1)
    for v in np.unique(x):
        tie = x == v
        r[tie] = r[tie].mean()
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="runs/error_rates",
                    help="where the review runs and the margins are kept (default "
                         "runs/error_rates)")
    ap.add_argument("--hands", type=int, default=500, help="hands reviewed per strategy")
    ap.add_argument("--only", nargs="+", metavar="S", choices=[s for s, _ in STRATEGIES],
                    help="only these strategies (the report lists the finished ones too)")
    ap.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    ap.add_argument("--out", default=str(HERE / "error_rates.md"), help="the report")
    a = ap.parse_args(argv)
    if a.hands < 2:
        ap.error("--hands: at least 2")
    runs = Path(a.runs)
    cache = Cache(runs / "margins")
    t0 = time.perf_counter()
    rows = []
    for spec, kind in STRATEGIES:
        out = runs / run_name(spec)
        if a.only and spec not in a.only and not finished(out):
            continue
        print(f"{spec}: reviewing {a.hands} hands", file=sys.stderr, flush=True)
        t = time.perf_counter()
        s = RR.review_run(spec, a.hands, SEED, out, rollouts=ROLLOUTS, seats=SEATS,
                          threads=a.threads, progress=True)
        if s.new_hands and s.new_hands < a.hands:
            print(f"  resumed: {s.new_hands} new hands", file=sys.stderr)
        deals = DEALS.get(spec, DEFAULT_DEALS)
        if spec == BASE:
            margin = None
        else:
            margin = Q.mean_ci(cache.get(f"{run_name(spec)}_vs_{BASE}", deals, lambda: sim.compare_hands(
                spec, BASE, deals, SEED, threads=a.threads)["paired_diff"].to_numpy()))
        took = runs / f"{run_name(spec)}.seconds"        # the review's time, when it ran whole
        if s.new_hands == a.hands:
            took.write_text(f"{s.seconds:.1f}\n")
        review_s = float(took.read_text()) if took.exists() else math.nan
        rows.append({"spec": spec, "kind": kind, "s": s.strength, "margin": margin,
                     "deals": deals, "review_s": review_s,
                     "decisions_per_hand": s.strength["decisions"] / a.hands})
        print(f"  {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    write(a, rows, time.perf_counter() - t0)
    return 0


def _ci(value: float, low: float, high: float, digits: int = 1) -> str:
    return f"{value:.{digits}f} ({low:.{digits}f} .. {high:.{digits}f})"


def write(a, rows: list, took: float) -> None:
    rows = sorted(rows, key=lambda r: r["s"]["per_decision"])
    n = len(rows)
    m = np.array([0.0 if r["margin"] is None else r["margin"].mean for r in rows])
    loss = np.array([r["s"]["per_decision"] for r in rows])
    rank_loss = ranks(loss)
    rank_margin = ranks(-m)
    rho = float(np.corrcoef(rank_loss, rank_margin)[0, 1]) if n > 2 else math.nan
    lines = [
        "# Strength by error rate beside the paired margins",
        "",
        f"Generated by `python benchmarks/studies/error_rates.py"
        f"{'' if a.hands == 500 else f' --hands {a.hands}'}`; do not edit by hand. "
        f"{time.strftime('%Y-%m-%d %H:%M')} UTC.",
        "",
        f"**Error rate**: hands 0..{a.hands - 1} of seed {SEED}, the strategy on every seat; seat "
        f"0's pickups and discards rated against the best candidate at {ROLLOUTS} worlds per "
        "decision (rollout strategy `expert`, analysis seed 0; `burraco review --strategy S "
        f"--hands {a.hands} --seed {SEED} --rollouts {ROLLOUTS} --seats 0`). *Loss*: each "
        "decision's cross-fitted loss clipped at 0, averaged over the rated decisions (an upper "
        "estimate: clipping adds the rollouts' noise, +3.5 points per decision on the "
        "calibration's decisions at 200 worlds); *signed*: the mean of the unclipped "
        "differences (the best other candidate's result minus the chosen's; a decision whose "
        "action is the best counts its lead below 0: no clipping noise, but not an estimate "
        "of the loss); intervals by the delta method over hands "
        "([review.md](../../docs/review.md#strength-by-error-rate), the biases measured in "
        "[review_calibration.md](review_calibration.md)). **Margin**: the strategy against "
        f"`expert`, `burraco compare S expert --hands D --seed {SEED}`, each deal played both "
        "ways, points a hand (`expert` itself: 0 by definition).",
        "",
        "| rank by loss | strategy | kind | loss per decision, points (95%) | signed (95%) "
        "| decisions rated per hand | margin against `expert`, points a hand (95%; deals) "
        "| rank by margin | review time |",
        "|---:|---|---|---|---|---:|---|---:|---:|",
    ]
    for i, r in enumerate(rows):
        s = r["s"]
        mg = ("0 (the reference)" if r["margin"] is None else
              f"{r['margin'].mean:+.1f} ({r['margin'].low:+.1f} .. {r['margin'].high:+.1f}; "
              f"{r['deals']:,})")
        took_s = "" if math.isnan(r["review_s"]) else f"{r['review_s']:.0f} s"
        lines.append(
            f"| {rank_loss[i]:g} | `{r['spec']}` | {r['kind']} | "
            f"**{_ci(s['per_decision'], s['per_decision_low'], s['per_decision_high'])}** | "
            f"{_ci(s['difference_per_decision'], s['difference_per_decision_low'], s['difference_per_decision_high'])} | "
            f"{r['decisions_per_hand']:.1f} | {mg} | {rank_margin[i]:g} | {took_s} |")

    def apart(i: int, j: int) -> tuple:
        """(margin order, loss order) when both measures separate i and j, else None."""
        ri, rj = rows[i], rows[j]
        lo = lambda r: (0.0, 0.0) if r["margin"] is None else (r["margin"].low, r["margin"].high)
        (ai, bi), (aj, bj) = lo(ri), lo(rj)
        if ri["margin"] is None and rj["margin"] is None:
            return None
        margin_apart = ai > bj or aj > bi
        si, sj = ri["s"], rj["s"]
        loss_apart = (si["per_decision_low"] > sj["per_decision_high"]
                      or sj["per_decision_low"] > si["per_decision_high"])
        if not (margin_apart and loss_apart):
            return None
        return (m[i] > m[j], si["per_decision"] < sj["per_decision"])

    disagree, separated = [], 0
    for i in range(n):
        for j in range(i + 1, n):
            x = apart(i, j)
            if x is None:
                continue
            separated += 1
            if x[0] != x[1]:
                disagree.append((rows[i]["spec"], rows[j]["spec"]))
    lines += [
        "",
        f"**Do the two orders agree?** Spearman's rank correlation between the error rate and "
        f"the margin (both ranked best first): **{rho:.2f}** over {n} strategies. Of the "
        f"{n * (n - 1) // 2} pairs, {separated} are separated by both measures (intervals apart "
        f"on each); the two measures order "
        + (f"all {separated} the same way." if not disagree else
           f"{separated - len(disagree)} the same way and {len(disagree)} the other way: "
           + ", ".join(f"`{x}` / `{y}`" for x, y in disagree) + "."),
        "",
        f"Report written in {took:.0f} s (review runs and margins computed before are read back "
        f"from `{a.runs}`).",
        "",
        f"sim version {sim.__version__}",
        "",
    ]
    Path(a.out).write_text("\n".join(lines))
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
