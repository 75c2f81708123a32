"""Snapshots of a directory, and a command run again in a directory it cannot write: the
machinery shared by the tests of refused commands and of complete runs, sweeps and tunings
run again (tests/batch/test_rundir.py, tests/experiments/test_sweep.py,
tests/experiments/test_tune.py).

:func:`everything` and :func:`entries` snapshot a directory (equal before and after a
command: it created, wrote and deleted nothing there); :func:`changed` names what differs.

As root (CI) chmod cannot stop a write; the child then runs without the capabilities that
bypass file permissions (``setpriv``), and :func:`read_only` checks that it really cannot
write before the test relies on it.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def without_write_permission() -> list:
    """The command prefix of a child that cannot write a directory without write
    permission: as root (CI), root without the capabilities that bypass file permissions;
    otherwise nothing (chmod is enough)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: chmod cannot stop root's writes")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def everything(directory: Path) -> dict | None:
    """Every entry below ``directory`` (the lock file and directories included): relative
    path -> its bytes, or "dir"; None if ``directory`` does not exist.  Equal before and
    after a refused command: it created, wrote and deleted nothing (a missing directory
    stays missing)."""
    directory = Path(directory)
    if not directory.exists():
        return None
    return {p.relative_to(directory).as_posix(): (p.read_bytes() if p.is_file() else "dir")
            for p in sorted(directory.rglob("*"))}


def entries(directory: Path) -> dict:
    """Every entry below ``directory`` (the lock file and directories included): relative
    path -> (its bytes, or "dir"; its modification time in ns).  Equal before and after a
    command: the command wrote nothing (not even the same bytes again, nor a temporary file
    it removed)."""
    return {p.relative_to(directory).as_posix(): (p.read_bytes() if p.is_file() else "dir",
                                                  p.stat().st_mtime_ns)
            for p in [directory, *sorted(directory.rglob("*"))]}


def changed(before: dict, after: dict) -> set:
    """The entries that :func:`entries` ``before`` and ``after`` a command differ in (made,
    removed or written): what the command wrote."""
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


@contextlib.contextmanager
def read_only(directory: Path):
    """``directory`` and everything below it without write permission for the block.

    Yields the command prefix (:func:`without_write_permission`) of a child that cannot
    write there, after a child with it has failed to create a file (else the test would
    prove nothing).  Write permission is given back however the block ends."""
    prefix = without_write_permission()
    for p in [directory, *directory.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        probe = subprocess.run([*prefix, sys.executable, "-c",
                                f"open({os.fspath(directory / 'probe')!r}, 'w')"],
                               capture_output=True)
        assert probe.returncode != 0, "the child could write: the test would prove nothing"
        yield prefix
    finally:
        for p in [directory, *directory.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)


def burraco(prefix: list, *args: str) -> subprocess.CompletedProcess:
    """``python -m sim ARGS`` of this checkout in a child started with ``prefix``."""
    return subprocess.run([*prefix, sys.executable, "-m", "sim", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
