"""sim.analyze / burraco analyze: position analysis by rollouts (docs/analyze.md).

* positions whose right answer follows from the rules get it (going out and
  closing beats ending the meld phase with 4, 2 and 3 players; taking a
  one-card pile that completes a burraco and lets the seat close beats the
  stock);
* the kernel's rollouts are exactly the step API's: the same sampled world,
  the candidate applied, the hand played on with the rollout strategy;
* the table does not depend on the thread count or on how the worlds are
  split; the paired intervals are narrower than those of independent worlds;
* the statistics, recomputed from the rollout matrix; the CLI's text, JSON
  and one-line errors.
"""
import json
import math

import numpy as np
import pandas as pd
import pytest
from numba import njit

import sim
from kernels.strategies.choosers import (heuristic_chooser)
from sim import Game, positions
from sim._util.stats import Z95
from sim.analysis import (
    ANALYSIS_COLUMNS,
    rollout_matrix,
    summarize_rollouts,
    to_document,
)
from sim.cli import main

EXAMPLE = "examples/position.toml"

# Seat 0 drew and holds 7♠ 8♠ 9♠ K♣; its side has a clean burraco (R27) and its pozzetto
# (R42): melding the spades and discarding K♣ closes (R45).  Ending the meld phase
# instead leaves four cards, so the hand goes on.
CLOSE_4 = {
    "seat": 0, "phase": "meld", "turn": 21,
    "hand": "7♠ 8♠ 9♠ K♣", "hand_sizes": [4, 9, 10, 8],
    "pile": "K♦ 4♣", "stock": 50, "this_turn": {"pickup": "stock"},
    "pozzetti": {"left": 1, "taken": [{"side": 0, "turn": 9}]},
    "melds": [{"side": 0, "cards": "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥"},
              {"side": 1, "cards": "Q♣ Q♦ Q♠"}, {"side": 1, "cards": "5♦ 6♦ 7♦ 8♦"}],
}
CLOSE_2 = {
    "seat": 1, "phase": "meld", "turn": 21, "rules": {"num_players": 2},
    "hand": "7♠ 8♠ 9♠ K♣", "hand_sizes": [9, 4],
    "pile": "K♦ 4♣", "stock": 68, "this_turn": {"pickup": "stock"},
    "pozzetti": {"left": 1, "taken": [{"side": 1, "turn": 9}]},
    "melds": [{"side": 1, "cards": "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥"},
              {"side": 0, "cards": "Q♣ Q♦ Q♠"}, {"side": 0, "cards": "5♦ 6♦ 7♦ 8♦"}],
}
CLOSE_3 = {
    "seat": 2, "phase": "meld", "turn": 21,
    "rules": {"num_players": 3, "three_player_mode": "individual_3x11"},
    "hand": "7♠ 8♠ 9♠ K♣", "hand_sizes": [9, 9, 4],
    "pile": "K♦ 4♣", "stock": 48, "this_turn": {"pickup": "stock"},
    "pozzetti": {"taken": [{"side": 2, "turn": 9}]},
    "melds": [{"side": 2, "cards": "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥"},
              {"side": 0, "cards": "Q♣ Q♦ Q♠"}, {"side": 1, "cards": "5♦ 6♦ 7♦ 8♦"}],
}
# Seat 0 holds K♣ and has its pozzetto; the pile is the 9♥ its 3♥..8♥ needs for a
# burraco.  Taking it, laying it off and discarding K♣ closes (R36 bars only the 9♥);
# drawing leaves it without a burraco unless the stock gives one.
PILE = {
    "seat": 0, "phase": "pickup", "turn": 21,
    "hand": "K♣", "hand_sizes": [1, 8, 8, 8],
    "pile": "9♥", "stock": 62,
    "pozzetti": {"left": 1, "taken": [{"side": 0, "turn": 9}]},
    "melds": [{"side": 0, "cards": "3♥ 4♥ 5♥ 6♥ 7♥ 8♥"}, {"side": 1, "cards": "Q♣ Q♦ Q♠"}],
}
TIMING = ("rollout_s", "summary_s", "elapsed_s", "rollouts_per_s", "threads")


def _settled(df):
    """The frame's values and attrs without the timings (for equality)."""
    return df, {k: v for k, v in df.attrs.items() if k not in TIMING}


@pytest.mark.parametrize("position", [CLOSE_4, CLOSE_2, CLOSE_3], ids=["4p", "2p", "3p"])
def test_going_out_and_closing_beats_ending_the_meld_phase(position):
    df = sim.analyze(position, rollouts=300, seed=4)
    assert df["text"].tolist() == ["meld 7♠ 8♠ 9♠", "end the meld phase"]
    best, other = df.iloc[0], df.iloc[1]
    assert best.close_prob == 1.0                  # the expert discards K♣ and closes
    assert other.close_prob < 1.0
    assert other.diff_high < 0 < best.mean_result - other.mean_result
    assert best.p_best > 0.999 and other.p_best < 0.001
    assert df.attrs["num_players"] == len(positions.load(position)["hand_sizes"])


def test_a_pile_that_completes_a_burraco_and_closes_beats_the_stock():
    df = sim.analyze(PILE, rollouts=300, seed=2)
    assert df["action"].tolist() == [sim.game.A_TAKE, sim.game.A_DRAW]
    take, draw = df.iloc[0], df.iloc[1]
    assert take.close_prob == 1.0 and draw.close_prob < 1.0
    assert draw.diff_high < -100                  # the burraco and the close are worth more


def _step_result(world, seat):
    """(result, own, closed) of a finished step-API game, as the kernel defines them."""
    rec, n = world.result(), world.rules.num_players
    if n == 3:
        own = rec[f"score_t{seat}"]
        opp = max(rec[f"score_t{p}"] for p in range(3)
                  if p != seat and world.team_of(p) != world.team_of(seat))
        closed = rec[f"closed_t{seat}"]
    else:
        t = world.team_of(seat)
        own, opp, closed = rec[f"score_t{t}"], rec[f"score_t{1 - t}"], rec[f"closed_t{t}"]
    return own - opp, own, int(closed)


@pytest.mark.parametrize("position,policy", [(EXAMPLE, "expert"), (CLOSE_3, "heuristic"),
                                             (CLOSE_2, "random")])
def test_kernel_rollouts_are_the_step_api_played_on(position, policy):
    game = Game.from_position(position, seed=9, strategies=policy)
    seat = game.current_seat
    acts = game.legal_actions()[:6]
    m = rollout_matrix(game, acts, 4, seed=9, policy=policy, first=3)
    assert not m["error"].any()
    for i in range(4):
        for j, a in enumerate(acts):
            world = game.sample_world(seat, 9, 3 + i)
            world.apply(a)
            world.play()
            assert _step_result(world, seat) == (m["result"][i, j], m["own"][i, j],
                                                 m["closed"][i, j])


def test_same_table_with_one_and_two_threads_and_any_split():
    one = sim.analyze(EXAMPLE, rollouts=120, seed=5, threads=1)
    two = sim.analyze(EXAMPLE, rollouts=120, seed=5, threads=2, progress=True)
    pd.testing.assert_frame_equal(one, two)
    assert _settled(one)[1] == _settled(two)[1]
    game = Game.from_position(EXAMPLE, seed=5)
    acts = game.legal_actions()
    whole = rollout_matrix(game, acts, 60, seed=5, threads=2)
    head = rollout_matrix(game, acts, 25, seed=5, threads=1)
    tail = rollout_matrix(game, acts, 35, seed=5, threads=2, first=25, progress=True)
    for k in ("result", "own", "closed", "error"):
        assert np.array_equal(whole[k], np.concatenate([head[k], tail[k]]))
    assert not np.array_equal(whole["result"],
                              rollout_matrix(game, acts, 60, seed=6)["result"])
    some = rollout_matrix(game, acts[3:8:2], 60, seed=5)   # the other candidates do not matter
    assert np.array_equal(some["result"], whole["result"][:, 3:8:2])


@njit(cache=True)
def _like_heuristic(work):
    """A registered chooser that is the built-in heuristic."""
    return heuristic_chooser(work)


@pytest.mark.slow
def test_a_registered_chooser_rolls_out_in_the_kernel():
    h = sim.strategies.get("heuristic")
    defaults = {k: v[1] for k, v in sorted(h.params.items(), key=lambda kv: kv[1][0])}
    sim.strategies.register("analyze_like_heuristic", _like_heuristic, params=defaults)
    try:
        ours = sim.analyze(CLOSE_4, rollouts=60, seed=8, policy="analyze_like_heuristic")
    finally:            # the registry is the process's: later tests list the strategies
        sim.strategies.STRATEGIES.pop("analyze_like_heuristic", None)
    built_in = sim.analyze(CLOSE_4, rollouts=60, seed=8, policy="heuristic")
    pd.testing.assert_frame_equal(ours, built_in)
    assert ours.attrs["policy"] == "analyze_like_heuristic"


def test_common_random_numbers_narrow_the_paired_interval():
    """The paired interval of the difference against independent worlds for each candidate."""
    pair = "meld K♣ K♣ K♥;end the meld phase"
    w = 600
    df = sim.analyze(EXAMPLE, rollouts=w, seed=1, candidates=pair)
    paired_half = (df.iloc[1].diff_high - df.iloc[1].diff_low) / 2
    a = sim.analyze(EXAMPLE, rollouts=w, seed=2, candidates=df.iloc[0].text)
    b = sim.analyze(EXAMPLE, rollouts=w, seed=3, candidates=df.iloc[1].text)
    independent_half = Z95 * math.hypot(a.iloc[0].se, b.iloc[0].se)
    assert paired_half < 0.85 * independent_half
    assert df.attrs["var_reduction"] == df.iloc[1].var_reduction > 1.3


def test_statistics_recomputed_from_the_matrix():
    game = Game.from_position(EXAMPLE, seed=3)
    acts = game.legal_actions()[:5]
    texts = [game.action_text(a) for a in acts]
    m = rollout_matrix(game, acts, 200, seed=3)
    df = summarize_rollouts(m["result"], m["own"], m["closed"], acts, texts, seed=3)
    assert list(df.columns) == list(ANALYSIS_COLUMNS)
    r = m["result"].astype(float)
    means = r.mean(axis=0)
    assert df["mean_result"].tolist() == sorted(means, reverse=True)
    b = int(np.argmax(means))
    assert df.iloc[0].action == acts[b] and df.iloc[0].diff_best == 0.0
    for row in df.iloc[1:].itertuples():
        j = acts.index(row.action)
        d = r[:, j] - r[:, b]
        se = d.std(ddof=1) / math.sqrt(200)
        assert row.diff_best == pytest.approx(d.mean())
        assert (row.diff_low, row.diff_high) == pytest.approx((d.mean() - Z95 * se,
                                                                d.mean() + Z95 * se))
        assert row.var_reduction == pytest.approx(
            (r[:, j].var(ddof=1) + r[:, b].var(ddof=1)) / d.var(ddof=1))
        assert row.own_score == pytest.approx(m["own"][:, j].mean())
        assert row.close_prob == pytest.approx(m["closed"][:, j].mean())
    assert df["p_best"].sum() == pytest.approx(1.0)
    assert (df["rollouts"] == 200).all()


def test_p_best_and_reduction_on_known_matrices():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 100, size=(400, 1))
    same = np.hstack([base, base])                       # two identical candidates
    df = summarize_rollouts(same, same, same * 0, [5, 9], ["a", "b"])
    assert df["action"].tolist() == [5, 9]               # equal means: by action id
    assert df["p_best"].tolist() == [0.5, 0.5]
    assert math.isinf(df.attrs["var_reduction"]) and df.iloc[1].diff_high == 0
    ahead = np.hstack([base, base + 3, base - 50])       # ahead by 3 on every world
    df = summarize_rollouts(ahead, ahead, ahead * 0, [1, 2, 3], ["x", "y", "z"])
    assert df["action"].tolist() == [2, 1, 3] and df["p_best"].tolist() == [1.0, 0.0, 0.0]
    five = np.hstack([base + 1] * 5 + [base + rng.normal(0, 30, size=(400, 1))])
    df = summarize_rollouts(five, five, five * 0, list(range(6)), list("abcdef"))
    assert df["p_best"].tolist()[:5] == [df.iloc[0].p_best] * 5
    assert df["p_best"].sum() == pytest.approx(1.0)
    noisy = np.hstack([base, base + rng.normal(0, 10, size=(400, 1))])
    p = summarize_rollouts(noisy, noisy, noisy * 0, [1, 2], ["x", "y"])
    d = noisy[:, 1] - noisy[:, 0]
    z = abs(d.mean()) / (d.std(ddof=1) / math.sqrt(400))
    expected = 0.5 * (1 + math.erf(z / math.sqrt(2)))     # two candidates: Phi(z)
    assert p.iloc[0].p_best == pytest.approx(expected, abs=0.01)
    with pytest.raises(ValueError, match="rollouts: the statistics need at least 2 worlds"):
        summarize_rollouts(base[:1], base[:1], base[:1], [1], ["x"])


def test_a_game_is_analysed_and_not_changed():
    g = Game.new(seed=3, hand_index=1)
    for _ in range(9):
        g.apply(g.choose())
    cands = g.legal_actions()[:3]
    before = g.clone()
    df = sim.analyze(g, rollouts=50, seed=1, candidates=cands)
    assert g == before                         # every word of its buffer
    assert df.attrs["seat"] == g.current_seat and df.attrs["position"]["seat"] == g.current_seat
    assert sorted(df["action"]) == sorted(g.legal_actions()[:3])
    g.play()
    with pytest.raises(ValueError, match="game: the hand is over"):
        sim.analyze(g, rollouts=10)


@pytest.mark.parametrize("kw,needle", [
    ({"rollouts": 1}, "rollouts must be an integer in 2.."),
    ({"seed": -1}, "seed must be an integer"),
    ({"threads": 0}, "threads must be an integer in 1.."),
    ({"policy": "nope"}, "policy: unknown name 'nope'"),
    ({"objective": "matches"}, "objective must be one of hand, match"),
    ({"candidates": "discard 4♦"}, r"candidates: 'discard 4♦' \(discard 4♦\) is not legal here"),
    ({"candidates": "jump"}, "candidates: 'jump' names no action"),
    ({"candidates": "end;end"}, "candidates: 'end' is given twice"),
    ({"candidates": []}, "candidates: none given"),
])
def test_bad_arguments_name_the_parameter(kw, needle):
    with pytest.raises(ValueError, match=needle):
        sim.analyze(EXAMPLE, **{"rollouts": 10, **kw})


def test_the_viewer_must_be_the_seat_to_move():
    p = positions.load(EXAMPLE)
    p.update(to_move=0, dealer=0)
    with pytest.raises(ValueError, match="position: to_move: the analysis is of the viewer"):
        sim.analyze(p, rollouts=10)


def test_cli_text_and_json(tmp_path, capsys):
    argv = ["analyze", EXAMPLE, "--rollouts", "200", "--seed", "7", "--quiet",
            "--candidates", "end; meld K♣ K♣ K♥; lay off JK on meld 0"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"position ({EXAMPLE}): seat 3 to move, meld phase, turn 12, 4 players")
    assert out[1].startswith("200 sampled worlds x 3 candidates; rollout strategy expert; seed 7")
    head = out.index(next(line for line in out if line.startswith("  #  action")))
    rows = out[head + 1:out.index("", head)]
    assert [r.split()[0] for r in rows] == ["1", "2", "3"] and rows[0].split()[-2] == "best"
    assert out[-2].startswith("common random numbers: the paired differences have x")
    assert " rollouts/s, " in out[-1] and out[-1].startswith("600 rollouts in ")
    assert main(argv + ["--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["position"] == positions.load(EXAMPLE)
    assert doc["analysis"]["worlds"] == 200 and doc["analysis"]["policy"] == "expert"
    cands = doc["candidates"]
    assert [set(c) for c in cands] == [set(ANALYSIS_COLUMNS)] * 3
    means = [c["mean_result"] for c in cands]
    assert means == sorted(means, reverse=True)
    assert cands[0]["var_reduction"] is None and cands[0]["diff_best"] == 0
    df = sim.analyze(EXAMPLE, rollouts=200, seed=7, candidates=argv[-1])
    assert cands == to_document(df)["candidates"]
    assert [r[5:5 + len(t)] for r, t in zip(rows, df["text"])] == df["text"].tolist()


@pytest.mark.parametrize("argv,needle", [
    (["--rollouts", "1"], "burraco: error: --rollouts must be an integer in 2.."),
    (["--rollouts", "ten"], "argument --rollouts: expected a whole number"),
    (["--threads", "0"], "burraco: error: --threads must be an integer in 1.."),
    (["--policy", "nope"], "burraco: error: --policy: unknown name 'nope'"),
    (["--candidates", "discard 4♦"], "burraco: error: --candidates: 'discard 4♦'"),
    (["--format", "xml"], "argument --format: invalid choice"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, needle, capsys):
    try:
        code = main(["analyze", EXAMPLE, "--quiet", *argv])
    except SystemExit as exc:          # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and needle in err and err.count("\n") == 1


def test_cli_bad_position_file_is_one_line_exit_2(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "none.toml")]) == 2
    assert capsys.readouterr().err == (f"burraco: error: POSITION_FILE: "
                                       f"'{tmp_path / 'none.toml'}' does not exist\n")
    bad = tmp_path / "bad.toml"
    bad.write_text(positions.dump({**positions.load(EXAMPLE), "stock": 30}))
    assert main(["analyze", str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("burraco: error: POSITION_FILE: the counts do not add up to the 108-card "
                          "deck") and err.count("\n") == 1


def test_cli_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["analyze", "--help"])
    assert exc.value.code == 0
    assert "--candidates TEXT;TEXT" in capsys.readouterr().out
