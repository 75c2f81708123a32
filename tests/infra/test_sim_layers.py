"""The layers of the sim package, checked from the syntax tree of every module.

Each subpackage of :mod:`sim` imports only itself and the layers below it
(:data:`LAYERS`, lowest first), no two modules import each other directly or
through others (no circle), and an import inside a function names a sim module
only where :data:`ALLOWED_LOCAL` says why.  The check is the kernels' own
(:func:`kernels.build.layers.check_package`, whose faults tests/infra/test_layers.py
injects); "kernels never imports sim" is checked there.  ``import sim`` loads no
Numba (the kernels are loaded on first use).
"""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernels.build import layers

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "sim"

#: The layers of sim (subpackages, and modules directly under sim/ by their stem), lowest
#: first: a module may import modules of its own group and of the groups before it.  The
#: facade (``sim/__init__.py``), the command line, the environments, the questions and the
#: figures are the top.
LAYERS = (
    ("_version", "_util"),
    ("core",),
    ("table",),
    ("strategies",),
    ("play",),
    ("batch",),
    ("experiments",),
    ("analysis",),
    ("__init__", "__main__", "game", "dataset", "questions", "figures", "envs", "cli"),
)
TABLE = layers.ordered(LAYERS)

#: Imports inside functions of a project module (sim or kernels), by (module, imported
#: module).  Only two reasons are allowed: loading a kernel module on first use, so that
#: importing the sim module loads (or compiles) no Numba code it does not need yet, and
#: an optional package's module, imported only when it is used.
ALLOWED_LOCAL = {
    # -- optional packages: the Gymnasium environment needs gymnasium (pip install '.[rl]')
    ("sim.envs", "sim.envs.gym_env"),
    # -- the command line loads a command's modules (and through them the kernels) when the
    # command runs, so that `burraco --help`, `burraco rules` and an option refused by the parser
    # load only the rules (1.4 s; every command's modules at the top: 4 s, for every command)
    ("sim.cli.analyze", "sim.analysis.decision"),
    ("sim.cli.analyze", "sim.analysis.evaluate"),
    ("sim.cli.common", "sim.strategies"),
    ("sim.cli.compare", "sim.experiments.comparison"),
    # burraco compile: each unit's modules, imported in the worker process that compiles it
    ("sim.cli.compile", "sim.analysis"),
    ("sim.cli.compile", "sim.batch.executors"),
    ("sim.cli.compile", "sim.batch.replay"),
    ("sim.cli.compile", "sim.batch.runner"),
    ("sim.cli.compile", "sim.core.deal_features"),
    ("sim.cli.compile", "sim.play.game"),
    ("sim.cli.compile", "sim.strategies.peers"),
    ("sim.cli.compile", "sim.strategies.registry"),
    ("sim.cli.label", "sim.batch.labels"),
    ("sim.cli.replay", "sim.play.viewer"),
    ("sim.cli.replay", "sim.batch.replay"),
    ("sim.cli.review", "sim.analysis.review"),
    ("sim.cli.review", "sim.analysis.review_run"),
    ("sim.cli.simulate", "sim.core.deal_features"),
    ("sim.cli.simulate", "sim.batch.read"),
    ("sim.cli.simulate", "sim.batch.rundir"),
    ("sim.cli.simulate", "sim.batch.runner"),
    ("sim.cli.simulate", "sim.strategies.pystrategy"),
    ("sim.cli.simulate", "sim.strategies"),
    ("sim.cli.strategies", "sim.strategies"),
    ("sim.cli.summarize", "sim.experiments.sweeps"),
    ("sim.cli.summarize", "sim.experiments.tuning"),
    ("sim.cli.summarize", "sim.batch.read"),
    ("sim.cli.summarize", "sim.batch.repair"),
    ("sim.cli.sweep", "sim.experiments.sweeps"),
    ("sim.cli.tune", "sim.experiments.tuning"),
    ("sim.cli.train", "sim.strategies.train"),
}


def check(root: Path = SIM) -> list:
    """The breaches of sim's layers in the package at ``root`` (a copy of sim in a test)."""
    return layers.check_package(root, TABLE, local_allowed=ALLOWED_LOCAL)


# ============================================================== the package as it is
def test_every_sim_module_is_in_a_layer():
    entries = {p.stem for p in SIM.glob("*.py")} | {p.parent.name for p in SIM.glob("*/__init__.py")}
    assert entries == set(TABLE)


def test_sim_keeps_its_layers():
    assert check() == []


def test_every_allowed_local_import_is_still_there():
    """An entry of ALLOWED_LOCAL that no longer matches is removed, so the list stays exact."""
    files = {layers._module_name(p, SIM, "sim"): p for p in SIM.rglob("*.py")
             if "__pycache__" not in p.parts}
    seen = {(m, target) for m, path in files.items()
            for _, target, local in layers.imports(ast.parse(path.read_text()), m,
                                                   path.name == "__init__.py", set(files))
            if local}
    assert sorted(ALLOWED_LOCAL - seen) == []


def test_import_sim_loads_no_numba():
    code = ("import sys, sim; print(','.join(m for m in ('numba', 'kernels', 'pandas') "
            "if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


# ============================================================== the check catches faults in sim
def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "sim"
    shutil.copytree(SIM, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_sims_order_refuses_an_import_of_a_higher_layer(tmp_path):
    copy = _copy(tmp_path)
    path = copy / "core" / "rules.py"
    path.write_text(path.read_text() + "\nfrom sim.batch import runner\n")
    bad = check(copy)
    assert bad[0].startswith("sim/core/rules.py:"), bad
    assert "layer core imports sim.batch.runner of layer batch" in bad[0]
    assert len(bad) == 2 and "import circle" in bad[1]        # the runner imports the rules


def test_sims_order_refuses_a_local_import_not_listed(tmp_path):
    copy = _copy(tmp_path)
    path = copy / "play" / "viewer.py"
    path.write_text(path.read_text() + "\ndef _later():\n    from sim.table import melds\n")
    bad = check(copy)
    assert len(bad) == 1 and "imports sim.table.melds inside a function" in bad[0], bad


def test_sims_order_refuses_a_circle_in_the_top_group(tmp_path):
    """The top group's modules may import each other, but not in a circle."""
    copy = _copy(tmp_path)
    (copy / "questions.py").write_text((copy / "questions.py").read_text()
                                       + "\nfrom sim import figures\n")
    path = copy / "figures" / "questions.py"
    path.write_text(path.read_text() + "\nimport sim.questions\n")
    bad = check(copy)
    assert any("import circle" in b and "sim.questions" in b for b in bad), bad


# ============================================================== the facade keeps its names
@pytest.mark.slow
def test_every_name_of_the_facade_resolves_to_the_layered_module():
    """Each of ``sim.__all__``, the lazy functions and the old module names gives the object
    of its module in the layers (a name whose module moved without its facade entry fails)."""
    code = """
import importlib, sim
for name in sim.__all__:
    getattr(sim, name)
for name, path in sim._LAZY_ATTRS.items():
    assert getattr(sim, name) is getattr(importlib.import_module(path), name), name
for name, path in sim._LAZY_MODULES.items():
    assert getattr(sim, name) is importlib.import_module(path), name
import sim.game, sim.dataset
assert sim.game is importlib.import_module("sim.play.game")
from sim.game import A_DRAW, Game, TENSOR_SIZE
from sim.dataset import COLUMNS
assert COLUMNS is importlib.import_module("sim.core.dataset").COLUMNS
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_the_old_module_paths_the_docs_name_run():
    r = subprocess.run([sys.executable, "-m", "sim.dataset", "--matches"], capture_output=True,
                       text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("| column | type | unit | meaning |")


def test_no_file_of_the_packages_is_ignored_by_git():
    """A source or test directory whose name a .gitignore pattern matches (``runs/`` ignores
    run output) would leave its new files out of every commit."""
    files = [str(p.relative_to(ROOT)) for pkg in ("sim", "kernels", "tests", "benchmarks")
             for p in (ROOT / pkg).rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts
             and p.suffix not in (".pyc", ".parquet")]
    r = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(files),
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode in (0, 1), r.stderr          # 1: no path is ignored
    assert r.stdout.split() == []
    r = subprocess.run(["git", "check-ignore", "--no-index", "runs/demo/hands/x.parquet"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.stdout.strip() == "runs/demo/hands/x.parquet"       # run output stays ignored
