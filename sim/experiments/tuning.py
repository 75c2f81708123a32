"""Tuning a strategy of the ``heuristic`` family by CMA-ES, validated on unseen deals.

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
    against the reference, seats swapped (:func:`sim.experiments.comparison.compare_hands`, the kernels
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
    anything is created and locked (:func:`sim._util.lock.claim`); a directory of a different
    tuning is refused (or replaced with ``overwrite``), files a tuning did not write beside
    it are kept and noted, and a non-empty directory holding no tuning is refused
    (:mod:`sim.batch.workdir`).  Every log file
    carries the configuration (:data:`GEN_META_KEY`), from which :func:`repair_tuning`
    rebuilds a damaged or missing ``_tune.json``.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.core import layout as L
from kernels.core.params import HEURISTIC_PARAMS

from sim._util.lock import claim
from sim._util.progress import progress_bar
from sim._util.text import plural, resuming_line
from sim._version import __version__
from sim.core.cards import check_int
from sim.experiments.comparison import Z95, compare_hands, paired_rules
from sim.experiments.tuning_dir import (  # noqa: F401  (repair_tuning, tuning_status: sim.tuning's API)
    LAYOUT, LOG_DIR, MAX_GENERATIONS, RESULT_JSON, STRATEGY_FILE, TUNE_FORMAT, TUNE_JSON,
    GenerationDone, TuneResult, _check_out, _import_cma, _jsonable, _open_out, _py, _rules_name_of, _same_json, _write_gen, _write_meta, _write_text, command_of, default_popsize,
    format_report, play_command, repair_tuning, strategy_toml, tuning_status)
from sim.batch.workdir import os_error
from sim.strategies import HEURISTIC, HEURISTIC_LIMITS, STRATEGIES, get, resolve, resolve_for
from sim.strategies.pystrategy import is_python_spec


#: Initial spread of each parameter of the heuristic (parameter units): small enough that a
#: typical first candidate loses only some points a hand to BASE; CMA-ES adapts it from there
#: (the ``step`` of each row of :data:`kernels.core.params.HEURISTIC_PARAMS`).
INITIAL_STEPS = {p.name: p.step for p in HEURISTIC_PARAMS}

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
    paired differences ``float64[hands]`` of :func:`sim.experiments.comparison.compare_hands`."""

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


# ------------------------------------------------------------------------ the tuner
def _check_spec(what: str, spec, rules=None) -> str:
    if not isinstance(spec, str) or is_python_spec(spec):
        raise ValueError(f"{what} must be a built-in strategy spec, got {spec!r}")
    return resolve_for(what, spec, rules)[0]


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
    against = None if against is None else _check_spec("against", against, rules)
    validate_against = _check_spec("validate_against", validate_against, rules)
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


