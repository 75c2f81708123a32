"""Replay: the replayed hand is the simulated hand, and its event log is complete."""
import json
import subprocess
import sys

import pandas as pd
import pytest

import sim
from sim import trace as R


@pytest.fixture(scope="module")
def records():
    return sim.simulate(40, seed=3, strategies="heuristic")


@pytest.mark.parametrize("index", [0, 7, 23, 39])
def test_replay_record_equals_simulated_record(records, index):
    doc = sim.replay(3, index)
    row = records.iloc[index]
    for key, value in doc["result"].items():
        expected = row[key]
        if pd.api.types.is_scalar(expected) and pd.isna(expected):   # 3-player columns, 4 players
            assert value is None, key
            continue
        expected = expected.item() if hasattr(expected, "item") else expected
        assert value == expected, key


def test_replay_random_strategy_matches_simulation():
    df = sim.simulate(10, seed=5, strategies="random")
    for i in (0, 9):
        doc = R.replay(5, i, strategies="random")
        assert doc["result"]["score_t0"] == df.iloc[i]["score_t0"]
        assert doc["result"]["turns"] == df.iloc[i]["turns"]


def test_document_schema_and_turn_structure():
    doc = R.replay(11, 4)
    assert set(doc) == {"seed", "hand_index", "rules", "strategies", "dealer", "first_player",
                        "deal", "deal_ids", "events", "result"}
    assert doc["rules"] == sim.Rules().to_dict()
    deal = sim.deal(11, 4)
    assert doc["deal_ids"]["stock"] == deal.stock.astype(int).tolist()
    assert doc["deal"]["discard"] == sim.notation.format_card(deal.discard)
    ev = doc["events"]
    assert ev[-1]["type"] == "end" and ev[-1]["reason"] == doc["result"]["end_reason"]
    turns = sorted({e["turn"] for e in ev})
    assert turns == list(range(1, doc["result"]["turns"] + 1))
    for t in turns:
        kinds = [e["type"] for e in ev if e["turn"] == t and e["type"] != "end"]
        assert kinds[0] in ("draw", "take_pile")
        assert kinds.count("discard") == 1
        seat = {e["seat"] for e in ev if e["turn"] == t}
        assert seat == {(doc["first_player"] + t - 1) % 4}
    for e in ev:
        if "cards" in e:
            assert e["cards"] == [sim.notation.format_card(i) for i in e["card_ids"]]


def test_closing_discard_is_marked():
    for i in range(20):
        doc = R.replay(2, i)
        closes = [e for e in doc["events"] if e["type"] == "discard" and e["closes"]]
        if doc["result"]["end_reason"] == "closed":
            assert len(closes) == 1 and doc["events"][-2] is closes[0]
            assert closes[0]["seat"] == doc["result"]["closing_seat"]
        else:
            assert closes == []


def test_cli_replay_json_and_text():
    out = subprocess.run([sys.executable, "-m", "sim", "replay", "--seed", "3", "--hand", "7",
                          "--format", "json"], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc == json.loads(json.dumps(R.replay(3, 7), ensure_ascii=False))
    text = subprocess.run([sys.executable, "-m", "sim", "replay", "--seed", "3", "--hand", "7"],
                          capture_output=True, text=True, check=True).stdout
    assert "turn   1" in text and "team 0: score" in text
    bad = subprocess.run([sys.executable, "-m", "sim", "replay", "--seed", "3", "--hand", "-2"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "hand_index" in bad.stderr
