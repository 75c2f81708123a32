"""The strategy questions of the figures: each one's runs and its answer in words.

Each ``_name(hands, seed, ctx)`` function runs its notebook's computation (the same
``sim`` calls, seeds and grids) and returns a :class:`Made`: the one-sentence answer
with its 95% interval, and the data its plot draws (:mod:`sim.figures.plots`).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

import sim
from sim import deal_features as DF
from sim._util.stats import Z95
from sim._util.text import plural

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


#: the figures the summary draws from
SUMMARY_SOURCES = ("first_player", "pozzetto_first", "two_jokers", "pile_size",
                   "close_or_build", "clean_or_dirty")


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


def in_words(spec: str) -> str:
    """A strategy in the answers' and the figures' words: ``learned v3`` for the shipped
    model ``learned:model=v3`` (``learned Fibur International v1`` for a shipped model of
    another line), else the canonical spec itself (figures.json names the player exactly in
    its ``player`` entry)."""
    base, _, rest = spec.partition(":")
    m = re.fullmatch(r"model=(?:([a-z][a-z0-9_]*)-)?(v\d+)", rest)
    if base == "learned" and m:
        line = f"{m.group(1).replace('_', ' ').title()} " if m.group(1) else ""
        return f"learned {line}{m.group(2)}"
    return spec


@dataclass
class _Ctx:
    threads: int | None
    say: object
    made: dict = field(default_factory=dict)
    #: the strategy on every seat and the base of the sweeps' variants (a canonical spec)
    player: str = "expert"
    #: the player as given (``learned``: the rule sets' figure lets each rule set's rules
    #: pick the model, :func:`sim.strategies.learned.model_for_rules`)
    given: str = "expert"

    @property
    def who(self) -> str:
        """The player in the answers' and the figures' words (:func:`in_words`)."""
        return in_words(self.player)

    def play(self, sep: str = ", ") -> str:
        """``sep`` and "learned v3 play" for a player other than ``expert``, whose answers
        keep their notebooks' words; else ""."""
        return "" if self.player == "expert" else f"{sep}{self.who} play"

    def base(self, notebook_base: str) -> str:
        """The strategy a figure plays: its notebook's (``expert``, or ``heuristic`` for the
        clean-or-dirty sweep and the rule sets) when the player is ``expert``, else the
        player."""
        return notebook_base if self.player == "expert" else self.player


def _sweep(base, grid, hands, seed, ctx, label, reference=None):
    """``sim.sweep`` of ``base``'s variants against ``reference`` (default ``base`` itself,
    parameters included), with a progress line per point."""
    n = int(np.prod([len(v) for v in grid.values()]))

    def done(p):
        ctx.say(f"    point {p.index + 1}/{n} ({label(p.point)}): "
                f"{float(p.summary['mean_diff'].iloc[0]):+.1f} points per hand")
    return sim.sweep(base, grid, hands=hands, seed=seed, threads=ctx.threads, callback=done,
                     reference=base if reference is None else reference)


def _first_player(hands, seed, ctx):
    df = sim.simulate(hands, seed, ctx.player, threads=ctx.threads)
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
              f"{hi:+.1f}, {plural(hands, 'hand')} of {ctx.who} play); the first team wins {w:.1%} of "
              "the hands.")
    return Made(answer, {"rows": rows, "m": (m, lo, hi)}, f"{plural(hands, 'hand')}",
                f"{ctx.who} on every seat")


def _pile_size(hands, seed, ctx):
    table = _sweep(ctx.player, {"pile_min_size": PILE_SIZES}, hands, seed, ctx,
                   lambda p: point_label("pile_min_size", p["pile_min_size"]))
    best = table.loc[table["mean_diff"].idxmax()]
    if (table["ci95_high"] < 0).all():
        answer = (f"A usable discard pile is worth taking from one card up: refusing piles "
                  f"of fewer than k cards (k = {PILE_SIZES[0]}..{PILE_SIZES[-1]}) costs "
                  f"{table['mean_diff'].max():+.1f} to {table['mean_diff'].min():+.1f} points "
                  f"per hand, the cheapest (k = {int(best.pile_min_size)}) "
                  f"{best.mean_diff:+.1f} (95% interval {best.ci95_low:+.1f} .. "
                  f"{best.ci95_high:+.1f}; {plural(hands, 'deal')} per point"
                  f"{ctx.play()}).")
    else:
        free = table[table["ci95_high"] >= 0]["pile_min_size"]
        answer = (f"Refusing piles of fewer than {plural(int(free.max()), 'card')} made no significant "
                  f"difference ({plural(hands, 'deal')} per point; cheapest k = "
                  f"{int(best.pile_min_size)}: {best.mean_diff:+.1f}, 95% interval "
                  f"{best.ci95_low:+.1f} .. {best.ci95_high:+.1f}"
                  f"{ctx.play('; ')}).")
    return Made(answer, {"table": table}, f"{plural(hands, 'deal')} per point, each played twice "
                "with seats swapped", f"{ctx.who} refusing small piles, against {ctx.who}")


def _close_or_build(hands, seed, ctx):
    table = _sweep(ctx.player, {"close_min_burracos": CLOSE_BURRACOS}, hands, seed, ctx,
                   lambda p: point_label("close_min_burracos", p["close_min_burracos"]))
    row = table[table["close_min_burracos"] == 2].iloc[0]
    verdict = ("close at once." if row.ci95_high < 0 else "keep building." if row.ci95_low > 0
               else "no significant difference.")
    answer = (f"Waiting for a second burraco before closing changes the score by "
              f"{row.mean_diff:+.1f} points per hand (95% interval {row.ci95_low:+.1f} .. "
              f"{row.ci95_high:+.1f}, {plural(hands, 'deal')}"
              f"{ctx.play()}): {verdict}")
    return Made(answer, {"table": table}, f"{plural(hands, 'deal')} per point, each played twice "
                "with seats swapped", f"{ctx.who} waiting for burracos, against {ctx.who}")


def _clean_or_dirty(hands, seed, ctx):
    base = ctx.base("heuristic")
    # against the player accepting dirty burracos (heuristic's own defaults; expert's
    # parameters, learned's too, keep wilds off clean melds)
    dirty = sim.strategies.canonical_name(
        f"{base}{',' if ':' in base else ':'}wild_layoff_min_len=6,use_wild_to_meld=1")
    table = _sweep(base, CLEAN_GRID, hands, seed, ctx,
                   lambda p: clean_label(**p).replace("\n", " "), reference=dirty)
    row = table[(table["wild_layoff_min_len"] == 99) & (table["use_wild_to_meld"] == 0)].iloc[0]
    answer = (f"Chasing the clean burraco (no wild on a clean meld, no meld opened with a wild) "
              f"changes the score by {row.mean_diff:+.1f} points per hand (95% interval "
              f"{row.ci95_low:+.1f} .. {row.ci95_high:+.1f}, {plural(hands, 'deal')}"
              f"{ctx.play()}) against accepting "
              "dirty burracos.")
    return Made(answer, {"table": table}, f"{plural(hands, 'deal')} per point, each played twice "
                "with seats swapped", f"{in_words(base)} variants, against {in_words(base)}"
                + ("" if base == dirty else " accepting dirty burracos"))


def _pozzetto_first(hands, seed, ctx):
    import pandas as pd

    df = sim.simulate(hands, seed, ctx.player, threads=ctx.threads)
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
              f"({int(some.sum()):,} of {plural(hands, 'hand')} of {ctx.who} play).")
    return Made(answer, {"rows": rows, "m": (m, lo, hi)}, f"{plural(hands, 'hand')}",
                f"{ctx.who} on every seat")


def _hand_length(hands, seed, ctx):
    import pandas as pd

    df = sim.simulate(hands, seed, ctx.player, threads=ctx.threads)
    scores = pd.concat([df["score_t0"], df["score_t1"]], ignore_index=True)
    m, lo, hi = mean_ci(df["turns"])
    s, slo, shi = mean_ci(scores)
    answer = (f"A hand lasts {m:.1f} turns on average (95% interval {lo:.2f} .. {hi:.2f}; "
              f"median {df['turns'].median():.0f}) and a team scores {s:.1f} points per hand "
              f"(95% interval {slo:.1f} .. {shi:.1f}), over {plural(hands, 'hand')} of {ctx.who} play.")
    return Made(answer, {"turns": df["turns"].to_numpy(), "scores": scores.to_numpy(),
                         "m": (m, lo, hi), "s": (s, slo, shi)},
                f"{plural(hands, 'hand')}", f"{ctx.who} on every seat")


def two_jokers_paired(seed: int, idx, strategy: str, threads=None, full=None) -> dict:
    """Question (g)'s paired answer: hands ``idx`` of seed ``seed`` (deals that give seat 0
    two jokers) played by ``strategy`` on every seat as dealt, then with seat 0's jokers
    swapped with natural cards at random places of the stock and of seat 1's hand (the
    notebook's moves, random generator seeded with ``seed``).

    Returns ``{"stock": (mean, low, high), "seat 1": (...)}`` (:func:`mean_ci`): seat 0's
    team margin as dealt minus its margin with the jokers moved there, per deal (points a
    hand), over ``len(idx)`` deals.  ``full``, the records of
    hands 0.. of the same run when at hand, must hold the hands as dealt (checked).

    Raises
    ------
    RuntimeError
        The moved decks do not hold the jokers where they should, or the decks as dealt do
        not replay ``full``'s hands.
    """
    idx = np.asarray(idx, np.int64)
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
    dealt = DF.deck_features(decks, dealers)
    for d, col in ((to_stock, "stock_jokers"), (to_seat1, "s1_jokers")):
        f = DF.deck_features(d, dealers)
        if not ((f["s0_jokers"] == 0).all()
                and (f[col].to_numpy() == dealt[col].to_numpy() + 2).all()):
            raise RuntimeError(f"two_jokers: the moved decks do not hold the jokers in {col}")
    as_dealt = DF.play_decks(seed, idx, decks, strategy, threads=threads)
    if full is not None:
        cols = [c for c in full.columns if c != "run_id"]
        if not as_dealt[cols].equals(full.iloc[idx].reset_index(drop=True)[cols]):
            raise RuntimeError("two_jokers: the decks as dealt do not replay the simulated hands")
    base = (as_dealt["score_t0"] - as_dealt["score_t1"]).to_numpy()
    res = {}
    for name, d in (("stock", to_stock), ("seat 1", to_seat1)):
        other = DF.play_decks(seed, idx, d, strategy, threads=threads)
        res[name] = mean_ci(base - (other["score_t0"] - other["score_t1"]).to_numpy())
    return res


def _two_jokers(hands, seed, ctx):
    import pandas as pd

    strategy = ctx.player
    deals = sim.deals(seed, hands, threads=ctx.threads)
    idx = deals.query("s0_jokers == 2")["hand_index"].to_numpy()
    full = sim.simulate(hands, seed, strategy, threads=ctx.threads)
    margin = (full["score_t0"] - full["score_t1"]).to_numpy()
    jokers = np.minimum(deals["s0_jokers"].to_numpy(), 3)
    by_jokers = [("3 or 4" if k == 3 else str(k), *mean_ci(margin[jokers == k]))
                 for k in range(4)]
    ctx.say(f"    {plural(len(idx), 'deal')} give seat 0 two jokers; playing them moved")
    res = two_jokers_paired(seed, idx, strategy, ctx.threads, full)
    (m, lo, hi), (m1, lo1, hi1) = res["stock"], res["seat 1"]
    c2 = by_jokers[2]
    answer = (f"Holding two jokers is worth {m:+.1f} points per hand to seat 0's team against "
              f"the same deal with them in the stock (95% interval {lo:+.1f} .. {hi:+.1f}) and "
              f"{m1:+.1f} ({lo1:+.1f} .. {hi1:+.1f}) against the next opponent holding them; "
              f"conditioned on the deal alone the team leads by {c2[1]:+.1f} ({c2[2]:+.1f} .. "
              f"{c2[3]:+.1f}) ({len(idx):,} of {plural(hands, 'deal')}, {ctx.who} play).")
    counts = pd.Series(jokers).value_counts().to_dict()
    return Made(answer, {"by_jokers": by_jokers, "paired": res, "selected": len(idx),
                         "counts": counts, "m": res["stock"]},
                f"{plural(hands, 'deal')}, {len(idx):,} of them with two jokers in seat 0",
                f"{ctx.who} on every seat")


def _rule_sets(hands, seed, ctx):
    rows = []
    player = ctx.base("heuristic")
    played = {}                       # another model under some rules: named in the answer
    for preset, extra, label in RULE_SETS:
        r = sim.Rules.preset(preset).replace(**extra) if extra else sim.Rules.preset(preset)
        t = time.time()
        here = player if ctx.player == "expert" else sim.strategies.canonical_name(ctx.given, r)
        if here != player:
            played.setdefault(here, []).append(label.split(":")[0].replace("\n", " "))
        df = sim.simulate(hands, seed, here, rules=r, threads=ctx.threads)
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
              f"{rows[4][1][0]:.1f} each ({plural(hands, 'hand')} per rule set, "
              f"{in_words(player)} play{_elsewhere(played)}).")
    return Made(answer, {"rows": rows, "played": played}, f"{plural(hands, 'hand')} per rule set",
                f"{in_words(player)}{_elsewhere(played)} on every seat")


def _elsewhere(played: dict) -> str:
    """``", learned Fibur International v1 under Fibur International"``: the models the
    rules picked where they are not the player's (empty if none)."""
    return "".join(f", {in_words(m)} under {' and '.join(where)}" for m, where in played.items())


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
                "expert play (clean burraco: heuristic)" if ctx.player == "expert"
                else f"{ctx.who} play",
                hands={n: m.hands for n, m in sources.items()},
                seed={n: m.seed for n, m in sources.items()})
