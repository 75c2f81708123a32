#!/usr/bin/env python
"""Questions (b) pile size and (c) close at once or build, under strong play: each variant
of the search player against the search player itself on every seat, beside the same
variant of `expert` against `expert`, on the same deals; writes benchmarks/studies/strong_questions.md.

    python benchmarks/studies/strong_questions.py [--hands N] [--points b:2 b:3 c:2]
        [--strong rollout] [--base expert] [--runs DIR] [--out PATH] [--threads T]

A point ``b:K`` compares ``STRONG:pile_min_size=K`` with ``STRONG`` (notebooks/b_pile_size:
refuse every discard pile of fewer than K cards), ``c:K`` compares
``STRONG:close_min_burracos=K`` with ``STRONG`` (notebooks/c_close_or_build: go down to the
closing card only with K burracos), each with ``sim.compare``'s paired design (every deal
played twice, seats swapped), and the same for ``BASE``.  The search keeps the variant's
rule at every decision (kernels.search.player.keeps_base_rules), and its rollouts play the
variant's base policy on every seat.  Deals: hands 0..N-1 of seed 2 for (b) and seed 3 for
(c), the notebooks' seeds.  The last column is the difference of the two margins deal by
deal (strong minus base, same deals) with its 95% interval: does the answer change with the
strength of play?

Each finished point of the strong player is kept as a per-deal file in ``--runs`` (default
runs/strong_questions; not part of the repository) and read back when the script is run
again with the same hands, so a stopped run loses only the point under way.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))      # this checkout's sim

import sim                                          # noqa: E402
from sim.experiments.comparison import Z95, compare_hands, summarize_pairs   # noqa: E402

QUESTIONS = {"b": ("pile_min_size", 2, "refuse piles of fewer than {k} cards"),
             "c": ("close_min_burracos", 3, "wait for {k} burracos before closing")}


def _interval(mean, lo, hi, n):
    return f"{mean:+.1f} ({lo:+.1f} .. {hi:+.1f}), {n:,} deals"


def per_deal(a, b, hands, seed, threads, path: Path | None):
    """compare_hands(a, b), read back from ``path`` when it holds these deals; seconds."""
    if path is not None and path.exists():
        df = pd.read_csv(path)
        if len(df) == hands:
            df.attrs.update(a=a, b=b, seed=seed)
            return df, float("nan")
    t0 = time.perf_counter()
    df = compare_hands(a, b, hands, seed, threads=threads, progress=True)
    dt = time.perf_counter() - t0
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        df.to_csv(tmp, index=False)
        tmp.replace(path)
    return df, dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=500, help="deals per point (default 500)")
    ap.add_argument("--points", nargs="+", default=["b:2", "c:2"],
                    help="points QUESTION:K, QUESTION b (pile_min_size) or c "
                         "(close_min_burracos); default b:2 c:2")
    ap.add_argument("--strong", default="rollout", help="the strong player (default rollout)")
    ap.add_argument("--base", default="expert", help="the player beside it (default expert)")
    ap.add_argument("--runs", default="runs/strong_questions",
                    help="per-deal files of the strong points (default runs/strong_questions)")
    ap.add_argument("--out", default=str(HERE / "strong_questions.md"), help="the report")
    ap.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    a = ap.parse_args(argv)
    if a.hands < 2:
        ap.error("--hands: at least 2 deals")
    rows = []
    for point in a.points:
        q, _, k = point.partition(":")
        if q not in QUESTIONS or not k.isdigit():
            ap.error(f"--points: {point!r} is not b:K or c:K")
        param, seed, label = QUESTIONS[q]
        k = int(k)
        res = {}
        for who in (a.strong, a.base):
            spec = f"{who}{',' if ':' in who else ':'}{param}={k}"
            name = f"{spec}_vs_{who}_seed{seed}_{a.hands}"
            path = Path(a.runs) / (name.replace(":", "_").replace(",", "_").replace("=", "")
                                   + ".csv")
            print(f"{spec} vs {who}: {a.hands:,} deals of seed {seed}", file=sys.stderr)
            df, dt = per_deal(spec, who, a.hands, seed, a.threads,
                              path if who == a.strong else None)
            r = summarize_pairs(df).iloc[0]
            res[who] = (df, r, dt)
            print(f"  {r.mean_diff:+.1f} ({r.ci95_low:+.1f} .. {r.ci95_high:+.1f}), "
                  f"{a.hands:,} deals, {dt:,.0f} s", file=sys.stderr)
        d = res[a.strong][0]["paired_diff"].to_numpy(float) - res[a.base][0]["paired_diff"].to_numpy(float)
        se = d.std(ddof=1) / math.sqrt(len(d))
        rows.append((q, label.format(k=k), f"{param}={k}", seed, res[a.strong][1],
                     res[a.base][1], (d.mean(), d.mean() - Z95 * se, d.mean() + Z95 * se),
                     res[a.strong][2], res[a.base][2]))
    lines = [
        "# (b) pile size and (c) close or build under strong play",
        "",
        "Generated by `python benchmarks/studies/strong_questions.py "
        f"--hands {a.hands} --points {' '.join(a.points)}` (strong `{a.strong}`, base "
        f"`{a.base}`); do not edit by hand.",
        "",
        f"Each point: the variant against its own player, every deal played twice with the "
        f"seats swapped (`sim.compare`), so `{a.strong}` (or `{a.base}`) sits on every seat; "
        "hands 0..N-1 of seed 2 for (b), seed 3 for (c), the notebooks' seeds, default rules. "
        "Margins are the variant's points per hand over its player with their 95% intervals "
        "(normal approximation); the last column is the difference of the two margins deal by "
        f"deal ({a.strong} minus {a.base}, same deals). A negative margin: the rule costs points.",
        "",
        f"| question | variant | `{a.strong}`: variant - `{a.strong}` | "
        f"`{a.base}`: variant - `{a.base}` | difference of the margins, same deals | "
        f"wall time ({a.strong}, {a.base}) |",
        "|---|---|---|---|---|---|",
    ]
    for q, label, param, seed, rs, rb, (dm, dlo, dhi), ts, tb in rows:
        n = int(rs.hands)
        ts_text = "read back" if math.isnan(ts) else f"{ts:,.0f} s"
        lines.append(
            f"| ({q}) {label} | `{param}` (seed {seed}) | "
            f"{_interval(rs.mean_diff, rs.ci95_low, rs.ci95_high, n)} | "
            f"{_interval(rb.mean_diff, rb.ci95_low, rb.ci95_high, int(rb.hands))} | "
            f"{_interval(dm, dlo, dhi, n)} | {ts_text}, {tb:,.1f} s |")
    lines += ["", "sim version " + sim.__version__, ""]
    out = Path(a.out)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(out)
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
