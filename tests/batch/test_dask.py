"""The Dask executor: the same shard function on a LocalCluster of 2 worker processes gives
the same dataset as a local run (docs/scale.md)."""
import json

import pandas as pd
import pytest

import sim
from sim.cli import main

pytest.importorskip("dask.distributed")

HANDS, SHARD, SEED = 9000, 1500, 44


@pytest.mark.slow
def test_dask_localcluster_equals_local_run(tmp_path, capsys):
    local, remote = tmp_path / "local", tmp_path / "dask"
    sim.simulate(HANDS, SEED, out=local, shard_size=SHARD, return_frame=False)
    assert main(["simulate", "--hands", str(HANDS), "--seed", str(SEED), "--out", str(remote),
                 "--shard-size", str(SHARD), "--executor", "dask", "--workers", "2",
                 "--quiet"]) == 0
    assert f"{HANDS:,}" in capsys.readouterr().out
    pd.testing.assert_frame_equal(sim.load(remote), sim.load(local))
    m = json.loads((remote / "_manifest.json").read_text())
    assert m["finished"] and len(m["shards"]) == HANDS // SHARD


@pytest.mark.slow
def test_dask_finishes_a_partial_local_run(tmp_path):
    out, ref = tmp_path / "run", tmp_path / "ref"
    sim.simulate(HANDS, SEED, out=ref, shard_size=SHARD, return_frame=False)
    sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, return_frame=False)
    for name in ("shard-000000001500-000000003000.parquet", "shard-000000007500-000000009000.parquet"):
        (out / "hands" / name).unlink()
    df = sim.simulate(HANDS, SEED, out=out, shard_size=SHARD, executor="dask", workers=2)
    pd.testing.assert_frame_equal(df, sim.load(ref))
    assert sim.check_run(out).complete


@pytest.mark.parametrize("kw, needle", [({"executor": "spark"}, "executor must be"),
                                        ({"scheduler": ""}, "scheduler must be"),
                                        ({"workers": 0}, "workers must be")])
def test_dask_options_are_validated(kw, needle):
    with pytest.raises(ValueError, match=needle):
        sim.simulate(10, 1, **kw)


@pytest.mark.slow
def test_dask_match_run_equals_local_run(tmp_path):
    local, remote = tmp_path / "local", tmp_path / "dask"
    ref = sim.simulate_matches(120, SEED, out=local, shard_size=40)
    run = sim.simulate_matches(120, SEED, out=remote, shard_size=40, executor="dask", workers=2)
    pd.testing.assert_frame_equal(run.hands, ref.hands)
    pd.testing.assert_frame_equal(sim.load_matches(remote), ref.matches)
    assert sim.check_run(remote).complete


@pytest.mark.slow
def test_dask_plays_the_callback_strategies_as_a_local_run(tmp_path):
    """rollout, learned and a peer bot run through C callbacks whose addresses (and the
    learned weights' address) belong to the process that resolved them: each Dask worker
    resolves them again by name, and the hands are the local run's."""
    seats = ["learned", "rollout:worlds=2,rollouts=8", "masu_normal",
             "learned:pickup_margin=0,discard_margin=0"]
    ref = sim.simulate(8, SEED, strategies=seats, out=tmp_path / "local", shard_size=4)
    run = sim.simulate(8, SEED, strategies=seats, out=tmp_path / "dask", shard_size=4,
                       executor="dask", workers=2)
    pd.testing.assert_frame_equal(run, ref)
    assert (run["error"] == 0).all()

