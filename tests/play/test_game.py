"""The step API (sim.Game, docs/step_api.md): one path with the batch simulation.

* every seat driven through the step API with its built-in strategy gives the
  records ``simulate`` writes, exactly (4, 3 and 2 players, every preset);
* uniform random legal actions: every hand ends, cards are conserved after every
  action (the kernels' debug checks), and the independent referee finds no
  violation in the replay documents;
* clones are independent, JSON round-trips exactly, action texts round-trip, an
  illegal action raises and changes nothing.
"""
from __future__ import annotations

import json
from collections import Counter

from kernels.core.cards import N_COUNT
import numpy as np
import pytest

import referee as R
import sim
from kernels.engine import actions as KA
from kernels.core import layout as L
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.table import work as KW
from kernels.play.game import simulate_range
from sim import strategies
from sim.play.game import N_ACTIONS, PHASES, TENSOR_SIZE, Game


def batch_records(seed, start, n, rules, spec="heuristic"):
    _, kind, params = strategies.resolve(spec)
    out = np.zeros((n, L.N_REC), np.int32)
    simulate_range(np.uint64(seed), np.int64(start), np.int64(n), rules.to_vector(),
                   np.full(4, kind, np.int64), np.tile(params, (4, 1)), np.int64(0), out)
    return out


def step_records(seed, start, n, rules, spec="heuristic"):
    out = np.zeros((n, L.N_REC), np.int32)
    for i in range(n):
        g = Game.new(seed, start + i, rules=rules, strategies=spec)
        while not g.is_over:
            a = g.choose()
            if a < N_ACTIONS:       # the random strategy names a discard's copy itself
                assert a in g.legal_actions()
            g.apply(a)
        out[i] = g._record()
    return out


@pytest.mark.slow
def test_step_api_reproduces_simulate_records():
    rules = sim.Rules()
    assert np.array_equal(step_records(20261201, 0, 10_000, rules),
                          batch_records(20261201, 0, 10_000, rules))


PRESETS = ["fibur_italian", "fibur_international"]


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{"num_players": 2}, {"num_players": 3},
                                   {"num_players": 3, "three_player_mode": "individual_3x11"},
                                   *PRESETS])
def test_step_api_reproduces_records_under_other_rules(rules):
    r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**rules)
    assert np.array_equal(step_records(5, 100, 1000, r), batch_records(5, 100, 1000, r))


@pytest.mark.slow
def test_random_strategy_through_the_step_api():
    r = sim.Rules()
    assert np.array_equal(step_records(9, 0, 300, r, "random"), batch_records(9, 0, 300, r, "random"))


def test_every_preset_is_covered():
    from sim.core.rules import PRESETS as ALL
    assert set(PRESETS) == set(ALL) - {"default"}


def random_hand(seed, hand_index, rng, rules=None):
    """A hand of uniformly random legal actions drawn in Python, with the debug checks."""
    g = Game.new(seed, hand_index, rules=rules, debug=True)
    steps = 0
    while not g.is_over:
        legal = g.legal_actions()
        assert legal, f"no legal action at {g!r}"
        g.apply(legal[rng.integers(len(legal))])
        steps += 1
        assert steps < 20_000, "a hand of random legal actions does not end"
    rec = g._record()
    assert rec[L.REC_ERROR] == 0, f"debug check failed: error bits {rec[L.REC_ERROR]}"
    return g, steps


def assert_referee_clean(g, what):
    doc = json.loads(json.dumps(g.replay_document(), ensure_ascii=False))
    v = R.check(doc)
    assert not v, f"{what}: " + "\n".join(map(str, v))


@pytest.mark.slow
def test_uniform_legal_actions_end_conserve_and_pass_the_referee():
    """20,000 hands of uniformly random legal actions (the built-in `uniform`, drawn by
    the kernels from each hand's stream) through the step API: every hand ends, the
    conservation and meld checks hold after every action, the referee passes 1,000."""
    ends = np.zeros(len(L.END_REASONS), int)
    for i in range(20_000):
        g = Game.new(31, i, strategies="uniform", debug=True).play()
        rec = g._record()
        assert rec[L.REC_ERROR] == 0, f"hand {i}: debug check failed ({rec[L.REC_ERROR]})"
        ends[rec[L.REC_END_REASON]] += 1
        if i % 20 == 0:
            assert_referee_clean(g, f"hand {i}")
    assert ends.sum() == 20_000 and ends[L.END_CLOSED] > 0


@pytest.mark.slow
def test_random_legal_actions_drawn_in_python():
    rng = np.random.default_rng(13)
    for i in range(1_000):
        g, _ = random_hand(32, i, rng)
        if i % 10 == 0:
            assert_referee_clean(g, f"hand {i}")


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{"num_players": 2}, {"num_players": 3}, *PRESETS,
                                   {"take_pile_requires_meld": True, "pile_meld_source": "from_pile"},
                                   {"lock_two_roles": True, "stock_end_mode": "immediate"}])
def test_random_legal_actions_under_other_rules(rules):
    r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**rules)
    rng = np.random.default_rng(17)
    for i in range(300):
        g, _ = random_hand(41, i, rng, r)
        if i % 10 == 0:
            assert_referee_clean(g, f"hand {i}")


def test_clone_is_independent_and_json_round_trips():
    g = Game.new(3, 7)
    for _ in range(25):
        g.apply(g.choose())
    c = g.clone()
    assert c == g
    text = g.to_json()
    back = Game.from_json(text)
    assert back == g and back.legal_actions() == g.legal_actions()
    c.apply(c.legal_actions()[-1])
    assert c != g and Game.from_json(text) == g
    g.play()
    back.play()
    assert back.result() == g.result()


def test_from_json_refuses_damaged_documents():
    text = Game.new(1, 1).to_json()
    d = json.loads(text)
    with pytest.raises(ValueError, match="format"):
        Game.from_json(json.dumps({**d, "format": 99}))
    with pytest.raises(ValueError, match="damaged"):
        Game.from_json(json.dumps({**d, "buffer": "not base64!"}))
    with pytest.raises(ValueError, match="kind"):
        Game.from_json(json.dumps({"kind": "other"}))
    with pytest.raises(ValueError, match="not JSON"):
        Game.from_json("{")


def test_illegal_action_raises_and_changes_nothing():
    g = Game.new(2, 0)
    before = g.clone()
    with pytest.raises(ValueError, match="not an action of this phase"):
        g.apply(KA.A_END_MELD)
    with pytest.raises(ValueError, match=f"action {N_ACTIONS + 500} is not an action id"):
        g.apply(N_ACTIONS + 500)
    with pytest.raises(ValueError, match="action -1 is not an action id: ids are 0..16307"):
        g.apply(-1)
    g.legal_actions()               # overwrites work arrays only: the game is equal
    assert g == before and g.to_json() == before.to_json()
    g.apply(KA.A_DRAW)
    meld = g.action_from_text("meld 7h 8h 9h")
    if meld not in g.legal_actions():
        with pytest.raises(ValueError, match=r"action \d+ \(meld 7♥ 8♥ 9♥\) is illegal"):
            g.apply(meld)
    assert g.phase == "meld"


def test_action_texts_round_trip():
    rng = np.random.default_rng(3)
    seen = set()
    for i in range(60):
        g = Game.new(11, i)
        while not g.is_over:
            legal = g.legal_actions()
            for a in legal:
                text = g.action_text(a)
                assert g.action_from_text(text) == a, text
                seen.add(text.split()[0])
            g.apply(legal[rng.integers(len(legal))])
    assert {"draw", "take", "end", "discard", "meld", "lay"} <= seen


def test_action_texts_read_well():
    g = Game.new(1, 0)
    assert g.action_text(KA.A_DRAW) == "draw from the stock"
    assert g.action_text(g.action_from_text("meld 9h 7h 8h")) == "meld 7♥ 8♥ 9♥"
    assert g.action_text(g.action_from_text("meld Qh Kh Ah")) == "meld Q♥ K♥ A♥"
    assert g.action_text(g.action_from_text("meld 7c 7d 2s")) == "meld 7♣ 7♦ 2♠"
    assert g.action_text(KA.A_LAYOFF + 53 * 2 + 35) == "lay off 10♥ on meld 2"
    with pytest.raises(ValueError, match="not a valid meld"):
        g.action_from_text("meld 7h 8c 9d")
    with pytest.raises(ValueError, match="names no action"):
        g.action_from_text("pass")


def test_observation_is_what_the_seat_may_know():
    g = Game.new(4, 2)
    while g.turn < 12:
        g.apply(g.choose())
    seat = g.current_seat
    o = g.observation(seat)
    st = g.state
    assert len(o.hand) == st.hn[seat] and o.hand_sizes == tuple(int(x) for x in st.hn)
    assert len(o.pile) == st.g[KS.G_PILE_SIZE]
    assert o.stock_size == st.g[KS.G_STOCK_END] - st.g[KS.G_STOCK_TOP]
    assert sum(len(m["cards"]) for m in o.melds) == int(st.mcnt.sum())
    t = g.observation_tensor(seat)
    assert t.dtype == np.float32 and t.shape == (TENSOR_SIZE,)
    json.dumps(o.to_dict(), ensure_ascii=False)


def _decoded(t, n):
    """The observation tensor's fields (sim.game.TENSOR_FIELDS) as named arrays."""
    from sim.play.game import TENSOR_FIELDS
    out, k = {}, 0
    for name, size in TENSOR_FIELDS:
        out[name] = t[k:k + size]
        k += size
    return out


def _face_counts(faces):
    c = np.zeros(53)
    for f in faces:
        c[f] += 1
    return c


@pytest.mark.parametrize("rules", [sim.Rules(), sim.Rules(num_players=2),
                                   sim.Rules(num_players=3),
                                   sim.Rules(num_players=3, three_player_mode="individual_3x11")],
                         ids=["4p", "2p", "3p_solo_18", "3p_individual"])
def test_observation_tensor_encodes_the_observation(rules):
    """Each slot of observation_tensor against observation(): the hand, the known cards,
    hand sizes, the pile and its top, the barred card, every side's melds by slot,
    the counters (kernels.engine.observe, docs/step_api.md)."""
    n = rules.num_players
    checked = 0
    for i in range(8):
        g = Game.new(9, i, rules=rules, strategies="random" if i % 2 else "heuristic")
        step = 0
        while True:
            if step % 7 == 0 or g.is_over:
                for seat in range(n):
                    o = g.observation(seat)
                    d = _decoded(g.observation_tensor(seat), n)
                    assert d["phase"].tolist() == [float(p == o.phase) for p in PHASES]
                    assert np.argmax(d["seat_to_move"]) == (o.current_seat - seat) % n
                    assert np.array_equal(d["hand"] * 2, _face_counts(o.hand_faces))
                    rel = [(seat + j) % n for j in range(n)]
                    slots = (rel[1], rel[2] if n == 4 else None, rel[-1] if n >= 3 else None)
                    for j, s in enumerate(slots):
                        want = _face_counts(o.known_faces[s]) if s is not None else np.zeros(53)
                        assert np.array_equal(d["known"][53 * j:53 * (j + 1)] * 2, want)
                    assert np.allclose(d["hand_sizes"][:n],
                                       [min(1, o.hand_sizes[s] / 30) for s in rel])
                    assert np.array_equal(d["pile"] * 2, _face_counts(o.pile_faces))
                    top = np.zeros(53)
                    if o.pile_faces:
                        top[o.pile_faces[-1]] = 1
                    assert np.array_equal(d["pile_top"], top)
                    assert d["barred"].sum() == (o.barred is not None)
                    own = o.team_of[seat]
                    # the next opponent's side: the first later seat on another side (3
                    # players: once the other two are partners, both are on one side, R62)
                    sides = [o.team_of[s] for s in rel[1:] if o.team_of[s] != own]
                    nxt = sides[0]
                    third = [t for t in sides if t != nxt][:1]
                    for m in o.melds:
                        block = ("melds_own" if m["team"] == own else
                                 "melds_opp" if m["team"] == nxt else "melds_third")
                        got = d[block].reshape(40, N_COUNT)[m["index"]] * 2
                        assert np.array_equal(got, _face_counts(m["faces"])), (block, m)
                    on_table = sum(len(m["cards"]) for m in o.melds)
                    assert 2 * (d["melds_own"].sum() + d["melds_opp"].sum()
                                + d["melds_third"].sum()) == on_table
                    assert np.isclose(d["stock_size"][0], o.stock_size / 108)
                    assert np.isclose(d["pozzetti_left"][0], o.pozzetti_left / 3)
                    assert d["pozzetto_taken"].tolist() == [
                        o.pozzetto_taken[own], o.pozzetto_taken[nxt],
                        o.pozzetto_taken[third[0]] if third else False]
                    assert np.isclose(d["turn"][0], min(1, o.turn / 200))
                    checked += 1
            if g.is_over:
                break
            g.apply(g.choose())
            step += 1
    assert checked > 100


def test_result_needs_a_finished_hand():
    g = Game.new(1, 0)
    with pytest.raises(ValueError, match="not over"):
        g.result()
    g.play()
    row = g.result()
    assert row["score_t0"] == int(batch_records(1, 0, 1, sim.Rules())[0, L.N_HAND_COLS])


def test_observed_table_points_agree_with_the_record():
    for i in range(40):
        g = Game.new(6, i).play()
        row, o = g.result(), g.observation(0)
        for t in (0, 1):
            assert o.meld_points[t] == row[f"meld_points_t{t}"]
            assert o.burracos[t] == (row[f"clean_burracos_t{t}"], row[f"dirty_burracos_t{t}"])
    g = Game.new(6, 0)
    g.match_totals = (1200, 850)
    assert g.observation(1).match_totals == (1200, 850)
    assert Game.from_json(g.to_json()).observation(1).match_totals == (1200, 850)


# ----------------------------------------------------------------------------- sampled worlds
def mid_hand(seed, hand_index, decisions, rules=None):
    g = Game.new(seed, hand_index, rules=rules)
    for _ in range(decisions):
        if g.is_over:
            break
        g.apply(g.choose())
    return g


def known_facts(g, seat):
    """Everything ``seat`` knows, as comparable values (its observation and counts)."""
    o = g.observation(seat)
    st = g.state
    return (o, g.observation_tensor(seat).tobytes(), st.known.tolist(), st.hn.tolist(),
            int(st.g[KS.G_STOCK_END] - st.g[KS.G_STOCK_TOP]))


def test_sampled_worlds_keep_every_known_fact():
    from kernels.table.worlds import unseen_places
    n_worlds = 0
    for i in range(40):
        g = mid_hand(8, i, 5 + 7 * (i % 9))
        if g.is_over:
            continue
        seat = g.current_seat
        facts = known_facts(g, seat)
        places = np.zeros((108, 3), np.int64)
        n = unseen_places(g._work, seat, places)
        for k in range(25):
            w = g.sample_world(seat, 1000 + i, k)
            assert known_facts(w, seat) == facts
            assert KSM.conservation_ok(w.state)
            assert w.legal_actions() == g.legal_actions()
            n_worlds += 1
        assert n > 0
    assert n_worlds >= 800


@pytest.mark.slow
def test_sampled_world_cards_land_uniformly():
    """Where a given unseen card lands is uniform over the unseen places (chi-square
    over 100,000 sampled worlds, for three different cards)."""
    from scipy import stats
    from kernels.table.worlds import PLACE_HAND, PLACE_STOCK, sample_world, unseen_places
    g = mid_hand(12, 3, 30)
    seat = g.current_seat
    places = np.zeros((108, 3), np.int64)
    n = unseen_places(g._work, seat, places)
    flat = np.array([KS.S_HAND + 108 * a + b if w == PLACE_HAND else
                     KS.S_STOCK + a if w == PLACE_STOCK else KS.S_POZ + KS.PMAX * a + b
                     for w, a, b in places[:n]])
    targets = g._work[flat[[0, n // 2, n - 1]]]
    counts = np.zeros((3, n), int)
    dst = np.empty_like(g._work)
    samples = 100_000
    for k in range(samples):
        sample_world(g._work, np.int64(seat), np.uint64(77), np.int64(k), dst)
        cards = dst[flat]
        for j, t in enumerate(targets):
            counts[j, np.flatnonzero(cards == t)[0]] += 1
    for j in range(3):
        chi2, p = stats.chisquare(counts[j])
        print(f"card {targets[j]}: chi-square over {n} unseen places, {samples} worlds: "
              f"p = {p:.3f}")
        assert p > 1e-3


#: (rules, driver, worlds): hands played on from sampled worlds; the driver plays the
#: game to each decision and the world on (test_game_mask.choose: the built-in
#: heuristic, or uniform random legal actions)
WORLD_CONFIGS = [
    (None, "heuristic", 50), (None, "random", 50),
    ("fibur_international", "heuristic", 30), ("fibur_international", "random", 30),
    ({"num_players": 3}, "heuristic", 20), ({"num_players": 3}, "random", 20),
    ({"num_players": 2, "lock_two_roles": True}, "random", 20),
]
#: how often a decision of each phase gets a sampled world
WORLD_RATE = {"pickup": 0.05, "place": 0.5, "meld": 0.03, "discard": 0.05}


def play_on(w, driver, rng):
    """Play ``w`` to the end with the kernels' debug checks: the built-in strategies,
    or uniform random legal actions."""
    w._work[KW.W_DEBUG] = 1
    if driver == "heuristic":
        return w.play()
    while not w.is_over:
        legal = w.legal_actions()
        w.apply(legal[rng.integers(len(legal))])
    return w


def assert_world_clean(w, start_phase, what):
    assert w._record()[L.REC_ERROR] == 0, f"{what}: debug check failed"
    doc = json.loads(json.dumps(w.replay_document(), ensure_ascii=False))
    assert "deal" not in doc and doc["start"]["phase"] == start_phase
    v = R.check(doc)
    assert not v, f"{what}: " + "\n".join(map(str, v))


@pytest.mark.slow
def test_hands_played_on_from_sampled_worlds_pass_the_referee():
    """260 worlds sampled for the seat to move at decisions of every phase (pickup,
    meld, discard, and place under fibur_international's take_pile_requires_meld) of
    hands played by the heuristic and by uniform random legal actions, with 4, 3 and 2
    players: each played on to the end passes the kernels' debug checks, and the
    referee checks its replay document (the start block, every event after it, the
    result) and finds nothing."""
    from _decisions import positions
    seen = Counter()
    for c, (rules, driver, count) in enumerate(WORLD_CONFIGS):
        r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**(rules or {}))
        rng = np.random.default_rng(c)
        for k, (g, _) in enumerate(positions(r, driver, 60 + c, count, rate=WORLD_RATE)):
            w = g.sample_world(g.current_seat, 3, k)
            phase = w.phase
            assert_world_clean(play_on(w, driver, rng), phase, f"{rules} {driver} world {k}")
            seen[phase] += 1
            seen[str(rules), phase] += 1
    assert sum(seen[p] for p in PHASES[:4]) == sum(n for *_, n in WORLD_CONFIGS) >= 200
    for rules, _, _ in WORLD_CONFIGS:
        for phase in ("pickup", "meld", "discard"):
            assert seen[str(rules), phase] >= 3, seen
    assert seen["fibur_international", "place"] >= 3, seen


def test_hands_played_on_from_positions_of_real_games_pass_the_referee():
    """Games built from positions (Game.from_position) of decisions of real games, the
    viewer's own and the next seat's view, played on: the referee passes each."""
    from _decisions import positions
    rng = np.random.default_rng(4)
    n = 0
    for c, rules in enumerate((None, {"num_players": 3}, "fibur_international")):
        r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**(rules or {}))
        for k, (g, _) in enumerate(positions(r, "heuristic", 70 + c, 12, rate=WORLD_RATE)):
            viewer = (g.current_seat + k % 2) % r.num_players
            w = Game.from_position(g.to_position(viewer), seed=k)
            assert w.sampled_for == viewer and w.legal_actions()
            assert_world_clean(play_on(w, "random", rng), g.phase, f"{rules} position {k}")
            n += 1
    assert n == 36


def test_a_world_documents_the_same_after_clone_and_json():
    """A world's documents start where it was sampled, also for its clones, after a JSON
    round trip, and for a world sampled from a world later on."""
    g = mid_hand(21, 4, 30)
    w = g.sample_world(g.current_seat, 3, 0)
    h = w.history_document()
    assert h["events"] == [] and h["start"]["turn"] == g.turn
    seat = g.current_seat
    assert h["start"]["hand_ids"][seat] == g.state.hand[seat, :g.state.hn[seat]].tolist()
    back = Game.from_json(w.to_json())
    assert back == w and back.sampled_for == seat and back.history_document() == h
    for _ in range(12):
        w.apply(w.choose())
    c = w.clone()
    assert c.history_document() == w.history_document() != h
    w2 = w.sample_world(w.current_seat, 4, 1)          # a world of a world
    assert w2.history_document()["start"]["turn"] == w.turn
    assert w2.history_document()["events"] == []
    for x in (w, c, back, w2):
        x.play()
        assert not R.check(x.replay_document())
    assert c.replay_document() == w.replay_document()
    text = sim.trace.format_text(c.replay_document())        # the readable trace too
    assert f"start (a world sampled for seat {seat}): turn {g.turn}" in text
    assert text.count("\nturn ") == w.turn - g.turn + 1
    assert Game.from_json(w.to_json()).replay_document() == w.replay_document()
    assert Game.from_json(g.to_json()).sampled_for is None


def test_play_takes_strategy_names():
    """A name gives every seat (or one seat) a built-in strategy from here on: the
    hand is the one simulate plays with those strategies."""
    assert Game.new(3, 7).play("random").result() == \
        Game.new(3, 7, strategies="random").play().result()
    row = Game.new(3, 7).play(["uniform", None, "heuristic", "random"]).result()
    assert [row[f"strategy_s{s}"] for s in range(4)] == ["uniform", "heuristic", "heuristic",
                                                          "random"]
    with pytest.raises(ValueError, match="play: seat 0: strategy: unknown name 'nosuch'"):
        Game.new(3, 7).play("nosuch")


def test_play_takes_python_strategies_by_seat_and_names_them():
    class FirstLegal:
        def choose(self, observation, legal_actions):
            return legal_actions[0]
    g = Game.new(2, 5).play({"seat0": FirstLegal, 2: FirstLegal()})
    row = g.result()
    assert row["strategy_s0"].endswith("FirstLegal") and row["strategy_s2"].endswith("FirstLegal")
    assert row["strategy_s1"] == "heuristic"
    with pytest.raises(ValueError, match="seat 1: expected None, a strategy name or an object with choose"):
        Game.new(2, 5).play([None, 42])
    with pytest.raises(ValueError, match="seat must be"):
        Game.new(2, 5).play({"seat7": FirstLegal})


def test_apply_refuses_what_is_not_an_action_id():
    g = Game.new(2, 5)
    for bad in ("x", None, 3.0, True):
        with pytest.raises(TypeError, match=f"action {bad!r} is not an action id: expected an "
                                            "integer"):
            g.apply(bad)
    with pytest.raises(ValueError, match="is not an action id"):
        g.apply(N_ACTIONS + 500)
    with pytest.raises(ValueError, match="discard the copy with card id 0"):
        g.apply(N_ACTIONS)


def test_play_takes_one_strategy_object_for_every_seat_and_apply_refuses_ids_out_of_space():
    class FirstLegal:
        def choose(self, observation, legal_actions):
            return legal_actions[0]
    row = Game.new(2, 5).play(FirstLegal()).result()
    assert all(row[f"strategy_s{s}"].endswith("FirstLegal") for s in range(4))
    g = Game.new(2, 5)
    for bad in (-1, KA.N_ACTIONS + 108):
        with pytest.raises(ValueError, match=f"action {bad} is not an action id"):
            g.apply(bad)

    class CopyId:
        def choose(self, observation, legal_actions):
            return KA.N_ACTIONS if observation.phase == "discard" else legal_actions[0]
    from sim.strategies.pystrategy import StrategyError
    with pytest.raises(StrategyError, match="not an action id 0..16307"):
        Game.new(2, 5).play(CopyId)
