"""Rollouts on sampled worlds and the search player built on them.

One rollout step (:mod:`.rollout_steps`), batches of rollouts for position
analysis (:mod:`.rollouts`) and for match objectives (:mod:`.match_rollouts`),
and the flat Monte Carlo search player ``rollout`` (:mod:`.player`).

Imports :mod:`kernels.play` and below.
"""
