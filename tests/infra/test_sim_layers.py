"""The layers of the sim package, checked from the syntax tree of every module.

Each subpackage of :mod:`sim` imports only itself and the layers below it
(:data:`LAYERS`, lowest first), no two modules import each other directly or
through others (no circle), :mod:`kernels` never imports :mod:`sim`, and an
import inside a function names a project module only where :data:`ALLOWED_LOCAL`
says why.  ``import sim`` loads no Numba (the kernels are loaded on first use).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The layers of sim, lowest first: a module may import modules of its own layer
#: and of the layers before it.  The facade (``sim/__init__.py``), the command line,
#: the environments, the questions and the figures are the top.
LAYERS = (
    ("sim._version", "sim._util"),
    ("sim.core",),
    ("sim.table",),
    ("sim.strategies",),
    ("sim.play",),
    ("sim.batch",),
    ("sim.experiments",),
    ("sim.analysis",),
    ("sim", "sim.__main__", "sim.game", "sim.dataset", "sim.questions", "sim.figures",
     "sim.envs", "sim.cli"),
)

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
    ("sim.cli.replay", "sim.play.viewer"),
    ("sim.cli.replay", "sim.batch.replay"),
    ("sim.cli.simulate", "sim.core.deal_features"),
    ("sim.cli.simulate", "sim.batch.read"),
    ("sim.cli.simulate", "sim.batch.rundir"),
    ("sim.cli.simulate", "sim.batch.runner"),
    ("sim.cli.simulate", "sim.strategies.pystrategy"),
    ("sim.cli.strategies", "sim.strategies"),
    ("sim.cli.summarize", "sim.experiments.sweeps"),
    ("sim.cli.summarize", "sim.experiments.tuning"),
    ("sim.cli.summarize", "sim.batch.read"),
    ("sim.cli.summarize", "sim.batch.repair"),
    ("sim.cli.sweep", "sim.experiments.sweeps"),
    ("sim.cli.tune", "sim.experiments.tuning"),
}
#: Every kernel module a sim module may load inside a function (first use).
LAZY_KERNELS = "kernels"


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of a sim module (its longest matching prefix)."""
    best, index = -1, None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            inside = module == p or (p != "sim" and module.startswith(p + "."))
            if inside and len(p) > best:
                best, index = len(p), i
    if index is None:
        raise ValueError(f"{module}: in no layer of LAYERS")
    return index


def module_sources(package: str) -> dict:
    """``{module name: (source, is_package)}`` of every module of ``package``."""
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path.read_text(encoding="utf-8"), is_pkg)
    return out


def imports(name: str, source: str, is_pkg: bool, known) -> list:
    """``[(imported module, inside a function, line)]`` of one module's source; an
    imported name that is a module of ``known`` counts as that module."""
    found = []

    def resolve(node) -> str:
        if not node.level:
            return node.module
        base = name.split(".")
        if not is_pkg:
            base = base[:-1]
        base = base[:len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inside = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, inside, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = resolve(child)
                for a in child.names:
                    full = f"{base}.{a.name}"
                    found.append((full if full in known else base, inside, child.lineno))
            visit(child, inside)

    visit(ast.parse(source), False)
    return found


def problems(sources: dict, allowed=ALLOWED_LOCAL) -> list:
    """The layer, circle and local-import problems of ``{module: (source, is_package)}``."""
    known = set(sources)
    out, edges = [], {m: set() for m in sources}
    for mod, (src, is_pkg) in sources.items():
        for target, inside, line in imports(mod, src, is_pkg, known):
            root = target.split(".")[0]
            if root not in ("sim", "kernels"):
                continue
            if mod.startswith("kernels") and root == "sim":
                out.append(f"{mod}:{line}: kernels imports {target}: kernels never imports sim")
            if inside and (mod, target) not in allowed and not (
                    root == LAZY_KERNELS and mod.startswith("sim")):
                out.append(f"{mod}:{line}: {target} imported inside a function (not in "
                           "ALLOWED_LOCAL: import it at the top, or move the code to its layer)")
            if root != "sim" or not mod.startswith("sim"):
                continue
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target == mod or target not in known:
                continue
            edges[mod].add(target)
            if layer_of(target) > layer_of(mod):
                out.append(f"{mod}:{line}: imports {target}, a higher layer "
                           f"({LAYERS[layer_of(target)][0]} above {LAYERS[layer_of(mod)][0]})")
    out += [f"import circle: {' -> '.join(c)}" for c in circles(edges)]
    return list(dict.fromkeys(out))


def circles(edges: dict) -> list:
    """One circle (a list of modules, the first repeated at the end) per strongly
    connected group of more than one module, or a module importing itself."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(_cycle_in(sorted(group), edges))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(edges):
        if v not in index:
            strong(v)
    return found


def _cycle_in(group: list, edges: dict) -> list:
    """A circle through the first module of a strongly connected group."""
    members, start = set(group), group[0]
    path, seen = [start], {start}

    def walk(v):
        for w in sorted(edges[v] & members):
            if w == start:
                return path + [start]
            if w not in seen:
                seen.add(w)
                path.append(w)
                found = walk(w)
                if found:
                    return found
                path.pop()
        return None

    return walk(start)


# ============================================================== the package as it is
def test_every_sim_module_is_in_a_layer():
    for mod in module_sources("sim"):
        layer_of(mod)


def test_sim_and_kernels_keep_their_layers():
    sources = {**module_sources("sim"), **module_sources("kernels")}
    assert problems(sources) == []


def test_every_allowed_local_import_is_still_there():
    """An entry of ALLOWED_LOCAL that no longer matches is removed, so the list stays exact."""
    sources = module_sources("sim")
    known = set(sources)
    seen = {(m, t) for m, (src, pkg) in sources.items()
            for t, inside, _ in imports(m, src, pkg, known) if inside}
    assert sorted(ALLOWED_LOCAL - seen) == []


def test_import_sim_loads_no_numba():
    code = ("import sys, sim; print(','.join(m for m in ('numba', 'kernels', 'pandas') "
            "if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


# ============================================================== the checker catches faults
def _fake(**modules) -> dict:
    return {name.replace("__", "."): (src, False) for name, src in modules.items()}


GOOD = dict(sim__core__a="import numpy\n", sim__table__b="from sim.core.a import x\n",
            sim__play__c="from sim.table import b\nfrom kernels import state\n"
                         "def f():\n    from kernels.play.game import play_hand\n")


def test_checker_passes_a_layered_package():
    assert problems(_fake(**GOOD)) == []


def test_checker_refuses_an_import_of_a_higher_layer():
    bad = _fake(**GOOD, sim__core__d="from sim.play.c import f\n")
    assert problems(bad) == ["sim.core.d:1: imports sim.play.c, a higher layer "
                             "(sim.play above sim.core)"]


def test_checker_refuses_a_circle_within_a_layer():
    bad = _fake(**GOOD, sim__table__e="from sim.table.f import y\n",
                sim__table__f="import sim.table.e\n")
    assert problems(bad) == ["import circle: sim.table.e -> sim.table.f -> sim.table.e"]


def test_checker_refuses_a_circle_held_open_by_a_local_import():
    bad = _fake(**GOOD)
    bad["sim.play.c"] = ("from sim.play import g\n", False)
    bad["sim.play.g"] = ("def later():\n    from sim.play.c import z\n", False)
    found = problems(bad)
    assert found[0].startswith("sim.play.g:2: sim.play.c imported inside a function")
    assert found[1] == "import circle: sim.play.c -> sim.play.g -> sim.play.c"


def test_checker_allows_only_the_listed_local_imports():
    src = _fake(**GOOD, sim__play__h="def f():\n    from sim.table import b\n")
    assert len(problems(src)) == 1
    assert problems(src, allowed={("sim.play.h", "sim.table.b")}) == []


def test_checker_refuses_kernels_importing_sim():
    bad = _fake(**GOOD, kernels__x="from sim.core import a\n")
    assert problems(bad) == ["kernels.x:1: kernels imports sim.core.a: kernels never imports sim"]


def test_checker_resolves_relative_imports():
    bad = {**_fake(**GOOD), "sim.core": ("from ..play import c\n", True)}
    assert problems(bad) == ["sim.core:1: imports sim.play.c, a higher layer "
                             "(sim.play above sim.core)"]


@pytest.mark.parametrize("module", ["sim.nowhere", "numpy"])
def test_a_module_outside_the_layers_is_an_error(module):
    with pytest.raises(ValueError, match="in no layer"):
        layer_of(module)


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
    """A package directory whose name a .gitignore pattern matches (``runs/`` ignores run
    output) would leave its new files out of every commit."""
    files = [str(p.relative_to(ROOT)) for pkg in ("sim", "kernels") for p in (ROOT / pkg).rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    r = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(files),
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode in (0, 1), r.stderr          # 1: no path is ignored
    assert r.stdout.split() == []
    r = subprocess.run(["git", "check-ignore", "--no-index", "runs/demo/hands/x.parquet"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.stdout.strip() == "runs/demo/hands/x.parquet"       # run output stays ignored
