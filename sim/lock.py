"""One writer per output directory: an OS-level lock that dies with its process.

``burraco simulate``, match runs and ``burraco sweep --out`` take
:class:`DirectoryLock` on their output directory before they look at, delete or
write anything in it.  The lock is ``fcntl.flock`` on the file
``DIR/.burraco.lock``: the kernel releases it when the holding process ends in
any way (normal exit, Ctrl-C, SIGTERM, ``kill -9``, a crash), so a killed run
never leaves a stale lock that blocks its resume.  The file itself stays (an
empty lock file is harmless, and deleting it would race with a new writer); it
holds the holder's pid, host, start time and command line, which is what a
refused second writer is told.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import socket
import sys
import time
from pathlib import Path

try:                                    # POSIX; on other systems the lock is a no-op
    import fcntl
except ImportError:                     # pragma: no cover - Windows
    fcntl = None

#: Name of the lock file inside a locked directory (hidden: no reader takes it for data).
LOCK_NAME = ".burraco.lock"


class LockedError(ValueError):
    """Another process is writing the directory.

    A ``ValueError``, so the CLI reports it in one line with exit code 2.
    """


def holder(directory: str | os.PathLike) -> dict | None:
    """Who holds the lock of ``directory`` now, or None if nobody does.

    Returns
    -------
    dict or None
        ``pid``, ``host``, ``started`` (ISO time, UTC) and ``command`` of the
        writing process, as it wrote them into the lock file ({} if it has not
        written them yet); None if the directory is not locked.  Reading never
        blocks and never takes the lock from a writer.
    """
    path = Path(directory) / LOCK_NAME
    if fcntl is None or not path.is_file():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_info(path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read_info(path: Path) -> dict:
    try:
        info = json.loads(path.read_text() or "{}")
        return info if isinstance(info, dict) else {}
    except (OSError, ValueError):
        return {}


def describe(info: dict | None) -> str:
    """The holder of a lock in words: ``pid 1234 on host, since 2026-12-01T09:00:00+00:00
    (burraco simulate ...)``."""
    if not info:
        return "another process"
    text = f"pid {info.get('pid', '?')}"
    if info.get("host") and info.get("host") != socket.gethostname():
        text += f" on {info['host']}"
    if info.get("started"):
        text += f", since {info['started']}"
    if info.get("command"):
        text += f" ({info['command']})"
    return text


class DirectoryLock:
    """Exclusive writer's lock on a directory (a context manager).

    Parameters
    ----------
    directory : str or os.PathLike
        The directory to lock; it must exist.
    what : str
        Prefix of the refusal message (the CLI option, e.g. ``"out"``).

    Raises
    ------
    LockedError
        On :meth:`acquire` / ``__enter__``: another process holds the lock
        (the message names the directory and that process).
    OSError
        The lock file cannot be created (no permission, full disk).

    Notes
    -----
    A lock taken by this process is not re-entrant: a second
    :class:`DirectoryLock` on the same directory in the same process is
    refused as well, as a second writer must be.
    """

    #: tries before refusing (a reader's momentary shared lock in :func:`holder` must not
    #: refuse a writer: 0.5 s in all), and the pause between them (s)
    TRIES, PAUSE = 20, 0.025

    def __init__(self, directory: str | os.PathLike, what: str = "out") -> None:
        self.directory = Path(directory)
        self.what = what
        self._fd: int | None = None

    @property
    def path(self) -> Path:
        """The lock file."""
        return self.directory / LOCK_NAME

    def acquire(self) -> "DirectoryLock":
        """Take the lock, or raise :class:`LockedError` at once if another process has it."""
        if fcntl is None or self._fd is not None:
            return self
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            for _ in range(self.TRIES):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(self.PAUSE)
            else:
                raise LockedError(
                    f"{self.what}: {os.fspath(self.directory)!r} is being written by "
                    f"{describe(_read_info(self.path))}; wait for it to finish or stop it, "
                    "or use another directory")
            info = {"pid": os.getpid(), "host": socket.gethostname(),
                    "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                    "command": " ".join([os.path.basename(sys.argv[0] or "python")]
                                        + sys.argv[1:])[:300]}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def release(self) -> None:
        """Give the lock up (the file stays; closing the descriptor releases the flock)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):   # clearing the holder's name is a courtesy
                os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "DirectoryLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


@contextlib.contextmanager
def locked_out_dir(out: Path, refuse_foreign, os_error):
    """Hold the writer's lock of the output directory ``out`` for the ``with`` block.

    ``out`` may not be a file (``ValueError``); an existing directory is first handed to
    ``refuse_foreign(out)``, which raises ``ValueError`` when it holds files of another kind
    (before the lock, so no lock file is left in a foreign directory); then ``out`` is made and
    locked (:class:`DirectoryLock`; :class:`LockedError` when another process writes it).  An
    ``OSError`` meanwhile is raised as ``os_error(out, exc)``.  The lock is released when the
    block ends, however it ends.  Used by ``burraco sweep --out`` and ``burraco tune --out``.
    """
    if out.exists() and not out.is_dir():
        from ._text import not_a_directory
        raise ValueError(not_a_directory("out", out))
    lock = DirectoryLock(out, "out")
    try:
        if out.is_dir():
            refuse_foreign(out)
        out.mkdir(parents=True, exist_ok=True)
        lock.acquire()                  # before anything in ``out`` is looked at or changed
    except OSError as exc:
        raise os_error(out, exc) from None
    try:
        yield
    finally:
        lock.release()
