#!/usr/bin/env python
"""What the card-location model is worth; writes benchmarks/studies/card_locations.md.

    python benchmarks/studies/card_locations.py [--quick] [--only SECTION ...]

Sections (each prints its table to stderr as it goes):

* ``loglik``: the mean log-likelihood per unseen card (nats) of the true locations on
  held-out hands (data seed 2, never trained on) under the shipped model and under the
  uniform deal, with 95% intervals over hands; and the same for the worlds themselves
  (the share of sampled worlds that put each unseen card where it truly is, uniform
  worlds against the model's worlds);
* ``oracle``: the oracle gap of benchmarks/studies/analyze_validation.md (sampled-world best
  against the true-card best, measured on the true cards) on the same discard decisions,
  with uniform worlds and with the model's worlds (``sim.analyze(..., worlds="model")``);
* ``h2h``: ``sim.compare("rollout:card_model=1", "rollout")``: the search with the model's
  worlds against the default search, on the same deals with seats swapped.
"""
from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

import sim  # noqa: E402
from kernels.core.cards import N_CARDS, N_COUNT  # noqa: E402
from kernels.search import card_model as KM  # noqa: E402
from kernels.table import state as KS  # noqa: E402
from kernels.table import worlds as KWD  # noqa: E402
from sim import Game  # noqa: E402
from sim.analysis import card_model as CM  # noqa: E402

Z95 = 1.959963984540054
MODES = {
    "full": {"ll_hands": 500, "world_hands": 60, "world_every": 6, "worlds": 200,
             "oracle": 100, "oracle_worlds": 1_000, "h2h_hands": 2_000},
    "quick": {"ll_hands": 40, "world_hands": 6, "world_every": 10, "worlds": 50,
              "oracle": 4, "oracle_worlds": 300, "h2h_hands": 20},
}
_T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f} s] {msg}", file=sys.stderr, flush=True)


def binom_ci(k: int, n: int) -> str:
    """``"94.5% [91.2 – 96.6]"``: a share with its 95% Wilson interval."""
    if n == 0:
        return "n/a"
    p = k / n
    den = 1 + Z95**2 / n
    mid = (p + Z95**2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / den
    return f"{100 * p:.1f}% [{100 * (mid - half):.1f} – {100 * (mid + half):.1f}]"


def mean_ci(x) -> str:
    x = np.asarray(x, np.float64)
    half = Z95 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.nan
    return f"{x.mean():+.1f} [{x.mean() - half:+.1f} – {x.mean() + half:+.1f}]"


# ---------------------------------------------------------------- log-likelihood
def _world_locations(work, seat, n_players, ids_index, out_loc):
    """Where each unseen card (``ids_index``: card id -> row, -1 for a seen card) lies in the
    world ``work``: ``out_loc[row]`` = r for the hand of ``seat + r``, else 0."""
    out_loc[:] = 0
    hn = work[KS.S_HN:KS.S_HN + 4]
    for s in range(n_players):
        if s == seat:
            continue
        r = (s - seat) % n_players
        ids = work[KS.S_HAND + 108 * s:KS.S_HAND + 108 * s + hn[s]]
        rows = ids_index[ids]
        out_loc[rows[rows >= 0]] = r


def world_loglik(hands: int, every: int, worlds: int) -> dict:
    """Per unseen card, the log of the share of ``worlds`` sampled worlds (plus one half,
    of ``worlds`` + 2: a card never placed right is not -inf) that put it in its true
    location (0 the stock and pozzetti, else a hand), for uniform and for the model's
    worlds, at every ``every``-th pickup or discard decision of held-out hands."""
    x = np.empty((4, N_COUNT, KM.N_FEATURES))
    places = np.empty((N_CARDS, 3), np.int64)
    odds = np.empty((4, N_COUNT))
    out = {"uniform": [], "model": [], "hand": []}
    dec = 0
    for h in range(hands):
        g = Game.new(2, CM.HAND_OFFSET + 10_000 + h, strategies="expert")
        while not g.is_over:
            if g.phase in CM.PH_RECORDED and g.open_lay_off is None:
                dec += 1
                if dec % every == 0:
                    seat = g.current_seat
                    n = KWD.unseen_places(g._work, np.int64(seat), places)
                    _, _, loc, _ = CM.decision_cards(g, x, places)
                    st = g.state
                    ids = np.array([st.hand[a, b] if w == KWD.PLACE_HAND else
                                    st.stock[a] if w == KWD.PLACE_STOCK else st.poz[a, b]
                                    for w, a, b in places[:n]])
                    index = np.full(N_CARDS, -1, np.int64)
                    index[ids] = np.arange(n)
                    KM.card_odds(g._work, np.int64(seat), odds)
                    wl = np.empty(n, np.int64)
                    for kind in ("uniform", "model"):
                        hits = np.zeros(n)
                        dst = np.empty_like(g._work)
                        for w in range(worlds):
                            dst[:] = g._work
                            if kind == "uniform":
                                KWD.resample_unseen(dst, np.int64(seat), np.uint64(11),
                                                    np.int64(w))
                            else:
                                KM.resample_unseen_weighted(dst, np.int64(seat),
                                                            np.uint64(11), np.int64(w), odds)
                            _world_locations(dst, seat, g.rules.num_players, index, wl)
                            hits += wl == loc
                        out[kind].append(np.log((hits + 0.5) / (worlds + 1.0)))
                    out["hand"].append(np.full(n, h))
            g.apply(g.choose())
    return {k: np.concatenate(v) for k, v in out.items()}


def loglik(mode: dict, out: list) -> None:
    k = mode["ll_hands"]
    t = time.perf_counter()
    c = CM.collect(2, k, first=10_000, progress=log)
    ll = CM.log_likelihood(c, CM.read_weights())
    secs = time.perf_counter() - t
    log(f"log-likelihood: {ll}")
    out += ["## Log-likelihood of the true hidden locations", "",
            (f"Held-out hands: data seed 2, hands 2**62 + 10,000 .. + {10_000 + k - 1} (the "
             "shipped weights were trained on seed 1), `expert` on every seat, default rules; "
             f"every pickup and discard decision: {ll['decisions']:,} decisions, "
             f"{ll['cards']:,} unseen cards ({ll['model_minus_uniform_in_hands']['cards']:,} "
             "of them in another seat's hand). Mean log-likelihood per unseen card of its "
             "true location (another seat's hand, or the stock and pozzetti), in nats, with "
             f"95% intervals over the {ll['hands']} hands:"), "",
            "| | nats per card |", "|---|---:|",
            f"| model | {CM.fmt(ll['model'])} |",
            f"| uniform deal | {CM.fmt(ll['uniform'])} |",
            f"| model - uniform | {CM.fmt(ll['model_minus_uniform'])} |",
            f"| model - uniform, cards in a hand only | "
            f"{CM.fmt(ll['model_minus_uniform_in_hands'])} |", "",
            f"({secs:.0f} s)", ""]
    t = time.perf_counter()
    w = world_loglik(mode["world_hands"], mode["world_every"], mode["worlds"])
    secs = time.perf_counter() - t
    diff = w["model"] - w["uniform"]
    fm = CM.fmt({k: v for k, v in zip(("mean", "lo", "hi"),
                                      CM.ratio_interval(w["model"], w["hand"]))})
    fu = CM.fmt({k: v for k, v in zip(("mean", "lo", "hi"),
                                      CM.ratio_interval(w["uniform"], w["hand"]))})
    fd = CM.fmt({k: v for k, v in zip(("mean", "lo", "hi"),
                                      CM.ratio_interval(diff, w["hand"]))})
    log(f"worlds: model {fm}, uniform {fu}, diff {fd}")
    out += ["The worlds themselves (what the search plays on): at every "
            f"{mode['world_every']}th decision of {mode['world_hands']} held-out hands (seed 2, "
            f"hands 2**62 + 10,000 ..), {mode['worlds']} worlds dealt uniformly "
            "(`resample_unseen`) and as many by the model "
            "(`resample_unseen_weighted`); per unseen card, the log of the share of worlds "
            "that put it in its true location (plus one half, of the worlds plus one), "
            f"{len(diff):,} cards:", "",
            "| worlds | nats per card |", "|---|---:|",
            f"| the model's | {fm} |", f"| uniform | {fu} |", f"| model - uniform | {fd} |", "",
            f"({secs:.0f} s)", ""]


# ---------------------------------------------------------------- oracle gap
def discard_decision(seed: int, hand: int, min_turn: int = 8):
    """As benchmarks/studies/analyze_validation.py: ``Game.new(seed, hand)`` played by expert
    to its first discard decision at turn ``min_turn`` or later with at least 3 legal
    discards (None if the hand ends first)."""
    g = Game.new(seed, hand, strategies="expert")
    while not g.is_over:
        if g.phase == "discard" and g.turn >= min_turn and len(g.legal_actions()) >= 3:
            return g
        g.apply(g.choose())
    return None


def oracle(mode: dict, out: list) -> None:
    k, w = mode["oracle"], mode["oracle_worlds"]
    out += ["## Oracle gap with and without the model", "",
            (f"{k} discard decisions of simulated hands, chosen as in analyze_validation.md "
             "(`Game.new(seed, hand)` played by expert to its first discard at turn 8 or later "
             "with 3 or more legal discards; seeds 1.., hands 0..49 of each; its 20 are the "
             f"first 20 here): `sim.analyze(game, rollouts={w}, seed=7)` on uniform worlds and "
             f"with `worlds=\"model\"`, beside `sim.analyze(game, rollouts=20, seed=7, "
             "worlds=\"true\")` on the true hidden cards. The gap is the true-card result of "
             "the true-card best minus that of the chosen candidate (points, >= 0); "
             "\"agrees\": the chosen candidate has the true-card best's result."), ""]
    rows = []
    gaps = {"sampled": [], "model": []}
    agree = {"sampled": 0, "model": 0}
    seed, hand = 1, 0
    while len(rows) < k:
        g = discard_decision(seed, hand)
        hand += 1
        if hand == 50:
            seed, hand = seed + 1, 0
        if g is None:
            continue
        t = sim.analyze(g, rollouts=20, seed=7, worlds="true")
        tv = dict(zip(t["action"], t["mean_result"]))
        best_t = int(t.iloc[0].action)
        picks = {}
        for kind in ("sampled", "model"):
            s = sim.analyze(g, rollouts=w, seed=7, worlds=kind)
            best = int(s.iloc[0].action)
            picks[kind] = s.iloc[0].text
            agree[kind] += tv[best] == tv[best_t]
            gaps[kind].append(tv[best_t] - tv[best])
        rows.append(f"| {g.seed} | {g.hand_index} | {g.turn} | {len(t)} | {picks['sampled']} | "
                    f"{picks['model']} | {t.iloc[0].text} | {gaps['sampled'][-1]:.1f} | "
                    f"{gaps['model'][-1]:.1f} |")
        log(rows[-1])
    gs, gm = np.asarray(gaps["sampled"]), np.asarray(gaps["model"])
    out += ["| worlds | best agrees | mean gap (points) |", "|---|---|---:|",
            f"| uniform (`sampled`) | {binom_ci(agree['sampled'], k)} | {mean_ci(gs)} |",
            f"| the model's (`model`) | {binom_ci(agree['model'], k)} | {mean_ci(gm)} |",
            f"| model - uniform, paired | | {mean_ci(gm - gs)} |", "",
            (f"Intervals: 95%, over the decisions (Wilson for the shares). The two choices "
             f"differ at {int(sum(a != b for a, b in zip(gs, gm)))} of the {k} decisions "
             "(by their gaps)."), "",
            "| seed | hand | turn | candidates | uniform-world best | model-world best | "
            "true-card best | gap, uniform | gap, model |",
            "|---:|---:|---:|---:|---|---|---|---:|---:|", *rows, ""]


# ---------------------------------------------------------------- head to head
def h2h(mode: dict, out: list) -> None:
    n = mode["h2h_hands"]
    a, b = "rollout:card_model=1", "rollout"
    t = time.perf_counter()
    r = sim.compare(a, b, hands=n, seed=5, progress=True).iloc[0]
    secs = time.perf_counter() - t
    log(f"h2h: {r.to_dict()}")
    out += ["## The search with the model's worlds against the default search", "",
            (f"`python -m sim compare \"{a}\" {b} --hands {n} --seed 5` (the same deals, "
             "each played twice with the seats swapped; every seat searches): A - B "
             f"{r['mean_diff']:+.1f} points a hand ({r['ci95_low']:+.1f} .. "
             f"{r['ci95_high']:+.1f}, 95%), A wins {100 * r['a_win_share']:.1f}% of the games; "
             f"{n:,} deals, {2 * n:,} games, {secs / 60:.1f} min."), ""]


SECTIONS = {"loglik": loglik, "oracle": oracle, "h2h": h2h}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                              capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--only", nargs="+", choices=list(SECTIONS), help="these sections only")
    ap.add_argument("--h2h-hands", type=int, help="deals of the head to head")
    ap.add_argument("--out", type=Path, default=HERE / "card_locations.md")
    args = ap.parse_args(argv)
    mode = dict(MODES["quick" if args.quick else "full"])
    cmd = "python benchmarks/studies/card_locations.py" + (" --quick" if args.quick else "")
    if args.only:
        cmd += " --only " + " ".join(args.only)
    if args.h2h_hands:
        mode["h2h_hands"] = args.h2h_hands
        cmd += f" --h2h-hands {args.h2h_hands}"
    out = ["# The card-location model: worlds sampled as a player would infer them", "",
           "Generated by `benchmarks/studies/card_locations.py` (do not edit by hand).", "",
           (f"Command: `{cmd}` · mode **{'quick' if args.quick else 'full'}**; the shipped "
            "weights (sim/analysis/card_model.json, kernels.search.card_model), default "
            "rules, the shared 2-core development machine."), ""]
    t0 = time.perf_counter()
    for name in args.only or SECTIONS:
        s = time.perf_counter()
        SECTIONS[name](mode, out)
        out.append(f"({name}: {time.perf_counter() - s:.0f} s)")
        out.append("")
        args.out.write_text("\n".join(out) + "\n")          # each section as it ends
    out.append(f"Total {time.perf_counter() - t0:.0f} s; git commit {_commit()}.")
    args.out.write_text("\n".join(out) + "\n")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
