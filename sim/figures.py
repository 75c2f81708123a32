"""The strategy questions' figures as small PNG files (docs/questions.md).

    python -m sim.figures [--out docs/figures] [--hands N] [--seed S] [--only NAME,...]
                          [--threads T]

Each figure answers one strategy question of ``notebooks/`` (or compares the
rule sets, as ``benchmarks/rule_sets.py`` does) from runs of stated size,
with the notebook's own computation: the same ``sim`` calls (``simulate``,
``sweep``, ``deals``, ``deal_features.play_decks``), the same seeds and, by
default, the same hand counts, so a figure's answer is the notebook's answer.
Every figure is 800 x 450 pixels (dpi 100), has the question as its title,
plain-word labels, the 95% intervals as error bars and a footer with the hand
count, the seed and the strategies.

Each PNG is written atomically (a temporary file, then ``os.replace``), and so
is ``figures.json`` beside them (:data:`INDEX`): for every figure its file,
question, command, hands, seed, strategies, the one-sentence answer with its
interval, the seconds it took and its labels.  A run with ``--only`` updates
the entries of the figures it makes and keeps the others whose PNG is there.

``matplotlib`` is needed by this module only (``pip install -e ".[figures]"``).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import sim
from sim import deal_features as DF
from sim._util.text import OneLineParser, not_a_directory, plural
from sim.experiments.comparison import Z95

#: The sidecar listing the figures of an output directory.
INDEX = "figures.json"
#: Pixel size of every figure (width, height) at :data:`DPI`.
SIZE = (800, 450)
DPI = 100
#: Largest PNG file the figures should make (bytes); tests/test_figures.py checks it.
MAX_BYTES = 60_000
#: Fewest hands a run may have: below it the intervals mean little.
MIN_HANDS = 1000
PROG = "python -m sim.figures"

# the sweeps' grids, as in the notebooks (b), (c), (d)
PILE_SIZES = [2, 3, 4, 5, 6, 8]
CLOSE_BURRACOS = [1, 2, 3]
CLEAN_GRID = {"wild_layoff_min_len": [6, 99], "use_wild_to_meld": [1, 0]}
# the rule sets of benchmarks/rule_sets.py: (preset, options changed, label)
RULE_SETS = [
    ("default", {}, "default rules"),
    ("fibur_italian", {}, "Fibur Italian:\nsemi-clean burraco 150"),
    ("fibur_international", {}, "Fibur International:\nclean burraco to close"),
    ("default", {"num_players": 2}, "two players"),
    ("default", {"num_players": 3}, "three players,\npartners after pozzetto A"),
    ("default", {"num_players": 3, "three_player_mode": "individual_3x11"},
     "three players,\neach alone to the end"),
]


# ---------------------------------------------------------------- labels
def point_label(param: str, value) -> str:
    """A plain-word label for one strategy parameter value of the figures' sweeps.

    Parameters
    ----------
    param : str
        ``"pile_min_size"``, ``"close_min_burracos"``, ``"wild_layoff_min_len"``
        or ``"use_wild_to_meld"`` (parameters of ``heuristic`` / ``expert``).
    value : int or float
        The parameter's value (cards, burracos, or 0/1).

    Returns
    -------
    str
        What a player with that value does, in words (no parameter code).

    Raises
    ------
    ValueError
        A parameter or value the figures do not use.

    Examples
    --------
    >>> point_label("close_min_burracos", 2)
    'wait for a 2nd burraco'
    """
    v = int(value)
    if param == "pile_min_size" and v >= 0:
        return "take every pile" if v <= 1 else f"refuse piles of fewer than {plural(v, 'card')}"
    if param == "close_min_burracos" and v >= 0:
        ordinal = {2: "2nd", 3: "3rd"}.get(v, f"{v}th")
        return "close at once" if v <= 1 else f"wait for a {ordinal} burraco"
    if param == "wild_layoff_min_len" and v in (6, 99):
        return "wilds laid off for a burraco" if v == 6 else "no wild laid off"
    if param == "use_wild_to_meld" and v in (0, 1):
        return "opens melds with a wild" if v == 1 else "never opens with a wild"
    raise ValueError(f"point_label: no label for {param}={value!r}; the figures label "
                     "pile_min_size >= 0, close_min_burracos >= 0, wild_layoff_min_len 6 or "
                     "99 and use_wild_to_meld 0 or 1")


def clean_label(wild_layoff_min_len, use_wild_to_meld) -> str:
    """The label of one point of question (d)'s grid: what the player does, and the style's
    name for the two ends (the reference ``heuristic`` and the full chase)."""
    a, b = int(wild_layoff_min_len), int(use_wild_to_meld)
    what = f"{point_label('wild_layoff_min_len', a)},\n{point_label('use_wild_to_meld', b)}"
    style = {(6, 1): "accept the dirty burraco", (99, 0): "chase the clean burraco"}.get((a, b))
    return f"{style}:\n{what}" if style else what


# ---------------------------------------------------------------- statistics
def mean_ci(x) -> tuple:
    """Mean and 95% interval (normal approximation) of a sample, as in the notebooks.

    Parameters
    ----------
    x : array_like
        Values (points, turns, or 0/1 for shares); at least two for an interval.

    Returns
    -------
    tuple of float
        ``(mean, low, high)``; low and high are NaN with fewer than two values.
    """
    x = np.asarray(x, float)
    if len(x) < 2:
        return (float(x.mean()) if len(x) else float("nan"), float("nan"), float("nan"))
    se = x.std(ddof=1) / np.sqrt(len(x))
    return float(x.mean()), float(x.mean() - Z95 * se), float(x.mean() + Z95 * se)


def _err(mean, low, high) -> np.ndarray:
    """``yerr``/``xerr`` of matplotlib (2 x n, distances below and above) from interval ends."""
    mean, low, high = (np.atleast_1d(np.asarray(a, float)) for a in (mean, low, high))
    return np.nan_to_num(np.vstack([mean - low, high - mean]))


# ---------------------------------------------------------------- the figures
@dataclass
class Made:
    """What a figure's computation found: the answer and what its plot draws."""
    answer: str
    data: dict
    hands_text: str
    strategy: str
    hands: object = None            # the hand count (int), or per source for the summary
    seed: object = None


@dataclass
class Spec:
    """One figure: its name, question, source, default size and seed, and code."""
    name: str
    question: str
    source: str                     # the notebook or script that asks the question
    hands: int                      # default hands (the notebook's HANDS)
    seed: int                       # default seed (the notebook's SEED)
    compute: object                 # (hands, seed, ctx) -> Made
    draw: object                    # (Figure, Made) -> None
    needs: tuple = ()               # figures whose results it draws (the summary)


@dataclass
class _Ctx:
    threads: int | None
    say: object
    made: dict = field(default_factory=dict)


def _sweep(base, grid, hands, seed, ctx, label):
    """``sim.sweep`` with a progress line per point."""
    n = int(np.prod([len(v) for v in grid.values()]))

    def done(p):
        ctx.say(f"    point {p.index + 1}/{n} ({label(p.point)}): "
                f"{float(p.summary['mean_diff'].iloc[0]):+.1f} points per hand")
    return sim.sweep(base, grid, hands=hands, seed=seed, threads=ctx.threads, callback=done)


def _first_player(hands, seed, ctx):
    df = sim.simulate(hands, seed, "expert", threads=ctx.threads)
    first_team = df["first_player"] % 2
    diff = np.where(first_team == 0, df["score_t0"] - df["score_t1"],
                    df["score_t1"] - df["score_t0"])
    won = np.where(first_team == 0, df["score_t0"] > df["score_t1"],
                   df["score_t1"] > df["score_t0"])
    m, lo, hi = mean_ci(diff)
    w, _, _ = mean_ci(won)
    seats = df["first_player"].to_numpy()
    rows = [("all hands", m, lo, hi)] + [
        (f"seat {s} first", *mean_ci(diff[seats == s])) for s in range(4)]
    answer = (f"Playing first is worth {m:+.1f} points per hand (95% interval {lo:+.1f} .. "
              f"{hi:+.1f}, {plural(hands, 'hand')} of expert play); the first team wins {w:.1%} of "
              "the hands.")
    return Made(answer, {"rows": rows, "m": (m, lo, hi)}, f"{plural(hands, 'hand')}",
                "expert on every seat")


def _draw_first_player(fig, made):
    ax = fig.add_subplot()
    names, m, lo, hi = zip(*made.data["rows"])
    ax.bar(names, m, yerr=_err(m, lo, hi), capsize=5,
           color=["tab:blue"] + ["tab:gray"] * 4)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("first player's team minus the other\n(points per hand)")
    ax.set_xlabel("hands by the seat that played first (seat 0..3)")


def _pile_size(hands, seed, ctx):
    table = _sweep("expert", {"pile_min_size": PILE_SIZES}, hands, seed, ctx,
                   lambda p: point_label("pile_min_size", p["pile_min_size"]))
    best = table.loc[table["mean_diff"].idxmax()]
    if (table["ci95_high"] < 0).all():
        answer = (f"A usable discard pile is worth taking from one card up: refusing piles "
                  f"of fewer than k cards (k = {PILE_SIZES[0]}..{PILE_SIZES[-1]}) costs "
                  f"{table['mean_diff'].max():+.1f} to {table['mean_diff'].min():+.1f} points "
                  f"per hand, the cheapest (k = {int(best.pile_min_size)}) "
                  f"{best.mean_diff:+.1f} (95% interval {best.ci95_low:+.1f} .. "
                  f"{best.ci95_high:+.1f}; {plural(hands, 'deal')} per point).")
    else:
        free = table[table["ci95_high"] >= 0]["pile_min_size"]
        answer = (f"Refusing piles of fewer than {plural(int(free.max()), 'card')} made no significant "
                  f"difference ({plural(hands, 'deal')} per point; cheapest k = "
                  f"{int(best.pile_min_size)}: {best.mean_diff:+.1f}, 95% interval "
                  f"{best.ci95_low:+.1f} .. {best.ci95_high:+.1f}).")
    return Made(answer, {"table": table}, f"{plural(hands, 'deal')} per point, each played twice "
                "with seats swapped", "expert refusing small piles, against expert")


def _draw_sweep_line(fig, made, param, xlabel, ylabel):
    t = made.data["table"]
    ax = fig.add_subplot()
    ax.errorbar(t[param], t["mean_diff"], yerr=_err(t["mean_diff"], t["ci95_low"],
                t["ci95_high"]), marker="o", capsize=5)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(list(t[param]), [str(int(v)) for v in t[param]])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _draw_pile_size(fig, made):
    _draw_sweep_line(fig, made, "pile_min_size",
                     "the player refuses every discard pile of fewer cards than this",
                     "difference to taking every pile\n(points per hand)")


def _close_or_build(hands, seed, ctx):
    table = _sweep("expert", {"close_min_burracos": CLOSE_BURRACOS}, hands, seed, ctx,
                   lambda p: point_label("close_min_burracos", p["close_min_burracos"]))
    row = table[table["close_min_burracos"] == 2].iloc[0]
    verdict = ("close at once." if row.ci95_high < 0 else "keep building." if row.ci95_low > 0
               else "no significant difference.")
    answer = (f"Waiting for a second burraco before closing changes the score by "
              f"{row.mean_diff:+.1f} points per hand (95% interval {row.ci95_low:+.1f} .. "
              f"{row.ci95_high:+.1f}, {plural(hands, 'deal')}): {verdict}")
    return Made(answer, {"table": table}, f"{plural(hands, 'deal')} per point, each played twice "
                "with seats swapped", "expert waiting for burracos, against expert")


def _draw_bars(ax, names, t, horizontal=False):
    err = _err(t["mean_diff"], t["ci95_low"], t["ci95_high"])
    if horizontal:
        ax.barh(names, t["mean_diff"], xerr=err, capsize=5)
        ax.axvline(0, color="black", lw=0.8)
        ax.invert_yaxis()
    else:
        ax.bar(names, t["mean_diff"], yerr=err, capsize=5)
        ax.axhline(0, color="black", lw=0.8)


def _draw_close_or_build(fig, made):
    t = made.data["table"]
    ax = fig.add_subplot()
    _draw_bars(ax, [point_label("close_min_burracos", k) for k in t["close_min_burracos"]], t)
    ax.set_xlabel("burracos the team waits for before it closes")
    ax.set_ylabel("difference to closing at once\n(points per hand)")


def _clean_or_dirty(hands, seed, ctx):
    table = _sweep("heuristic", CLEAN_GRID, hands, seed, ctx,
                   lambda p: clean_label(**p).replace("\n", " "))
    row = table[(table["wild_layoff_min_len"] == 99) & (table["use_wild_to_meld"] == 0)].iloc[0]
    answer = (f"Chasing the clean burraco (no wild on a clean meld, no meld opened with a wild) "
              f"changes the score by {row.mean_diff:+.1f} points per hand (95% interval "
              f"{row.ci95_low:+.1f} .. {row.ci95_high:+.1f}, {plural(hands, 'deal')}) against accepting "
              "dirty burracos.")
    return Made(answer, {"table": table}, f"{plural(hands, 'deal')} per point, each played twice "
                "with seats swapped", "heuristic variants, against heuristic")


def _draw_clean_or_dirty(fig, made):
    t = made.data["table"]
    ax = fig.add_subplot()
    _draw_bars(ax, [clean_label(a, b) for a, b in zip(t["wild_layoff_min_len"],
                                                      t["use_wild_to_meld"])], t, True)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel("difference to accepting the dirty burraco (points per hand)")


def _pozzetto_first(hands, seed, ctx):
    import pandas as pd

    df = sim.simulate(hands, seed, "expert", threads=ctx.threads)
    t0 = df["pozzetto_turn_t0"].where(df["pozzetto_turn_t0"] >= 0, 10**6)
    t1 = df["pozzetto_turn_t1"].where(df["pozzetto_turn_t1"] >= 0, 10**6)
    some = (t0 < 10**6) | (t1 < 10**6)
    first = np.where(t0 < t1, 0, 1)[some]
    d = (df["score_t0"] - df["score_t1"]).to_numpy()[some]
    diff = np.where(first == 0, d, -d)
    m, lo, hi = mean_ci(diff)
    w, _, _ = mean_ci(diff > 0)
    gap = np.abs(np.minimum(t0, 200) - np.minimum(t1, 200)).to_numpy()[some]
    frame = pd.DataFrame({"ahead": np.minimum(gap, 12), "diff": diff})
    rows = [(int(k), *mean_ci(g["diff"])) for k, g in frame.groupby("ahead")]
    answer = (f"The team that takes its pozzetto first scores {m:+.1f} points more per hand "
              f"(95% interval {lo:+.1f} .. {hi:+.1f}) and wins {w:.1%} of the hands "
              f"({int(some.sum()):,} of {plural(hands, 'hand')} of expert play).")
    return Made(answer, {"rows": rows, "m": (m, lo, hi)}, f"{plural(hands, 'hand')}",
                "expert on every seat")


def _draw_pozzetto_first(fig, made):
    ax = fig.add_subplot()
    k, m, lo, hi = (np.array(c, float) for c in zip(*made.data["rows"]))
    ax.errorbar(k, m, yerr=_err(m, lo, hi), marker="o", capsize=4, label="by turns ahead")
    mm, mlo, mhi = made.data["m"]
    ax.axhspan(mlo, mhi, color="tab:orange", alpha=0.3)
    ax.axhline(mm, color="tab:orange", lw=1, label="all hands")
    ax.set_xticks(range(0, 13, 2), [str(i) for i in range(0, 12, 2)] + ["12 or more,\nnever"])
    ax.set_xlabel("turns the first team was ahead of the other team's pozzetto")
    ax.set_ylabel("first team minus the other\n(points per hand)")
    ax.legend(loc="lower right", fontsize=8)


def _hand_length(hands, seed, ctx):
    import pandas as pd

    df = sim.simulate(hands, seed, "expert", threads=ctx.threads)
    scores = pd.concat([df["score_t0"], df["score_t1"]], ignore_index=True)
    m, lo, hi = mean_ci(df["turns"])
    s, slo, shi = mean_ci(scores)
    answer = (f"A hand lasts {m:.1f} turns on average (95% interval {lo:.2f} .. {hi:.2f}; "
              f"median {df['turns'].median():.0f}) and a team scores {s:.1f} points per hand "
              f"(95% interval {slo:.1f} .. {shi:.1f}), over {plural(hands, 'hand')} of expert play.")
    return Made(answer, {"turns": df["turns"].to_numpy(), "scores": scores.to_numpy(),
                         "m": (m, lo, hi), "s": (s, slo, shi)},
                f"{plural(hands, 'hand')}", "expert on every seat")


def _draw_hand_length(fig, made):
    d = made.data
    ax, bx = fig.subplots(1, 2)
    turns = d["turns"]
    n0, _, _ = ax.hist(turns, bins=range(int(turns.min()), int(turns.max()) + 2),
                       color="tab:gray")
    n1, _, _ = bx.hist(d["scores"], bins=60, color="tab:gray")
    for a, n, (m, lo, hi), what in ((ax, n0, d["m"], "turns"), (bx, n1, d["s"], "points")):
        a.set_ylim(0, n.max() * 1.3)
        a.errorbar([m], [n.max() * 1.12], xerr=_err(m, lo, hi), fmt="o", color="tab:red",
                   capsize=5, label=f"mean {m:.1f} {what}")
        a.axvline(m, color="tab:red", lw=0.8)
        a.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("turns per hand")
    ax.set_ylabel("hands")
    bx.set_xlabel("team score per hand (points)")
    bx.set_ylabel("team-hands")


def _two_jokers(hands, seed, ctx):
    import pandas as pd

    strategy = "expert"
    deals = sim.deals(seed, hands, threads=ctx.threads)
    idx = deals.query("s0_jokers == 2")["hand_index"].to_numpy()
    full = sim.simulate(hands, seed, strategy, threads=ctx.threads)
    cols = [c for c in full.columns if c != "run_id"]
    margin = (full["score_t0"] - full["score_t1"]).to_numpy()
    jokers = np.minimum(deals["s0_jokers"].to_numpy(), 3)
    by_jokers = [("3 or 4" if k == 3 else str(k), *mean_ci(margin[jokers == k]))
                 for k in range(4)]
    ctx.say(f"    {plural(len(idx), 'deal')} give seat 0 two jokers; playing them moved")
    decks, dealers = DF.decks(seed, idx)
    rng = np.random.default_rng(seed)

    def moved(decks, lo, hi):
        """Each deck with seat 0's jokers swapped with natural cards at random places of
        deck[lo:hi] (the notebook's function)."""
        out = decks.copy()
        for row in out:
            mine = np.flatnonzero(row[:11] % 54 >= 52)
            places = lo + np.flatnonzero(row[lo:hi] % 54 < 52)
            theirs = rng.choice(places, size=len(mine), replace=False)
            row[mine], row[theirs] = row[theirs].copy(), row[mine].copy()
        return out

    to_stock = moved(decks, 67, 108)       # the stock: deck[67:108] with four players
    to_seat1 = moved(decks, 11, 22)        # seat 1's hand: deck[11:22]
    for d, col in ((to_stock, "stock_jokers"), (to_seat1, "s1_jokers")):
        f = DF.deck_features(d, dealers)
        if not ((f["s0_jokers"] == 0).all()
                and (f[col].to_numpy() == deals[col].to_numpy()[idx] + 2).all()):
            raise RuntimeError(f"two_jokers: the moved decks do not hold the jokers in {col}")
    as_dealt = DF.play_decks(seed, idx, decks, strategy, threads=ctx.threads)
    if not as_dealt[cols].equals(full.iloc[idx].reset_index(drop=True)[cols]):
        raise RuntimeError("two_jokers: the decks as dealt do not replay the simulated hands")
    base = (as_dealt["score_t0"] - as_dealt["score_t1"]).to_numpy()
    res = {}
    for name, d in (("stock", to_stock), ("seat 1", to_seat1)):
        other = DF.play_decks(seed, idx, d, strategy, threads=ctx.threads)
        res[name] = mean_ci(base - (other["score_t0"] - other["score_t1"]).to_numpy())
    (m, lo, hi), (m1, lo1, hi1) = res["stock"], res["seat 1"]
    c2 = by_jokers[2]
    answer = (f"Holding two jokers is worth {m:+.1f} points per hand to seat 0's team against "
              f"the same deal with them in the stock (95% interval {lo:+.1f} .. {hi:+.1f}) and "
              f"{m1:+.1f} ({lo1:+.1f} .. {hi1:+.1f}) against the next opponent holding them; "
              f"conditioned on the deal alone the team leads by {c2[1]:+.1f} ({c2[2]:+.1f} .. "
              f"{c2[3]:+.1f}) ({len(idx):,} of {plural(hands, 'deal')}, {strategy} play).")
    counts = pd.Series(jokers).value_counts().to_dict()
    return Made(answer, {"by_jokers": by_jokers, "paired": res, "selected": len(idx),
                         "counts": counts, "m": res["stock"]},
                f"{plural(hands, 'deal')}, {len(idx):,} of them with two jokers in seat 0",
                "expert on every seat")


def _draw_two_jokers(fig, made):
    d = made.data
    ax, bx = fig.subplots(1, 2)
    rows = [r for r in d["by_jokers"] if not np.isnan(r[2])]
    k, m, lo, hi = zip(*rows)
    ax.errorbar(k, m, yerr=_err(m, lo, hi), marker="o", capsize=5)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("jokers dealt to seat 0")
    ax.set_ylabel("team 0 minus team 1 (points per hand)")
    ax.set_title("all deals, by jokers dealt", fontsize=10)
    names = ["jokers moved\ninto the stock", "jokers moved\nto the next opponent"]
    pm, plo, phi = zip(*d["paired"].values())
    bx.bar(names, pm, yerr=_err(pm, plo, phi), capsize=5)
    bx.set_ylabel("as dealt minus moved (points per hand)")
    bx.set_title("the same deals with the two jokers moved", fontsize=10)


def _rule_sets(hands, seed, ctx):
    rows = []
    for preset, extra, label in RULE_SETS:
        r = sim.Rules.preset(preset).replace(**extra) if extra else sim.Rules.preset(preset)
        t = time.time()
        df = sim.simulate(hands, seed, "heuristic", rules=r, threads=ctx.threads)
        k = 3 if r.num_players == 3 else 2      # per team, or per player (credited) with 3
        score = sum(df[f"score_t{t}"].to_numpy(float) for t in range(k)) / k
        rows.append((label, mean_ci(score), mean_ci(df["end_reason"] == "closed"),
                     mean_ci(df["turns"])))
        ctx.say(f"    {label.replace(chr(10), ' ')}: {rows[-1][1][0]:.1f} points per team "
                f"({time.time() - t:.1f} s)")
    (d, dlo, dhi), (i, ilo, ihi) = rows[0][1], rows[2][1]
    ic = rows[2][2][0]
    answer = (f"A team scores {d:.1f} points per hand under the default rules (95% interval "
              f"{dlo:.1f} .. {dhi:.1f}) and {i:.1f} ({ilo:.1f} .. {ihi:.1f}) under Fibur "
              f"International, where the clean burraco needed to close lets only {ic:.1%} of "
              f"the hands close; two players score {rows[3][1][0]:.1f}, three players "
              f"{rows[4][1][0]:.1f} each ({plural(hands, 'hand')} per rule set, heuristic play).")
    return Made(answer, {"rows": rows}, f"{plural(hands, 'hand')} per rule set",
                "heuristic on every seat")


def _draw_rule_sets(fig, made):
    rows = made.data["rows"]
    names = [r[0] for r in rows]
    ax, bx = fig.subplots(1, 2, sharey=True)
    for a, j, scale, xlabel in ((ax, 1, 1, "mean hand score per team (points;\nwith three "
                                 "players per player, as credited)"),
                                (bx, 2, 100, "hands closed (%; the rest end with the stock)")):
        m, lo, hi = (np.array(c) * scale for c in zip(*[r[j] for r in rows]))
        a.barh(names, m, xerr=_err(m, lo, hi), capsize=4, color="tab:blue")
        a.set_xlabel(xlabel, fontsize=9)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=8)


def _summary(hands, seed, ctx):
    made = ctx.made
    pile = made["pile_size"].data["table"]
    pile2 = pile[pile["pile_min_size"] == 2].iloc[0]
    close = made["close_or_build"].data["table"]
    close2 = close[close["close_min_burracos"] == 2].iloc[0]
    clean = made["clean_or_dirty"].data["table"]
    clean0 = clean[(clean["wild_layoff_min_len"] == 99) & (clean["use_wild_to_meld"] == 0)]
    clean0 = clean0.iloc[0]
    rows = [("play first", *made["first_player"].data["m"]),
            ("take your pozzetto first", *made["pozzetto_first"].data["m"]),
            ("be dealt two jokers\n(against them in the stock)", *made["two_jokers"].data["m"]),
            (point_label("pile_min_size", 2), pile2.mean_diff, pile2.ci95_low, pile2.ci95_high),
            (f"{point_label('close_min_burracos', 2)}\nbefore closing", close2.mean_diff,
             close2.ci95_low, close2.ci95_high),
            ("chase the clean burraco", clean0.mean_diff, clean0.ci95_low, clean0.ci95_high)]
    best = max(rows, key=lambda r: r[1])
    worst = min(rows, key=lambda r: r[1])

    def say(r):
        return f"{r[0].split(chr(10))[0]} ({r[1]:+.1f}, 95% interval {r[2]:+.1f} .. {r[3]:+.1f})"
    answer = (f"Of these choices, to {say(best)} is worth the most points per hand and to "
              f"{say(worst)} costs the most.")
    sources = {n: made[n] for n in SUMMARY_SOURCES}
    return Made(answer, {"rows": rows}, "each bar from its own figure's run",
                "expert play (clean burraco: heuristic)",
                hands={n: m.hands for n, m in sources.items()},
                seed={n: m.seed for n, m in sources.items()})


def _draw_summary(fig, made):
    rows = made.data["rows"]
    names, m, lo, hi = zip(*rows)
    ax = fig.add_subplot()
    ax.barh(names, m, xerr=_err(m, lo, hi), capsize=4,
            color=["tab:green" if v > 0 else "tab:red" for v in m])
    ax.axvline(0, color="black", lw=0.8)
    ax.margins(x=0.1)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=9)
    ax.set_xlabel("points per hand for the team (95% intervals)")
    for y, v in enumerate(m):
        ax.annotate(f"{v:+.0f}", (v, y), xytext=(6 if v > 0 else -6, 8),
                    textcoords="offset points", ha="left" if v > 0 else "right", fontsize=8)


SUMMARY_SOURCES = ("first_player", "pozzetto_first", "two_jokers", "pile_size",
                   "close_or_build", "clean_or_dirty")

FIGURES = {s.name: s for s in (
    Spec("first_player", "How much is it worth to play first in a hand?",
         "notebooks/a_first_player.ipynb", 200_000, 1, _first_player, _draw_first_player),
    Spec("pile_size", "From what pile size is taking the discard pile worth it?",
         "notebooks/b_pile_size.ipynb", 100_000, 2, _pile_size, _draw_pile_size),
    Spec("close_or_build", "Close at once or keep building?",
         "notebooks/c_close_or_build.ipynb", 100_000, 3, _close_or_build, _draw_close_or_build),
    Spec("clean_or_dirty", "Chase the clean burraco or accept the dirty one?",
         "notebooks/d_clean_or_dirty.ipynb", 100_000, 4, _clean_or_dirty, _draw_clean_or_dirty),
    Spec("pozzetto_first", "How much is reaching the pozzetto first worth?",
         "notebooks/e_pozzetto_first.ipynb", 200_000, 5, _pozzetto_first, _draw_pozzetto_first),
    Spec("hand_length", "How long do hands last, and how are the scores distributed?",
         "notebooks/f_hand_length_scores.ipynb", 200_000, 6, _hand_length, _draw_hand_length),
    Spec("two_jokers", "What is holding two jokers worth?",
         "notebooks/g_two_jokers.ipynb", 200_000, 14, _two_jokers, _draw_two_jokers),
    Spec("rule_sets", "How do the results differ between rule sets?",
         "benchmarks/rule_sets.py", 100_000, 2026, _rule_sets, _draw_rule_sets),
    Spec("summary", "What is each choice worth, in points per hand?",
         "the figures above", 0, 0, _summary, _draw_summary, needs=SUMMARY_SOURCES),
)}
#: Figure names in the order they are made.
NAMES = tuple(FIGURES)


# ---------------------------------------------------------------- drawing and files
def _footer(spec: Spec, made: Made) -> str:
    if spec.needs:
        parts = [f"{n.replace('_', ' ')} {made.hands[n]:,} (seed {made.seed[n]})"
                 for n in spec.needs]
        return ("hands of each bar (deals per point for the sweeps): " + ", ".join(parts)
                + f"; {made.strategy}; play first and pozzetto first from the records, the "
                "others on the same deals with one thing changed")
    return (f"{made.hands_text}; seed {made.seed}; {made.strategy}; 95% intervals "
            f"(normal approximation)")


def _texts(fig) -> list:
    """Every word-bearing text of a drawn figure (titles, axis and tick labels, legends)."""
    out = [t.get_text() for t in fig.texts]            # the suptitle is one of them
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts]
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return [t for t in out if re.search(r"[A-Za-z]", t)]


def render(spec: Spec, made: Made) -> tuple:
    """Draw one figure; ``(png bytes, labels)``: 800 x 450 pixels, palette PNG."""
    import io

    from matplotlib.figure import Figure
    from PIL import Image

    fig = Figure(figsize=(SIZE[0] / DPI, SIZE[1] / DPI), dpi=DPI)
    spec.draw(fig, made)
    fig.suptitle(spec.question, fontsize=13, fontweight="bold")
    fig.text(0.01, 0.012, textwrap.fill(_footer(spec, made), 165), fontsize=7, color="0.3",
             va="bottom")
    fig.subplots_adjust(left={"clean_or_dirty": 0.25, "rule_sets": 0.2, "summary": 0.3}.get(
                        spec.name, 0.12), right=0.97, top=0.88,
                        bottom=0.24 if spec.needs or spec.name == "pozzetto_first" else 0.2,
                        wspace=0.3 if spec.name != "rule_sets" else 0.08)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    labels = _texts(fig)
    img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue(), labels


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: the file is either the old one or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:          # the umask's permissions, as any written file
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _command(name: str, hands, seed) -> str:
    """The command that makes this figure again: its hands and seed spelled out (for the
    summary, the options of this run: its sources' own defaults otherwise)."""
    cmd = f"{PROG} --only {name}"
    if hands is not None:
        cmd += f" --hands {hands}"
    if seed is not None:
        cmd += f" --seed {seed}"
    return cmd


def read_index(out: Path) -> list:
    """The entries of ``out/figures.json`` (an empty list if it is missing or unreadable)."""
    try:
        entries = json.loads((out / INDEX).read_text(encoding="utf-8"))["figures"]
        return [e for e in entries if isinstance(e, dict) and e.get("name") in FIGURES]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _write_index(out: Path, entries: dict) -> None:
    """``figures.json``: this run's entries and the earlier ones whose PNG is still there."""
    keep = {e["name"]: e for e in read_index(out) if (out / e.get("file", "")).is_file()}
    keep.update(entries)
    doc = {"generated_by": PROG, "size_px": list(SIZE),
           "figures": [keep[n] for n in NAMES if n in keep]}
    write_atomic(out / INDEX, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode())


# ---------------------------------------------------------------- command line
def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, name="figures", description=(
        "Render the strategy questions' figures (notebooks/) and the rule sets' comparison as "
        "small PNG files, with figures.json listing each one's command, hands, seed and "
        "answer. By default every figure runs its notebook's hand count and seed (474 s in "
        "all measured on two cores shared with other processes, once the kernels are "
        "compiled; docs/questions.md)."))
    p.add_argument("--out", default="docs/figures", metavar="DIR",
                   help="output directory (default: docs/figures)")
    p.add_argument("--hands", type=int, metavar="N",
                   help="hands of every figure's runs (deals per point for the sweeps, deals "
                        f"looked at for two_jokers; at least {MIN_HANDS}); default: each "
                        "figure's notebook's count (100,000 or 200,000)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="seed of every figure's runs; default: each figure's notebook's seed")
    p.add_argument("--only", metavar="NAME,...",
                   help="make only these figures (the summary makes the ones it draws "
                        "from); names: " + ", ".join(NAMES))
    p.add_argument("--threads", type=int, metavar="T", help="Numba threads (default: all)")
    return p


def _check(args) -> list:
    """The names to make, in order; ValueError naming the bad option."""
    import numba
    if args.hands is not None and args.hands < MIN_HANDS:
        raise ValueError(f"--hands must be at least {MIN_HANDS}, got {args.hands}")
    if args.seed is not None and not 0 <= args.seed < 2**64:
        raise ValueError(f"--seed must be in 0 .. 2**64-1, got {args.seed}")
    most = int(numba.config.NUMBA_NUM_THREADS)
    if args.threads is not None and not 1 <= args.threads <= most:
        raise ValueError(f"--threads must be in 1 .. {most}, got {args.threads}")
    if args.only is None:
        return list(NAMES)
    asked = [n.strip() for n in args.only.split(",") if n.strip()]
    bad = [n for n in asked if n not in FIGURES]
    if bad or not asked:
        raise ValueError(f"--only: unknown figure {', '.join(map(repr, bad)) or 'name'}; "
                         f"allowed: {', '.join(NAMES)}")
    want = set(asked) | {d for n in asked for d in FIGURES[n].needs}
    return [n for n in NAMES if n in want]


def main(argv: list | None = None) -> int:
    """Run ``python -m sim.figures``.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 success, 1 a file could not be written, 2 bad input or matplotlib
        missing (one line on stderr), 130 interrupted (the figures written so
        far are kept and listed).
    """
    args = _parser().parse_args(argv)
    if importlib.util.find_spec("matplotlib") is None or \
            importlib.util.find_spec("PIL") is None:
        print("figures: error: matplotlib is not installed; install it with "
              "pip install -e \".[figures]\"", file=sys.stderr)
        return 2
    try:
        names = _check(args)
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise ValueError(not_a_directory("--out", out))
        out.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as exc:
        print(f"figures: error: {exc}", file=sys.stderr)
        return 2

    def say(text):
        print(text, flush=True)
    ctx = _Ctx(args.threads, say)
    entries, done = {}, []
    start = time.time()
    default = "each figure's default"
    say(f"figures: {plural(len(names), 'figure')} into {out} (hands: "
        f"{default if args.hands is None else format(args.hands, ',')}; "
        f"seed: {default if args.seed is None else args.seed})")
    try:
        for i, name in enumerate(names, 1):
            spec = FIGURES[name]
            hands = args.hands or spec.hands
            seed = spec.seed if args.seed is None else args.seed
            say(f"[{i}/{len(names)}] {name}: {spec.question}")
            t = time.time()
            made = spec.compute(hands, seed, ctx)
            if not spec.needs:
                made.hands, made.seed = hands, seed
            ctx.made[name] = made
            png, labels = render(spec, made)
            path = out / f"{name}.png"
            write_atomic(path, png)
            seconds = time.time() - t
            command = (_command(name, args.hands, args.seed) if spec.needs
                       else _command(name, hands, seed))
            entries[name] = {
                "name": name, "file": path.name, "question": spec.question,
                "source": spec.source, "command": command,
                "hands": made.hands, "hands_text": made.hands_text, "seed": made.seed,
                "strategy": made.strategy, "answer": made.answer,
                "seconds": round(seconds, 1), "bytes": len(png), "labels": labels}
            _write_index(out, entries)
            done.append((path, made, seconds))
            say(f"    {path} ({len(png) / 1000:.0f} KB, {seconds:.1f} s): {made.answer}")
    except KeyboardInterrupt:
        print(f"figures: interrupted; {plural(len(done), 'figure')} written ({out / INDEX} lists them)",
              file=sys.stderr)
        return 130
    except ValueError as exc:
        print(f"figures: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"figures: error: cannot write in {os.fspath(out)!r}: {exc}", file=sys.stderr)
        return 1
    say(f"\nfigures: {plural(len(done), 'figure')} written to {out} in {time.time() - start:.1f} s "
        f"({out / INDEX} lists them)")
    for path, made, seconds in done:
        say(f"  {path.name}: {made.hands_text}, {seconds:.1f} s\n    {made.answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
