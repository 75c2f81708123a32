"""Say on stderr when a kernel is compiled, before the wait, and how long it took.

Numba compiles a kernel at its first use and keeps the machine code in its
on-disk cache (:mod:`kernels.build.cachestamp` keeps that cache fresh); later
processes load it in about a second.  A first use can take from a few seconds
(a peer bot) to more than a minute (the search player ``rollout``), so every
place that may compile wraps the call in :func:`announce`: the line
``compiling <what> (first use only; cached for later runs)...`` is printed
before the wait and ends with ``done in <s> s``, the time of the wait itself.

Whether a kernel is in the cache is told by
:func:`kernels.build.cachestamp.cached` (the cache's index files in the
directory Numba uses for the kernel's layer); it is a hint: if it cannot be
told, the announcement says "compiling or loading".
"""
from __future__ import annotations

import contextlib
import sys
import time

#: False silences every announcement of this process (the CLI's ``--quiet``)
ENABLED = True

_open: list = []                # the announcements whose line is not ended yet


def on_disk(*functions) -> bool | None:
    """Whether Numba's cache holds every one of ``functions`` (kernels of :mod:`kernels`).

    :func:`kernels.build.cachestamp.cached` (see there for ``functions`` and the
    answer: True, False, or None if it cannot be told), None as well if the
    kernels cannot be imported.
    """
    try:
        from kernels.build import cachestamp
        return cachestamp.cached(*functions)
    except Exception:                    # noqa: BLE001  a hint only
        return None


def cold(*functions) -> bool | None:
    """``not on_disk(*functions)``, None kept: True if one will be compiled."""
    cached = on_disk(*functions)
    return None if cached is None else not cached


@contextlib.contextmanager
def announce(what: str, cold: bool | None = True, enabled: bool = True, prefix: str = "",
             note: str = "first use only; cached for later runs"):
    """``with announce("the search player rollout", cold(...)):`` around a compile.

    Parameters
    ----------
    what : str
        What is compiled, as the line should name it.
    cold : bool or None
        True: compiling (the cache lacks it); None: compiling or loading;
        False: nothing is said (loading from the cache is quick).
    enabled : bool
        False says nothing (a caller's ``progress=False``); so does
        :data:`ENABLED` set to False.
    prefix : str
        Put before the line (``"analyze: "``).
    note : str
        Said in brackets after ``what``: when the compile happens.

    Writes ``<prefix>compiling <what> (<note>)... done in <s> s`` on stderr, the first part before the body runs;
    if the body raises, the line ends with ``failed``.  Inside another
    announcement nothing more is said (its line is still open).
    """
    if cold is False or not (enabled and ENABLED) or _open:
        yield                   # nothing to say, or an outer announcement covers the wait
        return
    verb = "compiling" if cold else "compiling or loading"
    print(f"{prefix}{verb} {what} ({note})...", end=" ",
          file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    _open.append(what)
    try:
        yield
    except BaseException:
        print("failed", file=sys.stderr, flush=True)
        raise
    finally:
        _open.pop()
    print(f"done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
