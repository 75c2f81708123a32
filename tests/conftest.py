"""The suite's layout: one folder per layer of the code (kernels, rules, strategies, play,
batch, experiments, analysis, envs, cli, referee, infra; docs/testing.md).

The shared helpers are imported the same way from every folder, by their module names:
``_casetools`` and ``_readonly`` (this directory) and ``referee`` / ``referee_cli`` (the
independent referee, ``tests/referee/``).  Both directories go on ``sys.path`` here, before
any test module is imported, so a single test file run alone finds them too.  The folders
have no ``__init__.py``: a test module is imported by its file name, which is unique in the
suite, and ``--dist loadfile`` keeps each file's tests in one worker.
"""
from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

for _path in (TESTS / "referee", TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
