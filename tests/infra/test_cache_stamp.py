"""The kernels' Numba cache is never stale, wherever Numba keeps it (kernels.build.cachestamp).

Numba checks a cached function against its own file only.  These tests copy the
``kernels`` package, fill the cache, then edit a *callee's* module the way an
upgrade would (the joker's point value in ``cards.py``, read by
``scoring.score_team``) and check that the next process computes with the new
value: under ``NUMBA_CACHE_DIR``, in the default ``__pycache__``, and from a
read-only install (user-wide cache).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# score one team holding a single joker: hand points = the joker's value (R2: 30)
CHILD = r'''
import json, os, sys
from kernels.core.cards import N_COUNT
import numpy as np
import kernels
from kernels.core import layout as L
from kernels.table import scoring
from kernels.build import cachestamp
mcnt = np.zeros((1, N_COUNT), np.int64); minfo = np.zeros((1, 16), np.int64)
hcnt = np.zeros((1, N_COUNT), np.int64); hcnt[0, 52] = 1
rv = np.zeros(L.N_RULES, np.int64)
out = scoring.score_team(mcnt, minfo, 0, hcnt, 1, 0, 1, 0, rv)
probe = os.path.join(os.path.dirname(kernels.__file__), "write-probe")
try:
    open(probe, "w").close(); os.unlink(probe); writable = True
except OSError:
    writable = False
print(json.dumps({"hand_points": int(out[4]),
                  "hits": sum(scoring.score_team.stats.cache_hits.values()),
                  "cache_dir": str(cachestamp.numba_cache_dir(
                      cachestamp.Path(scoring.__file__).resolve().parent)),
                  "package_writable": writable}))
'''


def _copy_kernels(dest: Path) -> Path:
    pkg = dest / "pkg"
    shutil.copytree(REPO / "kernels", pkg / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return pkg


def _set_joker_value(pkg: Path, value: int) -> None:
    cards = pkg / "kernels" / "core" / "cards.py"
    text = cards.read_text()
    old = [line for line in text.splitlines() if line.startswith("CVALUE[JOKER] = ")]
    assert len(old) == 1, "cards.py no longer sets CVALUE[JOKER] on one line"
    cards.write_text(text.replace(old[0], f"CVALUE[JOKER] = {value}"))


def _run(pkg: Path, env_extra: dict, read_only: bool = False, child: str = CHILD) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BURRACO_CALLEE_CODE")}
    env.update(PYTHONPATH=str(pkg), PYTHONDONTWRITEBYTECODE="1", **env_extra)
    cmd = [sys.executable, "-W", "ignore", "-c", child]
    if read_only:
        if os.geteuid() == 0:     # root writes through file modes: mount the package read-only
            cmd = ["unshare", "-m", "sh", "-c",
                   'mount --bind -o ro "$0" "$0" && exec "$@"', str(pkg), *cmd]
        else:
            for d in (pkg, *[p for p in pkg.rglob("*") if p.is_dir()]):
                d.chmod(0o555)
    try:
        proc = subprocess.run(cmd, env=env, cwd=pkg.parent, capture_output=True, text=True)
    finally:
        if read_only and os.geteuid() != 0:
            for d in (pkg, *[p for p in pkg.rglob("*") if p.is_dir()]):
                d.chmod(0o755)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _edit_between_runs(pkg: Path, env_extra: dict, read_only: bool = False) -> list[dict]:
    first = _run(pkg, env_extra, read_only)           # compiles and fills the cache
    again = _run(pkg, env_extra, read_only)           # loads the cache
    _set_joker_value(pkg, 31)                         # an upgrade edits a callee's module
    after = _run(pkg, env_extra, read_only)
    return [first, again, after]


@pytest.mark.slow
def test_edit_of_a_callee_under_numba_cache_dir(tmp_path):
    pkg = _copy_kernels(tmp_path)
    cache = tmp_path / "numba-cache"
    first, again, after = _edit_between_runs(pkg, {"NUMBA_CACHE_DIR": str(cache)})
    assert first["hand_points"] == 30 and again["hand_points"] == 30
    assert again["hits"] == 1, "the second run must load score_team from the cache"
    assert after["hand_points"] == 31, "a cached caller kept the callee module's old value"
    assert Path(after["cache_dir"]).parent == cache
    assert not list(pkg.rglob("__pycache__"))   # nothing written beside the source
    stamps = list(cache.rglob("kernels-source.sha256"))
    assert Path(after["cache_dir"]) in [s.parent for s in stamps]


@pytest.mark.slow
def test_edit_of_a_callee_in_the_default_cache(tmp_path):
    pkg = _copy_kernels(tmp_path)
    first, again, after = _edit_between_runs(pkg, {"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert [first["hand_points"], again["hand_points"], after["hand_points"]] == [30, 30, 31]
    assert again["hits"] == 1
    assert Path(after["cache_dir"]) == pkg / "kernels" / "table" / "__pycache__"


@pytest.mark.slow
def test_edit_of_a_callee_in_a_read_only_install(tmp_path):
    pkg = _copy_kernels(tmp_path)
    xdg = tmp_path / "xdg"
    first, again, after = _edit_between_runs(pkg, {"XDG_CACHE_HOME": str(xdg)}, read_only=True)
    assert not first["package_writable"], "the install must really be read-only"
    assert [first["hand_points"], again["hand_points"], after["hand_points"]] == [30, 30, 31]
    assert again["hits"] == 1, "the read-only install must still cache (user-wide)"
    assert Path(after["cache_dir"]).is_relative_to(xdg / "numba")
    assert not list(pkg.rglob("__pycache__"))


# a hand of the turn loop through the public API, and one peer bot's kernel
LAYER_CHILD = r'''
import json, sys
import numpy as np
import sim
from kernels.play import game
from kernels.peers import common
sim.simulate(1, seed=1, threads=1)
common.trio_allowed(0, np.zeros(64, np.int64))

def counts(module):
    hits = misses = 0
    for f in vars(module).values():
        stats = getattr(f, "stats", None)
        if stats is not None and getattr(f, "__module__", "") == module.__name__:
            hits += sum(stats.cache_hits.values())
            misses += sum(stats.cache_misses.values())
    return {"hits": hits, "misses": misses}

print(json.dumps({"sim": sim.__file__, "game": counts(game),
                  "peer": {"hits": sum(common.trio_allowed.stats.cache_hits.values()),
                           "misses": sum(common.trio_allowed.stats.cache_misses.values())}}))
'''


@pytest.mark.slow
def test_edit_of_a_peer_bot_keeps_the_turn_loop_cached(tmp_path):
    """An edit in ``peers`` drops the peers' cache only: the turn loop (``play``) loads.

    The copy starts from the repository's own in-tree cache (filled first if it is not:
    the suite compiles the same kernels anyway), copied with the sources' times, so
    that the test costs loads rather than a cold compile of the turn loop."""
    _run(REPO, {}, child=LAYER_CHILD)               # the repository's cache holds the loop
    pkg = tmp_path / "pkg"
    for name in ("kernels", "sim"):                 # cache files kept, sources' mtimes kept
        shutil.copytree(REPO / name, pkg / name, ignore=shutil.ignore_patterns("*.pyc"))
    first = _run(pkg, {}, child=LAYER_CHILD)
    assert first["sim"] == str(pkg / "sim" / "__init__.py")
    assert first["game"]["hits"] + first["game"]["misses"] > 0 and first["peer"]["misses"] <= 1
    bot = pkg / "kernels" / "peers" / "common.py"
    bot.write_text(bot.read_text() + "\n# an edit of a peer bot\n")
    after = _run(pkg, {}, child=LAYER_CHILD)
    assert after["game"]["misses"] == 0 and after["game"]["hits"] > 0, after
    assert after["peer"] == {"hits": 0, "misses": 1}, "the edited peer bot must be recompiled"


def test_layer_digest_covers_the_layers_below_only(tmp_path):
    """Each layer's stamp changes with its own files and those of the layers it may import."""
    from kernels.build import cachestamp, layers

    root = _copy_kernels(tmp_path) / "kernels"
    before = {layer: cachestamp.layer_digest(layer, root) for layer in layers.LAYERS}
    for edited in ("peers", "core", "search"):
        path = sorted((root / edited).glob("*.py"))[-1]
        text = path.read_text()
        path.write_text(text + "\n# edited\n")
        changed = {layer for layer in layers.LAYERS
                   if cachestamp.layer_digest(layer, root) != before[layer]}
        path.write_text(text)
        assert changed == {layer for layer in layers.LAYERS if edited in layers.closure(layer)}
    assert len(set(before.values())) == len(before) - 1     # __init__ and build share theirs
    path = root / "build" / "calleecode.py"
    path.write_text(path.read_text() + "\n# edited\n")
    assert all(cachestamp.layer_digest(layer, root) != before[layer] for layer in layers.LAYERS)


def test_candidate_dirs_follow_numba_locators(tmp_path, monkeypatch):
    """The documented locations equal Numba's own pick, and cover it when the internal is gone."""
    from numba.core import caching, config

    from kernels.build import cachestamp

    folder = _copy_kernels(tmp_path) / "kernels"
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "user-cache"))
    picked = cachestamp.numba_cache_dir(folder)
    assert picked == tmp_path / "user-cache" / cachestamp._subpath(folder)
    assert picked in cachestamp.candidate_dirs(folder)

    monkeypatch.setattr(config, "CACHE_DIR", "")
    assert cachestamp.numba_cache_dir(folder) == folder / "__pycache__"

    # the fallback when a Numba release renames its locator lookup: same directories
    monkeypatch.delattr(caching, "FunctionCache")
    assert cachestamp.numba_cache_dir(folder) is None
    dirs = cachestamp.candidate_dirs(folder)
    assert folder / "__pycache__" in dirs
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "user-cache"))
    assert picked in cachestamp.candidate_dirs(folder)


def test_refresh_deletes_only_cache_files_and_stamps(tmp_path):
    from kernels.build import cachestamp

    d = tmp_path / "cache"
    d.mkdir()
    for name in ("game.play-1.py311.nbi", "game.play-1.py311.1.nbc", "notes.txt"):
        (d / name).write_text("x")
    assert cachestamp.refresh(d, "abc") is True
    assert sorted(p.name for p in d.iterdir()) == ["kernels-source.sha256", "notes.txt"]
    assert (d / "kernels-source.sha256").read_text() == "abc"
    (d / "game.play-1.py311.nbi").write_text("x")
    assert cachestamp.refresh(d, "abc") is False         # same digest: kept
    assert (d / "game.play-1.py311.nbi").exists()
    assert cachestamp.refresh(tmp_path / "missing", "abc") is False
    assert not (tmp_path / "missing").exists()
