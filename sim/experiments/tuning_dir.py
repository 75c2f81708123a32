"""The working directory of a tuning (``burraco tune --out DIR``): its files
(``_tune.json``, one Parquet log file per generation in ``log/``, ``result.json``,
``strategy.toml``), opening it to start or resume, repairing it and its status, on
the shared layout of :mod:`sim.batch.workdir`.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sim._util.stats import Z95
from sim._util.text import plural
from sim._version import __version__
from sim.core.rules import PRESETS, Rules
from sim.batch.workdir import (Layout, complete, identity_of, note_others, os_error, overwrite_hint,
                              refuse_shape, repair, scan, state_text, status_lines, write_tagged,
                              write_text)
from sim.strategies import HEURISTIC, HEURISTIC_LIMITS


def _import_cma():
    try:
        import cma
    except ImportError:
        raise ValueError("tune needs pycma: pip install 'burraco-sim[tune]' (or pip install "
                         "'cma>=3.3')") from None
    return cma


def _py(v):
    return v.item() if hasattr(v, "item") else v


TUNE_JSON = "_tune.json"


RESULT_JSON = "result.json"


STRATEGY_FILE = "strategy.toml"


LOG_DIR = "log"


TUNE_FORMAT = 1


MAX_GENERATIONS = 10_000            # generation file names hold 4 digits


GEN_META_KEY = b"burraco_tune"      # Parquet key-value metadata: the tuning of a log file


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


def _rules_name_of(rules_dict: dict) -> str:
    return _rules_name(Rules.from_dict(rules_dict))


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


def default_popsize(n_params: int) -> int:
    """pycma's default population size for ``n_params`` parameters: ``4 + int(3 ln n)``."""
    return 4 + int(3 * math.log(n_params))


def _rules_name(rules) -> str:
    for p in PRESETS:
        if Rules.preset(p) == rules:
            return p
    return "custom"
