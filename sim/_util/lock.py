"""One writer per output directory: an OS-level lock that dies with its process.

``burraco simulate``, match runs and ``burraco sweep --out`` take
:class:`DirectoryLock` on their output directory before they look at, delete or
write anything in it.  The lock is ``fcntl.flock`` on the file
``DIR/.burraco.lock``: the kernel releases it when the holding process ends in
any way (normal exit, Ctrl-C, SIGTERM, ``kill -9``, a crash), so a killed run
never leaves a stale lock that blocks its resume.  The file stays after a
writer (an empty lock file is harmless); it holds the holder's pid, host, start
time and command line, which is what a refused second writer is told.

A refused command leaves its directory as it found it: :func:`claim` checks
the directory before it creates anything, and when a check made under the lock
still refuses, it removes the lock file and the directories it created.  A lock
file is only removed by its holder, and :meth:`DirectoryLock.acquire` checks
after taking the lock that the file it locked is still the one at the path, so
removing it never lets two writers in.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import socket
import sys
import time
from pathlib import Path
from sim._util.text import not_a_directory

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
        #: Whether :meth:`acquire` created the lock file (None: not taken, or taken to read).
        self.created: bool | None = None

    @property
    def path(self) -> Path:
        """The lock file."""
        return self.directory / LOCK_NAME

    def acquire(self) -> "DirectoryLock":
        """Take the lock, or raise :class:`LockedError` at once if another process has it."""
        if fcntl is None or self._fd is not None:
            return self
        for _ in range(self.TRIES):
            fd, created = self._open()
            try:
                if self._flock(fd) and self._current(fd):
                    break
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)                # refused, or a file its holder removed: again
            if not self._locked_by_other():
                continue
            raise LockedError(
                f"{self.what}: {os.fspath(self.directory)!r} is being written by "
                f"{describe(_read_info(self.path))}; wait for it to finish or stop it, "
                "or use another directory")
        else:                           # pragma: no cover - a lock file removed 20 times
            raise LockedError(f"{self.what}: {os.fspath(self.directory)!r}: the lock could "
                              "not be taken; run the command again")
        try:
            info = {"pid": os.getpid(), "host": socket.gethostname(),
                    "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                    "command": " ".join([os.path.basename(sys.argv[0] or "python")]
                                        + sys.argv[1:])[:300]}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except BaseException:
            if created:
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
            os.close(fd)
            raise
        self._fd, self.created = fd, created
        return self

    def acquire_to_read(self) -> "DirectoryLock":
        """Take the lock without writing anything: a command that expects to write nothing
        (a complete run, sweep or tuning run again), also in a directory it may not write.

        Locks the lock file opened read-only (``flock`` needs no write access) and writes
        no holder information; when there is no lock file, nothing can be locked and
        nothing is.

        Raises
        ------
        LockedError
            Another process holds the lock.
        """
        if fcntl is None or self._fd is not None:
            return self
        for _ in range(self.TRIES):
            try:
                fd = os.open(self.path, os.O_RDONLY)
            except FileNotFoundError:
                return self
            if self._flock(fd) and self._current(fd):
                self._fd, self.created = fd, None
                return self
            os.close(fd)
            if self._locked_by_other():
                raise LockedError(
                    f"{self.what}: {os.fspath(self.directory)!r} is being written by "
                    f"{describe(_read_info(self.path))}; wait for it to finish or stop it, "
                    "or use another directory")
        return self                     # pragma: no cover - a lock file removed 20 times

    def _open(self) -> tuple:
        """The lock file's descriptor, and whether this call created the file."""
        with contextlib.suppress(FileExistsError):      # there: open it below
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644), True
        try:
            return os.open(self.path, os.O_RDWR), False
        except FileNotFoundError:       # removed in between by its holder: create it
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644), True

    def _flock(self, fd: int) -> bool:
        """Lock ``fd`` within :attr:`TRIES` x :attr:`PAUSE` s; False if another holds it."""
        for _ in range(self.TRIES):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                time.sleep(self.PAUSE)
        return False

    def _current(self, fd: int) -> bool:
        """The locked file is still the lock file at the path (not one its holder removed)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)

    def _locked_by_other(self) -> bool:
        """Another process holds the lock of the file at the path now."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    def release(self, remove: bool = False) -> None:
        """Give the lock up; closing the descriptor releases the flock.

        Parameters
        ----------
        remove : bool
            Remove the lock file (while still holding it; a writer waiting for it then
            finds it gone and locks a new one); else it stays, empty.
        """
        if self._fd is not None:
            if remove:
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
            elif self.created is not None:          # a read-only lock writes nothing
                with contextlib.suppress(OSError):  # clearing the holder's name: a courtesy
                    os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "DirectoryLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


class Claim:
    """A writer's hold on its output directory, as :func:`claim` gives it.

    Until :meth:`keep` is called the command has changed nothing, and leaving the
    ``with`` block by an exception (a refusal) takes back what :func:`claim` made: the
    lock file it created and the directories it created, so the directory is as it was.

    Attributes
    ----------
    lock : DirectoryLock
    made : list of pathlib.Path
        The directories :func:`claim` created, the outermost first.
    kept : bool
        :meth:`keep` was called: the command writes, and what it wrote stays.
    """

    def __init__(self, lock: DirectoryLock, made: list) -> None:
        self.lock, self.made, self.kept = lock, made, False

    def keep(self) -> None:
        """Every check passed: the command writes from now on, and keeps what it made."""
        self.kept = True

    def undo(self) -> None:
        """Remove the lock file this claim created and the directories it made (if empty)."""
        self.lock.release(remove=bool(self.lock.created))
        for d in reversed(self.made):
            with contextlib.suppress(OSError):
                d.rmdir()


def _errno_readonly(exc: OSError) -> bool:
    return exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)


@contextlib.contextmanager
def claim(out: str | os.PathLike, check, os_error, what: str = "out"):
    """Check, create and lock the output directory ``out`` for the ``with`` block.

    The protocol of every command that writes an output directory (``burraco simulate``,
    match runs, ``sweep``, ``tune`` and the ``--repair`` of ``summarize``), so that a
    refused command leaves the directory exactly as it was (no lock file, no directory,
    no manifest):

    1. ``out`` may not be a file (``ValueError``).  When it exists, nobody may hold its
       lock (:class:`LockedError`), and ``check(out)`` must pass: the command's own checks,
       which only read and raise ``ValueError`` to refuse.  Nothing is created before.
    2. The missing directories up to ``out`` are made and ``out`` is locked.
    3. The block runs: it checks again under the lock, calls :meth:`Claim.keep`, then
       writes.  An exception before :meth:`Claim.keep` removes the lock file and the
       directories step 2 created; the lock is released however the block ends.

    Parameters
    ----------
    out : str or os.PathLike
    check : callable
        ``check(out)`` for an existing ``out``, before anything is created.  It returns
        True when the command expects to write nothing (a complete run, sweep or tuning run
        again): then an existing lock file is locked without writing it
        (:meth:`DirectoryLock.acquire_to_read`: the directory is left untouched, and a
        second writer is told "another process" holds it, without a pid), and where none
        can be created (a read-only directory) nothing is locked.
    os_error : callable
        ``os_error(path, exc)`` turns an ``OSError`` of steps 1-2 into the exception raised.
    what : str
        Prefix of the messages (the CLI option).

    Yields
    ------
    Claim
    """
    out = Path(out)
    where = os.fspath(out)
    if out.exists() and not out.is_dir():
        raise ValueError(not_a_directory(what, out))
    made = []
    lock = DirectoryLock(out, what)
    read_only = False
    try:
        if out.is_dir():
            info = holder(out)
            if info is not None:
                raise LockedError(f"{what}: {where!r} is being written by {describe(info)}; "
                                  "wait for it to finish or stop it, or use another directory")
            read_only = bool(check(out))
        else:
            missing, p = [], out
            while not p.exists():
                missing.append(p)
                p = p.parent
            for d in reversed(missing):
                d.mkdir()
                made.append(d)
        if read_only and lock.path.is_file():
            lock.acquire_to_read()      # the lock file keeps its bytes and its time
        else:
            try:
                lock.acquire()
            except OSError as exc:
                if not (read_only and _errno_readonly(exc)):
                    raise
                lock.acquire_to_read()
    except OSError as exc:
        for d in reversed(made):
            with contextlib.suppress(OSError):
                d.rmdir()
        raise os_error(exc.filename or out, exc) from None
    except BaseException:
        for d in reversed(made):
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    hold = Claim(lock, made)
    try:
        yield hold
    except BaseException:
        if not hold.kept:
            hold.undo()
        raise
    finally:
        lock.release()
