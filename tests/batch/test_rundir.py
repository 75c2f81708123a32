"""Run directories that never lose or mix data (docs/output.md).

Every fault here is injected: two writers at once, --overwrite beside foreign
files, stray and foreign shards planted in the data directory, a hand-edited,
damaged or missing manifest, a run of the first layout.  Every outcome either
refuses with one line and leaves the data byte for byte as it was, or produces
exactly the records of the uninterrupted run.
"""
from __future__ import annotations

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
import pyarrow as pa
import pytest

import sim
from sim import dataset, executors, lock, rundir, runner
from sim.cli import main

from _readonly import burraco, entries, everything, read_only

ROOT = Path(__file__).resolve().parents[2]
HANDS, SHARD, SEED = 3000, 1000, 31


@pytest.fixture(scope="module")
def reference():
    """The records of the uninterrupted run (in memory)."""
    return sim.simulate(HANDS, SEED, shard_size=SHARD)


def cli_args(out, hands=HANDS, seed=SEED, shard=SHARD, *extra):
    return ["simulate", "--hands", str(hands), "--seed", str(seed), "--out", str(out),
            "--shard-size", str(shard), "--quiet", *extra]


def snapshot(directory: Path) -> dict:
    """Every file of a directory (relative path -> bytes), but the writer's lock file."""
    return {os.fspath(p.relative_to(directory)): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file() and p.name != lock.LOCK_NAME}


def refused(capsys, code: int, *needles: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("burraco: error: "), err
    for n in needles:
        assert n in err, err
    return err


def make_run(path: Path, hands=HANDS, seed=SEED) -> Path:
    sim.simulate(hands, seed, out=path, shard_size=SHARD, return_frame=False)
    return path


# ------------------------------------------------------------------ 1. --overwrite
def test_overwrite_beside_foreign_files_keeps_them_and_writes_the_new_run(tmp_path, capsys):
    out = make_run(tmp_path / "run", seed=SEED + 1)
    (out / "notes.txt").write_text("my notes")
    (out / "plots").mkdir()
    (out / "plots" / "a.png").write_bytes(b"png")
    assert main(cli_args(out, 2000, SEED, SHARD, "--overwrite")) == 0
    capsys.readouterr()
    assert (out / "notes.txt").read_text() == "my notes"
    assert (out / "plots" / "a.png").read_bytes() == b"png"
    pd.testing.assert_frame_equal(sim.load(out), sim.simulate(2000, SEED))
    status = sim.check_run(out)
    assert status.complete and not status.stray and status.others == ["notes.txt", "plots/"]


def test_overwrite_with_a_foreign_file_in_the_data_directory_deletes_nothing(tmp_path, capsys):
    out = make_run(tmp_path / "run")
    (out / "hands" / "mine.parquet").write_bytes(b"somebody's data")
    before = snapshot(out)
    code = main(cli_args(out, 2000, SEED + 5, SHARD, "--overwrite"))
    refused(capsys, code, "hands/mine.parquet", "not part of the run", "nothing was changed")
    assert snapshot(out) == before


def test_overwrite_refused_for_a_directory_without_a_run(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("x")
    refused(capsys, main(cli_args(out, HANDS, SEED, SHARD, "--overwrite")),
            "holds no burraco-sim run", "notes.txt")
    assert snapshot(out) == {"notes.txt": b"x"}


# ------------------------------------------------------------------ 2. one writer
def wait_for_writer(out: Path, proc, timeout=120.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        info = lock.holder(out) if out.exists() else None
        if info and info.get("pid") == proc.pid and list(out.glob("hands/shard-*.parquet")):
            return info
        time.sleep(0.02)
    raise AssertionError("the first writer never started writing")


@pytest.mark.slow
@pytest.mark.parametrize("second", ["same", "overwrite", "matches"])
def test_a_second_writer_is_refused_at_once(tmp_path, second):
    """Two simulate commands into one directory: the second is refused in one line naming
    the directory and the first process; the first finishes with the right records.  The
    first writer is stopped (SIGSTOP) mid-run, after its first shard, while the second
    starts, so that it is still writing however slow the second's start-up (a loaded
    machine), without a long run to outlast it."""
    out = tmp_path / "run"
    hands, shard = 20_000, 2_000
    first_cmd = [sys.executable, "-m", "sim", *cli_args(out, hands, SEED, shard),
                 "--threads", "1"]
    first = subprocess.Popen(first_cmd, cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        info = wait_for_writer(out, first)
        first.send_signal(signal.SIGSTOP)
        assert first.poll() is None, "the first writer ended before it was stopped"
        assert not json.loads((out / "_manifest.json").read_text())["finished"]
        argv = {"same": cli_args(out, hands, SEED, shard),
                "overwrite": cli_args(out, 50_000, SEED + 1, shard, "--overwrite"),
                "matches": ["simulate", "--matches", "50", "--seed", "1", "--out", str(out),
                            "--quiet"]}[second]
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "sim", *argv], cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
        assert first.poll() is None, "the first writer ended before the second was refused"
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("burraco: error: --out: ")
        assert f"{str(out)!r} is being written by pid {info['pid']}" in lines[0]
        assert time.monotonic() - t0 < 60          # at once (start-up included), not after
    finally:
        first.send_signal(signal.SIGCONT)
        stdout, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stderr
    m = json.loads((out / "_manifest.json").read_text())
    assert m["finished"] and len(m["shards"]) == hands // shard
    df = sim.load(out)
    assert df["run_id"].nunique() == 1 and len(df) == hands
    pd.testing.assert_frame_equal(df, sim.simulate(hands, SEED))
    assert lock.holder(out) is None


@pytest.mark.slow
def test_the_lock_dies_with_a_killed_writer(tmp_path, reference):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sim", *cli_args(out, HANDS, SEED, 100), "--threads", "1"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_writer(out, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # the dead writer's name is still in the lock file, but nobody holds the lock
    assert json.loads((out / lock.LOCK_NAME).read_text())["pid"] == proc.pid
    assert lock.holder(out) is None
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pd.testing.assert_frame_equal(sim.load(out), reference)


def test_a_writer_in_this_process_refuses_a_second_one(tmp_path):
    out = make_run(tmp_path / "run")
    with lock.DirectoryLock(out):
        before = snapshot(out)
        with pytest.raises(lock.LockedError, match=f"is being written by pid {os.getpid()}"):
            sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, overwrite=True)
        with pytest.raises(lock.LockedError):
            sim.simulate_matches(5, 1, out=out)
        assert snapshot(out) == before
        status = sim.check_run(out)
        assert status.writer["pid"] == os.getpid()


# ------------------------------------------------------------------ 3. stray shards
@pytest.fixture
def with_stray(tmp_path, reference):
    """A run and, in its hands/, another run's shard under a name outside its range."""
    out = make_run(tmp_path / "run")
    other = make_run(tmp_path / "other", hands=1000, seed=SEED + 7)
    stray = out / "hands" / "shard-000000003000-000000004000.parquet"
    shutil.copy(other / "hands" / "shard-000000000000-000000001000.parquet", stray)
    return out, stray


def test_a_stray_shard_is_reported_by_summarize_and_check_run(with_stray, capsys, reference):
    out, stray = with_stray
    status = sim.check_run(out)
    assert status.complete and not status.sound
    assert list(status.stray) == [f"hands/{stray.name}"]
    assert "a shard of another run" in status.stray[f"hands/{stray.name}"]
    assert main(["summarize", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"stray file hands/{stray.name}: a shard of another run" in text
    assert "move it out of the directory" in text
    # the run's reader reads exactly the run; a plain reader would read the stray hands
    pd.testing.assert_frame_equal(sim.load(out), reference)
    assert len(pd.read_parquet(out / "hands")) == HANDS + 1000


@pytest.mark.slow
def test_simulate_refuses_to_write_beside_a_stray_shard(with_stray, capsys):
    out, stray = with_stray
    before = snapshot(out)
    for argv in (cli_args(out), cli_args(out, 5000)):            # resume, extend
        refused(capsys, main(argv), f"hands/{stray.name}", "a shard of another run",
                "move it out")
        assert snapshot(out) == before
    stray.unlink()
    assert main(cli_args(out, 5000)) == 0
    capsys.readouterr()
    pd.testing.assert_frame_equal(sim.load(out), sim.simulate(5000, SEED))


def test_a_foreign_shard_under_an_expected_name_is_never_deleted(tmp_path, capsys, reference):
    """Another run's shard under one of the run's own names: reported, never read, and
    neither a resume nor --overwrite deletes or overwrites it."""
    out = make_run(tmp_path / "run")
    other = make_run(tmp_path / "other", seed=SEED + 7)
    name = "shard-000000001000-000000002000.parquet"
    shutil.copy(other / "hands" / name, out / "hands" / name)
    why = sim.check_run(out).corrupt[name]
    assert why.startswith("a shard of another run (") and "move it out" in why
    with pytest.raises(ValueError, match=f"shard {name} .* is corrupt"):
        sim.load(out)
    before = snapshot(out)
    for argv in (cli_args(out), cli_args(out, HANDS, SEED + 1, SHARD, "--overwrite")):
        refused(capsys, main(argv), f"hands/{name}", "a shard of another run",
                "nothing was changed")
        assert snapshot(out) == before
    (out / "hands" / name).unlink()                     # the user moves it out
    assert main(cli_args(out)) == 0
    capsys.readouterr()
    pd.testing.assert_frame_equal(sim.load(out), reference)


def test_out_inside_a_runs_data_directory_is_refused(tmp_path, capsys):
    out = make_run(tmp_path / "run")
    before = snapshot(out)
    for inner in (out / "hands", out / "hands" / "sub", out / "matches"):
        refused(capsys, main(cli_args(inner, 100)), "inside the data directory of the run")
    refused(capsys, main(["summarize", str(out / "hands"), "--repair"]),
            "is the data directory of the run")
    assert snapshot(out) == before and not (out / "matches").exists()


def test_a_lost_shard_of_a_finished_run_is_reported(tmp_path, capsys, reference):
    out = make_run(tmp_path / "run")
    (out / "hands" / "shard-000000001000-000000002000.parquet").unlink()
    status = sim.check_run(out)
    assert "lost: the manifest lists it as complete" in status.corrupt[
        "shard-000000001000-000000002000.parquet"]
    assert main(["summarize", str(out)]) == 1
    capsys.readouterr()
    with pytest.raises(ValueError, match="lost"):
        sim.load(out)
    assert main(cli_args(out)) == 0
    capsys.readouterr()
    pd.testing.assert_frame_equal(sim.load(out), reference)


def test_an_orphan_match_table_is_reported(tmp_path, capsys):
    out = tmp_path / "m"
    sim.simulate_matches(30, 2, out=out, shard_size=10, return_frame=False)
    (out / "hands" / "shard-000000000010-000000000020.parquet").unlink()
    m = json.loads((out / "_manifest.json").read_text())
    m["shards"].remove("shard-000000000010-000000000020.parquet")   # as an interrupted write
    m["finished"] = False
    (out / "_manifest.json").write_text(json.dumps(m))
    status = sim.check_run(out)
    assert "matches/shard-000000000010-000000000020.parquet" in status.stray
    assert main(["summarize", str(out)]) == 1
    assert "hand rows were never written" in capsys.readouterr().out
    assert main(["simulate", "--out", str(out), "--quiet"]) == 0      # completes it
    capsys.readouterr()
    pd.testing.assert_frame_equal(sim.load_matches(out), sim.simulate_matches(30, 2).matches)
    assert sim.check_run(out).sound


# ------------------------------------------------------------------ 4. one reader
def test_summarize_of_a_match_table_is_one_line():
    with pytest.raises(ValueError, match="not a match table") as exc:
        sim.summarize(sim.simulate_matches(3, 1).matches)
    assert "\n" not in str(exc.value)


def test_one_reader_that_checks(tmp_path, reference):
    assert not hasattr(dataset, "read_run") and "read_run" not in sim.__all__
    with pytest.raises(AttributeError):
        sim.read_run                                    # noqa: B018
    out = make_run(tmp_path / "run")
    victim = out / "hands" / "shard-000000001000-000000002000.parquet"
    victim.write_bytes(victim.read_bytes()[:3000])
    with pytest.raises(ValueError) as exc:
        sim.load(out)
    assert "\n" not in str(exc.value) and "is corrupt (unreadable Parquet file" in str(exc.value)


@pytest.mark.parametrize("flt, needle", [
    ([("nocol", ">", 1)], "filter: unknown column 'nocol'"),
    ([("turns", ">")], "expected (column, op, value) tuples"),
    ("turns > 3", "filter must be a pyarrow.compute expression or a list"),
])
def test_load_filter_errors_are_one_line(tmp_path, flt, needle):
    out = make_run(tmp_path / "run", hands=200)
    with pytest.raises(ValueError) as exc:
        sim.load(out, filter=flt)
    assert needle in str(exc.value) and "\n" not in str(exc.value)
    import pyarrow.compute as pc
    with pytest.raises(ValueError, match="unknown column 'nosuch'") as exc:
        sim.load(out, filter=pc.field("nosuch") > 1)
    assert "\n" not in str(exc.value)


# ------------------------------------------------------------------ 5. the manifest
def edit_manifest(out: Path, **config_changes) -> None:
    m = json.loads((out / "_manifest.json").read_text())
    m["config"].update(config_changes)
    (out / "_manifest.json").write_text(json.dumps(m))


def test_a_hand_edited_seed_is_detected_and_repaired_without_simulating(tmp_path, capsys,
                                                                         reference):
    out = make_run(tmp_path / "run")
    shards = {p.name: p.stat().st_mtime_ns for p in out.glob("hands/*")}
    edit_manifest(out, seed=SEED + 100)
    before = snapshot(out)
    # simulate (either seed) and summarize all say so in one line, and send to --repair
    for seed in (SEED, SEED + 100):
        refused(capsys, main(cli_args(out, HANDS, seed)), "disagrees with itself", "--repair")
    assert main(["summarize", str(out)]) == 2
    assert "--repair" in capsys.readouterr().err
    with pytest.raises(ValueError, match="disagrees with itself"):
        sim.load(out)
    assert snapshot(out) == before
    assert main(["summarize", str(out), "--repair"]) == 0
    text = capsys.readouterr().out
    assert "the manifest was rebuilt from 3 sound shards" in text and "complete" in text
    assert json.loads((out / "_manifest.json").read_text())["config"]["seed"] == SEED
    backups = list(out.glob("_manifest.json.replaced-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text())["config"]["seed"] == SEED + 100
    # the same command now finds the run complete: nothing simulated again
    assert main(cli_args(out)) == 0
    assert "hands simulated now" in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("hands/*")} == shards
    pd.testing.assert_frame_equal(sim.load(out), reference)


@pytest.mark.parametrize("damage", ["garbage", "missing", "shard_size"])
def test_a_damaged_manifest_is_rebuilt_from_the_shards(tmp_path, capsys, reference, damage):
    out = make_run(tmp_path / "run")
    (out / "hands" / "shard-000000002000-000000003000.parquet").unlink()    # an unfinished run
    if damage == "garbage":
        (out / "_manifest.json").write_text("{\"config\": trunc")
        needle = "unreadable _manifest.json"
    elif damage == "missing":
        (out / "_manifest.json").unlink()
        needle = "holds shard files"
    else:
        edit_manifest(out, shard_size=500)
        needle = "written with shard size 1000, not the manifest's 500"
    before = snapshot(out)
    refused(capsys, main(cli_args(out, HANDS, SEED, 500 if damage == "shard_size" else SHARD)),
            needle, "--repair")
    assert snapshot(out) == before
    report = sim.repair_run(out)
    assert report.ok == ["shard-000000000000-000000001000.parquet",
                         "shard-000000001000-000000002000.parquet"]
    assert report.status.missing == ["shard-000000002000-000000003000.parquet"]
    assert main(cli_args(out)) == 0              # finishes the run: only the missing shard
    capsys.readouterr()
    pd.testing.assert_frame_equal(sim.load(out), reference)


def test_repair_refuses_shards_of_two_runs(tmp_path):
    out = make_run(tmp_path / "run")
    other = make_run(tmp_path / "other", hands=1000, seed=SEED + 7)
    shutil.copy(other / "hands" / "shard-000000000000-000000001000.parquet",
                out / "hands" / "shard-000000005000-000000006000.parquet")
    (out / "_manifest.json").unlink()
    before = snapshot(out)
    with pytest.raises(ValueError, match="holds shards of 2 runs .*nothing was changed"):
        sim.repair_run(out)
    assert snapshot(out) == before


# ------------------------------------------------------------------ the first layout
def make_legacy_run(out: Path, hands=HANDS) -> pd.DataFrame:
    """A run directory as older burraco-sim versions wrote it (manifest format 1)."""
    frame = sim.simulate(hands, SEED)
    out.mkdir()
    config = {"hands": hands, "seed": SEED, "strategies": ["heuristic"] * 4,
              "rules": sim.Rules().to_dict(), "shard_size": SHARD}
    run_id = rundir.legacy_run_id(config)
    versions = runner._versions()
    names = []
    for a in range(0, hands, SHARD):
        rec = dataset.table_to_records(
            __import__("pyarrow").Table.from_pandas(frame.iloc[a:a + SHARD],
                                                    preserve_index=False))
        table = dataset.records_to_table(rec, a, run_id, ["heuristic"] * 4)
        name = dataset.SHARD_PATTERN.format(a=a, b=min(a + SHARD, hands))
        dataset.write_shard(table, out / name, {"run_id": run_id, "config": config,
                                                 "versions": versions})
        names.append(name)
    (out / "_manifest.json").write_text(json.dumps(
        {"format": 1, "kind": "hands", "run_id": run_id, "config": config, "shards": names,
         "shards_total": len(names), "finished": True, "versions": versions}))
    return frame.assign(run_id=pd.Categorical([run_id] * hands))


@pytest.mark.slow
def test_a_run_of_the_first_layout_is_read_then_moved_by_repair(tmp_path, capsys):
    out = tmp_path / "old"
    frame = make_legacy_run(out)
    status = sim.check_run(out)
    assert status.complete and status.manifest_format == 1 and not status.stray
    pd.testing.assert_frame_equal(sim.load(out), frame)
    before = snapshot(out)
    refused(capsys, main(cli_args(out)), "layout of an earlier burraco-sim", "--repair")
    assert snapshot(out) == before
    report = sim.repair_run(out)
    assert len(report.moved) == 3 and report.ok == sorted(p.name for p in
                                                          out.glob("hands/shard-*"))
    assert not list(out.glob("shard-*"))
    pd.testing.assert_frame_equal(sim.load(out), frame)
    # and it resumes and extends like any run, keeping its run id
    assert main(cli_args(out, 5000)) == 0
    capsys.readouterr()
    longer = sim.load(out)
    assert longer["run_id"].nunique() == 1
    pd.testing.assert_frame_equal(longer.drop(columns="run_id"),
                                  sim.simulate(5000, SEED).drop(columns="run_id"))


# ------------------------------------------------------------------ 9. resume and extend
@pytest.mark.slow
def test_resume_takes_the_options_left_out_from_the_manifest(tmp_path, capsys):
    out = tmp_path / "run"
    specs = ["heuristic", "random", "expert", "random"]
    argv = ["simulate", "--hands", "2500", "--seed", "5", "--out", str(out), "--shard-size",
            "1000", "--rules", "fibur_italian", "--quiet", *sum((["--strategy", s]
                                                                   for s in specs), [])]
    real = executors._records
    calls = {"n": 0}

    def stop_after_one(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    executors._records = stop_after_one
    try:
        assert main(argv) == 130
    finally:
        executors._records = real
    capsys.readouterr()
    # no --shard-size, no --strategy, no --rules: all from the manifest
    assert main(["simulate", "--hands", "2500", "--seed", "5", "--out", str(out),
                 "--quiet"]) == 0
    capsys.readouterr()
    want = sim.simulate(2500, 5, strategies=specs, rules="fibur_italian")
    pd.testing.assert_frame_equal(sim.load(out), want)
    # only the directory: the same run, found complete
    assert main(["simulate", "--out", str(out), "--quiet"]) == 0
    assert "2,500" in capsys.readouterr().out
    # a given option that differs is still refused
    refused(capsys, main(["simulate", "--out", str(out), "--strategy", "heuristic",
                          "--quiet"]), "differs in: strategies")
    # the Python API resumes without shard_size too
    df = sim.simulate(2500, 5, strategies=specs, rules="fibur_italian", out=out)
    pd.testing.assert_frame_equal(df, want)


@pytest.mark.slow
def test_extend_a_run_to_more_hands(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(cli_args(out, 2500)) == 0                 # the last shard is short: 2000..2500
    assert main(["simulate", "--hands", "6200", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    m = json.loads((out / "_manifest.json").read_text())
    assert m["extents"] == [[0, 2500], [2500, 6200]] and m["finished"]
    assert m["shards"][-4:] == ["shard-000000002500-000000003500.parquet",
                                "shard-000000003500-000000004500.parquet",
                                "shard-000000004500-000000005500.parquet",
                                "shard-000000005500-000000006200.parquet"]
    pd.testing.assert_frame_equal(sim.load(out), sim.simulate(6200, SEED))
    status = sim.check_run(out)
    assert status.complete and status.hands_total == 6200 and not status.stray
    refused(capsys, main(cli_args(out, 6000)), "holds a run of 6,200 hands; --hands 6,000 is fewer")


def test_extend_a_match_run(tmp_path):
    out = tmp_path / "m"
    sim.simulate_matches(30, 2, out=out, shard_size=16, return_frame=False)
    sim.simulate_matches(50, 2, out=out, return_frame=False)         # shard size from the run
    ref = sim.simulate_matches(50, 2)
    pd.testing.assert_frame_equal(sim.load(out), ref.hands)
    pd.testing.assert_frame_equal(sim.load_matches(out), ref.matches)
    assert json.loads((out / "_manifest.json").read_text())["extents"] == [[0, 30], [30, 50]]


# ------------------------------------------------------------------ 6, 7. every reader
def readers_frames(hands_dir: Path) -> dict:
    import dask.dataframe as dd
    import duckdb
    import polars as pl
    import pyarrow.dataset as pds
    glob = os.fspath(hands_dir / "*.parquet")
    return {
        "pandas": pd.read_parquet(hands_dir),
        "pyarrow": pds.dataset(hands_dir).to_table(),
        "dask": dd.read_parquet(hands_dir),
        "duckdb": duckdb.sql(f"SELECT * FROM '{glob}'"),
        "polars": pl.read_parquet(glob),
    }


@pytest.mark.parametrize("players", [4, 2, 3])
def test_every_reader_gets_the_documented_types(tmp_path, players):
    pytest.importorskip("duckdb")
    pytest.importorskip("polars")
    out = tmp_path / "run"
    rules = sim.Rules(num_players=players)
    sim.simulate(400, 3, rules=rules, out=out, shard_size=150, return_frame=False)
    got = readers_frames(out / "hands")
    schema = dataset.SCHEMA
    nullable = {f.name for f in schema if f.nullable and f.type in dataset._PANDAS_NULLABLE}
    assert {"score_t2", "solo_seat", "closed_t2", "pozzetto_turn_t2"} <= nullable
    pandas_want = {f.name: ("category" if pa.types.is_dictionary(f.type)
                            else dataset._PANDAS_NULLABLE[f.type] if f.name in nullable
                            else str(np.dtype(f.type.to_pandas_dtype())))
                   for f in schema}
    assert pandas_want["score_t2"] == "Int32" and pandas_want["score_t0"] == "int32"
    frame = got["pandas"]
    assert {c: str(t) for c, t in frame.dtypes.items()} == pandas_want
    pd.testing.assert_frame_equal(frame, sim.load(out))
    # pyarrow: the schema itself
    assert got["pyarrow"].schema.equals(schema) and got["pyarrow"].num_rows == 400
    # dask: its metadata agrees with its data, and with pandas
    ddf = got["dask"]
    computed = ddf.compute()
    assert {c: str(t) for c, t in ddf.dtypes.items()} == pandas_want
    assert {c: str(t) for c, t in computed.dtypes.items()} == pandas_want
    # duckdb and polars: integer widths and booleans kept, nulls as nulls
    duck = dict(zip(got["duckdb"].columns, (str(t) for t in got["duckdb"].types)))
    width = {"int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
             "bool": "BOOLEAN"}
    import polars as pl
    pl_width = {"int8": pl.Int8, "int16": pl.Int16, "int32": pl.Int32, "int64": pl.Int64,
                "bool": pl.Boolean}
    for f in schema:
        if pa.types.is_dictionary(f.type):
            assert duck[f.name] == "VARCHAR"
            continue
        base = str(f.type)
        assert duck[f.name] == width[base], f.name
        assert got["polars"].schema[f.name] == pl_width[base], f.name
    assert got["duckdb"].shape[0] == 400 and got["polars"].height == 400
    third = got["polars"]["score_t2"]
    assert (third.null_count() == 400) == (players != 3)


def test_every_reader_opens_a_match_run_apart_from_its_match_table(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    import dask.dataframe as dd
    import pyarrow.dataset as pds
    out = tmp_path / "m"
    hands, matches = sim.simulate_matches(40, 6, out=out, shard_size=15)
    n = len(hands)
    assert len(pd.read_parquet(out / "hands")) == n
    assert pds.dataset(out / "hands").count_rows() == n
    assert len(dd.read_parquet(out / "hands")) == n
    assert duckdb.sql(f"SELECT count(*) FROM '{out}/hands/*.parquet'").fetchall()[0][0] == n
    assert pl.read_parquet(f"{out}/hands/*.parquet").height == n
    assert duckdb.sql(f"SELECT count(*) FROM '{out}/matches/*.parquet'").fetchall()[0][0] == 40
    plain = pd.read_parquet(out / "matches")
    assert plain["winner"].dtype == "Int8" and plain["final_t2"].dtype == "Int32"
    pd.testing.assert_frame_equal(plain.sort_values("match").reset_index(drop=True), matches,
                                  check_categorical=False)
    assert pl.read_parquet(f"{out}/matches/*.parquet").schema["winner"] == pl.Int8


def test_docs_give_the_one_line_read_of_each_reader():
    text = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    for line in ('pd.read_parquet("runs/demo/hands")', 'ds.dataset("runs/demo/hands")',
                 'dd.read_parquet("runs/demo/hands")',
                 "duckdb.sql(\"SELECT * FROM 'runs/demo/hands/*.parquet'\")",
                 'pl.read_parquet("runs/demo/hands/*.parquet")'):
        assert line in text, line


def test_a_sound_footer_over_damaged_data_is_one_line_everywhere(tmp_path, capsys, reference):
    """The footer check passes; the data pages are garbage: every reader says so in one line,
    summarize reports the shard corrupt, and the same simulate command re-simulates it."""
    out = make_run(tmp_path / "run")
    victim = out / "hands" / "shard-000000001000-000000002000.parquet"
    data = bytearray(victim.read_bytes())
    for k in range(200, 2200):                        # data pages, far from the footer
        data[k] ^= 0x5A
    victim.write_bytes(bytes(data))
    assert sim.check_run(out).complete                 # the footer is sound
    with pytest.raises(ValueError) as exc:
        sim.load(out)
    assert "\n" not in str(exc.value) and "cannot be read" in str(exc.value)
    assert victim.name in str(exc.value)
    assert main(["summarize", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"corrupt shard {victim.name}: damaged data" in text
    assert "2,000 of 3,000 hands" in text
    assert main(cli_args(out)) == 0
    assert "is incomplete or corrupt" in capsys.readouterr().err
    pd.testing.assert_frame_equal(sim.load(out), reference)


def test_resume_with_one_option_of_the_run_given_again(tmp_path, capsys):
    """--rule X (or --team1 S) alone on resume changes the run's rules (seats), not the
    default preset's, so the run's own value is accepted and a new one names the option."""
    out = tmp_path / "run"
    base = ["simulate", "--hands", "300", "--seed", "1", "--out", str(out), "--quiet"]
    assert main(base + ["--rule", "target_score=1505", "--rule", "stall_turn_limit=16",
                        "--team0", "expert"]) == 0
    capsys.readouterr()
    for extra in (["--rule", "target_score=1505"], ["--players", "4"], ["--team1", "heuristic"],
                  ["--team0", "expert"]):
        assert main(["simulate", "--out", str(out), "--quiet", *extra]) == 0, extra
        capsys.readouterr()
    refused(capsys, main(["simulate", "--out", str(out), "--quiet", "--rule",
                          "target_score=2005"]), "differs in: rules: target_score")
    refused(capsys, main(["simulate", "--out", str(out), "--quiet", "--team1", "random"]),
            "differs in: strategies of seat 1, 3")


def test_repair_keeps_the_target_of_a_sound_manifest_and_every_old_manifest(tmp_path):
    out = make_run(tmp_path / "run")
    m = json.loads((out / "_manifest.json").read_text())
    m["config"]["hands"] = 5000                     # an extension interrupted before a shard
    m["extents"] = [[0, 3000], [3000, 5000]]
    m["finished"] = False
    (out / "_manifest.json").write_text(json.dumps(m))
    for _ in range(3):
        report = sim.repair_run(out)
    assert report.status.hands_total == 5000 and len(report.status.missing) == 2
    assert report.status.writer is None
    assert len(list(out.glob("_manifest.json.replaced-*"))) == 3     # none replaced


# ------------------------------------------------------------------ a refused command creates nothing
def test_refused_simulate_leaves_the_directory_as_it_was(tmp_path, capsys):
    """Every refusal of simulate (and a match run), in a directory with and without a run:
    no lock file, no created directory, no manifest, nothing deleted."""
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("x")                  # `--out .` in a user's folder
    run = make_run(tmp_path / "run", hands=200)
    (run / "hands" / ".shard-000000000000-000000000100.parquet.tmp").write_bytes(b"half")
    stray = make_run(tmp_path / "stray", hands=200)
    (stray / "hands" / "mine.parquet").write_bytes(b"data")
    cases = [
        (foreign, cli_args(foreign, 200), "holds no burraco-sim run"),
        (foreign, cli_args(foreign, 200, SEED, SHARD, "--overwrite"), "holds no burraco-sim run"),
        (run, cli_args(run, 200, SEED + 1), "holds a different run"),
        (run, cli_args(run, 100), "is fewer"),
        (run, ["simulate", "--matches", "5", "--seed", str(SEED), "--out", str(run), "--quiet"],
         "not a match run"),
        (stray, cli_args(stray, 200, SEED, SHARD, "--overwrite"), "hands/mine.parquet"),
        (stray, cli_args(stray, 200), "hands/mine.parquet"),
    ]
    for where, args, needle in cases:
        before = everything(where)
        refused(capsys, main(args), needle)
        assert everything(where) == before, args            # the temp file is kept too


def test_a_refusal_under_the_lock_takes_back_the_lock_and_the_directories(tmp_path, capsys,
                                                                       monkeypatch):
    """The checks run before anything is created and again under the lock; a refusal of the
    second (a directory changed in between), or of the Dask client, removes the lock file and
    every directory the command made."""
    real = runner._check_out
    calls = []
    old = make_run(tmp_path / "old", hands=200)
    (old / lock.LOCK_NAME).unlink()                         # a run copied without its lock

    def refuse_under_lock(out, *a, **k):
        calls.append(out)
        if (out / lock.LOCK_NAME).exists():
            raise ValueError("out: changed meanwhile")
        return real(out, *a, **k)

    new = tmp_path / "a" / "b" / "run"
    monkeypatch.setattr(runner, "_check_out", refuse_under_lock)
    refused(capsys, main(cli_args(new, 200)), "changed meanwhile")
    assert not (tmp_path / "a").exists() and len(calls) == 1     # made, locked, taken back
    before = everything(old)
    refused(capsys, main(cli_args(old, 200)), "changed meanwhile")
    assert everything(old) == before and len(calls) == 3
    monkeypatch.setattr(runner, "_check_out", real)

    def no_cluster(*a, **k):
        raise ValueError("scheduler: cannot reach 'tcp://nowhere:1'")

    monkeypatch.setattr(runner, "_dask_client", no_cluster)
    refused(capsys, main(cli_args(new, 200, SEED, SHARD, "--scheduler", "tcp://nowhere:1")),
            "cannot reach")
    assert not (tmp_path / "a").exists()


def test_refused_repair_leaves_the_directory_as_it_was(tmp_path, capsys):
    empty = tmp_path / "e"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    two = make_run(tmp_path / "two", hands=200)
    other = make_run(tmp_path / "other", hands=200, seed=SEED + 1)
    shutil.copy(other / "hands" / "shard-000000000000-000000000200.parquet",
                two / "hands" / "shard-000000000200-000000000400.parquet")
    (two / "_manifest.json").write_text("garbage")
    (two / lock.LOCK_NAME).unlink()
    for where, needle in ((empty, "nothing to repair"), (two, "shards of 2 runs")):
        before = everything(where)
        refused(capsys, main(["summarize", str(where), "--repair"]), needle)
        assert everything(where) == before


# ------------------------------------------------------------------ a complete run, read-only
@pytest.mark.slow
def test_a_complete_run_is_reported_from_a_read_only_directory_without_writing(tmp_path):
    out = make_run(tmp_path / "run", hands=300)
    before = entries(out)
    with read_only(out) as prefix:
        r = burraco(prefix, *cli_args(out, 300))
        assert r.returncode == 0, r.stderr
        assert f"(all read back from {str(out)!r})" in r.stdout and r.stderr == ""
        r = burraco(prefix, "summarize", str(out))
        assert r.returncode == 0 and "300" in r.stdout and r.stderr == "", r.stderr
        r = burraco(prefix, *cli_args(out, 400))                  # extending must write
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "cannot write" in r.stderr and "Permission denied" in r.stderr
        assert "kept" not in r.stderr
    assert entries(out) == before


def test_a_complete_run_run_again_writes_nothing(tmp_path, capsys):
    out = make_run(tmp_path / "run", hands=200)
    (out / lock.LOCK_NAME).unlink()
    before = everything(out)
    mtime = (out / "_manifest.json").stat().st_mtime_ns
    assert main(cli_args(out, 200)) == 0
    assert "all read back" in capsys.readouterr().out
    assert {k: v for k, v in everything(out).items() if k != lock.LOCK_NAME} == before
    assert (out / "_manifest.json").stat().st_mtime_ns == mtime
    before = entries(out)                  # with its lock file: not even that is written
    assert main(cli_args(out, 200)) == 0
    assert "all read back" in capsys.readouterr().out
    assert entries(out) == before


@pytest.mark.parametrize("fail_at, kept", [(0, None), (1, "the completed shard is kept"),
                                           (2, "the 2 completed shards are kept")])
def test_a_failed_write_says_what_is_kept_only_when_something_is(tmp_path, capsys,
                                                                monkeypatch, fail_at, kept):
    import errno
    real = runner._write_tables
    written = []

    def disk_full(tables, files, meta):
        if len(written) == fail_at:
            raise OSError(errno.ENOSPC, "No space left on device", os.fspath(files[-1]))
        written.append(files[-1])
        return real(tables, files, meta)

    monkeypatch.setattr(runner, "_write_tables", disk_full)
    out = tmp_path / "run"
    err = refused(capsys, main(cli_args(out, 300, SEED, 100)), "No space left on device",
                  "fix it and run the same command again")
    if kept is None:
        assert "kept" not in err
    else:
        assert kept in err
    assert len(list((out / "hands").glob("shard-*.parquet"))) == fail_at


# ------------------------------------------------------------------ column names
def test_no_column_of_our_files_is_a_pandas_dataframe_attribute():
    """``df.diff`` is a method: a column by such a name cannot be read as ``df.name``.  Every
    column of every Parquet and CSV file we write: hand rows, match rows and table, sweep
    point files (any strategy parameter may be a column) and summary, tuning logs."""
    from sim import comparison, strategies, sweeps, tuning
    attrs = set(dir(pd.DataFrame))
    params = {p for s in strategies.STRATEGIES.values() for p in s.params}
    columns = {*dataset.SCHEMA.names, *dataset.MATCH_SCHEMA.names,
               *dataset.MATCH_HAND_SCHEMA.names, *(f.name for f in sweeps._DEAL_FIELDS),
               *comparison.SUMMARY_COLUMNS, *tuning.LOG_COLUMNS, *params}
    assert "paired_diff" in columns and "pile_threshold" in columns
    assert not sorted(columns & attrs)
    per = sim.sweep("heuristic", {"set_bias": [0]}, 5, 1)          # what a point file holds
    assert not set(per.columns) & attrs
