"""Strength by error rate (sim.analysis.review_run, ``burraco review --hands``): the rows of a
review run are sim.review's rows of the same hands with the same seeds; the summary is the
mean of the rows; a killed run resumes to the same rows; a second writer is refused; bad
options are one line with exit code 2."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
from sim._util.lock import LockedError
from sim._util.stats import Z95
from sim.analysis import review_run as RR
from sim.analysis.review import DECISION_COLUMNS
from sim.cli import main
from sim.cli import review as CLI_REVIEW

ROOT = Path(__file__).resolve().parents[2]
SEED, HANDS, ROLLOUTS, STRATEGY = 7, 3, 50, "expert"


@pytest.fixture(scope="module")
def ran():
    return RR.review_run(STRATEGY, HANDS, SEED, rollouts=ROLLOUTS, shard_size=2)


def test_the_rows_are_sim_review_of_the_same_hands(ran):
    rows = ran.table
    assert list(rows.columns) == ["hand", *DECISION_COLUMNS]
    assert sorted(rows["hand"].unique()) == list(range(HANDS))
    for h in range(HANDS):
        r = sim.review(SEED, h, STRATEGY, rollouts=ROLLOUTS,
                       analysis_seed=RR.hand_seed(0, h))
        mine = rows[rows["hand"] == h].drop(columns="hand").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, r.decisions, check_dtype=False)
    assert ran.rows == len(rows) and ran.hands == HANDS == ran.new_hands


def test_the_summary_is_the_mean_of_the_rows(ran):
    rows = ran.table
    rated = rows[~rows["forced"]]
    per_hand = np.array([rated.loc[rated["hand"] == h, "loss"].sum() for h in range(HANDS)])
    count = np.array([(rated["hand"] == h).sum() for h in range(HANDS)])
    s = ran.strength
    assert s["hands"] == HANDS and s["decisions"] == len(rated)
    assert s["per_hand"] == pytest.approx(per_hand.mean())
    half = Z95 * per_hand.std(ddof=1) / math.sqrt(HANDS)
    assert s["per_hand_low"] == pytest.approx(max(0.0, per_hand.mean() - half))
    ratio = rated["loss"].sum() / len(rated)
    assert s["per_decision"] == pytest.approx(ratio)
    se = math.sqrt(((per_hand - ratio * count) ** 2).sum() / (HANDS * (HANDS - 1))) / count.mean()
    assert s["per_decision_high"] == pytest.approx(ratio + Z95 * se)
    # a hand without a rated decision counts 0
    one = RR.strength(rows[rows["hand"] == 0], hands=2)
    assert one["per_hand"] == pytest.approx(per_hand[0] / 2)
    assert "delta method" in ran.text().splitlines()[2]


def test_seats_rate_those_seats_of_the_same_hands(ran, tmp_path, capsys):
    one = RR.review_run(STRATEGY, HANDS, SEED, rollouts=ROLLOUTS, shard_size=2, seats=[2, 0])
    want = ran.table[ran.table["seat"].isin([0, 2])]
    assert set(one.table["seat"]) == {0, 2}
    pd.testing.assert_frame_equal(one.table.drop(columns="decision").reset_index(drop=True),
                                  want.drop(columns="decision").reset_index(drop=True))
    # the CLI: --seats 0 writes that seat's rows and records the seats in the manifest
    out = tmp_path / "seat0"
    argv = ["review", "--strategy", STRATEGY, "--hands", str(HANDS), "--seed", str(SEED),
            "--rollouts", str(ROLLOUTS), "--seats", "0", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    rows = RR.load_reviews(out)
    assert set(rows["seat"]) == {0} and len(rows) == (ran.table["seat"] == 0).sum()
    assert json.loads((out / "_manifest.json").read_text())["config"]["review"]["seats"] == [0]
    # the same directory with other seats is another run: refused, in one line naming it
    capsys.readouterr()
    assert main([*argv[:-5], "--seats", "1", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "differs in: review: seats" in err, err
    # fewer hands than the run holds: the rows of the first ones are read with load_reviews
    assert main([*argv[:3], "--hands", "1", *argv[5:]]) == 2
    err = capsys.readouterr().err.strip()
    assert "load_reviews(" in err and "query('hand < 1')" in err, err


@pytest.mark.parametrize("seats", [[], [4], [0, -1], ["0"], [True], 1.5])
def test_bad_seats_are_refused(seats):
    with pytest.raises(ValueError, match="seats must be seats of the hand"):
        RR.review_run(STRATEGY, 1, SEED, rollouts=ROLLOUTS, seats=seats)


TEAMS = ["expert", "heuristic", "expert", "heuristic"]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "run"
    sim.simulate(4, SEED, TEAMS, out=out, shard_size=2)
    return out


def test_a_run_directorys_hands_are_reviewed_as_they_were_played(simulated, tmp_path, capsys):
    got = RR.review_run(None, 3, None, run=simulated, rollouts=ROLLOUTS, return_table=True)
    for h in range(3):
        r = sim.review(SEED, h, TEAMS, rollouts=ROLLOUTS, analysis_seed=RR.hand_seed(0, h))
        mine = got.table[got.table["hand"] == h].drop(columns="hand").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, r.decisions, check_dtype=False)
    # one figure per strategy, in seat order, their decisions adding up to the whole
    assert list(got.by_strategy) == ["expert", "heuristic"] and got.strategy == "expert, heuristic"
    one = RR.review_run(None, 2, None, run=simulated, rollouts=ROLLOUTS, seats=[1])
    assert one.strategy == "heuristic" and one.by_strategy == {}    # the rated seats' strategy
    assert sum(p["decisions"] for p in got.by_strategy.values()) == got.strength["decisions"]
    mine = got.table[(got.table["strategy"] == "heuristic") & ~got.table["forced"]]
    assert got.by_strategy["heuristic"]["per_decision"] == pytest.approx(mine["loss"].mean())
    assert "  heuristic (" in got.text()
    # the CLI: DIR --hands N, resumable; the run fixes the strategies and the seed
    out = tmp_path / "rev"
    argv = ["review", str(simulated), "--hands", "2", "--rollouts", str(ROLLOUTS), "--out",
            str(out), "--quiet"]
    assert main(argv) == 0
    rows = RR.load_reviews(out)
    pd.testing.assert_frame_equal(rows, got.table[got.table["hand"] < 2].reset_index(drop=True))
    capsys.readouterr()
    for extra, words in ((["--strategy", "expert"], "--strategy: the run in"),
                         (["--seed", "3"], "--seed"),
                         (["--hand", "1"], "--hand does not go with --hands")):
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err


def test_a_run_directory_that_cannot_be_reviewed_is_refused(simulated, tmp_path):
    with pytest.raises(ValueError, match="holds 4 hands, got 5"):
        RR.review_run(None, 5, None, run=simulated, rollouts=ROLLOUTS)
    with pytest.raises(ValueError, match="strategy is taken from the run"):
        RR.review_run("expert", 2, None, run=simulated, rollouts=ROLLOUTS)
    reviewed = tmp_path / "reviewed"
    RR.review_run("expert", 1, SEED, reviewed, rollouts=ROLLOUTS)
    with pytest.raises(ValueError, match="holds a reviews run"):
        RR.review_run(None, 1, None, run=reviewed, rollouts=ROLLOUTS)
    # an unfinished run: interrupted after its first shard
    unfinished = tmp_path / "unfinished"

    def stop(shard):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sim.simulate(4, SEED, TEAMS, out=unfinished, shard_size=2, callback=stop)
    with pytest.raises(ValueError, match="has not written hands 2..3 yet"):
        RR.review_run(None, 3, None, run=unfinished, rollouts=ROLLOUTS)
    assert RR.review_run(None, 2, None, run=unfinished, rollouts=ROLLOUTS).hands == 2
    # a run whose seats play a Python strategy file
    (tmp_path / "mine.py").write_text("class FirstLegal:\n    def choose(self, observation, "
                                      "legal_actions):\n        return legal_actions[0]\n")
    python_run = tmp_path / "python_run"
    sim.simulate(2, SEED, [f"{tmp_path / 'mine.py'}:FirstLegal", "expert"] * 2, out=python_run)
    with pytest.raises(ValueError, match="plays a Python strategy file"):
        RR.review_run(None, 1, None, run=python_run, rollouts=ROLLOUTS)
    # the review run's directory is never the reviewed run, inside it or around it, even
    # with overwrite (which would delete the run's records): refused before anything is touched
    for out in (simulated, simulated / "sub", simulated.parent):
        with pytest.raises(ValueError, match="the run being reviewed"):
            RR.review_run(None, 1, None, out, run=simulated, rollouts=ROLLOUTS, overwrite=True)
    assert len(sim.load(simulated)) == 4 and not (simulated / "sub").exists()
    # resuming a review run with another run's hands is refused
    out = tmp_path / "rev"
    RR.review_run(None, 1, None, out, run=simulated, rollouts=ROLLOUTS)
    other = tmp_path / "other"
    sim.simulate(2, SEED + 1, TEAMS, out=other)
    with pytest.raises(ValueError, match="different run"):
        RR.review_run(None, 2, None, out, run=other, rollouts=ROLLOUTS)


def test_the_unclipped_strength_worked_by_hand():
    # hand 0: differences +10 and -2 (losses 10 and 0); hand 1: -4 (loss 0); hand 2: forced only
    rows = pd.DataFrame({"hand": [0, 0, 1, 2], "forced": [False, False, False, True],
                         "loss": [10.0, 0.0, 0.0, 0.0], "difference": [10.0, -2.0, -4.0, 0.0]})
    s = RR.strength(rows)
    assert s["hands"] == 3 and s["decisions"] == 3
    assert s["per_decision"] == pytest.approx(10 / 3) and s["per_hand"] == pytest.approx(10 / 3)
    # sums per hand 8, -4, 0 over 2, 1, 0 decisions: R = 4/3; residuals 16/3, -16/3, 0
    assert s["difference_per_hand"] == pytest.approx(4 / 3)
    assert s["difference_per_decision"] == pytest.approx(4 / 3)
    se = math.sqrt((2 * (16 / 3) ** 2) / (3 * 2)) / 1.0
    assert s["difference_per_decision_low"] == pytest.approx(4 / 3 - Z95 * se)   # not clipped
    assert s["difference_per_decision_low"] < 0
    half = Z95 * np.std([8.0, -4.0, 0.0], ddof=1) / math.sqrt(3)
    assert s["difference_per_hand_high"] == pytest.approx(4 / 3 + half)
    assert s["per_decision_low"] == 0.0                                            # clipped


def test_the_difference_column_is_the_unclipped_loss(ran):
    rated = ran.table[~ran.table["forced"]]
    assert (rated["loss"] == rated["difference"].clip(lower=0)).all()
    assert (rated["difference"] < 0).any() and (rated["difference"] > 0).any()
    assert (ran.table.loc[ran.table["forced"], "difference"] == 0).all()


def test_a_killed_run_resumes_to_the_same_rows_and_a_finished_one_is_read_back(ran, tmp_path):
    out = tmp_path / "run"

    def stop_after_first(shard):
        if shard.stop == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        RR.review_run(STRATEGY, HANDS, SEED, out, rollouts=ROLLOUTS, shard_size=2,
                      callback=stop_after_first)
    assert [p.name for p in (out / "reviews").iterdir()] == [
        "shard-000000000000-000000000002.parquet"]
    assert json.loads((out / "_manifest.json").read_text())["finished"] is False
    seen = []
    s = RR.review_run(STRATEGY, HANDS, SEED, out, rollouts=ROLLOUTS, callback=seen.append,
                      return_table=True)
    assert [x.resumed for x in seen] == [True, False]
    assert s.new_hands == 1 and s.hands == HANDS
    pd.testing.assert_frame_equal(s.table, ran.table)
    pd.testing.assert_frame_equal(RR.load_reviews(out), ran.table)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "reviews"), ran.table)
    assert s.strength == ran.strength
    back = RR.review_run(STRATEGY, HANDS, SEED, out, rollouts=ROLLOUTS)
    assert back.new_hands == 0 and back.strength == ran.strength
    # other settings are another run: refused in one line
    with pytest.raises(ValueError, match="out: "):
        RR.review_run(STRATEGY, HANDS, SEED, out, rollouts=ROLLOUTS + 1)
    with pytest.raises(ValueError, match="review run"):
        sim.load(out)
    with pytest.raises(ValueError, match="holds a review run"):
        sim.repair_run(out)


HOLD = """\
import sys
from sim._util.lock import DirectoryLock
with DirectoryLock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_a_second_writer_is_refused(tmp_path):
    out = tmp_path / "run"
    RR.review_run(STRATEGY, 1, SEED, out, rollouts=ROLLOUTS)
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "locked\n"
        with pytest.raises(LockedError, match=f"pid {proc.pid}"):
            RR.review_run(STRATEGY, 2, SEED, out, rollouts=ROLLOUTS)
    finally:
        proc.stdin.close()
        proc.wait()
    assert RR.review_run(STRATEGY, 2, SEED, out, rollouts=ROLLOUTS).new_hands == 1


def test_cli_runs_and_resumes(ran, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["review", "--strategy", STRATEGY, "--hands", str(HANDS), "--seed", str(SEED),
            "--rollouts", str(ROLLOUTS), "--shard-size", "2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{STRATEGY}: {HANDS} hands reviewed in {out}")
    assert f"{ran.strength['per_decision']:.3f}" in text
    pd.testing.assert_frame_equal(RR.load_reviews(out), ran.table)
    assert main(argv) == 0
    assert "nothing new" in capsys.readouterr().out


@pytest.mark.parametrize("extra, words", [
    (["--hand", "1"], "--hand does not go with --hands"),
    (["--seats", "0,4"], "seats must be seats of the hand, 0..3, got 4"),
    (["--meld"], "--meld does not go with --hands"),
    (["--format", "json"], "--format does not go with --hands"),
    (["--strategy", "random"], "one --strategy"),
    (["--rollouts", "1"], "rollouts"),
    (["--policy", "nope"], "nope"),
    (["--executor", "dask", "--hand", "1"], "--hand does not go"),
])
def test_cli_bad_options_are_one_line_exit_2(tmp_path, capsys, extra, words):
    argv = ["review", "--strategy", STRATEGY, "--hands", "1", "--seed", "1",
            "--out", str(tmp_path / "run"), "--quiet", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err
    assert not (tmp_path / "run").exists()           # nothing written


@pytest.mark.parametrize("argv, words", [
    (["--strategy", STRATEGY, "--hands", "1", "--out", "x"], "--seed"),
    (["--strategy", STRATEGY, "--hands", "1", "--seed", "1"], "--out"),
    (["--hands", "1", "--seed", "1", "--out", "x"], "one --strategy"),
    (["--seed", "1", "--hand", "0", "--shard-size", "2"], "--shard-size goes with --hands"),
])
def test_cli_missing_options_are_one_line_exit_2(capsys, argv, words):
    assert main(["review", "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_cli_default_rollouts_is_the_librarys():
    assert CLI_REVIEW.RUN_ROLLOUTS == RR.DEFAULT_ROLLOUTS


def test_docs_list_the_schema():
    text = (ROOT / "docs" / "review.md").read_text()
    table = text.split("<!-- review-schema -->")[1].split("<!-- /review-schema -->")[0]
    names = [line.split("`")[1] for line in table.strip().splitlines()[2:]]
    assert names == RR.REVIEW_SCHEMA.names
    for f in RR.REVIEW_SCHEMA:
        assert f"| `{f.name}` | {f.type} |" in table


@pytest.mark.slow
def test_dask_gives_the_same_rows_as_local(ran, tmp_path):
    pytest.importorskip("dask.distributed")
    s = RR.review_run(STRATEGY, 2, SEED, tmp_path / "dask", rollouts=ROLLOUTS, shard_size=1,
                      executor="dask", workers=2, return_table=True)
    pd.testing.assert_frame_equal(s.table, ran.table[ran.table["hand"] < 2])
    pd.testing.assert_frame_equal(RR.load_reviews(tmp_path / "dask"), s.table)
    assert json.loads((tmp_path / "dask" / "_manifest.json").read_text())["finished"] is True
