"""kernels.build.calleecode: callee-only code is linked, never called from Python."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    env.pop("BURRACO_KERNEL_LINKAGE", None)
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
