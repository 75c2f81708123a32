"""Other engines' bots, rewritten as Numba choosers (:mod:`.bots`,
:mod:`.bots_more`).

They plug into the turn loop through the chooser API, so nothing below
imports them.  Imports :mod:`kernels.strategies` and below, never
:mod:`kernels.play` or :mod:`kernels.search`.
"""
