"""The strategy questions' per-hand answers, computed from a run's records.

Each function takes the hand records of a run (the DataFrame of :func:`sim.simulate` or
:func:`sim.load`, one row per hand; columns in docs/output.md) and returns an :class:`Answer`:
a mean with its 95% interval (normal approximation) and the number of hands it rests on.  The
notebooks of the questions compute the same figures cell by cell; these functions serve the
answers "under strong play" (``benchmarks/strong_play.py``), where two runs on the same deals are
compared hand by hand (:func:`paired`).

Four- and two-player records (two teams); :func:`first_player` and :func:`pozzetto_first` also
take three-player records (``score_t0..t2`` per player, the credited scores of R62), the other
functions raise ``ValueError`` for them.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from sim._util.stats import Z95
from sim._util.text import plural


class Answer(NamedTuple):
    """A mean over hands with its 95% interval.

    ``mean``, ``low``, ``high`` are in the unit of the question (points per hand, cards, a
    share); ``hands`` is the number of hands (or deals) averaged; ``values`` the per-hand
    values (float64[hands]) with ``index`` their hand indices (int64[hands]), for pairing.
    """

    mean: float
    low: float
    high: float
    hands: int
    values: np.ndarray
    index: np.ndarray

    def text(self, fmt: str = "{:+.1f}") -> str:
        """``"+20.6 (+18.9 .. +22.3), 2,000 hands"``."""
        return (f"{fmt.format(self.mean)} ({fmt.format(self.low)} .. {fmt.format(self.high)}), "
                f"{plural(self.hands, 'hand')}")


def mean_ci(values, index=None) -> Answer:
    """The mean of ``values`` (float, one per hand) and its 95% interval (mean +- 1.96 s/sqrt(n)).

    Raises ``ValueError`` when fewer than 2 values are given.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.shape[0] < 2:
        raise ValueError(f"mean_ci: at least 2 hands are needed, got {x.shape[0]}")
    idx = np.arange(x.shape[0], dtype=np.int64) if index is None else np.asarray(index, np.int64)
    m = float(x.mean())
    h = Z95 * float(x.std(ddof=1)) / np.sqrt(x.shape[0])
    return Answer(m, m - h, m + h, int(x.shape[0]), x, idx)


def _four_players(df: pd.DataFrame) -> None:
    if "score_t2" in df.columns and df["score_t2"].notna().any():
        raise ValueError("questions: records of a four-player run (two teams) are needed; "
                         "this run has a third team (score_t2)")


def _three_players(df: pd.DataFrame) -> bool:
    return "score_t2" in df.columns and bool(df["score_t2"].notna().any())


def _scores3(df: pd.DataFrame) -> np.ndarray:
    """``int64[hands, 3]``: each player's credited score (points) of a three-player run."""
    return np.stack([df[f"score_t{k}"].to_numpy(np.int64) for k in range(3)], axis=1)


def first_player(df: pd.DataFrame) -> Answer:
    """Worth of playing first: the first player's team score minus the other team's, per hand
    (points; notebook a_first_player).  With three players: the first player's score minus
    the mean of the other two players' scores."""
    hands = df["hand_index"].to_numpy()
    if _three_players(df):
        sc = _scores3(df)
        first = df["first_player"].to_numpy(np.int64)
        own = sc[np.arange(len(df)), first]
        return mean_ci(own - (sc.sum(axis=1) - own) / 2.0, hands)
    t = (df["first_player"].to_numpy() % 2) == 0
    d = np.where(t, df["score_t0"] - df["score_t1"], df["score_t1"] - df["score_t0"])
    return mean_ci(d, hands)


def _pozzetto_first(df: pd.DataFrame) -> tuple:
    big = 10 ** 6
    t0 = df["pozzetto_turn_t0"].where(df["pozzetto_turn_t0"] >= 0, big).to_numpy()
    t1 = df["pozzetto_turn_t1"].where(df["pozzetto_turn_t1"] >= 0, big).to_numpy()
    some = (t0 < big) | (t1 < big)
    first0 = t0 < t1
    return some, first0


def pozzetto_first(df: pd.DataFrame) -> Answer:
    """Worth of reaching the pozzetto first: the score of the team that took its pozzetto first
    minus the other's, over the hands where a pozzetto was taken (points; notebook
    e_pozzetto_first).  With three players: the mean score of the players who took a pozzetto
    at the earliest turn (partners sharing one take it together, R62) minus the mean of the
    others'."""
    if _three_players(df):
        big = 10 ** 6
        turns = np.stack([df[f"pozzetto_turn_t{k}"].to_numpy(np.int64) for k in range(3)], axis=1)
        turns = np.where(turns >= 0, turns, big)
        first = turns == turns.min(axis=1, keepdims=True)
        some = (turns.min(axis=1) < big) & (first.sum(axis=1) < 3)
        sc = _scores3(df).astype(np.float64)
        mean_first = (sc * first).sum(axis=1) / np.maximum(first.sum(axis=1), 1)
        mean_rest = (sc * ~first).sum(axis=1) / np.maximum((~first).sum(axis=1), 1)
        return mean_ci((mean_first - mean_rest)[some], df["hand_index"].to_numpy()[some])
    some, first0 = _pozzetto_first(df)
    d = (df["score_t0"] - df["score_t1"]).to_numpy()
    diff = np.where(first0, d, -d)[some]
    return mean_ci(diff, df["hand_index"].to_numpy()[some])


def pile_pickups(df: pd.DataFrame) -> Answer:
    """Discard piles taken per hand, both teams together (pickups per hand)."""
    _four_players(df)
    return mean_ci(df["pile_pickups_t0"] + df["pile_pickups_t1"], df["hand_index"].to_numpy())


def pile_cards_per_pickup(df: pd.DataFrame) -> Answer:
    """Cards per discard pile taken (cards): the ratio of all pile cards to all pickups, with a
    delta-method interval over hands (hands without a pickup count in the ratio's denominator
    only through their zero pickups)."""
    _four_players(df)
    cards = (df["pile_cards_t0"] + df["pile_cards_t1"]).to_numpy(np.float64)
    picks = (df["pile_pickups_t0"] + df["pile_pickups_t1"]).to_numpy(np.float64)
    n = cards.shape[0]
    if n < 2 or picks.sum() == 0:
        raise ValueError("pile_cards_per_pickup: no discard pile was taken in these hands")
    r = cards.sum() / picks.sum()
    # ratio estimator: residuals cards - r * picks, scaled by the mean pickups
    res = cards - r * picks
    se = res.std(ddof=1) / np.sqrt(n) / picks.mean()
    return Answer(float(r), float(r - Z95 * se), float(r + Z95 * se), int(n), cards / np.maximum(picks, 1),
                  df["hand_index"].to_numpy(np.int64))


def closed_share(df: pd.DataFrame) -> Answer:
    """Share of hands that end with a close (R47)."""
    return mean_ci((df["end_reason"].astype(str) == "closed").to_numpy(np.float64),
                   df["hand_index"].to_numpy())


def burracos_at_close(df: pd.DataFrame) -> Answer:
    """Burracos (clean, dirty and semi-clean) of the closing team when it closes, over the hands
    that end with a close: how much a side builds before closing (burracos)."""
    _four_players(df)
    closed = (df["end_reason"].astype(str) == "closed").to_numpy()
    seat = df["closing_seat"].to_numpy()
    b0 = (df["clean_burracos_t0"] + df["dirty_burracos_t0"] + df["semi_clean_burracos_t0"]).to_numpy()
    b1 = (df["clean_burracos_t1"] + df["dirty_burracos_t1"] + df["semi_clean_burracos_t1"]).to_numpy()
    team0 = (np.nan_to_num(seat.astype(np.float64), nan=0) % 2) == 0
    b = np.where(team0, b0, b1)[closed]
    return mean_ci(b, df["hand_index"].to_numpy()[closed])


def clean_share(df: pd.DataFrame) -> Answer:
    """Share of the burracos made that are clean (per hand with a burraco: clean / all)."""
    _four_players(df)
    clean = (df["clean_burracos_t0"] + df["clean_burracos_t1"]).to_numpy(np.float64)
    every = clean + (df["dirty_burracos_t0"] + df["dirty_burracos_t1"]
                     + df["semi_clean_burracos_t0"] + df["semi_clean_burracos_t1"]).to_numpy(np.float64)
    some = every > 0
    return mean_ci(clean[some] / every[some], df["hand_index"].to_numpy()[some])


def paired(a: Answer, b: Answer) -> Answer:
    """``a - b`` hand by hand over the hands both answers rest on (same deals in two runs):
    the per-hand differences, their mean and 95% interval.  For a ratio answer
    (:func:`pile_cards_per_pickup`) use the unpaired intervals instead.

    Raises ``ValueError`` when the answers share fewer than 2 hands.
    """
    common, ia, ib = np.intersect1d(a.index, b.index, return_indices=True)
    if common.shape[0] < 2:
        raise ValueError("paired: the two answers share fewer than 2 hands (not the same deals?)")
    return mean_ci(a.values[ia] - b.values[ib], common)


#: the questions of ``benchmarks/strong_play.py``: name -> (function, what, unit format, paired)
QUESTIONS = {
    "first_player": (first_player, "playing first (first team - other, points per hand)", "{:+.1f}", True),
    "pozzetto_first": (pozzetto_first, "taking the pozzetto first (that team - other, points per hand)",
                       "{:+.1f}", True),
    "pile_pickups": (pile_pickups, "discard piles taken per hand", "{:.2f}", True),
    "pile_cards": (pile_cards_per_pickup, "cards per discard pile taken", "{:.2f}", False),
    "closed": (closed_share, "share of hands closed", "{:.3f}", True),
    "burracos_at_close": (burracos_at_close, "burracos of the closing team when it closes", "{:.2f}", True),
    "clean_share": (clean_share, "share of burracos that are clean", "{:.3f}", True),
}
