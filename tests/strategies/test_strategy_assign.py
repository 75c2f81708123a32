"""Naming and mixing strategies per seat and per team (docs/strategies.md)."""
import json

import pandas as pd
import pytest

from sim.cli import main
from sim.strategies import load_file, seat_specs

H3 = "heuristic:pile_threshold=3"


def test_seat_specs_shapes_and_precedence():
    assert seat_specs("random") == ["random"] * 4
    assert seat_specs(["a", "b", "c", "d"]) == ["a", "b", "c", "d"]
    assert seat_specs({"team0": H3, "team1": "random"}) == [H3, "random", H3, "random"]
    assert seat_specs({"all": "random", "team1": H3, "seat3": "heuristic"}) == \
        ["random", H3, "random", "heuristic"]
    assert seat_specs({"team1": {"name": "heuristic", "pile_threshold": 3}}) == \
        ["heuristic", "heuristic:pile_threshold=3", "heuristic", "heuristic:pile_threshold=3"]


@pytest.mark.parametrize("bad, needle", [
    ({"team2": "random"}, "allowed: all, team0, team1, seat0"),
    (["heuristic", "random"], "4 specs"),
    ({"team0": {"pile_threshold": 3}}, "needs a 'name'"),
    ({"team0": {"name": "heuristic", "pile_threshold": "x"}}, "needs a number"),
    (3, "must be a spec"),
])
def test_seat_specs_refuses_bad_assignments(bad, needle):
    with pytest.raises(ValueError, match=needle):
        seat_specs(bad)


def test_every_list_of_strategy_names_is_the_full_one(tmp_path):
    """A table without ``name`` and an unknown name list the same names: every built-in
    strategy and every peer bot (compiled on first use), from one function."""
    import sim.strategies as S
    full = S.names()
    assert {"heuristic", "expert", "rollout", "tuned_default", "masu_normal",
            "goodwin_ismcts"} <= set(full) and full == sorted(full)
    f = tmp_path / "s.toml"
    f.write_text("[team0]\npile_threshold = 3\n")
    with pytest.raises(ValueError) as nameless:
        load_file(f)
    with pytest.raises(ValueError) as unknown:
        S.get("nope")
    for exc in (nameless, unknown):
        assert f"{', '.join(full)}, or a Python strategy FILE.py:CLASS or MODULE:CLASS" \
            in str(exc.value)
    assert str(nameless.value).startswith("strategies: team0 needs a 'name' (one of ")


def test_toml_strategy_file(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('team1 = "random"\n\n[team0]\nname = "heuristic"\npile_threshold = 3\n')
    assert load_file(f) == ["heuristic:pile_threshold=3", "random"] * 2
    bad = tmp_path / "bad.toml"
    bad.write_text("team0 = \n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_file(bad)
    with pytest.raises(ValueError, match="No such file"):
        load_file(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(200, 256)) * 3)          # not text at all
    with pytest.raises(ValueError, match="binary.toml.*not a text .UTF-8. TOML file"):
        load_file(binary)


def test_cli_teams_are_recorded_in_manifest_and_parquet(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "300", "--seed", "4", "--out", str(out), "--quiet",
                 "--team0", H3, "--team1", "heuristic"]) == 0
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["config"]["strategies"] == [H3, "heuristic", H3, "heuristic"]
    df = pd.read_parquet(out)
    assert set(df["strategy_s0"]) == {H3} and set(df["strategy_s2"]) == {H3}
    assert set(df["strategy_s1"]) == {"heuristic"} and set(df["strategy_s3"]) == {"heuristic"}


def test_cli_strategy_file_and_overrides(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('all = "heuristic"\nseat1 = "random"\n')
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "50", "--seed", "4", "--out", str(out), "--quiet",
                 "--strategy-file", str(f), "--team0", H3]) == 0
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["config"]["strategies"] == [H3, "random", H3, "heuristic"]


@pytest.mark.parametrize("argv, needle", [
    (["--team0", "nosuch"], (
        "unknown name 'nosuch'; allowed: ", "expert, ", "heuristic, ", "random, ", "rollout, ",
        "masu_normal, ")),
    (["--team1", "heuristic:nosuch=2"], "allowed:"),
    (["--strategy-file", "/nonexistent/s.toml"], "strategy file"),
])
def test_cli_bad_team_or_file_is_one_line_exit_2(tmp_path, argv, needle, capsys):
    code = main(["simulate", "--hands", "10", "--seed", "1", "--out", str(tmp_path / "r"),
                 "--quiet"] + argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 \
        and all(n in err for n in (needle if isinstance(needle, tuple) else (needle,)))
    assert not (tmp_path / "r" / "_manifest.json").exists()
