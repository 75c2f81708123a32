"""sim.lock: one writer per output directory, a lock that dies with its process."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim._util.lock import LOCK_NAME, DirectoryLock, LockedError, holder

ROOT = Path(__file__).resolve().parents[2]

HOLD = """\
import sys
from sim._util.lock import DirectoryLock
with DirectoryLock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()                   # until the test closes stdin (or kills us)
print("released", flush=True)
"""


@pytest.fixture
def child(tmp_path):
    """A process holding the lock of tmp_path / "d"."""
    d = tmp_path / "d"
    d.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(d)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "locked\n"
    yield d, proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_a_second_holder_is_refused_naming_the_directory_and_the_holder(child):
    d, proc = child
    info = holder(d)
    assert info["pid"] == proc.pid and "started" in info
    t0 = time.monotonic()
    with pytest.raises(LockedError) as exc:
        DirectoryLock(d, what="out").acquire()
    assert time.monotonic() - t0 < 5                      # refused, not waited for
    msg = str(exc.value)
    assert isinstance(exc.value, ValueError) and "\n" not in msg
    assert msg.startswith(f"out: {str(d)!r} is being written by pid {proc.pid}")
    assert holder(d)["pid"] == proc.pid                   # asking took nothing from the holder
    proc.stdin.close()
    assert proc.stdout.readline() == "released\n"
    assert holder(d) is None
    with DirectoryLock(d) as lock:
        assert holder(d)["pid"] == os.getpid() and lock.path == d / LOCK_NAME
    assert holder(d) is None and (d / LOCK_NAME).is_file()  # the file stays, empty
    assert (d / LOCK_NAME).read_text() == ""


def test_a_holder_killed_with_sigkill_leaves_no_lock(child):
    d, proc = child
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert str(proc.pid) in (d / LOCK_NAME).read_text()   # its note stays behind ...
    assert holder(d) is None                              # ... but not its lock
    with DirectoryLock(d):
        assert holder(d)["pid"] == os.getpid()


def test_the_lock_is_not_reentrant_in_one_process(tmp_path):
    assert holder(tmp_path) is None                       # no lock file: nobody
    with DirectoryLock(tmp_path, what="out"):
        with pytest.raises(LockedError, match=f"pid {os.getpid()}"):
            DirectoryLock(tmp_path).acquire()
    with DirectoryLock(tmp_path):                         # released by the with block
        pass
