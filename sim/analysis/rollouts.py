"""Rollouts of the candidate actions of a decision on sampled worlds: the rollout
matrix (:func:`rollout_matrix`: the hand result of every candidate on the same worlds,
the kernels' or, for the match objective and Python strategies,
:mod:`sim.analysis.match_rollouts`'), and its table with paired intervals
(:func:`summarize_rollouts`, the columns :data:`ANALYSIS_COLUMNS`).
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from sim._util import compiling, stats
from sim._util.progress import progress_bar
from sim._util.stats import Z95
from sim.analysis import match_rollouts as AG
from sim.analysis.match_rollouts import policy_seats
from sim.core.cards import check_int
from sim.play import positions
from sim.play.game import N_ACTIONS, Game
from sim.batch.runner import _max_threads


MAX_ROLLOUTS = 10**8


ANALYSIS_COLUMNS = {
    "action": "action id (kernels.engine.actions; docs/step_api.md)",
    "text": "the action in words (Game.action_text; Game.action_from_text reads it back)",
    "mean_result": "mean hand result for the side to move: own side's score minus the opponents' "
            "(points)",
    "ci95_low": "lower end of the 95% interval of mean_result (points)",
    "ci95_high": "upper end of the 95% interval of mean_result (points)",
    "se": "standard error of mean_result (points)",
    "own_score": "mean hand score of the side to move (points)",
    "close_prob": "share of rollouts in which the side to move closed the hand (R47)",
    "diff_best": "mean paired difference to the best candidate on the same worlds (points; 0 for "
            "the best)",
    "diff_low": "lower end of the 95% interval of diff_best (points)",
    "diff_high": "upper end of the 95% interval of diff_best (points)",
    "p_best": "probability of being the best candidate (normal approximation of the mean "
              "results, module docstring)",
    "var_reduction": "(Var(candidate) + Var(best)) / Var(paired difference): how many times "
                     "fewer worlds the paired design needs than independent sampling for the "
                     "same interval of diff_best (NaN for the best; inf when the difference "
                     "does not vary)",
    "rollouts": "rollouts of the candidate (worlds)",
}


# ---------------------------------------------------------------- input
def _game_and_position(source, seed: int):
    """``(game, position dict or None)`` of a position (path, text, dict) or a Game."""
    if isinstance(source, Game):
        if source.is_over:
            raise ValueError("game: the hand is over; there is no decision to analyse")
        game = source.clone()        # listing legal actions writes the buffer's work arrays
        try:
            position = game.to_position()
        except ValueError:
            position = None
        return game, position
    p = positions.load(source)
    if p["seat"] != p["to_move"]:
        raise ValueError(f"position: to_move: the analysis is of the viewer's own decision, but "
                         f"seat {p['seat']} views and seat {p['to_move']} is to move (its hand "
                         "would be unknown)")
    return Game.from_position(p, seed=seed), p


def _candidates(game, candidates) -> list[int]:
    """The candidate action ids: every legal action, or the ones given (ids or texts)."""
    legal = game.legal_actions()
    if candidates is None:
        return legal
    if isinstance(candidates, str):
        candidates = [t for t in (x.strip() for x in candidates.split(";")) if t]
    elif isinstance(candidates, (int, np.integer)):
        candidates = [candidates]
    candidates = list(candidates)
    if not candidates:
        raise ValueError("candidates: none given (leave it out for every legal action)")
    ids = []
    allowed = set(legal)
    for c in candidates:
        if isinstance(c, str):
            try:
                a = game.action_from_text(c)
            except ValueError as exc:
                raise ValueError(f"candidates: {str(exc).removeprefix('action text: ')}") \
                    from None
        elif isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)):
            a = int(c)
        else:
            raise ValueError(f"candidates: expected action ids or texts, got {c!r}")
        if a not in allowed:
            what = game.action_text(a) if 0 <= a < N_ACTIONS else "not an action id"
            shown = "; ".join(game.action_text(x) for x in legal[:6])
            more = f"; ... ({len(legal)} in all)" if len(legal) > 6 else ""
            raise ValueError(f"candidates: {c!r} ({what}) is not legal here; legal: {shown}{more}")
        if a in ids:
            raise ValueError(f"candidates: {c!r} is given twice")
        ids.append(a)
    return ids


def _policy(policy, rules=None):
    """``(name, kinds int64[4], params float64[4, N_PARAMS])`` of the rollout strategy
    under ``rules`` (a Python seat's kind and row are placeholders: it rolls out through
    sim.Game)."""
    names, kinds, params, _ = policy_seats(policy, rules)  # Python seats: sim.analysis_game
    name = names[0] if len(set(names)) == 1 else names
    return name, kinds, params


def _threads(threads) -> int:
    top = _max_threads()
    return top if threads is None else check_int("threads", threads, 1, top)


# ---------------------------------------------------------------- rollouts
def rollout_matrix(game, actions, worlds: int, seed: int = 0, policy="expert",
                   threads: int | None = None, progress: bool = False, first: int = 0,
                   debug: bool = False, worlds_mode: int = 0, objective: str = "hand") -> dict:
    """Roll the candidates ``actions`` out on worlds ``first .. first+worlds-1``.

    Parameters
    ----------
    game : sim.Game
        The game at the decision (not mutated); the worlds are sampled for
        its seat to move.
    actions : sequence of int
        Candidate action ids, each legal at the decision.
    worlds : int
        Number of worlds (rollouts per candidate).
    seed : int
        World ``w`` is dealt from the stream ``(seed, w)`` (0 .. 2**64-1).
    policy : str, sequence or dict
        The rollout strategy: a strategy spec for every seat (built-in,
        registered, or a Python strategy, which rolls out through ``sim.Game``:
        :mod:`sim.analysis.decision`), or an assignment per seat as in ``simulate``.
    threads : int, optional
        Numba threads (default all); the results do not depend on it.  Rollouts
        of a Python strategy run in this process, one at a time.
    progress : bool
        A tqdm progress bar (rollouts) on stderr.
    first : int
        The first world index.
    debug : bool
        Run the kernels' debug checks after every action of the rollouts.
    worlds_mode : int
        0: sampled worlds; 1: the game's true hidden cards, the generator
        reseeded per world (``kernels.search.rollouts.WORLDS_TRUE``); 2: worlds
        sampled by the card-location model (``WORLDS_MODEL``); 1 and 2 with the
        hand objective and a built-in strategy only.
    objective : {"hand", "match"}
        ``"match"``: the match is played on after the hand as well
        (:mod:`kernels.search.match_rollouts`; the game must carry ``match_totals``).

    Returns
    -------
    dict
        ``result``, ``own``, ``closed``, ``error``: int64[worlds, C] arrays
        (:func:`kernels.search.rollouts.rollouts`; results in points), ``seconds``
        (float, the kernel calls) and ``threads`` (int); with ``objective="match"``
        also ``win`` and ``later`` (:func:`sim.analysis.match_rollouts.rollout_matrix`).

    Raises
    ------
    ValueError
        A parameter out of range, an unknown strategy (the message names
        ``policy``), or ``objective="match"`` without match totals.
    """
    import numba

    from kernels.search import rollouts as KR
    from kernels.table import work as KW

    worlds = check_int("rollouts", worlds, 1, MAX_ROLLOUTS)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    first = check_int("first", first, 0, 2**62)
    threads = _threads(threads)
    _, kinds, params = _policy(policy, game.rules)
    if objective not in AG.OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(AG.OBJECTIVES)}, got {objective!r}")
    if worlds_mode != 0 and (objective != "hand" or AG.has_python(policy)):
        what = ("'true' (the true hidden cards)" if worlds_mode == 1 else
                "'model' (worlds sampled by the card-location model)")
        raise ValueError(f"worlds: {what} rolls out with a built-in policy and the hand "
                         "objective only")
    if objective != "hand" or AG.has_python(policy):
        return AG.rollout_matrix(game, actions, worlds, seed, policy, threads, progress, first,
                                 debug, objective)
    acts = np.asarray(list(actions), np.int64)
    words = KW.work_words(0, 0)
    src = np.zeros(words, np.int64)
    src[:KR.ROLL_WORDS] = game._work[:KR.ROLL_WORDS]
    src[KW.W_EV_ROWS] = 0
    src[KW.W_EV_CARDS] = 0
    seat = np.int64(game.current_seat)
    shape = (worlds, acts.shape[0])
    out = {k: np.zeros(shape, np.int64) for k in ("result", "own", "closed", "error")}
    scratch = np.zeros((min(worlds, 4 * threads), 2, words), np.int64)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    bar = None
    try:
        def run(at, n):
            KR.rollouts(src, seat, acts, np.uint64(seed), np.int64(first + at), np.int64(n),
                        kinds, params, np.int64(bool(debug)), np.int64(KR.ROLL_WORDS), scratch,
                        *(out[k][at:at + n] for k in ("result", "own", "closed", "error")),
                        np.int64(worlds_mode))

        # one world run for real compiles (or loads) the chunk kernel; it is run again below
        with compiling.announce("the rollout kernel", compiling.cold(KR.rollouts_chunk),
                                progress, prefix="analyze: "):
            run(0, 1)
        t0 = time.perf_counter()
        if progress:
            bar = progress_bar(worlds * acts.shape[0], "analyze", "rollout")
            at, batch = 0, min(worlds, 8 * threads)
            while at < worlds:
                n = min(batch, worlds - at)
                t = time.perf_counter()
                run(at, n)
                bar.update(n * acts.shape[0])
                at += n
                per_world = (time.perf_counter() - t) / n
                batch = max(1, int(0.25 / max(per_world, 1e-7)))     # about 4 updates/s
        else:
            run(0, worlds)
        seconds = time.perf_counter() - t0
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(old)
    out["seconds"] = seconds
    out["threads"] = threads
    return out


def summarize_rollouts(result, own, closed, actions, texts, seed: int = 0, *, z: float = Z95,
                       ddof: int = 1, raw=None) -> pd.DataFrame:
    """The analysis table of a rollout matrix, best first.

    Parameters
    ----------
    result, own, closed : array_like
        int or float [W, C]: per world and candidate the hand result for the
        side to move (points), its own score (points) and 1 if it closed;
        W >= 2 worlds.
    actions : sequence of int
        The C candidate action ids.
    texts : sequence of str
        The C actions in words.
    seed : int
        Seeds the draws of ``p_best``.
    z : float
        The intervals' multiplier (1.96; more after a sequential stop,
        :mod:`sim.analysis.rollout_stats`).
    ddof : int
        Degrees of freedom the estimator in ``result`` took (1; ``q + 1`` for
        results adjusted by ``q`` control variates).
    raw : array_like, optional
        The unadjusted results when ``result`` is adjusted: the variance
        reduction of the common random numbers is measured on them.

    Returns
    -------
    pandas.DataFrame
        One row per candidate, columns :data:`ANALYSIS_COLUMNS`, sorted by
        ``mean_result`` (highest first; equal means by action id).  ``attrs["var_reduction"]``
        is the variance reduction of the common random numbers summed over the
        candidates against the best: ``sum(Var(c) + Var(best)) / sum(Var(d_c))``
        (NaN with one candidate, inf when no difference varies).

    Raises
    ------
    ValueError
        Fewer than two worlds, or shapes that do not match.
    """
    r = np.asarray(result, np.float64)
    if r.ndim != 2 or r.shape[0] < 2:
        raise ValueError(f"rollouts: the statistics need at least 2 worlds, got {r.shape[0]}")
    w, c = r.shape
    if len(actions) != c or len(texts) != c:
        raise ValueError(f"summarize_rollouts: {c} columns but {len(actions)} actions and "
                         f"{len(texts)} texts")
    mean = r.mean(axis=0)
    se = np.sqrt(r.var(axis=0, ddof=ddof) / w)
    order = sorted(range(c), key=lambda j: (-mean[j], int(actions[j])))
    best = order[0]
    d = r - r[:, [best]]
    d_mean = d.mean(axis=0)
    d_se = np.sqrt(d.var(axis=0, ddof=ddof) / w)
    u = r if raw is None else np.asarray(raw, np.float64)
    var = u.var(axis=0, ddof=1)
    d_var = (u - u[:, [best]]).var(axis=0, ddof=1)
    indep = var + var[best]
    with np.errstate(divide="ignore", invalid="ignore"):
        reduction = np.where(d_var > 0, indep / np.where(d_var > 0, d_var, 1.0),
                             np.where(indep > 0, np.inf, np.nan))
    reduction[best] = np.nan
    others = [j for j in range(c) if j != best]
    if not others:
        total = float("nan")
    elif d_var[others].sum() > 0:
        total = float(indep[others].sum() / d_var[others].sum())
    else:
        total = float("inf") if indep[others].sum() > 0 else float("nan")
    p_best = stats.p_best(r, seed)
    df = pd.DataFrame({
        "action": np.asarray(actions, np.int64), "text": list(texts), "mean_result": mean,
        "ci95_low": mean - z * se, "ci95_high": mean + z * se, "se": se,
        "own_score": np.asarray(own, np.float64).mean(axis=0),
        "close_prob": np.asarray(closed, np.float64).mean(axis=0),
        "diff_best": d_mean, "diff_low": d_mean - z * d_se, "diff_high": d_mean + z * d_se,
        "p_best": p_best, "var_reduction": reduction, "rollouts": np.full(c, w, np.int64),
    }, columns=list(ANALYSIS_COLUMNS)).iloc[order].reset_index(drop=True)
    df.attrs["var_reduction"] = total
    return df
