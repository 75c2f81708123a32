"""Numba kernels of burraco-sim.

Only numpy and numba are imported here, never :mod:`sim`.  Every kernel works
on int-encoded cards (``id = 54*copy + face``, ``face = 13*suit + rank``,
faces 52 and 53 are jokers, ``-1`` is "no card"); see :mod:`kernels.cards`.
"""
