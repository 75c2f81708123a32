"""sim.sweep / burraco sweep: a parameter grid on the same deals; resuming an
interrupted sweep, --overwrite and the lock on --out (docs/cli.md)."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sim
from sim import sweeps
from sim.cli.main import EXAMPLES, main
from sim._util.lock import LOCK_NAME, LockedError, holder
from sim.experiments.sweeps import parse_grid

from _readonly import burraco, changed, entries, everything, read_only

ROOT = Path(__file__).resolve().parents[2]


def snapshot(directory) -> dict:
    """{relative path: bytes} of every file in ``directory`` and its subdirectories."""
    d = Path(directory)
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file()}


def data_files(directory) -> dict:
    """The sweep's files without the lock file (its content is the last holder's pid)."""
    return {k: v for k, v in snapshot(directory).items() if k != LOCK_NAME}


def test_grid_points_equal_separate_comparisons(tmp_path):
    out = tmp_path / "sw"
    summary = sim.sweep("heuristic", {"pile_threshold": [1, 3], "set_bias": [0, 2]}, hands=300,
                        seed=12, out=out)
    assert len(summary) == 4
    assert summary[["pile_threshold", "set_bias"]].values.tolist() == \
        [[1, 0], [1, 2], [3, 0], [3, 2]]
    # the default point against the default reference: nothing to tell apart
    first = summary.iloc[0]
    assert (first.mean_diff, first.ci95_low, first.ci95_high) == (0.0, 0.0, 0.0)
    # a point equals compare() of that spec against the reference on the same deals
    direct = sim.compare("heuristic:pile_threshold=3,set_bias=2", "heuristic", 300, 12).iloc[0]
    last = summary.iloc[3]
    assert last.mean_diff == direct.mean_diff and last.a_win_share == direct.a_win_share
    # the dataset: parameter values as columns, one row per deal and point
    df = pd.read_parquet(out / "points")
    assert len(df) == 4 * 300
    assert {"pile_threshold", "set_bias", "hand_index", "paired_diff"} <= set(df.columns)
    means = df.groupby(["pile_threshold", "set_bias"])["paired_diff"].mean().tolist()
    assert means == pytest.approx(summary["mean_diff"].tolist())
    assert json.loads((out / "_sweep.json").read_text())["reference"] == "heuristic"
    assert len(pd.read_csv(out / "_summary.csv")) == 4


def test_sweep_refuses_a_different_sweep_without_overwrite(tmp_path):
    out = tmp_path / "sw"
    sim.sweep("heuristic", {"set_bias": [0]}, hands=20, seed=1, out=out)
    before = snapshot(out)
    with pytest.raises(ValueError) as exc:
        sim.sweep("heuristic", {"set_bias": [1]}, hands=20, seed=1, out=out)
    msg = str(exc.value)
    assert "\n" not in msg and repr(str(out)) in msg and "different sweep (differs in: grid)" in msg
    assert snapshot(out) == before
    sim.sweep("heuristic", {"set_bias": [1]}, hands=20, seed=1, out=out, overwrite=True)
    assert pd.read_parquet(out / "points")["set_bias"].unique().tolist() == [1]


@pytest.mark.parametrize("items, needle", [
    (["pile_threshold"], "expected NAME=V1,V2"),
    (["pile_threshold=1,x"], "not a finite number"),
    (["a=1", "b=2", "c=3"], "one or two parameters"),
    (["a=1", "a=2"], "given twice"),
])
def test_parse_grid_errors(items, needle):
    with pytest.raises(ValueError, match=needle):
        parse_grid(items)


def test_cli_sweep(tmp_path, capsys):
    out = tmp_path / "sw"
    assert main(["sweep", "heuristic", "--param", "discard_w_danger=0,6", "--hands", "200",
                 "--seed", "3", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "discard_w_danger" in text and "diff vs ref" in text
    assert sorted(p.name for p in out.glob("points/point-*.parquet")) == \
        ["point-000.parquet", "point-001.parquet"]
    assert main(["sweep", "heuristic", "--param", "nosuch=1", "--hands", "10", "--seed", "1",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "allowed:" in err


def test_sweep_never_writes_into_a_directory_with_other_files(tmp_path):
    run = tmp_path / "run"
    sim.simulate(100, 1, out=run, shard_size=50, return_frame=False)
    before = sorted(p.name for p in run.iterdir())
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="is not empty and holds no sweep"):
            sim.sweep("heuristic", {"set_bias": [0]}, hands=10, seed=1, out=run,
                      overwrite=overwrite)
    assert sorted(p.name for p in run.iterdir()) == before


def test_sweep_grid_values_must_be_numbers_and_allowed():
    with pytest.raises(ValueError, match="'x' is not a number"):
        sim.sweep("heuristic", {"pile_threshold": ["x"]}, hands=10, seed=1)
    with pytest.raises(ValueError, match="use_wild_to_meld must be a whole number in 0..1"):
        sim.sweep("heuristic", {"use_wild_to_meld": [0, 2]}, hands=10, seed=1)
    with pytest.raises(ValueError, match="allowed: none"):
        sim.sweep("random", {"pile_threshold": [1]}, hands=10, seed=1)


# ------------------------------------------------------------------ resume
GRID = {"pile_threshold": [1.0, 3.0], "set_bias": [0.0, 2.0]}       # floats, as the CLI parses
HANDS, SEED = 400, 17
CLI = ["sweep", "heuristic", "--param", "pile_threshold=1,3", "--param", "set_bias=0,2",
       "--hands", str(HANDS), "--seed", str(SEED), "--threads", "1", "--quiet"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted sweep: its directory, files and summary."""
    out = tmp_path_factory.mktemp("ref") / "sw"
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1)
    return out, data_files(out), summary


def interrupt_after(index):
    def callback(done):
        if done.index == index and not done.resumed:
            raise KeyboardInterrupt
    return callback


def test_interrupted_sweep_resumes_to_the_files_of_an_uninterrupted_one(reference, tmp_path):
    ref_dir, ref_files, ref_summary = reference
    out = tmp_path / "sw"
    with pytest.raises(KeyboardInterrupt):
        sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                  callback=interrupt_after(1))
    assert sorted(p.name for p in out.glob("points/point-*")) == ["point-000.parquet",
                                                           "point-001.parquet"]
    assert json.loads((out / "_sweep.json").read_text())["finished"] is False
    assert holder(out) is None                          # the lock went with the call
    # a temp file of a killed write, as a crash leaves it: hidden, so the dataset skips it
    (out / "points" / ".point-002.parquet.tmp").write_bytes(b"PAR1 half a file")
    assert len(pd.read_parquet(out / "points")) == 2 * HANDS
    seen = []
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                        callback=lambda d: seen.append((d.index, d.resumed)))
    assert seen == [(0, True), (1, True), (2, False), (3, False)]
    pd.testing.assert_frame_equal(summary, ref_summary)
    assert data_files(out) == ref_files                 # byte for byte, _summary.csv included
    assert json.loads((out / "_sweep.json").read_text())["finished"] is True
    pd.testing.assert_frame_equal(pd.read_parquet(out / "points"), pd.read_parquet(ref_dir / "points"))


def unfinished_copy(out, ref_files):
    """A copy of the reference sweep whose _sweep.json is not marked finished."""
    for name, data in ref_files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    meta = json.loads((out / "_sweep.json").read_text())
    (out / "_sweep.json").write_text(json.dumps(dict(meta, finished=False)))
    return out


def test_resume_recomputes_corrupt_point_files_saying_so(reference, tmp_path, capsys):
    _ref_dir, ref_files, ref_summary = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    # point 0: truncated; point 1: point 3's file (other parameter values);
    # point 2: one row short; point 3: hand_index 1..N instead of 0..N-1
    (out / "points" / "point-000.parquet").write_bytes(ref_files["points/point-000.parquet"][:500])
    (out / "points" / "point-001.parquet").write_bytes(ref_files["points/point-003.parquet"])
    two = pq.read_table(out / "points" / "point-002.parquet")
    pq.write_table(two.slice(0, HANDS - 1), out / "points" / "point-002.parquet")
    three = pq.read_table(out / "points" / "point-003.parquet")
    i = three.schema.get_field_index("hand_index")
    three = three.set_column(i, "hand_index", pa.array(range(1, HANDS + 1), pa.int64()))
    pq.write_table(three, out / "points" / "point-003.parquet")
    (out / "_summary.csv").unlink()
    capsys.readouterr()
    seen = []
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                        callback=lambda d: seen.append(d.resumed))
    err = capsys.readouterr().err.splitlines()
    assert seen == [False] * 4
    assert len(err) == 4
    for k, line in enumerate(err):
        assert f"point-00{k}.parquet" in line and "incomplete or corrupt" in line
    pd.testing.assert_frame_equal(summary, ref_summary)
    assert data_files(out) == ref_files


def without_sweep_metadata(data: bytes, tmp: Path) -> bytes:
    """A point file as burraco-sim wrote it before point files carried their sweep."""
    src, dst = tmp / "with.parquet", tmp / "without.parquet"
    src.write_bytes(data)
    table = pq.read_table(src)
    meta = dict(table.schema.metadata)
    assert sweeps.POINT_META_KEY in meta
    del meta[sweeps.POINT_META_KEY]
    pq.write_table(table.replace_schema_metadata(meta), dst)
    return dst.read_bytes()


@pytest.mark.parametrize("kind", ["other seed, same point values", "no metadata, other point"])
def test_a_point_file_of_another_sweep_is_refused_and_kept(reference, tmp_path, capsys, kind):
    _ref_dir, ref_files, _ = reference
    out = tmp_path / "sw"
    with pytest.raises(KeyboardInterrupt):
        sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                  callback=interrupt_after(1))
    if kind.startswith("other seed"):       # passes every column check: only its metadata tells
        other = tmp_path / "other"
        sim.sweep("heuristic", GRID, HANDS, SEED + 1, out=other, threads=1)
        stranger = (other / "points" / "point-002.parquet").read_bytes()
        why = "its metadata differs in: seed"
    else:                                   # an earlier version's file of point 3, not 2
        stranger = without_sweep_metadata(ref_files["points/point-003.parquet"], tmp_path)
        why = "no sweep metadata, and its set_bias is not 0.0"
    (out / "points" / "point-002.parquet").write_bytes(stranger)   # under a missing point's name
    before = data_files(out)
    capsys.readouterr()
    for extra in ([], ["--overwrite"]):
        assert main(CLI + ["--out", str(out)] + extra) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("burraco: error: --out: ")
        assert f"{str(out / 'points' / 'point-002.parquet')!r} belongs to another sweep ({why})" in err
        assert "move it out of the directory" in err and "nothing was changed" in err
        assert data_files(out) == before and holder(out) is None
    (out / "points" / "point-002.parquet").unlink()
    assert main(CLI + ["--out", str(out)]) == 0
    assert data_files(out) == ref_files


def test_point_files_without_sweep_metadata_of_this_sweep_are_resumed(reference, tmp_path):
    _ref_dir, ref_files, ref_summary = reference
    out = tmp_path / "sw"
    with pytest.raises(KeyboardInterrupt):
        sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                  callback=interrupt_after(1))
    names = ("points/point-000.parquet", "points/point-001.parquet")
    for name in names:
        (out / name).write_bytes(without_sweep_metadata((out / name).read_bytes(), tmp_path))
    legacy = {n: (out / n).read_bytes() for n in names}
    seen = []
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                        callback=lambda d: seen.append((d.index, d.resumed)))
    assert seen == [(0, True), (1, True), (2, False), (3, False)]
    pd.testing.assert_frame_equal(summary, ref_summary)
    assert data_files(out) == ref_files | legacy         # read back, not rewritten


@pytest.mark.parametrize("kept, line", [(1, "1 of 4 points is"), (4, "4 of 4 points are")])
def test_resuming_a_sweep_says_how_many_points_are_read_back(reference, tmp_path, capsys,
                                                              kept, line):
    _ref_dir, ref_files, _ref_summary = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    for k in range(kept, 4):
        (out / "points" / f"point-00{k}.parquet").unlink()
    capsys.readouterr()
    sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1, progress=True)
    err = capsys.readouterr().err
    assert [x for x in err.splitlines() if x.startswith("resuming")] == \
        [f"resuming: {line} in {str(out)!r}"]
    assert data_files(out) == ref_files


def test_finished_sweep_run_again_reads_everything_back(reference, tmp_path, capsys):
    """... and writes nothing: every file (the lock file too) keeps its bytes and its time."""
    _ref_dir, ref_files, ref_summary = reference
    out = tmp_path / "sw"
    sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1)
    before = entries(out)
    capsys.readouterr()
    seen = []
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                        callback=lambda d: seen.append(d.resumed))
    assert seen == [True] * 4 and capsys.readouterr().err == ""
    assert entries(out) == before
    pd.testing.assert_frame_equal(summary, ref_summary)
    assert data_files(out) == ref_files


@pytest.mark.parametrize("damage, written", [
    ("summary deleted", {".", "_summary.csv", LOCK_NAME}),
    ("point truncated", {".", "points", "points/point-002.parquet", "_sweep.json"}),
    ("unfinished", {".", "_sweep.json", LOCK_NAME}),
])
def test_a_finished_sweep_missing_a_file_writes_that_file_only(reference, tmp_path, capsys,
                                                              damage, written):
    """A complete sweep run again writes nothing only when it finds nothing to write: a
    missing summary, a damaged point file, a _sweep.json not marked finished are written
    again, and nothing else (the summary not even after a point computed again)."""
    ref_dir, ref_files, ref_summary = reference
    out = tmp_path / "sw"
    shutil.copytree(ref_dir, out)
    if damage == "summary deleted":
        (out / "_summary.csv").unlink()
    elif damage == "point truncated":
        point = out / "points" / "point-002.parquet"
        point.write_bytes(point.read_bytes()[:500])
    else:
        meta = json.loads((out / "_sweep.json").read_text())
        (out / "_sweep.json").write_text(json.dumps(dict(meta, finished=False), indent=2))
    time.sleep(0.01)                                    # a write would show in the times
    before = entries(out)
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1)
    capsys.readouterr()
    assert changed(before, entries(out)) == written
    pd.testing.assert_frame_equal(summary, ref_summary)
    assert data_files(out) == ref_files


@pytest.mark.slow
def test_a_complete_sweep_is_reported_from_a_read_only_directory_without_writing(reference,
                                                                                 tmp_path):
    ref_dir, _ref_files, _ref_summary = reference
    out = tmp_path / "sw"
    shutil.copytree(ref_dir, out)
    cli = [*CLI, "--out", str(out)]
    expected = burraco([], *cli)                        # the same command, where it may write
    assert expected.returncode == 0 and expected.stderr == "", expected.stderr
    before = entries(out)
    with read_only(out) as prefix:
        r = burraco(prefix, *cli)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout == expected.stdout and "diff vs ref" in r.stdout
        r = burraco(prefix, "summarize", str(out))
        assert r.returncode == 0 and "progress: 4 of 4 points; complete" in r.stdout, r.stderr
    assert entries(out) == before
    (out / "_summary.csv").unlink()                     # now it must write
    before = entries(out)
    with read_only(out) as prefix:
        r = burraco(prefix, *cli)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "cannot write" in r.stderr and "Permission denied" in r.stderr
    assert entries(out) == before


@pytest.mark.parametrize("change, differs", [
    (dict(hands=HANDS + 1), "hands"),
    (dict(seed=SEED + 1), "seed"),
    (dict(reference="heuristic:set_bias=1"), "reference"),
    (dict(rules="fibur_italian"), "rules"),
    (dict(base="heuristic:discard_w_danger=3"), "base"),
    (dict(grid={"set_bias": [0.0, 2.0], "pile_threshold": [1.0, 3.0]}), "grid"),   # order
    (dict(grid={"pile_threshold": [1, 3], "set_bias": [0, 2]}), "grid"),           # int columns
])
def test_a_different_sweep_is_refused_naming_what_differs(reference, tmp_path, change, differs):
    _ref_dir, ref_files, _ = reference
    out = tmp_path / "sw"
    for name, data in ref_files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    (out / "points" / ".point-001.parquet.tmp").write_bytes(b"left by a killed run")
    before = snapshot(out)
    args = dict(base="heuristic", grid=GRID, hands=HANDS, seed=SEED) | change
    with pytest.raises(ValueError) as exc:
        sim.sweep(**args, out=out, threads=1)
    msg = str(exc.value)
    assert "\n" not in msg and repr(str(out)) in msg
    assert f"holds a different sweep (differs in: {differs})" in msg and "--overwrite" in msg
    assert data_files(out) == {k: v for k, v in before.items() if k != LOCK_NAME}
    assert holder(out) is None                          # a refusal gives the lock back


def test_an_output_location_that_cannot_be_written_is_one_line(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="is a file, not a directory"):
        sim.sweep("heuristic", {"set_bias": [0]}, 10, 1, out=blocker)
    with pytest.raises(ValueError) as exc:
        sim.sweep("heuristic", {"set_bias": [0]}, 10, 1, out=blocker / "sub")
    assert "\n" not in str(exc.value) and "cannot write" in str(exc.value)
    assert blocker.read_text() == "x"


def test_overwrite_replaces_an_earlier_sweep_entirely(tmp_path):
    out = tmp_path / "sw"
    sim.sweep("heuristic", {"set_bias": [0, 1, 2]}, hands=50, seed=1, out=out)
    (out / "points" / ".point-003.parquet.tmp").write_bytes(b"x")
    (out / "points" / "point-004.parquet.tmp").write_bytes(b"x")      # an earlier version's temp name
    sim.sweep("heuristic", {"pile_threshold": [2]}, hands=60, seed=2, out=out, overwrite=True)
    assert sorted(data_files(out)) == ["_summary.csv", "_sweep.json", "points/point-000.parquet"]
    df = pd.read_parquet(out / "points")
    assert len(df) == 60 and list(df.columns[:2]) == ["pile_threshold", "hand_index"]


def test_files_a_sweep_did_not_write_are_kept_noted_and_never_deleted(reference, tmp_path,
                                                                      capsys):
    _ref_dir, ref_files, ref_summary = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    (out / "notes.txt").write_text("mine")
    (out / "point-009.parquet.bak").write_bytes(b"mine too")
    (out / "plots").mkdir()
    mine = {"notes.txt": b"mine", "point-009.parquet.bak": b"mine too"}
    capsys.readouterr()
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1)   # resumed
    pd.testing.assert_frame_equal(summary, ref_summary)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "also holds notes.txt, plots/, point-009.parquet.bak" in err
    assert "not written by burraco sweep: kept, never read" in err
    assert data_files(out) == ref_files | mine
    # a different sweep: refused, saying what --overwrite deletes; with it, only the sweep's
    with pytest.raises(ValueError, match="--overwrite deletes the 4 points played"):
        sim.sweep("heuristic", {"set_bias": [5]}, 10, 1, out=out)
    assert data_files(out) == ref_files | mine
    sim.sweep("heuristic", {"set_bias": [5]}, 10, 1, out=out, overwrite=True)
    assert sorted(data_files(out)) == sorted(["_summary.csv", "_sweep.json",
                                              "points/point-000.parquet", *mine])
    assert all((out / n).read_bytes() == b for n, b in mine.items())
    assert (out / "plots").is_dir()


def test_a_stray_file_in_points_is_refused_as_readers_would_read_it(reference, tmp_path):
    _ref_dir, ref_files, _ = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    (out / "points" / "mine.parquet").write_bytes(ref_files["points/point-000.parquet"])
    before = snapshot(out)
    for overwrite in (False, True):
        with pytest.raises(ValueError) as exc:
            sim.sweep("heuristic", GRID, HANDS, SEED, out=out, overwrite=overwrite)
        msg = str(exc.value)
        assert "'points/mine.parquet'" in msg and "move it out" in msg and "\n" not in msg
        assert snapshot(out) == before


def test_cli_ctrl_c_keeps_points_and_the_same_command_resumes(reference, tmp_path, capsys,
                                                             monkeypatch):
    _ref_dir, ref_files, _ = reference
    out = tmp_path / "sw"
    real = sweeps.compare_hands
    calls = []

    def ctrl_c_on_third(*args, **kw):
        calls.append(args[0])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(sweeps, "compare_hands", ctrl_c_on_third)
    assert main(CLI + ["--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert err == (f"burraco: interrupted; 2 points of 4 kept in {str(out)!r}; "
                   "run the same command again to resume\n")
    monkeypatch.setattr(sweeps, "compare_hands", real)
    assert main(CLI + ["--out", str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert data_files(out) == ref_files


@pytest.mark.slow
def test_cli_sweep_ctrl_c_then_sigkill_then_the_same_command_finishes_it(tmp_path):
    """A real Ctrl-C (SIGINT) mid-sweep, then the same command killed with SIGKILL mid-sweep,
    then the same command again: the files of an uninterrupted sweep, no stale lock."""
    out = tmp_path / "sw"
    values = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
    cmd = [sys.executable, "-m", "sim", "sweep", "heuristic", "--param",
           "pile_threshold=" + ",".join(map(str, values)), "--hands", "1500", "--seed", "9",
           "--threads", "1", "--quiet", "--out", str(out)]

    def start_and_wait_for(point):
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not (out / "points" / f"point-{point:03d}.parquet").exists() and proc.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is not None:
            proc.kill()
            pytest.fail("the sweep ended before it could be interrupted")
        return proc

    proc = start_and_wait_for(1)
    assert holder(out)["pid"] == proc.pid
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    kept = len(list(out.glob("points/point-*.parquet")))
    assert proc.returncode == 130 and 2 <= kept < len(values)
    assert err == (f"burraco: interrupted; {kept} points of {len(values)} kept in "
                   f"{str(out)!r}; run the same command again to resume\n")
    proc = start_and_wait_for(kept)
    try:
        assert holder(out)["pid"] == proc.pid
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert holder(out) is None
    assert json.loads((out / "_sweep.json").read_text())["finished"] is False
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not list(out.glob(".*.tmp")) and not list(out.glob("*.tmp"))
    ref = tmp_path / "ref"
    sim.sweep("heuristic", {"pile_threshold": values}, 1500, 9, out=ref, threads=1)
    assert data_files(out) == data_files(ref)


HOLD = """\
import sys
from sim._util.lock import DirectoryLock
with DirectoryLock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


@pytest.mark.slow
def test_second_writer_is_refused_while_the_lock_is_held(reference, tmp_path):
    _ref_dir, ref_files, _ = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    (out / "points" / "point-003.parquet").unlink()                 # an interrupted sweep to resume
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "locked\n"
        before = snapshot(out)
        r = subprocess.run([sys.executable, "-m", "sim"] + CLI + ["--out", str(out)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("burraco: error: --out: ")
        assert repr(str(out)) in r.stderr and f"pid {child.pid}" in r.stderr
        for overwrite in (False, True):
            with pytest.raises(LockedError, match=f"pid {child.pid}"):
                sim.sweep("heuristic", GRID, HANDS, SEED, out=out, overwrite=overwrite)
        assert snapshot(out) == before
    finally:
        child.stdin.close()
        child.wait(timeout=60)
    assert main(CLI + ["--out", str(out)]) == 0           # released: the same command resumes
    assert data_files(out) == ref_files


# ---------------------------------------------- docs: examples that do not collide
def test_docs_api_sweep_and_cli_examples_write_different_directories():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    docs = "".join(p.read_text(encoding="utf-8") for p in pages)
    api_out = r"""sim\.sweep\([^)]*\bout=["']([^"']+)["']"""
    assert re.search(api_out, (ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    api = set(re.findall(api_out, docs))
    cli = set(re.findall(r"--out\s+(\S+)", docs + EXAMPLES))
    assert api and "runs/sweep-pile" in cli
    assert not api & cli, f"the docs' sim.sweep example writes {api & cli}, as a CLI example"


# ------------------------------------------------------------------ damage, follow the advice
def run_cli(capsys, args) -> tuple:
    code = main(args)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete", "empty"])
def test_a_damaged_sweep_json_is_rebuilt_by_following_the_advice(reference, tmp_path, capsys,
                                                                 damage):
    _ref_dir, ref_files, ref_summary = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    (out / "points" / "point-003.parquet").unlink()             # an interrupted sweep
    meta = out / "_sweep.json"
    {"truncate": lambda: meta.write_bytes(meta.read_bytes()[:40]),
     "garbage": lambda: meta.write_bytes(b"\x00\xff garbage"),
     "delete": meta.unlink, "empty": lambda: meta.write_text("")}[damage]()
    before = everything(out)
    code, _, err = run_cli(capsys, CLI + ["--out", str(out)])
    assert code == 2 and err.count("\n") == 1 and "holds 3 point files but" in err
    hint = f"'burraco summarize {out} --repair'"
    assert hint in err and "--overwrite deletes the 3 points played" in err
    assert everything(out) == before                            # no lock file either
    code, text, _ = run_cli(capsys, ["summarize", str(out)])
    assert code == 1 and hint in text
    code, text, _ = run_cli(capsys, ["summarize", str(out), "--repair"])
    assert code == 0 and "rebuilt from 3 point files" in text and "incomplete" in text
    seen = []
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                        callback=lambda d: seen.append(d.resumed))
    assert seen == [True, True, True, False]                    # nothing played again
    pd.testing.assert_frame_equal(summary, ref_summary)
    assert {k: v for k, v in data_files(out).items() if ".replaced-" not in k} == ref_files


def test_overwrite_after_a_damaged_sweep_json_deletes_only_the_sweep(reference, tmp_path,
                                                                    capsys):
    _ref_dir, ref_files, _ = reference
    out = unfinished_copy(tmp_path / "sw", ref_files)
    (out / "_sweep.json").write_text("{")
    (out / "notes.txt").write_text("mine")
    code, out_text, err = run_cli(capsys, ["sweep", "heuristic", "--param", "set_bias=1",
                                           "--hands", "20", "--seed", "1", "--quiet",
                                           "--out", str(out), "--overwrite"])
    assert code == 0, err
    assert sorted(data_files(out)) == ["_summary.csv", "_sweep.json", "notes.txt",
                                       "points/point-000.parquet"]


def test_refused_sweeps_leave_the_directory_as_it_was(reference, tmp_path, capsys):
    _ref_dir, ref_files, _ = reference
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    done = unfinished_copy(tmp_path / "sw", ref_files)
    (done / LOCK_NAME).unlink(missing_ok=True)
    other = ["sweep", "heuristic", "--param", "set_bias=9", "--hands", "20", "--seed", "1",
             "--quiet"]
    for where, args, needle in [
            (mine, other + ["--out", str(mine)], "holds no sweep"),
            (mine, other + ["--out", str(mine), "--overwrite"], "holds no sweep"),
            (done, other + ["--out", str(done)], "different sweep")]:
        before = everything(where)
        code, _, err = run_cli(capsys, args)
        assert code == 2 and needle in err, err
        assert everything(where) == before


def test_a_sweep_of_the_earlier_layout_is_refused_then_moved_by_repair(reference, tmp_path,
                                                                      capsys):
    """Point files beside _sweep.json with the column diff (burraco-sim before points/):
    refused with the way on; --repair moves them into points/ as paired_diff, and the
    sweep is then read back, nothing computed again."""
    _ref_dir, ref_files, ref_summary = reference
    out = tmp_path / "old"
    out.mkdir()
    for name, data in ref_files.items():
        if name.startswith("points/"):
            table = pq.read_table(pa.BufferReader(data))
            meta = dict(table.schema.metadata)
            old = {**json.loads(meta[sweeps.POINT_META_KEY]), "format": 1}
            table = table.rename_columns(["diff" if c == "paired_diff" else c
                                          for c in table.column_names])
            table = table.replace_schema_metadata(
                {**meta, sweeps.POINT_META_KEY: json.dumps(old).encode()})
            pq.write_table(table, out / name.partition("/")[2])
        else:
            (out / name).write_bytes(data)
    before = everything(out)
    code, _, err = run_cli(capsys, CLI + ["--out", str(out)])
    assert code == 2 and "layout of an earlier burraco-sim" in err
    assert f"'burraco summarize {out} --repair' moves them into points/" in err
    assert everything(out) == before
    code, text, _ = run_cli(capsys, ["summarize", str(out), "--repair"])
    assert code == 0 and "moved 4 files to the current layout (points/)" in text, text
    assert "\ncomplete\n" in text
    assert not list(out.glob("point-*"))
    seen = []
    summary = sim.sweep("heuristic", GRID, HANDS, SEED, out=out, threads=1,
                        callback=lambda d: seen.append(d.resumed))
    assert seen == [True] * 4
    pd.testing.assert_frame_equal(summary, ref_summary)
    df = pd.read_parquet(out / "points")
    assert "paired_diff" in df.columns and "diff" not in df.columns


def test_every_reader_opens_the_points_of_a_sweep(reference):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    import dask.dataframe as dd
    ref_dir, _files, _ = reference
    points = ref_dir / "points"
    n = 4 * HANDS
    assert len(pd.read_parquet(points)) == n
    assert len(dd.read_parquet(points)) == n
    assert duckdb.sql(f"SELECT count(*) FROM '{points}/*.parquet'").fetchall()[0][0] == n
    assert pl.read_parquet(f"{points}/*.parquet").height == n
    assert "paired_diff" in pl.read_parquet(f"{points}/*.parquet").columns
