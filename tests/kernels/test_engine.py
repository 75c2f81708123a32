"""Simulation-level tests of the kernels: deal counts (R8), card conservation,
determinism, and invariants over many simulated hands (each of the 108 card ids in one place, R1)."""
import numpy as np
import pandas as pd
import pytest

import sim
from kernels.core import layout as L
from kernels.play.game import simulate_range, simulate_range_serial
from sim import strategies


def _rv():
    return sim.Rules().to_vector()


def _run(n, strategy="heuristic", seed=7, start=0, debug=0, serial=True):
    _, kind, params = strategies.resolve(strategy)
    kinds = np.full(4, kind, np.int64)
    prm = np.tile(params, (4, 1))
    out = np.zeros((n, L.N_REC), np.int32)
    fn = simulate_range_serial if serial else simulate_range
    fn(np.uint64(seed), np.int64(start), np.int64(n), _rv(), kinds, prm, np.int64(debug), out)
    return pd.DataFrame(out, columns=L.REC_COLUMNS)


# ------------------------------------------------------------------ deal (R8)
@pytest.mark.parametrize("index", [0, 1, 17, 123456])
def test_deal_counts(index):
    """R8: 11 cards x 4 hands, two pozzetti of 11, 1 up-card, stock 41; all 108 ids once."""
    d = sim.deal(3, index)
    assert [len(h) for h in d.hands] == [11, 11, 11, 11]
    assert [len(p) for p in d.pozzetti] == [11, 11]
    assert len(d.stock) == 41
    every = np.concatenate(d.hands + d.pozzetti + [np.array([d.discard], np.int8), d.stock])
    assert sorted(every.astype(int).tolist()) == list(range(108))
    assert d.first_player == (d.dealer + 1) % 4


def test_deal_is_a_function_of_seed_and_index():
    a, b, c = sim.deal(5, 10), sim.deal(5, 10), sim.deal(5, 11)
    assert all((x == y).all() for x, y in zip(a.hands, b.hands))
    assert not all((x == y).all() for x, y in zip(a.hands, c.hands))


def test_deal_shuffle_is_roughly_uniform():
    """Each id lands in seat 0's hand with probability 11/108."""
    n = 3000
    hits = np.zeros(108)
    for i in range(n):
        hits[sim.deal(11, i).hands[0].astype(int)] += 1
    p = 11 / 108
    z = (hits - n * p) / np.sqrt(n * p * (1 - p))
    assert np.abs(z).max() < 5.0


def test_deal_rejects_bad_input():
    with pytest.raises(ValueError, match="seed"):
        sim.deal(-1, 0)
    with pytest.raises(ValueError, match="hand_index"):
        sim.deal(1, "x")


# ------------------------------------------------------------ conservation
@pytest.mark.parametrize("strategy", ["heuristic", pytest.param("random", marks=pytest.mark.slow)])
def test_card_conservation_debug_mode(strategy):
    """R1 and R14-R20: in debug mode every action is followed by a check that each of the
    108 ids is in exactly one place and every table meld is valid; 2,000 hands."""
    df = _run(2000, strategy, seed=99, debug=1)
    assert (df["error"] == 0).all(), df.loc[df["error"] != 0, "error"].value_counts()


# ------------------------------------------------------------- determinism
def test_same_seed_same_records():
    a = _run(300, seed=4)
    b = _run(300, seed=4)
    c = _run(300, seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_parallel_equals_serial():
    a = _run(500, seed=8, serial=True)
    b = _run(500, seed=8, serial=False)
    pd.testing.assert_frame_equal(a, b)


def test_hand_record_independent_of_range_start():
    """A hand's record depends on (seed, index) only, not on the batch it is in."""
    whole = _run(100, seed=9)
    part = _run(40, seed=9, start=60)
    pd.testing.assert_frame_equal(whole.iloc[60:].reset_index(drop=True), part)


# ------------------------------------------------------------- invariants
@pytest.fixture(scope="module")
def many():
    return _run(20000, seed=2024, serial=False)


def test_no_turn_cap(many):
    """R52: sensible strategies never reach the safety cap."""
    assert (many["end_reason"] != L.END_TURN_CAP).all()


def test_scores_are_multiples_of_five(many):
    """R59."""
    for t in (0, 1):
        assert (many[f"score_t{t}"] % 5 == 0).all()


def test_score_equals_sum_of_components(many):
    """R55: total = melds + bonuses + close - hands - penalty."""
    for t in (0, 1):
        comp = (many[f"meld_points_t{t}"] + many[f"burraco_bonus_t{t}"]
                + many[f"closing_bonus_t{t}"] - many[f"hand_points_t{t}"]
                - many[f"pozzetto_penalty_t{t}"])
        assert (comp == many[f"score_t{t}"]).all()
        bonus = 200 * many[f"clean_burracos_t{t}"] + 100 * many[f"dirty_burracos_t{t}"]
        assert (bonus == many[f"burraco_bonus_t{t}"]).all()


def test_at_most_one_close(many):
    """R47-R49: at most one close per hand; bonus only with a close; the closer's
    team has its pozzetto and a burraco (R45)."""
    both = many["closed_t0"] + many["closed_t1"]
    closed = many["end_reason"] == L.END_CLOSED
    assert (both == closed.astype(int)).all()
    for t in (0, 1):
        c = many[f"closed_t{t}"] == 1
        assert (many.loc[c, f"closing_bonus_t{t}"] == 100).all()
        assert (many.loc[~c, f"closing_bonus_t{t}"] == 0).all()
        assert (many.loc[c, f"pozzetto_taken_t{t}"] == 1).all()
        assert ((many.loc[c, f"clean_burracos_t{t}"] + many.loc[c, f"dirty_burracos_t{t}"]) >= 1).all()
        assert (many.loc[c, "closing_seat"] % 2 == t).all()
    assert (many.loc[~closed, "closing_seat"] == -1).all()


def test_pozzetto_penalty_iff_untaken(many):
    """R55/R57: the flat -100 is paid exactly by a team that never took its pozzetto."""
    for t in (0, 1):
        untaken = many[f"pozzetto_taken_t{t}"] == 0
        assert (many.loc[untaken, f"pozzetto_penalty_t{t}"] == 100).all()
        assert (many.loc[~untaken, f"pozzetto_penalty_t{t}"] == 0).all()
        assert (many.loc[untaken, f"pozzetto_turn_t{t}"] == -1).all()
        assert (many.loc[~untaken, f"pozzetto_turn_t{t}"] >= 1).all()


def test_stock_never_below_reserve(many):
    """R50: the last 2 cards are never drawn; a stock-exhausted hand ends with exactly 2."""
    assert (many["stock_left"] >= 2).all()
    ex = many["end_reason"] == L.END_STOCK_EXHAUSTED
    assert (many.loc[ex, "stock_left"] == 2).all()


def test_card_points_bounded(many):
    """R3: melds and hands together never exceed the pack total (1080)."""
    tot = sum(many[f"meld_points_t{t}"] + many[f"hand_points_t{t}"] for t in (0, 1))
    assert (tot <= 1080).all()


@pytest.mark.slow
def test_heuristic_is_not_random(many):
    """The heuristic closes most hands; uniform random play closes far fewer."""
    rnd = _run(2000, "random", seed=2024, serial=False)
    h_close = (many["end_reason"] == L.END_CLOSED).mean()
    r_close = (rnd["end_reason"] == L.END_CLOSED).mean()
    assert h_close > 0.8
    assert h_close > r_close + 0.2
