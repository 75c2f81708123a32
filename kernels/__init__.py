"""Numba kernels of burraco-sim.

Only numpy and numba are imported here, never :mod:`sim`.  Every kernel works
on int-encoded cards (``id = 54*copy + face``, ``face = 13*suit + rank``,
faces 52 and 53 are jokers, ``-1`` is "no card"); see :mod:`kernels.cards`.

Speed conventions (issue 4):

* Functions on the hot path are compiled with ``_nrt=False``: no reference
  counting of the arrays they receive, so they must never allocate or return
  an array.  The few that do (``new_state``, ``state_views``, ``play_hand``,
  the batch loops, the debug checks) keep Numba's runtime.
* A hand's arrays are borrowed views of one work buffer
  (:func:`kernels.state.state_views`), allocated once per parallel chunk.
* First compile (issue 16): a kernel compiled only as another kernel's callee
  gets cheap code of its own (no module-level optimization, lowest code
  generation level) since only its caller's code, which links and optimizes
  it, runs; a call from Python compiles the full code first
  (:mod:`kernels.calleecode`; ``BURRACO_CALLEE_CODE=full`` switches it off).
* Opt-in (``BURRACO_KERNEL_LINKAGE=internal``): kernel functions linked into
  a library get internal linkage (:mod:`kernels.linkage`), so LLVM drops the
  array arguments a callee never reads; faster hands, slower first compile.
"""


def _drop_stale_cache() -> None:
    """Delete Numba's cached machine code when any kernel source changed.

    Numba checks a cached function against its own file only, so after an edit
    of a callee's module (say ``melds.py``) a cached caller (``game.py``) would
    keep running the old callee.  The kernels therefore share one cache that is
    emptied whenever the digest of all ``kernels/*.py`` files changes.
    """
    import contextlib
    import os
    from pathlib import Path

    here = Path(__file__).resolve().parent
    stamp_text = _linkage.kernels_digest()
    cache = here / "__pycache__"
    stamp = cache / "kernels-source.sha256"
    with contextlib.suppress(OSError):
        if stamp.read_text() == stamp_text:
            return
    with contextlib.suppress(OSError):   # read-only install: Numba falls back to its own cache dir
        cache.mkdir(exist_ok=True)
        for f in cache.iterdir():
            if f.suffix in (".nbi", ".nbc"):
                f.unlink()
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(stamp_text)
        os.replace(tmp, stamp)


from . import linkage as _linkage  # noqa: E402  (before any kernel is defined)

_linkage.install()
if not _linkage.installed():
    from . import calleecode as _calleecode
    _calleecode.install()
_drop_stale_cache()
