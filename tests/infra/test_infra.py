"""Tests of the driver infrastructure that need no game kernel: notation, Rules,
the Parquet schema, the summary, argument validation, the CLI's error handling,
and the README, docs/ and CI files."""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from kernels.core import layout as L
from sim import dataset, executors, notation, runner
from sim.cli import main
from sim.core.rules import ENUMS, PRESETS, Rules

ROOT = Path(__file__).resolve().parents[2]
TEST_COMMAND = 'pip install -e ".[dev]" -c .ci/constraints.txt && pytest'
RUN_COMMAND = 'pip install -e ".[dev]" && burraco simulate --hands 1000000 --seed 1 --out runs/demo'


def one_line(msg: str) -> bool:
    return "\n" not in msg.strip()


# ============================================================== notation
def test_all_108_ids_round_trip_in_order():
    ids = np.arange(108)
    text = notation.format(ids)
    assert notation.parse(text).tolist() == ids.tolist()
    assert notation.parse(text).dtype == np.int8


@pytest.mark.parametrize("card", range(108))
def test_each_id_round_trips_to_its_face(card):
    text = notation.format([card])
    back = notation.parse(text)
    assert back.shape == (1,)
    if card % 54 >= 52:
        assert back[0] == 52               # the first joker handed out
    else:
        assert back[0] == card % 54        # first occurrence is copy 0


def test_format_examples():
    assert notation.format([39, 40, 52, 93, 35]) == "A♠ 2♠ JK A♠ 10♥"
    assert notation.format(np.array([], np.int8)) == ""


def test_parse_examples_and_input_forms():
    assert notation.parse("As 2s 3s").tolist() == [39, 40, 41]
    assert notation.parse("10♥ J♥ Q♥").tolist() == [35, 36, 37]
    assert notation.parse("th, Jh,qH").tolist() == [35, 36, 37]
    assert notation.parse("10♥\ufe0f  A♠").tolist() == [35, 39]
    assert notation.parse("Ac a♣ 2♧ 3♢ 4♡ 5♤").tolist() == [0, 54, 1, 15, 29, 43]
    assert notation.parse("Kd 5c").tolist() == [13 + 12, 4]
    assert notation.parse("").tolist() == []
    assert notation.parse("  , ").tolist() == []


def test_jokers_assigned_in_order():
    assert notation.parse("JK jk JK Jk").tolist() == [52, 53, 106, 107]


def test_copies_counted_per_card():
    assert notation.parse("7c 7c").tolist() == [6, 60]
    assert notation.parse("7c 7d 7c").tolist() == [6, 19, 60]


@pytest.mark.parametrize("text,token", [
    ("Qs Qs Qs", "Qs"),
    ("JK JK JK JK JK", "JK"),
    ("As 1s", "1s"),
    ("As 11c", "11c"),
    ("Zs", "Zs"),
    ("A", "A"),
    ("10x", "10x"),
    ("2♠ J♥♥", "J♥♥"),
])
def test_parse_errors_name_the_token(text, token):
    with pytest.raises(ValueError) as exc:
        notation.parse(text)
    assert repr(token) in str(exc.value)
    assert one_line(str(exc.value))


def test_parse_many_shares_one_deck():
    a, b = notation.parse_many(["Ks JK", "Ks JK"])
    assert a.tolist() == [51, 52] and b.tolist() == [105, 53]
    with pytest.raises(ValueError, match="'Ks'"):
        notation.parse_many(["Ks", "Ks", "Ks"])


@pytest.mark.parametrize("bad", [-1, 108, 3.0, True])
def test_format_rejects_bad_ids(bad):
    with pytest.raises(ValueError):
        notation.format([bad])


def test_parse_rejects_non_string():
    with pytest.raises(ValueError):
        notation.parse(["As"])


# ============================================================== Rules
SECTION_14_DEFAULTS = {
    "num_players": 4, "hand_size": 11, "pozzetto_size": 11, "three_player_mode": "solo_18",
    "set_ranks": ["A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"],
    "allow_duplicate_set_rank": False, "lock_two_roles": False, "semi_clean_bonus": None,
    "semi_clean_rule": "adjacent_run", "extra_burraco_classes": False,
    "take_pile_requires_meld": False, "forbid_rediscard_single_pile": True,
    "require_clean_burraco_to_close": False, "stock_reserve": 2, "stock_end_mode": "finish_turn",
    "stall_turn_limit": 12, "max_turns_per_hand": 400, "untaken_pozzetto_as_stock": False,
    "clean_bonus": 200, "dirty_bonus": 100, "closing_bonus": 100, "pozzetto_penalty": 100,
    "target_score": 2005, "pile_close_no_bonus": False, "pile_meld_source": "any",
    "three_player_pozzetto_a_size": 18, "three_player_pair_share": "full",
    "three_player_switch_at": 1000, "three_player_target": 2005,
}


def test_defaults_match_section_14():
    assert Rules().to_dict() == SECTION_14_DEFAULTS
    assert list(Rules.options()) == list(SECTION_14_DEFAULTS)


def test_to_dict_is_json_and_round_trips():
    for name in PRESETS:
        r = Rules.preset(name)
        d = json.loads(json.dumps(r.to_dict()))
        assert Rules.from_dict(d) == r
        assert hash(Rules.from_dict(d)) == hash(r)


def test_presets():
    assert Rules.preset("default") == Rules()
    assert Rules.preset("fibur_italian") == Rules(semi_clean_bonus=150)
    intl = Rules.preset("fibur_international")
    assert intl.require_clean_burraco_to_close and intl.take_pile_requires_meld
    assert intl.set_ranks == ("A", "3")
    assert intl.semi_clean_bonus is None
    with pytest.raises(ValueError) as exc:
        Rules.preset("pagat")
    assert "'pagat'" in str(exc.value)
    for name in PRESETS:
        assert name in str(exc.value)


def test_set_ranks_normalised():
    r = Rules(set_ranks={"k", "T", "a", "3"})
    assert r.set_ranks == ("A", "3", "10", "K")
    assert Rules(set_ranks=frozenset(["3", "A"])) == Rules(set_ranks=("A", "3"))


BAD_VALUES = [
    ("num_players", 5), ("num_players", 1), ("num_players", "4"), ("num_players", 4.0),
    ("hand_size", 0), ("hand_size", True), ("pozzetto_size", -1),
    ("three_player_mode", "solo"), ("set_ranks", ["2"]), ("set_ranks", "A3"),
    ("set_ranks", ["A", "X"]), ("set_ranks", 5), ("allow_duplicate_set_rank", 1),
    ("lock_two_roles", "yes"), ("semi_clean_bonus", 0), ("semi_clean_bonus", 151),
    ("semi_clean_bonus", "150"), ("semi_clean_rule", "wild"), ("extra_burraco_classes", None),
    ("take_pile_requires_meld", 0), ("forbid_rediscard_single_pile", "true"),
    ("require_clean_burraco_to_close", 1.0), ("stock_reserve", -1), ("stock_reserve", 2.5),
    ("stock_end_mode", "now"), ("stall_turn_limit", 0), ("max_turns_per_hand", 0),
    ("max_turns_per_hand", 10**6), ("untaken_pozzetto_as_stock", "no"), ("clean_bonus", 201),
    ("dirty_bonus", -5), ("closing_bonus", None), ("pozzetto_penalty", 99), ("target_score", 0),
    ("pile_close_no_bonus", 2), ("pile_meld_source", "pile"),
    ("three_player_pozzetto_a_size", 0), ("three_player_pair_share", "half"),
    ("three_player_switch_at", -1), ("three_player_target", "2005"),
]


def test_every_option_has_a_bad_value_case():
    assert {name for name, _ in BAD_VALUES} == set(Rules.options())


@pytest.mark.parametrize("name,value", BAD_VALUES)
def test_validation_names_the_field(name, value):
    with pytest.raises(ValueError) as exc:
        Rules(**{name: value})
    msg = str(exc.value)
    assert msg.startswith(f"rules: {name} must be "), msg
    assert one_line(msg)
    with pytest.raises(ValueError, match=f"rules: {name} "):
        Rules().replace(**{name: value})


@pytest.mark.parametrize("name", list(ENUMS))
def test_enum_errors_list_allowed_values(name):
    with pytest.raises(ValueError) as exc:
        Rules(**{name: "nope"})
    for allowed in ENUMS[name]:
        assert repr(allowed) in str(exc.value)


def test_impossible_deal_refused():
    with pytest.raises(ValueError, match="stock_reserve"):
        Rules(hand_size=20, pozzetto_size=13)


def test_unknown_option_refused():
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        Rules().replace(colour=1)
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        Rules.from_dict({"colour": 1})
    with pytest.raises(ValueError):
        Rules.from_dict([("num_players", 4)])


def test_rules_are_immutable():
    with pytest.raises(Exception):
        Rules().num_players = 3


def test_to_vector_slots():
    v = Rules().to_vector()
    assert v.dtype == np.int64 and v.shape == (L.N_RULES,)
    assert v[L.RV_NUM_PLAYERS] == 4 and v[L.RV_HAND_SIZE] == 11 and v[L.RV_POZZETTO_SIZE] == 11
    assert v[L.RV_SET_RANKS_MASK] == (1 << 13) - 1 - (1 << 1)      # every rank but the two
    assert v[L.RV_SEMI_CLEAN_BONUS] == 0
    assert v[L.RV_FORBID_REDISCARD_SINGLE_PILE] == 1
    assert v[L.RV_STOCK_RESERVE] == 2 and v[L.RV_STALL_TURN_LIMIT] == 12
    assert v[L.RV_MAX_TURNS_PER_HAND] == 400
    assert (v[L.RV_CLEAN_BONUS], v[L.RV_DIRTY_BONUS], v[L.RV_CLOSING_BONUS],
            v[L.RV_POZZETTO_PENALTY]) == (200, 100, 100, 100)
    assert v[L.RV_TARGET_SCORE] == 2005
    assert v[L.RV_THREE_PLAYER_POZZETTO_A_SIZE] == 18
    assert v[L.RV_THREE_PLAYER_SWITCH_AT] == 1000 and v[L.RV_THREE_PLAYER_TARGET] == 2005
    for slot in (L.RV_ALLOW_DUPLICATE_SET_RANK, L.RV_LOCK_TWO_ROLES, L.RV_SEMI_CLEAN_RULE,
                 L.RV_EXTRA_BURRACO_CLASSES, L.RV_TAKE_PILE_REQUIRES_MELD,
                 L.RV_REQUIRE_CLEAN_BURRACO_TO_CLOSE, L.RV_STOCK_END_MODE,
                 L.RV_UNTAKEN_POZZETTO_AS_STOCK, L.RV_PILE_CLOSE_NO_BONUS, L.RV_PILE_MELD_SOURCE,
                 L.RV_THREE_PLAYER_MODE, L.RV_THREE_PLAYER_PAIR_SHARE):
        assert v[slot] == 0

    w = Rules(set_ranks=("A", "3"), semi_clean_bonus=150, semi_clean_rule="wild_at_end",
              stock_end_mode="immediate", pile_meld_source="from_pile",
              three_player_mode="individual_3x11", three_player_pair_share="half_round_up",
              lock_two_roles=True, forbid_rediscard_single_pile=False, clean_bonus=300).to_vector()
    assert w[L.RV_SET_RANKS_MASK] == 0b101
    assert w[L.RV_SEMI_CLEAN_BONUS] == 150 and w[L.RV_SEMI_CLEAN_RULE] == 1
    assert w[L.RV_STOCK_END_MODE] == 1 and w[L.RV_PILE_MELD_SOURCE] == 1
    assert w[L.RV_THREE_PLAYER_MODE] == 1 and w[L.RV_THREE_PLAYER_PAIR_SHARE] == 1
    assert w[L.RV_LOCK_TWO_ROLES] == 1 and w[L.RV_FORBID_REDISCARD_SINGLE_PILE] == 0
    assert w[L.RV_CLEAN_BONUS] == 300


def test_every_rv_slot_is_written():
    slots = sorted(v for k, v in vars(L).items() if k.startswith("RV_"))
    assert slots == list(range(L.N_RULES))
    # a rule set where every option differs from zero in its vector slot
    r = Rules(semi_clean_bonus=150, semi_clean_rule="wild_at_end", lock_two_roles=True,
              allow_duplicate_set_rank=True, extra_burraco_classes=True,
              take_pile_requires_meld=True, require_clean_burraco_to_close=True,
              stock_end_mode="immediate", untaken_pozzetto_as_stock=True,
              pile_close_no_bonus=True, pile_meld_source="from_pile",
              three_player_mode="individual_3x11", three_player_pair_share="half_round_up")
    assert np.all(r.to_vector() != 0)


def test_check_supported_accepts_every_option():
    Rules().check_supported()
    Rules(untaken_pozzetto_as_stock=True, num_players=3, stock_end_mode="immediate",
          extra_burraco_classes=True, hand_size=9, pozzetto_size=13).check_supported()
    Rules.preset("fibur_italian").check_supported()
    Rules(set_ranks=("A", "3"), require_clean_burraco_to_close=True, allow_duplicate_set_rank=True,
          semi_clean_bonus=150, semi_clean_rule="wild_at_end", forbid_rediscard_single_pile=False,
          stock_reserve=0, stall_turn_limit=4, max_turns_per_hand=50, clean_bonus=300,
          pile_close_no_bonus=True, lock_two_roles=True).check_supported()
    Rules.preset("fibur_international").check_supported()
    Rules(take_pile_requires_meld=True, pile_meld_source="from_pile").check_supported()


# ============================================================== dataset
def fake_records(n: int, seed: int = 0) -> np.ndarray:
    """Plausible record rows (right ranges per column), no game played."""
    g = np.random.default_rng(seed)
    rec = np.zeros((n, L.N_REC), np.int32)
    rec[:, L.REC_DEALER] = g.integers(0, 4, n)
    rec[:, L.REC_FIRST_PLAYER] = (rec[:, L.REC_DEALER] + 1) % 4
    rec[:, L.REC_END_REASON] = g.integers(0, len(L.END_REASONS), n)
    rec[:, L.REC_TURNS] = g.integers(1, 400, n)
    rec[:, L.REC_CLOSING_SEAT] = g.integers(-1, 4, n)
    rec[:, L.REC_STOCK_LEFT] = g.integers(2, 42, n)
    rec[:, L.REC_PILE_LEFT] = g.integers(0, 60, n)
    for t in (0, 1):
        base = L.N_HAND_COLS + t * L.N_TEAM_COLS
        rec[:, base + L.TC_SCORE] = g.integers(-300, 300, n) * 5
        rec[:, base + L.TC_MELD_POINTS] = g.integers(0, 200, n) * 5
        rec[:, base + L.TC_CLEAN] = g.integers(0, 3, n)
        rec[:, base + L.TC_DIRTY] = g.integers(0, 3, n)
        rec[:, base + L.TC_CLOSED] = g.integers(0, 2, n)
        rec[:, base + L.TC_POZ_TAKEN] = g.integers(0, 2, n)
        rec[:, base + L.TC_POZ_TURN] = g.integers(-1, 100, n)
        rec[:, base + L.TC_POZ_MODE] = g.integers(0, len(L.POZZETTO_MODES), n)
        rec[:, base + L.TC_PILE_CARDS] = g.integers(0, 2000, n)
    return rec


def test_schema_covers_every_record_column():
    names = [c.name for c in dataset.COLUMNS]
    assert names == (["run_id", "hand_index"] + [f"strategy_s{s}" for s in range(4)]
                     + list(L.REC_COLUMNS))
    assert len(set(names)) == len(names)
    for c in dataset.COLUMNS:
        assert c.unit and c.description, c.name
    types = {c.name: c.type for c in dataset.COLUMNS}
    for t in (0, 1):
        assert types[f"closed_t{t}"] == pa.bool_()
        assert types[f"pozzetto_taken_t{t}"] == pa.bool_()
        assert pa.types.is_dictionary(types[f"pozzetto_mode_t{t}"])
    assert pa.types.is_dictionary(types["end_reason"])
    assert types["hand_index"] == pa.int64()


def test_records_table_round_trip():
    rec = fake_records(500)
    names = ["heuristic", "random", "heuristic", "heuristic:pile_threshold=3"]
    table = dataset.records_to_table(rec, 1000, "abc", names)
    assert table.schema == dataset.SCHEMA
    assert table.num_rows == 500
    assert np.array_equal(dataset.table_to_records(table), rec)
    df = dataset.table_to_frame(table)
    assert df["hand_index"].tolist() == list(range(1000, 1500))
    assert df["strategy_s3"].iloc[0] == "heuristic:pile_threshold=3"
    assert set(df["end_reason"].unique()) <= set(L.END_REASONS)
    assert df["closed_t0"].dtype == bool
    j = L.REC_COLUMNS.index("end_reason")
    assert [L.END_REASONS[k] for k in rec[:5, j]] == df["end_reason"].iloc[:5].tolist()


def test_records_out_of_range_refused():
    rec = fake_records(3)
    rec[0, L.REC_END_REASON] = 9
    with pytest.raises(Exception):
        dataset.records_to_table(rec, 0, "x", ["heuristic"] * 4)
    rec = fake_records(3)
    rec[0, L.REC_DEALER] = 300            # does not fit int8
    with pytest.raises(ValueError, match="dealer"):
        dataset.records_to_table(rec, 0, "x", ["heuristic"] * 4)
    with pytest.raises(ValueError):
        dataset.records_to_table(rec[:, :5], 0, "x", ["heuristic"] * 4)


def test_write_shard_atomic_with_metadata(tmp_path):
    rec = fake_records(20)
    table = dataset.records_to_table(rec, 0, "rid", ["heuristic"] * 4)
    path = tmp_path / dataset.SHARD_PATTERN.format(a=0, b=20)
    dataset.write_shard(table, path, {"seed": 5})
    assert path.exists() and not Path(dataset.temp_name(path)).exists()
    assert dataset.temp_name(path) == str(tmp_path / f".{path.name}.tmp")
    assert dataset.read_metadata(path) == {"seed": 5}
    table2 = dataset.records_to_table(fake_records(10, 1), 20, "rid", ["heuristic"] * 4)
    dataset.write_shard(table2, tmp_path / dataset.SHARD_PATTERN.format(a=20, b=30))
    # a half-written file has a hidden name: plain readers of the directory skip it
    (tmp_path / ".shard-000000000030-000000000040.parquet.tmp").write_bytes(b"partial")
    df = pd.read_parquet(tmp_path)
    assert sorted(df["hand_index"].tolist()) == list(range(30))
    assert df["score_t2"].dtype == "Int32" and df["closed_t2"].dtype == "boolean"


def test_write_shard_leaves_nothing_on_failure(tmp_path):
    path = tmp_path / "shard-000000000000-000000000001.parquet"
    with pytest.raises(Exception):
        dataset.write_shard("not a table", path)
    assert list(tmp_path.iterdir()) == []


# ============================================================== summary
def test_summary_figures():
    rec = fake_records(1000)
    s = runner.Summary()
    s.add(rec[:400], seconds=2.0)
    s.add(rec[400:], resumed=True)
    s.finish()
    d = s.as_dict()
    assert d["hands"] == 1000 and d["hands_simulated"] == 400
    assert d["hands_per_s"] == pytest.approx(200.0)
    score0 = L.N_HAND_COLS + L.TC_SCORE
    assert d["mean_score_t0"] == pytest.approx(rec[:, score0].mean())
    assert d["mean_turns"] == pytest.approx(rec[:, L.REC_TURNS].mean())
    assert sum(d["end_reason_share"].values()) == pytest.approx(1.0)
    clean1 = L.N_HAND_COLS + L.N_TEAM_COLS + L.TC_CLEAN
    assert d["clean_burracos_per_hand_t1"] == pytest.approx(rec[:, clean1].mean())
    text = s.format()
    for word in ("hands/s", "mean score", "clean burracos", "dirty burracos", "turns",
                 *L.END_REASONS):
        assert word in text
    frame = dataset.table_to_frame(dataset.records_to_table(rec, 0, "r", ["heuristic"] * 4))
    assert runner.summarize(frame).as_dict()["mean_score_t0"] == pytest.approx(d["mean_score_t0"])
    assert runner.summarize([rec]).as_dict()["hands_per_s"] is None


# ============================================================== runner validation
@pytest.mark.parametrize("kwargs,field", [
    ({"hands": 0}, "hands"), ({"hands": 1.5}, "hands"), ({"hands": True}, "hands"),
    ({"seed": -1}, "seed"), ({"seed": 2**64}, "seed"), ({"seed": "1"}, "seed"),
    ({"strategies": "nope"}, "strategy"), ({"strategies": ["heuristic"] * 3}, "strategies"),
    ({"strategies": "heuristic:bogus=1"}, "bogus"), ({"rules": "nope"}, "rules"),
    ({"rules": 5}, "rules"),
    ({"shard_size": 0}, "shard_size"), ({"threads": 0}, "threads"),
    ({"threads": 10**6}, "threads"), ({"debug": "yes"}, "debug"),
    ({"overwrite": 1}, "overwrite"), ({"out": 5}, "out"), ({"callback": 3}, "callback"),
])
def test_simulate_validates_arguments(kwargs, field, tmp_path):
    args = {"hands": 10, "seed": 1, "out": tmp_path / "run"}
    args.update(kwargs)
    with pytest.raises(ValueError) as exc:
        runner.simulate(**args)
    assert field in str(exc.value)
    assert one_line(str(exc.value))
    assert not (tmp_path / "run").exists()


def test_foreign_directory_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    for overwrite in (False, True):
        with pytest.raises(ValueError) as exc:
            runner.simulate(10, 1, out=tmp_path, overwrite=overwrite)
        assert str(tmp_path) in str(exc.value) and one_line(str(exc.value))
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_different_run_refused_before_any_work(tmp_path, monkeypatch):
    runner.simulate(5, 9, out=tmp_path, return_frame=False)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
              and p.name != ".burraco.lock"}
    # refused before any simulation: the kernels are never called
    monkeypatch.setattr(executors, "_records", lambda *a, **k: pytest.fail("simulated"))
    with pytest.raises(ValueError) as exc:
        runner.simulate(10, 1, out=tmp_path)
    msg = str(exc.value)
    assert str(tmp_path) in msg and "different run (differs in: seed)" in msg and one_line(msg)
    (tmp_path / runner.MANIFEST).write_text("{not json")
    with pytest.raises(ValueError, match="unreadable _manifest.json.*--repair"):
        runner.simulate(5, 9, out=tmp_path)
    assert all(p.read_bytes() == b for p, b in before.items() if p.name != runner.MANIFEST)


# ============================================================== CLI
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_cli_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "simulate" in out and "usage: burraco" in out
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for opt in ("--hands", "--seed", "--out", "--strategy", "--shard-size", "--threads", "--rules",
                "--overwrite", "--quiet"):
        assert opt in out


@pytest.mark.slow
def test_cli_help_subprocess():
    r = run_cli("--help")
    assert r.returncode == 0 and "burraco" in r.stdout


@pytest.mark.parametrize("argv,needle", [
    (["--hands", "0"], "hands"),
    (["--seed", "-3"], "seed"),
    (["--rules", "pagat"], "pagat"),
    (["--strategy", "nope"], "nope"),
    (["--strategy", "heuristic", "--strategy", "random"], "--strategy"),
    (["--threads", "0"], "threads"),
    (["--shard-size", "0"], "--shard-size must be an integer"),
])
def test_cli_bad_input_one_line_exit_2(argv, needle, tmp_path, capsys):
    base = {"--hands": "10", "--seed": "1", "--out": str(tmp_path / "run")}
    for k, v in zip(argv[::2], argv[1::2]):
        base.pop(k, None)
    args = ["simulate"] + [x for kv in base.items() for x in kv] + argv
    assert main(args) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("burraco: error: ") and needle in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


@pytest.mark.slow
def test_cli_bad_input_subprocess(tmp_path):
    r = run_cli("simulate", "--hands", "0", "--seed", "1", "--out", str(tmp_path / "x"))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert r.stderr.startswith("burraco: error: --hands must be an integer")
    r = run_cli("simulate", "--hands", "ten", "--seed", "1", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_cli_hand_count_forms():
    from sim.cli.common import _count
    assert _count("1000000") == _count("1_000_000") == _count("1e6") == 10**6


def test_cli_interrupt_exit_130(monkeypatch, tmp_path, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(runner, "simulate", interrupted)
    assert main(["simulate", "--hands", "10", "--seed", "1", "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


def test_cli_lists_strategies_and_rules(capsys):
    assert main(["strategies"]) == 0
    assert "heuristic" in capsys.readouterr().out
    assert main(["rules", "--preset", "fibur_italian"]) == 0
    assert json.loads(capsys.readouterr().out)["semi_clean_bonus"] == 150


# ============================================================== package, README, CI
def test_import_sim_is_cheap():
    code = ("import sys, sim; heavy = [m for m in ('pandas', 'pyarrow', 'tqdm', 'kernels.play.game') "
            "if m in sys.modules]; print(','.join(heavy))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def code_blocks(text: str) -> list:
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_quick_start_commands():
    blocks = code_blocks(readme())
    assert ("bash", RUN_COMMAND + "\n") in blocks
    assert ("bash", TEST_COMMAND + "\n") in blocks
    first = next(line for _lang, body in blocks for line in body.splitlines() if "pytest" in line)
    assert first == TEST_COMMAND


def doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def test_output_page_documents_every_column():
    text = doc("output.md")
    assert dataset.markdown_table() in text, \
        "docs/output.md column table is stale: paste the output of `python -m sim.dataset`"
    for c in dataset.COLUMNS:
        assert f"| `{c.name}` |" in text
    assert "(docs/output.md)" in readme()


def test_readme_links_rules_reference():
    assert "docs/RULES.md" in readme()
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    for n in range(1, 65):
        assert re.search(rf"\bR{n}\b", rules), f"R{n} not mentioned in docs/RULES.md"


def test_readme_stays_a_short_newcomers_page():
    lines = readme().splitlines()
    assert len(lines) <= 220, f"README.md has {len(lines)} lines; move reference material to docs/"


def markdown_pages() -> list:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def without_code(text: str) -> str:
    """The text without fenced code blocks and inline code spans (no links live there)."""
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(text: str) -> list:
    """Targets of the Markdown links and images (and HTML img src) that are not URLs."""
    text = without_code(text)
    targets = re.findall(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)
    targets += re.findall(r"""<img\b[^>]*\bsrc=["']([^"']+)["']""", text)
    return [t for t in targets if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", t)]


def heading_anchors(text: str) -> set:
    """GitHub's anchors of the headings: lower case, punctuation dropped, spaces to hyphens,
    a repeated heading suffixed -1, -2, ..."""
    seen: dict = {}
    out = set()
    for line in re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.S | re.M).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_every_relative_link_of_the_docs_points_to_a_file():
    missing = []
    for page in markdown_pages():
        links = relative_links(page.read_text(encoding="utf-8"))
        assert page.name != "README.md" or len(links) >= 15, links
        for target in links:
            path = target.split("#", 1)[0]
            if path and not (page.parent / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert not missing, "links to files that do not exist: " + "; ".join(missing)


def test_every_anchor_of_a_docs_link_is_a_heading():
    missing = []
    for page in markdown_pages():
        for target in relative_links(page.read_text(encoding="utf-8")):
            path, _, anchor = target.partition("#")
            dest = page.parent / path if path else page
            if anchor and dest.suffix == ".md" and dest.exists() \
                    and anchor not in heading_anchors(dest.read_text(encoding="utf-8")):
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert not missing, "links to headings that do not exist: " + "; ".join(missing)


def test_every_docs_page_has_a_title_and_is_linked_from_the_readme():
    text = readme()
    for page in markdown_pages()[1:]:
        first = page.read_text(encoding="utf-8").splitlines()[0]
        assert re.fullmatch(r"# \S.*", first), f"{page.name}: first line {first!r} is not a title"
        assert f"(docs/{page.name})" in text, f"README.md does not link docs/{page.name}"


def test_ci_script_runs_the_readme_test_command():
    ci = ROOT / ".ci" / "run"
    text = ci.read_text()
    assert TEST_COMMAND in text.splitlines()
    assert "set -euo pipefail" in text
    assert ci.stat().st_mode & stat.S_IXUSR


def test_pyproject_entry_point():
    import tomllib
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "burraco-sim"
    assert meta["project"]["scripts"]["burraco"] == "sim.cli:main"
    # every package, subpackages too: a wheel holds only the packages listed
    from setuptools import find_packages
    include = meta["tool"]["setuptools"]["packages"]["find"]["include"]
    found = sorted(str(p.parent.relative_to(ROOT)).replace("/", ".")
                   for p in ROOT.glob("[ks]*/**/__init__.py") if "__pycache__" not in str(p))
    assert "kernels.play" in found and "sim.envs" in found
    assert sorted(find_packages(str(ROOT), include=include)) == found
    assert meta["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]
    from sim import __version__
    assert __version__ == "0.1.0"


# ----------------------------------------------------------------------------- pure Python
@pytest.mark.slow
def test_kernels_run_as_plain_python_with_the_same_records(tmp_path):
    """NUMBA_DISABLE_JIT=1 (the debugging mode, and benchmarks/speed/run.py's pure-Python
    figure) imports the kernels and plays the same hands as the jitted kernels: every
    module-level use of a dispatcher's attributes must have a plain-function fallback."""
    code = ("import sys, sim\n"
            "sim.simulate(3, 1).drop(columns=['elapsed_s'], errors='ignore').to_json(sys.argv[1])\n")
    out = tmp_path / "records.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_DISABLE_JIT"] = "1"
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code, str(out)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    pure = pd.read_json(out)
    jit = runner.simulate(3, 1).drop(columns=["elapsed_s"], errors="ignore")
    assert len(pure) == 3
    for col in ("score_t0", "score_t1", "turns", "end_reason"):
        assert pure[col].tolist() == jit[col].tolist(), col
