"""Experiments over many deals: paired comparisons of two strategies
(:mod:`sim.experiments.comparison`), parameter sweeps (:mod:`sim.experiments.sweeps`),
CMA-ES tuning (:mod:`sim.experiments.tuning`) and decks played by chosen
strategies (:mod:`sim.experiments.decks`).  Imports only :mod:`sim.batch` and the
layers below it.
"""
