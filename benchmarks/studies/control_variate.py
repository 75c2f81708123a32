#!/usr/bin/env python
"""Would a control variate shrink the interval of ``sim.compare``?

    python benchmarks/studies/control_variate.py --pair A B --hands N --seed S
        [--per-deal PATH] [--mu-hands M] [--threads T] [--md]

Plays (or reads back from ``--per-deal``, a CSV of ``sim.comparison.compare_hands``) the
paired comparison of A and B on hands 0..N-1 of seed S, prints its summary exactly as
``burraco compare A B --hands N --seed S`` does (the same function computes it) with the
wall time, then tries control variates for the paired difference p_i of each deal:

* ``own game``: the base policy's own result on the same deal: B on every seat, one game,
  team 0's score minus team 1's (E_i); its mean is taken from M other deals (seed S + 7919);
* ``own game+``: E_i, |E_i|, both teams' total and the hand's turns in that game;
* ``deal``: features of the deal with exactly known means (sim.deals; means from M other
  deals): wilds, jokers, pairs, longest runs and points of each team's hands (their team
  0 - team 1 differences and their sums), the wilds of the up-card, pozzetti and stock, and
  which team plays first;
* ``all``: every control above.

For each: the share of Var(p) the controls explain (R², adjusted for the number of controls),
the variance reduction ``Var(p) / Var(p - beta (C - mu))`` (the factor by which the deals
needed for a given interval fall) and how much narrower the 95% interval gets.  beta is the
least-squares fit on the same deals (the usual estimate; its bias is O(1/N)).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))      # this checkout's sim

import sim                                            # noqa: E402
from sim.experiments.comparison import Z95, compare_hands, format_summary, summarize_pairs   # noqa: E402

MU_SEED_OFFSET = 7919


def own_games(spec, hands, seed, threads):
    """B on every seat, hands 0..hands-1 of seed: per-hand controls."""
    df = sim.simulate(hands, seed, spec, threads=threads)
    e = (df["score_t0"] - df["score_t1"]).to_numpy(float)
    return pd.DataFrame({"E": e, "absE": np.abs(e),
                         "total": (df["score_t0"] + df["score_t1"]).to_numpy(float),
                         "turns": df["turns"].to_numpy(float)})


def deal_controls(seed, hands, threads):
    d = sim.deals(seed, hands, threads=threads)
    out = {}
    for f in ("wilds", "jokers", "pairs", "run_len", "points"):
        t0 = d[f"s0_{f}"].astype(float) + d[f"s2_{f}"].astype(float)
        t1 = d[f"s1_{f}"].astype(float) + d[f"s3_{f}"].astype(float)
        out[f"d_{f}"] = (t0 - t1).to_numpy()
        out[f"s_{f}"] = (t0 + t1).to_numpy()
    out["upcard_wild"] = d["upcard_wild"].astype(float).to_numpy()
    out["poz_wilds"] = (d["p0_wilds"].astype(float) + d["p1_wilds"].astype(float)).to_numpy()
    out["first_team0"] = (d["first_player"].astype(int) % 2 == 0).astype(float).to_numpy()
    return pd.DataFrame(out)


LUCK = ["luck_wild", "luck_joker", "luck_points", "luck_useful"]


def _unrevealed(st):
    """Card ids the stock and the untaken pozzetti still hide."""
    from kernels.table import state as KS
    g = st.g
    ids = list(st.stock[g[KS.G_STOCK_TOP]:g[KS.G_STOCK_END]])
    for k in range(g[KS.G_NEXT_POZZETTO], g[KS.G_N_POZZETTI]):
        ids += list(st.poz[k, :g[KS.G_POZZETTO_SIZE + k]])
    return ids


def _game_luck(seed, i, strategies, team_a):
    """Chance luck of one game, team ``team_a`` minus the other (four values, :data:`LUCK`).

    For every card the stock or a pozzetto reveals to a team (a draw; a pozzetto handed
    out), its value minus ``k`` times the mean value of the cards still unrevealed (the
    stock and the untaken pozzetti: their order is uniformly random given all that was
    revealed, and no strategy reads it), summed per team.  Values: wild (0/1), joker
    (0/1), card points (R2), and, for draws only, useful (0/1: a natural card that fits one
    of the team's melds or makes a natural meld with the drawer's hand, as the heuristic's
    pile test reads it).  Each sum has mean exactly 0 whatever the strategies, so it is a
    control variate with a known mean."""
    from kernels.strategies import policies as KP
    from kernels.table import state as KS
    from kernels.table import work as KW
    from kernels.core.cards import CIDX, CVALUE
    face = np.array([CIDX[c] for c in range(108)])
    simple = np.stack([((face == 52) | (face % 13 == 1)), face == 52, CVALUE[face]],
                      axis=1).astype(float)                       # [card id, value]
    g = sim.Game.new(seed, i, strategies=strategies)
    luck = np.zeros((2, 4))

    def state():
        w = g._work
        return KS.state_numpy(w, KW.EV_AT, int(w[KW.W_EV_ROWS]), int(w[KW.W_EV_CARDS]))

    while not g.is_over:
        a = g.choose()
        st = state()
        seat = g.current_seat
        team = seat % 2
        hidden = _unrevealed(st)
        nxt = int(st.g[KS.G_NEXT_POZZETTO])
        poz = (list(st.poz[nxt, :st.g[KS.G_POZZETTO_SIZE + nxt]])
               if nxt < st.g[KS.G_N_POZZETTI] else [])
        if g.phase == "pickup" and a == 0:                        # a draw
            top = int(st.stock[st.g[KS.G_STOCK_TOP]])
            hc = st.hcnt[seat]
            sm = KP._hand_slot_masks(hc)
            use = {}
            for f in set(int(face[c]) for c in hidden):
                use[f] = float(not (f == 52 or f % 13 == 1) and (
                    KP._forms_natural_meld(hc, sm, f)
                    or KP._fits_meld(st.mcnt, st.minfo, st.nm, team, f)))
            luck[team, :3] += simple[top] - simple[hidden].mean(axis=0)
            luck[team, 3] += use[int(face[top])] - np.mean([use[int(face[c])] for c in hidden])
        g.apply(a)
        after = state()
        if after.g[KS.G_NEXT_POZZETTO] != nxt:                          # a pozzetto handed out
            t = int(after.g[KS.G_TEAM + seat])
            luck[t, :3] += simple[poz].sum(axis=0) - len(poz) * simple[hidden].mean(axis=0)
    return luck[team_a] - luck[1 - team_a]


def luck_controls(A, B, hands, seed):
    """Per deal, the mean of the two seatings' chance luck of A's team minus B's (each game
    played again through sim.Game: as costly as the comparison for a slow strategy)."""
    out = np.zeros((hands, len(LUCK)))
    for i in range(hands):
        out[i] = (_game_luck(seed, i, [A, B, A, B], 0) + _game_luck(seed, i, [B, A, B, A], 1)) / 2
    return pd.DataFrame(out, columns=LUCK)


def reduce(p, c, mu):
    """(adjusted R², variance reduction, interval width ratio, adjusted mean, its se)."""
    n, k = c.shape
    x = c - mu
    xc = x - x.mean(axis=0)
    beta, *_ = np.linalg.lstsq(xc, p - p.mean(), rcond=None)
    adj = p - x @ beta
    r2 = 1 - adj.var(ddof=1) / p.var(ddof=1)
    r2_adj = 1 - (1 - r2) * (n - 1) / (n - k - 1)
    vr = 1 / max(1 - r2_adj, 1e-12)
    se = math.sqrt(adj.var(ddof=1) * (n - 1) / (n - k - 1) / n)
    return r2_adj, vr, 1 / math.sqrt(vr), float(adj.mean()), se


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pair", nargs=2, required=True, metavar=("A", "B"))
    ap.add_argument("--hands", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--per-deal", default=None, help="CSV of compare_hands: read if it exists, "
                                                     "else written")
    ap.add_argument("--mu-hands", type=int, default=200_000,
                    help="other deals for the controls' means (default 200,000)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--md", action="store_true", help="print the table as Markdown")
    ap.add_argument("--luck", type=int, default=0, metavar="K",
                    help="also the chance-luck control on the first K deals (both games of "
                         "each played again through sim.Game)")
    a = ap.parse_args(argv)
    A, B = a.pair
    path = Path(a.per_deal) if a.per_deal else None
    if path is not None and path.exists():
        df = pd.read_csv(path)
        assert len(df) == a.hands, (len(df), a.hands)
        df.attrs.update(a=sim.strategies.name_of(A), b=sim.strategies.name_of(B), seed=a.seed)
        wall = None
    else:
        t0 = time.perf_counter()
        df = compare_hands(A, B, a.hands, a.seed, threads=a.threads, progress=True)
        wall = time.perf_counter() - t0
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            df.to_csv(path, index=False)
    row = summarize_pairs(df).iloc[0]
    print(format_summary(row))
    if wall is not None:
        print(f"{'wall time':<44}{wall:,.0f} s ({2 * a.hands / wall:,.2f} games/s)")
    p = df["paired_diff"].to_numpy(float)
    own = own_games(B, a.hands, a.seed, a.threads)
    own_mu = own_games(B, a.mu_hands, a.seed + MU_SEED_OFFSET, a.threads).mean().to_numpy()
    deal = deal_controls(a.seed, a.hands, a.threads)
    deal_mu = deal_controls(a.seed + MU_SEED_OFFSET, a.mu_hands, a.threads).mean().to_numpy()
    sets = {
        "own game": (own[["E"]].to_numpy(), own_mu[:1]),
        "own game+": (own.to_numpy(), own_mu),
        "deal": (deal.to_numpy(), deal_mu),
        "all": (np.hstack([own.to_numpy(), deal.to_numpy()]), np.concatenate([own_mu, deal_mu])),
    }
    if a.luck:
        k = min(a.luck, a.hands)
        t0 = time.perf_counter()
        luck = luck_controls(A, B, k, a.seed).to_numpy()
        print(f"chance luck of {k:,} deals: {time.perf_counter() - t0:,.0f} s", file=sys.stderr)
        z = luck.mean(axis=0) / (luck.std(axis=0, ddof=1) / math.sqrt(k))
        print("chance luck means (known to be 0), in standard errors: "
              + ", ".join(f"{n} {v:+.2f}" for n, v in zip(LUCK, z)))
        tag = "" if k == a.hands else f", first {k:,} deals"
        if tag:
            sets.update({f"{name}{tag}": (c[:k], mu) for name, (c, mu) in list(sets.items())})
        sets[f"chance luck{tag}"] = (luck, np.zeros(len(LUCK)))
        sets[f"chance luck + all{tag}"] = (
            np.hstack([luck, np.hstack([own.to_numpy(), deal.to_numpy()])[:k]]),
            np.concatenate([np.zeros(len(LUCK)), own_mu, deal_mu]))
        pk = p[:k]
        sek = pk.std(ddof=1) / math.sqrt(k)
        sets_p = {name: (pk if (tag and "first" in name) or "luck" in name else p)
                  for name in sets}
    else:
        sets_p = {name: p for name in sets}
    print(f"\ncorrelation of p with the own game's E: {np.corrcoef(p, own['E'])[0, 1]:+.3f}; "
          f"of the two seatings' differences with E: "
          f"{np.corrcoef(df['a_score_t0'] - df['b_score_t1'], own['E'])[0, 1]:+.3f}, "
          f"{np.corrcoef(df['a_score_t1'] - df['b_score_t0'], own['E'])[0, 1]:+.3f}")
    se0 = p.std(ddof=1) / math.sqrt(len(p))
    head = (f"| {A} vs {B} | controls | R² (adjusted) | variance reduction | interval width | "
            "adjusted margin, 95% interval |")
    lines = [head, "|---|---|---:|---:|---:|---|",
             f"| {len(p):,} deals, seed {a.seed} | none (paired design alone) | | ×1.000 | 100.0% | "
             f"{p.mean():+.1f} ({p.mean() - Z95 * se0:+.1f} .. {p.mean() + Z95 * se0:+.1f}) |"]
    if a.luck and k < a.hands:
        lines.append(f"| first {k:,} deals | none (paired design alone) | | ×1.000 | 100.0% | "
                     f"{pk.mean():+.1f} ({pk.mean() - Z95 * sek:+.1f} .. "
                     f"{pk.mean() + Z95 * sek:+.1f}) |")
    for name, (c, mu) in sets.items():
        r2, vr, width, m, se = reduce(sets_p[name], c, mu)
        lines.append(f"| | {name} ({c.shape[1]}) | {r2:.4f} | ×{vr:.3f} | {100 * width:.1f}% | "
                     f"{m:+.1f} ({m - Z95 * se:+.1f} .. {m + Z95 * se:+.1f}) |")
    print()
    print("\n".join(lines if a.md else [ln.replace("|", " ") for ln in lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
