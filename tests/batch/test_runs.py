"""Run directories: kill -9 and resume, corrupt shards, sim.load, burraco summarize."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import sim
from sim.cli import main

HANDS, SHARD, SEED = 6000, 1000, 21


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run and its records."""
    out = tmp_path_factory.mktemp("ref") / "run"
    df = sim.simulate(HANDS, SEED, out=out, shard_size=SHARD)
    return out, df


def cli_run(out, hands=HANDS, shard=SHARD, seed=SEED):
    return ["simulate", "--hands", str(hands), "--seed", str(seed), "--out", str(out),
            "--shard-size", str(shard), "--quiet"]


def test_load_equals_the_simulated_frame_with_columns_and_filters(reference):
    out, df = reference
    loaded = sim.load(out)
    pd.testing.assert_frame_equal(loaded, df)
    sub = sim.load(out, columns=["hand_index", "turns", "end_reason"])
    assert list(sub.columns) == ["hand_index", "turns", "end_reason"] and len(sub) == HANDS
    long = sim.load(out, filter=pc.field("turns") > 40)
    assert len(long) == (df["turns"] > 40).sum() > 0
    closed = sim.load(out, filter=[("end_reason", "==", "closed")])
    assert len(closed) == (df["end_reason"] == "closed").sum()
    # the hands read directly with pyarrow.dataset and pandas too
    import pyarrow.dataset as pds
    assert pds.dataset(out / "hands", format="parquet").count_rows() == HANDS
    assert len(pd.read_parquet(out / "hands")) == HANDS
    with pytest.raises(ValueError, match="unknown column 'nosuch'"):
        sim.load(out, columns=["nosuch"])


def test_summarize_a_finished_run(reference, capsys):
    out, df = reference
    assert main(["summarize", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"{HANDS:,} of {HANDS:,} hands (100.0%) in 6 of 6 shards; complete" in text
    assert f"{df['score_t0'].mean():.2f}" in text


def corrupt_copy(reference, tmp_path, how):
    out = tmp_path / "run"
    sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, return_frame=False)
    victim = out / "hands" / "shard-000000002000-000000003000.parquet"
    if how == "truncate":
        data = victim.read_bytes()
        victim.write_bytes(data[: len(data) // 2])
    elif how == "garbage":
        victim.write_bytes(b"not a parquet file at all")
    elif how == "rows":
        table = pq.read_table(victim)
        pq.write_table(table.slice(0, 500), victim)
    return out, victim.name


@pytest.mark.parametrize("how, needle", [("truncate", "unreadable"), ("garbage", "unreadable"),
                                         ("rows", "500 rows, the manifest expects 1000")])
def test_corrupt_shard_is_reported_refused_and_resimulated(reference, tmp_path, capsys, how,
                                                           needle):
    out, name = corrupt_copy(reference, tmp_path, how)
    status = sim.check_run(out)
    assert list(status.corrupt) == [name] and needle in status.corrupt[name]
    assert main(["summarize", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"corrupt shard {name}" in text and "5 of 6 shards" in text
    with pytest.raises(ValueError, match=f"shard {name} .* is corrupt"):
        sim.load(out)
    assert main(cli_run(out)) == 0                 # the same command re-simulates it
    capsys.readouterr()
    assert sim.check_run(out).complete
    pd.testing.assert_frame_equal(sim.load(out), reference[1])


def test_partial_run_is_summarized_and_loaded(reference, tmp_path, capsys):
    out = tmp_path / "run"
    sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, return_frame=False)
    (out / "hands" / "shard-000000005000-000000006000.parquet").unlink()
    manifest = json.loads((out / "_manifest.json").read_text())      # as an interrupted run
    manifest["shards"].remove("shard-000000005000-000000006000.parquet")
    manifest["finished"] = False
    (out / "_manifest.json").write_text(json.dumps(manifest))
    assert main(["summarize", str(out)]) == 0
    assert "5,000 of 6,000 hands (83.3%) in 5 of 6 shards; incomplete" in capsys.readouterr().out
    assert len(sim.load(out)) == 5000


@pytest.mark.parametrize("bad, needle", [("file", "DIR: {target!r} is a file, not a directory"),
                                         ("empty", "holds no _manifest.json")])
def test_summarize_bad_directory_is_one_line_exit_2(tmp_path, capsys, bad, needle):
    target = tmp_path / "x"
    if bad == "file":
        target.write_text("hello")
    else:
        target.mkdir()
    assert main(["summarize", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle.format(target=str(target)) in err


KILLS = [signal.SIGKILL] * 5 + [signal.SIGTERM, signal.SIGINT]


@pytest.mark.slow
def test_kill_at_random_moments_then_resume_gives_the_same_records(reference, tmp_path):
    """Five runs killed with SIGKILL, one with SIGTERM and one with SIGINT (Ctrl-C) at random
    moments, each resumed by the same command."""
    rng = random.Random(20261129)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    killed_with_shards = 0
    for k, sig in enumerate(KILLS):
        out = tmp_path / f"run{k}"
        cmd = [sys.executable, "-m", "sim"] + cli_run(out, shard=500)
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # random moments of the run itself, counted from when its manifest appears (even
        # runs: often before any shard) or its first shard (odd runs: mid-run), so that a
        # slow start-up (a loaded machine) does not turn every kill into a kill at launch
        first = (out / "_manifest.json") if k % 2 == 0 else None
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not (
                first.exists() if first is not None else any(out.glob("hands/shard-*.parquet"))):
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.3) if first is not None else rng.uniform(0.0, 0.05))
        proc.send_signal(sig)
        proc.wait()
        if (out / "_manifest.json").exists():
            killed_with_shards += any(out.glob("hands/shard-*.parquet")) and not json.loads(
                (out / "_manifest.json").read_text())["finished"]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        manifest = json.loads((out / "_manifest.json").read_text())
        assert manifest["finished"] and len(manifest["shards"]) == HANDS // 500
        assert not list(out.rglob("*.tmp"))
        # records identical, run id included (the shard size is not part of the run's identity)
        pd.testing.assert_frame_equal(sim.load(out), reference[1])
    assert killed_with_shards >= 1       # at least one kill landed mid-run


def test_write_error_mid_run_is_one_line_exit_2_and_keeps_shards(tmp_path, capsys, monkeypatch):
    """A full disk while writing the fourth shard (injected ENOSPC)."""
    import errno

    from sim import dataset
    real = dataset.pq.write_table
    calls = {"n": 0}

    def failing(table, where, **kw):
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(table, where, **kw)

    monkeypatch.setattr(dataset.pq, "write_table", failing)
    out = tmp_path / "run"
    assert main(cli_run(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and "kept" in err
    status = sim.check_run(out)
    assert len(status.ok) == 3 and not status.corrupt and not list(out.rglob("*.tmp"))
    monkeypatch.setattr(dataset.pq, "write_table", real)
    assert main(cli_run(out)) == 0
    capsys.readouterr()
    assert sim.check_run(out).complete


def test_unwritable_output_location_is_one_line_exit_2(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert main(cli_run(blocker / "sub")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err
    assert main(cli_run(blocker)) == 2
    assert capsys.readouterr().err == (f"burraco: error: --out: {str(blocker)!r} is a file, not "
                                       "a directory\n")


@pytest.mark.slow
def test_memory_does_not_grow_with_the_number_of_hands(tmp_path):
    """Peak RSS of a 20,000-hand and a 200,000-hand run (shards of 10,000) differ by < 15%."""
    peaks = []
    for n in (20_000, 200_000):
        out = tmp_path / f"m{n}"
        cmd = [sys.executable, "-m", "sim"] + cli_run(out, hands=n, shard=10_000)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        peaks.append(usage.ru_maxrss)
    assert peaks[1] < 1.15 * peaks[0], peaks
