"""The independent referee on hands simulated by the engine (sim.replay, in sim.trace).

* simulated hands of both strategies, under the default rules and a few option sets,
  must pass the referee with zero violations;
* real documents mutated in one way must be caught (so a clean run means something).
"""
from __future__ import annotations

import copy
import json

import pytest

import referee as R
import sim
import sim.batch.replay as SR


def replay(seed, i, strategy, rules=None):
    doc = SR.replay(seed, i, strategies=strategy, rules=rules)
    return json.loads(json.dumps(doc, ensure_ascii=False))


def assert_clean(doc):
    v = R.check(doc)
    assert not v, "\n".join(map(str, v))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_simulated_hands_are_legal(strategy):
    for i in range(150):
        assert_clean(replay(101, i, strategy))


def test_the_learned_players_hands_are_legal(tmp_path):
    """``learned`` (an untrained network: every path of the kernel plays) under the default
    rules and the FIBUR Italian preset."""
    from sim.strategies.train import untrained
    spec = (f"learned:model={untrained(tmp_path / 'w.npz', seed=13)},"
            "pickup_margin=0,discard_margin=0")
    for i in range(40):
        assert_clean(replay(404, i, spec))
        assert_clean(replay(405, i, spec, sim.Rules.preset("fibur_italian")))


VARIANTS = {
    "short_stall_and_cap": {"stall_turn_limit": 2, "max_turns_per_hand": 30},
    "international_close_and_sets": {"require_clean_burraco_to_close": True,
                                     "set_ranks": ("A", "3")},
    "big_reserve_pile_close": {"stock_reserve": 20, "pile_close_no_bonus": True},
    "duplicates_and_rediscard": {"allow_duplicate_set_rank": True,
                                 "forbid_rediscard_single_pile": False},
    "bonus_values": {"clean_bonus": 250, "dirty_bonus": 50, "closing_bonus": 0,
                     "pozzetto_penalty": 200},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_simulated_hands_under_options(name, strategy):
    rules = sim.Rules(**VARIANTS[name])
    for i in range(60):
        assert_clean(replay(202, i, strategy, rules))


# ----------------------------------------------------------------------------- mutations
@pytest.fixture(scope="module")
def sample():
    return [replay(303, i, s) for s in ("random", "heuristic") for i in range(40)]


def rules_of(doc):
    return {v.rule for v in R.check(doc)}


def test_merged_lay_offs_stay_legal(sample):
    """Consecutive one-card lay-offs on one meld, merged into one action: still legal (R24)."""
    merged = 0
    for doc in sample:
        d = copy.deepcopy(doc)
        out = []
        for e in d["events"]:
            prev = out[-1] if out else None
            if (e["type"] == "lay_off" and prev is not None and prev["type"] == "lay_off"
                    and prev["turn"] == e["turn"] and prev["team"] == e["team"]
                    and prev["meld"] == e["meld"]):
                prev["cards"] += e["cards"]
                prev["card_ids"] += e["card_ids"]
                merged += 1
                continue
            out.append(e)
        d["events"] = out
        assert_clean(d)
    assert merged > 0


def test_flipped_closes_flag_is_caught(sample):
    n = 0
    for doc in sample:
        d = copy.deepcopy(doc)
        discards = [e for e in d["events"] if e["type"] == "discard"]
        discards[-1]["closes"] = not discards[-1]["closes"]
        assert "R45" in rules_of(d)
        n += 1
    assert n


def test_changed_end_reason_is_caught(sample):
    for doc in sample:
        d = copy.deepcopy(doc)
        end = d["events"][-1]
        end["reason"] = "stall" if end["reason"] != "stall" else "closed"
        v = rules_of(d)
        assert v & {"R47", "R50", "R51", "R52", "R49"}, v


def test_every_result_column_is_checked(sample):
    doc = sample[0]
    for key, val in doc["result"].items():
        if key in ("hand_index", "run_id") or key.startswith("strategy_"):
            continue
        d = copy.deepcopy(doc)
        if isinstance(val, bool):
            d["result"][key] = not val
        elif isinstance(val, int):
            d["result"][key] = val + 5
        else:
            d["result"][key] = "bogus"
        assert R.check(d), f"a wrong {key} was not noticed"


def test_lay_off_moved_to_the_opponents_is_caught(sample):
    n = 0
    for doc in sample:
        d = copy.deepcopy(doc)
        for e in d["events"]:
            if e["type"] == "lay_off":
                other = 1 - e["team"]
                e["team"] = other
                break
        else:
            continue
        n += 1
        assert "R21" in rules_of(d)
    assert n


def test_draw_of_a_lower_stock_card_is_caught(sample):
    for doc in sample:
        d = copy.deepcopy(doc)
        e = next(e for e in d["events"] if e["type"] == "draw")
        pos = d["deal_ids"]["stock"].index(e["card_id"])
        e["card_id"] = d["deal_ids"]["stock"][pos + 1]
        e["card"] = R.card_text(e["card_id"])
        assert "R33" in rules_of(d)


def test_dropped_pozzetto_event_is_caught(sample):
    n = 0
    for doc in sample:
        d = copy.deepcopy(doc)
        idx = [k for k, e in enumerate(d["events"]) if e["type"] == "pozzetto"]
        if not idx:
            continue
        del d["events"][idx[0]]
        n += 1
        assert "R41" in rules_of(d)
    assert n


def test_discard_moved_before_the_melds_is_caught(sample):
    n = 0
    for doc in sample:
        d = copy.deepcopy(doc)
        ev = d["events"]
        for k, e in enumerate(ev):
            if e["type"] == "discard" and k >= 2 and ev[k - 1]["type"] in ("meld", "lay_off") \
                    and ev[k - 1]["turn"] == e["turn"]:
                ev[k - 1], ev[k] = ev[k], ev[k - 1]
                n += 1
                assert "R32" in rules_of(d)
                break
    assert n


def test_rediscard_of_the_single_pile_card_is_caught(sample):
    """Swap the identities of the taken card and a discarded same-face copy (R36)."""
    n = 0
    for doc in sample:
        for k, e in enumerate(doc["events"]):
            if e["type"] != "take_pile" or len(e["card_ids"]) != 1:
                continue
            taken = e["card_ids"][0]
            disc = next(x for x in doc["events"][k:] if x["type"] == "discard")
            if disc["card_id"] == taken:
                raise AssertionError(f"engine re-discarded the single pile card: {disc}")
            d = copy.deepcopy(doc)
            dk = d["events"].index(next(x for x in d["events"][k:] if x["type"] == "discard"))
            d["events"][dk]["card_id"] = taken
            d["events"][dk]["card"] = R.card_text(taken)
            n += 1
            assert "R36" in rules_of(d)
            break
    assert n
