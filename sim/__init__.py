"""burraco-sim: the Python driver of the Burraco simulator.

Public API
----------
Rules
    Rule-set options and presets (:mod:`sim.rules`, RULES.md section 14).
simulate
    Run hands in shards, optionally to Parquet (:mod:`sim.runner`).
summarize, Summary, MatchSummary
    The figures of a hand run or a match run, as ``burraco simulate`` and
    ``burraco summarize`` print them (:mod:`sim.summary`).
simulate_matches, load_matches
    Play whole matches to their end (R60) in shards; read a match run's
    match table back (:mod:`sim.runner`, :mod:`sim.match`, :mod:`sim.runs`).
deal, Deal
    Deal one hand from (seed, index) (:mod:`sim.deal`).
deals
    The deal features of many hands as a table (wilds, jokers, twos, pairs and
    runs per hand, the pozzetti, the up-card), to select hands with
    ``simulate(hand_index=...)`` or ``where=`` (:mod:`sim.deal_features`,
    docs/deals.md).
replay
    One hand with every action, as a replay document (:mod:`sim.trace`).
compare
    Paired comparison of two strategies on the same deals, seats swapped
    (:mod:`sim.comparison`).
load, check_run, repair_run
    Read a run directory back (the one reader: checked against the manifest),
    check it, rebuild a damaged manifest from its shards (:mod:`sim.runs`;
    the layout is in :mod:`sim.rundir`).
sweep
    A grid of one or two strategy parameters, each point compared with a
    reference on the same deals (:mod:`sim.sweeps`).
tune
    CMA-ES over the parameters of a ``heuristic``-family strategy, its answer
    validated on unseen deals (:mod:`sim.tuning`, docs/tune.md).
notation, melds, scoring, strategies
    Card text <-> ids, meld validity and lay-off, hand scoring, strategy
    registry.
analyze, analyze_decision
    Evaluate the candidate actions of a position, or of a decision of a simulated
    hand, by rollouts on sampled worlds, with paired intervals; the hand or the
    match as objective (:mod:`sim.analysis`, :mod:`sim.analysis_game`,
    docs/analyze.md).
Game, pystrategy
    A hand decision by decision (:mod:`sim.game`, docs/step_api.md);
    strategies written in Python, any object with ``choose(observation,
    legal_actions)`` (docs/strategies.md).

``import sim`` compiles nothing; :func:`simulate`, :mod:`sim.melds`,
:mod:`sim.scoring` and the other heavier modules are imported on first use.
"""
from __future__ import annotations

import importlib

from . import notation, peers, strategies
from ._version import __version__
from .deal import Deal, deal
from .rules import Rules

_LAZY_MODULES = ("melds", "scoring", "runner", "summary", "executors", "dataset", "cli",
                 "trace", "position", "comparison", "sweeps", "runs", "match", "rundir", "lock",
                 "game", "positions", "pystrategy", "analysis", "analysis_game", "deal_features",
                 "viewer", "tuning", "questions", "figures")
_LAZY_ATTRS = {"simulate": "runner", "summarize": "summary", "Summary": "summary",
               "simulate_matches": "runner", "MatchSummary": "summary",
               "load_matches": "runs",
               "replay": "trace", "compare": "comparison",
               "compare_hands": "comparison", "sweep": "sweeps", "tune": "tuning",
               "load": "runs",
               "check_run": "runs", "repair_run": "runs", "Game": "game",
               "analyze": "analysis", "analyze_decision": "analysis_game",
               "deals": "deal_features"}

__all__ = ["Rules", "Game", "simulate", "summarize", "Summary", "deal", "Deal", "deals",
           "replay", "compare", "compare_hands", "sweep", "tune", "analyze", "analyze_decision",
           "load",
           "check_run",
           "repair_run",
           "simulate_matches", "MatchSummary", "load_matches",
           "notation", "melds", "scoring", "strategies", "__version__"]


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_ATTRS:
        value = getattr(importlib.import_module(f".{_LAZY_ATTRS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_LAZY_MODULES))
