"""The match as objective and Python rollout strategies, for the analyses of
:mod:`sim.analysis.evaluate`.

* the **match objective** (``objective="match"``): each rollout adds the hand's
  scores to the match totals before the hand and plays the match on with the rollout
  strategy (:mod:`kernels.search.match_rollouts`: later hand ``k`` of world ``w`` is the
  deal ``(seed ^ LATER_SALT, w * 65536 + k)``, the same for every candidate), and
  the table gets the probability of winning the match (R60, R63) with its interval,
  paired differences and the probability of being best (:data:`MATCH_COLUMNS`);
* **Python rollout strategies** (:mod:`sim.strategies.pystrategy`): the same worlds
  (:func:`kernels.table.worlds.resample_unseen` on the same buffer), the candidate applied
  and the hand (and match) played on through :class:`sim.Game`, one rollout at a
  time in this process; a Python strategy that chooses as a built-in one gives the
  built-in's table.

Python strategies' ``reset`` gets, in rollout ``(w, candidate)``, ``hand_index`` the
analysed game's and ``random_seed`` ``sim.pystrategy.random_seed(seed, w, seat)``
(the same for every candidate of a world); in later hands of the match what
:meth:`sim.Game.new` gives them for that deal.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from kernels.engine import actions as KA
from kernels.core import layout as L
from kernels.table import state as KS
from kernels.table import work as KW

from sim._util import compiling
from sim._util.progress import progress_bar
from sim._util.stats import Z95, p_best, wilson
from sim._util.text import plural, shortened, signed
from sim.core.match import match_target, sides
from sim.play.game import Game
from sim.strategies import resolve_seats
from sim.strategies.specs import relabel
from sim.strategies.pystrategy import random_seed

__all__ = ["DECISIONS", "MATCH_COLUMNS", "MAX_LATER_HANDS", "OBJECTIVES", "format_match_table",
           "match_totals_of"]

OBJECTIVES = ("hand", "match")
DECISIONS = ("pickup", "meld", "discard")
MAX_LATER_HANDS = 200            # later hands after which a match counts as undecided

MATCH_COLUMNS = {
    "win_prob": "share of rollouts in which the side to move won the match (R60; R63 with 3 "
                "players), the match played on with the rollout strategy after this hand",
    "win_low": "lower end of the 95% interval of win_prob (Wilson score interval)",
    "win_high": "upper end of the 95% interval of win_prob (Wilson score interval)",
    "win_diff": "mean paired difference of the win indicator to the candidate of the highest "
                "win_prob on the same worlds (0 for it)",
    "win_diff_low": "lower end of the 95% interval of win_diff",
    "win_diff_high": "upper end of the 95% interval of win_diff",
    "win_p_best": "probability of the highest win_prob (as p_best, on the win indicators)",
    "undecided": "share of rollouts whose match still went on after MAX_LATER_HANDS later "
                 "hands (counted as not won)",
    "later_hands": "mean number of hands played after this one to the end of the match",
}
#: ``attrs["win_var_reduction"]`` of a match table: ``sum(Var(win_c) + Var(win_best)) /
#: sum(Var(win_c - win_best))`` over the candidates against the best (as
#: ``attrs["var_reduction"]`` for the hand results).


# ---------------------------------------------------------------- the rollout strategy
def policy_seats(policy, rules=None) -> tuple:
    """``(names, kinds, params, pythons)`` of a rollout strategy assignment played under
    ``rules`` (``sim.strategies.resolve_seats``: they pick ``learned``'s model), the
    ValueError's message naming ``policy``."""
    try:
        return resolve_seats(policy, rules)
    except ValueError as exc:
        raise (exc if str(exc).startswith("policy") else relabel("policy", exc)) from None


def has_python(policy) -> bool:
    """Whether a rollout strategy assignment has a Python strategy on some seat."""
    return any(p is not None for p in policy_seats(policy)[3])


def match_totals_of(game) -> np.ndarray:
    """int64[3]: the match totals before the game's hand (points; the third entry 0
    with 2 sides), from :attr:`sim.analysis.match_rollouts.match_totals`.

    Raises
    ------
    ValueError
        The game carries no totals (``objective: ...``), or not one per side.
    """
    t = game.match_totals
    if t is None:
        raise ValueError("objective: 'match' needs the match totals before this hand: a "
                         "position's [match] totals (docs/positions.md), a game's "
                         "match_totals, or a hand of a match run (burraco analyze DIR --hand "
                         "I ...); this one has none")
    n = sides(game.rules)
    if len(t) != n:
        raise ValueError(f"objective: the match totals {list(t)} should have {n} entries "
                         f"(one per {'player' if n == 3 else 'side'})")
    out = np.zeros(3, np.int64)
    out[:n] = [int(x) for x in t]
    return out


def _source_buffer(game) -> np.ndarray:
    """The game's words a rollout needs, in a buffer without an event log."""
    from kernels.search import rollouts as KR
    src = np.zeros(KW.work_words(0, 0), np.int64)
    src[:KR.ROLL_WORDS] = game._work[:KR.ROLL_WORDS]
    src[KW.W_EV_ROWS] = 0
    src[KW.W_EV_CARDS] = 0
    return src


def _batches(run, worlds: int, units: int, threads: int, progress: bool) -> float:
    """Call ``run(at, n)`` over worlds ``0 .. worlds-1`` (a tqdm bar of ``units`` rollouts
    per world with ``progress``); returns the seconds of the calls."""
    t0 = time.perf_counter()
    if not progress:
        run(0, worlds)
        return time.perf_counter() - t0
    bar = progress_bar(worlds * units, "analyze", "rollout")
    try:
        at, batch = 0, min(worlds, 8 * threads)
        while at < worlds:
            n = min(batch, worlds - at)
            t = time.perf_counter()
            run(at, n)
            bar.update(n * units)
            at += n
            batch = max(1, int(0.25 / max((time.perf_counter() - t) / n, 1e-7)))
    finally:
        bar.close()
    return time.perf_counter() - t0


def rollout_matrix(game, actions, worlds: int, seed: int, policy, threads: int,
                   progress: bool, first: int, debug: bool, objective: str) -> dict:
    """:func:`sim.analysis.rollout_matrix` for the match objective or a Python
    rollout strategy (same parameters, already checked).

    Returns
    -------
    dict
        ``result``, ``own``, ``closed``, ``error`` (int64[worlds, C]) as the hand
        objective's, and with ``objective="match"`` also ``win`` (int64[worlds,
        C]: 1 won, 0 lost, -1 undecided, :mod:`kernels.search.match_rollouts`) and
        ``later`` (later hands played); ``seconds``, ``threads``.
    """
    seats = policy_seats(policy, game.rules)
    acts = np.asarray(list(actions), np.int64)
    totals = match_totals_of(game) if objective == "match" else None
    shape = (worlds, acts.shape[0])
    keys = ("result", "own", "closed", "error") + (("win", "later") if totals is not None
                                                   else ())
    out = {k: np.zeros(shape, np.int64) for k in keys}
    src = _source_buffer(game)
    if any(p is not None for p in seats[3]):
        play = _PythonRollouts(game, acts, seed, seats, debug, totals, out)
        out["seconds"] = _batches(lambda at, n: play.worlds(first, at, n), worlds,
                                  acts.shape[0], 1, progress)
        out["threads"] = 1
        return out
    import numba

    from kernels.search import match_rollouts as KMR
    from kernels.search import rollouts as KR
    _, kinds, params, _ = seats
    scratch = np.zeros((min(worlds, 4 * threads), 2, src.shape[0]), np.int64)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        def run(at, n):
            KMR.match_rollouts(src, np.int64(game.current_seat), acts, np.uint64(seed),
                               np.int64(first + at), np.int64(n), kinds, params,
                               np.int64(bool(debug)), np.int64(KR.ROLL_WORDS), scratch, totals,
                               np.int64(MAX_LATER_HANDS),
                               *(out[k][at:at + n] for k in keys))

        # one world run for real compiles (or loads) the chunk kernel; it is run again below
        with compiling.announce("the match rollout kernel",
                                compiling.cold(KMR.match_rollouts_chunk), progress,
                                prefix="analyze: "):
            run(0, 1)
        out["seconds"] = _batches(run, worlds, acts.shape[0], threads, progress)
    finally:
        numba.set_num_threads(old)
    out["threads"] = threads
    return out


class _PythonRollouts:
    """The rollouts of :func:`rollout_matrix` through :class:`sim.Game`, for rollout
    strategies with Python seats: the kernels' worlds and steps, one at a time."""

    def __init__(self, game, acts, seed, seats, debug, totals, out):
        names, kinds, params, pythons = seats
        self.game, self.acts, self.seed, self.out = game, acts, seed, out
        self.rules = game.rules
        n = self.rules.num_players
        self.names = [nm if s < n else None for s, nm in enumerate(names)]
        self.kinds, self.params = kinds, params
        self.players = [p.player() if p is not None and s < n else None
                        for s, p in enumerate(pythons)]
        self.debug = int(bool(debug))
        self.totals = totals
        self.src = _source_buffer(game)
        self.seat = game.current_seat
        self.Game = Game
        if totals is not None:
            self.target = match_target(self.rules)
            self.solo18 = n == 3 and self.rules.three_player_mode == "solo_18"
            self.individual = self.rules.replace(three_player_mode="individual_3x11") \
                if n == 3 else self.rules

    def _reset(self, w: int) -> None:
        for s, p in enumerate(self.players):
            if p is not None:
                p.reset(s, self.rules, self.game.hand_index, random_seed(self.seed, w, s))

    def _play(self, work) -> np.ndarray:
        """Play the hand in ``work`` to its end; its record."""
        g = self.Game(work, self.game.seed, self.game.hand_index, self.rules, list(self.names),
                      self.players)
        g._play_python()
        return g._record()

    def worlds(self, first: int, at: int, count: int) -> None:
        from kernels.search import rollouts as KR
        from kernels.table.worlds import resample_unseen
        n_par = self.params.shape[1]
        for i in range(at, at + count):
            w = first + i
            world = self.src.copy()
            resample_unseen(world, np.int64(self.seat), np.uint64(self.seed), np.int64(w))
            world[KW.W_KINDS:KW.W_KINDS + 4] = self.kinds
            world[KW.W_PARAMS:KW.W_PARAMS + 4 * n_par] = \
                np.ascontiguousarray(self.params, np.float64).view(np.int64).ravel()
            world[KW.W_DEBUG] = self.debug
            later = {}
            for c, a in enumerate(self.acts):
                roll = world.copy()
                code = KA.apply_action(roll, np.int64(a))
                if code != 0:
                    self.out["error"][i, c] = -code
                    continue
                self._reset(w)
                rec = self._play(roll)
                r, o, cl = KR.side_result(roll, rec, np.int64(self.seat))
                self.out["result"][i, c] = r
                self.out["own"][i, c] = o
                self.out["closed"][i, c] = cl
                self.out["error"][i, c] = rec[L.REC_ERROR]
                if self.totals is not None:
                    self._match_on(i, c, w, roll, rec, later)

    def _match_on(self, i, c, w, work, rec, later) -> None:
        """The match after the hand of rollout ``(i, c)``, as :mod:`kernels.search.match_rollouts`."""
        from kernels.search import match_rollouts as KMR

        n = self.rules.num_players
        nsides = sides(self.rules)
        ownside = self.seat if n == 3 else self.game.team_of(self.seat)
        score = [L.N_HAND_COLS + s * L.N_TEAM_COLS + L.TC_SCORE for s in range(nsides)]
        totals = self.totals.copy()
        totals[:nsides] += rec[score]
        dealer = int(work[KW.W_G + KS.G_DEALER])
        err = int(rec[L.REC_ERROR])
        individual = not self.solo18
        outcome = KMR.match_outcome(totals, np.int64(nsides), np.int64(self.target),
                                    np.int64(ownside))
        h = 0
        while outcome == KMR.UNDECIDED and h < MAX_LATER_HANDS:
            h += 1
            if self.solo18 and not individual:
                individual = bool(totals.max() >= self.rules.three_player_switch_at)
            mode = int(individual and self.solo18)
            if (h, mode) not in later:
                rules = self.individual if mode else self.rules
                g = self.Game._deal(self.seed ^ int(KMR.LATER_SALT), w * KMR.LATER_STRIDE + h,
                                    rules, (dealer + h) % n, self.kinds, self.params,
                                    list(self.names), self.players, debug=bool(self.debug),
                                    log=(0, 0))
                g._play_python()
                r = g._record()
                later[(h, mode)] = (r[score].astype(np.int64), int(r[L.REC_ERROR]))
            add, e = later[(h, mode)]
            err |= e
            totals[:nsides] += add
            outcome = KMR.match_outcome(totals, np.int64(nsides), np.int64(self.target),
                                        np.int64(ownside))
        self.out["win"][i, c] = outcome
        self.out["later"][i, c] = h
        self.out["error"][i, c] = err


def add_match_columns(df: pd.DataFrame, m: dict, seed: int) -> pd.DataFrame:
    """The analysis table with the match columns (:data:`MATCH_COLUMNS`), sorted by
    ``win_prob`` (highest first; then ``mean_result``, then the action id).

    ``m`` holds ``win`` and ``later`` (int64[W, C], :func:`rollout_matrix`) for the
    candidates ``m["actions"]``; the hand columns of ``df`` stay as they are
    (``diff_best`` still against the candidate of the highest ``mean_result``).
    """
    acts = [int(a) for a in m["actions"]]
    win = (m["win"] == 1).astype(np.float64)
    w = win.shape[0]
    mean = win.mean(axis=0)
    hand = df.set_index("action")["mean_result"]
    order = sorted(range(len(acts)), key=lambda j: (-mean[j], -hand[acts[j]], acts[j]))
    d = win - win[:, [order[0]]]
    d_mean = d.mean(axis=0)
    d_se = np.sqrt(d.var(axis=0, ddof=1) / w)
    low, high = wilson(win.sum(axis=0), w)
    extra = pd.DataFrame({
        "action": acts, "win_prob": mean, "win_low": low, "win_high": high,
        "win_diff": d_mean, "win_diff_low": d_mean - Z95 * d_se,
        "win_diff_high": d_mean + Z95 * d_se, "win_p_best": p_best(win, seed),
        "undecided": (m["win"] == -1).mean(axis=0), "later_hands": m["later"].mean(axis=0),
    })
    others = list(order[1:])
    indep = float(sum(win[:, j].var(ddof=1) + win[:, order[0]].var(ddof=1) for j in others))
    paired = float(sum(d[:, j].var(ddof=1) for j in others))
    out = df.merge(extra, on="action", how="left")
    rank = {a: k for k, a in enumerate(acts[j] for j in order)}
    out = out.iloc[np.argsort([rank[a] for a in out["action"]], kind="stable")]
    out = out.reset_index(drop=True)
    out.attrs = dict(df.attrs)
    out.attrs["win_var_reduction"] = (indep / paired if paired > 0 else
                                      (math.inf if indep > 0 else math.nan))
    return out


def format_match_table(df: pd.DataFrame, source: str | None = None) -> list:
    """The table lines of a match-objective analysis (:func:`sim.analysis.format_table`)."""
    chosen = df["chosen"].tolist() if "chosen" in df.columns else [False] * len(df)
    lines = [("P(win): the side to move wins the match (R60), played on with the rollout "
              "strategy after this hand; diff: paired with the best on the same worlds; "
              "hand: the mean hand result (points)"), ""]
    width = min(44, max(6, *(len(t) for t in df["text"])))
    lines.append(f"{'#':>3}  {'action':<{width}}  {'P(win)':>7}  {'95% interval':>15}  "
                 f"{'diff to best (95% interval)':>30}  {'P(best)':>7}  {'hand':>8}  "
                 f"{'close':>6}")
    for i, row in enumerate(df.itertuples(index=False), 1):
        interval = f"{row.win_low:.1%} .. {row.win_high:.1%}"
        diff = "best" if i == 1 else (f"{row.win_diff:+.1%} ({row.win_diff_low:+.1%} .. "
                                      f"{row.win_diff_high:+.1%})")
        mark = "*" if chosen[i - 1] else " "
        lines.append(f"{i:>3}{mark} {shortened(row.text, width):<{width}}  {row.win_prob:>7.1%}  "
                     f"{interval:>15}  {diff:>30}  {row.win_p_best:>7.1%}  "
                     f"{signed(row.mean_result):>8}  {row.close_prob:>6.1%}")
    lines.append("")
    undecided = float((df["undecided"] * df["rollouts"]).sum())
    lines.append(f"the matches needed {df['later_hands'].mean():.2f} more hands on average"
                 + (f"; {plural(int(undecided), 'rollout')} still undecided after "
                    f"{plural(MAX_LATER_HANDS, 'hand')} (counted as not won)" if undecided else ""))
    r = df.attrs.get("win_var_reduction")
    if r is not None and math.isfinite(r):
        lines.append(f"common random numbers, P(win): the paired differences have x{r:.2f} "
                     "less variance than independent sampling would give")
    return lines


def totals_text(df: pd.DataFrame) -> str:
    """``"; match totals 1770, 1900 (target 2005)"`` or ``""``."""
    t = df.attrs.get("match_totals")
    if t is None:
        return ""
    return f"; match totals {', '.join(str(x) for x in t)} (target {df.attrs['target']})"


def chosen_line(df: pd.DataFrame) -> str | None:
    """``"*: the run's heuristic chose discard K♣ (row 3)"``, or None without a choice."""
    a = df.attrs
    if "chosen" not in a:
        return None
    rows = [i for i, c in enumerate(df["chosen"], 1) if c]
    where = f"row {rows[0]}" if rows else "not among the candidates"
    return (f"*: the run's strategy ({a['chosen_by']}) chose {a['chosen_text']} ({where}); "
            f"hand {a['hand_index']} of seed {a['run_seed']}, turn {a['turn']}, "
            f"{a['decision']}" + (", checked against the run's row" if a.get("checked") else ""))
