"""sim.compare / burraco compare: the paired design with seats swapped (docs/api.md)."""
import json
import math

import numpy as np
import pytest

import sim
from sim.cli import main
from sim.experiments.comparison import SUMMARY_COLUMNS, Z95, summarize_pairs

NOWILD = "heuristic:use_wild_to_meld=0"


def test_a_strategy_against_itself_differs_by_nothing():
    """Same deterministic strategy on both sides: each deal's two games are mirror images."""
    row = sim.compare("heuristic", "heuristic", hands=300, seed=11).iloc[0]
    assert (row.mean_diff, row.ci95_low, row.ci95_high) == (0.0, 0.0, 0.0)
    assert row.a_win_share == row.b_win_share
    assert row.a_win_share + row.b_win_share + row.tie_share == pytest.approx(1.0)
    assert (row.hands, row.games) == (300, 600)


def test_pairs_and_statistics_recomputed_from_two_simulations():
    n, seed = 400, 5
    per = sim.compare_hands("heuristic", NOWILD, n, seed)
    x = sim.simulate(n, seed, ["heuristic", NOWILD, "heuristic", NOWILD])
    y = sim.simulate(n, seed, [NOWILD, "heuristic", NOWILD, "heuristic"])
    assert per["a_score_t0"].tolist() == x["score_t0"].tolist()
    assert per["b_score_t0"].tolist() == y["score_t0"].tolist()
    d_x = (x["score_t0"] - x["score_t1"]).to_numpy(float)
    d_y = (y["score_t1"] - y["score_t0"]).to_numpy(float)
    p = (d_x + d_y) / 2
    assert per["paired_diff"].tolist() == p.tolist()
    row = summarize_pairs(per).iloc[0]
    se = p.std(ddof=1) / math.sqrt(n)
    assert row.mean_diff == pytest.approx(p.mean())
    assert row.se == pytest.approx(se)
    assert (row.ci95_low, row.ci95_high) == pytest.approx((p.mean() - Z95 * se, p.mean() + Z95 * se))
    d = np.concatenate([d_x, d_y])
    assert row.a_win_share == pytest.approx((d > 0).mean())
    assert row.b_win_share == pytest.approx((d < 0).mean())
    assert row.var_reduction == pytest.approx(d.var(ddof=1) / (2 * p.var(ddof=1)))
    a_scores = np.concatenate([x["score_t0"], y["score_t1"]])
    assert row.a_mean_score == pytest.approx(a_scores.mean())
    assert list(summarize_pairs(per).columns) == list(SUMMARY_COLUMNS)


def test_swapping_a_and_b_negates_the_difference():
    ab = sim.compare("heuristic", NOWILD, 300, 9).iloc[0]
    ba = sim.compare(NOWILD, "heuristic", 300, 9).iloc[0]
    assert ab.mean_diff == -ba.mean_diff
    assert ab.a_win_share == ba.b_win_share
    assert (ab.ci95_low, ab.ci95_high) == pytest.approx((-ba.ci95_high, -ba.ci95_low))


def test_heuristic_beats_random_and_pairing_reduces_variance():
    row = sim.compare("heuristic", "random", hands=1500, seed=3).iloc[0]
    assert row.ci95_low > 0
    assert row.a_win_share > 0.8
    assert row.var_reduction > 1


def test_cli_compare_text_and_json(capsys):
    assert main(["compare", "heuristic", NOWILD, "--hands", "200", "--seed", "2", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "mean score difference A - B per hand" in text and "95% interval" in text
    assert main(["compare", "heuristic", NOWILD, "--hands", "200", "--seed", "2", "--quiet",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == list(SUMMARY_COLUMNS)
    assert doc["a"] == "heuristic" and doc["b"] == NOWILD and doc["hands"] == 200


@pytest.mark.parametrize("argv, needle", [
    (["compare", "heuristic", "nosuch", "--hands", "10", "--seed", "1"], (
        "unknown name 'nosuch'; allowed: ", "expert, ", "heuristic, ", "random, ", "rollout, ",
        "masu_normal, ")),
    (["compare", "heuristic:nosuch=1", "random", "--hands", "10", "--seed", "1"], "allowed:"),
    (["compare", "heuristic", "random", "--hands", "0", "--seed", "1"], "hands"),
])
def test_cli_compare_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("burraco: error:") \
        and all(n in err for n in (needle if isinstance(needle, tuple) else (needle,)))


def test_expert_is_the_heuristic_with_tuned_values_and_beats_it():
    from sim import strategies
    v = strategies.get("heuristic").vector(strategies.EXPERT_VALUES)
    assert (strategies.get("expert").vector() == v).all()
    row = sim.compare("expert", "heuristic", hands=5000, seed=4242).iloc[0]
    assert row.ci95_low > 0
