"""Ctrl-C and SIGTERM raised while a compiled kernel called back into Python.

Python runs a signal handler between bytecodes of the main thread, so a SIGINT or a
SIGTERM (``sim.cli.common.Terminated``, a ``KeyboardInterrupt``) can raise while Numba's
compiled code is inside one of its own Python callbacks; the kernel then fails with a
``SystemError`` ("returned a result with an exception set") whose cause chain holds the
interruption.  :func:`unwrapped` turns such an error back into the interruption, so it
is handled as one (completed shards kept, exit 130 or 143, no traceback).
"""
from __future__ import annotations

from contextlib import contextmanager


def wrapped_interrupt(exc: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` in the cause (or context) chain of ``exc``, or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ if exc.__cause__ is not None else exc.__context__
    return None


@contextmanager
def unwrapped():
    """Re-raise a ``SystemError`` that wraps a ``KeyboardInterrupt`` as that interruption
    (any other exception passes unchanged)."""
    try:
        yield
    except SystemError as exc:
        ki = wrapped_interrupt(exc)
        if ki is None:
            raise
        raise ki from None
