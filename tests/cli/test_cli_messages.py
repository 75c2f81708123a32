"""The command line's wording: options named as the user types them, one sentence for the
same problem, counts that agree in number, labelled progress bars and help summaries that say
what each command does."""
from __future__ import annotations

import re

import pytest

from sim._util import text as _text
from sim.cli import build_parser, main


def test_plural_agrees_in_number():
    assert _text.plural(1, "candidate") == "1 candidate"
    assert _text.plural(0, "candidate") == "0 candidates"
    assert _text.plural(12, "generation") == "12 generations"
    assert _text.plural(20_000, "deal") == "20,000 deals"
    assert _text.plural(1, "match") == "1 match" and _text.plural(2, "match") == "2 matches"
    assert _text.plural(3, "meld or lay-off", "melds and lay-offs") == "3 melds and lay-offs"


def test_the_verb_after_a_count_agrees_with_it():
    assert _text.is_are(1) == "is" and _text.is_are(0) == "are" and _text.is_are(4) == "are"
    assert _text.resuming_line(1, 1, "point", "sw1") == "resuming: 1 of 1 point is in 'sw1'"
    assert _text.resuming_line(1, 4, "point", "sw1") == "resuming: 1 of 4 points is in 'sw1'"
    assert _text.resuming_line(2, 10, "generation", "t") == \
        "resuming: 2 of 10 generations are in 't'"


@pytest.mark.parametrize("total, steps, shown", [
    (10, [3, 7], ["0/10", "3/10", "10/10"]),
    (1, [1], ["0/1", "1/1"]),
    (30_000, [12_345], ["30.0k", "12.3k/30.0k"]),
])
def test_progress_bars_count_small_totals_in_whole_numbers(total, steps, shown, monkeypatch):
    """tqdm's unit_scale prints a small count as ``3.00``: the project's bars scale only
    totals of SCALE_FROM or more."""
    import io

    from sim._util import progress as _progress

    def bar_text():
        out = io.StringIO()
        bar = _progress.progress_bar(total, "analyze", "rollout", file=out)
        for n in steps:
            bar.update(n)
            bar.refresh()
        bar.close()
        return out.getvalue()

    assert (total >= _progress.SCALE_FROM) == (total == 30_000)
    text = bar_text()
    assert all(s in text for s in shown), text
    assert text.lstrip("\r").startswith("analyze: ")
    fractional = re.compile(r"\d\.\d+/")                      # "3.00/10.0"
    if total < _progress.SCALE_FROM:
        assert not fractional.search(text), text
        monkeypatch.setattr(_progress, "SCALE_FROM", 1)      # the fault: every bar scaled
        assert fractional.search(bar_text())


def test_not_a_directory_says_what_the_path_is(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    assert _text.not_a_directory("--out", f) == f"--out: {str(f)!r} is a file, not a directory"
    missing = tmp_path / "m"
    assert _text.not_a_directory("DIR", missing) == f"DIR: {str(missing)!r} does not exist"


def _error(argv, capsys) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:                  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, (argv, err)
    return err.removeprefix("burraco: error: ").rstrip("\n")


def test_errors_name_options_as_typed_and_say_the_same_thing_in_the_same_words(tmp_path,
                                                                               capsys):
    """A representative set across the commands: a file where a directory is needed, a bad
    count, a bad index; each names the option (``--out``, ``--hands``, ``DIR``) and says it
    with the same words, whichever module found it."""
    afile, missing = tmp_path / "afile", tmp_path / "missing"
    afile.write_text("x")
    a, m = repr(str(afile)), repr(str(missing))
    is_file = f"{a} is a file, not a directory"
    cases = [
        (["simulate", "--hands", "10", "--seed", "1", "--out", str(afile)], f"--out: {is_file}"),
        (["sweep", "heuristic", "--param", "pile_threshold=1", "--hands", "10", "--seed", "1",
          "--out", str(afile)], f"--out: {is_file}"),
        (["tune", "expert", "--hands-per-eval", "10", "--budget", "1000", "--seed", "1",
          "--out", str(afile)], f"--out: {is_file}"),
        (["summarize", str(afile)], f"DIR: {is_file}"),
        (["summarize", "--repair", str(afile)], f"DIR: {is_file}"),
        (["replay", str(afile), "--hand", "1"], f"DIR: {is_file}"),
        (["summarize", str(missing)], f"DIR: {m} does not exist"),
        (["summarize", "--repair", str(missing)], f"DIR: {m} does not exist"),
        (["replay", str(missing), "--hand", "1"], f"DIR: {m} does not exist"),
        (["analyze", str(missing), "--hand", "1", "--turn", "1", "--decision", "meld"],
         f"DIR: {m} does not exist"),
        (["analyze", str(missing)], f"POSITION_FILE: {m} does not exist"),
        (["simulate", "--hands", "0", "--seed", "1", "--out", str(tmp_path / "r")],
         "--hands must be an integer in 1..999999999999, got 0"),
        (["compare", "heuristic", "expert", "--hands", "0", "--seed", "1"],
         "--hands must be an integer in 1..1000000000, got 0"),
        (["sweep", "heuristic", "--param", "pile_threshold=1", "--hands", "0", "--seed", "1"],
         "--hands must be an integer in 1..1000000000, got 0"),
        (["tune", "expert", "--hands-per-eval", "1", "--budget", "1000", "--seed", "1",
          "--out", str(tmp_path / "t")], "--hands-per-eval must be an integer in 2..1000000000"),
        (["simulate", "--hands", "10", "--seed", "1", "--out", str(tmp_path / "r"),
          "--shard-size", "0"], "--shard-size must be an integer in 1..999999999999, got 0"),
        (["compare", "heuristic", "expert", "--hands", "10", "--seed", "-1"],
         "--seed must be an integer in 0..18446744073709551615, got -1"),
        (["replay", "--seed", "1", "--hand", "-1"],
         "--hand must be an integer in 0..9223372036854775807, got -1"),
        (["compare", "heuristic", "expert", "--hands", "10", "--seed", "1", "--rule", "x"],
         "--rule: expected OPTION=VALUE (e.g. target_score=1505), got 'x'"),
        (["simulate", "--hands", "5", "--seed", "1", "--out", str(tmp_path / "r"), "--rule",
          "target_score=abc"], "--rule: target_score must be an integer, got 'abc'"),
        (["simulate", "--hands", "5", "--seed", "1", "--out", str(tmp_path / "r"), "--rule",
          "nope=1"], "--rule: unknown option 'nope'; allowed: num_players, "),
        (["sweep", "heuristic", "--param", "pile_threshold=1", "--hands", "4", "--seed", "1",
          "--rules", "nope"], "--rules: unknown preset 'nope'; allowed: default, "),
        (["rules", "--rules", "nope", "--rule", "target_score=1505"],
         "--rules: unknown preset 'nope'; allowed: default, "),
        (["tune", "heuristic:x=1", "--hands-per-eval", "10", "--budget", "1000", "--seed", "1",
          "--out", str(tmp_path / "t")], "BASE: strategy 'heuristic' has no parameter 'x'"),
    ]
    for argv, needle in cases:
        assert _error(argv, capsys).startswith(needle), (argv, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]     # nothing made


@pytest.mark.parametrize("command", sorted(build_parser()._subparsers._group_actions[0].choices))
def test_a_library_message_names_the_option_not_the_parameter(command):
    """Every option of every command whose destination is not its own spelling
    (``shard_size`` -> ``--shard-size``) is translated in an error's first word."""
    from sim.cli.main import _ALIASES, _in_cli_words
    p = build_parser()._subparsers._group_actions[0].choices[command]
    names = p.get_default("option_names")
    for action in p._actions:
        long = [o for o in action.option_strings if o.startswith("--")]
        if long and action.dest not in ("help", "strategy", "rules", *_ALIASES.get(command, {})):
            assert _in_cli_words(f"{action.dest} must be 1", names) == f"{long[0]} must be 1"
            assert _in_cli_words(f"{action.dest}: bad", names) == f"{long[0]}: bad"
    assert _in_cli_words("strategy: unknown name 'x'", names) == "strategy: unknown name 'x'"


def _bars(err: str) -> list:
    """The progress bar lines of stderr (tqdm's, each refresh after a carriage return)."""
    return [s.strip() for s in re.split(r"[\r\n]", err) if "%|" in s or "it/s]" in s]


def test_every_progress_bar_has_a_label(tmp_path, capsys):
    """simulate, compare and sweep with progress on: every bar says what it counts (the point,
    its parameter values and the seating for a sweep); no bar starts with its percentage."""
    runs = {
        "simulate": ["simulate", "--hands", "30", "--seed", "1", "--out", str(tmp_path / "r")],
        "compare": ["compare", "heuristic", "expert", "--hands", "30", "--seed", "1"],
        "sweep": ["sweep", "heuristic", "--param", "pile_threshold=1,2.5", "--hands", "30",
                  "--seed", "1"],
    }
    labels = {}
    for name, argv in runs.items():
        assert main(argv) == 0
        bars = _bars(capsys.readouterr().err)
        assert bars, name
        unlabelled = [b for b in bars if not re.match(r"[a-z].*?: +\d+%", b)]
        assert not unlabelled, (name, unlabelled)
        labels[name] = sorted({re.match(r"(.*?): +\d+%", b).group(1) for b in bars})
    assert labels["simulate"] == ["simulate"]
    assert labels["compare"] == ["compare: A as team 0", "compare: B as team 0"]
    assert labels["sweep"] == [f"point {k}/2 pile_threshold={v}: {s} as team 0"
                               for k, v in ((1, "1"), (2, "2.5")) for s in "AB"]


def test_help_summaries_say_what_each_command_does(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "replay show one hand of a run as a readable trace, as JSON, or as an HTML page" in out
    assert "analyze evaluate every candidate action of a position file, or of a decision of a " \
           "simulated hand" in out
    assert "summarize summary and integrity of a run directory (finished or partial); --repair" \
        in out
    assert "rules show every option of a rule preset, with --rule and --players changes" in out


ONE_PLURAL = re.compile(r"(?<![\d.,+-])1 (hands|deals|candidates|generations|points|shards|"
                        r"rollouts|worlds|matches|turns|cards|threads|steps|files)\b")


def test_a_count_of_one_is_singular(tmp_path, capsys, monkeypatch):
    """Outputs whose counts are 1 (one hand, one shard, one generation, one candidate, one
    thread) print the noun in the singular."""
    pytest.importorskip("cma")
    from sim import tuning
    run = str(tmp_path / "one")
    argvs = [["simulate", "--hands", "1", "--seed", "1", "--out", run, "--threads", "1"],
             ["summarize", run],
             ["sweep", "heuristic", "--param", "pile_threshold=2", "--hands", "1", "--seed", "1",
              "--quiet"],
             ["analyze", "examples/position.toml", "--rollouts", "2", "--threads", "1",
              "--candidates", "end the meld phase", "--quiet"],
             ["tune", "heuristic", "--params", "pile_threshold,set_bias", "--popsize", "2",
              "--hands-per-eval", "2", "--budget", "6", "--seed", "1", "--validate-hands", "2",
              "--out", str(tmp_path / "t"), "--quiet"]]
    monkeypatch.setattr(tuning, "paired_objective",
                        lambda rules, threads: lambda a, b, hands, seed: __import__(
                            "numpy").arange(hands, dtype=float))
    for argv in argvs:
        assert main(argv) == 0, argv
        out = capsys.readouterr()
        text = out.out + out.err
        assert not ONE_PLURAL.search(text), (argv, ONE_PLURAL.search(text).group(0), text)
    text = (tmp_path / "t" / "strategy.toml").read_text()
    assert "after 1 generation (6 deals" in text and not ONE_PLURAL.search(text)


def _players_help(command: str) -> str:
    """The --players help of ``burraco COMMAND --help``, on one line."""
    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    action = next(a for a in sub.choices[command]._actions if "--players" in a.option_strings)
    return " ".join(action.help.split())


@pytest.mark.parametrize("command", ["compare", "sweep", "tune"])
def test_paired_commands_say_they_take_2_or_4_players(command, capsys, tmp_path):
    """compare, sweep and tune refuse 3 players (the paired seating swaps the teams): their
    --help, docs/cli.md's synopsis and the refusal say so."""
    from pathlib import Path
    text = _players_help(command)
    assert text.startswith("number of players: 4 (two partnerships, the default) or 2 (R61); "
                           "not 3: the paired design"), text
    assert "R62 solo_18" not in text
    argv = {"compare": ["compare", "heuristic", "expert", "--hands", "2", "--seed", "1"],
            "sweep": ["sweep", "heuristic", "--param", "pile_threshold=1", "--hands", "2",
                      "--seed", "1"],
            "tune": ["tune", "expert", "--hands-per-eval", "2", "--budget", "30", "--seed",
                     "1", "--out", str(tmp_path / "t")]}[command]
    assert main(argv + ["--players", "3", "--quiet"]) == 2
    assert "3-player games are not supported" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    synopsis = re.search(rf"^burraco {command} .*?(?=^burraco (?!{command}))", docs,
                         re.M | re.S).group(0)
    assert "[--players 2|4]" in synopsis and "2|3|4" not in synopsis, synopsis


@pytest.mark.parametrize("command", ["simulate", "replay", "analyze"])
def test_other_commands_say_they_take_3_players(command):
    assert "or 3 (R62 solo_18, or R63" in _players_help(command)


@pytest.mark.parametrize("argv,start", [
    (["--team0", "nope"], "burraco: error: --team0: unknown name 'nope'; allowed: "),
    (["--strategy", "nope"], "burraco: error: --strategy: unknown name 'nope'; allowed: "),
    (["--team1", "expert:nope=1"], "burraco: error: --team1: strategy 'expert' has no "
                                   "parameter 'nope'"),
    (["--strategy", "rollout:worlds=0"], "burraco: error: --strategy: strategy 'rollout': "
                                         "worlds must be a whole number in 1..1000, got 0"),
])
def test_a_bad_strategy_option_is_named_as_typed_and_compiles_nothing(tmp_path, capsys, argv,
                                                                       start, monkeypatch):
    """--strategy, --team0 and --team1 are checked before anything is compiled or created,
    and the error names the option that gave the spec."""
    from sim.strategies import registry
    monkeypatch.setattr(registry, "_kind", lambda s: (_ for _ in ()).throw(
        AssertionError("compiled before the check")))
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "5", "--seed", "1", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(start) and err.count("\n") == 1
    assert not out.exists()



@pytest.mark.parametrize("argv,line", [
    (["rules", "--preset", "nosuch"], "burraco: error: --preset: unknown preset 'nosuch'; allowed: "
                                      "default, fibur_italian, fibur_international"),
    (["rules", "--rules", "nosuch"], "burraco: error: --rules: unknown preset 'nosuch'; allowed: "
                                     "default, fibur_italian, fibur_international"),
    (["compare", "nosuch", "expert", "--hands", "10", "--seed", "1"],
     "burraco: error: A: unknown name 'nosuch'; allowed: babbo_coded, "),
    (["sweep", "heuristic", "--param", "nosuch=1,2", "--hands", "10", "--seed", "1"],
     "burraco: error: --param: strategy 'heuristic' has no parameter 'nosuch'; allowed: "
     "close_min_burracos, "),
])
def test_an_error_names_the_option_as_typed_once(capsys, argv, line):
    """The option the user typed (an alias too) labels the error, and only once."""
    from sim.cli.main import main
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(line), err
