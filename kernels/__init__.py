"""Numba kernels of burraco-sim.

Only numpy and numba are imported here, never :mod:`sim`.  Every kernel works
on int-encoded cards (``id = 54*copy + face``, ``face = 13*suit + rank``,
faces 52 and 53 are jokers, ``-1`` is "no card"); see :mod:`kernels.core.cards`.

Speed conventions:

* Functions on the hot path are compiled with ``_nrt=False``: no reference
  counting of the arrays they receive, so they must never allocate or return
  an array.  The few that do (``new_state``, ``state_views``, ``play_hand``,
  the batch loops, the debug checks) keep Numba's runtime.
* A hand's arrays are borrowed views of one work buffer
  (:func:`kernels.table.state.state_views`), allocated once per parallel chunk.
* First compile: a kernel compiled only as another kernel's callee
  gets cheap code of its own (no module-level optimization, lowest code
  generation level) since only its caller's code, which links and optimizes
  it, runs; a call from Python compiles the full code first
  (:mod:`kernels.build.calleecode`; ``BURRACO_CALLEE_CODE=full`` switches it off).
"""


from kernels.build import calleecode as _calleecode  # before any kernel is defined
from kernels.build import cachestamp as _cachestamp

_calleecode.install()

# Numba checks a cached function against its own file only: empty every cache
# directory of the kernels whose stamp is not the digest of the sources imported.
_cachestamp.drop_stale()
