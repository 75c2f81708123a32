#!/usr/bin/env python
"""Validation of the statistics of position analysis; writes
benchmarks/studies/analyze_validation.md.

    python benchmarks/studies/analyze_validation.py [--quick] [--only SECTION ...]

Sections (each prints its table to stderr as it goes):

* ``reductions``: the variance reductions of post-stratification (``adjust="strata"``) and
  control variates (``adjust="cv"``) beyond common random numbers, on a few positions, from
  the same rollouts;
* ``wrong_best``: the sequential rule (``until_separated=True``) run with many seeds on
  positions whose true best is known from a long run; how often it names a candidate worse
  than the true best by more than the margin;
* ``calibration``: repeated analyses of one position with different seeds, fixed-N and
  sequential; how often their 95% intervals of ``mean_result`` and ``diff_best`` cover the
  long-run means (a run 100 or more times longer);
* ``oracle``: discard decisions of simulated hands analysed on sampled worlds and on the true
  hidden cards (``worlds="true"``): how often the best agrees and what the sampled-world
  choice costs, measured on the true cards.
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

import sim
from sim import Game
from sim import rollout_stats as RS
from sim.analysis import rollout_matrix

EXAMPLE = str(REPO / "examples" / "position.toml")
Z95 = 1.959963984540054
MODES = {
    "full": {"long": 100_000, "repeats": 200, "fixed_n": 500, "batch": 250, "cap": 4_000,
             "cal_batch": 100, "cal_cap": 2_000, "red_worlds": 3_000, "oracle": 20,
             "oracle_worlds": 1_000},
    "quick": {"long": 10_000, "repeats": 20, "fixed_n": 300, "batch": 200, "cap": 2_000,
              "cal_batch": 100, "cal_cap": 1_000, "red_worlds": 500, "oracle": 4,
              "oracle_worlds": 300},
}
# positions with known answers from long runs (candidates of examples/position.toml)
POSITIONS = {
    "A: gap ~20": (EXAMPLE, "meld K♣ K♣ K♥; meld K♣ K♥ JK; end the meld phase", 0.0),
    "B: gap ~7": (EXAMPLE, "meld K♣ K♥ JK; meld Q♦ Q♠ JK; end the meld phase", 0.0),
    "C: equal, margin 5": (EXAMPLE, "meld 3♥ 3♠ JK; lay off 6♣ on meld 2; lay off JK on meld 1",
                           5.0),
    "D: close pair": (EXAMPLE, "meld K♣ K♥ JK; meld J♠ Q♠ JK", 0.0),
}
_T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f} s] {msg}", file=sys.stderr, flush=True)


def binom_ci(k: int, n: int) -> str:
    """``"94.5% [91.2 - 96.6]"``: a share with its 95% Wilson interval."""
    if n == 0:
        return "n/a"
    p = k / n
    den = 1 + Z95**2 / n
    mid = (p + Z95**2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / den
    return f"{100 * p:.1f}% [{100 * (mid - half):.1f} – {100 * (mid + half):.1f}]"


def big_game() -> Game:
    """Hand 14 of seed 1 played by expert to decision 58 (benchmarks/speed/analyze.py)."""
    g = Game.new(1, 14, strategies="expert")
    for _ in range(58):
        g.apply(g.choose())
    return g


def discard_decision(seed: int, hand: int, min_turn: int = 8):
    """A game of ``Game.new(seed, hand)`` played by expert to its first discard decision at
    turn ``min_turn`` or later with at least 3 legal discards (None if the hand ends first)."""
    g = Game.new(seed, hand, strategies="expert")
    while not g.is_over:
        if g.phase == "discard" and g.turn >= min_turn and len(g.legal_actions()) >= 3:
            return g
        g.apply(g.choose())
    return None


# ---------------------------------------------------------------- sections
def reductions(mode: dict, out: list) -> None:
    w = mode["red_worlds"]
    cases = [("examples/position.toml (15 candidates)", Game.from_position(EXAMPLE, seed=1))]
    cases.append(("hand 14 of seed 1, decision 58 (24 candidates)", big_game()))
    for seed, hand in ((2, 3), (5, 7)):
        g = discard_decision(seed, hand)
        if g is not None:
            cases.append(((f"discard of hand {hand} of seed {seed}, turn {g.turn} "
                          f"({len(g.legal_actions())} candidates)"), g))
    out += ["## Variance reduction beyond common random numbers", "",
            (f"Each position: {w:,} sampled worlds (seed 1) x every legal candidate, expert; the "
            "reductions are measured from the same rollouts: summed variances of the results "
            "(of the paired differences to the best) without the adjustment over with it."), "",
            ("| position | CRN (paired vs independent) | strata: means | strata: differences | "
            "cv: means | cv: differences |"), "|---|---:|---:|---:|---:|---:|"]
    for name, g in cases:
        acts = g.legal_actions()
        m = rollout_matrix(g, acts, w, seed=1)
        row = [name]
        texts = [g.action_text(a) for a in acts]
        base = sim.analysis.summarize_rollouts(m["result"], m["own"], m["closed"], acts, texts, 1)
        row.append(f"×{base.attrs['var_reduction']:.2f}")
        best = acts.index(int(base.iloc[0].action))
        for adjust in ("strata", "cv"):
            est = RS.Estimator(g, adjust, 1, 2, 0)
            r, ddof = est(m["result"])
            means, diffs = RS.reductions(m["result"].astype(float), r, ddof, best)
            row += [f"×{means:.3f}", f"×{diffs:.3f}"]
        out.append("| " + " | ".join(row) + " |")
        log(out[-1])
    out.append("")


_LONG = {}


def long_run(name: str, mode: dict):
    """The long-run means of a POSITIONS entry: ``(game, acts, means float64[C], se)``."""
    if name not in _LONG:
        source, cands, _ = POSITIONS[name]
        g = Game.from_position(source, seed=10**6)
        acts = sim.analysis.rollouts._candidates(g, cands)
        m = rollout_matrix(g, acts, mode["long"], seed=10**6)
        r = m["result"].astype(float)
        _LONG[name] = (g, acts, r.mean(axis=0), r.std(axis=0, ddof=1) / math.sqrt(r.shape[0]))
        log(f"long run {name}: means {np.round(_LONG[name][2], 2)} se {np.round(_LONG[name][3], 2)}")
    return _LONG[name]


def wrong_best(mode: dict, out: list) -> None:
    n = mode["repeats"]
    out += ["## Wrong-best rate of the sequential rule", "",
            (f"`sim.analyze(position, until_separated=True, batch={mode['batch']}, "
            f"max_rollouts={mode['cap']}, margin=M, seed=s)` for seeds s = 1 .. {n}; the true "
            f"means from a run of {mode['long']:,} worlds (seed 10^6). A *wrong best* names a "
            "candidate whose true mean is below the true best's by more than the margin. The rule "
            "names a best only when it stops by separation; at the cap the table's first row is "
            "the best so far, not a separated best (`attrs[\"stop\"] == \"cap\"`), counted apart."),
            "", ("| position | true means (points, ± se) | margin | wrong best named (of all runs) "
            "| stopped by separation | wrong first row at the cap (of cap stops) | worlds used "
            "(mean) |"), "|---|---|---:|---:|---:|---:|---:|"]
    for name, (source, cands, margin) in POSITIONS.items():
        _g, acts, mu, se = long_run(name, mode)
        top = mu.max()
        wrong = sep = cap_wrong = 0
        used = []
        for s in range(1, n + 1):
            df = sim.analyze(source, seed=s, candidates=cands, until_separated=True,
                             batch=mode["batch"], max_rollouts=mode["cap"], margin=margin)
            named = acts.index(int(df.iloc[0].action))
            bad = mu[named] < top - margin
            if df.attrs["stop"] == "separated":
                sep += 1
                wrong += bad
            else:
                cap_wrong += bad
            used.append(df.attrs["worlds"])
        means = ", ".join(f"{m:+.1f} ± {e:.1f}" for m, e in zip(mu, se))
        out.append(f"| {name} | {means} | {margin:g} | {binom_ci(wrong, n)} | "
                   f"{binom_ci(sep, n)} | {binom_ci(cap_wrong, n - sep)} | "
                   f"{np.mean(used):,.0f} |")
        log(out[-1])
    out.append("")


def _coverage(dfs, acts, mu):
    """Coverage counts of mean_result and diff_best over the analyses ``dfs``."""
    cm = cd = nd = 0
    for df in dfs:
        best = acts.index(int(df.iloc[0].action))
        for row in df.itertuples():
            j = acts.index(int(row.action))
            cm += row.ci95_low <= mu[j] <= row.ci95_high
            if j != best:
                nd += 1
                cd += row.diff_low <= mu[j] - mu[best] <= row.diff_high
    return cm, cd, nd


def calibration(mode: dict, out: list) -> None:
    name = "B: gap ~7"
    source, cands, _ = POSITIONS[name]
    _g, acts, mu, _ = long_run(name, mode)
    n = mode["repeats"]
    out += ["## Calibration of the intervals", "",
            (f"Position {name} ({cands}); {n} analyses with seeds 1 .. {n}; the long-run means "
            f"from {mode['long']:,} worlds (seed 10^6, "
            f"{mode['long'] // mode['fixed_n']} times the fixed-N analysis). Coverage of the 95% "
            "intervals with its 95% Wilson interval; `mean_result` over every candidate of every "
            "analysis, `diff_best` over the candidates other than the named best."), "",
            "| analysis | mean_result covered | diff_best covered | worlds (mean) |",
            "|---|---:|---:|---:|"]
    for label, kw in ((f"fixed N = {mode['fixed_n']}", {"rollouts": mode["fixed_n"]}),
                      (f"sequential, batch {mode['cal_batch']}, cap {mode['cal_cap']}",
                       {"until_separated": True, "batch": mode["cal_batch"],
                        "max_rollouts": mode["cal_cap"]})):
        dfs = [sim.analyze(source, seed=s, candidates=cands, **kw) for s in range(1, n + 1)]
        cm, cd, nd = _coverage(dfs, acts, mu)
        used = np.mean([df.attrs["worlds"] for df in dfs])
        z = dfs[0].attrs["z_interval"]
        out.append(f"| {label} (intervals ±{z:.2f} se) | {binom_ci(cm, n * len(acts))} | "
                   f"{binom_ci(cd, nd)} | {used:,.0f} |")
        log(out[-1])
    out.append("")


def oracle(mode: dict, out: list) -> None:
    k, w = mode["oracle"], mode["oracle_worlds"]
    out += ["## Oracle gap: sampled worlds against the true hidden cards", "",
            (f"{k} discard decisions of simulated hands (`Game.new(seed, hand)` played by expert "
            "to its first discard at turn 8 or later with 3 or more legal discards; seeds 1.., "
            f"hands 0..): `sim.analyze(game, rollouts={w})` on sampled worlds beside "
            "`sim.analyze(game, rollouts=20, worlds=\"true\")` on the true hidden cards (expert "
            "is deterministic, so the true-card results hardly vary). The gap is the true-card "
            "result of the true-card best minus that of the sampled-world choice (points)."), ""]
    agree, gaps, rows = 0, [], []
    seed, hand = 1, 0
    while len(gaps) < k:
        g = discard_decision(seed, hand)
        hand += 1
        if hand == 50:
            seed, hand = seed + 1, 0
        if g is None:
            continue
        s = sim.analyze(g, rollouts=w, seed=7)
        t = sim.analyze(g, rollouts=20, seed=7, worlds="true")
        tv = dict(zip(t["action"], t["mean_result"]))
        best_t, best_s = int(t.iloc[0].action), int(s.iloc[0].action)
        agree += tv[best_s] == tv[best_t]
        gaps.append(tv[best_t] - tv[best_s])
        rows.append(f"| {g.seed} | {g.hand_index} | {g.turn} | {len(s)} | {s.iloc[0].text} | "
                    f"{t.iloc[0].text} | {gaps[-1]:.1f} |")
        log(rows[-1])
    gaps = np.asarray(gaps)
    half = Z95 * gaps.std(ddof=1) / math.sqrt(len(gaps)) if len(gaps) > 1 else math.nan
    out += [(f"Best candidate agrees (the same true-card result): {binom_ci(agree, k)}; mean gap "
            f"{gaps.mean():.1f} points [{gaps.mean() - half:.1f} – {gaps.mean() + half:.1f}] "
            f"(95% interval over the decisions), largest {gaps.max():.0f}."), "",
            "| seed | hand | turn | candidates | sampled-world best | true-card best | gap |",
            "|---:|---:|---:|---:|---|---|---:|", *rows, ""]


SECTIONS = {"reductions": reductions, "wrong_best": wrong_best, "calibration": calibration,
            "oracle": oracle}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--only", nargs="+", choices=list(SECTIONS), help="these sections only")
    ap.add_argument("--out", type=Path, default=HERE / "analyze_validation.md")
    args = ap.parse_args(argv)
    mode = MODES["quick" if args.quick else "full"]
    cmd = "python benchmarks/studies/analyze_validation.py" + (" --quick" if args.quick
                                                                  else "")
    if args.only:
        cmd += " --only " + " ".join(args.only)
    out = ["# Validation of position analysis", "",
           "Generated by `benchmarks/studies/analyze_validation.py` (do not edit by hand).", "",
           (f"Command: `{cmd}` · mode **{'quick' if args.quick else 'full'}**; rollout strategy "
           "expert, default rules, 2 threads, the shared 2-core development machine."), ""]
    t0 = time.perf_counter()
    for name in args.only or SECTIONS:
        s = time.perf_counter()
        SECTIONS[name](mode, out)
        out.append(f"({name}: {time.perf_counter() - s:.0f} s)")
        out.append("")
    out.append(f"Total {time.perf_counter() - t0:.0f} s; git commit {_commit()}.")
    args.out.write_text("\n".join(out) + "\n")
    log(f"wrote {args.out}")
    return 0


def _commit() -> str:
    import subprocess
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                              capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
