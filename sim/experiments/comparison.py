"""Paired comparison of two strategies on the same deals, seats swapped.

Strategy A and strategy B play every deal twice: once with A as team 0 (seats
0 and 2) and B as team 1, once the other way round.  Both games of a deal
use the same cards, dealer and random stream (common random numbers: a deal
depends only on ``(seed, hand index)``), so the luck of the cards cancels
out of the paired difference

    p_i = ((A - B as team 0) + (A - B as team 1)) / 2      (points per hand)

whose mean estimates how many points per hand A gains over B.  The 95%
interval is ``mean +- 1.96 * sd(p) / sqrt(n)`` (normal approximation; use
thousands of deals); one deal has no interval (NaN in the summary row).

The variance reduction compares this design with the same number of games
played on independent deals: ``Var(d) / (2 Var(p))`` where ``d`` is the
score difference A - B of a single game.  A reduction of 3 means the paired
design reaches the interval of independent deals with a third of the hands.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from kernels.core import layout as L

from sim._util.stats import Z95  # noqa: F401  (sim.comparison.Z95, the name the benchmarks use)
from sim.core.cards import check_int, check_progress, rules_or_default
from sim.batch.runner import simulate
from sim.strategies import name_of
from sim.strategies.specs import relabel
from sim.strategies.pystrategy import is_python_spec


SUMMARY_COLUMNS = {
    "a": "strategy A (canonical spec)",
    "b": "strategy B (canonical spec)",
    "hands": "deals played (each twice, seats swapped)",
    "games": "games played (2 x hands)",
    "mean_diff": "mean paired score difference A - B per hand (points)",
    "ci95_low": "lower end of the 95% interval of mean_diff (points; NaN with one deal)",
    "ci95_high": "upper end of the 95% interval of mean_diff (points; NaN with one deal)",
    "se": "standard error of mean_diff (points; NaN with one deal)",
    "a_win_share": "share of games A's team scored more than B's team",
    "b_win_share": "share of games B's team scored more than A's team",
    "tie_share": "share of games with equal scores",
    "a_mean_score": "A's mean hand score per game (points)",
    "b_mean_score": "B's mean hand score per game (points)",
    "var_reduction": "variance of independent deals / variance of the paired design "
                     "(for the same number of games; inf if every paired difference is equal, "
                     "e.g. all 0 for identical play, NaN with one deal)",
    "seed": "run seed (the deals are hands 0 .. hands-1 of this seed)",
}

_S0 = L.N_HAND_COLS + L.TC_SCORE
_S1 = L.N_HAND_COLS + L.N_TEAM_COLS + L.TC_SCORE


def _team_scores(hands: int, seed: int, specs: list, rules, threads, progress):
    """Team scores (int64[hands] each) of hands 0..hands-1 played by ``specs`` (seats 0..3)."""

    s0 = np.empty(hands, np.int64)
    s1 = np.empty(hands, np.int64)

    def keep(shard):
        s0[shard.start:shard.stop] = shard.records[:, _S0]
        s1[shard.start:shard.stop] = shard.records[:, _S1]

    simulate(hands, seed, strategies=specs, rules=rules, threads=threads, progress=progress,
             return_frame=False, callback=keep)
    return s0, s1


def paired_rules(rules, who: str):
    """The rule set of a paired comparison; refuses 3 players (ValueError naming ``who``).

    The paired design swaps the seats of two sides; with three players the sides
    change during a hand (R62), so there is nothing to swap.
    """
    rules = rules_or_default(rules)
    if rules.num_players == 3:
        raise ValueError(f"{who}: 3-player games are not supported (the paired design swaps the "
                         "seats of two sides; with three players the sides change during a "
                         "hand, R62); use 2 or 4 players")
    return rules


def _name_for(what: str, value, rules=None) -> str:
    """:func:`sim.strategies.name_of` of strategy ``what`` (``a`` or ``b``) under ``rules``:
    its errors begin with ``what: ``."""
    try:
        return name_of(value, rules)
    except ValueError as exc:
        raise relabel(what, exc) from None


def _seat_value(value, spec: str):
    """What a side's seats are given: the canonical spec of a built-in strategy, the
    strategy itself (a Python spec, class or object) otherwise."""
    if isinstance(value, str) and not is_python_spec(value):
        return spec
    return value


def compare_hands(a: str, b: str, hands: int, seed: int, rules=None,
                  threads: int | None = None, progress: bool = False) -> pd.DataFrame:
    """Play every deal twice, A and B swapping seats; one row per deal.

    Parameters
    ----------
    a, b : str or object
        Strategy specs (``"name"`` or ``"name:param=value,..."``), or Python
        strategies (``"FILE.py:CLASS"``, ``"MODULE:CLASS"``, a class or an
        object with ``choose``, :mod:`sim.strategies.pystrategy`; their deals are played
        through :class:`sim.play.game.Game`, about a hundred hands a second).
    hands : int
        Number of deals, hands ``0 .. hands-1`` of ``seed``.
    seed : int
        Run seed, ``0 <= seed < 2**64``.
    rules : Rules, str, dict or None
        Rule set or preset name (default ``Rules()``).
    threads : int, optional
        Numba threads (default all).
    progress : bool or str
        Progress bars on stderr, one per seating, labelled ``compare: A as team 0``
        and ``compare: B as team 0`` (True), or with the str given in place of
        ``compare``.

    Returns
    -------
    pandas.DataFrame
        Columns ``hand_index`` (int64), ``a_score_t0``/``b_score_t1`` (A as
        team 0), ``b_score_t0``/``a_score_t1`` (B as team 0), and ``paired_diff``
        (float64, the paired difference p_i in points).

    Raises
    ------
    ValueError
        Unknown strategy or parameter, bad hands, seed or rules, a Python
        strategy that does not load or chooses an illegal action
        (:class:`sim.strategies.pystrategy.StrategyError`).
    """
    rules = paired_rules(rules, "compare")
    spec_a, spec_b = _name_for("a", a, rules), _name_for("b", b, rules)
    hands = check_int("hands", hands, 1, 10**9)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    a, b = _seat_value(a, spec_a), _seat_value(b, spec_b)
    label = check_progress(progress, "compare")
    ax0, bx1 = _team_scores(hands, seed, [a, b, a, b], rules, threads,
                            f"{label}: A as team 0" if label else False)
    by0, ay1 = _team_scores(hands, seed, [b, a, b, a], rules, threads,
                            f"{label}: B as team 0" if label else False)
    df = pd.DataFrame({"hand_index": np.arange(hands, dtype=np.int64),
                       "a_score_t0": ax0, "b_score_t1": bx1,
                       "b_score_t0": by0, "a_score_t1": ay1})
    df["paired_diff"] = ((ax0 - bx1) + (ay1 - by0)) / 2.0
    df.attrs.update(a=spec_a, b=spec_b, seed=seed, rules=rules.to_dict())
    return df


def summarize_pairs(per_hand: pd.DataFrame) -> pd.DataFrame:
    """The one-row summary (:data:`SUMMARY_COLUMNS`) of :func:`compare_hands` output.

    Parameters
    ----------
    per_hand : pandas.DataFrame
        One row per deal, as :func:`compare_hands` returns it (at least one).

    Returns
    -------
    pandas.DataFrame
        One row.  With a single deal ``se``, ``ci95_low``, ``ci95_high`` and
        ``var_reduction`` are NaN (no spread to estimate); ``var_reduction``
        is inf when the paired differences do not vary (all 0 when A and B
        play alike on every deal) but the single games do.
    """
    n = len(per_hand)
    d_x = (per_hand["a_score_t0"] - per_hand["b_score_t1"]).to_numpy(np.float64)
    d_y = (per_hand["a_score_t1"] - per_hand["b_score_t0"]).to_numpy(np.float64)
    p = per_hand["paired_diff"].to_numpy(np.float64)
    d = np.concatenate([d_x, d_y])
    mean = float(p.mean())
    var_p = float(p.var(ddof=1)) if n > 1 else float("nan")
    se = math.sqrt(var_p / n) if n > 1 else float("nan")
    var_d = float(d.var(ddof=1))
    if n < 2:
        reduction = float("nan")
    elif var_p > 0:
        reduction = var_d / (2.0 * var_p)
    else:
        reduction = float("inf") if var_d > 0 else float("nan")
    a_scores = np.concatenate([per_hand["a_score_t0"], per_hand["a_score_t1"]])
    b_scores = np.concatenate([per_hand["b_score_t1"], per_hand["b_score_t0"]])
    attrs = per_hand.attrs
    row = {
        "a": attrs.get("a"), "b": attrs.get("b"), "hands": n, "games": 2 * n,
        "mean_diff": mean, "ci95_low": mean - Z95 * se, "ci95_high": mean + Z95 * se, "se": se,
        "a_win_share": float((d > 0).mean()), "b_win_share": float((d < 0).mean()),
        "tie_share": float((d == 0).mean()),
        "a_mean_score": float(a_scores.mean()), "b_mean_score": float(b_scores.mean()),
        "var_reduction": reduction, "seed": attrs.get("seed"),
    }
    return pd.DataFrame([row], columns=list(SUMMARY_COLUMNS))


def compare(a: str, b: str, hands: int, seed: int, rules=None, threads: int | None = None,
            progress: bool = False) -> pd.DataFrame:
    """Compare strategies A and B on the same deals with seats swapped.

    See the module docstring for the design and the statistics.

    Parameters
    ----------
    a, b : str or object
        Strategy specs (``"name"`` or ``"name:param=value,..."``), or Python
        strategies (as :func:`compare_hands`).
    hands : int
        Number of deals (each is played twice).
    seed : int
        Run seed; the deals are hands ``0 .. hands-1`` of it.
    rules : Rules, str, dict or None
        Rule set or preset name (default ``Rules()``).
    threads : int, optional
        Numba threads (default all).
    progress : bool or str
        Progress bars on stderr, labelled as by :func:`compare_hands`.

    Returns
    -------
    pandas.DataFrame
        One row, columns :data:`SUMMARY_COLUMNS` (differences in points per
        hand, shares in 0..1); ``pd.concat`` the rows of several comparisons.

    Raises
    ------
    ValueError
        Unknown strategy or parameter, bad hands, seed or rules.

    Examples
    --------
    >>> row = sim.compare("heuristic", "random", hands=2000, seed=1)   # doctest: +SKIP
    >>> row[["mean_diff", "ci95_low", "ci95_high", "a_win_share"]]      # doctest: +SKIP
    """
    return summarize_pairs(compare_hands(a, b, hands, seed, rules, threads, progress))


def _interval_text(row) -> str:
    """The 95% interval of a summary row as text, or why there is none (one deal)."""
    if row["hands"] < 2 or not (math.isfinite(row["ci95_low"])
                                and math.isfinite(row["ci95_high"])):
        return "none: needs at least two deals"
    return f"{row['ci95_low']:+,.1f} .. {row['ci95_high']:+,.1f}"


def _reduction_text(row) -> str:
    """The variance reduction of a summary row as text (``×3.21``), or why there is none."""
    r = row["var_reduction"]
    if row["hands"] < 2:
        return "none: needs at least two deals"
    if math.isfinite(r):
        return f"×{r:.2f}"
    if row["mean_diff"] == 0:
        return ("none: every paired difference is 0 (as when A and B play alike on every "
                "deal)")
    return "none: every paired difference is the same (no spread to reduce)"


def format_summary(row: pd.Series) -> str:
    """The summary row as the text ``burraco compare`` prints.

    With one deal the interval and the variance reduction say that they need
    at least two deals; when the paired differences do not vary (A and B play
    alike) the variance reduction says so instead of printing ``×inf``.
    """
    def signed(x):
        return f"{x:+,.1f}"

    lines = [
        f"A: {row['a']}",
        f"B: {row['b']}",
        f"deals {row['hands']:,}, games {row['games']:,} (every deal played twice, seats swapped; "
        f"seed {row['seed']})",
        "",
        f"{'mean score difference A - B per hand':<44}{signed(row['mean_diff'])} points",
        f"{'95% interval':<44}{_interval_text(row)}",
        f"{'games won by A / B / tied':<44}{row['a_win_share']:.1%} / {row['b_win_share']:.1%}"
        f" / {row['tie_share']:.1%}",
        f"{'mean score per game, A / B':<44}{row['a_mean_score']:,.1f} / {row['b_mean_score']:,.1f}",
        f"{'variance reduction vs independent deals':<44}{_reduction_text(row)}",
    ]
    return "\n".join(lines)
