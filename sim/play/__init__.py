"""A hand decision by decision: :class:`sim.play.game.Game` (the step API),
its actions in words and observations, position files, replay documents and
the HTML hand viewer.  Imports only :mod:`sim.strategies` and the layers
below it.
"""
