"""Whole matches (R60-R64, docs/matches.md): burraco simulate --matches, sim.simulate_matches, sim.load_matches.

R60 is recomputed here from the totals, independently of sim.match."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
from kernels.core import layout as L
from sim import dataset, runner
from sim.cli import main

ROOT = Path(__file__).resolve().parents[2]
MATCHES, SHARD, SEED = 200, 64, 11
TARGET = sim.Rules().target_score


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """An uninterrupted match run on disk and the frames simulate_matches returned."""
    out = tmp_path_factory.mktemp("m") / "run"
    result = sim.simulate_matches(MATCHES, SEED, out=out, shard_size=SHARD)
    return out, result.hands, result.matches


def reached(t0, t1):
    """R60 by hand: a total at or over the target and the totals differ."""
    t0, t1 = np.asarray(t0, np.int64), np.asarray(t1, np.int64)
    return (np.maximum(t0, t1) >= TARGET) & (t0 != t1)


def test_frames_and_directory_agree(run):
    out, hands, matches = run
    assert list(hands.columns) == [c.name for c in dataset.MATCH_HAND_COLUMNS]
    assert list(matches.columns) == [c.name for c in dataset.MATCH_COLUMNS]
    pd.testing.assert_frame_equal(sim.load(out), hands)
    pd.testing.assert_frame_equal(sim.load_matches(out), matches)
    # plain pandas reads the hands and the match table apart, with the documented types
    plain = pd.read_parquet(out / "hands")
    assert len(plain) == len(hands) and plain["total_t2"].dtype == "Int32"
    plain_matches = pd.read_parquet(out / "matches")
    assert len(plain_matches) == MATCHES and plain_matches["winner"].dtype == "Int8"
    assert matches["match"].tolist() == list(range(MATCHES))
    m = json.loads((out / runner.MANIFEST).read_text())
    assert m["kind"] == "matches" and m["finished"]
    assert m["config"]["matches"] == MATCHES and m["config"]["max_hands_per_match"] == 200
    assert m["config"]["shard_size"] == SHARD and len(m["shards"]) == m["shards_total"] == 4


def test_running_totals_are_cumulative_scores(run):
    _, hands, _ = run
    g = hands.groupby("match")
    assert (hands["total_t0"] == g["score_t0"].cumsum()).all()
    assert (hands["total_t1"] == g["score_t1"].cumsum()).all()
    assert (hands["hand_in_match"] == g.cumcount()).all()
    assert (hands["hand_index"] == hands["match"] * 65536 + hands["hand_in_match"]).all()


def test_only_the_last_hand_ends_the_match(run):
    _, hands, matches = run
    last = hands["hand_in_match"] == hands["match"].map(matches.set_index("match")["hands"]) - 1
    over = reached(hands["total_t0"], hands["total_t1"])
    capped = hands["match"].map(matches.set_index("match")["reason"].astype(str)) == "cap"
    assert (over == (last & ~capped)).all()
    assert (matches["reason"] == "target").sum() > 0


def test_rows_per_match_winner_and_finals(run):
    _, hands, matches = run
    per = hands.groupby("match").size()
    assert per.tolist() == matches["hands"].tolist()
    ends = hands.groupby("match").last()
    assert (ends["total_t0"].to_numpy() == matches["final_t0"].to_numpy()).all()
    assert (ends["total_t1"].to_numpy() == matches["final_t1"].to_numpy()).all()
    won = matches[matches["reason"] == "target"]
    higher = np.where(won["final_t0"] > won["final_t1"], 0, 1)
    assert (won["winner"].to_numpy() == higher).all()
    assert matches.loc[matches["reason"] == "cap", "winner"].isna().all()
    assert set(won["winner"].astype(int)) <= {0, 1}


def test_dealer_rotates_by_one_seat(run):
    _, hands, matches = run
    first = hands["match"].map(matches.set_index("match")["first_dealer"])
    assert (hands["dealer"] == (first + hands["hand_in_match"]) % 4).all()
    assert (hands["first_player"] == (hands["dealer"] + 1) % 4).all()
    h0 = hands[hands["hand_in_match"] == 0]
    assert (h0["dealer"].to_numpy() == matches["first_dealer"].to_numpy()).all()
    # hand 0 is the deal's own random dealer (R6): the plain hand run of that deal
    plain = sim.simulate(1, SEED)
    assert hands["dealer"].iloc[0] == plain["dealer"].iloc[0]
    assert len(set(matches["first_dealer"])) == 4


def test_replay_reproduces_a_match_hand(run):
    _, hands, _ = run
    picks = hands[hands["hand_in_match"] > 0].iloc[[0, 7, -1]]
    for _, row in picks.iterrows():
        doc = sim.replay(SEED, int(row["hand_index"]), dealer=int(row["dealer"]))
        for col in L.REC_COLUMNS:
            want = row[col]
            if pd.isna(want):                  # the 3-player columns of a 4-player hand
                assert doc["result"][col] is None, col
                continue
            assert doc["result"][col] == (str(want) if col in ("end_reason", "pozzetto_mode_t0",
                                                                "pozzetto_mode_t1") else want), col


def test_shard_size_and_threads_do_not_change_matches(run):
    _, hands, matches = run
    other = sim.simulate_matches(MATCHES, SEED, shard_size=37, threads=1)
    cols = [c for c in hands.columns if c != "run_id"]
    pd.testing.assert_frame_equal(other.hands[cols], hands[cols])
    pd.testing.assert_frame_equal(other.matches.drop(columns="run_id"),
                                  matches.drop(columns="run_id"))
    # a match does not depend on the other matches of the run
    few = sim.simulate_matches(5, SEED)
    pd.testing.assert_frame_equal(few.hands[cols], hands[hands["match"] < 5][cols])


def test_resume_after_interruption_gives_identical_tables(run, tmp_path):
    _, hands, matches = run
    out = tmp_path / "run"

    def stop(shard):
        if shard.stop == 2 * SHARD:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sim.simulate_matches(MATCHES, SEED, out=out, shard_size=SHARD, callback=stop,
                             return_frame=False)
    assert not sim.check_run(out).complete
    # a shard killed between its two files: the match table is there, the hands are not
    name = "shard-000000000064-000000000128.parquet"
    (out / "hands" / name).unlink()
    assert (out / "matches" / name).exists()
    seen = []
    again = sim.simulate_matches(MATCHES, SEED, out=out, shard_size=SHARD, callback=seen.append)
    assert [s.resumed for s in seen] == [True, False, False, False]
    pd.testing.assert_frame_equal(again.hands, hands)
    pd.testing.assert_frame_equal(again.matches, matches)
    pd.testing.assert_frame_equal(sim.load_matches(out), matches)
    assert sim.check_run(out).complete


def test_corrupt_match_table_is_reported_and_redone(run, tmp_path):
    out_ref, hands, matches = run
    out = tmp_path / "run"
    shutil.copytree(out_ref, out)
    name = "shard-000000000128-000000000192.parquet"
    (out / "matches" / name).write_bytes(b"not parquet")
    status = sim.check_run(out)
    assert name in status.corrupt and "matches/" in status.corrupt[name]
    with pytest.raises(ValueError, match="corrupt"):
        sim.load_matches(out)
    again = sim.simulate_matches(MATCHES, SEED, out=out, shard_size=SHARD)
    pd.testing.assert_frame_equal(again.matches, matches)


def test_capped_matches():
    one = sim.simulate_matches(20, 3, max_hands_per_match=1)
    assert (one.matches["reason"] == "cap").all() and one.matches["winner"].isna().all()
    assert (one.matches["hands"] == 1).all() and len(one.hands) == 20
    # random play: a cap of 3 hands ends some matches unfinished, the others reach the target
    rnd = sim.simulate_matches(40, 3, strategies="random", max_hands_per_match=3).matches
    cap = rnd[rnd["reason"] == "cap"]
    assert 0 < len(cap) < len(rnd)
    assert (cap["hands"] == 3).all() and cap["winner"].isna().all()
    assert not reached(cap["final_t0"], cap["final_t1"]).any()
    assert reached(rnd["final_t0"], rnd["final_t1"])[rnd["reason"] == "target"].all()
    s = sim.MatchSummary()
    sim.simulate_matches(40, 3, strategies="random", max_hands_per_match=3,
                         return_frame=False, callback=s.add_shard)
    d = s.as_dict()
    assert d["capped"] == len(cap) and d["wins_t0"] + d["wins_t1"] == len(rnd) - len(cap)
    assert d["win_share_t0"] + d["win_share_t1"] + d["capped_share"] == pytest.approx(1.0)


def test_summary_figures(run):
    _, hands, matches = run
    s = sim.MatchSummary()
    sim.simulate_matches(MATCHES, SEED, shard_size=SHARD, return_frame=False,
                         callback=s.add_shard)
    d = s.as_dict()
    assert d["matches"] == MATCHES and d["hands"] == len(hands)
    assert d["mean_hands_per_match"] == pytest.approx(len(hands) / MATCHES)
    assert d["wins_t0"] == (matches["winner"] == 0).sum()
    assert d["win_share_t1"] == pytest.approx((matches["winner"] == 1).mean())
    assert d["mean_final_t0"] == pytest.approx(matches["final_t0"].mean())
    text = s.format()
    for word in ("matches", "mean hands per match", "matches won", "capped", "hands/s",
                 "mean final total"):
        assert word in text


def test_winners_agrees_with_winner():
    from sim.core.match import winner, winners
    rng = np.random.default_rng(0)
    before = rng.integers(-50, 420, (500, 2)) * 5
    hand = rng.integers(-60, 300, (500, 2)) * 5
    got = winners(before + hand, TARGET)
    assert (got == [winner([int(x) for x in b], [int(x) for x in h])
                    for b, h in zip(before, hand)]).all()
    assert winners([[2005, 2005], [2005, 2000], [1000, 2010], [2000, 0]], 2005).tolist() == \
        [-1, 0, 1, -1]


# ---------------------------------------------------------------- directories and CLI
def one_line_error(capsys, needle):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("burraco: error: ") and needle in err[0], err


def test_cli_match_run_and_summarize(tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["simulate", "--matches", "40", "--seed", "2", "--out", str(out),
                 "--shard-size", "16", "--quiet"]) == 0
    text = capsys.readouterr().out
    for word in ("matches", "hands played", "mean hands per match", "share of matches won",
                 "capped matches", "mean final total", "hands/s"):
        assert word in text
    assert main(["summarize", str(out)]) == 0
    text = capsys.readouterr().out
    assert "40 of 40 matches (100.0%" in text and "complete" in text
    assert "matches won" in text
    assert sim.load_matches(out)["match"].tolist() == list(range(40))


@pytest.mark.parametrize("argv, needle", [
    (["--matches", "0"], "matches must be"),
    (["--matches", "5", "--hands", "5"], "not allowed with"),
    ([], "give --hands N or --matches N"),
    (["--matches", "5", "--max-hands-per-match", "-1"], "--max-hands-per-match must be"),
    (["--matches", "5", "--max-hands-per-match", "0"], "--max-hands-per-match must be"),
    (["--hands", "5", "--max-hands-per-match", "10"], "--max-hands-per-match applies"),
])
def test_cli_bad_input(argv, needle, tmp_path, capsys):
    args = ["simulate", "--seed", "1", "--out", str(tmp_path / "x"), "--quiet", *argv]
    try:
        code = main(args)
    except SystemExit as exc:          # argparse errors
        code = exc.code
    assert code == 2
    one_line_error(capsys, needle)
    assert not (tmp_path / "x").exists()


def test_hand_and_match_directories_are_not_mixed(tmp_path, capsys):
    hands_dir, matches_dir = tmp_path / "h", tmp_path / "m"
    sim.simulate(10, 1, out=hands_dir, return_frame=False)
    sim.simulate_matches(3, 1, out=matches_dir, return_frame=False)
    before = sorted(p.name for p in hands_dir.iterdir())
    assert main(["simulate", "--matches", "3", "--seed", "1", "--out", str(hands_dir),
                 "--quiet"]) == 2
    one_line_error(capsys, "holds a hand run")
    assert sorted(p.name for p in hands_dir.iterdir()) == before
    assert main(["simulate", "--hands", "10", "--seed", "1", "--out", str(matches_dir),
                 "--quiet"]) == 2
    one_line_error(capsys, "holds a match run")
    with pytest.raises(ValueError, match="holds a hand run"):
        sim.load_matches(hands_dir)
    # --overwrite replaces the match run, matches/ included
    sim.simulate(10, 1, out=matches_dir, overwrite=True, return_frame=False)
    assert sorted(p.name for p in matches_dir.iterdir()) == before


@pytest.mark.slow
def test_cli_bad_input_subprocess(tmp_path):
    for argv in (["--matches", "0"], ["--matches", "2", "--hands", "2"]):
        r = subprocess.run([sys.executable, "-m", "sim", "simulate", "--seed", "1", "--out",
                            str(tmp_path / "x"), *argv], capture_output=True, text=True,
                           cwd=ROOT, timeout=300)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith("burraco: error: ")


def test_cli_replay_with_dealer(run, capsys):
    _, hands, _ = run
    row = hands[hands["hand_in_match"] == 2].iloc[3]
    assert main(["replay", "--seed", str(SEED), "--hand", str(row["hand_index"]), "--dealer",
                 str(row["dealer"]), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dealer"] == row["dealer"]
    assert (doc["result"]["score_t0"], doc["result"]["score_t1"]) == (row["score_t0"],
                                                                      row["score_t1"])


def test_docs_document_the_match_tables():
    text = (ROOT / "docs" / "matches.md").read_text(encoding="utf-8")
    assert text.startswith("# Matches") and "burraco simulate --matches" in text
    assert "(docs/matches.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    for cols in (dataset.MATCH_HAND_EXTRA, dataset.MATCH_COLUMNS):
        assert dataset.markdown_table(cols) in text, \
            "docs/matches.md match tables are stale: paste the output of " \
            "`python -m sim.dataset --matches`"


@pytest.mark.slow
def test_kill_9_mid_run_then_same_command_gives_identical_tables(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sim", "simulate", "--matches", "6000", "--seed", "4", "--out",
           str(out), "--shard-size", "200", "--threads", "1", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(out.glob("hands/shard-*.parquet"))) < 3 and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    ref = sim.simulate_matches(6000, 4, shard_size=200)
    pd.testing.assert_frame_equal(sim.load(out), ref.hands)
    pd.testing.assert_frame_equal(sim.load_matches(out), ref.matches)
    assert not list(out.rglob("*.tmp"))


def test_target_score_comes_from_the_rules():
    res = sim.simulate_matches(60, 8, rules=sim.Rules(target_score=1000))
    hands, matches = res
    last = hands.groupby("match").tail(1)
    t0, t1 = hands["total_t0"].to_numpy(), hands["total_t1"].to_numpy()
    over = (np.maximum(t0, t1) >= 1000) & (t0 != t1)
    assert (over == hands.index.isin(last.index)).all()
    assert matches["hands"].mean() < 4
