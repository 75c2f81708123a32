"""Whole hands: the turn loop and the parallel batch loops (:mod:`.game`).

Imports :mod:`kernels.strategies` and below.
"""
