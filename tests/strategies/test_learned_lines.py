"""Shipped model lines of ``learned``: models trained under other rules
(``learned-fibur_international-v1``, ``learned-three_players-v1``), how ``learned`` picks one by
the run's rules, how they are named, their provenance, and that every entry point plays the
model the rules pick."""
from __future__ import annotations

import json

import numpy as np
import pytest

import sim
from kernels.strategies import learned as KL
from sim.core.rules import Rules
from sim.play.game import Game
from sim.strategies import learned as SL

FI = Rules.preset("fibur_international")
FI_MODEL = "learned:model=fibur_international-v1"


def test_the_shipped_lines_and_their_names():
    assert SL.shipped_names() == ["v1", "v2", "v3", "fibur_international-v1", "three_players-v1"]
    assert sorted(SL.lines()) == ["", "fibur_international", "three_players"]
    assert SL.lines()[""] == SL.shipped()                     # the default rules' line
    for given in ("fibur_international", "fibur_international-v1"):
        assert SL.canonical_model(given) == "fibur_international-v1"
        assert sim.strategies.resolve(f"learned:model={given}")[0] == FI_MODEL
    path = SL.shipped("fibur_international")[1]
    assert path.name == "learned-fibur_international-v1.npz"
    # named by its path it is a file like any other (path and digest), not the line's name
    assert SL.canonical_model(str(path)) == f"{path.resolve()}@{SL.digest(path)}"


@pytest.mark.parametrize("model, message", [
    ("fibur_international-v2", r"no shipped model fibur_international-v2 \(shipped: v1, v2, "
                               r"v3, fibur_international-v1, three_players-v1\)"),
    ("fibur_italian", r"no shipped model fibur_italian and no weights file 'fibur_italian' "
                      r"\(shipped: v1, v2, v3, fibur_international-v1, three_players-v1\)"),
    ("v4", r"no shipped version v4 \(shipped: v1, v2, v3\)"),
])
def test_a_model_that_is_not_shipped_is_refused_in_one_line(model, message):
    with pytest.raises(ValueError, match=message) as err:
        sim.strategies.resolve(f"learned:model={model}")
    assert "\n" not in str(err.value) and "burraco train" in str(err.value)


def test_a_lines_rules_are_its_label_runs_rules():
    assert SL.training_rules(SL.shipped()[3]) == Rules()
    assert SL.training_rules(SL.shipped("fibur_international")[1]) == FI
    assert SL.training_rules(SL.shipped("three_players")[1]) == Rules(num_players=3)


@pytest.mark.parametrize("rules, model", [
    (None, "v3"),
    (Rules(), "v3"),
    (Rules.preset("fibur_italian"), "v3"),            # v3 transfers there (docs/rule_sets.md)
    (Rules(num_players=2), "v3"),
    (FI, "fibur_international-v1"),
    (FI.replace(max_turns_per_hand=500), "fibur_international-v1"),   # the cap aside
    # rules no line was trained under: the default line
    (FI.replace(num_players=2), "v3"),
    (FI.replace(require_clean_burraco_to_close=False), "v3"),
    (Rules(num_players=3), "three_players-v1"),                       # partners (R62)
    (Rules(num_players=3, three_player_mode="individual_3x11"), "v3"),  # each alone (R63)
])
def test_learned_plays_the_line_its_rules_pick(rules, model):
    name, _kind, row = sim.strategies.resolve("learned", rules)
    assert name == f"learned:model={model}"
    assert row[KL.LP_WEIGHTS] == SL.address(model)
    # a model named is played whatever the rules
    assert sim.strategies.resolve("learned:model=v2", rules)[0] == "learned:model=v2"
    assert sim.strategies.canonical_name("learned:pickup_margin=5", rules) == \
        f"learned:model={model},pickup_margin=5"


def test_the_fibur_international_model_carries_its_provenance():
    path = SL.shipped("fibur_international")[1]
    prov = json.loads(path.with_suffix(".json").read_text())
    assert SL.read(path).meta == prov
    [m] = prov["label_manifests"]
    assert (m["seed"], m["hands_read"], m["hands_read_are_0_to_n"]) == (301, 4000, True)
    assert Rules.from_dict(m["rules"]) == FI
    assert all(k in m["teacher"] for k in ("halving=0", "rollouts=768", "worlds=64",
                                           "max_candidates=12", "pickup_share=1"))
    t = prov["training"]
    assert (t["seed"], t["epochs"], t["lr"], t["hidden"], t["train_decisions"]) == \
        (1, 10, 3e-4, [64, 32], 293585)
    assert prov["init"] == {"model": "v3", "file": "learned-v3.npz",
                            "digest": SL.digest(SL.shipped()[3])}
    assert "burraco train" in prov["command"] and "--init v3" in prov["command"]


def test_the_three_players_model_carries_its_provenance():
    path = SL.shipped("three_players")[1]
    prov = json.loads(path.with_suffix(".json").read_text())
    assert SL.read(path).meta == prov
    [m] = prov["label_manifests"]
    assert (m["seed"], m["hands_read"], m["hands_read_are_0_to_n"]) == (311, 1000, True)
    assert Rules.from_dict(m["rules"]) == Rules(num_players=3)
    assert all(k in m["teacher"] for k in ("halving=0", "rollouts=768", "worlds=64"))
    t = prov["training"]
    assert (t["seed"], t["epochs"], t["lr"], t["train_decisions"]) == (1, 10, 3e-4, 125765)
    assert prov["init"]["model"] == "v3"


def test_every_entry_point_plays_the_model_the_rules_pick(tmp_path):
    """simulate, compare, sim.Game, replay and analyze under Fibur International record and
    play the preset's model for ``learned``; the records equal those of the model named."""
    plain = sim.simulate(40, 3, "learned", rules=FI, threads=2)
    named = sim.simulate(40, 3, FI_MODEL, rules=FI, threads=2)
    v3 = sim.simulate(40, 3, "learned:model=v3", rules=FI, threads=2)
    assert set(plain["strategy_s0"]) == {FI_MODEL}
    cols = [c for c in plain.columns if not c.startswith("strategy")]
    assert plain[cols].equals(named[cols])
    assert not plain[cols].equals(v3[cols])                  # another model, other hands
    under_default = sim.simulate(5, 3, "learned", threads=2)
    assert set(under_default["strategy_s0"]) == {"learned:model=v3"}

    pairs = sim.compare_hands("learned", "expert", hands=20, seed=3, rules=FI, threads=2)
    assert pairs.attrs["a"] == FI_MODEL

    g = Game.new(seed=3, hand_index=0, rules=FI, strategies="learned")
    assert g.strategies == [FI_MODEL] * 4
    g.play(["learned", None, None, None])
    assert g.strategies[0] == FI_MODEL

    sim.simulate(6, 3, "learned", rules=FI, out=tmp_path / "run", threads=2)
    doc = sim.replay(run=tmp_path / "run", hand_index=2)      # checked against its row
    assert doc["strategies"] == [FI_MODEL] * 4
    assert sim.replay(3, 2, "learned", rules=FI)["events"] == doc["events"]

    game = Game.new(seed=3, hand_index=1, rules=FI, strategies="expert")
    df = sim.analyze(game, rollouts=4, seed=1, policy="learned", threads=2)
    assert df.attrs["policy"] == FI_MODEL
