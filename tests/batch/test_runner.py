"""End-to-end tests of the runner and the CLI with the real game kernel:
determinism across shard sizes and thread counts, shard files, the manifest,
resume after an interruption, and refusal of a different run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from kernels.core import layout as L
import sim
from sim import dataset, executors, runner
from sim.cli import main
from sim.core.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
HANDS = 50


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    """50 hands, one shard, all threads."""
    return runner.simulate(HANDS, 123, shard_size=1000)


def records_only(df: pd.DataFrame) -> pd.DataFrame:
    return df[["hand_index", *L.REC_COLUMNS]].reset_index(drop=True)


def test_frame_shape_and_order(reference):
    assert list(reference.columns) == [c.name for c in dataset.COLUMNS]
    assert reference["hand_index"].tolist() == list(range(HANDS))
    assert set(reference["end_reason"].astype(str)) <= set(L.END_REASONS)
    assert reference["run_id"].nunique() == 1
    assert (reference["strategy_s0"] == "heuristic").all()


def test_shard_size_does_not_change_records(reference):
    small = runner.simulate(HANDS, 123, shard_size=7)
    pd.testing.assert_frame_equal(records_only(small), records_only(reference))


def test_kernel_chunking_does_not_change_records(reference, monkeypatch):
    monkeypatch.setattr(executors, "KERNEL_CHUNK", 3)
    chunked = runner.simulate(HANDS, 123, shard_size=20)
    pd.testing.assert_frame_equal(records_only(chunked), records_only(reference))


def test_thread_count_does_not_change_records(reference):
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    one = runner.simulate(HANDS, 123, shard_size=1000, threads=1)
    many = runner.simulate(HANDS, 123, shard_size=1000, threads=threads)
    pd.testing.assert_frame_equal(records_only(one), records_only(reference))
    pd.testing.assert_frame_equal(records_only(many), records_only(reference))


def test_seed_changes_records(reference):
    other = runner.simulate(HANDS, 124, shard_size=1000)
    assert not records_only(other).equals(records_only(reference))


def test_debug_checks_pass():
    df = runner.simulate(HANDS, 5, debug=True)
    assert (df["error"] == 0).all()


def test_per_seat_strategies():
    specs = ["heuristic", "random", "heuristic:pile_threshold=3", "random"]
    df = runner.simulate(20, 9, strategies=specs)
    assert [df[f"strategy_s{s}"].iloc[0] for s in range(4)] == specs


def test_shard_files_manifest_and_read_back(tmp_path, reference):
    out = tmp_path / "run"
    seen = []
    df = runner.simulate(HANDS, 123, out=out, shard_size=20, callback=seen.append)
    pd.testing.assert_frame_equal(records_only(df), records_only(reference))

    # the layout: the manifest, the (empty) lock file and the hands apart
    names = sorted(p.name for p in out.iterdir())
    assert names == [".burraco.lock", runner.MANIFEST, "hands"]
    assert (out / ".burraco.lock").read_text() == ""          # nobody writes it now
    shards = ["shard-000000000000-000000000020.parquet", "shard-000000000020-000000000040.parquet",
              "shard-000000000040-000000000050.parquet"]
    assert sorted(p.name for p in (out / "hands").iterdir()) == shards
    for name in shards:
        table = pq.read_table(out / "hands" / name)
        assert table.schema.names == [c.name for c in dataset.COLUMNS]
        assert table.schema.remove_metadata() == dataset.SCHEMA
        meta = dataset.read_metadata(out / "hands" / name)
        assert meta["config"]["seed"] == 123 and meta["run_id"] == df["run_id"].iloc[0]
        assert meta["extents"] == [[0, HANDS]] and meta["format"] == 2

    m = json.loads((out / runner.MANIFEST).read_text())
    assert m["config"] == {"hands": HANDS, "seed": 123, "strategies": ["heuristic"] * 4,
                           "rules": Rules().to_dict(), "shard_size": 20}
    assert m["format"] == 2 and m["extents"] == [[0, HANDS]]
    assert m["finished"] is True and m["shards"] == shards and m["shards_total"] == 3
    assert m["run_id"] == df["run_id"].iloc[0]
    assert m["created"]
    for key in ("burraco_sim", "numba", "numpy", "pyarrow", "python"):
        assert m["versions"][key]

    assert [(s.start, s.stop, s.resumed) for s in seen] == [(0, 20, False), (20, 40, False),
                                                           (40, 50, False)]
    assert all(s.records.shape == (s.stop - s.start, L.N_REC) for s in seen)
    pd.testing.assert_frame_equal(sim.load(out), df)


def test_interrupted_run_resumes(tmp_path, reference):
    out = tmp_path / "run"

    def stop_after_two(shard):
        if shard.stop == 20:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.simulate(HANDS, 123, out=out, shard_size=10, callback=stop_after_two)
    files = sorted(p.name for p in (out / "hands").iterdir())
    assert files == ["shard-000000000000-000000000010.parquet",
                     "shard-000000000010-000000000020.parquet"]
    assert json.loads((out / runner.MANIFEST).read_text())["finished"] is False
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("hands/shard-*")}

    seen = []
    df = runner.simulate(HANDS, 123, out=out, shard_size=10, callback=seen.append)
    assert [s.resumed for s in seen] == [True, True, False, False, False]
    assert all(p.stat().st_mtime_ns == stamps[p.name] for p in out.glob("hands/shard-*")
               if p.name in stamps)
    pd.testing.assert_frame_equal(records_only(df), records_only(reference))
    assert json.loads((out / runner.MANIFEST).read_text())["finished"] is True

    # a complete run: everything is read back, nothing simulated
    seen.clear()
    again = runner.simulate(HANDS, 123, out=out, shard_size=10, callback=seen.append)
    assert all(s.resumed for s in seen)
    pd.testing.assert_frame_equal(again, df)


def test_missing_shard_is_redone(tmp_path, reference):
    out = tmp_path / "run"
    runner.simulate(HANDS, 123, out=out, shard_size=25, return_frame=False)
    os.remove(out / "hands" / "shard-000000000000-000000000025.parquet")
    # the temporary file of an interrupted write (hidden), and one of the first layout's name
    (out / "hands" / ".shard-000000000000-000000000025.parquet.tmp").write_bytes(b"half")
    (out / "hands" / "shard-000000000025-000000000050.parquet.tmp").write_bytes(b"half")
    df = runner.simulate(HANDS, 123, out=out, shard_size=25)
    pd.testing.assert_frame_equal(records_only(df), records_only(reference))
    assert not list(out.rglob("*.tmp"))


def test_different_run_refused_and_overwrite(tmp_path):
    out = tmp_path / "run"
    runner.simulate(20, 1, out=out, return_frame=False)
    for kwargs, word in (({"seed": 2}, "seed"), ({"shard_size": 7}, "shard_size"),
                         ({"strategies": "random"}, "strategies of seat 0, 1, 2, 3"),
                         ({"rules": Rules(stall_turn_limit=20)}, "rules: stall_turn_limit")):
        args = {"hands": 20, "seed": 1, "out": out}
        args.update(kwargs)
        with pytest.raises(ValueError, match=f"different run \\(differs in: {word}"):
            runner.simulate(**args)
    with pytest.raises(ValueError, match="holds a run of 20 hands; --hands 10 is fewer"):
        runner.simulate(10, 1, out=out)
    df = runner.simulate(20, 2, out=out, overwrite=True)
    assert json.loads((out / runner.MANIFEST).read_text())["config"]["seed"] == 2
    pd.testing.assert_frame_equal(sim.load(out), df)


@pytest.mark.slow
def test_cli_end_to_end(tmp_path):
    out = tmp_path / "cli"
    args = ["simulate", "--hands", "30", "--seed", "4", "--out", str(out), "--shard-size", "10",
            "--quiet"]
    r = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    for word in ("hands/s", "mean score", "clean burracos", "dirty burracos", "closed"):
        assert word in r.stdout
    assert len(list(out.glob("hands/shard-*.parquet"))) == 3
    df = sim.load(out)
    assert df["hand_index"].tolist() == list(range(30))
    pd.testing.assert_frame_equal(records_only(df),
                                  records_only(runner.simulate(30, 4, shard_size=30)))

    # the same directory with a different run: one line, exit code 2, files untouched
    def stamps():        # the lock file is the writer's, not the run's data
        return {p.name: p.stat().st_mtime_ns for p in out.rglob("*") if p.name != ".burraco.lock"}

    before = stamps()
    r = subprocess.run([sys.executable, "-m", "sim", *args[:4], "5", *args[5:]],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("burraco: error: ") and str(out) in lines[0]
    assert stamps() == before


def test_cli_progress_and_summary(tmp_path, capsys):
    assert main(["simulate", "--hands", "12", "--seed", "8", "--out", str(tmp_path / "p"),
                 "--shard-size", "5", "--threads", "1"]) == 0
    captured = capsys.readouterr()
    assert "hands" in captured.out and "mean turns per hand" in captured.out
    assert "hand" in captured.err          # the progress bar
