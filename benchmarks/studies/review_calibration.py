#!/usr/bin/env python
"""How far a review's losses and their 95% intervals can be trusted; writes
benchmarks/studies/review_calibration.md.

    python benchmarks/studies/review_calibration.py [--quick] [--out PATH] [--worlds W,W]

Decisions of hands reviewed by ``sim.review`` (hands 4 and 1 of seed 1, ``expert`` on every
seat; their rated pickups and discards, taken in turn from the start of the hand) are analysed
once on a long run (``--long`` worlds) whose mean results stand for the long-run values, under
the same rollout strategy (``expert``): the long-run loss of the chosen action is the best
long-run mean minus the chosen's.  Each decision is then analysed again ``--repeats`` times at
each review budget (``--worlds``: 1,000 worlds, a single hand's review, and 200, a review
run's; other seeds), and each time two estimates of the loss
from the same rollouts are compared with the long-run loss: the review's, cross-fitted against
the best other candidate (:func:`sim.analysis.review.cross_fit_loss`), and the first version's,
the chosen action against the best of the same sample (``-diff_best`` of analyze's table, with
its paired interval; ``0 .. 0`` when the chosen action leads the sample):

* **coverage**: the share of the 95% loss intervals that hold the long-run loss (the target:
  93-97%), with its Wilson interval;
* **bias**: the mean of (review's loss - long-run loss), points, with its 95% interval: the
  loss measured against the best of the sample is biased upwards when candidates are close
  (the winner's curse);
* the same per decision kind, and the marks given to decisions whose long-run loss is below
  the doubtful threshold (false marks);
* for means over many decisions (a strategy's error rate), the bias of the review's loss
  (clipped at 0) beside that of the unclipped cross-fitted difference (the column
  ``difference``): clipping adds the rollouts' noise, the unclipped difference falls short
  when the comparator picked on half the worlds is not the best.

The long run has its own error (a few tenths of a point at 40,000 worlds); the table gives it.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

import sim  # noqa: E402
from sim._util.stats import Z95, wilson  # noqa: E402
from sim.analysis import review as RV  # noqa: E402
from sim.analysis.decision import decision_game  # noqa: E402
from sim.analysis.evaluate import analyze_results  # noqa: E402

MODES = {"full": {"decisions": 24, "long": 40_000, "repeats": 20, "worlds": 1_000},
         "quick": {"decisions": 6, "long": 5_000, "repeats": 5, "worlds": 300}}
HANDS = ((1, 4, "expert"), (1, 1, "expert"))       # (seed, hand_index, strategies)
LONG_SEED = 2**40 + 7                              # the long runs' worlds: no review seed's
_T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f} s] {msg}", file=sys.stderr, flush=True)


def pick(n: int, worlds: int, hands=HANDS) -> list:
    """``n`` rated decisions with at least 2 candidates, alternating between the hands, from
    a first review at ``worlds`` worlds: ``[(seed, hand, strategies, turn, phase, chosen)]``."""
    pools = []
    for seed, hand, strategies in hands:
        r = sim.review(seed, hand, strategies=strategies, rollouts=max(worlds // 10, 20))
        d = r.decisions[~r.decisions["forced"]]
        pools.append([(seed, hand, strategies, int(x.turn), x.phase, int(x.chosen))
                      for x in d.itertuples(index=False)])
    out = []
    for i in range(max(len(p) for p in pools)):
        for p in pools:
            if i < len(p) and len(out) < n:
                out.append(p[i])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller counts: a smoke run")
    ap.add_argument("--out", type=Path, default=HERE / "review_calibration.md", metavar="PATH")
    ap.add_argument("--worlds", metavar="W,W",
                    help="the review budgets measured, worlds per decision (default 1000,200; "
                         "300 with --quick)")
    ap.add_argument("--hands", default="4,1", metavar="I,J",
                    help="the hands of seed 1 (expert on every seat) whose decisions are taken "
                         "(default 4,1; another pair gives decisions the method was not chosen on)")
    args = ap.parse_args(argv)
    hands = tuple((1, int(h), "expert") for h in args.hands.split(","))
    m = MODES["quick" if args.quick else "full"]
    budgets = ([int(w) for w in args.worlds.split(",")] if args.worlds
               else [m["worlds"]] + ([] if args.quick else [200]))
    decisions = pick(m["decisions"], m["worlds"], hands)
    rows = []
    for k, (seed, hand, strategies, turn, phase, chosen) in enumerate(decisions):
        game, chosen2, _ = decision_game(hand, turn, phase, seed=seed, strategies=strategies)
        assert chosen2 == chosen
        long = sim.analyze(game, rollouts=m["long"], seed=LONG_SEED + k, threads=2)
        means = dict(zip(long["action"], long["mean_result"]))
        true_loss = float(long["mean_result"].iloc[0] - means[chosen])
        row = long[long["action"] == chosen].iloc[0]          # its paired se against the best
        best_se = float(row["diff_high"] - row["diff_low"]) / (2 * Z95)
        for j, worlds in enumerate(budgets):
            for r in range(m["repeats"]):
                df, res, acts, _ = analyze_results(
                    game, rollouts=worlds, seed=RV.decision_seed(r + 1000 * j, 10_000 + k),
                    threads=2)
                mine = df[df["action"] == chosen].iloc[0]
                loss, lo, hi = -mine["diff_best"], -mine["diff_high"], -mine["diff_low"]
                x = RV.cross_fit_loss(res, acts.index(chosen))
                for how, (a, b, c) in (("sample", (loss, lo, hi)),
                                       ("cross", (x["loss"], x["loss_low"], x["loss_high"]))):
                    rows.append({"k": k, "phase": phase, "candidates": len(df),
                                 "true": true_loss, "how": how, "worlds": worlds, "loss": a,
                                 "lo": b, "hi": c, "diff": x["margin"],
                                 "mark": RV.marks([a], [b])[0], "long_se": best_se})
        log(f"decision {k + 1}/{len(decisions)}: hand {hand} turn {turn} {phase}, "
            f"{len(long)} candidates, long-run loss {true_loss:.1f}")

    def summary(part: list, what: str) -> str:
        n = len(part)
        cover = sum(1 for x in part if x["lo"] <= x["true"] <= x["hi"])
        lo, hi = wilson(np.array([cover]), n)
        err = np.array([x["loss"] - x["true"] for x in part])
        half = Z95 * err.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
        small = [x for x in part if x["true"] < RV.DOUBTFUL]
        false = sum(1 for x in small if x["mark"])
        dec = len({x["k"] for x in part})
        return (f"| {what} | {dec} | {n:,} | {cover / n:.1%} ({float(lo[0]):.1%} .. "
                f"{float(hi[0]):.1%}) | {err.mean():+.2f} ({err.mean() - half:+.2f} .. "
                f"{err.mean() + half:+.2f}) | {np.mean([x['true'] for x in part]):.1f} | "
                f"{np.mean([x['loss'] for x in part]):.1f} | {false} of {len(small)} |")

    def table(how: str, worlds: int) -> list:
        part = [x for x in rows if x["how"] == how and x["worlds"] == worlds]
        return [summary(part, "all"),
                summary([x for x in part if x["phase"] == "pickup"], "pickups"),
                summary([x for x in part if x["phase"] == "discard"], "discards"),
                summary([x for x in part if x["true"] == 0],
                        "the chosen action is the long-run best"),
                summary([x for x in part if x["true"] > 0], "it is not")]

    def means(part: list, what: str) -> str:
        n = len(part)
        cells = []
        for key in ("loss", "diff"):
            err = np.array([x[key] - x["true"] for x in part])
            half = Z95 * err.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
            cells.append(f"{np.mean([x[key] for x in part]):.2f} | {err.mean():+.2f} "
                         f"({err.mean() - half:+.2f} .. {err.mean() + half:+.2f})")
        return (f"| {what} | {n:,} | {np.mean([x['true'] for x in part]):.2f} | {cells[0]} | "
                f"{cells[1]} |")

    def mean_table(worlds: int) -> list:
        part = [x for x in rows if x["how"] == "cross" and x["worlds"] == worlds]
        return ["| decisions | analyses | mean long-run loss | mean loss (clipped at 0) | its "
                "bias, points (95%) | mean unclipped difference | its bias, points (95%) |",
                "|---|---:|---:|---:|---|---:|---|",
                means(part, "all"),
                means([x for x in part if x["phase"] == "pickup"], "pickups"),
                means([x for x in part if x["phase"] == "discard"], "discards"),
                means([x for x in part if x["true"] == 0],
                      "the chosen action is the long-run best"),
                means([x for x in part if x["true"] > 0], "it is not")]

    head = ["| decisions | n | analyses | coverage of the 95% loss intervals (Wilson 95%) | "
            "bias: review's loss - long-run loss, points (95%) | mean long-run loss | "
            "mean review loss | marked with a long-run loss < 20 |",
            "|---|---:|---:|---|---|---:|---:|---|"]
    lines = ["# How far a review's losses can be trusted (benchmarks/studies/review_calibration.py)",
             "",
             f"Command: `python benchmarks/studies/review_calibration.py"
             f"{' --quick' if args.quick else ''}"
             f"{'' if args.hands == '4,1' else ' --hands ' + args.hands}"
             f"{'' if not args.worlds else ' --worlds ' + args.worlds}"
             f"{'' if args.out.name == 'review_calibration.md' else ' --out ' + str(args.out)}`; "
             f"{time.strftime('%Y-%m-%d %H:%M')} UTC; "
             f"{len(decisions)} rated decisions of hands {' and '.join(str(h) for _, h, _ in hands)} "
             "of seed 1 (`expert` on every seat), "
             f"each analysed once on {m['long']:,} worlds (the long-run values) and "
             f"{m['repeats']} times at each review budget "
             f"({' and '.join(f'{w:,}' for w in budgets)} worlds); rollout "
             f"strategy `expert`; {time.perf_counter() - _T0:.0f} s.", ""]
    for worlds in budgets:
        lines += [
            f"## At {worlds:,} worlds per decision", "",
            "**The review's loss** (sim.review): cross-fitted against the best other "
            "candidate (the best other picked on one half of the worlds, measured on the "
            "other half; loss and interval clipped at 0):", "", *head,
            *table("cross", worlds), "",
            "**The first version's loss**, from the same rollouts: the chosen action against "
            "the best of the same sample (`-diff_best` of analyze's table and its paired "
            "interval; `0 .. 0` when the chosen action leads the sample):", "", *head,
            *table("sample", worlds), "",
            "**Means over many decisions** (a strategy's error rate): the review's loss, "
            "clipped at 0 decision by decision, and the unclipped cross-fitted difference "
            "(the column `difference`), each against the long-run loss:", "",
            *mean_table(worlds), ""]
    lines += [f"The long-run losses have standard errors of "
              f"{np.median([x['long_se'] for x in rows]):.2f} points (median over the "
              f"decisions; at most {max(x['long_se'] for x in rows):.2f}): the paired standard "
              "error of the chosen action against the long-run best."]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
