"""Analyses of positions and decisions by rollouts on sampled worlds, with paired
intervals: a position (:mod:`sim.analysis.evaluate`), a decision of a simulated hand
(:mod:`sim.analysis.decision`), every decision of a hand
(:mod:`sim.analysis.review`), the sequential rule and the variance reductions
(:mod:`sim.analysis.rollout_stats`).  Imports only :mod:`sim.experiments` and the
layers below it.
"""
from sim.analysis.evaluate import (ANALYSIS_COLUMNS, P_BEST_DRAWS, analyze, format_table,
                                   rollout_matrix, summarize_rollouts, timing_text, to_document)

__all__ = ["ANALYSIS_COLUMNS", "P_BEST_DRAWS", "analyze", "format_table", "rollout_matrix",
           "summarize_rollouts", "timing_text", "to_document"]
