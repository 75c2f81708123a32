"""How results differ between rule sets: the table of docs/rule_sets.md.

    python benchmarks/studies/rule_sets.py [HANDS [MATCHES]]      # default 100000 10000

For each preset (and the two-player game) it simulates HANDS hands and MATCHES
matches with `heuristic` on every seat, seed 2026, and prints one Markdown row:
mean hand score per team, shares of closed and stock-exhausted hands, turns
per hand, clean/dirty burracos per team, hands per match, team 0's match wins
(with 3 players: per player, the credited score, and seat 0's match wins).
Timings and the standard error of the mean score go to stderr.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))      # this checkout's sim
import sim  # noqa: E402

CONFIGS = [("default", {}), ("fibur_italian", {}), ("fibur_international", {}),
           ("default", {"num_players": 2}), ("default", {"num_players": 3}),
           ("default", {"num_players": 3, "three_player_mode": "individual_3x11"})]
_ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
_ap.add_argument("hands", nargs="?", type=int, default=100_000, help="hands per rule set (default 100000)")
_ap.add_argument("matches", nargs="?", type=int, default=10_000, help="matches per rule set (default 10000)")
_args = _ap.parse_args()
HANDS, MATCHES = _args.hands, _args.matches
SEED = 2026
print("| rules | players | mean hand score per team (points) | hands closed | ended by the stock "
      "| turns per hand | clean / dirty burracos per team | hands per match "
      "| team 0 wins the match |")
print("|---|---|---|---|---|---|---|---|---|")
for preset, extra in CONFIGS:
    r = sim.Rules.preset(preset).replace(**extra) if extra else sim.Rules.preset(preset)
    t = time.time()
    df = sim.simulate(HANDS, SEED, rules=r)
    t1 = time.time() - t
    t = time.time()
    mr = sim.simulate_matches(MATCHES, SEED, rules=r)
    t2 = time.time() - t
    k = 3 if r.num_players == 3 else 2      # per team, or per player (credited) with 3
    score = sum(df[f"score_t{t}"].mean() for t in range(k)) / k
    closed = (df.end_reason == "closed").mean()
    stock = (df.end_reason == "stock_exhausted").mean()
    cl = sum(df[f"clean_burracos_t{t}"].mean() for t in range(k)) / k
    di = sum(df[f"dirty_burracos_t{t}"].mean() for t in range(k)) / k
    m = mr.matches
    hpm = m.hands.mean()
    w0 = (m.winner == 0).mean()
    cap = (m.reason == "cap").mean()
    mode = f" {r.three_player_mode}" if r.num_players == 3 else ""
    print(f"| `{preset}` | {r.num_players}{mode} | {score:.1f} | {closed:.2%} | {stock:.2%} | {df.turns.mean():.1f} | {cl:.3f} / {di:.3f} | {hpm:.2f} | {w0:.1%} |", flush=True)
    print(f"  ({preset} {extra}: {HANDS} hands {t1:.1f}s, {MATCHES} matches {t2:.1f}s ({len(mr.hands)} hands), capped {cap:.2%}, sem score {df.score_t0.std()/np.sqrt(HANDS):.2f})", file=sys.stderr, flush=True)
