"""Other engines' bots, rewritten as Numba choosers: one module per engine
(:mod:`.goodwin`, :mod:`.babbo_coded`, :mod:`.blofroth`, :mod:`.masu`,
:mod:`.guglio`, :mod:`.legends_medium`, :mod:`.valmir`, :mod:`.raphael_bot`,
:mod:`.thilanguis_bot`) and what they share (:mod:`.common`).

They plug into the turn loop through the chooser API, so nothing below
imports them.  Imports :mod:`kernels.strategies` and below, never
:mod:`kernels.play` or :mod:`kernels.search`.
"""
