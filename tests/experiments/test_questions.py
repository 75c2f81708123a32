"""sim.questions: the questions' per-hand answers, on records worked out by hand and on a run."""
import math

import numpy as np
import pandas as pd
import pytest

import sim
from sim import questions as Q


def _frame():
    """Four hands whose answers are worked out below."""
    return pd.DataFrame({
        "hand_index": [0, 1, 2, 3],
        "first_player": [0, 1, 2, 3],          # teams 0, 1, 0, 1 play first
        "score_t0": [500, 300, 100, 400],
        "score_t1": [200, 600, 300, 100],
        # pozzetti: hand 0 team 1 first, hand 1 none, hand 2 team 0 first, hand 3 only team 0
        "pozzetto_turn_t0": [20, -1, 10, 15],
        "pozzetto_turn_t1": [12, -1, 14, -1],
        "pile_pickups_t0": [1, 0, 2, 0],
        "pile_pickups_t1": [1, 0, 0, 0],
        "pile_cards_t0": [3, 0, 4, 0],
        "pile_cards_t1": [5, 0, 0, 0],
        "end_reason": pd.Categorical(["closed", "stock_exhausted", "closed", "closed"]),
        "closing_seat": np.array([1, -1, 2, 0], np.int8),
        "clean_burracos_t0": [0, 0, 1, 1], "dirty_burracos_t0": [1, 0, 1, 0],
        "semi_clean_burracos_t0": [0, 0, 0, 0],
        "clean_burracos_t1": [1, 0, 0, 0], "dirty_burracos_t1": [1, 1, 0, 0],
        "semi_clean_burracos_t1": [0, 0, 0, 0],
    })


def test_first_player_by_hand():
    # first team - other: 500-200, 600-300, 100-300, 100-400 = 300, 300, -200, -300
    a = Q.first_player(_frame())
    assert a.values.tolist() == [300, 300, -200, -300]
    assert a.mean == pytest.approx(25.0) and a.hands == 4
    sd = np.std([300, 300, -200, -300], ddof=1)
    assert a.high - a.mean == pytest.approx(1.959963984540054 * sd / 2)


def test_pozzetto_first_skips_hands_without_one():
    # hand 0: team 1 first -> t1 - t0 = -300; hand 2: team 0 -> -200; hand 3: team 0 -> +300
    a = Q.pozzetto_first(_frame())
    assert a.index.tolist() == [0, 2, 3]
    assert a.values.tolist() == [-300, -200, 300]


def test_pile_and_close_figures():
    f = _frame()
    assert Q.pile_pickups(f).values.tolist() == [2, 0, 2, 0]
    assert Q.pile_cards_per_pickup(f).mean == pytest.approx(12 / 4)
    assert Q.closed_share(f).mean == pytest.approx(0.75)
    # closing team's burracos: hand 0 seat 1 -> team 1: 2; hand 2 seat 2 -> team 0: 2; hand 3 -> 1
    assert Q.burracos_at_close(f).values.tolist() == [2, 2, 1]
    # clean share per hand with a burraco: 1/3, 0/1, 1/2, 1/1
    assert Q.clean_share(f).values.tolist() == pytest.approx([1 / 3, 0, 1 / 2, 1])


def test_paired_differences_on_common_hands():
    f = _frame()
    g = f.copy()
    g["score_t0"] = g["score_t0"] + 10           # team 0 scores 10 more in every hand
    d = Q.paired(Q.first_player(g), Q.first_player(f))
    assert d.values.tolist() == [10, -10, 10, -10] and d.mean == 0
    with pytest.raises(ValueError, match="fewer than 2 hands"):
        Q.paired(Q.first_player(f.assign(hand_index=[10, 11, 12, 13])), Q.first_player(f))


def test_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match="at least 2 hands"):
        Q.mean_ci([1.0])
    f = _frame().assign(score_t2=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="four-player"):
        Q.pile_pickups(f)
    none = _frame().assign(pile_pickups_t0=0, pile_pickups_t1=0)
    with pytest.raises(ValueError, match="no discard pile"):
        Q.pile_cards_per_pickup(none)


def test_same_answer_as_the_notebook_on_a_run():
    """notebooks/a_first_player.ipynb's cell, on 2,000 hands of expert."""
    df = sim.simulate(2000, 1, "expert")
    first_team = df["first_player"] % 2
    diff = np.where(first_team == 0, df["score_t0"] - df["score_t1"], df["score_t1"] - df["score_t0"])
    a = Q.first_player(df)
    assert a.mean == pytest.approx(diff.mean()) and a.hands == 2000
    se = diff.std(ddof=1) / math.sqrt(2000)
    assert a.low == pytest.approx(diff.mean() - 1.959963984540054 * se)
    # every hand is either closed or not; shares lie in [0, 1]
    c = Q.clean_share(df)
    assert 0 <= c.low <= c.mean <= c.high <= 1


def _frame3():
    """Three hands of three players (credited scores), worked out below."""
    return pd.DataFrame({
        "hand_index": [0, 1, 2],
        "first_player": [0, 2, 1],
        "score_t0": [600, 100, 300], "score_t1": [300, 400, 300], "score_t2": [0, 700, 0],
        # hand 0: player 1 first; hand 1: players 1 and 2 together (partners, R62); hand 2: none
        "pozzetto_turn_t0": [20, 30, -1], "pozzetto_turn_t1": [12, 18, -1],
        "pozzetto_turn_t2": [-1, 18, -1],
    })


def test_three_players_first_player_and_pozzetto_first():
    # first player minus the mean of the other two: 600-150, 700-250, 300-150
    a = Q.first_player(_frame3())
    assert a.values.tolist() == [450.0, 450.0, 150.0] and a.hands == 3
    # hand 0: player 1 (300) minus the mean of 600 and 0; hand 1: (400+700)/2 - 100; hand 2 skipped
    p = Q.pozzetto_first(_frame3())
    assert p.values.tolist() == [0.0, 450.0] and p.index.tolist() == [0, 1]


def test_three_players_answers_on_a_run():
    """On a simulated 3-player run, playing first is scored against the two other players."""
    df = sim.simulate(300, 4, "expert", rules=sim.Rules(num_players=3), threads=2)
    a = Q.first_player(df)
    i = 7
    row = df.iloc[i]
    sc = [row[f"score_t{k}"] for k in range(3)]
    f = int(row["first_player"])
    assert a.values[i] == sc[f] - (sum(sc) - sc[f]) / 2 and a.hands == 300
    assert Q.pozzetto_first(df).hands > 250
