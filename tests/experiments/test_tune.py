"""burraco tune / sim.tune (docs/tune.md): CMA-ES over the heuristic's parameters, the log, the
strategy file, resuming, refusals, a toy objective with a known optimum, the tuned strategies."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("cma")

import sim                                                           # noqa: E402
from sim import strategies as S                                     # noqa: E402
from sim import tuning                                              # noqa: E402
from sim.cli import main                                            # noqa: E402
from sim._util.lock import LOCK_NAME, DirectoryLock, LockedError          # noqa: E402

from _readonly import burraco, changed, entries, everything, read_only         # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PARAMS = ["pile_threshold", "discard_w_pair", "close_min_burracos"]
SMALL = dict(params=PARAMS, popsize=4, validate_hands=400)          # 5 evaluations a generation


def cli_small(out, *extra):
    return ["tune", "expert", "--params", ",".join(PARAMS), "--popsize", "4",
            "--hands-per-eval", "100", "--budget", "1500", "--seed", "3", "--out", str(out),
            "--validate-hands", "400", "--quiet", *extra]


# ------------------------------------------------------------------ a real run, end to end
def test_tune_run_writes_a_strategy_file_that_simulate_plays(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(cli_small(out)) == 0
    text = capsys.readouterr().out
    assert "validated on unseen deals" in text and "the answer (search mean)" in text
    report = json.loads((out / "result.json").read_text())
    assert report["generations"] == 3 and report["hands_used"] == 3 * 5 * 100
    # the log: every evaluated point, one file per generation
    log = pd.read_parquet(out / "log")
    assert sorted(os.listdir(out / "log")) == [f"gen-{g:04d}.parquet" for g in range(3)]
    assert len(log) == 3 * 5 and set(log["role"]) == {"candidate", "mean"}
    assert list(log.columns[:3]) == ["generation", "candidate", "role"]
    assert set(tuning.LOG_COLUMNS) | set(PARAMS) == set(log.columns)
    assert (log["hands"] == 100).all()
    assert log["close_min_burracos"].dtype == np.int64 and log["pile_threshold"].dtype == float
    seeds = [tuning.block_seed(3, g) for g in range(3)]
    for g, gen in log.groupby("generation"):
        assert (gen["block_seed"] == seeds[g]).all()            # one block per generation
        mean = gen[gen["role"] == "mean"].iloc[0]
        cands = gen[gen["role"] == "candidate"]
        assert sorted(cands["candidate"]) == [0, 1, 2, 3] and mean["candidate"] == -1
        assert (cands["reference"] == mean["spec"]).all()       # the moving reference
        assert mean["reference"] == "expert"
        # the chained estimate: a candidate's difference from the mean, plus the mean's gain
        assert np.allclose(cands["est_gain"], cands["mean_diff"] + mean["mean_diff"])
    assert len(set(seeds)) == 3 and report["validation"]["seed"] == tuning.validation_seed(3)
    assert tuning.validation_seed(3) not in seeds
    # a logged value is sim.compare's on the same deals
    row = log[log["role"] == "candidate"].iloc[5]
    again = sim.compare(row["spec"], row["reference"], hands=100, seed=int(row["block_seed"]))
    assert again["mean_diff"].iloc[0] == pytest.approx(row["mean_diff"])
    assert again["se"].iloc[0] == pytest.approx(row["se"])
    # the answer: the final mean, written as a strategy file that --strategy-file plays
    path = out / "strategy.toml"
    seat = S.load_file(path)[0]
    assert S.resolve(seat)[0] == report["spec"]
    assert report["spec"] != S.resolve("expert")[0]               # the search moved
    assert report["validation"]["hands"] == 400
    v = report["validation"]
    assert v["ci95_low"] < v["mean_diff"] < v["ci95_high"]
    val = sim.compare(report["spec"], "expert", hands=400, seed=v["seed"]).iloc[0]
    assert val["mean_diff"] == pytest.approx(v["mean_diff"])
    run = tmp_path / "run"
    assert main(["simulate", "--hands", "40", "--seed", "1", "--out", str(run),
                 "--strategy-file", str(path), "--quiet"]) == 0
    manifest = json.loads((run / "_manifest.json").read_text())
    assert manifest["config"]["strategies"] == [report["spec"]] * 4
    assert json.loads((out / "_tune.json").read_text())["finished"] is True


# ------------------------------------------------------------------ resuming
def _files(out: Path) -> dict:
    """Every file of a tuning directory, but the times: the log without its seconds."""
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
             if p.is_file() and p.name not in (".burraco.lock", "result.json")
             and p.parent.name != "log"}
    report = json.loads((out / "result.json").read_text())
    assert report.pop("seconds") >= 0 and report.pop("search_seconds") > 0
    log = pd.read_parquet(out / "log").drop(columns="seconds")
    return files, report, log.to_dict("list")


def test_resume_after_a_stop_ends_as_an_uninterrupted_run(tmp_path):
    args = ("expert", 80, 4 * 5 * 80, 11)
    whole = tuning.tune(*args, out=tmp_path / "whole", **SMALL)

    def stop_after_1(done):
        if done.generation == 1 and not done.resumed:
            raise KeyboardInterrupt

    out = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        tuning.tune(*args, out=out, callback=stop_after_1, **SMALL)
    assert sorted(os.listdir(out / "log")) == ["gen-0000.parquet", "gen-0001.parquet"]
    assert not (out / "strategy.toml").exists()
    seen = []
    again = tuning.tune(*args, out=out, callback=seen.append, **SMALL)
    assert [(d.generation, d.resumed) for d in seen] == [(0, True), (1, True), (2, False),
                                                          (3, False)]
    assert again.spec == whole.spec and again.values == whole.values
    pd.testing.assert_frame_equal(again.log.drop(columns="seconds"),
                                  whole.log.drop(columns="seconds"))
    assert _files(out) == _files(tmp_path / "whole")


def test_resume_after_kill_9(tmp_path):
    out, hands, budget = tmp_path / "k", 400, 8 * 5 * 400
    cmd = [sys.executable, "-m", "sim", *cli_small(out)]
    cmd[cmd.index("--hands-per-eval") + 1] = str(hands)
    cmd[cmd.index("--budget") + 1] = str(budget)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None \
                and len(list(out.glob("log/gen-*.parquet"))) < 2:
            time.sleep(0.02)
        assert child.poll() is None, "the tuning ended before it could be killed"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    kept = len(list(out.glob("log/gen-*.parquet")))
    assert 2 <= kept < 8 and not (out / "strategy.toml").exists()
    again = tuning.tune("expert", hands, budget, 3, out=out, **SMALL)
    whole = tuning.tune("expert", hands, budget, 3, out=tmp_path / "w", **SMALL)
    pd.testing.assert_frame_equal(again.log.drop(columns="seconds"),
                                  whole.log.drop(columns="seconds"))
    assert (out / "strategy.toml").read_bytes() == (tmp_path / "w" / "strategy.toml").read_bytes()


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("change,needle", [
    (["--params", "pile_threshold,foo"], "--params: strategy 'expert' has no parameter 'foo'"),
    (["--budget", "499"], "--budget: 499 deals (less than one generation"),
    (["--hands-per-eval", "1"], "--hands-per-eval must be an integer in 2..1000000000"),
    (["--validate-hands", "0"], "--validate-hands must be"),
    (["--popsize", "1"], "--popsize must be"),
    (["--against", "nosuch"], "--against: unknown name 'nosuch'"),
    (["--players", "3"], "tune: 3-player games are not supported"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, change, needle):
    args = cli_small(tmp_path / "bad")
    for option, value in zip(change[::2], change[1::2]):
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("burraco: error: ") and needle in err, err
    assert not (tmp_path / "bad").exists()


def test_bad_base_and_malformed_counts(tmp_path, capsys):
    assert main(["tune", "random", *cli_small(tmp_path / "b")[2:]]) == 2
    err = capsys.readouterr().err
    assert "BASE: 'random' is not of the heuristic family" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:
        main(cli_small(tmp_path / "b") + ["--hands-per-eval", "many"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:
        main(["tune", "--help"])
    assert exc.value.code == 0
    help_text = capsys.readouterr().out
    for option in ("--hands-per-eval", "--budget", "--params", "--against", "--validate-hands"):
        assert option in help_text


def test_refuses_another_tuning_a_foreign_directory_and_a_second_writer(tmp_path):
    out = tmp_path / "t"
    tuning.tune("expert", 50, 5 * 50, 1, out=out, **SMALL)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match=r"holds a different tuning \(differs in: seed\)"):
        tuning.tune("expert", 50, 5 * 50, 2, out=out, **SMALL)
    with pytest.raises(ValueError, match=r"differs in: params"):
        tuning.tune("expert", 50, 5 * 50, 1, out=out, **{**SMALL, "params": PARAMS[:2]})
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    with DirectoryLock(out):
        with pytest.raises(LockedError, match="is being written by"):
            tuning.tune("expert", 50, 5 * 50, 1, out=out, **SMALL)
    redone = tuning.tune("expert", 50, 5 * 50, 2, out=out, overwrite=True, **SMALL)
    assert redone.report["config"]["seed"] == 2
    foreign = tmp_path / "f"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="is not empty and holds no tuning"):
            tuning.tune("expert", 50, 5 * 50, 1, out=foreign, overwrite=overwrite, **SMALL)
    assert sorted(os.listdir(foreign)) == ["notes.txt"]


# ------------------------------------------------------------------ a known optimum
OPTIMUM = {"pile_threshold": 4.2, "discard_w_pair": 7.5, "close_min_burracos": 2}
SCALE = {"pile_threshold": 1.0, "discard_w_pair": 2.0, "close_min_burracos": 1.0}


def _score(spec: str) -> float:
    v = S.resolve(spec)[2]
    return -10 * sum(((v[S.HEURISTIC.params[k][0]] - x) / SCALE[k]) ** 2
                     for k, x in OPTIMUM.items())


def toy(candidate, reference, hands, seed):
    """A noisy paired difference whose optimum is OPTIMUM (no game is played)."""
    noise = np.random.default_rng([seed, zlib.crc32(candidate.encode())]).normal(0, 30, hands)
    return _score(candidate) - _score(reference) + noise


def test_toy_objective_with_a_known_optimum_is_found():
    result = tuning.tune("heuristic", 100, 40 * 8 * 100, 5, params=list(OPTIMUM), popsize=7,
                         objective=toy, validate_hands=100)
    found = result.values
    assert abs(found["pile_threshold"] - 4.2) < 0.35, found
    assert abs(found["discard_w_pair"] - 7.5) < 0.7, found
    assert found["close_min_burracos"] == 2, found
    # untouched parameters keep BASE's values; the start was far from the optimum
    assert found["discard_w_danger"] == S.HEURISTIC.params["discard_w_danger"][1]
    assert _score(result.spec) > -1.5 and _score("heuristic") < -100
    assert result.strategy_file is None


def test_fixed_reference_gains_are_the_differences():
    result = tuning.tune("heuristic", 50, 3 * 8 * 50, 5, params=list(OPTIMUM), popsize=7,
                         objective=toy, validate_hands=50, against="heuristic",
                         validate_against="heuristic")
    cands = result.log[result.log["role"] == "candidate"]
    assert (cands["reference"] == "heuristic").all()
    assert np.array_equal(cands["est_gain"], cands["mean_diff"])


# ------------------------------------------------------------------ the tuned strategies
@pytest.mark.parametrize("preset", S.TUNED_PRESETS)
def test_tuned_strategies_are_their_files(preset, tmp_path):
    name = f"tuned_{preset}"
    path = S.TUNED_DIR / f"{name}.toml"
    seat = S.load_file(path)[0]
    _, kind, vector = S.resolve(name)
    assert kind == S.HEURISTIC.kind
    assert np.array_equal(S.resolve(seat)[2], vector)
    assert S.resolve(name)[0] == name and name in S.STRATEGIES
    assert "validated against expert" in path.read_text()
    assert main(["simulate", "--hands", "20", "--seed", "1", "--out", str(tmp_path / "r"),
                 "--strategy-file", str(path), "--rules", preset, "--quiet"]) == 0


# ------------------------------------------------------------------ damage, follow the advice
def toy_tune(out, **kw):
    """Three generations of the toy objective (no game played)."""
    return tuning.tune("expert", 20, 3 * 5 * 20, 4, out=out, objective=toy, **{**SMALL, **kw})


def stop_after(n):
    def callback(g):
        if g.generation == n - 1 and not g.resumed:
            raise KeyboardInterrupt
    return callback


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete"])
def test_a_damaged_tune_json_is_rebuilt_and_no_generation_played_again(tmp_path, capsys,
                                                                       damage):
    ref = toy_tune(tmp_path / "ref")
    out = tmp_path / "t"
    with pytest.raises(KeyboardInterrupt):
        toy_tune(out, callback=stop_after(2))
    meta = out / tuning.TUNE_JSON
    {"truncate": lambda: meta.write_bytes(meta.read_bytes()[:30]),
     "garbage": lambda: meta.write_bytes(b"\xff\x00"), "delete": meta.unlink}[damage]()
    before = everything(out)
    with pytest.raises(ValueError) as exc:
        toy_tune(out)
    msg = str(exc.value)
    assert "holds 2 generation files but" in msg and f"'burraco summarize {out} --repair'" in msg
    assert "--overwrite deletes the 2 generations played" in msg
    assert everything(out) == before
    capsys.readouterr()
    assert main(["summarize", str(out), "--repair"]) == 0
    text = capsys.readouterr().out
    assert "rebuilt from 2 generation files" in text and "progress: 2 of 3 generations" in text
    seen = []
    result = toy_tune(out, callback=lambda g: seen.append(g.resumed))
    assert seen == [True, True, False]                  # the two logged ones replayed
    assert result.spec == ref.spec
    logs = [pd.read_parquet(d / "log").drop(columns="seconds") for d in (out, tmp_path / "ref")]
    pd.testing.assert_frame_equal(*logs)
    assert sorted(p.name for p in (out / "log").iterdir()) == \
        [f"gen-000{g}.parquet" for g in range(3)]


@pytest.mark.parametrize("stop, line", [(1, "1 of 3 generations is"),
                                        (2, "2 of 3 generations are")])
def test_resuming_a_tuning_says_so_like_a_sweep(tmp_path, capsys, stop, line):
    out = tmp_path / "t"
    with pytest.raises(KeyboardInterrupt):
        toy_tune(out, callback=stop_after(stop))
    capsys.readouterr()
    toy_tune(out, progress=True)
    err = capsys.readouterr().err
    assert f"resuming: {line} in {str(out)!r}\n" in err
    toy_tune(out)                                   # without progress: nothing is said
    assert "resuming" not in capsys.readouterr().err


def test_generations_after_a_damaged_one_are_kept_and_replayed(tmp_path, capsys):
    ref = toy_tune(tmp_path / "ref")
    out = tmp_path / "t"
    toy_tune(out)
    third = (out / "log" / "gen-0002.parquet").read_bytes()
    (out / "log" / "gen-0001.parquet").write_bytes(b"PAR1 damaged")
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    seen = []
    result = toy_tune(out, callback=lambda g: seen.append(g.resumed))
    err = capsys.readouterr().err
    assert "playing generation 1 again" in err and "also holds notes.txt" in err
    assert seen == [True, False, True] and result.spec == ref.spec
    assert (out / "log" / "gen-0002.parquet").read_bytes() == third
    assert (out / "notes.txt").read_text() == "mine"


def test_refused_tunings_leave_the_directory_as_it_was(tmp_path):
    out = tmp_path / "t"
    toy_tune(out)
    (out / ".burraco.lock").unlink()
    before = everything(out)
    with pytest.raises(ValueError, match="different tuning"):
        tuning.tune("expert", 20, 3 * 5 * 20, 5, out=out, objective=toy, **SMALL)
    assert everything(out) == before


# ------------------------------------------------------------------ a complete tuning run again
def counted_toy(calls: list):
    """:func:`toy` (under its name: the same configuration), counting the evaluations."""
    def objective(candidate, reference, hands, seed):
        calls.append(candidate)
        return toy(candidate, reference, hands, seed)
    objective.__name__ = toy.__name__
    return objective


@pytest.mark.parametrize("damage, written, played", [
    (None, set(), 0),
    ("result deleted", {".", "result.json", LOCK_NAME}, 2),
    ("strategy edited", {".", "strategy.toml", "result.json"}, 2),
    ("result of another answer", {".", "result.json"}, 2),
    ("unfinished", {".", "_tune.json", LOCK_NAME}, 0),
])
def test_a_complete_tuning_run_again_writes_only_what_is_missing(tmp_path, damage, written,
                                                                  played):
    """A complete tuning run again replays its log, reads its report back and writes
    nothing, not even the lock file; a report or strategy file that is missing or not this
    answer's is written again (the validation played again: the answer's and the luckiest
    point's, 2 evaluations), a _tune.json not marked finished is marked, and nothing else."""
    out = tmp_path / "t"
    first = toy_tune(out)
    if damage == "result deleted":
        (out / "result.json").unlink()
    elif damage == "strategy edited":
        (out / "strategy.toml").write_text("[all]\nname = \"heuristic\"\n")
    elif damage == "result of another answer":
        report = json.loads((out / "result.json").read_text())
        report["spec"] = "heuristic"
        (out / "result.json").write_text(json.dumps(report, indent=2) + "\n")
    elif damage == "unfinished":
        state = json.loads((out / "_tune.json").read_text())
        (out / "_tune.json").write_text(json.dumps(dict(state, finished=False), indent=2))
    time.sleep(0.01)                                    # a write would show in the times
    before = entries(out)
    calls, seen = [], []
    again = tuning.tune("expert", 20, 3 * 5 * 20, 4, out=out, objective=counted_toy(calls),
                        callback=lambda g: seen.append(g.resumed), **SMALL)
    assert changed(before, entries(out)) == written
    assert len(calls) == played and seen == [True] * 3
    assert again.spec == first.spec and again.values == first.values
    assert again.report == json.loads((out / "result.json").read_text())
    assert again.report["validation"] == json.loads(json.dumps(first.report["validation"]))
    assert (out / "strategy.toml").read_text() == tuning.strategy_toml(first.values,
                                                                      first.report)
    assert json.loads((out / "_tune.json").read_text())["finished"] is True


@pytest.mark.slow
def test_a_complete_tuning_is_reported_from_a_read_only_directory_without_writing(tmp_path):
    out = tmp_path / "t"
    first = burraco([], *cli_small(out))
    assert first.returncode == 0, first.stderr
    before = entries(out)
    with read_only(out) as prefix:
        r = burraco(prefix, *cli_small(out))
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout == first.stdout and "validated on unseen deals" in r.stdout
        r = burraco(prefix, "summarize", str(out))
        assert r.returncode == 0 and "progress: 3 of 3 generations; complete" in r.stdout
        assert "validated on unseen deals" in r.stdout
    assert entries(out) == before
    (out / "result.json").unlink()                      # now it must write
    before = entries(out)
    with read_only(out) as prefix:
        r = burraco(prefix, *cli_small(out))
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "cannot write" in r.stderr and "Permission denied" in r.stderr
    assert entries(out) == before


# ------------------------------------------------------------------ the commands it prints
def _command(line: str, prefix: str) -> list:
    """The arguments of a printed ``burraco ...`` command (after ``prefix``), as a shell
    would split them."""
    import shlex
    assert prefix in line, line
    words = shlex.split(line.split(prefix, 1)[1].split("\n", 1)[0])
    assert words[0] == "burraco"
    return words[1:]


@pytest.mark.parametrize("rule_args", [
    ["--players", "2"],
    ["--rules", "fibur_italian"],
    ["--rules", "fibur_international", "--players", "2", "--rule", "target_score=1505"],
    ["--rule", "set_ranks=A,3,K", "--rule", "semi_clean_bonus=75",
     "--rule", "take_pile_requires_meld=true"],
])
def test_found_by_and_play_it_carry_the_rules_it_was_tuned_for(tmp_path, capsys, monkeypatch,
                                                                rule_args):
    """The strategy file's "found by" and "play it" lines and the printed play command parse
    as burraco commands with the rules of the tuning (the toy objective plays no game); the
    file's play command names it THIS_FILE (the file reads the same wherever it is copied),
    the printed one by its path."""
    from sim.cli import build_parser
    from sim.cli.common import _rules
    monkeypatch.setattr(tuning, "paired_objective", lambda rules, threads: toy)
    out = tmp_path / "t w"                              # a space: the commands quote it
    argv = ["tune", "heuristic", "--params", ",".join(OPTIMUM), "--popsize", "3",
            "--hands-per-eval", "20", "--budget", "80", "--seed", "5", "--validate-hands",
            "20", "--out", str(out), "--quiet", *rule_args]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    tuned = _rules(build_parser().parse_args(argv))
    assert tuned != sim.Rules()
    text = (out / "strategy.toml").read_text()
    assert "CUSTOM_RULES" not in text
    found = build_parser().parse_args(_command(text, "# found by: "))
    assert _rules(found) == tuned
    assert (found.command, found.base, found.hands_per_eval, found.budget, found.seed,
            found.popsize, found.validate_hands) == ("tune", "heuristic", 20, 80, 5, 3, 20)
    assert found.params == ",".join(OPTIMUM) and found.out == "DIR"
    play_lines = [next(x for x in text.splitlines() if x.startswith("# play it: ")),
                  printed.split("(play it: ", 1)[1].split("); log:", 1)[0]]
    for line in play_lines:
        play = build_parser().parse_args(_command("(play it: " + line.removeprefix("# play it: "),
                                                  "(play it: "))
        assert play.command == "simulate"
        assert play.strategy_file == ("THIS_FILE" if line.startswith("#")
                                      else str(out / "strategy.toml"))
        assert _rules(play) == tuned and (play.hands, play.seed, play.out) == (20000, 1, "DIR")


def test_command_options_give_back_every_rule_set():
    """Rules.command_options parsed by the CLI's rule options is the same rule set: every
    preset, 2, 3 and 4 players, and each option changed from its preset."""
    from sim.cli import build_parser
    from sim.cli.common import _rules
    for preset in sim.rules.PRESETS:
        for players in (2, 3, 4):
            base = sim.Rules.preset(preset).replace(num_players=players)
            variants = [base]
            for k in sim.Rules.options()[1:]:
                v = getattr(base, k)
                if k in sim.rules.ENUMS:
                    new = next(x for x in sim.rules.ENUMS[k] if x != v)
                else:
                    new = {bool: lambda: not v, tuple: lambda: ("A", "3", "K"),
                           type(None): lambda: 75}.get(type(v), lambda: v + 1)()
                try:
                    variants.append(base.replace(**{k: new}))
                except ValueError:
                    continue                            # not a valid change of this preset
            assert len(variants) > 20
            for rules in variants:
                args = rules.command_options()
                parsed = _rules(build_parser().parse_args(["rules", *args]))
                assert parsed == rules, (preset, players, args)
    assert sim.Rules().command_options() == []
    assert sim.Rules.preset("fibur_italian").replace(num_players=2).command_options() == \
        ["--rules", "fibur_italian", "--players", "2"]
