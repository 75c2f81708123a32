"""Position analysis by rollouts: "what should I do here?" (docs/analyze.md).

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
import time

import numpy as np
import pandas as pd

from kernels.table import state as KS

from sim._util.stats import P_BEST_DRAWS
from sim._util.text import plural, shortened, signed
from sim.analysis import match_rollouts as AG
from sim.analysis import rollout_stats as RS
from sim.analysis.match_rollouts import OBJECTIVES, add_match_columns, chosen_line, match_totals_of
from sim.analysis.rollout_stats import ATTRS, footer_lines
from sim.analysis.rollouts import (ANALYSIS_COLUMNS, MAX_ROLLOUTS, _candidates, _game_and_position,
                                   _policy, _threads, rollout_matrix, summarize_rollouts)
from sim.core.cards import check_int
from sim.core.match import match_target

__all__ = ["ANALYSIS_COLUMNS", "P_BEST_DRAWS", "analyze", "analyze_results", "format_table", "rollout_matrix",
           "summarize_rollouts", "timing_text", "to_document"]


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
        100 to 200 times slower, :mod:`sim.analysis.decision`), or one per seat
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
        :mod:`sim.analysis.rollout_stats` stops (the best separated from every other
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
        (:mod:`sim.analysis.rollout_stats`); the reductions are in ``attrs``.
    worlds : {"sampled", "model", "true"}
        ``"sampled"``: the unseen cards dealt again uniformly per world (R11).
        ``"model"``: dealt again with the card-location model's weights, as a
        player infers them from what the other seats discarded, passed on and
        melded (:mod:`kernels.search.card_model`; every count and known card kept,
        R11; with ``adjust="none"`` and the hand objective only).
        ``"true"``: every world keeps the game's true hidden cards (the
        "oracle"; only its generator is reseeded per world as a sampled world's
        is).  Needs a ``sim.Game``: a position does not hold the hidden cards.
    objective : {"hand", "match"}
        ``"hand"``: the table ranks the hand result.  ``"match"``: the position
        must carry the match totals before the hand (``[match] totals``,
        ``Game.match_totals``); each rollout plays the match on with the rollout
        strategy to its end (R60, R63) and the table, ranked by the probability
        of winning the match, gets the columns
        :data:`sim.analysis.match_rollouts.MATCH_COLUMNS` beside the hand's.

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
        options and figures of :mod:`sim.analysis.rollout_stats`
        (:data:`sim.analysis.rollout_stats.ATTRS`): ``worlds_kind``, ``adjust``,
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
    return analyze_results(position_or_game, rollouts, seed, policy, candidates, threads,
                           progress, debug, until_separated, max_rollouts, batch, margin, adjust,
                           worlds, objective)[0]


def analyze_results(position_or_game, rollouts: int = 1000, seed: int = 0, policy="expert",
                    candidates=None, threads: int | None = None, progress: bool = False,
                    debug: bool = False, until_separated: bool = False,
                    max_rollouts: int = 20_000, batch: int = 1_000, margin: float = 0.0,
                    adjust: str = "none", worlds: str = "sampled",
                    objective: str = "hand") -> tuple:
    """:func:`analyze` (same parameters) with the results its table summarizes.

    Returns
    -------
    tuple
        ``(table, results, actions, ddof)``: :func:`analyze`'s DataFrame; the hand
        results, float64[W, C] (points; adjusted when ``adjust`` is on), one column per
        candidate in the order of ``actions`` (the candidate action ids, ascending
        unless ``candidates`` gives another order), world ``w`` in row ``w``; the
        degrees of freedom the estimator took (1, or ``q + 1`` with ``q`` control
        variates).
    """
    t_start = time.perf_counter()
    rollouts = check_int("rollouts", rollouts, 2, MAX_ROLLOUTS)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    threads = _threads(threads)
    _policy(policy)                      # a bad policy is named before the position is read
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    opts = RS.check_options(position_or_game, until_separated, max_rollouts, batch, margin,
                            adjust, worlds)
    if objective == "match" and (until_separated or adjust != "none" or worlds != "sampled"):
        raise ValueError("objective: 'match' takes a fixed number of rollouts on sampled worlds "
                         "(leave out until_separated, adjust and worlds)")
    game, position = _game_and_position(position_or_game, seed)
    name, _, _ = _policy(policy, game.rules)       # learned's model: the position's rules'
    acts = _candidates(game, candidates)
    texts = [game.action_text(a) for a in acts]
    if objective == "match":
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
        df = add_match_columns(df, {**m, "actions": acts}, seed)
    summary_s = time.perf_counter() - t_sum
    g = game._g
    df.attrs.update(more)
    df.attrs.update(
        position=position, seat=game.current_seat, phase=game.phase, turn=game.turn,
        num_players=game.rules.num_players, seed=seed, policy=name, worlds=rollouts,
        candidates=len(acts), threads=m["threads"],
        rollout_errors=int((m["error"] > 0).sum()),
        stock=int(g[KS.G_STOCK_END] - g[KS.G_STOCK_TOP]),
        rollout_s=m["seconds"], summary_s=summary_s,
        rollouts_per_s=rollouts * len(acts) / m["seconds"] if m["seconds"] > 0 else math.inf,
        elapsed_s=time.perf_counter() - t_start, objective=objective)
    if objective == "match":
        df.attrs.update(match_totals=list(game.match_totals), target=match_target(game.rules))
    r, ddof = estimator(m["result"])
    return df, np.asarray(r, np.float64), list(acts), ddof


def format_table(df: pd.DataFrame, source: str | None = None) -> str:
    """The analysis as the text ``burraco analyze`` prints (header, table, footer); a
    ``*`` after the row number marks the candidate a run's strategy chose (``chosen``)."""
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
        interval = f"{signed(row.ci95_low)} .. {signed(row.ci95_high)}"
        if i == 1:
            diff = "best"
        else:
            diff = f"{signed(row.diff_best)} ({signed(row.diff_low)} .. {signed(row.diff_high)})"
        mark = "*" if chosen[i - 1] else " "
        lines.append(f"{i:>3}{mark} {shortened(row.text, width):<{width}}  {signed(row.mean_result):>8}  "
                     f"{interval:>19}  {row.own_score:>7,.1f}  {row.close_prob:>6.1%}  "
                     f"{diff:>32}  {row.p_best:>7.1%}")
    lines.append("")
    return _footer(df, lines)


def _footer(df: pd.DataFrame, lines: list) -> str:
    """The table's last lines: the run's choice, the variance reductions, the
    sequential rule's stop (:func:`sim.analysis.rollout_stats.footer_lines`), warnings."""
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
