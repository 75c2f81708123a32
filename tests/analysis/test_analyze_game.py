"""sim.analyze_decision / burraco analyze --hand --turn --decision, the match objective and
Python rollout strategies (sim.analysis_game, docs/analyze.md).

* the decision reached is the hand ``simulate`` played: played on from there with the
  strategy's choice it gives the run's record (hand and match runs, random strategies
  too); a match run's hand carries the totals before it; the table marks the choice;
* a turn past the end of the hand, a decision the turn does not have and every misused
  option are one-line errors;
* the match objective is the step API played on: the same worlds, the hand, then later
  hands dealt by ``Game.new`` from the world's stream, totals by R60 (R63 with 3
  players, the ``solo_18`` switch included); it does not depend on the thread count;
* a Python strategy that chooses as ``expert`` gives exactly the ``expert`` table (hand
  and match objectives).
"""
import json
import os

import numpy as np
import pandas as pd
import pytest
from test_analyze import CLOSE_3, EXAMPLE

import sim
from kernels.engine import actions as KA
from kernels.play import game as KG
from kernels.core import layout as L
from kernels.search import match_rollouts as KMR
from kernels.table import state as KS
from kernels.table import work as KW
from kernels.core.cards import CIDX, N_COUNT
from sim import Game
from sim.analysis.decision import decision_game
from sim.cli import main

DATA = "tests/data/positions"
SEED = 11
SPECS = ["heuristic", "random", "expert", "random"]


@pytest.fixture(scope="module")
def hand_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("analyze") / "run"
    df = sim.simulate(12, SEED, strategies=SPECS, out=out)
    return out, df


def _played_on(game):
    """The record of ``game`` played on from its decision with its own strategies."""
    g = game.clone()
    g.apply(g.choose())
    g.play()
    return g.result()


@pytest.mark.parametrize("hand,turn,decision", [(0, 1, "pickup"), (3, 9, "discard"),
                                                (5, 14, "meld"), (7, 6, "discard"),
                                                (11, 2, "meld")])
def test_the_decision_reached_is_the_simulated_hand(hand_run, hand, turn, decision):
    out, df = hand_run
    game, chosen, info = decision_game(hand, turn, decision, seed=SEED, strategies=SPECS)
    assert game.turn == turn and game.phase in {"pickup": ("pickup",), "meld": ("meld", "place"),
                                                "discard": ("discard",)}[decision]
    row = df.iloc[hand]
    rec = _played_on(game)
    assert all(rec[c] == row[c] for c in ("score_t0", "score_t1", "turns", "end_reason",
                                          "closing_seat", "meld_points_t0", "pile_left"))
    assert info == {"seed": SEED, "hand_index": hand, "turn": turn, "decision": decision,
                    "strategy": SPECS[game.current_seat], "run": None, "checked": False}
    a = game.clone().choose()                 # a random discard names its copy
    assert chosen == (KA.A_DISCARD + int(CIDX[a - KA.N_ACTIONS]) if a >= KA.N_ACTIONS else a)
    assert chosen in game.legal_actions()
    turns = [e for e in sim.replay(SEED, hand, strategies=SPECS)["events"] if e["turn"] == turn]
    assert {e["seat"] for e in turns} == {game.current_seat}      # the replay's turn numbers
    again, chosen2, info2 = decision_game(hand, turn, decision, run=out)
    assert again == game and chosen2 == chosen and info2["checked"] and info2["run"] == str(out)


def test_a_match_run_hand_carries_the_totals_before_it(tmp_path):
    out = tmp_path / "m"
    run = sim.simulate_matches(2, 4, out=out)
    hands = run.hands
    h = hands[(hands["match"] == 1) & (hands["hand_in_match"] == 2)].iloc[0]
    prev = hands[(hands["match"] == 1) & (hands["hand_in_match"] == 1)].iloc[0]
    game, _, info = decision_game(int(h["hand_index"]), 3, "pickup", run=out)
    assert game.match_totals == (int(prev["total_t0"]), int(prev["total_t1"]))
    assert int(game._g[KS.G_DEALER]) == int(h["dealer"]) and info["checked"]
    first, _, _ = decision_game(int(h["hand_index"]) - 2, 1, "pickup", run=out)
    assert first.match_totals == (0, 0)
    df = sim.analyze_decision(int(h["hand_index"]), 3, "pickup", run=out, rollouts=20,
                              objective="match")
    assert df.attrs["match_totals"] == list(game.match_totals) and df["chosen"].sum() == 1
    assert df["win_prob"].between(0, 1).all()


def test_analyze_decision_marks_the_choice(hand_run, capsys):
    out, _ = hand_run
    df = sim.analyze_decision(3, 9, "discard", run=out, rollouts=40, analysis_seed=2)
    assert df["chosen"].sum() == 1 and df.loc[df["chosen"], "action"].item() == df.attrs["chosen"]
    assert df.attrs["chosen_by"] == SPECS[df.attrs["seat"]] and df.attrs["checked"]
    plain = sim.analyze(decision_game(3, 9, "discard", run=out)[0], rollouts=40, seed=2)
    pd.testing.assert_frame_equal(df.drop(columns="chosen"), plain)
    text = sim.analysis.format_table(df).splitlines()
    marked = [r for r in text if r[3:4] == "*"]
    assert len(marked) == 1 and df.attrs["chosen_text"] in marked[0]
    assert any(r.startswith(f"*: the run's strategy ({df.attrs['chosen_by']}) chose "
                            f"{df.attrs['chosen_text']}") for r in text)
    none = sim.analyze_decision(3, 9, "discard", run=out, rollouts=10,
                                candidates=[a for a in df["action"] if a != df.attrs["chosen"]])
    assert not none["chosen"].any() and "(not among the candidates)" in \
        sim.analysis.format_table(none)


def test_cli_decision_text_and_json(hand_run, capsys):
    out, _ = hand_run
    argv = ["analyze", "--seed", str(SEED), "--hand", "5", "--turn", "14", "--decision", "meld",
            "--rollouts", "30", "--quiet", *[x for s in SPECS for x in ("--strategy", s)]]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"position (hand 5 of seed {SEED}): seat ")
    assert "*: the run's strategy" in text
    assert main(["analyze", str(out), "--hand", "5", "--turn", "14", "--decision", "meld",
                 "--rollouts", "30", "--quiet", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    d = doc["analysis"]["decision"]
    assert d["hand_index"] == 5 and d["turn"] == 14 and d["decision"] == "meld" and d["checked"]
    assert [c["chosen"] for c in doc["candidates"]].count(True) == 1
    assert next(c for c in doc["candidates"] if c["chosen"])["action"] == d["chosen"]


def test_cli_a_decision_on_its_true_cards_and_until_separated(capsys):
    """The statistics options reach a decision of a simulated hand: on its true hidden cards
    ``expert`` plays one deterministic hand per candidate (every world alike: se 0), on
    sampled worlds the results vary; the sequential rule stops within its cap."""
    base = ["analyze", "--seed", "1", "--hand", "12", "--turn", "10", "--decision", "discard",
            "--quiet", "--format", "json"]
    assert main([*base, "--rollouts", "20", "--worlds", "true"]) == 0
    true = json.loads(capsys.readouterr().out)
    assert true["analysis"]["worlds_kind"] == "true" and true["analysis"]["decision"]["turn"] == 10
    assert all(c["se"] == 0 for c in true["candidates"])
    assert main([*base, "--rollouts", "20"]) == 0
    sampled = json.loads(capsys.readouterr().out)
    assert sampled["analysis"]["worlds_kind"] == "sampled"
    assert any(c["se"] > 0 for c in sampled["candidates"])
    assert main([*base, "--until-separated", "--batch", "50", "--max-rollouts", "200",
                 "--candidates", f"{true['candidates'][0]['text']};"
                                 f"{true['candidates'][-1]['text']}"]) == 0
    seq = json.loads(capsys.readouterr().out)["analysis"]
    assert seq["until_separated"] and seq["worlds"] <= 200 and seq["worlds"] % 50 == 0


def test_a_turn_past_the_end_and_a_missing_decision():
    rec = sim.simulate(1, SEED, strategies=SPECS).iloc[0]
    with pytest.raises(ValueError, match=rf"turn: hand 0 has turns 1..{rec.turns} \(it ended by "
                                         rf"{rec.end_reason} in turn {rec.turns}\), not turn"):
        decision_game(0, int(rec.turns) + 1, "pickup", seed=SEED, strategies=SPECS)
    rules = sim.Rules(stock_end_mode="immediate")       # R50: the draw to the reserve ends it
    df = sim.simulate(30, 2, rules=rules, strategies="random")
    i = int(np.flatnonzero(df["end_reason"].astype(str) == "stock_exhausted")[0])
    last = int(df.iloc[i].turns)
    decision_game(i, last, "pickup", seed=2, rules=rules, strategies="random")
    with pytest.raises(ValueError, match=rf"decision: turn {last} of hand {i} has no meld decision "
                                         r"\(its decisions: pickup; the hand ended by "
                                         r"stock_exhausted in it\)"):
        decision_game(i, last, "meld", seed=2, rules=rules, strategies="random")
    with pytest.raises(ValueError, match="decision must be one of pickup, meld, discard"):
        decision_game(0, 1, "close", seed=SEED)
    with pytest.raises(ValueError, match="seed: give the run's seed"):
        decision_game(0, 1, "pickup")


@pytest.mark.parametrize("argv,needle", [
    (["--seed", "1", "--hand", "0", "--turn", "999", "--decision", "pickup"],
     "burraco: error: --turn: hand 0 has turns 1.."),
    (["--seed", "1", "--hand", "0", "--decision", "pickup"], "burraco: error: --turn: give it"),
    (["--hand", "0", "--turn", "1", "--decision", "pickup"],
     "burraco: error: --hand needs a run directory or --seed: burraco analyze DIR --hand I"),
    ([EXAMPLE, "--turn", "3"], "burraco: error: --turn applies to a decision of a simulated"),
    ([EXAMPLE, "--strategy", "random"], "burraco: error: --strategy applies to a decision"),
    ([], "burraco: error: POSITION_FILE: give a position file, or --hand I"),
    ([EXAMPLE, "--hand", "0", "--turn", "1", "--decision", "pickup"],
     f"burraco: error: --hand: {EXAMPLE!r} is a file; --hand I analyzes a decision of a "
     "simulated hand, of the run in a directory"),
    (["--seed", "1", "--hand", "0", "--turn", "1", "--decision", "pickup",
      "--analysis-seed", "-1"], "burraco: error: --analysis-seed must be an integer"),
    ([f"{DATA}/last_turn_discard_4p.toml", "--objective", "match"],
     "burraco: error: --objective: 'match' needs the match totals"),
    (["--seed", "1", "--hand", "0", "--turn", "1", "--decision", "pickup", "--objective",
      "match"], "burraco: error: --objective: 'match' needs the match totals"),
    ([f"{DATA}/match_close_wins_4p.toml", "--objective", "match", "--until-separated"],
     "burraco: error: --objective: 'match' takes a fixed number of rollouts on sampled worlds"),
    (["--seed", "1", "--hand", "0", "--turn", "1", "--decision", "pickup", "--worlds", "true",
      "--policy", "docs/examples/pile_taker.py:PileTaker"],
     "burraco: error: --worlds: 'true' (the true hidden cards) rolls out with a built-in"),
])
def test_cli_decision_errors_are_one_line(argv, needle, capsys):
    assert main(["analyze", "--rollouts", "10", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(needle) and err.count("\n") == 1


def test_cli_every_combination_of_the_arguments_names_its_problem(hand_run, tmp_path, capsys):
    """The positional argument (a position file, a directory, a run directory, nothing or a
    missing path) with and without --hand, --turn, --decision and --seed: each refusal names
    the argument at fault and what analyze takes; nothing is analyzed."""
    run, _ = hand_run
    empty, missing = tmp_path / "empty", str(tmp_path / "missing")
    empty.mkdir()
    decision = ["--turn", "1", "--decision", "pickup"]
    is_dir = "is a directory; analyze takes a position file (burraco analyze POSITION_FILE), " \
             "or a decision of the run in a directory: burraco analyze "
    is_file = "is a file; --hand I analyzes a decision of a simulated hand"
    needs = "--hand needs a run directory or --seed: burraco analyze DIR --hand I"
    cases = [
        ([str(empty)], f"DIR: {str(empty)!r} {is_dir}{empty} --hand I --turn T --decision D"),
        ([str(run)], f"DIR: {str(run)!r} {is_dir}{run} --hand I"),
        ([str(run), "--turn", "1"], f"DIR: {str(run)!r} {is_dir}"),
        ([missing], f"POSITION_FILE: {missing!r} does not exist"),
        ([EXAMPLE, "--hand", "3"], f"--hand: {EXAMPLE!r} {is_file}"),
        ([EXAMPLE, "--hand", "3", *decision], f"--hand: {EXAMPLE!r} {is_file}"),
        ([EXAMPLE, "--turn", "3"], "--turn applies to a decision of a simulated hand"),
        ([EXAMPLE, "--decision", "meld"], "--decision applies to a decision of a simulated"),
        (["--hand", "3"], needs),
        (["--hand", "3", *decision], needs),
        (["--turn", "3"], "--turn applies to a decision of a simulated hand (--hand I"),
        ([missing, "--hand", "3"], f"DIR: {missing!r} does not exist"),
        ([str(empty), "--hand", "3", *decision],
         f"DIR: {str(empty)!r} holds no _manifest.json"),
        ([str(run), "--hand", "3"], "--turn: give it with --hand"),
        ([str(run), "--hand", "3", "--turn", "1"], "--decision: give it with --hand"),
        ([str(run), "--hand", "3", *decision, "--seed", "4"],
         "--seed is taken from the run in DIR; leave it out (the sampled worlds' seed is "
         "--analysis-seed)"),
        ([str(run), "--hand", "3", *decision, "--rules", "fibur_italian"],
         "--rules is taken from the run in DIR"),
        ([str(run), "--hand", "3", *decision, "--strategy", "expert"],
         f"--strategy is taken from the run in {str(run)!r}; leave it out (with a run, "
         "--strategy only says where a Python strategy file of the run is now, and this run "
         "has none)"),
        ([str(run), "--hand", "12", *decision], f"--hand: the run in {str(run)!r} has hands "
                                                "0..11, not hand 12"),
        (["--seed", "1", "--hand", "3"], "--turn: give it with --hand"),
    ]
    for argv, needle in cases:
        assert main(["analyze", "--rollouts", "10", "--quiet", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"burraco: error: {needle}") and err.count("\n") == 1, (argv, err)
    assert sorted(p.name for p in empty.iterdir()) == []


def test_cli_a_run_directory_fixes_the_settings(hand_run, capsys):
    out, _ = hand_run
    assert main(["analyze", str(out), "--hand", "0", "--turn", "1", "--decision", "pickup",
                 "--seed", "3", "--quiet"]) == 2
    assert capsys.readouterr().err == ("burraco: error: --seed is taken from the run in DIR; "
                                       "leave it out (the sampled worlds' seed is "
                                       "--analysis-seed)\n")


# ---------------------------------------------------------------- the match objective
def _outcome(totals, target, own):
    top = max(totals)
    if top < target or totals.count(top) != 1:
        return -1
    return int(totals[own] == top)


def _step_match(game, action, seed, w, policy):
    """(win, later hands) of world ``w`` by the step API: sample_world, apply, play, then
    later hands from Game.new as kernels.search.match_rollouts deals them (R60, R63)."""
    r = game.rules
    n, seat = r.num_players, game.current_seat
    sides = 3 if n == 3 else 2
    own = seat if n == 3 else game.team_of(seat)
    target = r.three_player_target if n == 3 else r.target_score
    world = game.sample_world(seat, seed, w)
    world.apply(action)
    world.play(policy)
    totals = [t + world.result()[f"score_t{s}"] for s, t in enumerate(game.match_totals)]
    solo18 = n == 3 and r.three_player_mode == "solo_18"
    individual = not solo18
    dealer = int(game._g[KS.G_DEALER])
    h = 0
    while _outcome(totals, target, own) < 0:
        h += 1
        if solo18 and not individual:
            individual = max(totals) >= r.three_player_switch_at      # R63
        rules = r.replace(three_player_mode="individual_3x11") if solo18 and individual else r
        later = Game.new(seed ^ int(KMR.LATER_SALT), w * KMR.LATER_STRIDE + h, rules=rules,
                         dealer=(dealer + h) % n, strategies=policy).play().result()
        totals = [t + later[f"score_t{s}"] for s, t in enumerate(totals)]
    return _outcome(totals, target, own), h, sides


def _solo18_game():
    """A 3-player solo_18 hand at a decision, with totals the next hands switch at (R63)."""
    g = Game.new(5, 2, rules=sim.Rules(num_players=3), strategies="expert")
    for _ in range(12):
        g.apply(g.choose())
    g.match_totals = (930, 960, 990)
    return g


@pytest.mark.parametrize("source,policy", [("match_close_wins_4p", "expert"),
                                           ("solo18", "heuristic")])
def test_the_match_objective_is_the_step_api_played_on(source, policy):
    game = _solo18_game() if source == "solo18" else \
        Game.from_position(f"{DATA}/{source}.toml", seed=3)
    acts = game.legal_actions()[:3]
    m = sim.analysis.rollout_matrix(game, acts, 6, seed=3, policy=policy, objective="match",
                                    first=2)
    hand = sim.analysis.rollout_matrix(game, acts, 6, seed=3, policy=policy, first=2)
    for k in ("result", "own", "closed"):
        assert np.array_equal(m[k], hand[k])
    assert not m["error"].any()
    for i in range(6):
        for j, a in enumerate(acts):
            win, later, _ = _step_match(game, a, 3, 2 + i, policy)
            assert (m["win"][i, j], m["later"][i, j]) == (win, later)
    assert m["later"].max() >= 1


def test_the_match_table_does_not_depend_on_threads():
    one = sim.analyze(EXAMPLE, rollouts=40, seed=6, objective="match", threads=1,
                      candidates="meld K♣ K♣ K♥; end; lay off JK on meld 0")
    two = sim.analyze(EXAMPLE, rollouts=40, seed=6, objective="match", threads=2, progress=True,
                      candidates="meld K♣ K♣ K♥; end; lay off JK on meld 0")
    pd.testing.assert_frame_equal(one, two)
    assert list(one.columns[-9:]) == list(sim.analysis.match_rollouts.MATCH_COLUMNS)
    assert one["win_prob"].is_monotonic_decreasing
    assert one.attrs["match_totals"] == [1240, 985] and one.attrs["target"] == 2005
    doc = sim.analysis.to_document(one)
    assert doc["analysis"]["objective"] == "match" and doc["analysis"]["target"] == 2005
    text = sim.analysis.format_table(one)
    assert "; match totals 1240, 985 (target 2005)" in text.splitlines()[0]
    assert "objective: match" in text.splitlines()[1] and "P(win)" in text
    m = sim.analysis.rollout_matrix(Game.from_position(EXAMPLE, seed=6), one["action"], 40,
                                    seed=6, objective="match")
    win = (m["win"] == 1).astype(float)
    d = win[:, 1:] - win[:, [0]]
    expected = (win[:, 1:].var(axis=0, ddof=1) + win[:, 0].var(ddof=1)).sum() / \
        d.var(axis=0, ddof=1).sum()
    assert one.attrs["win_var_reduction"] == pytest.approx(expected)
    assert doc["analysis"]["win_var_reduction"] == pytest.approx(expected)
    assert f"P(win): the paired differences have x{expected:.2f} less variance" in text


# ---------------------------------------------------------------- Python rollout strategies
EXPERT = sim.strategies.get("expert").vector()


@pytest.fixture
def copies_expert(monkeypatch):
    """A Python strategy that returns the built-in expert's choice: the kernel chooser on a
    copy of the buffer of the game whose observation it was given."""
    current = []
    observation = Game.observation

    def spy(self, seat):
        current[:] = [self]
        return observation(self, seat)

    monkeypatch.setattr(Game, "observation", spy)

    class CopiesExpert:
        def choose(self, obs, legal_actions):
            w = current[0]._work.copy()
            s = obs.seat
            w[KW.W_KINDS + s] = L.POLICY_HEURISTIC
            w[KW.W_PARAMS + L.N_PARAMS * s:KW.W_PARAMS + L.N_PARAMS * (s + 1)] = \
                EXPERT.view(np.int64)
            a = int(KG.choose(w))
            if a == KA.A_CREATE_SEL:
                a = int(KA.create_action(w[KW.W_SEL:KW.W_SEL + N_COUNT]))
            assert a in legal_actions
            return a
    return CopiesExpert


@pytest.mark.parametrize("position,objective,candidates", [
    (EXAMPLE, "hand", "meld K♣ K♣ K♥; end; lay off JK on meld 0"),
    ({**CLOSE_3, "match": {"totals": [1500, 1800, 1990]}}, "match", None),
])
def test_a_python_strategy_that_chooses_as_expert_gives_the_expert_table(
        copies_expert, position, objective, candidates, capsys):
    py = sim.analyze(position, rollouts=16, seed=3, policy=copies_expert, objective=objective,
                     candidates=candidates, progress=True)
    assert "analyze" in capsys.readouterr().err             # the progress bar
    built_in = sim.analyze(position, rollouts=16, seed=3, policy="expert", objective=objective,
                           candidates=candidates)
    pd.testing.assert_frame_equal(py, built_in)
    assert py.attrs["threads"] == 1 and py.attrs["policy"].endswith("CopiesExpert")


def test_a_python_strategy_file_as_rollout_policy(capsys):
    spec = "docs/examples/pile_taker.py:PileTaker"
    assert main(["analyze", f"{DATA}/next_opponent_closes_4p.toml", "--policy", spec,
                 "--rollouts", "12", "--quiet", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    named = f"{os.path.realpath('docs/examples/pile_taker.py')}:PileTaker"   # where it is
    assert doc["analysis"]["policy"] == named and len(doc["candidates"]) == 3
    assert all(c["rollouts"] == 12 for c in doc["candidates"])
    mixed = sim.analyze(f"{DATA}/next_opponent_closes_4p.toml", rollouts=12, seed=1,
                        policy={"all": "expert", "seat1": spec})
    assert mixed.attrs["policy"] == ["expert", named, "expert", "expert"]
