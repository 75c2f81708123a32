"""Who chooses the move: the chooser interface and the built-in strategies.

The chooser API a registered strategy's callback implements (:mod:`.api`) and
the built-in ``heuristic``, ``random`` and ``uniform`` choosers
(:mod:`.policies`).

Imports :mod:`kernels.engine` and below.
"""
