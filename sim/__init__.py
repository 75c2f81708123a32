"""burraco-sim: the Python driver of the Burraco simulator.

Public API
----------
Rules
    Rule-set options and presets (:mod:`sim.core.rules`, docs/rule_sets.md).
simulate
    Run hands in shards, optionally to Parquet (:mod:`sim.batch.runner`).
summarize, Summary, MatchSummary
    The figures of a hand run or a match run, as ``burraco simulate`` and
    ``burraco summarize`` print them (:mod:`sim.batch.summary`).
simulate_matches, load_matches
    Play whole matches to their end (R60) in shards; read a match run's
    match table back (:mod:`sim.batch.runner`, :mod:`sim.core.match`, :mod:`sim.batch`).
deal, Deal
    Deal one hand from (seed, index) (:mod:`sim.core.deal`).
deals
    The deal features of many hands as a table (wilds, jokers, twos, pairs and
    runs per hand, the pozzetti, the up-card), to select hands with
    ``simulate(hand_index=...)`` or ``where=`` (:mod:`sim.experiments.decks`,
    docs/deals.md).
replay
    One hand with every action, as a replay document (:mod:`sim.batch.replay`).
compare
    Paired comparison of two strategies on the same deals, seats swapped
    (:mod:`sim.experiments.comparison`).
load, check_run, repair_run
    Read a run directory back (the one reader: checked against the manifest),
    check it, rebuild a damaged manifest from its shards (:mod:`sim.batch`;
    the layout is in :mod:`sim.batch.rundir`).
sweep
    A grid of one or two strategy parameters, each point compared with a
    reference on the same deals (:mod:`sim.experiments.sweeps`).
tune
    CMA-ES over the parameters of a ``heuristic``-family strategy, its answer
    validated on unseen deals (:mod:`sim.experiments.tuning`, docs/tune.md).
notation, melds, scoring, strategies
    Card text <-> ids, meld validity and lay-off, hand scoring, strategy
    registry.
analyze, analyze_decision
    Evaluate the candidate actions of a position, or of a decision of a simulated
    hand, by rollouts on sampled worlds, with paired intervals; the hand or the
    match as objective (:mod:`sim.analysis`, :mod:`sim.analysis.decision`,
    docs/analyze.md).
review
    Review a whole hand: every pickup and discard (and on request meld-phase)
    decision of the chosen seats rated against the best action by rollouts, the
    loss with its 95% interval, doubtful and blunder marks, summaries per seat and
    team (:mod:`sim.analysis.review`, docs/review.md).
review_run
    Strength by error rate: review many hands of one strategy as a resumable run
    directory, its mean loss per hand and per decision with 95% intervals
    (:mod:`sim.analysis.review_run`, docs/review.md).
Game, pystrategy
    A hand decision by decision (:mod:`sim.play.game`, docs/step_api.md);
    strategies written in Python, any object with ``choose(observation,
    legal_actions)`` (docs/strategies.md).

``import sim`` compiles nothing; :func:`simulate`, :mod:`sim.table.melds`,
:mod:`sim.table.scoring` and the other heavier modules are imported on first use.
"""
from __future__ import annotations

import importlib

from sim._version import __version__

#: the old module names of the facade (``sim.melds``, ``from sim import positions`` ...) -> the
#: module of the layered packages they name; imported on first use
_LAZY_MODULES = {
    "notation": "sim.core.notation", "rules": "sim.core.rules", "deal_features": "sim.experiments.decks",
    "dataset": "sim.core.dataset", "match": "sim.core.match",
    "melds": "sim.table.melds", "scoring": "sim.table.scoring", "position": "sim.table.position",
    "strategies": "sim.strategies", "pystrategy": "sim.strategies.pystrategy",
    "peers": "sim.strategies.peers",
    "game": "sim.play.game", "positions": "sim.play.positions", "trace": "sim.batch.replay",
    "viewer": "sim.play.viewer",
    "runner": "sim.batch.runner", "summary": "sim.batch.summary", "executors": "sim.batch.executors",
    "rundir": "sim.batch.rundir", "runs": "sim.batch.read", "lock": "sim._util.lock",
    "comparison": "sim.experiments.comparison", "sweeps": "sim.experiments.sweeps",
    "tuning": "sim.experiments.tuning",
    "analysis": "sim.analysis", "analysis_game": "sim.analysis.decision",
    "rollout_stats": "sim.analysis.rollout_stats",
    "cli": "sim.cli", "questions": "sim.questions", "figures": "sim.figures", "envs": "sim.envs",
}
#: the public functions and classes of the facade -> their module
_LAZY_ATTRS = {"Rules": "sim.core.rules", "deal": "sim.core.deal", "Deal": "sim.core.deal",
               "deals": "sim.core.deal_features",
               "simulate": "sim.batch.runner", "simulate_matches": "sim.batch.runner",
               "summarize": "sim.batch.summary", "Summary": "sim.batch.summary",
               "MatchSummary": "sim.batch.summary",
               "load": "sim.batch.read", "load_matches": "sim.batch.read", "check_run": "sim.batch.read",
               "repair_run": "sim.batch.repair",
               "replay": "sim.batch.replay", "Game": "sim.play.game",
               "compare": "sim.experiments.comparison", "compare_hands": "sim.experiments.comparison",
               "sweep": "sim.experiments.sweeps", "tune": "sim.experiments.tuning",
               "analyze": "sim.analysis.evaluate", "analyze_decision": "sim.analysis.decision",
               "review": "sim.analysis.review", "review_run": "sim.analysis.review_run"}

__all__ = ["Rules", "Game", "simulate", "summarize", "Summary", "deal", "Deal", "deals",
           "replay", "compare", "compare_hands", "sweep", "tune", "analyze", "analyze_decision",
           "review", "review_run", "load",
           "check_run",
           "repair_run",
           "simulate_matches", "MatchSummary", "load_matches",
           "notation", "melds", "scoring", "strategies", "__version__"]


def _module(path: str):
    """Import a module of the facade; an AttributeError raised while it is imported becomes an
    ImportError, so that ``from sim import X`` reports it instead of looking for a file
    ``sim/X.py`` (``hasattr`` takes an AttributeError for a missing name)."""
    try:
        return importlib.import_module(path)
    except AttributeError as exc:
        raise ImportError(f"importing {path}: {exc}") from exc


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        module = _module(_LAZY_MODULES[name])
        globals()[name] = module
        return module
    if name in _LAZY_ATTRS:
        value = getattr(_module(_LAZY_ATTRS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_LAZY_MODULES))
