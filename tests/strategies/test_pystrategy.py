"""Strategies written in Python (sim.pystrategy, docs/strategies.md).

* a Python strategy plays in ``sim.simulate`` (as a spec ``FILE.py:CLASS`` or
  ``MODULE:CLASS``, a class or an object) with the records, Parquet files and
  manifest of a built-in run, deterministically, Python and built-in seats
  mixed, and its records equal a hand-written loop over ``sim.Game``;
* ``reset`` gets the seat, the rules, the hand and a random seed it asks for;
* a sample strategy sees nothing its seat may not see (R11): its decisions do
  not change when the hidden cards are dealt again;
* ``sim.compare``, ``sim.replay`` and the CLI take it; a run refuses to resume
  once the strategy's file changed; every mistake is a one-line error.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import referee as R
import sim
from sim import pystrategy as PS
from sim.play.game import Game
from test_hidden_info import reshuffle_hidden

ROOT = Path(__file__).resolve().parents[2]

SOURCE = textwrap.dedent('''
    """Small strategies for tests/strategies/test_pystrategy.py."""
    import random

    DRAW, TAKE, END = 0, 1, 2


    class FirstLegal:
        """Always the first legal action: draw, end the meld phase, discard the lowest face."""

        def choose(self, observation, legal_actions):
            return legal_actions[0]


    class PileFirst:
        """Takes the pile when its top card's face is in hand; melds the first meld it
        may; discards its highest face. Reads only the observation."""

        def reset(self, seat, rules):
            self.seat = seat
            self.players = rules.num_players

        def choose(self, observation, legal_actions):
            assert observation.seat == self.seat and observation.current_seat == self.seat
            if observation.phase == "pickup":
                top = observation.pile_faces[-1] if observation.pile_faces else None
                if TAKE in legal_actions and top in observation.hand_faces:
                    return TAKE
                return DRAW
            creates = [a for a in legal_actions if a >= 2176]
            if creates:
                return creates[0]
            return legal_actions[-1] if observation.phase == "discard" else legal_actions[0]


    class Seeded:
        """Uniform over the legal actions with its own generator, seeded by reset."""

        def reset(self, random_seed):
            self.rng = random.Random(random_seed)

        def choose(self, observation, legal_actions):
            return self.rng.choice(legal_actions)


    class Recorder:
        """FirstLegal that keeps every reset call (as keyword dicts)."""

        def __init__(self):
            self.resets = []

        def reset(self, **kw):
            self.resets.append(kw)

        def choose(self, observation, legal_actions):
            return legal_actions[0]


    class Illegal:
        def choose(self, observation, legal_actions):
            return 2                     # "end the meld phase", also at a pickup


    class IllegalFrom:
        """FirstLegal, but illegal in hands 20 and 41 (the first in hand order is 20)."""

        def reset(self, hand_index):
            self.hand = hand_index

        def choose(self, observation, legal_actions):
            return 2 if self.hand in (20, 41) and observation.phase == "pickup" else legal_actions[0]


    class DiesIn:
        """FirstLegal, but the process dies in hand 30 (an injected worker crash)."""

        def reset(self, hand_index):
            self.hand = hand_index

        def choose(self, observation, legal_actions):
            if self.hand == 30:
                import os
                os._exit(3)
            return legal_actions[0]


    class NotAnAction:
        def choose(self, observation, legal_actions):
            return "draw"


    class Raises:
        def choose(self, observation, legal_actions):
            return {}["no such key"]


    class NoChoose:
        pass


    class NeedsArgument:
        def __init__(self, level):
            self.level = level

        def choose(self, observation, legal_actions):
            return legal_actions[0]


    INSTANCE = FirstLegal()
''')


@pytest.fixture
def strat_file(tmp_path):
    """The sample strategies in a file; returns its path as text."""
    path = tmp_path / "user_strats.py"
    path.write_text(SOURCE)
    return str(path)


@pytest.fixture(scope="module")
def strat_module():
    """The sample strategies as an importable module ``burraco_test_strats``."""
    import importlib.util
    spec = importlib.util.spec_from_loader("burraco_test_strats", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(SOURCE, "<burraco_test_strats>", "exec"), module.__dict__)
    sys.modules["burraco_test_strats"] = module
    yield module
    del sys.modules["burraco_test_strats"]


def manual_records(seed, n, specs, objects, rules=None):
    """Records of hands 0..n-1 played by a plain loop over sim.Game: the seats with an
    object in ``objects`` through its choose, the others through Game.choose (one
    decision at a time, not the runner's turn per kernel call)."""
    rows = []
    for i in range(n):
        g = Game.new(seed, i, rules=rules, strategies=["heuristic" if o is not None else s
                                                       for s, o in zip(specs, objects)])
        for s, o in enumerate(objects):
            if o is not None and hasattr(o, "reset"):
                o.reset(**{k: v for k, v in (("seat", s), ("rules", g.rules),
                                             ("random_seed", PS.random_seed(seed, i, s)))
                           if k in o.reset.__code__.co_varnames})
        while not g.is_over:
            s = g.current_seat
            if objects[s] is None:
                g.apply(g.choose())
            else:
                g.apply(objects[s].choose(g.observation(s), g.legal_actions()))
        row = g.result()
        for s in range(4):
            row[f"strategy_s{s}"] = specs[s]
        rows.append(row)
    return pd.DataFrame(rows)


RECORD_COLUMNS = [c.name for c in sim.dataset.COLUMNS if c.name != "run_id"]


def plain_rows(df, columns=RECORD_COLUMNS):
    """A frame's rows as dicts of plain values (None for a null, str for a category)."""
    def plain(v):
        if v is None or (pd.api.types.is_scalar(v) and pd.isna(v)):
            return None
        return v.item() if hasattr(v, "item") else v
    return [{c: plain(v) for c, v in zip(columns, row)}
            for row in df[columns].astype(object).itertuples(index=False)]


def test_which_specs_are_python():
    for spec in ("heuristic", "expert", "random", "heuristic:pile_threshold=3", "heuristic:x",
                 "nope", ""):
        assert not PS.is_python_spec(spec), spec
    for spec in ("mine.py:A", "dir/mine.py:A", "pkg.mod:Cls", "mod:Outer.Inner", "C:\\x.py:A"):
        assert PS.is_python_spec(spec), spec


@pytest.mark.slow
def test_records_schema_and_determinism(strat_file, tmp_path):
    a, b = f"{strat_file}:FirstLegal", f"{strat_file}:PileFirst"
    specs = [a, "heuristic", b, "expert"]
    out = tmp_path / "run"
    df = sim.simulate(40, 5, strategies=specs, out=out, shard_size=15)
    builtin = sim.simulate(3, 5)
    assert list(df.columns) == list(builtin.columns)
    assert df.dtypes.map(str).tolist() == builtin.dtypes.map(str).tolist()
    for shard in (out / "hands").glob("shard-*.parquet"):
        assert pq.read_schema(shard).remove_metadata() == sim.dataset.SCHEMA
    assert df["strategy_s0"].astype(str).unique().tolist() == [a]
    assert df["strategy_s2"].astype(str).unique().tolist() == [b]
    assert df["strategy_s1"].astype(str).unique().tolist() == ["heuristic"]
    assert (df["error"] == 0).all() and df["hand_index"].tolist() == list(range(40))
    pd.testing.assert_frame_equal(sim.load(out), df)
    assert len(list((out / "hands").glob("shard-*.parquet"))) == 3
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["config"]["strategies"] == specs and manifest["finished"]
    digest = PS.load(a).digest
    assert manifest["config"]["strategy_sources"] == {a: digest, b: digest}
    # the same run again, in memory and with another shard size: the same records
    again = sim.simulate(40, 5, strategies=specs, shard_size=7)
    pd.testing.assert_frame_equal(again, df)
    assert not sim.check_run(out).corrupt


def test_records_equal_a_manual_game_loop(strat_file, strat_module):
    m = strat_module
    specs = [f"{strat_file}:PileFirst", "heuristic", f"{strat_file}:FirstLegal", "expert"]
    df = sim.simulate(30, 11, strategies=specs)
    manual = manual_records(11, 30, specs, [m.PileFirst(), None, m.FirstLegal(), None])
    assert plain_rows(df) == plain_rows(manual)


@pytest.mark.slow
def test_a_seeded_random_strategy_and_other_player_counts(strat_module):
    m = strat_module
    for rules in (sim.Rules(num_players=2), sim.Rules(num_players=3), sim.Rules()):
        df = sim.simulate(12, 3, strategies=[m.Seeded, "random", "heuristic", m.Seeded],
                          rules=rules)
        manual = manual_records(3, 12, ["burraco_test_strats:Seeded", "random", "heuristic",
                                        "burraco_test_strats:Seeded"],
                                [m.Seeded(), None, None, m.Seeded()], rules)
        cols = [c for c in RECORD_COLUMNS if not c.startswith("strategy_s")]
        assert plain_rows(df, cols) == plain_rows(manual, cols)
        assert df["strategy_s0"].astype(str).iloc[0] == "burraco_test_strats:Seeded"
        n = rules.num_players
        assert df[f"strategy_s{n - 1}"].notna().all() and (
            n == 4 or df["strategy_s3"].isna().all())


def test_builtin_seats_in_a_python_run_play_as_in_a_builtin_run(strat_module):
    """One Python seat among built-in ones: the built-in seats choose through the kernels
    (a turn per call in the runner, a decision per call in the manual loop) alike."""
    m = strat_module
    df = sim.simulate(20, 8, strategies={"all": "heuristic", "seat1": m.FirstLegal})
    manual = manual_records(8, 20, ["heuristic", "burraco_test_strats:FirstLegal", "heuristic",
                                    "heuristic"], [None, m.FirstLegal(), None, None])
    assert df["score_t0"].tolist() == manual["score_t0"].tolist()
    assert df["score_t1"].tolist() == manual["score_t1"].tolist()
    assert df["score_t0"].mean() > df["score_t1"].mean()         # the heuristic side wins


@pytest.mark.slow
@pytest.mark.skipif(sim.runner._max_threads() < 2 or not sim.executors._can_fork(),
                    reason="needs 2 threads and fork")
def test_worker_processes_give_the_records_of_one_process(strat_file, tmp_path):
    specs = [f"{strat_file}:PileFirst", "expert", f"{strat_file}:Seeded", "random"]
    one = sim.simulate(70, 12, strategies=specs)
    seen = []
    two = sim.simulate(70, 12, strategies=specs, threads=2, shard_size=40, out=tmp_path / "r",
                       callback=lambda shard: seen.append((shard.start, shard.stop)))
    pd.testing.assert_frame_equal(one, two)
    assert seen == [(0, 40), (40, 70)]
    per = sim.compare_hands(specs[0], "expert", 20, 3, threads=2)
    assert per.equals(sim.compare_hands(specs[0], "expert", 20, 3))
    with pytest.raises(PS.StrategyError, match=r"hand 0 \(turn 1\): action 2"):
        sim.simulate(30, 1, strategies=f"{strat_file}:Illegal", threads=2)


@pytest.mark.skipif(sim.runner._max_threads() < 2 or not sim.executors._can_fork(),
                    reason="needs 2 threads and fork")
def test_worker_faults_are_raised_in_hand_order_and_leave_no_process(strat_file, tmp_path):
    import multiprocessing
    # hands 20 and 41 are illegal in different chunks of the 2 workers: the first in hand order
    with pytest.raises(PS.StrategyError, match=r"hand 20 \(turn 1\): action 2"):
        sim.simulate(64, 1, strategies=f"{strat_file}:IllegalFrom", threads=2)
    # a worker that dies (os._exit) is an error naming its hands, not a hang
    with pytest.raises(RuntimeError, match=r"a worker process playing hands \d+\.\. died "
                                           r"\(exit code 3\)"):
        sim.simulate(64, 1, strategies=f"{strat_file}:DiesIn", threads=2,
                     out=tmp_path / "dies")
    assert multiprocessing.active_children() == []
    assert not (tmp_path / "dies" / "hands").exists() or not any(
        (tmp_path / "dies" / "hands").glob("*.parquet"))


def test_reset_gets_seat_rules_hand_and_seed(strat_module):
    m = strat_module
    shared = m.Recorder()
    sim.simulate(3, 4, strategies=[shared, "heuristic", shared, "heuristic"])
    assert [(r["seat"], r["hand_index"]) for r in shared.resets] == [
        (0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]
    assert all(r["rules"] == sim.Rules() for r in shared.resets)
    seeds = [r["random_seed"] for r in shared.resets]
    assert len(set(seeds)) == 6 and all(0 <= x < 2**63 for x in seeds)
    assert seeds[0] == PS.random_seed(4, 0, 0)
    # a class gets one instance per seat; an instance is used as given
    made = []

    class Counting(m.FirstLegal):
        def __init__(self):
            made.append(self)
    sim.simulate(5, 1, strategies=Counting)
    assert len(made) == 4


def test_a_class_and_an_object_are_named_by_module_and_class(strat_module):
    m = strat_module
    df = sim.simulate(3, 2, strategies=[m.FirstLegal, m.INSTANCE, "burraco_test_strats:INSTANCE",
                                        "heuristic"])
    assert [df[f"strategy_s{s}"].astype(str).iloc[0] for s in range(4)] == [
        "burraco_test_strats:FirstLegal", "burraco_test_strats:FirstLegal",
        "burraco_test_strats:INSTANCE", "heuristic"]


def test_module_spec_from_the_path_and_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "wd_strats.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    df = sim.simulate(2, 1, strategies="wd_strats:FirstLegal")
    assert df["strategy_s0"].astype(str).iloc[0] == "wd_strats:FirstLegal"
    assert str(tmp_path) not in sys.path
    sys.modules.pop("wd_strats", None)


EXAMPLE = str(ROOT / "docs" / "examples" / "pile_taker.py")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["PileFirst", "PileTaker"])
def test_a_python_strategy_sees_only_its_observation(strat_module, name):
    """Before every decision of the Python seats, the cards they cannot see are dealt
    again in a copy: the observation and the decision stay the same (R11). PileTaker is
    the example of docs/strategies.md and the notebook."""
    cls = getattr(strat_module, name) if name == "PileFirst" else PS.load(
        f"{EXAMPLE}:PileTaker").target
    gen = np.random.default_rng(13)
    compared = 0
    for hand in range(25):
        players = {0: cls(), 2: cls()}
        g = Game.new(21, hand, strategies=[cls, "heuristic", cls, "heuristic"])
        for s, p in players.items():
            p.reset(seat=s, rules=g.rules)
        while not g.is_over:
            s = g.current_seat
            if s in players:
                other = g.clone()
                reshuffle_hidden(other, s, gen)
                obs = g.observation(s)
                assert other.observation(s) == obs
                a = players[s].choose(obs, g.legal_actions())
                assert players[s].choose(other.observation(s), other.legal_actions()) == a
                assert g.choose() == a           # the game's own instance decides alike
                g.apply(a)
                compared += 1
            else:
                g.apply(g.choose())
    assert compared > 500


@pytest.mark.slow
def test_the_example_strategy_plays_sensibly():
    """docs/examples/pile_taker.py beats random by far and loses little to expert."""
    spec = f"{EXAMPLE}:PileTaker"
    assert sim.compare(spec, "random", hands=40, seed=3).iloc[0].ci95_low > 200
    df = sim.simulate(60, 4, strategies=[spec, "expert", spec, "expert"])
    assert (df["error"] == 0).all() and (df["end_reason"] == "closed").mean() > 0.9
    assert df["pile_pickups_t0"].mean() > 3 and df["melds_t0"].mean() > 3


def test_action_helpers():
    from sim.play.game import A_DRAW, A_END_MELD, A_TAKE, action_faces, action_kind, action_meld
    g = Game.new(1, 0)
    assert [action_kind(a) for a in (A_DRAW, A_TAKE, A_END_MELD)] == ["draw", "take", "end"]
    assert action_kind(3) == "discard" and action_faces(3 + 13 * 2 + 9) == (35,)   # 10♥
    lay = g.action_from_text("lay off 10♥ on meld 2")
    assert (action_kind(lay), action_faces(lay), action_meld(lay)) == ("lay_off", (35,), 2)
    meld = g.action_from_text("meld 7♥ 8♥ 9♥")
    assert action_kind(meld) == "meld" and action_faces(meld) == (32, 33, 34)
    assert action_meld(meld) is None and action_faces(A_TAKE) == ()
    with pytest.raises(ValueError, match="not an action id"):
        action_kind(sim.game.N_ACTIONS)
    # a meld's faces in the observation, in reading order as its cards
    while not g.is_over and not g.observation(0).melds:
        g.apply(g.choose())
    m = g.observation(0).melds[0]
    from sim.play.actions import _FACE_TEXT
    assert [_FACE_TEXT[f] for f in m["faces"]] == m["cards"]


def test_errors_are_one_line_value_errors(strat_file):
    cases = [
        ("/nonexistent/dir/mine.py:A", r"the file '/nonexistent/dir/mine.py' does not exist"),
        (f"{strat_file}:Missing", r"has no 'Missing'; it defines .*FirstLegal"),
        (f"{strat_file}:NoChoose", r"NoChoose has no choose\(observation, legal_actions\)"),
        (f"{strat_file}:NeedsArgument", r"NeedsArgument\(\) failed: TypeError"),
        ("no_such_module_xyz:A", r"no module named 'no_such_module_xyz'"),
    ]
    for spec, message in cases:
        with pytest.raises(ValueError, match=message):
            sim.simulate(2, 1, strategies=spec)
    with pytest.raises(PS.StrategyError, match=r"seat \d \(strategy '.*:Illegal'\), hand 0 "
                                              r"\(turn 1\): action 2 \(end the meld phase\) is "
                                              r"illegal: it is not an action of this phase"):
        sim.simulate(2, 1, strategies=f"{strat_file}:Illegal")
    with pytest.raises(PS.StrategyError, match=r"choose returned 'draw', not an action id"):
        sim.simulate(2, 1, strategies=[f"{strat_file}:NotAnAction"] * 4)
    with pytest.raises(PS.StrategyError, match=r"hand 0 \(turn 1\): choose raised KeyError: "
                                              r"'no such key' \(at user_strats.py:\d+\)") as e:
        sim.simulate(2, 1, strategies=f"{strat_file}:Raises")
    assert isinstance(e.value.__cause__, KeyError)

    class Plain:
        pass
    with pytest.raises(ValueError, match="a Plain object without a choose"):
        sim.simulate(2, 1, strategies=Plain())
    with pytest.raises(ValueError, match="seat 1 is a Plain object without a choose"):
        sim.simulate(2, 1, strategies=["heuristic", Plain(), "heuristic", "heuristic"])
    with pytest.raises(ValueError, match="Plain has no choose"):
        sim.simulate(2, 1, strategies=Plain)


def test_what_takes_built_in_strategies_only_says_so(strat_file, tmp_path):
    spec = f"{strat_file}:FirstLegal"
    with pytest.raises(ValueError, match="base: .* is a Python strategy, which has no "
                                         "parameters for a sweep to vary; compare it with "
                                         "'burraco compare'"):
        sim.sweep(spec, {"pile_threshold": [1]}, hands=2, seed=1)
    with pytest.raises(ValueError) as exc:
        sim.sweep("heuristic", {"pile_threshold": [1]}, hands=2, seed=1, reference=spec)
    assert str(exc.value) == (
        f"reference: {spec!r} is a Python strategy, and a sweep's reference must be a built-in "
        "one: a sweep names its reference by its spec in _sweep.json and in every point file, "
        "to resume and check them, and a Python strategy's file may change under the same spec; "
        f"play a point against it with 'burraco compare BASE:NAME=VALUE {spec}' (sim.compare)")
    with pytest.raises(ValueError, match="plays hand runs only"):
        sim.simulate_matches(2, 1, strategies=spec)
    with pytest.raises(ValueError, match="executor 'dask'.*plays in this process only"):
        sim.simulate(2, 1, strategies=spec, executor="dask")
    with pytest.raises(ValueError, match="is a Python strategy"):
        sim.strategies.resolve(spec)


def test_a_changed_source_is_another_run(strat_file, tmp_path):
    spec = f"{strat_file}:FirstLegal"
    out = tmp_path / "run"
    sim.simulate(6, 2, strategies=spec, out=out)
    first = json.loads((out / "_manifest.json").read_text())["run_id"]
    sim.simulate(9, 2, strategies=spec, out=out)             # unchanged: extends the run
    Path(strat_file).write_text(SOURCE + "\n# edited\n")
    with pytest.raises(ValueError, match=r"differs in: the source of the Python strategy "
                                         r".*FirstLegal', which changed since the run began"):
        sim.simulate(9, 2, strategies=spec, out=out)
    with pytest.raises(ValueError, match="changed since the run in .* was simulated"):
        sim.replay(run=out, hand_index=3)
    df = sim.simulate(9, 2, strategies=spec, out=out, overwrite=True)
    assert json.loads((out / "_manifest.json").read_text())["run_id"] != first
    assert df["run_id"].astype(str).iloc[0] != first


@pytest.mark.slow
def test_compare_takes_python_strategies(strat_file, strat_module):
    spec = f"{strat_file}:PileFirst"
    per = sim.compare_hands(spec, "heuristic", 15, 6)
    x = sim.simulate(15, 6, [spec, "heuristic", spec, "heuristic"])
    y = sim.simulate(15, 6, ["heuristic", spec, "heuristic", spec])
    assert per["a_score_t0"].tolist() == x["score_t0"].tolist()
    assert per["a_score_t1"].tolist() == y["score_t1"].tolist()
    row = sim.compare(strat_module.PileFirst, "expert", hands=15, seed=6).iloc[0]
    assert (row.a, row.b) == ("burraco_test_strats:PileFirst", "expert")
    assert row.mean_diff == pytest.approx(sim.compare(spec, "expert", 15, 6).iloc[0].mean_diff)


@pytest.mark.slow
def test_replay_of_a_python_run_and_the_referee(strat_file, tmp_path):
    specs = [f"{strat_file}:PileFirst", "random", f"{strat_file}:Seeded", "expert"]
    out = tmp_path / "run"
    df = sim.simulate(12, 9, strategies=specs, out=out)
    for hand in range(12):
        doc = sim.replay(run=out, hand_index=hand)       # checked against the run's row
        assert doc["strategies"] == specs
        assert doc["result"]["score_t0"] == df["score_t0"].iloc[hand]
        assert R.check(doc) == []
    assert sim.replay(9, 4, strategies=specs) == sim.replay(run=out, hand_index=4)
    g = Game.new(9, 4, strategies=specs).play()
    assert g.replay_document() == sim.replay(9, 4, strategies=specs)
    assert g.result()["score_t1"] == df["score_t1"].iloc[4]


def test_a_game_read_back_loads_its_python_strategies(strat_file):
    specs = [f"{strat_file}:FirstLegal", "heuristic", f"{strat_file}:FirstLegal", "heuristic"]
    g = Game.new(3, 1, strategies=specs)
    for _ in range(7):
        g.apply(g.choose())
    back = Game.from_json(g.to_json())
    assert back == g and back._players[0] is None
    assert back.play().result() == g.play().result()


def run_cli(*args, cwd=ROOT):
    """``python -m sim ARGS`` in ``cwd``, importing this checkout's sim from anywhere."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600, env=env)


@pytest.mark.slow
def test_cli(strat_file, tmp_path):
    spec = f"{strat_file}:PileFirst"
    out = tmp_path / "cli"
    r = run_cli("simulate", "--hands", "8", "--seed", "3", "--out", str(out), "--quiet",
                "--strategy", spec, "--team1", "heuristic")
    assert r.returncode == 0, r.stderr
    assert "hands/s" in r.stdout
    df = sim.load(out)
    assert df["strategy_s0"].astype(str).iloc[0] == spec
    assert df["strategy_s1"].astype(str).iloc[0] == "heuristic"
    r = run_cli("simulate", "--out", str(out), "--hands", "10", "--quiet")   # resume, extend
    assert r.returncode == 0, r.stderr
    assert len(sim.load(out)) == 10
    r = run_cli("replay", str(out), "--hand", "9", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["strategies"][0] == spec
    r = run_cli("compare", spec, "expert", "--hands", "6", "--seed", "2", "--format", "json",
                "--quiet")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["a"] == spec
    r = run_cli("replay", "--seed", "2", "--hand", "1", "--strategy", spec)
    assert r.returncode == 0 and "seat 0" in r.stdout
    # module specs through the working directory, as `python -m` finds them
    r = run_cli("compare", "user_strats:FirstLegal", "heuristic", "--hands", "3", "--seed", "1",
                "--quiet", cwd=Path(strat_file).parent)
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["simulate", "--hands", "2", "--seed", "1", "--strategy", "{f}:Missing"], "has no 'Missing'"),
    (["simulate", "--hands", "2", "--seed", "1", "--strategy", "{d}/gone.py:A"], "does not exist"),
    (["compare", "{f}:NoChoose", "expert", "--hands", "2", "--seed", "1"], "has no choose"),
    (["replay", "--seed", "1", "--hand", "0", "--strategy", "{f}:Illegal"],
     "hand 0 (turn 1): action 2 (end the meld phase) is illegal"),
    (["sweep", "{f}:FirstLegal", "--param", "pile_threshold=1", "--hands", "2", "--seed", "1"],
     "BASE: '{f}:FirstLegal' is a Python strategy, which has no parameters"),
    (["sweep", "heuristic", "--param", "pile_threshold=1", "--hands", "2", "--seed", "1",
      "--reference", "{f}:FirstLegal"],
     "--reference: '{f}:FirstLegal' is a Python strategy, and a sweep's reference must be a "
     "built-in one"),
])
def test_cli_errors_are_one_line(strat_file, tmp_path, args, message):
    d = str(Path(strat_file).parent)
    args = [a.format(f=strat_file, d=d) for a in args]
    message = message.format(f=strat_file, d=d)
    if args[0] == "simulate":
        args += ["--out", str(tmp_path / "o"), "--quiet"]
    r = run_cli(*args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("burraco: error: ") and message in lines[0]


@pytest.mark.slow
def test_a_run_of_a_strategy_file_replays_and_resumes_from_any_folder(tmp_path):
    """A run started with a relative FILE.py:CLASS records the file's resolved path, so
    replay, analyze --hand and resume work from another folder; once the file has moved,
    each says in one line where it was and how to point at it (--strategy NEW/FILE.py:CLASS,
    the same file name and class), and pointing at it replays and resumes the same run."""
    first, other, moved = tmp_path / "first", tmp_path / "other", tmp_path / "moved"
    for d in (first, other, moved):
        d.mkdir()
    (first / "mine.py").write_text(SOURCE)
    run = str(tmp_path / "run")
    r = run_cli("simulate", "--hands", "6", "--seed", "3", "--out", run, "--quiet",
                "--strategy", "mine.py:FirstLegal", "--team1", "heuristic", cwd=first)
    assert r.returncode == 0, r.stderr
    recorded = f"{os.path.realpath(first / 'mine.py')}:FirstLegal"
    manifest = json.loads((tmp_path / "run" / "_manifest.json").read_text())
    assert manifest["config"]["strategies"] == [recorded, "heuristic"] * 2
    # from another folder: replay, analyze a decision, resume and extend
    r = run_cli("replay", run, "--hand", "2", "--format", "json", cwd=other)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["strategies"] == [recorded, "heuristic"] * 2
    r = run_cli("analyze", run, "--hand", "1", "--turn", "1", "--decision", "pickup",
                "--rollouts", "4", "--quiet", cwd=other)
    assert r.returncode == 0, r.stderr
    r = run_cli("simulate", "--out", run, "--hands", "8", "--quiet", cwd=other)
    assert r.returncode == 0, r.stderr
    # the file moves: each command names the old place and how to point at the new one
    (first / "mine.py").rename(moved / "mine.py")
    hint = (f"the Python strategy file {os.path.realpath(first / 'mine.py')!r} of the run in "
            f"{run!r} does not exist (moved or deleted?); point at it with ")
    for argv, how in (
            (["replay", run, "--hand", "2"], "--strategy NEW_PLACE/mine.py:FirstLegal"),
            (["analyze", run, "--hand", "1", "--turn", "1", "--decision", "pickup"],
             "--strategy NEW_PLACE/mine.py:FirstLegal"),
            (["simulate", "--out", run, "--hands", "10"],
             "the run's strategy options again, its --strategy as NEW_PLACE/mine.py:FirstLegal")):
        r = run_cli(*argv, cwd=other)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert hint + how + " (the same file name and class)" in lines[0], lines[0]
    new = str(moved / "mine.py")
    r = run_cli("replay", run, "--hand", "2", "--format", "json", "--strategy",
                f"{new}:FirstLegal", cwd=other)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["strategies"] == [recorded, "heuristic"] * 2
    r = run_cli("analyze", run, "--hand", "1", "--turn", "1", "--decision", "pickup",
                "--rollouts", "4", "--quiet", "--strategy", f"{new}:FirstLegal", cwd=other)
    assert r.returncode == 0, r.stderr
    r = run_cli("simulate", "--out", run, "--hands", "10", "--quiet", "--strategy",
                f"{new}:FirstLegal", "--team1", "heuristic", cwd=other)
    assert r.returncode == 0, r.stderr
    df = sim.load(run)
    assert len(df) == 10 and set(df["strategy_s0"].astype(str)) == {recorded}
    # what --strategy with DIR refuses: another class, a built-in, an edited file
    for spec, needle in ((f"{new}:PileFirst", "the file name and class match none of the "
                                              "Python strategies of the run"),
                         ("expert", "with a run, --strategy only says where the run's Python "
                                    "strategy file is now")):
        r = run_cli("replay", run, "--hand", "2", "--strategy", spec, cwd=other)
        assert r.returncode == 2 and needle in r.stderr and r.stderr.count("\n") == 1, r.stderr
    (moved / "mine.py").write_text(SOURCE + "\n# edited\n")
    r = run_cli("replay", run, "--hand", "2", "--strategy", f"{new}:FirstLegal", cwd=other)
    assert r.returncode == 2 and "changed since the run" in r.stderr, r.stderr


@pytest.mark.slow
def test_a_run_that_recorded_a_relative_file_name_still_replays_and_resumes(tmp_path):
    """A run recorded before files were named by their resolved path (its seats named
    ``mine.py:FirstLegal``) replays and resumes from its folder as before: the file is
    loaded from there and keeps the recorded name."""
    import dataclasses
    from sim import pystrategy
    first = tmp_path / "first"
    first.mkdir()
    (first / "mine.py").write_text(SOURCE)
    old = dataclasses.replace(pystrategy.load(f"{first / 'mine.py'}:FirstLegal"),
                              spec="mine.py:FirstLegal")
    run = str(tmp_path / "run")
    sim.simulate(6, 3, strategies=[old, "heuristic"] * 2, out=run, return_frame=False)
    manifest = json.loads((tmp_path / "run" / "_manifest.json").read_text())
    assert manifest["config"]["strategies"] == ["mine.py:FirstLegal", "heuristic"] * 2
    r = run_cli("replay", run, "--hand", "2", "--format", "json", cwd=first)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["strategies"] == ["mine.py:FirstLegal", "heuristic"] * 2
    for extra in ([], ["--strategy", "mine.py:FirstLegal", "--team1", "heuristic"]):
        hands = "8" if not extra else "10"
        r = run_cli("simulate", "--out", run, "--hands", hands, "--quiet", *extra, cwd=first)
        assert r.returncode == 0, r.stderr
    df = sim.load(run)
    assert len(df) == 10 and set(df["strategy_s0"].astype(str)) == {"mine.py:FirstLegal"}
