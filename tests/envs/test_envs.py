"""The reinforcement-learning environments (docs/rl.md): PettingZoo
``sim.envs.burraco_v0``, Gymnasium ``Burraco-v0`` and OpenSpiel ``python_burraco``.

* each library's own conformance test: ``pettingzoo.test.api_test`` (1,000 cycles)
  and ``seed_test``, ``gymnasium.utils.env_checker.check_env``,
  ``pyspiel.random_sim_test`` with serialisation; OpenSpiel's ``MCTSBot`` and
  ``ISMCTSBot`` play moves;
* the seed reaches the deal; the mask is the engine's legal actions and the
  independent referee's; a seat's observation does not change when the cards it
  cannot see are dealt again (and a peek would); rewards against the record;
* random masked play for 200 hands through the wrappers: every replay document
  passes the referee; the docs' training loop and the ISMCTS example run.

The rl packages are an optional extra: without one, its tests skip, except when
the environment variable CI is set (then they fail).
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import referee as R
import sim
from kernels.engine import actions as KA
from kernels.table import state as KS
from sim.play.game import N_ACTIONS, TENSOR_SIZE, Game

ROOT = Path(__file__).resolve().parents[2]
SPACE = R.ActionSpace(draw=KA.A_DRAW, take=KA.A_TAKE, end_meld=KA.A_END_MELD,
                      discard=KA.A_DISCARD, lay_off=KA.A_LAYOFF, create=KA.A_CREATE,
                      faces=53, max_melds=KS.MMAX,
                      meld_rows=tuple(map(tuple, KA.MELD_CNT.tolist())))


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def need(module: str):
    """The module, or a skip naming it (a failure when CI is set)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        why = f"{module} is not installed ({exc}); pip install -e '.[rl]'"
        if _ci():
            pytest.fail(why + "; CI is set, so a missing rl package is a failure")
        pytest.skip(why)


@pytest.fixture(scope="module")
def pz():
    need("pettingzoo")
    need("gymnasium")
    from sim.envs import burraco_v0
    return burraco_v0


@pytest.fixture(scope="module")
def gym():
    gymnasium = need("gymnasium")
    import sim.envs
    return gymnasium, sim.envs.BurracoGymEnv


@pytest.fixture(scope="module")
def spiel():
    pyspiel = need("pyspiel")
    need("open_spiel.python.algorithms.ismcts")
    import sim.envs.openspiel_game as og
    return pyspiel, og


def assert_referee_clean(g: Game, what: str) -> None:
    doc = json.loads(json.dumps(g.replay_document(), ensure_ascii=False))
    v = R.check(doc)
    assert not v, f"{what}: " + "\n".join(map(str, v))


def masked(rng, mask) -> int:
    legal = np.flatnonzero(mask.view(bool))
    return int(legal[rng.integers(len(legal))])


# ------------------------------------------------------------------ conformance
@pytest.mark.parametrize("options", [{}, {"rules": {"num_players": 2}},
                                     {"rules": {"num_players": 3}, "opponents": {1: "expert"}},
                                     {"opponents": ["expert", None, "heuristic", None],
                                      "reward": "win"}],
                         ids=["4p", "2p", "3p-one-engine-seat", "4p-two-engine-seats-win"])
def test_pettingzoo_api_test(pz, options):
    from pettingzoo.test import api_test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # the api test's advice on Dict observations
        api_test(pz.env(**options), num_cycles=1000)


def test_pettingzoo_seed_test(pz):
    from pettingzoo.test import seed_test
    seed_test(pz.env, num_cycles=1000)
    seed_test(lambda: pz.env(rules={"num_players": 3}), num_cycles=300)


def test_gymnasium_check_env(gym):
    gymnasium, Env = gym
    from gymnasium.utils.env_checker import check_env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make("Burraco-v0").unwrapped)
        check_env(Env(rules={"num_players": 2}, opponents="heuristic", render_mode="ansi"))
        check_env(Env(seat=2, rules={"num_players": 3}, illegal_action="random"))


def test_openspiel_random_sim_test(spiel):
    pyspiel, _ = spiel
    pyspiel.random_sim_test(pyspiel.load_game("python_burraco", {"players": 2}),
                            num_sims=2, serialize=True, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game("python_burraco", {"players": 4, "deals": 5}),
                            num_sims=1, serialize=False, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game("python_burraco",
                                              {"players": 3, "reward": "win"}),
                            num_sims=1, serialize=False, verbose=False)


def test_openspiel_mcts_and_ismcts_play(spiel):
    pyspiel, og = spiel
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game("python_burraco", {"players": 2})
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    state.apply_action(4)
    bots = [mcts.MCTSBot(game, 2.0, 6, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
            ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 6,
                             random_state=rng),
            ismcts.ISMCTSBot(game, og.PlayoutEvaluator(), 2.0, 20, random_state=rng)]
    played = 0
    for bot in bots:
        for _ in range(4):
            legal = state.legal_actions()
            a = bot.step(state)
            assert a in legal, (type(bot).__name__, a)
            state.apply_action(a)
            played += 1
    assert played == 12 and not state.is_terminal()
    # a game played out by ISMCTS with playouts ends with zero-sum returns
    bot = bots[2]
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    r = state.returns()
    assert len(r) == 2 and r[0] == -r[1]
    scores = sim.envs.seat_scores(state.game)
    assert r[0] == pytest.approx((scores[0] - scores[1]) / 1000)


# ------------------------------------------------------------------ seeds and the deal
def _deal_view(g: Game) -> list:
    return [g.observation(s).hand for s in range(g.rules.num_players)] + [
        g.observation(0).pile, g.phase, g.current_seat]


def test_the_seed_reaches_the_deal(pz, gym, spiel):
    env = pz.raw_env()
    env.reset(seed=123)
    assert _deal_view(env.game) == _deal_view(Game.new(123, 0))
    env.reset()
    assert _deal_view(env.game) == _deal_view(Game.new(123, 1))
    env.reset(seed=123, options={"hand_index": 9})
    assert _deal_view(env.game) == _deal_view(Game.new(123, 9))
    env.reset(seed=124)
    assert _deal_view(env.game) != _deal_view(Game.new(123, 0))
    # two environments given the same seed deal the same hands and give the same observations
    a, b = pz.raw_env(rules={"num_players": 2}), pz.raw_env(rules={"num_players": 2})
    a.reset(seed=5)
    b.reset(seed=5)
    obs_a, obs_b = a.observe(a.agent_selection), b.observe(b.agent_selection)
    assert np.array_equal(obs_a["observation"], obs_b["observation"])
    # Gymnasium: the seed is the deal too
    _, Env = gym
    e = Env()
    obs, info = e.reset(seed=77)
    g = Game.new(77, 0, strategies=["uniform", "expert", "expert", "expert"])
    while g.current_seat != 0:
        g.apply(g.choose())
    assert np.array_equal(obs, g.observation_tensor(0))
    assert np.flatnonzero(info["action_mask"]).tolist() == g.legal_actions()
    # OpenSpiel: chance outcome k is hand k of deal_seed
    pyspiel, _ = spiel
    state = pyspiel.load_game("python_burraco", {"deal_seed": 31}).new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 1000
    state.apply_action(6)
    assert _deal_view(state.game) == _deal_view(Game.new(31, 6))


def test_gym_opponents_play_the_named_strategy(gym):
    """The other seats of the Gymnasium env play exactly what sim.Game plays for them:
    replaying the learner's actions in a Game dealt with expert at those seats gives the
    same hand, record for record."""
    _, Env = gym
    rng = np.random.default_rng(2)
    for hand in range(3):
        env = Env(seat=1)
        obs, info = env.reset(seed=40, options={"hand_index": hand})
        mine = []
        done = False
        while not done:
            a = masked(rng, info["action_mask"])
            mine.append(a)
            obs, reward, done, _, info = env.step(a)
        g = Game.new(40, hand, strategies=["expert", "uniform", "expert", "expert"])
        it = iter(mine)
        while not g.is_over:
            g.apply(next(it) if g.current_seat == 1 else g.choose())
        assert next(it, None) is None
        want, got = g.result(), env.game.result()
        assert {k: v for k, v in got.items() if not k.startswith("strategy")} == \
            {k: v for k, v in want.items() if not k.startswith("strategy")}
        assert got["strategy_s1"] == "agent" and got["strategy_s0"] == "expert"
        assert info["score"] == sim.envs.seat_scores(g)[1]


# ------------------------------------------------------------------ masks
def test_the_mask_is_the_engines_and_the_referees_legal_actions(pz, spiel):
    env = pz.raw_env(rules={"num_players": 3})
    rng = np.random.default_rng(8)
    checked = phases = 0
    seen = set()
    for hand in range(6):
        env.reset(seed=60 + hand)
        step = 0
        while env.agents and not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            g = env.game
            mask = env.observe(agent)["action_mask"]
            ids = np.flatnonzero(mask).tolist()
            assert ids == g.legal_actions()
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            if step % 9 == 0 and g.open_lay_off is None:
                ref = R.legal_actions(g.history_document(), g.phase, g.current_seat, SPACE)
                assert set(ids) == ref, f"hand {hand} step {step}"
                checked += 1
                seen.add(g.phase)
            env.step(masked(rng, mask))
            step += 1
    assert checked > 60 and {"pickup", "meld", "discard"} <= seen
    # OpenSpiel: legal_actions_mask is the same mask
    pyspiel, _ = spiel
    state = pyspiel.load_game("python_burraco").new_initial_state()
    state.apply_action(2)
    for _ in range(30):
        m = np.asarray(state.legal_actions_mask())
        assert m.shape == (N_ACTIONS,)
        assert np.flatnonzero(m).tolist() == state.game.legal_actions()
        state.apply_action(state.legal_actions()[-1])


# ------------------------------------------------------------------ hidden cards
def _mid_hand(env, rng, steps: int):
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        env.step(masked(rng, env.observe(agent)["action_mask"]))


def test_observations_do_not_change_when_unseen_cards_are_dealt_again(pz, gym, spiel):
    rng = np.random.default_rng(4)
    changed = 0
    for rules in ({}, {"num_players": 2}, {"num_players": 3}):
        env = pz.raw_env(rules=rules)
        other = pz.raw_env(rules=rules)
        for hand in range(4):
            env.reset(seed=90, options={"hand_index": hand})
            _mid_hand(env, rng, 40 + 25 * hand)
            if not env.agents or env.terminations[env.agent_selection]:
                continue
            for k, agent in enumerate(env.agents):
                seat = int(agent.split("_")[1])
                world = env.game.sample_world(seat, seed=1000 + k)
                other.reset(seed=1)
                other.game = world            # the same decision, the unseen cards dealt again
                a, b = env.observe(agent), other.observe(agent)
                assert np.array_equal(a["observation"], b["observation"])
                assert np.array_equal(a["action_mask"], b["action_mask"])
                # what the seat cannot see did change: a peek would notice
                nxt = (seat + 1) % env.game.rules.num_players
                changed += not np.array_equal(env.game.state.hcnt[nxt], world.state.hcnt[nxt])
    assert changed > 10
    # OpenSpiel: a resampled state keeps the player's information state, tensors included
    pyspiel, _ = spiel
    game = pyspiel.load_game("python_burraco", {"players": 4})
    state = game.new_initial_state()
    state.apply_action(11)
    srng = np.random.RandomState(0)
    moved = 0
    for step in range(120):
        p = state.current_player()
        if step % 10 == 5:
            w = state.resample_from_infostate(p, srng.uniform)
            assert w.information_state_string(p) == state.information_state_string(p)
            assert w.information_state_tensor(p) == state.information_state_tensor(p)
            assert w.observation_tensor(p) == state.observation_tensor(p)
            assert w.observation_string(p) == state.observation_string(p)
            assert w.legal_actions() == state.legal_actions()
            nxt = (p + 1) % 4
            moved += w.game.observation(nxt).hand != state.game.observation(nxt).hand
        state.apply_action(state.legal_actions()[srng.randint(len(state.legal_actions()))])
    assert moved >= 10


# ------------------------------------------------------------------ rewards
def test_rewards_are_the_hand_score_differences(pz):
    env = pz.raw_env()
    rng = np.random.default_rng(6)
    for hand in range(4):
        env.reset(seed=12, options={"hand_index": hand})
        got = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                got[agent] = reward
                env.step(None)
                continue
            env.step(masked(rng, obs["action_mask"]))
        row = env.game.result()
        d = (row["score_t0"] - row["score_t1"]) / 1000
        assert got == {"player_0": d, "player_1": -d, "player_2": d, "player_3": -d}
    # win, three players: the seat credited most against its opponents
    env = pz.raw_env(rules={"num_players": 3}, reward="win")
    for hand in range(6):
        env.reset(seed=13, options={"hand_index": hand})
        while not env.terminations[env.agent_selection]:
            env.step(masked(rng, env.observe(env.agent_selection)["action_mask"]))
        scores = sim.envs.seat_scores(env.game)
        g = env.game
        for s in range(3):
            opp = [scores[o] for o in range(3) if g.team_of(o) != g.team_of(s)]
            want = np.sign(scores[s] - max(opp))
            assert env.rewards[f"player_{s}"] == want
        assert sim.envs.hand_rewards(g, "score") == pytest.approx(
            [(scores[s] - (sum(scores) - scores[s]) / 2) / 1000 for s in range(3)])


# ------------------------------------------------------------------ random masked play
def random_masked_hands(burraco_v0, Env, pyspiel, scale: int = 1) -> int:
    """``200 * scale`` hands of random masked actions through the three wrappers (2, 3
    and 4 players, engine seats too), each hand's replay document checked by the
    referee; returns the hand count.  ``scale=10`` is the 2,000-hand run by hand::

        PYTHONPATH=.:tests python -c "import test_envs as t, pyspiel, sim.envs.openspiel_game
        from sim.envs import burraco_v0, BurracoGymEnv
        print(t.random_masked_hands(burraco_v0, BurracoGymEnv, pyspiel, scale=10))"
    """
    rng = np.random.default_rng(17)
    hands = 0
    for rules, opponents, n in (({}, None, 80), ({"num_players": 2}, None, 40),
                                ({"num_players": 3}, None, 30),
                                ({}, {1: "expert", 3: "random"}, 20)):
        env = burraco_v0.env(rules=rules, opponents=opponents)
        env.reset(seed=2024)
        for hand in range(n * scale):
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                env.step(None if term or trunc else
                         env.action_space(agent).sample(obs["action_mask"]))
            g = env.unwrapped.game
            assert g.is_over and g.hand_index == hand
            assert_referee_clean(g, f"pettingzoo {rules} {opponents} hand {hand}")
            hands += 1
            env.reset()
    env = Env(rules={"num_players": 2})
    for hand in range(15 * scale):
        obs, info = env.reset(seed=2025, options={"hand_index": hand})
        done = False
        while not done:
            obs, reward, done, _, info = env.step(masked(rng, info["action_mask"]))
        assert_referee_clean(env.game, f"gymnasium hand {hand}")
        hands += 1
    game = pyspiel.load_game("python_burraco", {"players": 4, "deal_seed": 2026,
                                                "deals": 15 * scale})
    for hand in range(15 * scale):
        state = game.new_initial_state()
        state.apply_action(hand)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        assert_referee_clean(state.game, f"openspiel hand {hand}")
        hands += 1
    return hands


def test_random_masked_play_passes_the_referee(pz, gym, spiel):
    """200 hands of random masked actions through the three wrappers: each hand's replay
    document passes the referee."""
    assert random_masked_hands(pz, gym[1], spiel[0]) == 200


# ------------------------------------------------------------------ the rest of the API
def test_render_and_bad_options(pz, gym):
    env = pz.raw_env(render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    g = env.game
    for s in range(4):
        assert " ".join(g.observation(s).hand) in text
    assert f"seat {g.current_seat} to move (pickup)" in text and "stock" in text
    a = env.agent_selection
    env.step(KA.A_DRAW)
    assert f"last: seat {int(a[-1])}: draw from the stock" in env.render()
    assert env.game.phase == "meld" and env.agent_selection == a
    before = env.game.to_json()
    with pytest.raises(ValueError, match=r"action 1 \(take the pile .*\) is illegal"):
        env.step(KA.A_TAKE)
    assert env.game.to_json() == before
    # env(): an illegal action ends the hand with -1 for its player, 0 for the others
    env = pz.env()
    env.reset(seed=3)
    offender = env.agent_selection
    env.step(KA.A_END_MELD)                   # at the pickup
    assert all(env.terminations.values()) and not env.unwrapped.game.is_over
    assert env.infos[offender] == {"illegal_action": True}
    got = {}
    for agent in env.agent_iter():
        got[agent] = env.last()[1]
        assert not env.last()[0]["action_mask"].any()
        env.step(None)
    assert got == {a: (-1.0 if a == offender else 0) for a in env.possible_agents}
    assert env.agents == []
    with pytest.raises(ValueError, match="call reset"):
        pz.env().step(0)
    env.reset(seed=3)
    with pytest.raises(ValueError, match="not an action id"):
        env.step(N_ACTIONS)
    for bad, match in (({"reward": "points"}, "reward"), ({"render_mode": "human"}, "render_mode"),
                       ({"illegal_action": "ignore"}, "illegal_action"),
                       ({"opponents": {7: "expert"}}, "opponents seat"),
                       ({"opponents": ["expert"] * 4}, "at least one seat"),
                       ({"opponents": {0: "nobody"}}, "nobody"),
                       ({"rules": {"num_players": 5}}, "num_players")):
        with pytest.raises(ValueError, match=match) as exc:
            pz.raw_env(**bad).reset(seed=1)
        assert "\n" not in str(exc.value)
    _, Env = gym
    e = Env(illegal_action="terminate")
    obs, info = e.reset(seed=1)
    obs, reward, done, _, info = e.step(N_ACTIONS - 1)
    assert done and reward == -1.0 and info["illegal_action"]
    with pytest.raises(ValueError, match="call reset"):
        e.step(0)
    e = Env(illegal_action="raise")
    e.reset(seed=1)
    with pytest.raises(ValueError, match="is illegal"):
        e.step(KA.A_END_MELD)
    with pytest.raises(ValueError, match="illegal_action"):
        Env(illegal_action="ignore")


#: (what is given as an action, the exception every entry point raises): not an integer,
#: or an integer outside the action space (16308 is the first id past it)
NOT_ACTION_IDS = [("take", TypeError), (1.5, TypeError), (1.0, TypeError), (0.0, TypeError),
                  (np.float64(0.0), TypeError), (True, TypeError), (False, TypeError),
                  (np.bool_(True), TypeError), (None, TypeError), (np.array([0]), TypeError),
                  (np.array(0.0), TypeError), (-1, ValueError), (N_ACTIONS + 200, ValueError),
                  (2**70, ValueError)]


def _entry_points(pz, gym, spiel):
    """A fresh decision at the pickup of each entry point: ``(name, step, state)``, where
    ``step(a)`` plays ``a`` and ``state()`` tells whether anything changed."""
    pyspiel, _ = spiel
    game = Game.new(seed=1, hand_index=0, rules={"num_players": 2})
    raw = pz.raw_env(rules={"num_players": 2})
    raw.reset(seed=1)
    aec = pz.env(rules={"num_players": 2})
    aec.reset(seed=1)
    env = gym[1](opponents="expert", rules={"num_players": 2})
    env.reset(seed=1)
    state = pyspiel.load_game("python_burraco", {"players": 2}).new_initial_state()
    state.apply_action(0)
    return [("Game.apply", game.apply, game.to_json),
            ("Game.action_text", game.action_text, game.to_json),
            ("action_kind", sim.game.action_kind, game.to_json),
            ("PettingZoo raw_env", raw.step, raw.game.to_json),
            ("PettingZoo env", aec.step, lambda: (aec.game.to_json(), aec.terminations)),
            ("Gymnasium", env.step, lambda: (env.game.to_json(), env._done)),
            ("OpenSpiel", state.apply_action, state.serialize)]


@pytest.mark.parametrize("bad,exc", NOT_ACTION_IDS, ids=[repr(b) for b, _ in NOT_ACTION_IDS])
def test_every_entry_point_refuses_what_is_not_an_action_id(pz, gym, spiel, bad, exc):
    """A wrong type (a bool, a float even with an integral value) is a TypeError, an integer
    outside the space a ValueError, at every entry point alike: never a move."""
    for name, step, state in _entry_points(pz, gym, spiel):
        before = state()
        if bad is None and name.startswith("PettingZoo"):     # None is the dead step's action
            with pytest.raises(ValueError, match="None is only for a terminated agent"):
                step(bad)
            continue
        with pytest.raises(exc, match=r"is not an action id: (expected an integer, got .*; )?"
                                      r"ids are 0\.\.16307") as e:
            step(bad)
        assert "\n" not in str(e.value) and repr(bad)[:6] in str(e.value), name
        assert state() == before, f"{name}: {bad!r} changed the game"


def test_every_entry_point_takes_integer_ids_of_any_kind(pz, gym, spiel):
    """int, numpy integers and 0-d integer arrays are the same id everywhere."""
    for a in (0, np.int64(0), np.int32(0), np.uint8(0), np.array(0)):
        for name, step, state in _entry_points(pz, gym, spiel):
            before = state()
            out = step(a)
            if name == "Game.action_text":
                assert out == "draw from the stock"
            elif name == "action_kind":
                assert out == "draw"
            else:
                assert state() != before, f"{name}: {a!r} was not played"


def test_an_illegal_id_of_the_space_is_a_move_and_the_end_is_said(pz, gym, spiel):
    """Only an in-range id that is illegal here is an illegal move (the documented
    penalty); after the end every entry point says the hand is over."""
    pyspiel, _ = spiel
    env = gym[1](opponents="expert", rules={"num_players": 2})
    for illegal in (KA.A_END_MELD, N_ACTIONS - 1):
        env.reset(seed=1)
        obs, reward, done, truncated, info = env.step(illegal)
        assert (reward, done, truncated, info["illegal_action"]) == (-1.0, True, False, True)
        with pytest.raises(ValueError, match=r"the episode is over \(an illegal action ended "
                                             r"it\); call reset\(\)"):
            env.step(0)
    aec = pz.env(rules={"num_players": 2})
    aec.reset(seed=1)
    offender = aec.agent_selection
    aec.step(N_ACTIONS - 1)
    assert aec.rewards[offender] == -1.0 and all(aec.terminations.values())
    # the end of the hand
    g = Game.new(seed=1, hand_index=0).play()
    with pytest.raises(ValueError, match=r"^action 0 \(draw from the stock\) is illegal: the "
                                         r"hand is over \(turn \d+\); nothing more is played"):
        g.apply(0)
    with pytest.raises(ValueError, match=r"^choose: the hand is over"):
        g.choose()
    assert g.legal_actions() == []
    env.reset(seed=1)
    while not env._done:
        env.step(env.game.legal_actions()[0])
    with pytest.raises(ValueError, match=r"the episode is over \(the hand is over\)"):
        env.step(0)
    with pytest.raises(ValueError, match="no hand is dealt yet; call reset"):
        gym[1]().step(0)
    state = pyspiel.load_game("python_burraco", {"players": 2}).new_initial_state()
    state.apply_action(0)
    while not state.is_terminal():
        state.apply_action(state.game.choose())
    with pytest.raises(ValueError, match="the hand is over"):
        state.apply_action(0)


def test_an_openspiel_chance_outcome_must_be_one_of_the_deals(spiel):
    """Outcome k of ``deals`` deals hand k; anything else is refused as an illegal
    player action is, also through the C++ path of ``child``."""
    pyspiel, _ = spiel
    game = pyspiel.load_game("python_burraco", {"players": 2, "deals": 1000})
    state = game.new_initial_state()
    for bad in (1000, 5000, -1):
        for apply in (state.apply_action, state.child):
            with pytest.raises(ValueError, match=rf"^chance outcome {bad} is not a deal of this "
                                                 r"game: the outcomes are 0\.\.999 \(parameter "
                                                 r"deals\)$"):
                apply(bad)
            assert state.is_chance_node() and state.game is None
    with pytest.raises(TypeError, match="chance outcome 1.0 is not a deal"):
        state.apply_action(1.0)
    state.apply_action(999)
    assert state.game.hand_index == 999 and state.current_player() >= 0

def test_openspiel_serialisation_and_parameters(spiel):
    pyspiel, og = spiel
    game = pyspiel.load_game("python_burraco", {"players": 2, "rules": '{"stock_reserve": 20}'})
    assert game.get_parameters()["rules"] == '{"stock_reserve": 20}'
    state = game.new_initial_state()
    state.apply_action(3)
    rng = np.random.RandomState(1)
    for _ in range(25):
        state.apply_action(state.legal_actions()[rng.randint(len(state.legal_actions()))])
    back = game.deserialize_state(state.serialize())
    assert back.game == state.game and str(back) == str(state)
    assert back.information_state_string(0) == state.information_state_string(0)
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert s2.game == state.game and s2.game.rules.stock_reserve == 20
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history() and clone.game != state.game
    assert game.observation_tensor_size() == TENSOR_SIZE
    assert game.information_state_tensor_size() == og.INFO_SIZE == TENSOR_SIZE + 265
    for bad, match in (({"players": 5}, "players"), ({"reward": "x"}, "reward"),
                       ({"rules": '{"num_players": 3}'}, "num_players"),
                       ({"strategy": "nobody"}, "nobody"), ({"rules": "{oops"}, "JSON")):
        with pytest.raises(Exception, match=match):
            pyspiel.load_game("python_burraco", {"players": 2, **bad})


# ------------------------------------------------------------------ docs and example
def test_the_docs_training_loop_runs_as_written(pz):
    text = (ROOT / "docs" / "rl.md").read_text()
    m = re.search(r"<!-- training-loop example[^\n]*-->\n```python\n(.*?)```", text, re.S)
    assert m, "docs/rl.md: the marked training-loop example is missing"
    code = m.group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 16
    out = io.StringIO()
    ns = {}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "docs/rl.md", "exec"), ns)
    wins = ns["wins"]
    assert set(wins) == {"player_0", "player_1"} and sum(wins.values()) == 0
    assert all(v == int(v) and abs(v) <= 10 for v in wins.values())
    assert out.getvalue().strip() == str(wins)
    assert ns["env"].unwrapped.game.is_over


def test_the_ismcts_example_reports_a_margin(spiel):
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "openspiel_ismcts.py"),
                        "--hands", "4", "--simulations", "2"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r"minus expert, 2 players: ([+-]\d+\.\d) points a hand, 95% interval "
                  r"\[([+-]\d+\.\d), ([+-]\d+\.\d)\], 4 hands \(2 deals, seats swapped\)",
                  r.stdout)
    assert m, r.stdout
    mean, low, high = map(float, m.groups())
    assert abs(mean) < 3000 and low < mean < high
    # one deal gives no interval: refused in one line before any hand is played
    for args, why in ((["--hands", "3"], "--hands: 3 is not an even number >= 4"),
                      (["--hands", "2"], "--hands: 2 is not an even number >= 4 (each deal is "
                       "played twice, and the margin's 95% interval needs at least two deals)"),
                      (["--opponent", "nobody"], "--opponent: unknown name 'nobody'"),
                      (["--players", "3"], "argument --players: invalid choice: 3"),
                      (["--bogus"], "unrecognized arguments: --bogus")):
        bad = subprocess.run([sys.executable, str(ROOT / "examples" / "openspiel_ismcts.py"),
                              *args], capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert bad.returncode == 2 and why in bad.stderr and bad.stdout == ""
        # the whole of stderr is the one line (no usage block before it)
        assert bad.stderr.count("\n") == 1 and \
            bad.stderr.startswith("openspiel_ismcts.py: error: "), bad.stderr
