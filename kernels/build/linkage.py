"""Opt-in, experimental: internal linkage for the kernel functions linked into
a compiled library, so that LLVM sees the kernels' calls from the inside.

Switch it on with ``BURRACO_KERNEL_LINKAGE=internal`` in the environment
(read once, when :mod:`kernels` is imported).  Off by default.

Numba compiles every jitted function into a library of its own and links its
callees' libraries into the caller's module with ``linkonce_odr`` linkage.
Such a function may be inlined but keeps its signature, so every call that
LLVM does not inline passes each array argument in full: a
:class:`kernels.table.state.State` is 14 arrays, about 120 machine words, handed
over for every decision and legality test.  Within one finished library
nothing outside may call those copies (the library's own functions stay
external, and other libraries link the callee's own library), so they can be
``internal``; LLVM's interprocedural passes then drop the arguments a callee
never reads and promote the rest.

Measured on the 2-core machine (``benchmarks/step_api.py``-style A/B, 100,000
hands, 5 repeats in turn, idle machine): whole hands ×1.27 faster than
without it (35,587 against 28,026 hands/s on 1 thread, 69,017 against 53,886
on 2 threads), records identical; but the cold compile of ``simulate_range``
takes about three times as long (154 s against 52 s), because every level of
the call tree (``choose``, ``play_turn``, ``play_out``, ``play_hand``, the
parallel loop's gufunc and its wrappers) is optimized again with everything
below it inlined.  Hence opt-in: it pays for runs of millions of hands on a
warm cache.

Why every library, not only the ones that run: a variant that internalized
only the entry points' libraries (compiled for a call from Python) compiled
as fast as Numba alone and ran as fast, but crashed (segmentation fault) when
a registered chooser's callback and ``simulate_range`` ran in one process,
for a reason not yet understood.  Mixing the two kinds of library in one
process is the suspect, so this mode also keeps its own Numba cache (see
:func:`cache_dir`): code compiled with the default linkage is never linked
into code compiled with this one.

:func:`install` hooks Numba's ``CPUCodeLibrary._optimize_final_module`` for
functions of this package only (mangled names ``_ZN7kernels``).  Numba has no
public option for it; if a Numba release renames the hook, nothing is
installed and the kernels run as without it.
"""
import os
import warnings
from pathlib import Path

from kernels.build.cachestamp import kernels_digest

_PREFIX = "_ZN7kernels"     # Numba's mangled names of functions defined in kernels/*.py
ENV_SWITCH = "BURRACO_KERNEL_LINKAGE"
_installed = False


def requested() -> bool:
    """Whether the environment asks for internal linkage (``BURRACO_KERNEL_LINKAGE=internal``).

    Any other value than ``internal``, ``numba`` or nothing warns once
    (``RuntimeWarning`` naming the variable and the allowed values) and counts as
    the default.
    """
    value = os.environ.get(ENV_SWITCH, "").strip().lower()
    if value not in ("", "numba", "internal"):
        warnings.warn(f"{ENV_SWITCH}={value!r} ignored: allowed are 'internal' (opt-in: faster "
                      "hands, slower first compile) or 'numba' (the default)", RuntimeWarning,
                      stacklevel=2)
    return value == "internal"


def cache_dir(source_digest: str) -> Path:
    """Numba's cache directory in internal-linkage mode: one per kernels source digest.

    Under ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME`` (default
    ``~/.cache``), in ``burraco-sim/internal-linkage/<digest[:16]>``.  A new
    digest (edited kernels) gets a new directory, so stale machine code is never
    loaded; old directories are left in place (they hold only Numba cache files).
    """
    base = os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or \
        str(Path.home() / ".cache")
    return Path(base) / "burraco-sim" / "internal-linkage" / source_digest[:16]




def install() -> bool:
    """Install the hook once per process if requested; returns whether it is active.

    Mutates Numba's ``CPUCodeLibrary`` class and ``numba.config.CACHE_DIR``
    (process-wide; only this package's functions change linkage).  Must run
    before any ``cache=True`` function is defined (``kernels/__init__.py`` calls it
    first); jitted functions defined earlier keep their cache beside their source.

    Without a writable cache directory nothing is installed (a ``RuntimeWarning``
    says so), rather than mix the two kinds of machine code in Numba's default cache.
    """
    global _installed
    if _installed:
        return True
    if not requested():
        return False
    try:
        import llvmlite.binding as ll
        from numba.core import codegen, config
        optimize = codegen.CPUCodeLibrary._optimize_final_module
        linkonce = ll.Linkage.linkonce_odr
    except (ImportError, AttributeError):
        return False

    def _optimize_final_module(self):
        for fn in self._final_module.functions:
            if (not fn.is_declaration and fn.linkage == linkonce
                    and fn.name.startswith(_PREFIX)):
                fn.linkage = "internal"
        return optimize(self)

    _optimize_final_module.__wrapped__ = optimize
    path = cache_dir(kernels_digest())
    try:
        path.mkdir(parents=True, exist_ok=True)
        config.CACHE_DIR = str(path)
    except OSError as exc:
        warnings.warn(f"{ENV_SWITCH}=internal ignored: no cache directory {path} ({exc})",
                      RuntimeWarning, stacklevel=2)
        return False
    codegen.CPUCodeLibrary._optimize_final_module = _optimize_final_module
    _installed = True
    return True


def installed() -> bool:
    """Whether :func:`install` hooked Numba's code generation in this process."""
    return _installed
