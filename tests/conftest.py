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

import signal
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

for _path in (TESTS / "referee", TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

# The tests that press Ctrl-C on a child process (SIGINT) need the child to take it as a
# KeyboardInterrupt.  A shell that starts the suite in the background (`.ci/run &`, nohup)
# leaves SIGINT ignored, an ignored signal stays ignored across exec, and Python then
# installs no handler in the child; a handler here is reset to the default in every child.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_sessionstart(session):
    """Before the worker processes start, compile every cold kernel once, in as many
    processes as there are workers (``sim.cli.compile.compile_all``, what ``burraco compile``
    does): each worker would otherwise compile every kernel itself, which is most of a fresh
    clone's test time.  Nothing is done in a worker, with fewer than two workers, or when
    every kernel is cached."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    workers = getattr(config.option, "numprocesses", None)
    if not isinstance(workers, int) or workers < 2:
        return
    from sim.cli.compile import compile_all, cold_units
    if not cold_units():
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")

    class _Lines:
        def write(self, text):
            if reporter is not None and text.strip():
                reporter.write_line(text.rstrip("\n"))

        def flush(self):
            pass

    compile_all(jobs=workers, out=_Lines())
