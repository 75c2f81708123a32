"""Every compile is announced on stderr before the wait, with the time of the wait (sim.compiling)."""
from __future__ import annotations

import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

import sim
from sim._util import compiling

EXAMPLE = "examples/position.toml"


def test_the_line_is_printed_before_the_body_and_timed_after(capsys):
    with compiling.announce("the thing", True, prefix="x: "):
        during = capsys.readouterr().err
        time.sleep(0.3)
    after = capsys.readouterr().err
    assert during == "x: compiling the thing (first use only; cached for later runs)... "
    assert after.startswith("done in ") and after.endswith(" s\n")
    assert 0.3 <= float(after.split()[2]) < 5


@pytest.mark.parametrize("cold,enabled,words", [
    (True, True, "compiling the thing"), (None, True, "compiling or loading the thing"),
    (False, True, None), (True, False, None)])
def test_what_is_said_by_cold_and_enabled(cold, enabled, words, capsys):
    with compiling.announce("the thing", cold, enabled):
        pass
    err = capsys.readouterr().err
    assert (words in err) if words else err == ""


def test_quiet_nested_and_failed(capsys, monkeypatch):
    with compiling.announce("outer"):
        with compiling.announce("inner"):      # the outer line covers the wait
            pass
    err = capsys.readouterr().err
    assert "outer" in err and "inner" not in err and err.count("done in") == 1
    with pytest.raises(KeyError):
        with compiling.announce("broken"):
            raise KeyError("x")
    assert capsys.readouterr().err.endswith("... failed\n")
    monkeypatch.setattr(compiling, "ENABLED", False)
    with compiling.announce("silenced"):
        pass
    assert capsys.readouterr().err == ""
    assert not compiling._open


def test_on_disk_reads_the_index_files_of_the_kernels_cache(tmp_path, monkeypatch):
    from kernels.build import cachestamp
    monkeypatch.setattr(cachestamp, "_layer_cache", {"search": tmp_path})
    f = SimpleNamespace(py_func=SimpleNamespace(__module__="kernels.search.rollouts",
                                                __qualname__="rollouts_chunk"))
    assert compiling.on_disk(f, "search.player.rollout_callback") is False
    assert compiling.cold(f) is True
    (tmp_path / "rollouts.rollouts_chunk-812.py311.nbi").write_text("")
    assert compiling.on_disk(f) is True and compiling.cold(f) is False
    assert compiling.on_disk(f, "search.player.rollout_callback") is False
    (tmp_path / "player.rollout_callback-358.py311.nbi").write_text("")
    assert compiling.on_disk(f, "search.player.rollout_callback") is True
    assert compiling.on_disk(object()) is None and compiling.cold(object()) is None
    monkeypatch.setattr(cachestamp, "_layer_cache", {"search": None})
    assert compiling.on_disk(f) is None


def test_on_disk_names_match_numba_cache_files():
    """The real cache: a kernel used in this process has its index file where on_disk looks."""
    from kernels.core import rng
    state = np.zeros(4, np.uint64)
    rng.seed_hand(np.uint64(1), np.int64(0), state)
    assert compiling.on_disk(rng.seed_hand) is True
    assert compiling.on_disk("core.rng.seed_hand") is True
    assert compiling.on_disk("core.rng.no_such_kernel") is False


def test_analyze_compiles_inside_the_announcement_not_in_the_timed_loop(monkeypatch, capsys):
    """The warm-up call runs the chunk kernel on a world (a call of no world compiles
    nothing), inside the announcement; the timed loop comes after it."""
    from kernels.search import rollouts as KR
    calls = []
    real = KR.rollouts

    def spy(*args):
        calls.append((int(args[5]), bool(compiling._open)))
        return real(*args)

    monkeypatch.setattr(KR, "rollouts", spy)
    monkeypatch.setattr(compiling, "cold", lambda *f: True)
    sim.analyze(EXAMPLE, rollouts=40, seed=5, threads=1, progress=True)
    err = capsys.readouterr().err
    assert "analyze: compiling the rollout kernel (first use only" in err
    assert calls[0][0] >= 1 and calls[0][1], "the announced call must run a world"
    assert all(not inside for _, inside in calls[1:])


@pytest.mark.parametrize("cached", [False, True])
def test_a_peer_bot_is_announced_cached_or_not(monkeypatch, capsys, cached):
    """A cold peer bot is announced once (register's own announcement is inside); a cached
    one, its C callback included, loads without a word."""
    from sim import strategies
    monkeypatch.delitem(strategies.STRATEGIES, "masu_easy", raising=False)
    monkeypatch.setattr(compiling, "on_disk", lambda *f: cached)
    assert strategies.get("masu_easy").kind == strategies.registry._CALLBACKS["masu_easy"].address
    err = capsys.readouterr().err
    if cached:
        assert err == ""
    else:
        assert err.startswith("compiling the peer bot masu_easy (first use only; cached for "
                              "later runs)... ") and err.count("done in") == 1


@pytest.mark.slow
def test_a_registered_chooser_is_announced(capsys):
    from numba import njit

    from kernels.strategies.choosers import (heuristic_chooser)
    from sim import strategies

    @njit
    def like_heuristic(work):
        return heuristic_chooser(work)

    strategies.register("announced_chooser", like_heuristic)
    err = capsys.readouterr().err
    assert err.startswith("compiling the chooser announced_chooser as a C callback (once per "
                          "process; the chooser's code may be cached)... done in ")
    strategies.STRATEGIES.pop("announced_chooser")
    strategies.registry._CALLBACKS.pop("announced_chooser")


@pytest.mark.slow
def test_the_search_player_is_announced_when_its_callback_is_not_cached(monkeypatch, capsys):
    from sim import strategies
    monkeypatch.delitem(sys.modules, "kernels.search.player", raising=False)
    monkeypatch.setattr(compiling, "cold", lambda *f: True)
    name, kind, _ = strategies.resolve("rollout")
    err = capsys.readouterr().err
    assert name == "rollout:halving=1,rollouts=120,worlds=256" and kind > 1000
    assert err.startswith("compiling the search player rollout (first use only")
    assert "done in" in err


def test_the_step_kernels_are_compiled_inside_their_announcement(monkeypatch, capsys):
    from sim import game
    monkeypatch.setattr(game, "_COLD_CHECKED", [])
    monkeypatch.setattr(compiling, "cold", lambda *f: True)
    played = []
    monkeypatch.setattr(game, "warm_up", lambda: played.append(bool(compiling._open)))
    game._kernels()
    game._kernels()
    assert played == [True]
    err = capsys.readouterr().err
    assert err.startswith("sim.Game: compiling the step kernels of sim.Game (first use only")


@pytest.mark.slow
def test_the_step_kernels_checked_are_the_ones_warm_up_compiles():
    """On a fresh process, warm_up adds machine code (compiled or loaded) to exactly the
    kernels whose cache _kernels checks, so a cold cache is never missed or misjudged."""
    import subprocess
    from pathlib import Path
    code = """
import importlib, pkgutil, json
import kernels
from numba.core.registry import CPUDispatcher
from sim import game
mods = [importlib.import_module(m.name)
        for m in pkgutil.walk_packages(kernels.__path__, "kernels.")
        if not m.ispkg and m.name != "kernels.search.player"]
def snap():
    return {m.__name__ + "." + k: len(v.overloads) for m in mods for k, v in vars(m).items()
            if isinstance(v, CPUDispatcher) and v.py_func.__module__ == m.__name__}
before = snap()
game._COLD_CHECKED.append(True)
game.warm_up()
after = snap()
print(json.dumps({"compiled": sorted(k for k in after if after[k] > before.get(k, 0)),
                  "checked": sorted(f.py_func.__module__ + "." + f.__name__
                                    for f in game.step_kernels())}))
"""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                       check=True)
    import json
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["compiled"] == out["checked"]


def test_compile_checks_name_real_kernels_and_leaves_nothing_cold():
    """``burraco compile`` (sim.cli.compile): after it ran (the suite's controller runs it before
    the workers start), no unit is cold; a check naming a kernel that does not exist would keep
    its unit cold for ever."""
    from kernels.build import cachestamp
    from sim.cli import compile as C

    C.compile_all(jobs=1, out=None)               # nothing to do when the suite compiled first
    assert C.cold_units() == []
    checks = C._checks()
    names = [name for name, _ in C.units()]
    assert sorted(names) == sorted(checks) and len(set(names)) == len(names)   # one check each
    assert C.units()[0][0] == "the turn loop"
    assert cachestamp.cached("play.game.no_such_kernel") is False


@pytest.mark.slow
def test_the_units_compiled_beside_the_turn_loop_load_none_of_its_kernels():
    """``burraco compile`` runs the peer bots and the deal features while the turn loop
    compiles in the other process: run in a fresh process, none of them loads a module of
    the turn loop's own kernels (the game, the search, the built-in choosers), which it would
    then compile a second time."""
    import subprocess
    from pathlib import Path
    code = """
import sys
from sim.cli import compile as C
beside = [name for name, _ in C.units() if name != "the turn loop" and not C.needs(name)]
for name in beside:
    C._run_unit(name)
print(len(beside), sorted(m for m in sys.modules if m.startswith(
    ("kernels.play", "kernels.search", "kernels.strategies.choosers",
     "kernels.strategies.policies"))))
"""
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                       check=True)
    from sim.strategies.peers import PEERS
    assert r.stdout.strip().splitlines()[-1] == f"{len(PEERS) + 1} []"


def test_compile_refuses_a_bad_job_count_in_one_line(capsys):
    from sim.cli import main
    assert main(["compile", "--jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--jobs" in err and "at least 1" in err
