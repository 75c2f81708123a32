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


@pytest.mark.slow
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
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--hand must be" in bad.stderr


# ---------------------------------------------------------------- replay from the run directory
import shutil                                                            # noqa: E402
from pathlib import Path                                                 # noqa: E402

import pyarrow as pa                                                     # noqa: E402
import pyarrow.parquet as pq                                             # noqa: E402

from kernels.core import layout as L                                          # noqa: E402
from sim.cli import main                                                 # noqa: E402

MIXED = ["heuristic", "random", "expert", "random"]


def same_record(doc, row):
    """Every record column of the replay equals the run's row (nulls included)."""
    for col in L.REC_COLUMNS:
        want = row[col]
        if pd.isna(want):                    # columns that do not apply (3rd player, solo_seat)
            assert doc["result"][col] is None, col
        elif isinstance(doc["result"][col], str):
            assert doc["result"][col] == str(want), col
        else:
            assert doc["result"][col] == int(want), col


def hand_shards(directory):
    """The hand-row shard files of a run (wherever the layout puts them)."""
    root = Path(directory)
    return sorted(p for p in root.rglob("shard-*.parquet")
                  if not {"_matches", "matches"} & set(p.relative_to(root).parts[:-1]))


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("mixed") / "run"
    df = sim.simulate(500, 21, strategies=MIXED, out=out, shard_size=200, threads=2,
                      progress=False)
    return out, df


@pytest.fixture(scope="module")
def match_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("matches") / "run"
    return out, sim.simulate_matches(5, 2, out=out, threads=2, progress=False).hands


def test_run_form_replays_a_mixed_seat_hand_run(mixed_run):
    out, df = mixed_run
    differs = 0
    for i in (0, 57, 123, 250, 499):
        doc = sim.replay(run=out, hand_index=i)
        assert doc["seed"] == 21 and doc["strategies"] == MIXED
        same_record(doc, df.iloc[i])
        plain = sim.replay(21, i)             # the seed form with its default strategies
        differs += plain["result"]["score_t0"] != df.iloc[i]["score_t0"]
    assert differs >= 3                       # what forgetting --strategy used to replay


@pytest.mark.slow
def test_run_form_replays_every_hand_of_a_match_run(match_run):
    out, hands = match_run
    assert hands["match"].nunique() == 5 and len(hands) > 10
    without_dealer = 0
    for _, row in hands.iterrows():
        i = int(row["hand_index"])
        doc = sim.replay(run=out, hand_index=i)
        assert doc["dealer"] == row["dealer"]
        same_record(doc, row)
        without_dealer += sim.replay(2, i)["result"]["score_t0"] != row["score_t0"]
    assert without_dealer >= 3                # the dealer is taken from the row


def test_run_form_replays_individual_hands_of_a_three_player_match(tmp_path):
    solo = sim.Rules(num_players=3)
    assert solo.three_player_mode == "solo_18"
    out = tmp_path / "run"
    hands = sim.simulate_matches(2, 3, rules=solo, out=out, threads=2, progress=False).hands
    individual = hands["individual"].astype(bool)
    assert 0 < individual.sum() < len(hands)
    solo_differs = 0
    for _, row in hands.iterrows():
        doc = sim.replay(run=out, hand_index=int(row["hand_index"]))
        same_record(doc, row)
        assert doc["rules"]["three_player_mode"] == ("individual_3x11" if row["individual"]
                                                     else "solo_18")
        if row["individual"]:
            as_solo = sim.replay(3, int(row["hand_index"]), rules=solo, dealer=int(row["dealer"]))
            solo_differs += as_solo["result"]["score_t0"] != row["score_t0"]
    assert solo_differs >= 1                  # individual_3x11 is taken from the row


def test_run_form_replays_two_player_runs(tmp_path):
    two = sim.Rules(num_players=2)
    out = tmp_path / "hands"
    df = sim.simulate(40, 8, strategies=["random", "expert", "heuristic", "heuristic"],
                      rules=two, out=out, threads=1, progress=False)
    for i in (0, 17, 39):
        doc = sim.replay(run=out, hand_index=i)
        assert doc["strategies"] == ["random", "expert", None, None]
        assert doc["rules"]["num_players"] == 2
        same_record(doc, df.iloc[i])
    out = tmp_path / "matches"
    hands = sim.simulate_matches(2, 5, rules=two, out=out, threads=1, progress=False).hands
    for _, row in hands.iterrows():
        same_record(sim.replay(run=out, hand_index=int(row["hand_index"])), row)


def test_cli_run_form_prints_the_recorded_hand(mixed_run, capsys):
    out, df = mixed_run
    assert main(["replay", str(out), "--hand", "123", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads(json.dumps(sim.replay(run=out, hand_index=123), ensure_ascii=False))
    assert (doc["result"]["score_t0"], doc["result"]["score_t1"]) == (df.iloc[123]["score_t0"],
                                                                      df.iloc[123]["score_t1"])
    assert main(["replay", str(out), "--hand", "123"]) == 0
    assert "seat 1: random" in capsys.readouterr().out


def _one_line_error(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("burraco: error: ") and err.count("\n") == 1, err
    assert needle in err, err


@pytest.mark.parametrize("option", [["--seed", "21"], ["--strategy", "random"],
                                    ["--team0", "random"], ["--team1", "random"],
                                    ["--strategy-file", "x.toml"], ["--rules", "default"],
                                    ["--rule", "target_score=1505"], ["--players", "4"],
                                    ["--dealer", "0"]])
def test_cli_refuses_options_the_run_fixes(mixed_run, capsys, option):
    out, _ = mixed_run
    where = f"the run in {str(out)!r}" if option[0] == "--strategy" else "the run in DIR"
    _one_line_error(capsys, ["replay", str(out), "--hand", "3", *option],
                    f"{option[0]} is taken from {where}; leave it out")


def test_refuses_hands_the_run_does_not_hold(mixed_run, match_run, capsys):
    out, _ = mixed_run
    _one_line_error(capsys, ["replay", str(out), "--hand", "500"], "has hands 0..499, not hand 500")
    mout, hands = match_run
    n0 = int((hands["match"] == 0).sum())
    _one_line_error(capsys, ["replay", str(mout), "--hand", str(n0)],
                    f"hand {n0} is not a hand of the match run")
    _one_line_error(capsys, ["replay", str(mout), "--hand", "12"],
                    f"hand k of match m is m*65536+k, and match 0 has {n0} hands, 0..{n0 - 1}")
    _one_line_error(capsys, ["replay", str(mout), "--hand", str(5 * 65536)],
                    "the run has matches 0..4")
    _one_line_error(capsys, ["replay", "--hand", "3"], "give a run directory")
    with pytest.raises(ValueError, match="seed is taken from the run"):
        sim.replay(21, 3, run=out)
    with pytest.raises(ValueError, match="strategies is taken from the run"):
        sim.replay(run=out, hand_index=3, strategies="random")
    with pytest.raises(ValueError, match="give the run's seed"):
        sim.replay(hand_index=3)
    with pytest.raises(ValueError, match="run must be a run directory path"):
        sim.replay(run=21, hand_index=3)
    with pytest.raises(ValueError, match="does not exist"):
        sim.replay(run=out / "nothing", hand_index=3)


@pytest.mark.slow
def test_refuses_exit_code_in_a_process(mixed_run):
    out, _ = mixed_run
    r = subprocess.run([sys.executable, "-m", "sim", "replay", str(out), "--hand", "-1"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--hand must be" in r.stderr
    r = subprocess.run([sys.executable, "-m", "sim", "replay", str(out), "--hand", "1",
                        "--seed", "21"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr == ("burraco: error: --seed is taken from the run in "
                                              "DIR; leave it out\n")


def _not_yet_written(run, shard) -> None:
    """Make ``shard`` of a copied run a shard not written yet (as in an interrupted run)."""
    shard.unlink()
    m = json.loads((run / "_manifest.json").read_text())
    m["shards"] = [n for n in m["shards"] if n != shard.name]
    m["finished"] = False
    (run / "_manifest.json").write_text(json.dumps(m))


def test_incomplete_shards(mixed_run, match_run, tmp_path, capsys):
    out, df = mixed_run
    part = tmp_path / "hands"
    shutil.copytree(out, part)
    _not_yet_written(part, hand_shards(part)[1])             # hands 200..399
    assert len(sim.load(part)) == 300
    # a hand run's deal is fixed by its manifest: replayed, nothing to compare with
    same_record(sim.replay(run=part, hand_index=250), df.iloc[250])
    mout, hands = match_run
    mpart = tmp_path / "matches"
    shutil.copytree(mout, mpart)
    for p in hand_shards(mpart):
        _not_yet_written(mpart, p)
    _one_line_error(capsys, ["replay", str(mpart), "--hand", "1"],
                    "match 0 is not in a complete shard yet")


def test_a_row_that_the_replay_does_not_give_is_reported(mixed_run, tmp_path, capsys):
    out, df = mixed_run
    bad = tmp_path / "run"
    shutil.copytree(out, bad)
    for path in hand_shards(bad):
        table = pq.read_table(path)
        idx = table.column("hand_index").to_pylist()
        if 250 in idx:
            j = table.schema.get_field_index("score_t1")
            scores = table.column(j).to_pylist()
            scores[idx.index(250)] += 5
            table = table.set_column(j, table.schema.field(j),
                                     pa.array(scores, table.schema.field(j).type))
            pq.write_table(table, path)
    wrong = int(df.iloc[250]["score_t1"]) + 5
    assert sim.load(bad, filter=[("hand_index", "==", 250)])["score_t1"].iloc[0] == wrong
    with pytest.raises(R.ReplayMismatchError, match=f"score_t1 = {wrong - 5}, but the run's "
                                                    f"row has {wrong}"):
        sim.replay(run=bad, hand_index=250)
    sim.replay(run=bad, hand_index=249)                     # the other rows are still right
    assert main(["replay", str(bad), "--hand", "250"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("burraco: error: replay: hand 250") \
        and captured.err.count("\n") == 1


def test_docs_describe_the_run_form():
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "replay.md").read_text(encoding="utf-8")
    assert "(docs/replay.md)" in (root / "README.md").read_text(encoding="utf-8")
    assert "burraco replay DIR --hand I" in text and "sim.replay(run=DIR, hand_index=I)" in text
    assert "burraco replay --seed S --hand I" in text            # the seed form stays documented
    helptext = subprocess.run([sys.executable, "-m", "sim", "replay", "--help"],
                              capture_output=True, text=True, check=True).stdout
    assert "burraco replay DIR --hand I" in " ".join(helptext.split())
    assert "run=DIR" in sim.replay.__doc__ and "ReplayMismatchError" in sim.replay.__doc__
