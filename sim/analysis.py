"""Position analysis by rollouts: "what should I do here?" (issue 14).

Every candidate action of the decision is rolled out on the same sampled
worlds (:func:`kernels.search.rollouts.rollouts`): world ``w`` deals the cards the
seat to move cannot see again from the stream ``(seed, w)`` (R11: its hand,
the table, the pile, the hand sizes and the known cards stay), then each
candidate is applied to a copy of that world and the hand is played to its
end by the rollout strategy on every seat and scored (R55-R59).

The **result** of a rollout is the hand score of the side to move minus
the opponents' (points): with 2 or 4 players the other player's or the other
partnership's score; with 3 players the highest score among the players on
another side at the end of the hand (the record credits each player its
side's score, R62, R63).

Statistics over the ``W`` worlds (normal approximations; use hundreds of
worlds or more):

* a candidate's mean result with the 95% interval ``mean +- Z95 * sd / sqrt(W)``;
* the paired difference to the best candidate (the highest mean):
  ``d_w = result_w(candidate) - result_w(best)`` on the same world, with its
  interval ``mean(d) +- Z95 * sd(d) / sqrt(W)``;
* the variance reduction of these common random numbers over independent
  sampling (every candidate on worlds of its own), measured from the same
  rollouts: ``(Var(candidate) + Var(best)) / Var(d)``, per candidate and
  summed over the candidates against the best;
* the probability of being best: the share of draws from the normal
  approximation of the vector of mean results (mean vector, covariance of
  the results over the worlds / W, so the pairing is kept) in which the
  candidate has the highest value (:data:`P_BEST_DRAWS` draws from a
  generator seeded by the analysis seed; ties share the draw).  It is the
  chance that the candidate's long-run mean under this rollout strategy is
  the highest, given these rollouts.

The results do not depend on the thread count or on how the worlds are
split into kernel calls: world ``w`` depends on ``(seed, w)`` alone.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np
import pandas as pd

from kernels.table import state as KS

from . import compiling
from ._progress import progress_bar
from ._cards import check_int
from ._text import plural
from .comparison import Z95

__all__ = ["ANALYSIS_COLUMNS", "P_BEST_DRAWS", "analyze", "format_table", "rollout_matrix",
           "summarize_rollouts", "timing_text", "to_document"]

P_BEST_DRAWS = 20_000            # draws of the normal approximation for p_best
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
    from . import positions
    from .game import Game
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
    from .game import N_ACTIONS
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


def _policy(policy):
    """``(name, kinds int64[4], params float64[4, N_PARAMS])`` of the rollout strategy
    (a Python seat's kind and row are placeholders: it rolls out through sim.Game)."""
    from .analysis_game import policy_seats
    names, kinds, params, _ = policy_seats(policy)     # Python seats: sim.analysis_game
    name = names[0] if len(set(names)) == 1 else names
    return name, kinds, params


def _threads(threads) -> int:
    from .runner import _max_threads
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
        :mod:`sim.analysis_game`), or an assignment per seat as in ``simulate``.
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
        reseeded per world (``kernels.search.rollouts.WORLDS_TRUE``; the hand
        objective with a built-in strategy only).
    objective : {"hand", "match"}
        ``"match"``: the match is played on after the hand as well
        (:mod:`kernels.search.match_rollouts`; the game must carry ``match_totals``).

    Returns
    -------
    dict
        ``result``, ``own``, ``closed``, ``error``: int64[worlds, C] arrays
        (:func:`kernels.search.rollouts.rollouts`; results in points), ``seconds``
        (float, the kernel calls) and ``threads`` (int); with ``objective="match"``
        also ``win`` and ``later`` (:func:`sim.analysis_game.rollout_matrix`).

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
    _, kinds, params = _policy(policy)
    from . import analysis_game as AG
    if objective not in AG.OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(AG.OBJECTIVES)}, got {objective!r}")
    if worlds_mode != 0 and (objective != "hand" or AG.has_python(policy)):
        raise ValueError("worlds: 'true' (the true hidden cards) rolls out with a built-in "
                         "policy and the hand objective only")
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


# ---------------------------------------------------------------- statistics
def _p_best(result: np.ndarray, seed: int, draws: int = P_BEST_DRAWS) -> np.ndarray:
    """float64[C]: the share of draws of N(mean, cov / W) in which each column is
    the highest; see the module docstring.

    Candidates whose results are equal on every world (the rollout strategy
    plays on alike) are one candidate for the draws and share its probability
    equally; other ties within a draw share the draw.
    """
    w, c = result.shape
    distinct, group = np.unique(result.T, axis=0, return_inverse=True)
    group = group.reshape(-1)
    k = distinct.shape[0]
    if k == 1:
        return np.full(c, 1.0 / c)
    r = distinct.T                                          # [W, k]
    mean = r.mean(axis=0)
    cov = np.atleast_2d(np.cov(r, rowvar=False, ddof=1)) / w
    lam, vec = np.linalg.eigh(cov)
    root = vec * np.sqrt(np.clip(lam, 0.0, None))          # cov = root @ root.T
    rng = np.random.default_rng(np.random.SeedSequence([seed, 14]))
    wins = np.zeros(k)
    chunk = max(1, min(draws, 4_000_000 // k))
    done = 0
    while done < draws:
        n = min(chunk, draws - done)
        x = mean + rng.standard_normal((n, k)) @ root.T
        top = x.max(axis=1, keepdims=True)
        tie = x >= top - 1e-9 * (1.0 + np.abs(top))
        wins += (tie / tie.sum(axis=1, keepdims=True)).sum(axis=0)
        done += n
    members = np.bincount(group, minlength=k)
    return (wins / draws)[group] / members[group]


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
        :mod:`sim.rollout_stats`).
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
    p_best = _p_best(r, seed)
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


# ---------------------------------------------------------------- the analysis
def analyze(position_or_game, rollouts: int = 1000, seed: int = 0, policy="expert",
            candidates=None, threads: int | None = None, progress: bool = False,
            debug: bool = False, until_separated: bool = False, max_rollouts: int = 20_000,
            batch: int = 1_000, margin: float = 0.0, adjust: str = "none",
            worlds: str = "sampled", objective: str = "hand") -> pd.DataFrame:
    """Evaluate every candidate action of a decision by rollouts on sampled worlds.

    See the module docstring for the method and the statistics.

    Parameters
    ----------
    position_or_game : str, os.PathLike, dict or sim.Game
        A position (a ``.toml``/``.json`` file, its text or a dict,
        docs/positions.md; its viewer must be the seat to move) or a game at a
        decision (not mutated).  The worlds keep what the seat to move knows.
    rollouts : int
        Worlds, each rolled out once for every candidate (>= 2).
    seed : int
        The analysis seed (0 .. 2**64-1): world ``w`` comes from ``(seed, w)``;
        a position's own unseen cards are first dealt from it as well
        (``Game.from_position``).
    policy : str, sequence or dict
        The rollout strategy of every seat: a built-in or registered strategy
        spec (``"expert"``, ``"heuristic:pile_threshold=3"``), a Python strategy
        (``FILE.py:CLASS``, a class or an object: rolled out through ``sim.Game``,
        100 to 200 times slower, :mod:`sim.analysis_game`), or one per seat
        as in ``simulate``.
    candidates : None, str or sequence
        None: every legal action.  Otherwise action ids or texts
        (``Game.action_text`` forms, e.g. ``"discard K♣"``), a list or one
        string separated by ``;``; each must be legal.
    threads : int, optional
        Numba threads (default all); the table does not depend on it.
    progress : bool
        A tqdm progress bar on stderr.
    debug : bool
        Run the kernels' debug checks after every rollout action.
    until_separated : bool
        Roll out ``batch`` worlds at a time until the sequential rule of
        :mod:`sim.rollout_stats` stops (the best separated from every other
        candidate, or within ``margin`` of it) or ``max_rollouts`` worlds;
        ``rollouts`` is then not used, and the intervals use the multiplier
        for a sequential stop (``attrs["z_interval"]``).
    max_rollouts, batch : int
        The sequential rule's cap and the worlds between its looks (2 ..
        ``max_rollouts``).
    margin : float
        The rule's indifference margin (points, >= 0): a candidate within it
        of the leader no longer needs separating.
    adjust : {"none", "strata", "cv"}
        Beyond the common random numbers: post-stratification on the wilds
        dealt to the opponents, or control variates of the deal features
        (:mod:`sim.rollout_stats`); the reductions are in ``attrs``.
    worlds : {"sampled", "true"}
        ``"true"``: every world keeps the game's true hidden cards (the
        "oracle"; only its generator is reseeded per world as a sampled world's
        is).  Needs a ``sim.Game``: a position does not hold the hidden cards.
    objective : {"hand", "match"}
        ``"hand"``: the table ranks the hand result.  ``"match"``: the position
        must carry the match totals before the hand (``[match] totals``,
        ``Game.match_totals``); each rollout plays the match on with the rollout
        strategy to its end (R60, R63) and the table, ranked by the probability
        of winning the match, gets the columns
        :data:`sim.analysis_game.MATCH_COLUMNS` beside the hand's.

    Returns
    -------
    pandas.DataFrame
        One row per candidate, best first (columns :data:`ANALYSIS_COLUMNS`,
        points per hand).  ``attrs`` holds ``position`` (the canonical
        position dict, or None), ``seat``, ``phase``, ``turn``,
        ``num_players``, ``stock`` (cards), ``seed``, ``policy``, ``worlds``, ``candidates``,
        ``threads``, ``var_reduction`` (common random numbers against
        independent sampling, :func:`summarize_rollouts`), ``rollout_errors``
        (rollouts whose record has error bits), ``elapsed_s`` (the whole
        call), ``rollout_s`` (the kernel calls), ``summary_s`` and
        ``rollouts_per_s`` (rollouts / ``rollout_s``), ``objective`` (with
        ``objective="match"`` also ``match_totals`` and ``target``, points); the
        options and figures of :mod:`sim.rollout_stats`
        (:data:`sim.rollout_stats.ATTRS`): ``worlds_kind``, ``adjust``,
        ``adjust_means``, ``adjust_diffs``, ``until_separated``, ``stop``,
        ``looks``, ``max_looks``, ``batch``, ``max_rollouts``, ``margin``,
        ``z_sep``, ``z_interval``.

    Raises
    ------
    ValueError
        An impossible position (the message names the field), an illegal or
        unknown candidate (``candidates: ...``), a bad ``rollouts``, ``seed``,
        ``threads``, ``policy`` or ``objective`` (``"match"`` without match totals).
    RuntimeError
        A candidate was illegal in a sampled world (the legal actions of the
        seat to move should not depend on cards it cannot see: an engine bug).

    Examples
    --------
    >>> df = sim.analyze("examples/position.toml", rollouts=2000, seed=1)   # doctest: +SKIP
    >>> df[["text", "mean_result", "diff_best", "diff_low", "p_best"]].head()  # doctest: +SKIP
    """
    from . import rollout_stats as RS
    t_start = time.perf_counter()
    rollouts = check_int("rollouts", rollouts, 2, MAX_ROLLOUTS)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    threads = _threads(threads)
    name, _, _ = _policy(policy)
    from .analysis_game import OBJECTIVES
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    opts = RS.check_options(position_or_game, until_separated, max_rollouts, batch, margin,
                            adjust, worlds)
    if objective == "match" and (until_separated or adjust != "none" or worlds != "sampled"):
        raise ValueError("objective: 'match' takes a fixed number of rollouts on sampled worlds "
                         "(leave out until_separated, adjust and worlds)")
    game, position = _game_and_position(position_or_game, seed)
    acts = _candidates(game, candidates)
    texts = [game.action_text(a) for a in acts]
    if objective == "match":
        from .analysis_game import match_totals_of
        match_totals_of(game)                        # before the rollouts: a one-line error
    estimator = RS.Estimator(game, adjust, seed, threads, opts["worlds_mode"])
    if until_separated:
        m = RS.sequential_matrix(game, acts, estimator, seed=seed, policy=policy,
                                 threads=threads, progress=progress, debug=debug, **opts)
    else:
        m = rollout_matrix(game, acts, rollouts, seed=seed, policy=policy, threads=threads,
                           progress=progress, debug=debug, worlds_mode=opts["worlds_mode"],
                           objective=objective)
    bad = np.argwhere(m["error"] < 0)
    if bad.size:
        w, j = (int(x) for x in bad[0])
        raise RuntimeError(f"analyze: candidate {texts[j]!r} is illegal in sampled world {w} "
                           f"(apply_action code {-int(m['error'][w, j])}); the legal actions of "
                           "the seat to move should not depend on cards it cannot see")
    t_sum = time.perf_counter()
    rollouts = m["result"].shape[0]
    df, more = RS.summarize(m, acts, texts, seed, estimator, opts)
    if objective == "match":
        from .analysis_game import add_match_columns
        df = add_match_columns(df, {**m, "actions": acts}, seed)
    summary_s = time.perf_counter() - t_sum
    g = game._g
    df.attrs.update(more)
    df.attrs.update(
        position=position, seat=game.current_seat, phase=game.phase, turn=game.turn,
        num_players=game.rules.num_players, seed=seed, policy=name, worlds=rollouts,
        candidates=len(acts), threads=m["threads"],
        rollout_errors=int((m["error"] > 0).sum()),
        stock=int(g[KS.G_SLEN] - g[KS.G_SP]),
        rollout_s=m["seconds"], summary_s=summary_s,
        rollouts_per_s=rollouts * len(acts) / m["seconds"] if m["seconds"] > 0 else math.inf,
        elapsed_s=time.perf_counter() - t_start, objective=objective)
    if objective == "match":
        from .match import match_target
        df.attrs.update(match_totals=list(game.match_totals), target=match_target(game.rules))
    return df


# ---------------------------------------------------------------- output
def _signed(x: float) -> str:
    return f"{x:+,.1f}"


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def format_table(df: pd.DataFrame, source: str | None = None) -> str:
    """The analysis as the text ``burraco analyze`` prints (header, table, footer); a
    ``*`` after the row number marks the candidate a run's strategy chose (``chosen``)."""
    from . import analysis_game as AG
    a = df.attrs
    policy = a.get("policy")
    policy = policy if isinstance(policy, str) else ", ".join(policy or [])
    where = f" ({source})" if source else ""
    lines = [
        (f"position{where}: seat {a.get('seat')} to move, {a.get('phase')} phase, turn "
         f"{a.get('turn')}, {a.get('num_players')} players{AG.totals_text(df)}"),
        (plural(a.get('worlds', 0), 'true-card world' if a.get('worlds_kind') == 'true'
                else 'sampled world')
         + f" x {plural(len(df), 'candidate')}; rollout strategy {policy}; seed {a.get('seed')}"
         + ("; objective: match" if a.get("objective") == "match" else "")),
    ]
    if a.get("objective") == "match":
        lines += AG.format_match_table(df, source)
        return _footer(df, lines)
    lines += [
        ("result: own side's hand score minus the opponents' (points), mean over the worlds; "
         "diff: paired with the best on the same worlds"),
        "",
    ]
    chosen = df["chosen"].tolist() if "chosen" in df.columns else [False] * len(df)
    width = min(44, max(6, *(len(t) for t in df["text"])))
    head = (f"{'#':>3}  {'action':<{width}}  {'mean':>8}  {'95% interval':>19}  {'own':>7}  "
            f"{'close':>6}  {'diff to best (95% interval)':>32}  {'P(best)':>7}")
    lines.append(head)
    for i, row in enumerate(df.itertuples(index=False), 1):
        interval = f"{_signed(row.ci95_low)} .. {_signed(row.ci95_high)}"
        if i == 1:
            diff = "best"
        else:
            diff = f"{_signed(row.diff_best)} ({_signed(row.diff_low)} .. {_signed(row.diff_high)})"
        mark = "*" if chosen[i - 1] else " "
        lines.append(f"{i:>3}{mark} {_short(row.text, width):<{width}}  {_signed(row.mean_result):>8}  "
                     f"{interval:>19}  {row.own_score:>7,.1f}  {row.close_prob:>6.1%}  "
                     f"{diff:>32}  {row.p_best:>7.1%}")
    lines.append("")
    return _footer(df, lines)


def _footer(df: pd.DataFrame, lines: list) -> str:
    """The table's last lines: the run's choice, the variance reductions, the
    sequential rule's stop (:func:`sim.rollout_stats.footer_lines`), warnings."""
    from .analysis_game import chosen_line
    from .rollout_stats import footer_lines
    a = df.attrs
    if chosen_line(df):
        lines.append(chosen_line(df))
    what = ", hand results" if a.get("objective") == "match" else ""
    lines.append(f"common random numbers{what}: {_reduction_text(a.get('var_reduction'))}")
    lines.extend(footer_lines(a))
    if a.get("rollout_errors"):
        lines.append(f"warning: {plural(a['rollout_errors'], 'rollout')} ended with error bits in their "
                     "record (a chooser's illegal action or a failed debug check)")
    return "\n".join(lines)


def _reduction_text(r) -> str:
    if r is None or (isinstance(r, float) and math.isnan(r)):
        return "no variance reduction to report (one candidate, or no result varies)"
    if math.isinf(r):
        return ("the paired differences do not vary (the candidates play alike on every "
                "world)")
    return (f"the paired differences have x{r:.2f} less variance than independent sampling "
            "would give (summed over the candidates against the best)")


def timing_text(df: pd.DataFrame) -> str:
    """``"30,000 rollouts in 1.23 s (24,390 rollouts/s, 2 threads; 1.40 s in all)"``."""
    a = df.attrs
    n = a["worlds"] * a["candidates"]
    return (f"{plural(n, 'rollout')} in {a['rollout_s']:.2f} s ({a['rollouts_per_s']:,.0f} "
            f"rollouts/s, {plural(a['threads'], 'thread')}; "
            f"{a['elapsed_s']:.2f} s in all)")


def _json_number(v):
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and not math.isfinite(v) else v


def to_document(df: pd.DataFrame) -> dict:
    """The analysis as the JSON object ``burraco analyze --format json`` prints:
    ``{"position", "analysis", "candidates"}``, candidates best first, one object
    per row (:data:`ANALYSIS_COLUMNS`; NaN and inf as null)."""
    a = df.attrs
    analysis = {k: _json_number(a.get(k)) for k in (
        "seat", "phase", "turn", "num_players", "seed", "worlds", "candidates", "threads",
        "var_reduction", "rollout_errors", "rollout_s", "summary_s", "elapsed_s",
        "rollouts_per_s", "objective")}
    from .rollout_stats import ATTRS
    analysis.update({k: _json_number(a.get(k)) for k in ATTRS})
    analysis["policy"] = a.get("policy")
    for k in ("match_totals", "target", "win_var_reduction"):      # objective "match"
        if k in a:
            analysis[k] = _json_number(a[k])
    if "chosen" in a:                                       # a decision of a run's hand
        analysis["decision"] = {k: _json_number(a.get(k)) for k in (
            "run_seed", "hand_index", "turn", "decision", "chosen", "chosen_text", "chosen_by",
            "run", "checked")}
    rows = [{k: _json_number(v) for k, v in row.items()} for row in df.to_dict("records")]
    return {"position": a.get("position"), "analysis": analysis, "candidates": rows}
