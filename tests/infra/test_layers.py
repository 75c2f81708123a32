"""The kernels' layers import only the layers below them (kernels.build.layers).

The import check reads every module's syntax tree; each kind of breach is also
injected into a small synthetic package to show the check reports it.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kernels.build import layers

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "kernels"


def _check_kernels() -> list[str]:
    return layers.check_package(KERNELS, layers.LAYERS, forbidden=layers.FORBIDDEN,
                                local_allowed=layers.LOCAL_IMPORTS_ALLOWED)


def test_kernels_keep_their_layers():
    assert _check_kernels() == []


def test_every_subpackage_is_a_layer_of_the_table():
    subpackages = {p.parent.name for p in KERNELS.glob("*/__init__.py")}
    assert subpackages == set(layers.LAYERS) - {"__init__"}
    for layer, below in layers.LAYERS.items():
        assert layer not in below and set(below) <= set(layers.LAYERS), layer


def test_closure_follows_the_table():
    assert layers.closure("peers") == ["core", "engine", "peers", "strategies", "table"]
    assert layers.closure("core") == ["core"]
    assert "peers" not in layers.closure("search") and "peers" not in layers.closure("play")
    assert layers.closure("b", {"a": (), "b": ("c",), "c": ("a",)}) == ["a", "b", "c"]


TABLE = {"__init__": ("low",), "low": (), "mid": ("low",), "high": ("low", "mid")}
CLEAN = {
    "__init__.py": "from pkg import low\n",
    "low/__init__.py": "",
    "low/base.py": "import numpy as np\nX = 1\n",
    "low/more.py": "from .base import X\nfrom pkg.low import base\n",
    "mid/__init__.py": "",
    "mid/m.py": "from pkg.low.base import X\nimport pkg.low.more\n",
    "high/__init__.py": "",
    "high/h.py": "from ..mid import m\nfrom pkg.low import more as M\n"
                 "def f():\n    import json\n    return json\n",
}


def _package(tmp_path: Path, **edits: str) -> Path:
    root = tmp_path / "pkg"
    files = {**CLEAN, **{k.replace("__", "/") + ".py": v
                         for k, v in edits.items()}}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _check(root: Path, **kwargs) -> list[str]:
    return layers.check_package(root, TABLE, forbidden=("sim",), **kwargs)


def test_synthetic_package_is_clean(tmp_path):
    assert _check(_package(tmp_path)) == []


@pytest.mark.parametrize(("module", "text", "expected"), [
    # a lower layer imports a higher one: absolute, relative, whole-module forms
    ("low__base", "from pkg.mid import m\n", "pkg/low/base.py:1: layer low imports pkg.mid.m of layer mid"),
    ("low__base", "from ..high import h\n", "pkg/low/base.py:1: layer low imports pkg.high.h of layer high"),
    ("mid__m", "import pkg.high.h\n", "pkg/mid/m.py:1: layer mid imports pkg.high.h of layer high"),
    ("mid__m", "from pkg import high\n", "pkg/mid/m.py:1: layer mid imports pkg.high of layer high"),
    # the package's root module is a layer of its own
    ("low__base", "import pkg\n", "pkg/low/base.py:1: layer low imports pkg of layer __init__"),
    # the forbidden package, at module level or hidden in a function
    ("mid__m", "import sim.rules\n", "pkg/mid/m.py:1: imports sim.rules (pkg never imports sim)"),
    ("mid__m", "def f():\n    from sim import rules\n",
     "pkg/mid/m.py:2: imports sim (pkg never imports sim)"),
    # a function-local import of the package's own module
    ("high__h", "def f():\n    from pkg.low import base\n    return base\n",
     "pkg/high/h.py:2: imports pkg.low.base inside a function"),
    ("high__h", "class C:\n    def f(self):\n        import pkg.mid.m\n",
     "pkg/high/h.py:3: imports pkg.mid.m inside a function"),
    # a subpackage the table does not know
    ("extra__x", "X = 1\n", "pkg/extra/x.py:1: layer 'extra' is not in the layer table"),
])
def test_each_breach_is_reported(tmp_path, module, text, expected):
    bad = _check(_package(tmp_path, **{module: text}))
    assert any(line.startswith(expected) for line in bad), bad


def test_an_import_circle_within_a_layer_is_reported(tmp_path):
    root = _package(tmp_path, low__base="from pkg.low import more\n")
    bad = _check(root)
    assert len(bad) == 1 and "import circle" in bad[0], bad
    assert {"pkg.low.base", "pkg.low.more"} <= set(bad[0].split(" import circle ")[1].split(" -> "))


def test_an_import_circle_through_a_function_is_reported(tmp_path):
    """A function-local import that closes a circle is both a local import and a circle."""
    root = _package(tmp_path, low__base="def f():\n    from pkg.low import more\n")
    bad = _check(root)
    assert any("inside a function" in b for b in bad) and any("import circle" in b for b in bad)


def test_an_allowed_local_import_is_not_reported(tmp_path):
    root = _package(tmp_path, high__h="def f():\n    from pkg.low import base\n")
    assert _check(root) != []
    assert _check(root, local_allowed={("pkg.high.h", "pkg.low.base")}) == []


def test_the_kernels_check_fails_on_an_injected_breach(tmp_path):
    """The real table on a copy of the kernels: a peer bot imports the search."""
    import shutil
    copy = tmp_path / "kernels"
    shutil.copytree(KERNELS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = sorted((copy / "peers").glob("*.py"))[-1]
    target.write_text(target.read_text() + "\nfrom kernels.search import player\n")
    bad = layers.check_package(copy, layers.LAYERS, forbidden=layers.FORBIDDEN)
    assert len(bad) == 1 and "layer peers imports kernels.search.player of layer search" in bad[0]


def test_ordered_builds_the_table_of_a_strict_order():
    table = layers.ordered([("a", "b"), ("c",), ("d", "e")])
    assert table == {"a": ("b",), "b": ("a",), "c": ("a", "b"), "d": ("a", "b", "c", "e"),
                     "e": ("a", "b", "c", "d")}
    assert layers.closure("c", table) == ["a", "b", "c"]
