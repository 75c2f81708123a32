"""The suite's layout (tests/conftest.py, docs/testing.md): every test file is imported by its
file name, so the names are unique across the folders; a broken module of the project fails
its tests instead of skipping them (no ``pytest.importorskip`` of sim, kernels or a helper of
the suite; optional third-party packages may be skipped)."""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
#: the project's own top-level modules: a test must import them, never skip without them
OWN = {"sim", "kernels", "tests", "referee", "referee_cli", "ref", "_casetools", "_readonly",
       "_decisions", "_browser"}


def suite_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def duplicate_names(paths) -> list[str]:
    """The file names of test modules that occur in more than one folder."""
    counts = Counter(p.name for p in paths if p.name.startswith("test_"))
    return sorted(name for name, n in counts.items() if n > 1)


def skipped_own_modules(source: str) -> list[str]:
    """The project's modules that ``source`` imports through ``pytest.importorskip``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "importorskip" and node.args \
                and isinstance(node.args[0], ast.Constant) \
                and str(node.args[0].value).split(".")[0] in OWN:
            found.append(node.args[0].value)
    return found


def test_test_file_names_are_unique_across_the_folders():
    paths = suite_files()
    assert len([p for p in paths if p.name.startswith("test_")]) > 50
    assert not duplicate_names(paths)
    # the check itself: a second test_engine.py in another folder is found
    assert duplicate_names(paths + [TESTS / "play" / "test_engine.py"]) == ["test_engine.py"]


def test_no_test_skips_when_a_module_of_the_project_is_missing():
    bad = {p.relative_to(TESTS).as_posix(): names for p in suite_files()
           if (names := skipped_own_modules(p.read_text(encoding="utf-8")))}
    assert not bad, f"importorskip of the project's own modules (a broken one must fail): {bad}"
    # the check itself, on the fault it guards against and on an allowed skip
    assert skipped_own_modules('import pytest\nSR = pytest.importorskip("sim.trace")\n') \
        == ["sim.trace"]
    assert skipped_own_modules('import pytest\ncma = pytest.importorskip("cma")\n') == []


def test_snapshot_benchmarks_import_the_project_only_after_the_snapshot():
    """A speed script measured on a snapshot (benchmarks/harness.py ``use_snapshot``) must not
    import ``kernels`` or ``sim`` at module level: that import would load the working tree's
    packages before the snapshot's, and ``use_snapshot`` refuses to measure them."""
    bench = TESTS.parent / "benchmarks"
    scripts = [p for p in sorted(bench.rglob("*.py")) if "use_snapshot(" in p.read_text()
               and p.name != "harness.py"]
    assert {p.name for p in scripts} >= {"run.py", "step_api.py", "analyze.py", "envs.py"}
    early = [f"{p.relative_to(bench)}:{node.lineno}"
             for p in scripts for node in ast.parse(p.read_text()).body
             if isinstance(node, (ast.Import, ast.ImportFrom))
             and any(n.split(".")[0] in ("kernels", "sim") for n in
                     ([node.module or ""] if isinstance(node, ast.ImportFrom)
                      else [a.name for a in node.names]))]
    assert early == []
