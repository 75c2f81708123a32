"""The analysis of a decision of a simulated hand: :func:`decision_game` and
:func:`analyze_decision` reach the decision of turn ``T`` of hand ``I`` of a run
(``pickup``, the first ``meld``-phase decision, or ``discard``) by
:meth:`sim.Game.new` and ``apply(choose())`` with the run's strategies, rules and
dealer, so it is the hand ``simulate`` played (checked against the row with a run
directory), and analyse it as the seat to move saw it (:func:`sim.analysis.evaluate.analyze`),
beside the action the strategy chose (column ``chosen``).
"""
from __future__ import annotations

import os

import pandas as pd

from kernels.engine import actions as KA
from kernels.core.cards import CIDX

from sim.analysis.evaluate import analyze
from sim.analysis.match_rollouts import DECISIONS, MAX_LATER_HANDS, OBJECTIVES
from sim.core.cards import check_int
from sim.core.match import sides
from sim.play.game import N_ACTIONS, Game
from sim.batch import replay

__all__ = ["DECISIONS", "MAX_LATER_HANDS", "OBJECTIVES", "analyze_decision", "decision_game"]


# ---------------------------------------------------------------- a decision of a game
def _walk_to(game, turn: int, decision: str, hand_index: int) -> None:
    """Play ``game`` on with its strategies to the decision (mutated); ValueError when
    the hand has no such decision."""
    phases = {"pickup": ("pickup",), "meld": ("place", "meld"), "discard": ("discard",)}[decision]
    seen = []
    while not game.is_over:
        if game.turn == turn:
            if game.phase in phases:
                return
            if game.phase not in seen:
                seen.append(game.phase)
        elif game.turn > turn:
            break
        game.apply(game.choose())
    if game.turn < turn or (game.turn == turn and not seen and game.is_over):
        reason = game.result()["end_reason"]
        raise ValueError(f"turn: hand {hand_index} has turns 1..{game.turn} (it ended by "
                         f"{reason} in turn {game.turn}), not turn {turn}")
    how = "" if not game.is_over or game.turn != turn else \
        f"; the hand ended by {game.result()['end_reason']} in it"
    raise ValueError(f"decision: turn {turn} of hand {hand_index} has no {decision} decision "
                     f"(its decisions: {', '.join(seen)}{how})")


def decision_game(hand_index, turn, decision, seed=None, strategies=None, rules=None,
                  dealer=None, *, run=None, python_files=None) -> tuple:
    """The game at a decision of a simulated hand, and the action its strategy chose.

    The hand is dealt by :meth:`sim.Game.new` with the run's settings and played with
    ``apply(choose())`` by its strategies up to the decision, so it is the hand
    ``simulate`` played (same records): with ``run`` the hand is played on from there
    with the chosen action and compared with the run's row.

    Parameters
    ----------
    hand_index : int
        The hand (0-based; a match run's ``hand_index``: hand k of match m is
        ``m * 65536 + k``).
    turn : int
        The turn, counted from 1 as in the replay document (``sim.replay``).
    decision : {"pickup", "meld", "discard"}
        The turn's pickup, its first meld-phase decision (``place`` or ``meld``),
        or its discard.
    seed, strategies, rules, dealer
        The run's seed, strategy assignment (default ``"heuristic"``), rules and
        dealer, as :func:`sim.replay` takes them; refused with ``run``.
    run : str or os.PathLike, optional
        A run directory: its seed, strategies, rules and (for a match hand) dealer
        and totals before the hand (``Game.match_totals``).
    python_files : list of str, optional
        With ``run``: where the run's Python strategy files are now (as
        :func:`sim.replay`).

    Returns
    -------
    tuple
        ``(game, chosen, info)``: the :class:`sim.Game` at the decision (its
        ``match_totals`` set for a hand of a match run), the action id the seat's
        strategy chose there (a discard named by its face), and a dict ``seed``,
        ``hand_index``, ``turn``, ``decision``, ``strategy`` (of the seat to move),
        ``run`` (the directory or None), ``checked`` (whether the hand played on
        was compared with the run's row).

    Raises
    ------
    ValueError
        A bad or missing setting (named: ``seed``, ``hand_index``, ``turn``,
        ``decision``, ...), a turn past the end of the hand (``turn: ...``) or a
        decision the turn does not have (``decision: ...``).
    sim.trace.ReplayMismatchError
        With ``run``: the hand played on from the decision does not give the run's
        row (it must never happen).
    """
    if decision not in DECISIONS:
        raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
    if hand_index is None:
        raise ValueError("hand_index: give the hand to analyse (--hand I)")
    hand_index = check_int("hand_index", hand_index, 0, 2**63 - 1)
    turn = check_int("turn", turn, 1, 100_000)
    row = None
    if run is not None:
        for name, value in (("seed", seed), ("strategies", strategies), ("rules", rules),
                            ("dealer", dealer)):
            if value is not None:
                raise ValueError(f"{name} is taken from the run in {os.fspath(run)!r}; leave "
                                 "it out")
        seed, strategies, rules, dealer, row = replay._run_hand(run, hand_index, python_files)
    elif python_files:
        raise replay._without_run()
    elif seed is None:
        raise ValueError("seed: give the run's seed (and its strategies, rules and, for a "
                         "match hand, dealer), or a run directory")
    game = Game.new(seed, hand_index, rules=rules, dealer=dealer,
                    strategies="heuristic" if strategies is None else strategies)
    if row is not None and row.get("total_t0") is not None and not pd.isna(row["total_t0"]):
        game.match_totals = tuple(int(row[f"total_t{s}"]) - int(row[f"score_t{s}"])
                                  for s in range(sides(game.rules)))
    _walk_to(game, turn, decision, hand_index)
    after = game.clone()
    chosen = after.choose()
    after.apply(chosen)
    if chosen >= N_ACTIONS:                   # a copy named by its card id (random)
        chosen = KA.A_DISCARD + int(CIDX[chosen - N_ACTIONS])
    checked = False
    if row is not None:
        after.play()
        doc = {"hand_index": hand_index, "strategies": after.strategies,
               "result": after.result()}
        replay._check_row(doc, row, run)
        checked = True
    info = {"seed": seed, "hand_index": hand_index, "turn": turn, "decision": decision,
            "strategy": game.strategies[game.current_seat],
            "run": None if run is None else os.fspath(run), "checked": checked}
    return game, int(chosen), info


def analyze_decision(hand_index, turn, decision, seed=None, strategies=None, rules=None,
                     dealer=None, *, run=None, python_files=None, rollouts: int = 1000,
                     analysis_seed: int = 0,
                     policy="expert", candidates=None, threads=None, progress: bool = False,
                     debug: bool = False, objective: str = "hand", **options) -> pd.DataFrame:
    """Analyse a decision of a simulated hand, as the seat to move saw it.

    :func:`decision_game` reaches the decision (parameters ``hand_index`` ..
    ``python_files`` as there); :func:`sim.analyze` evaluates its candidates (``rollouts``,
    ``policy``, ``candidates``, ``threads``, ``progress``, ``debug``, ``objective``
    and the further keyword ``options`` such as ``until_separated``,
    ``max_rollouts``, ``batch``, ``margin``, ``adjust`` and ``worlds`` as
    there; the worlds come from ``analysis_seed``).  ``worlds="true"`` rolls
    the candidates out on the hand's true hidden cards (the oracle).

    Returns
    -------
    pandas.DataFrame
        :func:`sim.analyze`'s table plus a boolean column ``chosen`` (the action
        the seat's strategy chose in the run; no row is chosen when ``candidates``
        leaves it out); ``attrs`` also hold ``chosen`` (its action id),
        ``chosen_text``, ``chosen_by`` (the strategy), ``run_seed``,
        ``hand_index``, ``decision``, ``run`` and ``checked``.

    Raises
    ------
    ValueError
        As :func:`decision_game` and :func:`sim.analyze`.

    Examples
    --------
    >>> df = sim.analyze_decision(hand_index=3, turn=14, decision="discard", seed=1,
    ...                           rollouts=2000)                      # doctest: +SKIP
    >>> df[df.chosen][["text", "diff_best", "diff_low", "diff_high"]]  # doctest: +SKIP
    """
    game, chosen, info = decision_game(hand_index, turn, decision, seed, strategies, rules,
                                       dealer, run=run, python_files=python_files)
    text = game.action_text(chosen)
    df = analyze(game, rollouts=rollouts, seed=analysis_seed, policy=policy,
                 candidates=candidates, threads=threads, progress=progress, debug=debug,
                 objective=objective, **options)
    attrs = dict(df.attrs)
    df["chosen"] = df["action"] == chosen
    df.attrs = attrs
    df.attrs.update(chosen=chosen, chosen_text=text, chosen_by=info["strategy"],
                    run_seed=info["seed"], hand_index=info["hand_index"],
                    decision=decision, run=info["run"], checked=info["checked"])
    return df
