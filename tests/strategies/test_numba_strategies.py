"""Strategies written in Numba (docs/step_api.md): a registered chooser runs inside the
parallel batch kernel through a C callback (kernels.strategies.api), wherever a strategy spec works."""
from __future__ import annotations

import json

import pytest
from numba import njit

import referee as R
import sim
from kernels.engine import actions as KA
from kernels.strategies.api import legal
from kernels.strategies.choosers import (heuristic_chooser)
from kernels.table.state import G_PHASE
from kernels.table.work import views


@njit(cache=True)
def like_heuristic(work):
    """The built-in heuristic, called through the chooser interface."""
    return heuristic_chooser(work)


@njit(cache=True)
def greedy(work):
    """Draw; meld and lay off whenever anything is legal (the highest id first);
    discard the first legal face."""
    st = views(work).state
    ids, n = legal(work)
    if st.g[G_PHASE] == KA.PH_MELD or st.g[G_PHASE] == KA.PH_PLACE:
        return ids[n - 1]
    return ids[0]


def heuristic_defaults():
    h = sim.strategies.get("heuristic")
    return {k: v[1] for k, v in sorted(h.params.items(), key=lambda kv: kv[1][0])}


@pytest.fixture(scope="module")
def registered():
    sim.strategies.register("like_heuristic", like_heuristic, params=heuristic_defaults())
    sim.strategies.register("greedy", greedy, doc="meld whatever is legal")
    yield
    for name in ("like_heuristic", "greedy"):
        sim.strategies.STRATEGIES.pop(name, None)


def test_the_heuristic_through_the_interface_gives_its_records(registered):
    assert [v[0] for v in sim.strategies.get("heuristic").params.values()] == list(range(17))
    a = sim.simulate(hands=2000, seed=5, strategies="like_heuristic")
    b = sim.simulate(hands=2000, seed=5, strategies="heuristic")
    cols = [c for c in a.columns if not c.startswith("strategy") and c != "run_id"]
    assert [c for c in cols if not a[c].equals(b[c])] == []
    assert (a["strategy_s0"] == "like_heuristic").all()


def test_a_registered_chooser_plays_everywhere(registered):
    df = sim.simulate(hands=300, seed=8, strategies={"team0": "greedy", "team1": "heuristic"})
    assert (df["error"] == 0).all() and df["melds_t0"].sum() > 0
    for i in range(30):
        doc = json.loads(json.dumps(sim.replay(8, i, strategies={"team0": "greedy",
                                                                "team1": "heuristic"}),
                                    ensure_ascii=False))
        v = R.check(doc)
        assert not v, "\n".join(map(str, v))
    c = sim.compare("greedy", "heuristic", hands=200, seed=1).iloc[0]
    assert (c["a"], c["b"], c["hands"]) == ("greedy", "heuristic", 200)
    assert c["ci95_high"] < 0        # melding everything at once loses to the heuristic


def test_game_play_matches_simulate_for_a_registered_chooser(registered):
    spec = {"team0": "greedy", "team1": "like_heuristic"}
    df = sim.simulate(hands=50, seed=4, strategies=spec)
    for i in range(50):
        g = sim.Game.new(4, i, strategies=spec).play()
        r = g.result()
        assert (r["score_t0"], r["score_t1"], r["turns"]) == (
            df["score_t0"][i], df["score_t1"][i], df["turns"][i])


def test_register_refuses_bad_input():
    with pytest.raises(ValueError, match="built-in"):
        sim.strategies.register("heuristic", like_heuristic)
    with pytest.raises(ValueError, match="name must be"):
        sim.strategies.register("my strategy", like_heuristic)
    with pytest.raises(ValueError, match="@njit"):
        sim.strategies.register("plain", lambda work: 0)
    with pytest.raises(ValueError, match="at most 28"):
        sim.strategies.register("many", like_heuristic, params={f"p{i}": 0 for i in range(29)})


def test_dask_refuses_a_chooser_of_this_process(registered, tmp_path):
    with pytest.raises(ValueError, match="registered in this process only"):
        sim.simulate(hands=10, seed=1, strategies="greedy", executor="dask",
                     out=tmp_path / "run")
    assert not (tmp_path / "run").exists()
    assert sim.strategies.registered_here_only("greedy")
    assert not any(sim.strategies.registered_here_only(n)
                   for n in ("rollout:worlds=2", "learned", "masu_normal", "expert"))


def test_a_chooser_returning_an_illegal_action_is_an_error_in_the_record():
    @njit
    def always_end(work):
        return KA.A_END_MELD
    sim.strategies.register("always_end", always_end)
    try:
        df = sim.simulate(hands=5, seed=1, strategies="always_end")
        assert (df["error"] != 0).all() and (df["end_reason"] == "turn_cap").all()
        with pytest.raises(ValueError, match="not an action of this phase"):
            g = sim.Game.new(1, 0, strategies="always_end")
            g.apply(g.choose())
    finally:
        sim.strategies.STRATEGIES.pop("always_end", None)


@pytest.mark.slow
def test_the_documented_example_runs():
    """docs/step_api.md's Numba chooser example, as written (fewer deals)."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "step_api.md").read_text()
    block = text.split("## Strategies written in Numba")[1].split("```python")[1].split("```")[0]
    scope = {}
    try:
        code = block.replace("hands=2000", "hands=100").replace("cache=True", "")  # no file
        exec(compile(code, "step_api.md", "exec"), scope)
        assert list(sim.strategies.get("eager").params) == list(sim.strategies.get("heuristic").params)
    finally:
        sim.strategies.STRATEGIES.pop("eager", None)
