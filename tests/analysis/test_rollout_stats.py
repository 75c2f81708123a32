"""sim.rollout_stats: the sequential rule, its intervals, control variates and strata, and
the oracle worlds of position analysis (docs/analyze.md).

* the rule's bounds and stop recomputed by hand from the rollout matrix; the same table
  with 1 and 2 threads; a position with a clear answer is separated and named right;
* the multiplier after a sequential stop keeps a simulated coverage the plain 1.96 loses;
* the exact means of the deal features worked out from the cards; the regression estimator
  on matrices with known answers; post-stratification is sum p_s mean_s;
* the true-card worlds are the game's hidden cards with the generator reseeded.
"""
import json
import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from test_analyze import PILE  # seat 0 holds K♣; no wild is seen anywhere

import sim
from kernels.search import rollouts as KR
from kernels.table.worlds import reseed_world
from sim import Game
from sim import rollout_stats as RS
from sim.analysis import rollout_matrix
from sim.cli import main

EXAMPLE = "examples/position.toml"
CLEAR = "meld K♣ K♣ K♥; meld K♣ K♥ JK; end the meld phase"   # +120, +88, +78 points


def test_separation_multiplier_and_schedule_by_hand():
    assert RS.schedule(250, 1000) == [250, 500, 750, 1000]
    assert RS.schedule(300, 1000) == [300, 600, 900, 1000]
    # Bonferroni over 10 looks and 2 other candidates: Phi^-1(1 - 0.05 / 20)
    assert RS.separation_z(10, 3) == pytest.approx(2.807034, abs=1e-5)
    assert RS.separation_z(1, 2) == pytest.approx(1.644854, abs=1e-5)


def test_the_rule_stops_where_the_bounds_say_and_threads_do_not_matter(capsys):
    kw = {"seed": 3, "candidates": CLEAR, "until_separated": True, "batch": 60,
          "max_rollouts": 600}
    one = sim.analyze(EXAMPLE, threads=1, **kw)
    capsys.readouterr()
    two = sim.analyze(EXAMPLE, threads=2, progress=True, **kw)
    pd.testing.assert_frame_equal(one, two)
    a = one.attrs
    # the bar ends full at the rollouts played, not part-way to max_rollouts
    last = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    played = a["worlds"] * 3
    assert "100%" in last and f"{played}/{played}" in last, last
    assert a["stop"] == "separated" and a["worlds"] == 60 * a["looks"] and a["max_looks"] == 10
    assert one.iloc[0].text == "meld K♣ K♣ K♥"
    # the same rule by hand on the prefixes of the cap's matrix (the worlds are a prefix)
    game = Game.from_position(EXAMPLE, seed=3)
    acts = sim.analysis.rollouts._candidates(game, CLEAR)
    r = rollout_matrix(game, acts, 600, seed=3)["result"].astype(float)
    z = NormalDist().inv_cdf(1 - 0.05 / (10 * 2))
    stop = None
    for n in range(60, 601, 60):
        x = r[:n]
        b = int(np.argmax(x.mean(axis=0)))
        d = x - x[:, [b]]
        upper = d.mean(axis=0) + z * d.std(axis=0, ddof=1) / math.sqrt(n)
        if all(upper[j] < 0 for j in range(3) if j != b):
            stop = n
            break
    assert a["worlds"] == stop
    assert one["mean_result"].tolist() == sorted(r[:stop].mean(axis=0), reverse=True)
    half = (one.iloc[1].diff_high - one.iloc[1].diff_low) / 2
    j = acts.index(int(one.iloc[1].action))
    b = acts.index(int(one.iloc[0].action))
    se = (r[:stop, j] - r[:stop, b]).std(ddof=1) / math.sqrt(stop)
    assert half == pytest.approx(a["z_interval"] * se)
    assert a["z_interval"] == RS.stop_multiplier(tuple(RS.schedule(60, 600)), a["z_sep"]) > 2


def test_a_clear_position_is_separated_and_named_right_with_every_seed():
    """The CI version of benchmarks/studies/analyze_validation.py's wrong-best count."""
    for seed in range(1, 6):
        df = sim.analyze(EXAMPLE, seed=seed, candidates=CLEAR, until_separated=True,
                         batch=200, max_rollouts=3000)
        assert df.attrs["stop"] == "separated", seed
        assert df.iloc[0].text == "meld K♣ K♣ K♥", seed


def test_equal_candidates_stop_by_the_margin_and_not_without_it():
    close = "meld K♣ K♥ JK; meld J♠ Q♠ JK"                     # long run: about 2 points apart
    kw = {"seed": 2, "until_separated": True, "batch": 100, "max_rollouts": 400}
    cap = sim.analyze(EXAMPLE, candidates=close, **kw)
    assert cap.attrs["stop"] == "cap" and cap.attrs["worlds"] == 400
    within = sim.analyze(EXAMPLE, candidates=close, margin=20, **kw)
    assert within.attrs["stop"] == "separated" and within.attrs["worlds"] < 400
    alike = "lay off K♣ on meld 3; lay off Q♦ on meld 4"       # equal results on these worlds
    df = sim.analyze(EXAMPLE, candidates=alike, **kw)
    assert df.attrs["stop"] == "cap" and df.iloc[1].diff_best == df.iloc[1].diff_low == 0
    df = sim.analyze(EXAMPLE, candidates=alike, margin=0.5, **kw)
    assert (df.attrs["stop"], df.attrs["worlds"]) == ("separated", 100)


def _coverage(z_mult, looks, z_sep, delta_se1, paths=20_000):
    """Coverage at the stop of the rule on simulated paths of one paired difference."""
    n = np.asarray(looks, float)
    rng = np.random.default_rng(12345)
    steps = np.diff(np.concatenate([[0.0], n]))
    noise = np.cumsum(rng.standard_normal((paths, n.size)) * np.sqrt(steps), axis=1) / np.sqrt(n)
    z = noise + delta_se1 * np.sqrt(n / n[0])
    crossed = np.abs(z) > z_sep
    at = np.where(crossed.any(axis=1), crossed.argmax(axis=1), n.size - 1)
    return float(np.mean(np.abs(noise[np.arange(paths), at]) < z_mult))


def test_the_multiplier_after_a_stop_keeps_the_coverage_that_1_96_loses():
    looks = tuple(range(100, 1601, 100))
    z_sep = RS.separation_z(len(looks), 2)
    z = RS.stop_multiplier(looks, z_sep)
    assert 2.0 < z < 2.6
    assert RS.stop_multiplier((500,), 2.0) == pytest.approx(1.96, abs=0.03)   # one look
    worst_plain = min(_coverage(1.959964, looks, z_sep, d) for d in (0.25, 0.5, 1.0))
    assert worst_plain < 0.935                            # a data-dependent stop
    for d in (0.0, 0.5, 1.0, 2.0, 4.0):
        assert _coverage(z, looks, z_sep, d) >= 0.94


def test_feature_means_worked_out_from_the_cards():
    game = Game.from_position(PILE, seed=1)
    x, mu = RS.feature_matrix(game, 3000, seed=4, threads=2)
    # 97 unseen cards (24 in hands, 62 in the stock, 11 in the pozzetto), all 12 wilds
    # among them (4 jokers, 8 twos): 12/97 wilds per unseen place; no known card elsewhere
    unseen_points = 1080 - 10 - (5 * 5 + 10) - (10 * 3) - 10      # hand, melds, pile
    per = np.array([12 / 97, unseen_points / 97])
    expect = np.concatenate([8 * per, 8 * per, 8 * per, 4 * per, 11 * per])
    assert mu == pytest.approx(expect)
    assert np.abs(x.mean(axis=0) - mu).max() < 4 * (x.std(axis=0) / math.sqrt(3000)).max()
    again, _ = RS.feature_matrix(game, 1000, seed=4, first=2000, threads=1)
    assert np.array_equal(again, x[2000:])
    offset, cuts, probs = RS.strata(game, 0)
    assert offset == 0 and sum(probs) == pytest.approx(1.0) and min(probs) >= RS.MIN_STRATUM
    # opponents (seats 1, 3) hold 16 of the 97 unseen places: P(no wild) by hand
    p0 = math.comb(85, 16) / math.comb(97, 16)
    assert cuts[:2] == [0, 1] and probs[0] == pytest.approx(p0)


def test_control_variates_and_strata_on_known_matrices():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 4, size=(4000, 1)).astype(float)           # mean 1.5, known
    noise = rng.normal(0, 1, size=(4000, 2))
    y = np.hstack([10 + 5 * x, 12 + 5 * x]) + noise
    adj, ddof = RS.adjusted_results(y, x, np.array([1.5]))
    assert ddof == 2
    assert adj.mean(axis=0) == pytest.approx([17.5, 19.5], abs=0.05)
    means, diffs = RS.reductions(y, adj, ddof, 0)
    assert means > 20 and diffs == pytest.approx(1.0, abs=0.01)   # x cancels in the difference
    # post-stratification: sum over strata of p_s * mean_s
    strata_x, mu = RS.strata_features(x[:, 0], 0, [0, 1, 2, 4], [0.2, 0.3, 0.5])
    adj, _ = RS.adjusted_results(y, strata_x, mu)
    by_hand = sum(p * y[(x[:, 0] >= lo) & (x[:, 0] < hi)].mean(axis=0)
                  for p, lo, hi in ((0.2, 0, 1), (0.3, 1, 2), (0.5, 2, 4)))
    assert adj.mean(axis=0) == pytest.approx(by_hand)
    constant, ddof = RS.adjusted_results(y, np.ones((4000, 1)), np.ones(1))
    assert ddof == 1 and np.array_equal(constant, y)


def test_adjusted_analysis_reports_its_reductions():
    df = sim.analyze(EXAMPLE, rollouts=400, seed=1, candidates=CLEAR, adjust="cv")
    plain = sim.analyze(EXAMPLE, rollouts=400, seed=1, candidates=CLEAR)
    a = df.attrs
    assert a["adjust"] == "cv" and a["adjust_means"] > 1.0 and math.isfinite(a["adjust_diffs"])
    assert a["var_reduction"] == plain.attrs["var_reduction"]      # CRN: of the raw results
    assert (df["own_score"].sort_values().tolist()
            == plain["own_score"].sort_values().tolist())
    se_ratio = (plain["se"] ** 2).sum() / (df["se"] ** 2).sum()
    assert se_ratio == pytest.approx(a["adjust_means"], rel=0.02)  # ddof only differs


def test_true_worlds_are_the_hidden_cards_reseeded():
    g = Game.new(seed=3, hand_index=1, strategies="expert")
    for _ in range(9):
        g.apply(g.choose())
    acts = g.legal_actions()[:3]
    m = rollout_matrix(g, acts, 3, seed=5, first=2, worlds_mode=KR.WORLDS_TRUE)
    for i in range(3):
        for j, a in enumerate(acts):
            world = g.clone()
            reseed_world(world._work, np.uint64(5), np.int64(2 + i))
            world.apply(a)
            world.play()
            t = world.team_of(g.current_seat)
            rec = world.result()
            assert m["result"][i, j] == rec[f"score_t{t}"] - rec[f"score_t{1 - t}"]
    df = sim.analyze(g, rollouts=20, candidates=acts, worlds="true")
    assert df.attrs["worlds_kind"] == "true"
    sampled = rollout_matrix(g, acts, 20, seed=0)["result"]
    assert not np.array_equal(sampled, rollout_matrix(g, acts, 20, seed=0,
                                                      worlds_mode=KR.WORLDS_TRUE)["result"])
    with pytest.raises(ValueError, match="worlds: 'true' needs the hidden cards"):
        sim.analyze(EXAMPLE, rollouts=10, worlds="true")
    with pytest.raises(ValueError, match="adjust: the true hidden cards do not vary"):
        sim.analyze(g, rollouts=10, worlds="true", adjust="cv")


def test_model_worlds_are_the_weighted_deals(capsys):
    """``worlds="model"``: world ``w`` is the unseen cards dealt again by the card-location
    model's odds of the decision (kernels.search.card_model) from the stream ``(seed, w)``;
    played on, each gives the rollout's result; a position takes it too."""
    from kernels.core.cards import N_COUNT
    from kernels.search import card_model as KM
    g = Game.new(seed=3, hand_index=1, strategies="expert")
    for _ in range(30):
        g.apply(g.choose())
    acts = g.legal_actions()[:3]
    m = rollout_matrix(g, acts, 3, seed=5, first=2, worlds_mode=KR.WORLDS_MODEL)
    odds = np.empty((4, N_COUNT))
    KM.card_odds(g._work, np.int64(g.current_seat), odds)
    assert (odds != 1).any()
    for i in range(3):
        for j, a in enumerate(acts):
            world = g.clone()
            KM.resample_unseen_weighted(world._work, np.int64(g.current_seat), np.uint64(5),
                                        np.int64(2 + i), odds)
            world.apply(a)
            world.play()
            t = world.team_of(g.current_seat)
            rec = world.result()
            assert m["result"][i, j] == rec[f"score_t{t}"] - rec[f"score_t{1 - t}"]
    df = sim.analyze(g, rollouts=20, candidates=acts, worlds="model")
    assert df.attrs["worlds_kind"] == "model"
    assert not np.array_equal(rollout_matrix(g, acts, 20, seed=0)["result"],
                              rollout_matrix(g, acts, 20, seed=0,
                                             worlds_mode=KR.WORLDS_MODEL)["result"])
    assert sim.analyze(EXAMPLE, rollouts=10, worlds="model").attrs["worlds_kind"] == "model"
    with pytest.raises(ValueError, match="adjust: the deal features' exact means"):
        sim.analyze(g, rollouts=10, worlds="model", adjust="strata")
    assert main(["analyze", EXAMPLE, "--quiet", "--rollouts", "20", "--worlds", "model",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["analysis"]["worlds_kind"] == "model"
    assert main(["analyze", EXAMPLE, "--quiet", "--rollouts", "20", "--worlds", "model"]) == 0
    assert "worlds: the unseen cards dealt by the card-location model" in capsys.readouterr().out


@pytest.mark.parametrize("kw,needle", [
    ({"margin": -1}, "margin: expected points >= 0"),
    ({"batch": 1}, "batch must be an integer in 2.."),
    ({"max_rollouts": 1}, "max_rollouts must be an integer in 2.."),
    ({"adjust": "more"}, "adjust: expected one of none, strata, cv"),
    ({"worlds": "all"}, "worlds: expected 'sampled', 'model' or 'true'"),
])
def test_bad_options_name_the_parameter(kw, needle):
    with pytest.raises(ValueError, match=needle):
        sim.analyze(EXAMPLE, **{"rollouts": 10, **kw})


def test_cli_sequential_text_json_and_errors(capsys):
    argv = ["analyze", EXAMPLE, "--quiet", "--seed", "3", "--candidates", CLEAR,
            "--until-separated", "--batch", "60", "--max-rollouts", "600", "--adjust", "strata"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("sequential rule: stopped at look ") for line in out)
    assert any(line.startswith("post-stratification on the wilds dealt to the opponents: x")
               for line in out)
    assert main(argv + ["--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["analysis"]
    assert doc["stop"] == "separated" and doc["adjust"] == "strata" and doc["z_interval"] > 2
    assert doc["worlds"] == 60 * doc["looks"] and doc["worlds_kind"] == "sampled"
    assert main(["analyze", EXAMPLE, "--quiet", "--margin", "-2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("burraco: error: --margin: expected points >= 0") and err.count("\n") == 1
    assert main(["analyze", EXAMPLE, "--quiet", "--worlds", "true"]) == 2
    assert "burraco: error: --worlds: 'true' needs the hidden cards" in capsys.readouterr().err
