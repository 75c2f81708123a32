"""The ``rollout`` search strategy (docs/strategies.md): legal play checked by the
independent referee, the same records wherever it runs and whatever the thread count,
the base policy's play where nothing is searched, and worlds that depend only on what
the seat to move knows (the decisions themselves: tests/play/test_hidden_info.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest
import referee as R
from test_hidden_info import reshuffle_hidden

import sim
from kernels.search import player as KS_
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.table import work as KW
from kernels.core.cards import CIDX, N_COUNT
from sim.play.game import Game

# cheap settings for the tests: the search still leaves the base policy's choice often
CHEAP = "rollout:halving=1,rollouts=24,worlds=3"      # canonical: the allocation is always named
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
            assert KSM.conservation_ok(st)                  # every card id once, counts kept
            for s in range(4):
                assert np.array_equal(st.hcnt[s] >= st.known[s], np.ones(N_COUNT, bool))
                counts = np.zeros(N_COUNT, np.int64)
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
@pytest.mark.slow
def test_the_card_model_is_off_by_default_and_its_worlds_play_legal_hands():
    """``card_model=0`` is the default (the same name and records as without it);
    ``card_model=1`` deals the worlds by the card-location model, which changes the
    play, and its hands pass the debug checks and the referee."""
    assert sim.strategies.resolve(f"{CHEAP},card_model=0")[0] == CHEAP
    model = sim.strategies.resolve(f"{CHEAP},card_model=1")[0]
    assert model == "rollout:card_model=1,halving=1,rollouts=24,worlds=3"
    a = sim.simulate(hands=40, seed=36, strategies={"team0": CHEAP, "team1": "expert"})
    b = sim.simulate(hands=40, seed=36, strategies={"team0": f"{CHEAP},card_model=0",
                                                   "team1": "expert"})
    spec = {"team0": model, "team1": "expert"}
    c = sim.simulate(hands=40, seed=36, strategies=spec, debug=True)
    assert _rows(a) == _rows(b)
    assert _rows(c) != _rows(a)
    assert (c["error"] == 0).all() and (c["strategy_s0"] == model).all()
    for i in range(0, 40, 4):
        doc = json.loads(json.dumps(sim.replay(36, i, strategies=spec), ensure_ascii=False))
        v = R.check(doc)
        assert not v, f"hand {i}: " + "\n".join(map(str, v[:5]))
        assert doc["result"]["score_t0"] == c["score_t0"][i]
    with pytest.raises(ValueError, match="card_model must be a whole number in 0..1"):
        sim.strategies.resolve("rollout:card_model=2")


def test_it_beats_random_and_its_parameters_are_checked():
    c = sim.compare(CHEAP, "random", hands=60, seed=35).iloc[0]
    assert c["ci95_low"] > 0
    # the default is sequential halving, and the allocation is always named
    assert sim.strategies.resolve("rollout:worlds=256")[0] == \
        "rollout:halving=1,rollouts=120,worlds=256"
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


# ------------------------------------------------ the base policy's hard rules
# A variant of the searcher (rollout:pile_min_size=3, rollout:close_min_burracos=2, ...) must
# keep the rule its parameter states at every decision, searched or not: the search chooses
# only among the candidates that keep its base policy's hard rules (kernels.search.player.
# keeps_base_rules).  Each rule: the variant, the same searcher without the rule (which breaks
# it somewhere in these positions, so the check has teeth), the phase, and the breach.
FAST = "worlds=6,rollouts=72"


def _burracos(game, team):
    return sum(game.observation(0).burracos[team])


def _took_small_pile(before, a, after):
    return a == 1 and len(before.observation(0).pile) < 3


def _took_late_pile(before, a, after):
    return a == 1 and before.observation(0).stock_size < 30


def _took_pile_facing_2_or_5(before, a, after):
    seat = before.current_seat
    sizes = before.observation(0).hand_sizes
    return a == 1 and (sizes[(seat + 1) % 4] in (2, 5) or sizes[(seat + 3) % 4] in (2, 5))


def _left_closing_card_early(before, a, after):
    seat = before.current_seat
    team = seat % 2
    obs = after.observation(0)
    return (obs.hand_sizes[seat] == 1 and obs.pozzetto_taken[team]
            and _burracos(after, team) < 2)


def _opened_early(before, a, after):
    return sim.game.action_kind(a) == "meld" and (before.turn - 1) // 4 + 1 <= 3


def _melds_of(game, team):
    return [m for m in game.observation(0).melds if m["team"] == team]


def _opened_with_wild(before, a, after):
    seat = before.current_seat
    if sim.game.action_kind(a) != "meld" or before.observation(0).hand_sizes[seat] <= 4:
        return False
    return _melds_of(after, seat % 2)[-1]["wilds"] > 0


def _wild_on_short_meld(before, a, after):
    seat = before.current_seat
    if sim.game.action_kind(a) != "lay_off" or before.observation(0).hand_sizes[seat] <= 4:
        return False
    face = sim.game.action_faces(a)[0]
    if face != 52 and face % 13 != 1:
        return False                             # a natural card
    mi = sim.game.action_meld(a)
    old = [m for m in _melds_of(before, seat % 2) if m["index"] == mi][0]
    new = [m for m in _melds_of(after, seat % 2) if m["index"] == mi][0]
    return new["wilds"] > old["wilds"] and len(old["cards"]) < 99


HARD_RULES = [
    ("pickup", f"rollout:pile_min_size=3,{FAST}", f"rollout:{FAST}", _took_small_pile),
    ("pickup", f"rollout:pile_min_stock=30,{FAST}", f"rollout:{FAST}", _took_late_pile),
    ("pickup", f"rollout:pile_avoid_opp_2_or_5=1,{FAST}", f"rollout:{FAST}",
     _took_pile_facing_2_or_5),
    ("meld", f"rollout:search_meld=1,close_min_burracos=2,{FAST}",
     f"rollout:search_meld=1,{FAST}", _left_closing_card_early),
    ("meld", f"rollout:search_meld=1,meld_delay_rounds=3,{FAST}",
     f"rollout:search_meld=1,{FAST}", _opened_early),
    ("meld", f"rollout:search_meld=1,use_wild_to_meld=0,{FAST}",
     f"rollout:search_meld=1,{FAST}", _opened_with_wild),
    ("meld", f"rollout:search_meld=1,{FAST}",                   # expert's wild_layoff_min_len=99
     f"rollout:search_meld=1,wild_layoff_min_len=0,{FAST}", _wild_on_short_meld),
]


def _choice(game, spec):
    """What ``spec`` would play for the seat to move here, and the game after it."""
    other = game.clone()
    other._set_strategy(other.current_seat, spec)
    a = other.choose()
    after = other.clone()
    after.apply(a)
    return a, after


@pytest.mark.slow
def test_a_variant_of_the_searcher_keeps_its_base_policys_hard_rules():
    """At the positions of 24 hands of expert play, each variant's choice keeps its rule;
    the searcher without the rule breaks it at some of the same positions."""
    breaches = {i: 0 for i in range(len(HARD_RULES))}
    seen = {i: 0 for i in range(len(HARD_RULES))}
    for hand_index in range(24):
        game = Game.new(41, hand_index, strategies="expert")
        while not game.is_over:
            if game.phase in ("pickup", "meld"):
                for i, (phase, spec, free, breach) in enumerate(HARD_RULES):
                    if phase != game.phase or len(game.legal_actions()) < 2:
                        continue
                    if phase == "meld" and i == 3 and game.observation(0).hand_sizes[
                            game.current_seat] > 4:
                        continue                 # the closing card is not in reach
                    seen[i] += 1
                    a, after = _choice(game, spec)
                    assert not breach(game, a, after), (spec, hand_index, game.turn, a)
                    b, after_b = _choice(game, free)
                    breaches[i] += breach(game, b, after_b)
            game.apply(game.choose())
    for i, (_phase, spec, free, _breach) in enumerate(HARD_RULES):
        assert breaches[i] > 0, (free, "never breaks the rule here", seen[i])


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["pile_min_size=3", "close_min_burracos=2",
                                     "close_min_burracos=2,search_meld=1"])
def test_the_variants_hands_pass_the_referee_and_keep_the_rule(variant):
    spec = {"team0": f"{CHEAP},{variant}", "team1": "expert"}
    df = sim.simulate(hands=100, seed=42, strategies=spec, debug=True)
    assert (df["error"] == 0).all()
    for i in range(0, 100, 4):
        doc = json.loads(json.dumps(sim.replay(42, i, strategies=spec), ensure_ascii=False))
        v = R.check(doc)
        assert not v, f"hand {i}: " + "\n".join(map(str, v[:5]))
    if variant.startswith("pile_min_size"):
        assert df["pile_pickups_t0"].sum() > 100
        assert (df["pile_cards_t0"] >= 3 * df["pile_pickups_t0"]).all()
    else:
        closed = df[df["closed_t0"]]
        assert len(closed) > 10
        assert (closed["clean_burracos_t0"] + closed["dirty_burracos_t0"] >= 2).all()


def test_the_rules_the_search_keeps_are_the_heuristics_own():
    """kernels.search.player.keeps_base_rules accepts every action the heuristic itself plays
    (with every hard rule on), so the search never drops the base policy's choice; and
    wherever kernels.search.player.pile_barred holds, the heuristic draws."""
    from kernels.core import layout as L
    spec = ("heuristic:pile_min_size=2,pile_min_stock=20,pile_avoid_opp_2_or_5=1,"
            "close_min_burracos=2,meld_delay_rounds=2,use_wild_to_meld=0,wild_layoff_min_len=7")
    rv = sim.Rules().to_vector()
    sel = np.zeros(N_COUNT, np.int64)
    checked = barred = 0
    for hand_index in range(20):
        game = Game.new(43, hand_index, strategies=spec)
        while not game.is_over:
            a = game.choose()
            w = game._work
            seat = game.current_seat
            p = w[KW.W_PARAMS + L.N_PARAMS * seat:KW.W_PARAMS + L.N_PARAMS * (seat + 1)].view(
                np.float64)
            st = KS.state_numpy(w, KW.EV_AT, int(w[KW.W_EV_ROWS]), int(w[KW.W_EV_CARDS]))
            assert KS_.keeps_base_rules(st, rv, np.int64(seat), p, np.int64(a), sel), (
                hand_index, game.turn, a)
            if game.phase == "pickup" and KS_.pile_barred(st, rv, np.int64(seat), p):
                assert a == 0
                barred += 1
            checked += 1
            game.apply(a)
    assert checked > 1000 and barred > 100


def test_the_search_is_always_named_by_its_allocation():
    """A name written while the flat search was the default (``rollout``, or any name
    without ``halving``) is never the canonical name of a search now: a run directory of the
    flat search cannot be resumed or extended with sequential halving."""
    from sim.strategies import resolve
    assert resolve("rollout")[0] == "rollout:halving=1,rollouts=120,worlds=256"
    assert resolve("rollout:halving=0,worlds=32,rollouts=400,max_candidates=12")[0] == \
        "rollout:halving=0,rollouts=400,worlds=32"
    # parameters at their defaults other than the allocation stay out; others sorted in
    assert resolve("rollout:margin=1.5,pickup_share=1,max_candidates=12")[0] == \
        "rollout:halving=1,margin=1.5,rollouts=120,worlds=256"
    old_names = ("rollout", "rollout:worlds=64", "rollout:rollouts=800,worlds=64",
                 "rollout:max_candidates=6,rollouts=400,worlds=64", "rollout:search_meld=1")
    for spec in old_names + tuple(f"rollout:halving={h},rollouts={r},worlds={w}"
                                  for h in (0, 1) for r in (24, 120, 400) for w in (3, 32, 256)):
        name = resolve(spec)[0]
        assert name not in old_names and "halving=" in name
        assert resolve(name)[0] == name                  # a canonical name is a fixed point
    # a name of the flat search, resolved now, names the same row as it did then
    flat_then = {"worlds": 32.0, "rollouts": 400.0, "halving": 0.0}
    _, _, row = resolve("rollout:halving=0,rollouts=400,worlds=32")
    from kernels.search import player as P
    assert (row[P.RP_WORLDS], row[P.RP_ROLLOUTS], row[P.RP_HALVING]) == \
        (flat_then["worlds"], flat_then["rollouts"], flat_then["halving"])
