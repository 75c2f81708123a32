"""The rules of play: legal moves and actions.

Legality of each move (:mod:`.legal`), the action ids and applying them
(:mod:`.actions`), and the observation of a seat (:mod:`.observe`).

Imports :mod:`kernels.table` and below.
"""
