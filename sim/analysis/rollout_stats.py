"""The statistics of position analysis beyond a fixed number of worlds (docs/analyze.md).

* **The sequential rule** (``sim.analyze(..., until_separated=True)``,
  ``burraco analyze --until-separated``).  Looks on a fixed schedule: after
  every ``batch`` worlds, ``n_k = min(k * batch, max_rollouts)``,
  ``k = 1 .. K`` with ``K = ceil(max_rollouts / batch)``.  At look ``k`` the
  leader ``b`` is the candidate with the highest mean result; every other
  candidate ``c`` gets the one-sided upper bound of its paired difference to
  the leader ``U_c = mean(d) + z_sep * sd(d) / sqrt(n_k)``, ``d_w = r_w(c) -
  r_w(b)``, with ``z_sep = Phi^-1(1 - alpha / (K * (C - 1)))`` (Bonferroni
  over the ``K`` looks and the ``C - 1`` other candidates, ``alpha =``
  :data:`SEQ_ALPHA`).  The analysis stops at the first look where every
  other candidate has ``U_c < margin`` (points), or at the cap.  Candidates
  with equal results on every world so far are not separated (they may
  differ on later worlds): they need a margin > 0.
  Guarantee (normal approximation): whatever the true means, the chance that
  the rule stops by separation naming a best that is worse than the true
  best by more than ``margin`` is at most ``alpha``; for the true best ``c*``
  the ``K * (C - 1)`` bounds ``U`` of ``c*`` against the leaders hold
  together with chance ``>= 1 - alpha``, and a stop naming ``b`` needs
  ``U_c* < margin`` (Hsu's multiple comparisons with the best).
* **Intervals after a sequential stop.**  An interval computed as if the
  number of worlds had been fixed is too narrow after a data-dependent stop
  (the paired difference that stopped the rule tends to be overestimated);
  the table of a sequential analysis uses the multiplier ``z_stop``
  (:func:`stop_multiplier`) instead of 1.96: the smallest one whose interval
  of the paired difference covers its true value with chance ``>= 95%`` at
  the stop, for every true difference, computed for the schedule's looks and
  ``z_sep`` by simulating the rule on the Brownian-motion (normal)
  approximation of one paired difference (:data:`STOP_PATHS` paths, a fixed
  seed).  The mean results, less tied to the stop, are given the same
  multiplier; ``benchmarks/analyze_validation.py`` measures both coverages.
* **Control variates** (``adjust="cv"``).  The deal features of the worlds
  (:func:`kernels.search.rollouts.world_features`: the wilds and card points each
  other seat is dealt, the next round of stock draws, the pozzetti) have
  means known exactly (:func:`kernels.search.rollouts.feature_means`: the unseen
  cards are dealt uniformly, so the means are hypergeometric).  Each
  candidate's results are regressed on the centred features, ``r_adj_w =
  r_w - beta' (x_w - mu)`` (least squares over the worlds); the means,
  paired differences, intervals and ``p_best`` are computed from ``r_adj``
  with ``q + 1`` degrees of freedom taken for the ``q`` fitted coefficients.
  The estimator is unbiased up to ``O(q / W)``.
* **Post-stratification** (``adjust="strata"``): the strata are the number of
  wilds dealt to the opponents' hands (their unseen places), with exact
  hypergeometric probabilities; adjacent counts are merged until each
  stratum has a probability of at least :data:`MIN_STRATUM`.  It is the
  regression above on the strata's indicators: ``sum_s p_s mean_s``.

The variance reductions are measured from the same rollouts: the variance of
a candidate's results (of a paired difference) over the variance of the
adjusted ones, summed over the candidates (over the differences to the best).
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from sim._util import compiling
from sim._util.progress import progress_bar
from sim._util.stats import Z95
from sim._util.text import plural
from sim.analysis.rollouts import MAX_ROLLOUTS, rollout_matrix, summarize_rollouts
from sim.core.cards import check_int
from sim.play.game import Game

__all__ = ["ADJUSTMENTS", "ATTRS", "MIN_STRATUM", "SEQ_ALPHA", "STOP_PATHS", "Estimator",
           "adjusted_results", "check_options", "feature_matrix", "reductions", "schedule",
           "separated", "separation_z", "sequential_matrix", "stop_multiplier", "strata",
           "summarize"]

SEQ_ALPHA = 0.05         # the sequential rule's chance of a wrong separation
STOP_PATHS = 20_000      # simulated paths of stop_multiplier
MIN_STRATUM = 0.05       # the smallest probability of a stratum of "strata"
ADJUSTMENTS = ("none", "strata", "cv")
_Z95 = NormalDist().inv_cdf(0.975)


# ---------------------------------------------------------------- the sequential rule
def schedule(batch: int, max_rollouts: int) -> list[int]:
    """The worlds at each look: ``[batch, 2 * batch, ..., max_rollouts]`` (ints)."""
    looks = list(range(batch, max_rollouts, batch))
    return looks + [max_rollouts]


def separation_z(looks: int, candidates: int, alpha: float = SEQ_ALPHA) -> float:
    """``z_sep = Phi^-1(1 - alpha / (looks * (candidates - 1)))`` (module docstring)."""
    return NormalDist().inv_cdf(1.0 - alpha / (looks * max(1, candidates - 1)))


def separated(r: np.ndarray, order: list[int], ddof: int, z_sep: float,
              margin: float) -> bool:
    """Whether the rule stops at this look.

    Parameters
    ----------
    r : numpy.ndarray
        float64[n, C], the results (points; adjusted when a control is on).
    order : list of int
        The columns best first (``order[0]`` is the leader).
    ddof : int
        Degrees of freedom taken by the estimator (1, or ``q + 1``).
    z_sep : float
        The bound's multiplier (:func:`separation_z`).
    margin : float
        The indifference margin (points, >= 0).
    """
    n = r.shape[0]
    b = order[0]
    for c in order[1:]:
        d = r[:, c] - r[:, b]
        upper = d.mean() + z_sep * math.sqrt(d.var(ddof=ddof) / n)
        if not upper < margin:
            return False
    return True


@lru_cache(maxsize=64)
def stop_multiplier(looks: tuple, z_sep: float, paths: int = STOP_PATHS) -> float:
    """The interval multiplier after a sequential stop (module docstring).

    Parameters
    ----------
    looks : tuple of int
        The worlds at each look (:func:`schedule`).
    z_sep : float
        The rule's multiplier (:func:`separation_z`).
    paths : int
        Simulated paths (a fixed seed: the result is a function of the arguments).

    Returns
    -------
    float
        The largest, over true differences ``delta = 0, 0.25, ..., z_sep + 4``
        standard errors of the first look, of the 95% quantile of
        ``|estimate - delta| / se`` at the stop of the rule (stop at the first
        look with ``|estimate| / se > z_sep``, or the last); at least 1.96.
    """
    n = np.asarray(looks, np.float64)
    rng = np.random.default_rng(np.random.SeedSequence([14, len(looks)]))
    steps = np.diff(np.concatenate([[0.0], n]))
    walk = np.cumsum(rng.standard_normal((paths, n.size)) * np.sqrt(steps), axis=1)
    noise = walk / np.sqrt(n)                 # (estimate - delta) / se at each look
    se1 = 1.0 / math.sqrt(n[0])
    worst = _Z95
    rows = np.arange(paths)
    for delta in np.arange(0.0, z_sep + 4.0 + 1e-9, 0.25):
        z = noise + delta * se1 * np.sqrt(n)
        crossed = np.abs(z) > z_sep
        at = np.where(crossed.any(axis=1), crossed.argmax(axis=1), n.size - 1)
        worst = max(worst, float(np.quantile(np.abs(noise[rows, at]), 0.95)))
    return worst


# ---------------------------------------------------------------- control variates
def strata(game, seat: int):
    """The strata of "strata": the wilds dealt to the opponents' unseen places.

    Returns
    -------
    tuple
        ``(offset, cuts, probs)``: the opponents' wilds in a world less
        ``offset`` (their known wilds, cards) is hypergeometric; stratum ``s``
        holds the counts ``cuts[s] .. cuts[s + 1] - 1`` with probability
        ``probs[s]`` (exact; each ``>= MIN_STRATUM`` when there are two or
        more).  ``cuts`` has one more entry than ``probs``.
    """
    from kernels.table import worlds as KWD
    from kernels.core.cards import CIDX, JOKER, RANK, TWO

    st = game.state
    places = np.empty((108, 3), np.int64)
    m = int(KWD.unseen_places(game._work, np.int64(seat), places))
    n = game.rules.num_players
    opp = {s for s in range(n) if s != seat and game.team_of(s) != game.team_of(seat)}
    wild = 0
    in_opp = 0
    unseen_opp_wilds = 0
    for k in range(m):
        where, a, b = (int(x) for x in places[k])
        cid = (st.hand[a, b] if where == KWD.PLACE_HAND else
               st.stock[a] if where == KWD.PLACE_STOCK else st.poz[a, b])
        w = int(CIDX[cid] == JOKER or RANK[cid] == TWO)
        wild += w
        if where == KWD.PLACE_HAND and a in opp:
            in_opp += 1
            unseen_opp_wilds += w
    total_opp_wilds = sum(int(CIDX[st.hand[s, i]] == JOKER or RANK[st.hand[s, i]] == TWO)
                          for s in opp for i in range(int(st.hn[s])))
    offset = total_opp_wilds - unseen_opp_wilds
    top = min(wild, in_opp)
    p = [math.comb(wild, v) * math.comb(m - wild, in_opp - v) / math.comb(m, in_opp)
         if m else 1.0 for v in range(top + 1)]
    cuts, probs, acc = [0], [], 0.0
    for v, pv in enumerate(p):
        acc += pv
        if acc >= MIN_STRATUM and v < top:
            cuts.append(v + 1)
            probs.append(acc)
            acc = 0.0
    probs.append(acc)
    cuts.append(top + 1)
    if len(probs) > 1 and probs[-1] < MIN_STRATUM:     # the tail joins the stratum before it
        tail = probs.pop()
        probs[-1] += tail
        del cuts[-2]
    return offset, cuts, probs


def strata_features(opp_wilds: np.ndarray, offset: int, cuts, probs):
    """``(x float64[W, S-1], mu float64[S-1])``: the indicators of strata 1 .. S-1
    of each world and their exact means (the strata's probabilities)."""
    v = np.asarray(opp_wilds, np.float64) - offset
    bounds = list(itertools.pairwise(cuts))[1:]          # strata 1 .. S-1
    x = np.stack([(v >= lo) & (v < hi) for lo, hi in bounds], axis=1) \
        if bounds else np.zeros((v.shape[0], 0))
    return x.astype(np.float64), np.asarray(probs[1:], np.float64)


def adjusted_results(result: np.ndarray, x: np.ndarray, mu: np.ndarray):
    """The control-variate estimator of every column (module docstring).

    Parameters
    ----------
    result : numpy.ndarray
        int or float [W, C], the results (points).
    x : numpy.ndarray
        float64[W, F], the features of each world.
    mu : numpy.ndarray
        float64[F], their exact means.

    Returns
    -------
    tuple
        ``(r_adj float64[W, C], ddof int)``: ``r_adj = r - (x - mu) @ beta``
        with ``beta`` the least-squares coefficients of the centred results on
        the centred features (features that do not vary are left out), and
        ``ddof = q + 1`` for ``q`` the rank of the centred features.
    """
    r = np.asarray(result, np.float64)
    x = np.asarray(x, np.float64)
    keep = x.std(axis=0) > 0 if x.size else np.zeros(0, bool)
    x, mu = x[:, keep], np.asarray(mu, np.float64)[keep]
    if x.shape[1] == 0 or r.shape[0] <= x.shape[1] + 2:
        return r, 1
    xc = x - x.mean(axis=0)
    beta, _, rank, _ = np.linalg.lstsq(xc, r - r.mean(axis=0), rcond=None)
    return r - (x - mu) @ beta, int(rank) + 1


def reductions(raw: np.ndarray, adj: np.ndarray, ddof: int, best: int) -> tuple:
    """``(of the means, of the paired differences)``: summed variances of the raw
    results (of the differences to column ``best``) over the adjusted ones (NaN when
    there is nothing to compare)."""
    def ratio(a, b):
        a, b = float(a.var(axis=0, ddof=1).sum()), float(b.var(axis=0, ddof=ddof).sum())
        return a / b if b > 0 else (math.inf if a > 0 else math.nan)
    others = [j for j in range(raw.shape[1]) if j != best]
    means = ratio(raw, adj)
    if not others:
        return means, math.nan
    return means, ratio(raw[:, others] - raw[:, [best]], adj[:, others] - adj[:, [best]])


# ---------------------------------------------------------------- driving the rollouts
def feature_matrix(game, worlds: int, seed: int, first: int = 0, threads: int = 1):
    """``(x float64[worlds, N_FEATURES], mu float64[N_FEATURES])``: the deal
    features of worlds ``first ..`` of ``game``'s seat to move and their exact
    means (:func:`kernels.search.rollouts.world_features`, ``feature_means``)."""
    import numba

    from kernels.search import rollouts as KR
    from kernels.table import work as KW

    src = np.zeros(KW.work_words(0, 0), np.int64)
    src[:KR.ROLL_WORDS] = game._work[:KR.ROLL_WORDS]
    src[KW.W_EV_ROWS] = src[KW.W_EV_CARDS] = 0
    seat = np.int64(game.current_seat)
    x = np.zeros((worlds, KR.N_FEATURES))
    mu = np.zeros(KR.N_FEATURES)
    scratch = np.zeros((max(1, min(worlds, 4 * threads)), 2, src.shape[0]), np.int64)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        with compiling.announce("the deal-feature kernels",
                                compiling.cold(KR.feature_means, KR.world_features),
                                prefix="analyze: "):
            KR.feature_means(src, seat, mu)
            KR.world_features(src, seat, np.uint64(seed), np.int64(first), np.int64(worlds),
                              np.int64(KR.ROLL_WORDS), scratch, x)
    finally:
        numba.set_num_threads(old)
    return x, mu


def opponents_wilds(game, x: np.ndarray) -> np.ndarray:
    """float64[W]: the wilds dealt to the opponents' hands in each world, from
    the feature matrix of :func:`feature_matrix`."""
    n = game.rules.num_players
    seat = game.current_seat
    cols = [2 * ((s - seat) % n - 1) for s in range(n)
            if s != seat and game.team_of(s) != game.team_of(seat)]
    return x[:, cols].sum(axis=1)


class Estimator:
    """The estimator of the mean results: plain (``"none"``), ``"strata"`` or
    ``"cv"`` (module docstring), for ``game``'s seat to move."""

    def __init__(self, game, adjust: str, seed: int, threads: int, worlds_mode: int):
        if adjust not in ADJUSTMENTS:
            raise ValueError(f"adjust: expected one of {', '.join(ADJUSTMENTS)}, got {adjust!r}")
        if adjust != "none" and worlds_mode == 1:
            raise ValueError("adjust: the true hidden cards do not vary between the worlds; "
                             "use adjust='none' with worlds='true'")
        if adjust != "none" and worlds_mode:
            raise ValueError("adjust: the deal features' exact means are those of uniform "
                             "worlds; use adjust='none' with worlds='model'")
        self.game, self.adjust, self.seed, self.threads = game, adjust, seed, threads
        self.x = np.zeros((0, 0))
        self.mu = None
        self.strata = strata(game, game.current_seat) if adjust == "strata" else None

    def grow(self, worlds: int) -> None:
        """Compute the features of the worlds up to ``worlds`` (a prefix is kept)."""
        have = self.x.shape[0]
        if self.adjust == "none" or worlds <= have:
            return
        x, self.mu = feature_matrix(self.game, worlds - have, self.seed, have, self.threads)
        self.x = x if have == 0 else np.concatenate([self.x, x])

    def features(self, worlds: int):
        """``(x, mu)`` of the first ``worlds`` worlds for the regression."""
        self.grow(worlds)
        x = self.x[:worlds]
        if self.adjust == "strata":
            offset, cuts, probs = self.strata
            return strata_features(opponents_wilds(self.game, x), offset, cuts, probs)
        return x, self.mu

    def __call__(self, result: np.ndarray):
        """``(r float64[W, C], ddof)``: the results to take the statistics of."""
        if self.adjust == "none":
            return np.asarray(result, np.float64), 1
        x, mu = self.features(result.shape[0])
        return adjusted_results(result, x, mu)


def sequential_matrix(game, acts, estimator: Estimator, *, seed: int, policy, threads: int,
                      progress: bool, debug: bool, worlds_mode: int, batch: int,
                      max_rollouts: int, margin: float) -> dict:
    """Roll out look by look until the rule stops (module docstring).

    Returns
    -------
    dict
        As :func:`sim.analysis.rollout_matrix` for the worlds played
        (``result``, ``own``, ``closed``, ``error`` int64[W, C], ``seconds``,
        ``threads``), and ``looks`` (list of int, the schedule), ``look``
        (the looks made), ``stop`` (``"separated"`` or ``"cap"``), ``z_sep``.
    """

    looks = schedule(batch, max_rollouts)
    z_sep = separation_z(len(looks), len(acts))
    parts, seconds, stop, done = [], 0.0, "cap", 0
    bar = None
    if progress:
        bar = progress_bar(max_rollouts * len(acts), "analyze", "rollout")
    try:
        for k, n in enumerate(looks, 1):
            m = rollout_matrix(game, acts, n - done, seed=seed, policy=policy, threads=threads,
                               first=done, debug=debug, worlds_mode=worlds_mode)
            parts.append(m)
            seconds += m["seconds"]
            done = n
            if bar is not None:
                bar.update((n - (looks[k - 2] if k > 1 else 0)) * len(acts))
            if (m["error"] < 0).any():
                break                         # analyze reports the illegal candidate
            result = np.concatenate([p["result"] for p in parts])
            if n < 2:
                continue
            r, ddof = estimator(result)
            mean = r.mean(axis=0)
            order = sorted(range(len(acts)), key=lambda j: (-mean[j], int(acts[j])))
            if separated(r, order, ddof, z_sep, margin):
                stop = "separated"
                break
        if bar is not None:             # stopped before the cap: the bar ends at the worlds played
            bar.total = bar.n
            bar.refresh()
    finally:
        if bar is not None:
            bar.close()
    out = {key: np.concatenate([p[key] for p in parts])
           for key in ("result", "own", "closed", "error")}
    out.update(seconds=seconds, threads=parts[0]["threads"], looks=looks, look=len(parts),
               stop=stop, z_sep=z_sep)
    return out


# ---------------------------------------------------------------- options and the table
#: attrs of the analysis that this module adds (also in the JSON ``analysis`` object)
ATTRS = {
    "worlds_kind": '"sampled", "model" (dealt by the card-location model) or "true" (the '
                   'oracle: the hidden cards as they are)',
    "adjust": '"none", "strata" or "cv": the estimator beyond the common random numbers',
    "adjust_means": "variance of the mean results without the adjustment over with it, summed "
                    "over the candidates (NaN without one)",
    "adjust_diffs": "the same for the paired differences to the best",
    "until_separated": "whether the sequential rule ran",
    "stop": '"separated" or "cap" (None without the rule)',
    "looks": "looks made by the rule (None without it)",
    "max_looks": "looks of the rule's schedule (None without it)",
    "batch": "worlds between the rule's looks (None without it)",
    "max_rollouts": "the rule's cap (worlds; None without it)",
    "margin": "the rule's indifference margin (points; None without it)",
    "z_sep": "the rule's separation multiplier (None without it)",
    "z_interval": "the intervals' multiplier (1.96, or stop_multiplier after the rule)",
}


#: the ``worlds`` option's values and their kernel modes (kernels.search.rollouts: sampled
#: uniformly, the true hidden cards, sampled by the card-location model)
WORLDS_KINDS = {"sampled": 0, "true": 1, "model": 2}


def check_options(source, until_separated, max_rollouts, batch, margin, adjust, worlds) -> dict:
    """The checked options (``worlds_mode``, ``batch``, ``max_rollouts``, ``margin``).

    Raises
    ------
    ValueError
        A bad option, naming it; ``worlds="true"`` for a position (its hidden
        cards are not known).
    """

    if worlds not in WORLDS_KINDS:
        raise ValueError(f"worlds: expected 'sampled', 'model' or 'true', got {worlds!r}")
    if worlds == "true" and not isinstance(source, Game):
        raise ValueError("worlds: 'true' needs the hidden cards, which a position does not hold; "
                         "give a sim.Game (a simulated hand) or use 'sampled'")
    if adjust not in ADJUSTMENTS:
        raise ValueError(f"adjust: expected one of {', '.join(ADJUSTMENTS)}, got {adjust!r}")
    max_rollouts = check_int("max_rollouts", max_rollouts, 2, MAX_ROLLOUTS)
    batch = check_int("batch", batch, 2, max_rollouts)
    try:
        margin = float(margin)
    except (TypeError, ValueError):
        margin = math.nan
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin: expected points >= 0, got {margin!r}")
    return {"worlds_mode": WORLDS_KINDS[worlds], "batch": batch, "max_rollouts": max_rollouts,
            "margin": margin}


def summarize(m: dict, acts, texts, seed: int, estimator: Estimator, opts: dict):
    """``(table, attrs)`` of the rollouts ``m`` (:func:`sim.analysis.summarize_rollouts`
    on the estimator's results, with the multiplier of a sequential stop)."""

    raw = m["result"]
    r, ddof = estimator(raw)
    sequential = "looks" in m
    z = stop_multiplier(tuple(m["looks"]), m["z_sep"]) if sequential else Z95
    df = summarize_rollouts(r, m["own"], m["closed"], acts, texts, seed, z=z, ddof=ddof,
                            raw=None if estimator.adjust == "none" else raw)
    best = list(acts).index(int(df.iloc[0].action))
    means, diffs = (reductions(np.asarray(raw, np.float64), r, ddof, best)
                    if estimator.adjust != "none" else (math.nan, math.nan))
    attrs = {"worlds_kind": {v: k for k, v in WORLDS_KINDS.items()}[opts["worlds_mode"]],
             "adjust": estimator.adjust, "adjust_means": means, "adjust_diffs": diffs,
             "until_separated": sequential, "z_interval": z}
    for key in ("stop", "look", "max_looks", "batch", "max_rollouts", "margin", "z_sep"):
        attrs[key] = None
    if sequential:
        attrs.update(stop=m["stop"], looks=m["look"], max_looks=len(m["looks"]),
                     batch=opts["batch"], max_rollouts=opts["max_rollouts"],
                     margin=opts["margin"], z_sep=m["z_sep"])
    else:
        attrs["looks"] = None
    attrs.pop("look")
    return df, attrs


def _times(r) -> str:
    if r is None or (isinstance(r, float) and math.isnan(r)):
        return "n/a"
    return "no variance left" if math.isinf(r) else f"x{r:.2f}"


def footer_lines(a: dict) -> list[str]:
    """The table footer's lines for the options of this module (``a``: the attrs)."""
    lines = []
    if a.get("worlds_kind") == "true":
        lines.append("worlds: the true hidden cards (oracle), the generator reseeded per world")
    elif a.get("worlds_kind") == "model":
        lines.append("worlds: the unseen cards dealt by the card-location model (what the "
                     "other seats discarded, passed on and melded)")
    adjust = a.get("adjust", "none")
    if adjust and adjust != "none":
        what = ("post-stratification on the wilds dealt to the opponents" if adjust == "strata"
                else "control variates (deal features with exact means)")
        lines.append(f"{what}: {_times(a.get('adjust_means'))} less variance of the mean results, "
                     f"{_times(a.get('adjust_diffs'))} of the paired differences (beyond the "
                     "common random numbers)")
    if a.get("until_separated"):
        how = ("the best is separated from every other candidate" if a.get("stop") == "separated"
               else "the cap was reached before the best was separated")
        margin = f", margin {a['margin']:g} points" if a.get("margin") else ""
        lines.append(f"sequential rule: stopped at look {a['looks']} of {a['max_looks']} "
                     f"({plural(a['worlds'], 'world')}, batch {a['batch']:,}{margin}): {how} "
                     f"(bounds at z {a['z_sep']:.2f}); intervals at ±{a['z_interval']:.2f} se "
                     "for the sequential stop")
    return lines
