"""The heuristic's named parameters do what their documentation says (docs/strategies.md).

Each parameter is checked on real hands (records or replayed events) or on a
hand-made position, and each check also shows that the default plays
differently, so a parameter that did nothing would fail.
"""
import numpy as np
import pytest

import sim
from kernels.strategies import policies as KP
from kernels.engine import actions as KA
from kernels.core import melds as KM
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.core.cards import CIDX, N_COUNT
from sim import strategies

RV = sim.Rules().to_vector()


def run(spec, n=3000, seed=31):
    return sim.simulate(n, seed, spec)


def test_pile_min_size():
    for t in (0, 1):
        df = run("heuristic:pile_min_size=5")
        assert (df[f"pile_cards_t{t}"] >= 5 * df[f"pile_pickups_t{t}"]).all()
        assert df[f"pile_pickups_t{t}"].sum() > 100
    df = run("heuristic")
    assert (df["pile_cards_t0"] < 5 * df["pile_pickups_t0"]).any()


def test_close_min_burracos():
    df = run("heuristic:close_min_burracos=2")
    for t in (0, 1):
        closed = df[df[f"closed_t{t}"]]
        assert len(closed) > 200
        assert (closed[f"clean_burracos_t{t}"] + closed[f"dirty_burracos_t{t}"] >= 2).all()
    df = run("heuristic")
    closed = df[df["closed_t0"]]
    assert ((closed["clean_burracos_t0"] + closed["dirty_burracos_t0"]) == 1).any()


def pickups_with_context(spec, hands=60, seed=8):
    """(stock cards left, hand sizes of the two opponents) at every take_pile event."""
    out = []
    for i in range(hands):
        doc = sim.replay(seed, i, strategies=spec)
        size = [11] * 4
        stock = 41
        for e in doc["events"]:
            s = e["seat"]
            if e["type"] == "draw":
                stock -= 1
                size[s] += 1
            elif e["type"] == "take_pile":
                out.append((stock, size[(s + 1) % 4], size[(s + 3) % 4]))
                size[s] += len(e["cards"])
            elif e["type"] in ("meld", "lay_off"):
                size[s] -= len(e["cards"])
            elif e["type"] == "pozzetto":
                size[s] += len(e["cards"])
            elif e["type"] == "discard":
                size[s] -= 1
    return out


def test_pile_min_stock():
    late = pickups_with_context("heuristic:pile_min_stock=30")
    assert len(late) > 30 and all(stock >= 30 for stock, _, _ in late)
    assert any(stock < 30 for stock, _, _ in pickups_with_context("heuristic"))


def test_pile_avoid_opp_2_or_5():
    seen = pickups_with_context("heuristic:pile_avoid_opp_2_or_5=1")
    assert len(seen) > 30
    assert all(a not in (2, 5) and b not in (2, 5) for _, a, b in seen)
    assert any(a in (2, 5) or b in (2, 5) for _, a, b in pickups_with_context("heuristic"))


def test_meld_delay_rounds():
    """No new meld in the first 3 rounds (turns 1..12); lay-offs and later melds happen."""
    early = late = 0
    for i in range(40):
        for e in sim.replay(8, i, strategies="heuristic:meld_delay_rounds=3")["events"]:
            if e["type"] == "meld":
                early += e["turn"] <= 12
                late += e["turn"] > 12
    assert early == 0 and late > 100
    default = [e for i in range(10) for e in sim.replay(8, i)["events"]
               if e["type"] == "meld" and e["turn"] <= 12]
    assert default


def position(faces):
    """A fresh state with seat 0 holding the given faces (first copies)."""
    st = KS.new_state(0, 0)
    for f in faces:
        KSM.hand_add(st, 0, np.int64(f))
    return st


def first_meld_kind(spec, faces):
    """The kind of the first meld the heuristic chooses to create from ``faces``."""
    _, _, p = strategies.resolve(spec)
    st = position(faces)
    sel = np.zeros(N_COUNT, np.int64)
    a = KP.heur_meld_choice(st, RV, 0, p, sel, np.zeros(N_COUNT, np.int64))
    assert a == KA.A_CREATE_SEL, a           # "create the meld it left in sel"
    return int(KM.analyze(sel, KM.ANY_RANK)[0])


def test_set_bias():
    # 7♣ 7♦ 7♥ (a set of 3) and 3♠ 4♠ 5♠ 6♠ (a run of 4), plus K♣ 9♦ J♥ Q♦
    faces = [6, 19, 32, 41, 42, 43, 44, 12, 21, 36, 24]
    assert first_meld_kind("heuristic", faces) == 2                  # the longer run
    assert first_meld_kind("heuristic:set_bias=1", faces) == 1       # 3 + 1 >= 4: the set
    assert first_meld_kind("heuristic:set_bias=0.5", faces) == 2


def test_discard_w_middle():
    # 7♦ and Q♠, nothing else: the default keeps the 7 (fewer points to give away)
    st = position([19, 50])
    vals = np.zeros(N_COUNT, np.float64)
    known = np.zeros(N_COUNT, np.int64)
    _, _, p = strategies.resolve("heuristic")
    assert CIDX[KP.heur_discard(st, RV, 0, p, vals, known)] == 50
    _, _, p = strategies.resolve("heuristic:discard_w_middle=-1")
    assert CIDX[KP.heur_discard(st, RV, 0, p, vals, known)] == 19


def test_defaults_are_documented_and_distinct():
    names = list(strategies.HEURISTIC.params)
    assert len(names) == len(set(names)) == 17
    slots = [slot for slot, _d, _doc in strategies.HEURISTIC.params.values()]
    assert sorted(slots) == list(range(17))
    assert all(doc for _s, _d, doc in strategies.HEURISTIC.params.values())


@pytest.mark.parametrize("spec", ["heuristic:close_min_burracos=3,pile_min_size=3",
                                  "heuristic:set_bias=-2,discard_w_middle=2,pile_min_stock=20"])
def test_new_parameters_play_legal_hands(spec):
    df = sim.simulate(500, 3, spec, debug=True)
    assert (df["error"] == 0).all()


@pytest.mark.parametrize("spec, needle", [
    ("heuristic:use_wild_to_meld=2", "use_wild_to_meld must be a whole number in 0..1"),
    ("heuristic:close_min_burracos=1.5", "whole number"),
    ("heuristic:pile_threshold=-5", "pile_threshold must be a number in 0..1000"),
    ("expert:meld_delay_rounds=-1", "meld_delay_rounds"),
    ("heuristic:pile_min_size=1e9", "0..108"),
    ("heuristic:pile_threshold=1,pile_threshold=3", "given twice"),
])
def test_out_of_range_values_are_refused(spec, needle):
    with pytest.raises(ValueError, match=needle):
        strategies.resolve(spec)
