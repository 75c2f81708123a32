"""kernels.build.calleecode: callee-only code is linked, never called from Python."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# kernels.core.rng.bounded calls next_u64: compiled from Python, bounded is an entry and
# next_u64 its callee; then next_u64 is called from Python too.
CHILD = r'''
import json, sys
import numpy as np
import kernels.build.calleecode as CC
from kernels.core import rng

def flags(d):
    return [bool(getattr(c.library, "_burraco_callee_only", False)) for c in d.overloads.values()]

out = {"installed": CC.installed()}
state = np.zeros(4, np.uint64)
rng.seed_hand(np.uint64(7), np.int64(3), state)
out["bounded"] = [int(rng.bounded(state, 1000)) for _ in range(5)]
out["next_u64_before"] = flags(rng.next_u64)
out["next_u64"] = [int(rng.next_u64(state)) for _ in range(3)]
out["next_u64_after"] = flags(rng.next_u64)
out["hits"] = sum(rng.next_u64.stats.cache_hits.values())
print(json.dumps(out))
'''


def _run(cache, env_extra=None):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD], env=env, cwd=cache,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_callee_only_code_is_replaced_before_a_python_call(tmp_path):
    (tmp_path / "full").mkdir()
    full = _run(tmp_path / "full", {"BURRACO_CALLEE_CODE": "full"})
    assert not full["installed"] and full["next_u64_before"] == [False]

    cache = tmp_path / "cheap"
    cache.mkdir()
    first = _run(cache)
    assert first["installed"]
    assert first["next_u64_before"] == [True]       # compiled as bounded's callee only
    assert first["next_u64_after"] == [False]       # the call from Python compiled the full code
    assert first["bounded"] == full["bounded"] and first["next_u64"] == full["next_u64"]

    second = _run(cache)        # bounded from the cache; next_u64's full code, not the callee's
    assert second["next_u64_before"] == [] and second["hits"] == 1
    assert second["next_u64_after"] == [False]
    assert second["bounded"] == full["bounded"] and second["next_u64"] == full["next_u64"]


# --------------------------------------------------------------- a hook that cannot install
# rng values computed with the hooks in whatever state the prelude leaves them
VALUES = r'''
import json, warnings
import numpy as np
import kernels.build.calleecode as CC
from kernels.core import rng
state = np.zeros(4, np.uint64)
rng.seed_hand(np.uint64(7), np.int64(3), state)
values = [int(rng.bounded(state, 1000)) for _ in range(5)] + [int(rng.next_u64(state))]
print(json.dumps({"installed": CC.installed(), "active": CC.active(), "values": values,
                  "warnings": [str(w.message) for w in caught
                               if issubclass(w.category, CC.CalleeCodeWarning)]}))
'''
PRELUDE_CATCH = "import warnings\ncaught = []\nwarnings.showwarning = lambda m, c, *a, **k: caught.append(warnings.WarningMessage(m, c, '', 0))\nwarnings.simplefilter('always')\n"


def _values(tmp_path, prelude: str, env_extra=None) -> dict:
    cache = tmp_path / f"cache{len(list(tmp_path.iterdir()))}"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("BURRACO_CALLEE_CODE", None)
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-c", PRELUDE_CATCH + prelude + VALUES], env=env,
                          cwd=cache, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def full_values(tmp_path_factory):
    return _values(tmp_path_factory.mktemp("full"), "", {"BURRACO_CALLEE_CODE": "full"})["values"]


@pytest.mark.slow
def test_a_missing_numba_internal_installs_nothing_and_warns(tmp_path, full_values):
    """A Numba release without one of the hooked internals: one warning, Numba's own compile."""
    prelude = ("from numba.core import caching\n"
               "saved = caching.Cache._index_key\n"
               "del caching.Cache._index_key\n"
               "import kernels\n"
               "caching.Cache._index_key = saved\n")
    out = _values(tmp_path, prelude)
    assert not out["installed"] and not out["active"]
    assert len(out["warnings"]) == 1
    assert "has no numba.core.caching.Cache._index_key" in out["warnings"][0]
    assert "numba 0.68" in out["warnings"][0]
    assert out["values"] == full_values


@pytest.mark.slow
def test_a_numba_outside_the_tested_range_installs_nothing_and_warns(tmp_path, full_values):
    out = _values(tmp_path, "import numba\nnumba.__version__ = '0.70.0'\nimport kernels\n")
    assert not out["installed"]
    assert out["warnings"] == ["kernels.build.calleecode: numba 0.70.0 is outside the tested "
                               "range numba>=0.68,<0.69; the callee-code hooks are not installed "
                               "(Numba's own compile, slower the first time)"]
    assert out["values"] == full_values


@pytest.mark.slow
def test_a_raising_hook_falls_back_to_numba_and_warns_once(tmp_path, full_values):
    """A hook's own code raises in the middle of the process: the compile succeeds, the
    callee-only code compiled so far is dropped, the hooks stay off, one warning."""
    prelude = ("import numpy as np\nfrom numba import njit\n"
               "import kernels.build.calleecode as CC\nfrom kernels.core import rng\n"
               "s = np.zeros(4, np.uint64)\nrng.bounded(s, 10)\n"     # next_u64: callee-only
               "class Boom:\n"
               "    def __contains__(self, item):\n"
               "        raise RuntimeError('injected')\n"
               "CC.PYTHON_ENTRIES = Boom()\n"
               "assert njit(lambda x: x + 1)(1) == 2\n"     # compiles through the failing hook
               "assert njit(lambda x: x + 2)(1) == 3\n")    # hooks off: no second warning
    out = _values(tmp_path, prelude)
    assert out["installed"] and not out["active"]
    assert len(out["warnings"]) == 1, out["warnings"]
    assert "the hook of Numba's compile_extra raised RuntimeError: injected" in out["warnings"][0]
    assert out["values"] == full_values


def test_numba_s_own_errors_pass_through_the_hooks():
    """A kernel's typing error is Numba's, not a hook's: raised unchanged, the hooks stay on."""
    import numba
    from numba import njit

    import kernels.build.calleecode as CC

    assert CC.active()

    @njit
    def bad(x):
        return x.no_such_attribute

    with pytest.raises(numba.core.errors.TypingError):
        bad(1)
    assert CC.active()


def test_the_hooks_wrap_numba_s_originals():
    import importlib

    import kernels.build.calleecode as CC

    assert CC.active() and CC.numba_supported() and CC.numba_supported("0.68.9")
    assert not CC.numba_supported("0.69.0") and not CC.numba_supported("0.67.1")
    for module, path in CC.HOOKS:
        obj = importlib.import_module(module)
        for part in path.split("."):
            obj = getattr(obj, part)
        assert callable(getattr(obj, "__wrapped__", None)), f"{module}.{path} is not hooked"


def test_the_tested_numba_range_is_pyproject_s_bound():
    import tomllib

    import kernels.build.calleecode as CC

    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    (a, b), (c, d) = CC.NUMBA_RANGE
    assert f"numba>={a}.{b},<{c}.{d}" in deps
    pins = dict(line.split("==") for line in (REPO / ".ci" / "constraints.txt").read_text()
                .splitlines() if "==" in line)
    assert CC.numba_supported(pins["numba"])
    import llvmlite
    import numba
    assert pins["numba"] == numba.__version__ and pins["llvmlite"] == llvmlite.__version__


def test_every_python_entry_names_a_kernel():
    """The entries kept full are strings: each must resolve to a kernel of this package."""
    import importlib

    import kernels.build.calleecode as CC

    assert CC.PYTHON_ENTRIES
    for name in CC.PYTHON_ENTRIES:
        module, _, function = name.rpartition(".")
        assert module.startswith(CC._PACKAGE), name
        kernel = getattr(importlib.import_module(module), function, None)
        assert kernel is not None, f"{name} does not exist"
        assert f"{kernel.py_func.__module__}.{kernel.py_func.__qualname__}" == name
