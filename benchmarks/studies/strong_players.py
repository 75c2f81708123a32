#!/usr/bin/env python
"""The search player ``rollout`` and the learned player ``learned`` against their targets:
strength (paired comparisons) and the referee, in one report.

    python benchmarks/studies/strong_players.py [--runs DIR] [--out PATH] [--threads T]
        [--only KEY ...] [--scale F]

Measures, each with the command that gives the same figure:

``search``
    ``rollout`` (its default, sequential halving) against the flat search
    ``rollout:halving=0,worlds=32,rollouts=400,max_candidates=12`` (its default before), head
    to head, 2,000 deals of seed 13 played both ways, and the rollouts per turn of each (the
    search's counter ``rollouts_played`` over hands 0..11 of seed 1013, as
    ``benchmarks/studies/search_halving.py``). Target: +60 a hand, interval above 0, at
    1.25 times the flat search's rollouts per turn at most.
``learned_vs_flat``
    ``learned`` against the flat search, 2,000 deals of seed 41. Target: lower bound > -20.
``learned_vs_rollout``
    ``learned`` against ``rollout`` (sequential halving, the default now), 2,000 deals of seed
    41: no target (the issue's target is against the flat search), for reference.
``learned_vs_expert``
    ``learned`` against ``expert``, the 5,000 deals of seed 1. Target: +130.
``peers``
    ``learned`` and ``expert`` against each of the 18 rule-based peer bots, 2,000 deals of seed 1
    each. Target: ``learned``'s margin at least ``expert``'s against each.
``referee``
    ``python -m tests.referee`` over 2,000 hands of ``learned`` (seed 35) and 500 of
    ``rollout`` (seed 33). Target: 0 violations.

Speed and compile time are measured on an idle machine by ``benchmarks/speed/learned.py``
(``benchmarks/speed/learned.md``). ``--scale 0.1`` runs every measurement on a tenth of the
deals and hands (a quick check; the targets' figures need 1).

Each finished measurement is kept in ``DIR/strong_players.jsonl`` (default
``runs/strong_players``, outside the repository) and read back when the script runs again, so a
stopped run resumes; the report is rewritten after each one.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for p in (str(REPO), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import search_halving as SH  # noqa: E402

FLAT = "rollout:halving=0,worlds=32,rollouts=400,max_candidates=12"
PEERS = ("masu_normal", "guglio_hard", "guglio_medium", "blofroth_smart", "blofroth_max",
         "blofroth_dumb", "blofroth_random", "goodwin_random", "thilanguis_bot", "masu_easy",
         "raphael_bot", "babbo_coded", "valmir_hard", "valmir_medium", "legends_medium",
         "goodwin_low", "guglio_easy", "valmir_easy")
KEYS = ("search", "learned_vs_flat", "learned_vs_rollout", "learned_vs_expert", "peers",
        "referee")


def _n(count: int, scale: float) -> int:
    return max(2, int(round(count * scale)))


def _compare(a: str, b: str, hands: int, seed: int, threads: int) -> dict:
    """``burraco compare A B`` as a child process of this checkout: the summary row, the wall
    time and the command."""
    row, wall, command = SH.compare(a, b, hands, seed, threads)
    return {"a": a, "b": b, "hands": int(row["hands"]), "seed": seed,
            "mean": float(row["mean_diff"]), "lo": float(row["ci95_low"]),
            "hi": float(row["ci95_high"]), "won": float(row["a_win_share"]), "wall": wall,
            "command": command}


def measure_search(a) -> dict:
    flat_cost = SH.rollouts_per_turn(FLAT, 1013, _n(12, a.scale))
    cost = SH.rollouts_per_turn("rollout", 1013, _n(12, a.scale))
    r = _compare("rollout", FLAT, _n(2000, a.scale), 13, a.threads)
    r.update(ratio=cost["per_turn"] / flat_cost["per_turn"], per_turn=cost["per_turn"],
             flat_per_turn=flat_cost["per_turn"])
    return r


def measure_referee(a) -> dict:
    out = []
    for spec, hands, seed in (("learned", _n(2000, a.scale), 35), ("rollout", _n(500, a.scale), 33)):
        cmd = [sys.executable, "-m", "tests.referee", "--hands", str(hands), "--seed", str(seed),
               "--strategy", spec, "--jobs", str(a.threads)]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        last = [ln for ln in done.stdout.splitlines() if ln.startswith("hands with violations:")]
        if not last:
            raise RuntimeError(f"{' '.join(cmd[1:])}: no summary (exit {done.returncode}):\n"
                               f"{done.stderr[-2000:]}")
        bad = int(last[-1].split(";")[0].split(":")[1])
        violations = int(last[-1].split("violations:")[-1])
        out.append({"strategy": spec, "hands": hands, "seed": seed, "hands_with_violations": bad,
                    "violations": violations, "wall": wall,
                    "command": "python -m tests.referee " + " ".join(cmd[3:])})
    return {"runs": out}


def measure(key: str, a) -> dict:
    if key == "search":
        return measure_search(a)
    if key == "learned_vs_flat":
        return _compare("learned", FLAT, _n(2000, a.scale), 41, a.threads)
    if key == "learned_vs_rollout":
        return _compare("learned", "rollout", _n(2000, a.scale), 41, a.threads)
    if key == "learned_vs_expert":
        return _compare("learned", "expert", _n(5000, a.scale), 1, a.threads)
    if key == "peers":
        return {"rows": [{"peer": p, "learned": _compare("learned", p, _n(2000, a.scale), 1,
                                                         a.threads),
                          "expert": _compare("expert", p, _n(2000, a.scale), 1, a.threads)}
                         for p in PEERS]}
    if key == "referee":
        return measure_referee(a)
    raise ValueError(key)


def _ci(r: dict) -> str:
    return f"{r['mean']:+.1f} ({r['lo']:+.1f} .. {r['hi']:+.1f})"


def report(done: dict, a) -> str:
    import sim
    lines = ["# The search player and the learned player against their targets", "",
             f"Generated by `python benchmarks/studies/strong_players.py"
             f"{'' if a.scale == 1 else f' --scale {a.scale:g}'}`; do not edit by hand. "
             f"`rollout` is `{sim.strategies.canonical_name('rollout')}`, `learned` is "
             f"`{sim.strategies.canonical_name('learned')}`; the flat search is `{FLAT}`. "
             "Every comparison plays each deal twice with the seats swapped; intervals are 95% "
             "(normal approximation over the deals' paired differences). Speed and compile "
             "time: [benchmarks/speed/learned.md](../speed/learned.md).", "",
             "| what | measured | target | met | wall time | command |",
             "|---|---|---|---|---:|---|"]
    if "search" in done:
        r = done["search"]
        met = r["mean"] >= 60 and r["lo"] > 0 and r["ratio"] <= 1.25
        lines.append(f"| `rollout` - the flat search, {r['hands']:,} deals | {_ci(r)}, "
                     f"{r['ratio']:.2f} x its rollouts per turn ({r['per_turn']:.1f} against "
                     f"{r['flat_per_turn']:.1f}) | >= +60, interval above 0, <= 1.25 x | "
                     f"{'yes' if met else 'no'} | {r['wall']:.0f} s | `{r['command']}` |")
    for key, what, ok, target in (
            ("learned_vs_flat", "`learned` - the flat search", lambda r: r["lo"] > -20,
             "lower bound > -20"),
            ("learned_vs_rollout", "`learned` - `rollout`", None, "none (for reference)"),
            ("learned_vs_expert", "`learned` - `expert`", lambda r: r["mean"] >= 130, ">= +130")):
        if key in done:
            r = done[key]
            lines.append(f"| {what}, {r['hands']:,} deals of seed {r['seed']} | {_ci(r)} | "
                         f"{target} | {'' if ok is None else 'yes' if ok(r) else 'no'} | "
                         f"{r['wall']:.0f} s | "
                         f"`{r['command']}` |")
    if "peers" in done:
        rows = done["peers"]["rows"]
        short = [x["peer"] for x in rows if x["learned"]["mean"] < x["expert"]["mean"]]
        wall = sum(x["learned"]["wall"] + x["expert"]["wall"] for x in rows)
        lines.append(f"| `learned` against the {len(rows)} rule-based peer bots | beats "
                     f"{sum(x['learned']['lo'] > 0 for x in rows)}; at least `expert`'s margin "
                     f"against {len(rows) - len(short)}"
                     f"{'' if not short else ' (not: ' + ', '.join(short) + ')'} | each at "
                     f"least `expert`'s margin | {'yes' if not short else 'no'} | {wall:.0f} s | "
                     "below |")
    if "referee" in done:
        for r in done["referee"]["runs"]:
            lines.append(f"| referee, {r['hands']:,} hands of `{r['strategy']}` | "
                         f"{r['violations']} violations ({r['hands_with_violations']} hands with "
                         "one) | 0 | "
                         f"{'yes' if r['violations'] == 0 else 'no'} | {r['wall']:.0f} s | "
                         f"`{r['command']}` |")
    if "peers" in done:
        lines += ["", "Against each peer bot (`burraco compare learned PEER --hands N --seed 1`, "
                  "and `expert` on the same deals):", "",
                  "| peer bot | `learned` - peer | `expert` - peer | difference of the margins |",
                  "|---|---|---|---:|"]
        for x in done["peers"]["rows"]:
            lr, er = x["learned"], x["expert"]
            lines.append(f"| {x['peer']} | {_ci(lr)}, {lr['hands']:,} deals | {_ci(er)} | "
                         f"{lr['mean'] - er['mean']:+.1f} |")
    lines += ["", f"sim version {sim.__version__}; {os.cpu_count()} cores; "
              f"{a.threads} threads per comparison.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=Path, default=Path("runs/strong_players"),
                    help="where finished measurements are kept (default runs/strong_players)")
    ap.add_argument("--out", type=Path, default=HERE / "strong_players.md", help="the report")
    ap.add_argument("--threads", type=int, default=2, help="threads per comparison (default 2)")
    ap.add_argument("--only", nargs="*", choices=KEYS, default=list(KEYS),
                    help="the measurements to run (default all)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="fraction of the deals and hands (default 1; 0.1 for a quick check)")
    a = ap.parse_args(argv)
    if not 0 < a.scale <= 1:
        ap.error(f"--scale must be in (0, 1], got {a.scale:g}")
    a.runs.mkdir(parents=True, exist_ok=True)
    store = a.runs / ("strong_players.jsonl" if a.scale == 1 else
                      f"strong_players_scale{a.scale:g}.jsonl")
    done = {}
    if store.exists():
        for line in store.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["key"]] = row["value"]
    for key in a.only:
        if key in done:
            print(f"{key}: kept from {store}", file=sys.stderr, flush=True)
            continue
        print(f"{key} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        done[key] = measure(key, a)
        with store.open("a") as f:
            f.write(json.dumps({"key": key, "value": done[key]}) + "\n")
        print(f"{key}: done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        a.out.write_text(report(done, a))
    a.out.write_text(report(done, a))
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
