"""How results differ between rule sets: the table of the README's "Rule sets" section.

    python benchmarks/rule_sets.py [HANDS [MATCHES]]      # default 100000 10000

For each preset (and the two-player game) it simulates HANDS hands and MATCHES
matches with `heuristic` on every seat, seed 2026, and prints one Markdown row:
mean hand score per team, shares of closed and stock-exhausted hands, turns
per hand, clean/dirty burracos per team, hands per match, team 0's match wins.
Timings and the standard error of the mean score go to stderr.
"""
import sys
import time

import numpy as np

import sim

CONFIGS = [("default", {}), ("fibur_italian", {}), ("fibur_international", {}),
           ("default", {"num_players": 2})]
HANDS = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
MATCHES = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
SEED = 2026
print("| rules | players | mean hand score (points per team) | closed | stock exhausted | turns per hand | clean / dirty burracos per team | hands per match | team 0 wins |")
print("|---|---|---|---|---|---|---|---|---|")
for preset, extra in CONFIGS:
    r = sim.Rules.preset(preset).replace(**extra) if extra else sim.Rules.preset(preset)
    t = time.time()
    df = sim.simulate(HANDS, SEED, rules=r)
    t1 = time.time() - t
    t = time.time()
    mr = sim.simulate_matches(MATCHES, SEED, rules=r)
    t2 = time.time() - t
    score = (df.score_t0.mean() + df.score_t1.mean()) / 2
    closed = (df.end_reason == "closed").mean()
    stock = (df.end_reason == "stock_exhausted").mean()
    cl = (df.clean_burracos_t0.mean() + df.clean_burracos_t1.mean()) / 2
    di = (df.dirty_burracos_t0.mean() + df.dirty_burracos_t1.mean()) / 2
    m = mr.matches
    hpm = m.hands.mean()
    w0 = (m.winner == 0).mean()
    cap = (m.reason == "cap").mean()
    print(f"| `{preset}` | {r.num_players} | {score:.1f} | {closed:.2%} | {stock:.2%} | {df.turns.mean():.1f} | {cl:.3f} / {di:.3f} | {hpm:.2f} | {w0:.1%} |", flush=True)
    print(f"  ({preset} {extra}: {HANDS} hands {t1:.1f}s, {MATCHES} matches {t2:.1f}s ({len(mr.hands)} hands), capped {cap:.2%}, sem score {df.score_t0.std()/np.sqrt(HANDS):.2f})", file=sys.stderr, flush=True)
