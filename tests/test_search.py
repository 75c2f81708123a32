"""The ``rollout`` search strategy (issue 15, item 1): legal play checked by the
independent referee, the same records wherever it runs and whatever the thread count,
the base policy's play where nothing is searched, and worlds that depend only on what
the seat to move knows (the decisions themselves: tests/test_hidden_info.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import referee as R
from test_hidden_info import reshuffle_hidden

import sim
from kernels import search as KS_
from kernels import state as KS
from kernels import work as KW
from kernels.cards import CIDX
from sim.game import Game

# cheap settings for the tests: the search still leaves the base policy's choice often
CHEAP = "rollout:rollouts=24,worlds=3"
RECORD_COLS = ("score_t0", "score_t1", "turns", "end_reason", "closing_seat", "melds_t0",
               "melds_t1", "pile_pickups_t0", "error")


def _rows(df):
    return df[list(RECORD_COLS)].astype(str).to_numpy().tolist()


@pytest.mark.slow
def test_the_referee_accepts_every_hand_and_replay_gives_the_runs_records():
    spec = {"team0": CHEAP, "team1": "expert"}
    df = sim.simulate(hands=100, seed=31, strategies=spec, debug=True)
    assert (df["error"] == 0).all()
    for i in range(100):
        doc = json.loads(json.dumps(sim.replay(31, i, strategies=spec), ensure_ascii=False))
        v = R.check(doc)
        assert not v, f"hand {i}: " + "\n".join(map(str, v[:5]))
        res = doc["result"]
        assert (res["score_t0"], res["score_t1"], res["turns"]) == (
            df["score_t0"][i], df["score_t1"][i], df["turns"][i])


@pytest.mark.slow
def test_the_same_records_whatever_the_thread_count_and_in_sim_game():
    spec = {"team0": "expert", "team1": CHEAP}
    one = sim.simulate(hands=120, seed=32, strategies=spec, threads=1)
    two = sim.simulate(hands=120, seed=32, strategies=spec, threads=2)
    assert _rows(one) == _rows(two)
    for i in range(0, 120, 6):
        r = Game.new(32, i, strategies=spec).play().result()
        assert (r["score_t0"], r["score_t1"], r["turns"]) == (
            one["score_t0"][i], one["score_t1"][i], one["turns"][i])
    assert (one["strategy_s1"] == CHEAP).all()


@pytest.mark.slow
def test_without_a_searched_decision_it_plays_as_its_base_policy():
    off = "search_pickup=0,search_discard=0"
    a = sim.simulate(hands=300, seed=33, strategies=f"rollout:{off}")
    b = sim.simulate(hands=300, seed=33, strategies="expert")
    assert _rows(a) == _rows(b)
    heur = ",".join(f"{k}={v[1]:g}" for k, v in sim.strategies.HEURISTIC.params.items())
    c = sim.simulate(hands=300, seed=33, strategies=f"rollout:{off},{heur}")
    d = sim.simulate(hands=300, seed=33, strategies="heuristic")
    assert _rows(c) == _rows(d)
    assert _rows(a) != _rows(d)               # the base policy's parameters matter
    e = sim.simulate(hands=300, seed=33, strategies={"team0": CHEAP, "team1": "expert"})
    assert _rows(e) != _rows(b)               # and the search changes the play


def test_canonical_hidden_depends_only_on_what_the_seat_knows():
    gen = np.random.default_rng(7)
    checked = 0
    for hand_index in range(12):
        game = Game.new(34, hand_index)
        for _ in range(int(gen.integers(8, 60))):     # a mid-hand position
            if game.is_over:
                break
            game.apply(game.choose())
        if game.is_over:
            continue
        seat = game.current_seat
        other = game.clone()
        reshuffle_hidden(other, seat, gen)
        assert not np.array_equal(game._work, other._work)
        bufs = []
        for g in (game, other):
            w = g._work.copy()
            KS_.canonical_hidden(w, np.int64(seat))
            st = KS.state_numpy(w, KW.EV_AT, int(w[KW.W_EV_ROWS]), int(w[KW.W_EV_CARDS]))
            assert KS.conservation_ok(st)                  # every card id once, counts kept
            for s in range(4):
                assert np.array_equal(st.hcnt[s] >= st.known[s], np.ones(53, bool))
                counts = np.zeros(53, np.int64)
                for i in range(st.hn[s]):
                    counts[CIDX[st.hand[s, i]]] += 1
                assert np.array_equal(counts, st.hcnt[s])
            bufs.append(w)
        assert np.array_equal(bufs[0], bufs[1])
        own = game.state
        st = KS.state_numpy(bufs[0], KW.EV_AT, int(bufs[0][KW.W_EV_ROWS]),
                            int(bufs[0][KW.W_EV_CARDS]))
        assert np.array_equal(st.hand[seat], own.hand[seat])   # the seat's own hand stays
        assert np.array_equal(st.pile, own.pile)
        checked += 1
    assert checked >= 8


@pytest.mark.slow
def test_it_beats_random_and_its_parameters_are_checked():
    c = sim.compare(CHEAP, "random", hands=60, seed=35).iloc[0]
    assert c["ci95_low"] > 0
    assert sim.strategies.resolve("rollout:worlds=32")[0] == "rollout"     # the default
    for spec, needle in (("rollout:worlds=0", "worlds must be a whole number in 1..1000"),
                         ("rollout:search_meld=2", "search_meld must be a whole number in 0..1"),
                         ("rollout:margin=-1", "margin must be a number in 0..10"),
                         ("rollout:depth=3", "has no parameter 'depth'")):
        with pytest.raises(ValueError, match=needle):
            sim.strategies.resolve(spec)


def test_a_rollout_policy_for_analyze():
    game = Game.new(36, 3, strategies="expert")
    for _ in range(30):
        game.apply(game.choose())
    acts = game.legal_actions()[:3]
    a = sim.analysis.rollout_matrix(game, acts, 6, seed=5, policy=CHEAP, threads=2)
    b = sim.analysis.rollout_matrix(game, acts, 6, seed=5, policy=CHEAP, threads=1)
    c = sim.analysis.rollout_matrix(game, acts, 6, seed=5, policy="expert", threads=2)
    assert np.array_equal(a["result"], b["result"]) and (a["error"] == 0).all()
    assert not np.array_equal(a["result"], c["result"])
