"""Readouts that must not mislead: summaries of data read back, the match
summary's capped row, compare/sweep with one deal or identical play, SIGTERM, and where the
"simulating it again" notice goes."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import sim
from sim.cli import main
from sim.experiments.comparison import format_summary, summarize_pairs
from sim.batch.runner import MatchSummary
from sim.experiments.sweeps import format_table

ROOT = Path(__file__).resolve().parents[2]
HANDS, SHARD, SEED = 300, 100, 31
PROCESS_ROWS = ("hands simulated now", "hands/s", "elapsed s", "matches simulated now",
                "matches/s")


def rows(text: str) -> dict:
    """``label -> rest of the line`` of a summary table (labels are separated from the
    values by at least two spaces)."""
    out = {}
    for line in text.splitlines():
        label, sep, rest = line.partition("  ")
        if sep and label.strip():
            out.setdefault(label.strip(), rest.strip())
    return out


def cli_run(out):
    return ["simulate", "--hands", str(HANDS), "--seed", str(SEED), "--out", str(out),
            "--shard-size", str(SHARD), "--quiet"]


@pytest.fixture(scope="module")
def hand_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("readouts") / "run"
    sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, return_frame=False)
    return out, sim.load(out)


# ------------------------------------------------------------------ summaries of data read back
def test_summarize_of_a_frame_describes_data_not_a_process(hand_run):
    _, df = hand_run
    text = sim.summarize(df).format()
    got = rows(text)
    for label in PROCESS_ROWS:
        assert label not in got, text
    assert got["hands"] == f"{HANDS:,}"
    assert got["mean turns per hand"] == f"{df['turns'].mean():.2f}"
    assert got["mean score per hand"].split() == [f"{df['score_t0'].mean():.2f}",
                                                  f"{df['score_t1'].mean():.2f}"]


def test_cli_summarize_of_a_finished_run_has_no_simulation_rows(hand_run, capsys):
    out, df = hand_run
    assert main(["summarize", str(out)]) == 0
    text = capsys.readouterr().out
    got = rows(text)
    for label in PROCESS_ROWS:
        assert label not in got, text
    assert got["hands"] == f"{HANDS:,}"
    closed = (df["end_reason"] == "closed").mean()
    assert got["end: closed"] == f"{closed:.2%}"


def test_simulate_of_a_complete_run_says_everything_was_read_back(hand_run, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(cli_run(out)) == 0
    first = rows(capsys.readouterr().out)
    assert first["hands simulated now"] == f"{HANDS:,}" and "hands/s" in first
    assert main(cli_run(out)) == 0                     # complete: nothing left to simulate
    text = capsys.readouterr().out
    got = rows(text)
    assert got["hands simulated now"] == f"0  (all read back from {str(out)!r})"
    assert "hands/s" not in got, text
    assert got["mean score per hand"] == first["mean score per hand"]
    # a partial resume says how many hands came from disk
    (out / "hands" / "shard-000000000100-000000000200.parquet").unlink()
    assert main(cli_run(out)) == 0
    got = rows(capsys.readouterr().out)
    assert got["hands simulated now"] == f"{SHARD:,}  ({HANDS - SHARD:,} hands read back from " \
                                         f"{str(out)!r})"
    assert re.fullmatch(r"[\d,]+", got["hands/s"])


def test_match_summary_puts_capped_matches_above_the_team_columns(tmp_path, capsys):
    summary = MatchSummary()
    res = sim.simulate_matches(40, 3, max_hands_per_match=3, shard_size=16,
                               out=tmp_path / "m", callback=summary.add_shard)
    capped = int(res.matches["winner"].isna().sum())
    assert 0 < capped < 40                              # the cap ended some matches, not all
    summary.finish()
    text = summary.format()
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["team", "0", "team", "1"])
    cap = next(i for i, line in enumerate(lines) if line.startswith("capped matches (no winner)"))
    share = next(i for i, line in enumerate(lines) if line.startswith("share of matches capped"))
    assert cap < header and share < header
    assert lines[cap].split()[-1] == f"{capped:,}"      # the count alone, no column after it
    assert lines[share].split()[-1] == f"{capped / 40:.2%}"
    won = res.matches["winner"].value_counts()
    assert rows(text)["matches won"].split() == [f"{won.get(0, 0):,}", f"{won.get(1, 0):,}"]
    # read back, the same figures without the process rows
    assert main(["summarize", str(tmp_path / "m")]) == 0
    back = capsys.readouterr().out
    for label in PROCESS_ROWS:
        assert label not in rows(back), back
    assert rows(back)["capped matches (no winner)"] == f"{capped:,}"


# ------------------------------------------------------------------ compare and sweep
def strict_json(text: str):
    def refuse(token):
        raise ValueError(f"not JSON: {token}")
    return json.loads(text, parse_constant=refuse)


def test_compare_one_deal_has_no_interval(capsys):
    per = sim.compare_hands("heuristic", "random", 1, 1)
    diff = float(per["paired_diff"].iloc[0])
    assert main(["compare", "heuristic", "random", "--hands", "1", "--seed", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text.lower(), text
    got = rows(text)
    assert got["mean score difference A - B per hand"] == f"{diff:+,.1f} points"
    assert got["95% interval"] == "none: needs at least two deals"
    assert got["variance reduction vs independent deals"] == "none: needs at least two deals"
    assert main(["compare", "heuristic", "random", "--hands", "1", "--seed", "1", "--quiet",
                 "--format", "json"]) == 0
    doc = strict_json(capsys.readouterr().out)
    assert doc["mean_diff"] == diff and doc["hands"] == 1
    assert doc["ci95_low"] is None and doc["ci95_high"] is None and doc["se"] is None
    assert doc["var_reduction"] is None


def test_compare_identical_strategies_says_the_differences_are_zero(capsys):
    assert main(["compare", "heuristic", "heuristic", "--hands", "40", "--seed", "2",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "inf" not in text, text
    got = rows(text)
    assert got["95% interval"] == "+0.0 .. +0.0"
    assert got["variance reduction vs independent deals"].startswith(
        "none: every paired difference is 0")
    assert main(["compare", "heuristic", "heuristic", "--hands", "40", "--seed", "2", "--quiet",
                 "--format", "json"]) == 0
    doc = strict_json(capsys.readouterr().out)
    assert doc["var_reduction"] is None and doc["mean_diff"] == 0.0 and doc["se"] == 0.0


def test_format_summary_of_a_real_comparison_keeps_its_numbers():
    row = summarize_pairs(sim.compare_hands("heuristic", "random", 50, 4)).iloc[0]
    got = rows(format_summary(row))
    assert got["95% interval"] == f"{row.ci95_low:+,.1f} .. {row.ci95_high:+,.1f}"
    assert got["variance reduction vs independent deals"] == f"×{row.var_reduction:.2f}"


def test_sweep_table_with_one_deal_shows_no_nan(capsys):
    assert main(["sweep", "heuristic", "--param", "pile_threshold=1,3", "--hands", "1",
                 "--seed", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text.lower(), text
    assert "95% interval: none, it needs at least two deals per point" in text
    summary = sim.sweep("heuristic", {"pile_threshold": [1, 3]}, 1, 1)
    table = format_table(summary, ["pile_threshold"]).splitlines()
    for line, value, diff in zip(table[1:3], ("1", "3"), summary["mean_diff"]):
        assert line.split()[:4] == [value, f"{diff:+.1f}", "-", "-"]   # 3, not 3.0
    half = format_table(sim.sweep("heuristic", {"pile_threshold": [1.5]}, 1, 1),
                        ["pile_threshold"]).splitlines()
    assert half[1].split()[0] == "1.5"


# ------------------------------------------------------------------ notices on stderr
@pytest.mark.parametrize("quiet", [False, True])
def test_resimulated_shard_notice_goes_to_stderr(hand_run, tmp_path, capsys, quiet):
    out = tmp_path / "run"
    sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, return_frame=False)
    victim = out / "hands" / "shard-000000000100-000000000200.parquet"
    victim.write_bytes(b"not a parquet file")
    argv = cli_run(out)[:-1] + (["--quiet"] if quiet else [])
    assert main(argv) == 0
    captured = capsys.readouterr()
    notice = f"{victim.name} is incomplete or corrupt: simulating it again"
    assert notice not in captured.out
    assert captured.err.count(notice) == 1
    pd.testing.assert_frame_equal(sim.load(out), hand_run[1])


# ------------------------------------------------------------------ SIGTERM
@pytest.mark.slow
def test_sigterm_stops_like_ctrl_c_and_the_same_command_resumes(tmp_path):
    """A real process, with its progress bar, terminated once its first shard is on disk."""
    out = tmp_path / "run"
    hands, shard, seed = 40_000, 4_000, 1             # ten shards: the signal lands mid-run
    cmd = [sys.executable, "-m", "sim", "simulate", "--hands", str(hands), "--seed", str(seed),
           "--out", str(out), "--shard-size", str(shard)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 300                  # a cold Numba cache compiles first
    while not list(out.rglob("shard-*.parquet")) and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr[-2000:]
    kept = sorted(out.rglob("shard-*.parquet"))
    assert 1 <= len(kept) < hands // shard               # stopped mid-run
    last = stderr.strip().splitlines()[-1]
    assert last == (f"burraco: terminated by SIGTERM; {len(kept) * shard:,} hands in completed "
                    f"shards kept in {str(out)!r}; run the same command again to resume")
    assert "Traceback" not in stderr and stdout == ""
    assert not list(out.rglob("*.tmp"))                 # the shard being written was discarded
    manifest = json.loads((out / "_manifest.json").read_text())
    assert not manifest["finished"]

    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"({len(kept) * shard:,} hands read back from {str(out)!r})" in done.stdout
    ref = sim.simulate(hands, seed, shard_size=shard, return_frame=True)
    pd.testing.assert_frame_equal(sim.load(out), ref)


def test_sigterm_handler_is_restored_after_main(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    assert main(["rules"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigterm_inside_a_kernels_python_callback_stops_like_ctrl_c(tmp_path, monkeypatch, capsys):
    """Numba wraps an exception raised by a signal handler while its compiled code is in
    one of its Python callbacks in a SystemError; the run still stops as after SIGTERM
    (completed shards kept, exit 143, one line, no traceback), and the command resumes."""
    from sim.batch.executors import HandWork
    from sim.cli.common import Terminated
    real = HandWork.run
    calls = []

    def run(self, a, b, on_progress=None):
        calls.append(a)
        if len(calls) == 3:                     # the third shard: as Numba reports it
            try:
                raise Terminated(signal.SIGTERM)
            except Terminated as exc:
                raise SystemError("CPUDispatcher(<function simulate_range>) returned a result "
                                  "with an exception set") from exc
        return real(self, a, b, on_progress)

    monkeypatch.setattr(HandWork, "run", run)
    out = tmp_path / "run"
    argv = ["simulate", "--hands", "500", "--seed", "3", "--out", str(out),
            "--shard-size", "100", "--threads", "1", "--quiet"]
    assert main(argv) == 143
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"burraco: terminated by SIGTERM; 200 hands in completed shards kept in {str(out)!r}; "
        f"run the same command again to resume")
    assert "Traceback" not in err and "SystemError" not in err
    assert len(list(out.rglob("shard-*.parquet"))) == 2
    monkeypatch.setattr(HandWork, "run", real)
    assert main(argv) == 0
    pd.testing.assert_frame_equal(sim.load(out), sim.simulate(500, 3, shard_size=100,
                                                              return_frame=True))


def test_a_system_error_without_an_interruption_is_not_hidden():
    from sim._util.interrupt import unwrapped, wrapped_interrupt
    with pytest.raises(SystemError, match="other"):
        with unwrapped():
            raise SystemError("other")
    try:
        raise ValueError("x")
    except ValueError as inner:
        outer = SystemError("y")
        outer.__cause__ = inner
    assert wrapped_interrupt(outer) is None
    ki = KeyboardInterrupt()
    outer.__cause__.__context__ = ki
    assert wrapped_interrupt(outer) is ki


@pytest.mark.parametrize("where", ["manifest", "state"])
def test_an_interruption_while_a_small_file_is_written_leaves_no_temporary_file(
        tmp_path, monkeypatch, where):
    """SIGTERM (or Ctrl-C) that lands between writing a manifest or state file's
    temporary copy and renaming it: the interruption passes on, the old file stays whole
    and no ``.tmp`` is left behind."""
    from sim.batch import outdir, workdir
    from sim.cli.common import Terminated
    path = tmp_path / ("_manifest.json" if where == "manifest" else "state.json")
    path.write_text("old\n")
    real = os.replace

    def interrupted(src, dst):
        raise Terminated(signal.SIGTERM)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(Terminated):
        if where == "manifest":
            outdir._write_json(path, {"new": 1})
        else:
            workdir.write_text(path, "new\n")
    monkeypatch.setattr(os, "replace", real)
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
