"""Tuning a strategy of the ``heuristic`` family by CMA-ES, validated on unseen deals (issue 18).

:func:`tune` searches the parameters of a ``heuristic``-family strategy (``heuristic``,
``expert`` or a ``tuned_*`` one) with CMA-ES from pycma (the ``cma`` package, the ``tune``
extra), within the parameters' documented ranges (:data:`sim.strategies.HEURISTIC_LIMITS`).

Search space
    Each tuned parameter is one coordinate: a number ``v`` in ``lo..hi`` as ``(v - lo) /
    (hi - lo)`` in ``[0, 1]``; a whole number as ``v - lo`` in ``0 .. hi - lo``, so that its
    values lie on the integers, as pycma's integer handling (``integer_variables``: a floor
    on the spread of those coordinates, integer centring) needs.  The bounds are the
    documented ranges; the search starts at BASE's values with the spread of
    :data:`INITIAL_STEPS` (in parameter units) in each coordinate (pycma's ``CMA_stds``,
    ``sigma0 = 1``).  A candidate's number is rounded to 6 significant digits (as a spec
    prints it), a whole number to the nearest integer.

Objective
    Generation ``g`` plays deals ``0 .. hands_per_eval - 1`` of its block seed
    :func:`block_seed` ``(seed, g)``: every candidate of the generation plays that block
    against the reference, seats swapped (:func:`sim.comparison.compare_hands`, the kernels
    of ``sim.compare``), and CMA-ES ranks the candidates by the mean paired difference.  The
    reference is the search's current best, the distribution mean of the previous generation
    (the starting point in generation 0), or a fixed strategy (``against``).  The same block
    also plays the mean against ``validate_against`` (``expert``): the progress bar's
    current best and its interval, and the link that turns a candidate's difference from the
    mean into an estimate of its gain over ``expert`` (``est_gain``: the per-deal sum of
    the two paired differences).  A generation therefore costs ``(popsize + 1) *
    hands_per_eval`` deals (each played twice) of the budget.

Seeds
    ``block_seed(seed, g)``, :func:`validation_seed` ``(seed)`` and the seed of CMA's own
    random numbers are the first 8 bytes (little endian) of the BLAKE2b digest of
    ``"burraco-tune/<seed>/block/<g>"``, ``".../validate"`` and ``".../cma"``: distinct
    streams, and the validation seed is checked to be none of the blocks'.

Answer and validation
    The answer is the distribution mean after the last generation (not the luckiest
    candidate), its numbers rounded to 4 significant digits, written as a strategy file
    (``--strategy-file``).  It plays ``validate_hands`` deals (20,000 by default) of the
    validation seed against ``validate_against``, with a 95% interval; so does the luckiest
    point of the search (the highest ``est_gain``), to show the winner's curse: the gain a
    search sees on the deals it selected on, beside the gain on deals it never saw.

Output directory (``out``)
    ``_tune.json`` (the configuration; ``finished`` once done), ``log/gen-NNNN.parquet`` (one
    file per generation, every evaluated point: ``pd.read_parquet(DIR + "/log")``, columns
    :data:`LOG_COLUMNS`), ``strategy.toml`` (the answer) and ``result.json`` (the report).
    Every file is written under a temporary name and renamed.  The state is re-derived, not
    pickled: CMA-ES is started again from its seed and told the logged results generation by
    generation (its random numbers are kept apart from NumPy's global stream), which gives
    back the state of the interrupted run exactly; each replayed generation's candidates are
    checked against the log.  So running the same call again resumes an interrupted tuning
    and ends as an uninterrupted one; the generations after a damaged log file are kept and
    replayed.  A complete tuning run again replays its log, reads its report back from
    ``result.json`` (the validation is not played again) and writes nothing (no file is
    touched, so it works in a directory it may not write).  The directory is checked before
    anything is created and locked (:func:`sim.lock.claim`); a directory of a different
    tuning is refused (or replaced with ``overwrite``), files a tuning did not write beside
    it are kept and noted, and a non-empty directory holding no tuning is refused
    (:mod:`sim.workdir`).  Every log file
    carries the configuration (:data:`GEN_META_KEY`), from which :func:`repair_tuning`
    rebuilds a damaged or missing ``_tune.json``.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kernels.core import layout as L

from ._cards import check_int
from ._text import plural, resuming_line
from ._version import __version__
from .comparison import Z95, paired_rules
from .lock import claim
from .workdir import (Layout, complete, identity_of, note_others, os_error, overwrite_hint,
                      refuse_shape, repair, scan, state_text, status_lines, write_tagged,
                      write_text)
from .strategies import HEURISTIC, HEURISTIC_LIMITS, get, resolve, resolve_for

TUNE_JSON = "_tune.json"
RESULT_JSON = "result.json"
STRATEGY_FILE = "strategy.toml"
LOG_DIR = "log"
TUNE_FORMAT = 1
MAX_GENERATIONS = 10_000            # generation file names hold 4 digits
GEN_META_KEY = b"burraco_tune"      # Parquet key-value metadata: the tuning of a log file

#: Initial spread of each parameter of the heuristic (parameter units): small enough that a
#: typical first candidate loses only some points a hand to BASE; CMA-ES adapts it from there.
INITIAL_STEPS = {
    "pile_size_weight": 0.1, "pile_threshold": 0.5, "use_wild_to_meld": 0.3,
    "wild_layoff_min_len": 1.5, "discard_w_pair": 1.0, "discard_w_neighbor": 1.0,
    "discard_w_danger": 1.5, "discard_w_points": 0.05, "discard_w_wild": 5.0,
    "pile_w_wild": 0.5, "pile_min_size": 1.0, "pile_min_stock": 3.0,
    "pile_avoid_opp_2_or_5": 0.3, "close_min_burracos": 0.3, "set_bias": 0.5,
    "discard_w_middle": 0.5, "meld_delay_rounds": 0.3,
}

#: Columns of the log, one row per evaluated point (then one column per tuned parameter,
#: after ``role``: its value, float64, or int64 for a whole number).
LOG_COLUMNS = {
    "generation": "generation, from 0 (int64)",
    "candidate": "candidate of the generation, from 0; -1 for the mean's row (int64)",
    "role": "candidate, or mean: the distribution mean played against validate_against",
    "spec": "the strategy played (canonical spec)",
    "reference": "what it played against (canonical spec)",
    "block_seed": "the generation's deals: hands 0 .. hands-1 of this seed (uint64)",
    "hands": "deals played (each twice, seats swapped; int64)",
    "mean_diff": "mean paired difference against the reference (points per hand)",
    "se": "standard error of mean_diff (points)",
    "est_gain": "estimated gain over validate_against (points per hand): mean_diff for the "
                "mean's row and when the reference is validate_against; with the moving "
                "reference, the candidate's difference from the mean plus the mean's gain, "
                "per deal; NaN for another fixed reference",
    "est_gain_se": "standard error of est_gain (points)",
    "seconds": "wall time of the generation's evaluations (s; the same on its every row)",
}


def _derive(seed: int, what: str) -> int:
    digest = hashlib.blake2b(f"burraco-tune/{seed}/{what}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def block_seed(seed: int, generation: int) -> int:
    """The seed of generation ``generation``'s deals (hands 0 .. hands_per_eval-1 of it).

    The first 8 bytes, little endian, of the BLAKE2b digest of
    ``"burraco-tune/<seed>/block/<generation>"`` (an int in ``0 .. 2**64-1``).
    """
    return _derive(seed, f"block/{generation}")


def validation_seed(seed: int) -> int:
    """The seed of the validation deals: as :func:`block_seed`, from ``".../validate"``."""
    return _derive(seed, "validate")


def paired_objective(rules=None, threads: int | None = None):
    """The default objective: ``f(candidate, reference, hands, seed)`` returns the per-deal
    paired differences ``float64[hands]`` of :func:`sim.comparison.compare_hands`."""
    from .comparison import compare_hands

    def objective(candidate: str, reference: str, hands: int, seed: int) -> np.ndarray:
        return compare_hands(candidate, reference, hands, seed, rules, threads)["paired_diff"].to_numpy()
    return objective


# ------------------------------------------------------------------------ the search space
@dataclass(frozen=True)
class _Space:
    names: tuple                 # tuned parameters, in the heuristic's order
    base: dict                   # every heuristic parameter -> BASE's value

    def _limits(self, name):
        return HEURISTIC_LIMITS[name]

    def whole(self) -> list:
        return [i for i, n in enumerate(self.names) if self._limits(n)[2]]

    def x0(self) -> list:
        return [self.encode(n, self.base[n]) for n in self.names]

    def encode(self, name, v) -> float:
        lo, hi, whole = self._limits(name)
        return float(v - lo) if whole else (float(v) - lo) / (hi - lo)

    def bounds(self) -> list:
        lows = [0.0] * len(self.names)
        highs = [float(hi - lo) if whole else 1.0
                 for lo, hi, whole in map(self._limits, self.names)]
        return [lows, highs]

    def stds(self) -> list:
        out = []
        for n in self.names:
            lo, hi, whole = self._limits(n)
            step = INITIAL_STEPS[n]
            out.append(step if whole else step / (hi - lo))
        return out

    def decode(self, x, digits: int = 6) -> dict:
        """Coordinates -> {name: value} (whole numbers as int, numbers to ``digits``
        significant digits), inside the documented ranges."""
        out = {}
        for n, xi in zip(self.names, np.asarray(x, np.float64)):
            lo, hi, whole = self._limits(n)
            if whole:
                out[n] = int(min(max(lo + round(float(xi)), lo), hi))
            else:
                v = min(max(lo + float(xi) * (hi - lo), lo), hi)
                out[n] = float(f"{v:.{digits}g}") + 0.0          # no -0.0
        return out

    def spec(self, values: dict) -> str:
        full = {**self.base, **values}
        items = ",".join(f"{k}={full[k]!r}" for k in HEURISTIC.params)
        return resolve(f"heuristic:{items}")[0]


class _Rng:
    """CMA-ES's random numbers, kept apart from NumPy's global stream: pycma draws from
    ``np.random``; :meth:`on` swaps this state in for one call and out again."""

    def __init__(self, seed: int) -> None:
        self.state = np.random.RandomState(seed % 2**32).get_state()

    @contextlib.contextmanager
    def on(self):
        saved = np.random.get_state()
        np.random.set_state(self.state)
        try:
            yield
        finally:
            self.state = np.random.get_state()
            np.random.set_state(saved)


def _import_cma():
    try:
        import cma
    except ImportError:
        raise ValueError("tune needs pycma: pip install 'burraco-sim[tune]' (or pip install "
                         "'cma>=3.3')") from None
    return cma


def default_popsize(n_params: int) -> int:
    """pycma's default population size for ``n_params`` parameters: ``4 + int(3 ln n)``."""
    return 4 + int(3 * math.log(n_params))


# ------------------------------------------------------------------------ results
@dataclass(frozen=True)
class GenerationDone:
    """One generation of a tuning, given to :func:`tune`'s ``callback``.

    Attributes
    ----------
    generation, generations : int
        This generation (from 0) and the number the budget allows.
    log : pandas.DataFrame
        Its rows of the log (:data:`LOG_COLUMNS`): the candidates, then the mean.
    mean : dict
        The distribution mean it played (parameter values).
    mean_gain, mean_se : float
        The mean's paired difference against ``validate_against`` on the generation's deals,
        and its standard error (points per hand).
    resumed : bool
        Read back from the log in ``out``, not played now.
    """
    generation: int
    generations: int
    log: object
    mean: dict
    mean_gain: float
    mean_se: float
    resumed: bool


@dataclass
class TuneResult:
    """What :func:`tune` found.

    Attributes
    ----------
    spec : str
        The answer, the search's final mean, as a canonical spec.
    values : dict
        Its value of every heuristic parameter.
    strategy_file : str or None
        ``out/strategy.toml`` (None without ``out``).
    log : pandas.DataFrame
        Every evaluated point (:data:`LOG_COLUMNS`).
    report : dict
        The configuration, the search's own estimates and the validations (as
        ``out/result.json``; gains in points per hand, intervals 95%).
    """
    spec: str
    values: dict
    strategy_file: str | None
    log: object
    report: dict = field(default_factory=dict)

    def format(self) -> str:
        """The report as the text ``burraco tune`` prints."""
        return format_report(self.report)


def format_report(r: dict) -> str:
    """The text of a tuning's report (``result.json``)."""
    c = r["config"]
    vs = c["validate_against"]

    def est(x, se=None, bound=False):
        if x is None or not math.isfinite(x):
            return "-"
        if se is None or not math.isfinite(se):
            return f"{x:+.1f}"
        if bound:
            return f"{x:+.1f} (within ±{Z95 * se:.1f})"
        return f"{x:+.1f} ({x - Z95 * se:+.1f} .. {x + Z95 * se:+.1f})"

    v, vb = r["validation"], r["best_validation"]
    s = r["search"]
    lines = [
        f"tuned {', '.join(c['params'])} of {c['base']} ({c['rules_name']} rules): "
        f"{plural(r['generations'], 'generation')} of {plural(c['popsize'], 'candidate')}, "
        f"{plural(c['hands_per_eval'], 'deal')} each, {plural(r['hands_used'], 'deal')} of the "
        f"budget {c['budget']:,} (seed {c['seed']}); "
        f"reference: {c['against'] or 'the search mean of the previous generation'}",
        f"the answer (the search's final mean): {r['spec']}",
        "",
        f"gain over {vs}, points per hand (95% interval)",
        f"{'':34}{'during the search':<34}validated on unseen deals",
        f"{'the answer (search mean)':<34}{est(s['answer_gain'], s['answer_gain_se'], True):<34}"
        f"{est(v['mean_diff'], v['se'])}",
        f"{'the luckiest point':<34}{est(s['best_gain'], s['best_gain_se']):<34}"
        f"{est(vb['mean_diff'], vb['se'])}",
        f"{'the mean, last generation':<34}{est(s['last_mean_gain'], s['last_mean_se'])}",
        f"validation: {plural(v['hands'], 'deal')} of seed {v['seed']} (never played by the "
        "search), "
        "each twice, seats swapped",
        f"winner's curse (during - validated): the answer {est(s['answer_gain'] - v['mean_diff'])}"
        f", the luckiest point {est(s['best_gain'] - vb['mean_diff'])}",
    ]
    lines.append(f"time: the search {r['search_seconds']:.0f} s (the sum of its generations'), "
                 f"this call {r['seconds']:.0f} s")
    return "\n".join(lines)


# ------------------------------------------------------------------------ the tuner
def _check_spec(what: str, spec) -> str:
    from .pystrategy import is_python_spec
    if not isinstance(spec, str) or is_python_spec(spec):
        raise ValueError(f"{what} must be a built-in strategy spec, got {spec!r}")
    return resolve_for(what, spec)[0]


def _params(params, strat) -> tuple:
    if params is None:
        return tuple(HEURISTIC.params)
    if isinstance(params, str):
        params = [p.strip() for p in params.split(",")]
    if not isinstance(params, (list, tuple)) or not params:
        raise ValueError(f"params must be a non-empty list of parameter names, got {params!r}")
    seen = set()
    for p in params:
        if not isinstance(p, str) or p not in HEURISTIC.params:
            raise ValueError(f"params: strategy {strat.name!r} has no parameter {p!r}; allowed: "
                             f"{', '.join(HEURISTIC.params)}")
        if p in seen:
            raise ValueError(f"params: {p!r} given twice")
        seen.add(p)
    return tuple(p for p in HEURISTIC.params if p in seen)


def _rules_name(rules) -> str:
    from .rules import PRESETS, Rules
    for p in PRESETS:
        if Rules.preset(p) == rules:
            return p
    return "custom"


def tune(base: str, hands_per_eval: int, budget: int, seed: int, out=None, rules=None,
         params=None, against: str | None = None, popsize: int | None = None,
         validate_hands: int = 20_000, validate_against: str = "expert",
         overwrite: bool = False, threads: int | None = None, progress: bool = False,
         callback=None, objective=None) -> TuneResult:
    """Tune parameters of a ``heuristic``-family strategy by CMA-ES; validate the answer.

    The design (search space, objective, seeds, answer, directory) is in the module
    docstring and docs/tune.md.

    Parameters
    ----------
    base : str
        The starting point: ``heuristic``, ``expert``, a ``tuned_*`` strategy or one of
        them with parameters (``"expert:set_bias=1"``); untuned parameters keep its values.
    hands_per_eval : int
        Deals per evaluation (each played twice, seats swapped), at least 2.
    budget : int
        Deals the search may play in all: ``budget // ((popsize + 1) * hands_per_eval)``
        generations; at least one generation.
    seed : int
        Tuning seed, ``0 <= seed < 2**64``: the blocks, the validation deals and CMA's
        random numbers derive from it (module docstring).
    out : path, optional
        Directory for the log, the state, the strategy file and the report (resumable,
        locked; module docstring).  None: nothing is written.
    rules : Rules, str, dict or None
        Rule set or preset (2 or 4 players).
    params : list of str, optional
        The parameters to tune (default all 17 of the heuristic); the others keep BASE's.
    against : str, optional
        A fixed reference for the objective (default: the previous generation's mean).
    popsize : int, optional
        Candidates per generation, at least 2 (default pycma's ``4 + int(3 ln n)``).
    validate_hands : int
        Validation deals (default 20,000), at least 2.
    validate_against : str
        The strategy the gains are measured against (default ``expert``).
    overwrite : bool
        Replace another tuning in ``out`` instead of refusing it (only a tuning's files
        are deleted).
    threads : int, optional
        Numba threads.
    progress : bool
        A progress bar on stderr (generations, the mean's gain and its interval).
    callback : callable, optional
        Called with a :class:`GenerationDone` after each generation (once its log file is
        in place; first for the generations read back).  An exception it raises (e.g.
        ``KeyboardInterrupt``) stops the tuning with that generation kept.
    objective : callable, optional
        ``f(candidate, reference, hands, seed) -> float[hands]``, the per-deal paired
        differences of two specs on hands ``0..hands-1`` of ``seed`` (a test hook; default
        :func:`paired_objective`: ``compare_hands`` under ``rules``); the validation uses it
        too.

    Returns
    -------
    TuneResult

    Raises
    ------
    ValueError
        A base outside the heuristic family, an unknown or repeated parameter, bad counts,
        seed, rules or specs, a budget below one generation, pycma missing; an ``out``
        that is not empty and holds no tuning, or holds another tuning or a damaged
        ``_tune.json`` beside log files (unless ``overwrite``); nothing is created or
        deleted then.
    sim.lock.LockedError
        Another process writes ``out``.
    KeyboardInterrupt
        Passed on; the generations logged so far are kept and the same call resumes.
    """
    from .pystrategy import is_python_spec
    if not isinstance(base, str) or is_python_spec(base):
        raise ValueError(f"base must be a built-in strategy of the heuristic family (heuristic, "
                         f"expert, tuned_*), got {base!r}")
    resolve_for("base", base)
    strat = get(base.partition(":")[0].strip())
    if strat.kind != L.POLICY_HEURISTIC or set(strat.params) != set(HEURISTIC.params):
        family = sorted(n for n, s in _strategies().items() if s.kind == L.POLICY_HEURISTIC)
        raise ValueError(f"base: {strat.name!r} is not of the heuristic family; tune one of "
                         f"{', '.join(family)}")
    base_spec, _, vector = resolve(base)
    names = _params(params, strat)
    hands_per_eval = check_int("hands_per_eval", hands_per_eval, 2, 10**9)
    budget = check_int("budget", budget, 1, 10**13)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    validate_hands = check_int("validate_hands", validate_hands, 2, 10**9)
    popsize = default_popsize(len(names)) if popsize is None else \
        check_int("popsize", popsize, 2, 10_000)
    rules = paired_rules(rules, "tune")
    against = None if against is None else _check_spec("against", against)
    validate_against = _check_spec("validate_against", validate_against)
    for what, value in (("callback", callback), ("objective", objective)):
        if value is not None and not callable(value):
            raise ValueError(f"{what} must be callable or None, got {value!r}")
    if not isinstance(overwrite, bool):
        raise ValueError(f"overwrite must be True or False, got {overwrite!r}")
    per_gen = (popsize + 1) * hands_per_eval
    if budget < per_gen:
        raise ValueError(f"budget: {plural(budget, 'deal')} (less than one generation: (popsize "
                         f"{popsize} + the mean) x {plural(hands_per_eval, 'deal')} = "
                         f"{per_gen:,}); give a budget of at least {per_gen:,}")
    generations = budget // per_gen
    if generations > MAX_GENERATIONS:
        raise ValueError(f"budget: {plural(generations, 'generation')}; at most {MAX_GENERATIONS:,} "
                         "(raise hands_per_eval)")
    cma = _import_cma()
    base_values = {n: (int(vector[s]) if HEURISTIC_LIMITS[n][2] else float(vector[s]))
                   for n, (s, _d, _doc) in HEURISTIC.params.items()}
    space = _Space(names, base_values)
    config = {"base": base_spec, "params": list(names), "hands_per_eval": hands_per_eval,
              "budget": budget, "seed": seed, "against": against, "popsize": popsize,
              "validate_hands": validate_hands, "validate_against": validate_against,
              "rules": rules.to_dict(), "objective": "paired" if objective is None else
              getattr(objective, "__name__", "custom")}
    f = objective or paired_objective(rules, threads)
    run = _Run(space, config, generations, f, cma, progress, callback)
    if out is None:
        return run.go(None)
    out = Path(out)

    def check(d: Path) -> bool:
        return _check_out(d, config, overwrite, cma.__version__)[3]

    with claim(out, check, os_error(LAYOUT)) as hold:
        plan = _check_out(out, config, overwrite, cma.__version__)   # again, under the lock
        hold.keep()
        try:
            logged = _open_out(out, plan, config, cma.__version__)
        except OSError as exc:
            raise os_error(LAYOUT)(out, exc) from None
        if progress and logged:
            print(resuming_line(len(logged), generations, "generation", out), file=sys.stderr,
                  flush=True)
        return run.go(out, logged)


def _strategies() -> dict:
    from .strategies import STRATEGIES
    return STRATEGIES


class _Run:
    """One tuning: CMA-ES's state, the generations, the evaluations."""

    def __init__(self, space, config, generations, objective, cma, progress, callback):
        self.space, self.config, self.generations = space, config, generations
        self.objective, self.cma, self.progress, self.callback = (objective, cma, progress,
                                                                  callback)
        self.rng = _Rng(_derive(config["seed"], "cma"))
        opts = {"bounds": space.bounds(), "CMA_stds": space.stds(),
                "popsize": config["popsize"], "seed": float("nan"), "verbose": -9,
                "verb_log": 0, "verb_disp": 0, "integer_variables": space.whole(),
                "maxiter": float("inf"), "tolfun": 0, "tolx": 0, "tolflatfitness": float("inf"),
                "tolstagnation": float("inf"), "tolfunhist": 0}
        import warnings
        with self.rng.on(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.es = cma.CMAEvolutionStrategy(space.x0(), 1.0, opts)

    def mean(self) -> dict:
        return self.space.decode(self.es.result.xfavorite)

    def _ask(self):
        with self.rng.on():
            return self.es.ask()

    def _tell(self, xs, fitness):
        import warnings
        with self.rng.on(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.es.tell(xs, list(fitness))

    def go(self, out: Path | None, logged: list | None = None) -> TuneResult:
        import pandas as pd

        from ._progress import progress_bar

        t0 = time.perf_counter()
        logs, last, played = [], None, False
        bar = progress_bar(self.generations, "tune", "gen", disable=not self.progress,
                           smoothing=0.3, auto=True)
        try:
            for g in range(self.generations):
                xs = self._ask()
                mean = self.mean()
                cands = [self.space.decode(x) for x in xs]
                resumed = logged is not None and g in logged
                if resumed:
                    log = logged[g]
                    _check_replay(log, cands, mean, g, self.space, out)
                else:
                    played = True
                    log = self._evaluate(g, cands, mean)
                    if out is not None:
                        _write_gen(out, g, log, self.config, g)
                fit = -log.loc[log["role"] == "candidate"].sort_values("candidate")[
                    "mean_diff"].to_numpy(np.float64)
                self._tell(xs, fit)
                logs.append(log)
                last = log
                m = log.loc[log["role"] == "mean"].iloc[0]
                bar.set_postfix_str(f"mean vs {self.config['validate_against']} "
                                    f"{m['mean_diff']:+.1f} ±{Z95 * m['se']:.1f}", refresh=False)
                bar.update(1)
                if self.callback is not None:
                    self.callback(GenerationDone(g, self.generations, log, mean,
                                                 float(m["mean_diff"]), float(m["se"]),
                                                 resumed))
        finally:
            bar.close()
        full = pd.concat(logs, ignore_index=True)
        if out is not None and not played:
            done = self._read_back(out, full)
            if done is not None:
                return done
        return self._finish(out, full, last, time.perf_counter() - t0)

    def answer(self) -> tuple:
        """The answer, the search's mean: ``(every parameter's value, its spec)``."""
        answer = {**self.space.base, **self.space.decode(self.es.result.xfavorite, digits=4)}
        return answer, self.space.spec({n: answer[n] for n in self.space.names})

    def _read_back(self, out: Path, log) -> TuneResult | None:
        """The result of a tuning whose every generation was read back from ``out``, from its
        ``result.json``, when that and ``strategy.toml`` are those of this answer (the report
        of this configuration and versions, the file as :func:`strategy_toml` writes it);
        else None (they are written again).  Writes ``_tune.json`` finished only when it is
        not so already: a complete tuning run again writes nothing."""
        answer, spec = self.answer()
        try:
            report = json.loads((out / RESULT_JSON).read_text())
            same = (report["spec"] == spec and report["values"] == _jsonable(answer)
                    and _same_json(report["config"], {**self.config, "rules_name":
                                                      _rules_name_of(self.config["rules"])})
                    and report["versions"] == {"burraco_sim": __version__,
                                               "cma": self.cma.__version__}
                    and (out / STRATEGY_FILE).read_text() == strategy_toml(answer, report))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        if not same:
            return None
        try:
            _write_meta(out, self.config, finished=True)
        except OSError as exc:
            raise os_error(LAYOUT, self.generations)(out / TUNE_JSON, exc) from None
        return TuneResult(spec, answer, os.fspath(out / STRATEGY_FILE), log, report)

    def _evaluate(self, g: int, cands: list, mean: dict):
        import pandas as pd

        c = self.config
        t0 = time.perf_counter()
        hands, seed = c["hands_per_eval"], block_seed(c["seed"], g)
        mean_spec = self.space.spec(mean)
        ref = c["against"] or mean_spec
        p_mean = self._play(mean_spec, c["validate_against"], hands, seed)
        rows = []
        for k, values in enumerate(cands):
            spec = self.space.spec(values)
            p = self._play(spec, ref, hands, seed)
            if c["against"] is None:
                gain = p + p_mean
            elif c["against"] == c["validate_against"]:
                gain = p
            else:
                gain = np.full(hands, np.nan)
            rows.append(_row(g, k, "candidate", values, spec, ref, seed, p, gain))
        rows.append(_row(g, -1, "mean", mean, mean_spec, c["validate_against"], seed, p_mean,
                         p_mean))
        df = _frame(rows, self.space)
        df["seconds"] = time.perf_counter() - t0
        return df

    def _play(self, a: str, b: str, hands: int, seed: int) -> np.ndarray:
        p = np.asarray(self.objective(a, b, hands, seed), np.float64)
        if p.shape != (hands,):
            raise ValueError(f"objective: expected {hands} per-deal differences, got shape "
                             f"{p.shape}")
        return p

    def _finish(self, out, log, last, seconds) -> TuneResult:
        c, space = self.config, self.space
        answer, spec = self.answer()
        cand = log[log["role"] == "candidate"]
        has_gain = cand["est_gain"].notna().any()
        best = cand.loc[(cand["est_gain"] if has_gain else cand["mean_diff"]).idxmax()]
        best_values = {**space.base, **{n: _py(best[n]) for n in space.names}}
        # the answer as the search saw it: its last generation's mu best, with CMA's weights
        lc = last[last["role"] == "candidate"].sort_values("mean_diff", ascending=False)
        w = np.asarray(self.es.sp.weights, np.float64)
        w = w[w > 0][:len(lc)]
        w = w / w.sum()
        top = lc.iloc[:len(w)]
        answer_gain = float(np.dot(w, top["est_gain"]))
        answer_se = float(np.dot(w, top["est_gain_se"]))
        m = last[last["role"] == "mean"].iloc[0]
        vseed = validation_seed(c["seed"])
        seen = {block_seed(c["seed"], g) for g in range(self.generations)}
        if vseed in seen:                         # pragma: no cover - 1 in 2**64 per block
            raise ValueError("tune: the validation seed is one of the search's blocks; use "
                             "another seed")
        if self.progress:
            print(f"validating the answer and the luckiest point: "
                  f"{plural(c['validate_hands'], 'deal')} "
                  f"of seed {vseed} against {c['validate_against']}", file=sys.stderr,
                  flush=True)
        vh = c["validate_hands"]
        validation = _stats(self._play(spec, c["validate_against"], vh, vseed), vseed)
        best_validation = _stats(self._play(best["spec"], c["validate_against"], vh, vseed),
                                 vseed)
        report = {
            "format": TUNE_FORMAT, "config": {**c, "rules_name": _rules_name_of(c["rules"])},
            "spec": spec, "values": answer, "generations": self.generations,
            "hands_used": self.generations * (c["popsize"] + 1) * c["hands_per_eval"],
            "search": {"answer_gain": answer_gain, "answer_gain_se": answer_se,
                       "best_gain": float(best["est_gain"] if has_gain else best["mean_diff"]),
                       "best_gain_se": float(best["est_gain_se"] if has_gain else best["se"]),
                       "best_spec": best["spec"], "best_generation": int(best["generation"]),
                       "best_values": best_values,
                       "last_mean_gain": float(m["mean_diff"]), "last_mean_se": float(m["se"])},
            "validation": validation, "best_validation": best_validation,
            "search_seconds": float(log.groupby("generation")["seconds"].first().sum()),
            "seconds": seconds,
            "versions": {"burraco_sim": __version__, "cma": self.cma.__version__},
        }
        path = None
        if out is not None:
            path = os.fspath(out / STRATEGY_FILE)
            n = self.generations
            _write_text(out / STRATEGY_FILE, strategy_toml(answer, report), n)
            _write_text(out / RESULT_JSON, json.dumps(_jsonable(report), indent=2,
                                                      allow_nan=False) + "\n", n)
            try:
                _write_meta(out, c, finished=True)
            except OSError as exc:
                raise os_error(LAYOUT, n)(out / TUNE_JSON, exc) from None
        return TuneResult(spec, answer, path, log, report)


def _rules_name_of(rules_dict: dict) -> str:
    from .rules import Rules
    return _rules_name(Rules.from_dict(rules_dict))


def _py(v):
    return v.item() if hasattr(v, "item") else v


def _stats(p: np.ndarray, seed: int) -> dict:
    n = len(p)
    mean = float(p.mean())
    se = float(p.std(ddof=1) / math.sqrt(n))
    return {"hands": n, "seed": seed, "mean_diff": mean, "se": se,
            "ci95_low": mean - Z95 * se, "ci95_high": mean + Z95 * se}


def _row(g, k, role, values, spec, ref, seed, p, gain) -> dict:
    n = len(p)
    se = float(p.std(ddof=1) / math.sqrt(n))
    gain_se = float(gain.std(ddof=1) / math.sqrt(n)) if np.isfinite(gain).all() else math.nan
    return {"generation": g, "candidate": k, "role": role, **values, "spec": spec,
            "reference": ref, "block_seed": seed, "hands": n, "mean_diff": float(p.mean()),
            "se": se, "est_gain": float(gain.mean()), "est_gain_se": gain_se}


def _frame(rows: list, space: _Space):
    import pandas as pd
    df = pd.DataFrame(rows)
    cols = ["generation", "candidate", "role", *space.names, "spec", "reference", "block_seed",
            "hands", "mean_diff", "se", "est_gain", "est_gain_se"]
    df = df[cols]
    for c in ("generation", "candidate", "hands"):
        df[c] = df[c].astype(np.int64)
    df["block_seed"] = df["block_seed"].astype(np.uint64)
    for n in space.names:
        df[n] = df[n].astype(np.int64 if HEURISTIC_LIMITS[n][2] else np.float64)
    return df


def _check_replay(log, cands: list, mean: dict, g: int, space: _Space, out=None) -> None:
    """The logged generation ``g`` holds the candidates CMA-ES asks for again."""
    c = log[log["role"] == "candidate"].sort_values("candidate")
    m = log[log["role"] == "mean"]
    ok = len(c) == len(cands) and len(m) == 1 and all(
        _py(c.iloc[k][n]) == v for k, vals in enumerate(cands) for n, v in vals.items()) \
        and all(_py(m.iloc[0][n]) == v for n, v in mean.items())
    if not ok:
        where = f" of {os.fspath(out)!r}" if out is not None else ""
        raise ValueError(f"out: {LOG_DIR}/gen-{g:04d}.parquet{where} does not replay: its "
                         "candidates are not those CMA-ES asks for again (another pycma or "
                         f"NumPy version?); move {LOG_DIR}/gen-{g:04d}.parquet and the "
                         "generations after it out of the directory to play them again, or "
                         "use another directory")


def strategy_toml(values: dict, report: dict) -> str:
    """The strategy file of an answer: ``[all]`` with ``name = "heuristic"`` and every
    parameter; comments say how it was found and validated, and how to play it (both
    commands with the rules it was tuned for; the file itself is ``THIS_FILE``, so that it
    reads the same wherever it is copied)."""
    c, v = report["config"], report["validation"]
    lines = [
        f"# burraco tune {c['base']}: the search's mean after "
        f"{plural(report['generations'], 'generation')} ({plural(report['hands_used'], 'deal')}, "
        f"seed {c['seed']}, {c['rules_name']} rules)",
        f"# tuned: {', '.join(c['params'])}",
        f"# validated against {c['validate_against']}: {v['mean_diff']:+.1f} points per hand "
        f"(95% interval {v['ci95_low']:+.1f} .. {v['ci95_high']:+.1f}),",
        f"#   {plural(v['hands'], 'deal')} of seed {v['seed']}, never played by the search",
        f"# found by: {command_of(c)}",
        f"# play it: {play_command('THIS_FILE', c['rules'])}",
        "",
        "[all]",
        'name = "heuristic"',
    ]
    for n in HEURISTIC.params:
        x = values[n]
        lines.append(f"{n} = {int(x)}" if HEURISTIC_LIMITS[n][2] else f"{n} = {float(x)!r}")
    return "\n".join(lines) + "\n"


def _rule_options(rules: dict) -> list:
    from .rules import Rules
    return Rules.from_dict(rules).command_options()


def play_command(path, rules: dict) -> str:
    """The ``burraco simulate`` command that plays the strategy file ``path`` under the rules
    it was tuned for (``rules``, a :meth:`sim.Rules.to_dict`), 20,000 hands of seed 1 into
    ``DIR``."""
    parts = ["burraco", "simulate", "--strategy-file", os.fspath(path), *_rule_options(rules),
             "--hands", "20000", "--seed", "1", "--out", "DIR"]
    return shlex.join(parts)


def command_of(config: dict) -> str:
    """The ``burraco tune`` command of a configuration, its rules as ``--rules``, ``--players``
    and ``--rule`` options (:meth:`sim.Rules.command_options`), ``--out DIR`` left as is."""
    parts = ["burraco", "tune", config["base"], *_rule_options(config["rules"])]
    parts += ["--hands-per-eval", str(config["hands_per_eval"]), "--budget",
              str(config["budget"]), "--seed", str(config["seed"])]
    if config["params"] != list(HEURISTIC.params):
        parts += ["--params", ",".join(config["params"])]
    if config["against"] is not None:
        parts += ["--against", config["against"]]
    if config["popsize"] != default_popsize(len(config["params"])):
        parts += ["--popsize", str(config["popsize"])]
    if config["validate_hands"] != 20_000:
        parts += ["--validate-hands", str(config["validate_hands"])]
    if config["validate_against"] != "expert":
        parts += ["--validate-against", config["validate_against"]]
    return shlex.join([*parts, "--out", "DIR"])


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    x = _py(x)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


# ------------------------------------------------------------------------ the directory
#: The tuning directory (sim.workdir): ``_tune.json``, ``log/gen-NNNN.parquet``,
#: ``strategy.toml`` and ``result.json``.
LAYOUT = Layout(what="tuning", command="burraco tune", state=TUNE_JSON, data=LOG_DIR,
                pattern=r"gen-(\d{4})\.parquet", name="gen-{:04d}.parquet",
                derived=(RESULT_JSON, STRATEGY_FILE), meta_key=GEN_META_KEY, unit="generation")


def _identity(config: dict, cma_version: str) -> dict:
    return {"format": TUNE_FORMAT, **config,
            "versions": {"burraco_sim": __version__, "cma": cma_version}}


def _write_meta(out: Path, config: dict, finished: bool, cma_version: str | None = None) -> None:
    if cma_version is None:
        cma_version = _import_cma().__version__
    write_text(out / TUNE_JSON, state_text(_identity(config, cma_version), finished))


def _same_json(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _check_out(out: Path, config: dict, overwrite: bool, cma_version: str):
    """Check ``out`` for this tuning and plan its writing; reads only (every refusal is
    here).  Returns ``(generation files to read back, files to delete, the scan, whether
    it is a complete tuning run again, which expects to write nothing)``."""
    where = os.fspath(out)
    identity = _identity(config, cma_version)
    found = scan(out, LAYOUT, tuple(identity))
    refuse_shape(out, LAYOUT, found, overwrite)
    if found.state is not None and not overwrite:
        keys = [k for k in identity if not _same_json(found.state[k], identity[k])]
        if keys:
            raise ValueError(f"out: {where!r} holds a different tuning (differs in: "
                             f"{', '.join(keys)}); use another directory, or "
                             f"{overwrite_hint(found, LAYOUT)}")
    delete = list(found.temps)
    if overwrite:                           # the tuning's own files, never the others
        delete += [*found.files.values()]
        delete += [out / n for n in (TUNE_JSON, RESULT_JSON, STRATEGY_FILE) if (out / n).is_file()]
        return {}, delete, found, False
    for g, p in sorted(found.files.items()):
        ident = identity_of(p, LAYOUT)
        if ident is not None and not _same_json(ident, identity):
            why = ", ".join(k for k in identity if not _same_json(ident.get(k), identity[k]))
            raise ValueError(f"out: {os.fspath(p)!r} belongs to another tuning (its metadata "
                             f"differs in: {why}); move it out of the directory, then run the "
                             "command again (nothing was changed)")
    return (dict(found.files), delete, found,
            complete(out, LAYOUT, found, identity, _generations(identity)))


def _open_out(out: Path, plan: tuple, config: dict, cma_version: str) -> dict:
    """Carry out the plan of :func:`_check_out` in a locked ``out`` whose checks passed;
    the sound logged generations ``{g: DataFrame}`` to replay.  ``_tune.json`` is written
    (unfinished) unless every generation is logged: a complete tuning run again writes
    nothing."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files, delete, found, _done = plan
    note_others(out, LAYOUT, found)
    for p in delete:
        p.unlink(missing_ok=True)
    logged = {}
    for g, p in sorted(files.items()):
        try:
            table = pq.read_table(p)
        except (OSError, pa.ArrowException):
            print(f"tune: {os.fspath(p)!r} is unreadable: playing generation {g} again",
                  file=sys.stderr, flush=True)
            continue
        df = table.to_pandas()
        if (table.schema.metadata or {}).get(GEN_META_KEY) is None \
                or len(df) != config["popsize"] + 1 or not (df["generation"] == g).all():
            print(f"tune: {os.fspath(p)!r} is incomplete: playing generation {g} again",
                  file=sys.stderr, flush=True)
            continue
        logged[g] = df
    if not (out / LOG_DIR).is_dir():
        (out / LOG_DIR).mkdir()
    if len(logged) < _generations(config):
        _write_meta(out, config, finished=False, cma_version=cma_version)
    return logged


def _write_gen(out: Path, g: int, log, config: dict, done: int) -> None:
    path = out / LOG_DIR / f"gen-{g:04d}.parquet"
    try:
        write_tagged(log, path, GEN_META_KEY, _identity(config, _import_cma().__version__))
    except OSError as exc:
        raise os_error(LAYOUT, done)(path, exc) from None


def _write_text(path: Path, text: str, done: int = 0) -> None:
    try:
        write_text(path, text)
    except OSError as exc:
        raise os_error(LAYOUT, done)(path, exc) from None


def _generations(ident: dict) -> int:
    return int(ident["budget"]) // ((int(ident["popsize"]) + 1) * int(ident["hands_per_eval"]))


def _finish(out: Path, ident: dict, numbers: list) -> bool:
    """After a repair: complete when every generation is logged and the report written."""
    try:
        json.loads((out / RESULT_JSON).read_text())
    except (OSError, ValueError):
        return False
    return sorted(numbers) == list(range(_generations(ident))) and \
        (out / STRATEGY_FILE).is_file()


def repair_tuning(out: str | os.PathLike):
    """Rebuild ``_tune.json`` of a tuning directory from its log files (``burraco summarize
    DIR --repair``).

    Every log file carries its tuning's identity (:data:`GEN_META_KEY`: the configuration
    and the versions of burraco-sim and pycma); the state is rebuilt from it without
    playing a generation again or deleting a file (the old ``_tune.json`` is kept as
    ``_tune.json.replaced-TIME``).  The same ``burraco tune`` command then resumes it.

    Parameters
    ----------
    out : str or os.PathLike
        A tuning directory.

    Returns
    -------
    sim.workdir.Repaired

    Raises
    ------
    ValueError
        No log file naming its tuning, log files of several tunings and no ``_tune.json``
        naming one (one line; nothing changed).
    sim.lock.LockedError
        Another process writes the directory.
    """
    return repair(out, LAYOUT, lambda i: json.dumps(i, sort_keys=True), None, _finish)


def tuning_status(out: str | os.PathLike) -> tuple:
    """What ``burraco summarize`` prints for a tuning directory, and whether it is sound.

    Returns
    -------
    (str, bool)
        The lines (progress, problems and what leads on, other files; the report when the
        tuning is complete), and False when its ``_tune.json`` is damaged or missing or
        ``log/`` holds a stray file.
    """
    out = Path(out)
    found = scan(out, LAYOUT, ("budget", "popsize", "hands_per_eval"))
    state = found.state
    total = _generations(state) if state else None
    lines = status_lines(out, LAYOUT, total, len(found.files))
    if state and state.get("finished"):
        with contextlib.suppress(Exception):
            lines.append(format_report(json.loads((out / RESULT_JSON).read_text())))
    return "\n".join(lines), state is not None and not found.stray
