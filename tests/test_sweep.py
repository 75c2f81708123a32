"""sim.sweep / burraco sweep: a parameter grid on the same deals (issue 5, item 4)."""
import json

import pandas as pd
import pytest

import sim
from sim.cli import main
from sim.sweeps import parse_grid


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
    df = pd.read_parquet(out)
    assert len(df) == 4 * 300
    assert {"pile_threshold", "set_bias", "hand_index", "diff"} <= set(df.columns)
    means = df.groupby(["pile_threshold", "set_bias"])["diff"].mean().tolist()
    assert means == pytest.approx(summary["mean_diff"].tolist())
    assert json.loads((out / "_sweep.json").read_text())["reference"] == "heuristic"
    assert len(pd.read_csv(out / "_summary.csv")) == 4


def test_sweep_refuses_a_non_empty_directory_without_overwrite(tmp_path):
    out = tmp_path / "sw"
    sim.sweep("heuristic", {"set_bias": [0]}, hands=20, seed=1, out=out)
    before = (out / "point-000.parquet").read_bytes()
    with pytest.raises(ValueError, match="not empty"):
        sim.sweep("heuristic", {"set_bias": [1]}, hands=20, seed=1, out=out)
    assert (out / "point-000.parquet").read_bytes() == before
    sim.sweep("heuristic", {"set_bias": [1]}, hands=20, seed=1, out=out, overwrite=True)
    assert pd.read_parquet(out)["set_bias"].unique().tolist() == [1]


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
    assert sorted(p.name for p in out.glob("point-*.parquet")) == \
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
        with pytest.raises(ValueError, match="not a sweep's"):
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
