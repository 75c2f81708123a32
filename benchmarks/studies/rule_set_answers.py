#!/usr/bin/env python
"""The main strategy questions under each rule set, for strong play and for `expert`: playing
first, reaching the pozzetto first and a minimum pile size, with the learned player `learned`
(the model the rules pick: `fibur_international-v1` under Fibur International, v3 elsewhere)
beside `expert`; writes benchmarks/studies/rule_set_answers.md.

    python benchmarks/studies/rule_set_answers.py [--hands N] [--deals D] [--transfer T]
        [--only LABEL ...] [--runs DIR] [--out PATH] [--threads K]

For each rule set (the default rules, `fibur_italian`, `fibur_international`, two players,
three players in both modes, R62/R63):

* **strength**: `learned` against `expert` under those rules, T deals (default 5,000, seed 1).
  Two or four players: `sim.compare_hands` (every deal twice, the sides' seats swapped), points
  a hand of A's side minus B's.  Three players, whose sides change during a hand (R62) so that
  seats cannot be swapped: the seat-rotation design, for each seat s `learned` in seat s and
  `expert` in the two others against `expert` in all three on the same deals; the value of a deal
  is seat s's credited score gain, averaged over the three seats (points a hand for one player).
* **playing first** and **the pozzetto first** (sim.questions): N hands (default 200,000, seed
  1) with `learned` on every seat and with `expert` on every seat, the same deals; the last
  column is the difference hand by hand.
* **a minimum pile size** K = 2, 3, 4 (`pile_min_size`, the player refuses every discard pile
  of fewer than K cards): the variant against the player itself, D deals (default 100,000, seed
  2), by the same designs as the strength (two or four players: points a hand of the variant's
  side minus the other's; three players: the variant's seat's gain), for `learned` and for
  `expert`; the last column is the difference of the two margins deal by deal.

Every per-hand result is kept in ``--runs`` (default runs/rule_set_answers; not part of the
repository) and read back when the script runs again with the same counts, so a stopped run
loses only the item under way; the report's times are those of the items computed in this
run.  Every value is a mean with its 95% interval (normal approximation) and its count.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))      # this checkout's sim

import sim                                    # noqa: E402
from sim import questions as Q                # noqa: E402
from cache import Cache                       # noqa: E402  (benchmarks/studies/cache.py)

STRONG, BASE = "learned", "expert"
PILE_SIZES = (2, 3, 4)
#: (label, preset, options changed, words)
RULE_SETS = [
    ("default", "default", {}, "default rules"),
    ("fibur_italian", "fibur_italian", {}, "Fibur Italian"),
    ("fibur_international", "fibur_international", {}, "Fibur International"),
    ("two_players", "default", {"num_players": 2}, "two players"),
    ("three_players", "default", {"num_players": 3}, "three players, partners after pozzetto A (R62)"),
    ("three_alone", "default", {"num_players": 3, "three_player_mode": "individual_3x11"},
     "three players, each alone (R63)"),
]


def rules_of(preset: str, extra: dict) -> sim.Rules:
    r = sim.Rules.preset(preset)
    return r.replace(**extra) if extra else r


def margin(cache: Cache, key: str, a: str, b: str, deals: int, seed: int, rules: sim.Rules,
           threads) -> np.ndarray:
    """Per deal: A's margin over B under ``rules`` (points a hand; see the module's designs)."""
    if rules.num_players != 3:
        return cache.get(key, deals, lambda: sim.compare_hands(
            a, b, deals, seed, rules=rules, threads=threads)["paired_diff"].to_numpy())

    def rotation():
        base = sim.simulate(deals, seed, b, rules=rules, threads=threads)
        gain = np.zeros(deals)
        for s in range(3):
            seats = [a if k == s else b for k in range(4)]      # seat 3 is empty (R61)
            df = sim.simulate(deals, seed, seats, rules=rules, threads=threads)
            gain += (df[f"score_t{s}"].to_numpy(np.float64)
                     - base[f"score_t{s}"].to_numpy(np.float64))
        return gain / 3.0
    return cache.get(key, deals, rotation)


def text(values: np.ndarray, unit: str = "hand") -> str:
    """``"+12.4 (+10.7 .. +14.1), 200,000 hands"`` (or ``deals``)."""
    words = Q.mean_ci(values).text()
    return words[:-len(" hands")] + f" {unit}s" if words.endswith(" hands") else words


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200_000,
                    help="hands for playing first and the pozzetto first (default 200000)")
    ap.add_argument("--deals", type=int, default=100_000,
                    help="deals per pile size (default 100000)")
    ap.add_argument("--transfer", type=int, default=5_000,
                    help="deals of learned against expert (default 5000)")
    ap.add_argument("--only", nargs="+", choices=[r[0] for r in RULE_SETS],
                    help="these rule sets only (default all)")
    ap.add_argument("--runs", default="runs/rule_set_answers",
                    help="where the per-hand results are kept (default runs/rule_set_answers)")
    ap.add_argument("--out", default=str(HERE / "rule_set_answers.md"), help="the report")
    ap.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    a = ap.parse_args(argv)
    for name in ("hands", "deals", "transfer"):
        if getattr(a, name) < 2:
            ap.error(f"--{name}: at least 2")
    cache = Cache(Path(a.runs))
    t_start = time.perf_counter()
    sections = []
    for label, preset, extra, words in RULE_SETS:
        if a.only and label not in a.only:
            continue
        r = rules_of(preset, extra)
        strong = sim.strategies.canonical_name(STRONG, r)
        tag = strong.partition("model=")[2]           # the kept results name the model played
        print(f"{words}: {strong}", file=sys.stderr, flush=True)
        unit = "one player's points a hand" if r.num_players == 3 else "points a hand"
        rows = [("`learned` - `expert` (the strength)",
                 text(margin(cache, f"{label}/transfer_{tag}", STRONG, BASE, a.transfer, 1, r,
                             a.threads), "deal"), "", "")]
        runs = {}
        for who in (STRONG, BASE):
            def answers(who=who):
                df = sim.simulate(a.hands, 1, who, rules=r, threads=a.threads)
                first = Q.first_player(df).values
                poz = Q.pozzetto_first(df)
                full = np.full(a.hands, np.nan)
                full[poz.index] = poz.values
                return np.stack([first, full], axis=1).ravel()
            key = f"{label}/answers_{who}" + (f"_{tag}" if who == STRONG else "")
            runs[who] = cache.get(key, 2 * a.hands, answers).reshape(-1, 2)
        for j, what in enumerate(("playing first", "the pozzetto first")):
            s, b = runs[STRONG][:, j], runs[BASE][:, j]
            both = ~np.isnan(s) & ~np.isnan(b)
            rows.append((what, text(s[~np.isnan(s)]), text(b[~np.isnan(b)]), text((s - b)[both])))
        for k in PILE_SIZES:
            ms = margin(cache, f"{label}/pile{k}_{STRONG}_{tag}", f"{STRONG}:pile_min_size={k}", STRONG,
                        a.deals, 2, r, a.threads)
            mb = margin(cache, f"{label}/pile{k}_{BASE}", f"{BASE}:pile_min_size={k}", BASE,
                        a.deals, 2, r, a.threads)
            rows.append((f"refuse piles of fewer than {k} cards", text(ms, "deal"),
                         text(mb, "deal"), text(ms - mb, "deal")))
        sections.append((words, strong, unit, rows))
    took = time.perf_counter() - t_start
    cmd = "python benchmarks/studies/rule_set_answers.py" + "".join(
        f" --{n} {getattr(a, n)}" for n in ("hands", "deals", "transfer")
        if getattr(a, n) != ap.get_default(n))
    lines = [
        "# The main questions under each rule set, strong play beside `expert`",
        "",
        f"Generated by `{cmd}`; do not edit by hand.",
        "",
        f"Strength: {a.transfer:,} deals of seed 1. Playing first and the pozzetto first: hands "
        f"0..{a.hands - 1:,} of seed 1, `learned` on every seat and `expert` on every seat, the "
        f"same deals. Pile sizes: {a.deals:,} deals of seed 2, the variant against the same "
        "player. Two or four players: every deal played twice with the sides' seats swapped "
        "(points a hand of the first-named side minus the other's). Three players: the "
        "seat-rotation design (the first-named player in one seat, the other in the two others, "
        "against the other in all three, each seat in turn; one player's credited score gain). "
        "Each cell is a mean with its 95% interval and its count; the last column is the "
        "difference deal by deal (strong minus `expert`), which cancels the luck of the deal.",
        "",
    ]
    for words, strong, unit, rows in sections:
        lines += [f"## {words}", "", f"`learned` here is `{strong}`; {unit}.", "",
                  "| question | `learned` | `expert` | difference, same deals |",
                  "|---|---|---|---|"]
        lines += [f"| {w} | {s} | {b} | {d} |" for w, s, b, d in rows]
        lines.append("")
    computed = sum(cache.seconds.values())
    threads = a.threads or numba.config.NUMBA_NUM_THREADS
    lines += [f"Compute time: {computed:.0f} s in all on {threads} threads of the 2-core "
              "development machine, shared with other work (the items' times as first computed; "
              f"this run read the rest back from --runs and took {took:.0f} s).", "",
              f"sim version {sim.__version__}", ""]
    Path(a.out).write_text("\n".join(lines))
    print(f"wrote {a.out} ({took:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
