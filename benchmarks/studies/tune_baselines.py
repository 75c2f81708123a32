"""CMA-ES (``sim.tune``) against Optuna's default sampler and random search, same budget.

Each method spends the same number of deals (each played twice, seats swapped) searching
the parameters of BASE, then its answer plays the same validation deals against ``expert``
(the seed ``sim.tuning.validation_seed(--seed)``, which none of the searches plays):

* CMA-ES: ``sim.tune`` as ``burraco tune`` runs it (the answer is the search's final mean;
  the reference moves with the mean; a generation costs ``(popsize + 1) * hands-per-eval``).
* random search: ``budget // hands-per-eval`` trials, each parameter drawn uniformly from
  the box BASE +- 3 initial steps (``sim.tuning.INITIAL_STEPS``, the box CMA-ES's first
  distribution covers), cut to the documented range, whole numbers as integers; each trial
  plays BASE on ``hands-per-eval`` deals; the answer is the best trial.
* Optuna: the same trials, box and reference, proposed by ``optuna.create_study``'s default
  sampler (TPE, seeded); the answer is ``study.best_trial``.

Trials ``k * popsize .. (k + 1) * popsize - 1`` of the two baselines play the block of CMA-ES's
generation ``k`` (``sim.tuning.block_seed``).  Optuna is optional (not in ``dev``): without it
its row says so.  Writes ``benchmarks/studies/tune_baselines.md`` (or ``--out``)::

    python benchmarks/studies/tune_baselines.py --hands-per-eval 500 --budget 65000 --seed 1

It imports this checkout's ``sim`` from any directory; progress on stderr.
"""
from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import sim                                                           # noqa: E402
from sim import strategies as S                                     # noqa: E402
from sim import tuning as T                                         # noqa: E402
from sim.experiments.comparison import Z95, compare_hands                       # noqa: E402


def box(base_values: dict, names: list) -> dict:
    """name -> (low, high, whole): BASE +- 3 initial steps, inside the documented range."""
    out = {}
    for n in names:
        lo, hi, whole = S.HEURISTIC_LIMITS[n]
        step = 3 * T.INITIAL_STEPS[n]
        a, b = max(lo, base_values[n] - step), min(hi, base_values[n] + step)
        if whole:
            a, b = math.ceil(a), math.floor(b)
        out[n] = (a, b, whole)
    return out


def spec_of(space, values: dict) -> str:
    return space.spec({n: (int(v) if S.HEURISTIC_LIMITS[n][2] else float(f"{v:.6g}"))
                       for n, v in values.items()})


def validate(spec: str, args, rules) -> dict:
    vseed = T.validation_seed(args.seed)
    p = compare_hands(spec, "expert", args.validate_hands, vseed, rules)["paired_diff"].to_numpy()
    se = p.std(ddof=1) / math.sqrt(len(p))
    return {"mean": float(p.mean()), "se": float(se), "seed": vseed}


def baseline(name: str, propose, args, rules, space, popsize: int, base_spec: str) -> dict:
    """Run ``budget // hands_per_eval`` trials; ``propose(k) -> (values, report)`` gives trial
    k's values and a function taking its result.  The best trial is the answer."""
    trials = args.budget // args.hands_per_eval
    t0 = time.perf_counter()
    best = None
    for k in range(trials):
        values, report = propose(k)
        spec = spec_of(space, values)
        seed = T.block_seed(args.seed, k // popsize)
        p = compare_hands(spec, base_spec, args.hands_per_eval, seed, rules)["paired_diff"].to_numpy()
        value = float(p.mean())
        report(value)
        if best is None or value > best[0]:
            best = (value, float(p.std(ddof=1) / math.sqrt(len(p))), spec)
        if (k + 1) % 20 == 0:
            print(f"{name}: {k + 1}/{trials} trials, best {best[0]:+.1f}", file=sys.stderr,
                  flush=True)
    seconds = time.perf_counter() - t0
    return {"method": name, "trials": trials, "deals": trials * args.hands_per_eval,
            "search": best[0], "search_se": best[1], "spec": best[2],
            "seconds": seconds, "validation": validate(best[2], args, rules)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="expert")
    ap.add_argument("--hands-per-eval", type=int, default=500)
    ap.add_argument("--budget", type=int, default=65_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rules", default="default")
    ap.add_argument("--params", default=None, help="comma separated (default all 17)")
    ap.add_argument("--validate-hands", type=int, default=20_000)
    ap.add_argument("--out", default=str(HERE / "tune_baselines.md"))
    args = ap.parse_args(argv)
    rules = sim.Rules.preset(args.rules)
    names = list(S.HEURISTIC.params) if args.params is None else args.params.split(",")
    popsize = T.default_popsize(len(names))
    base_spec, _, vector = S.resolve(args.base)
    base_values = {n: (int(vector[s]) if S.HEURISTIC_LIMITS[n][2] else float(vector[s]))
                   for n, (s, _d, _doc) in S.HEURISTIC.params.items()}
    space = T._Space(tuple(names), base_values)
    bx = box(base_values, names)
    rows = []

    print("CMA-ES (sim.tune) ...", file=sys.stderr, flush=True)
    r = T.tune(args.base, args.hands_per_eval, args.budget, args.seed, rules=rules,
               params=names, validate_hands=args.validate_hands, progress=True)
    v = r.report["validation"]
    rows.append({"method": "CMA-ES (sim.tune), the final mean", "trials":
                 r.report["generations"] * popsize, "deals": r.report["hands_used"],
                 "search": r.report["search"]["answer_gain"], "search_se": None,
                 "spec": r.spec, "seconds": r.report["search_seconds"],
                 "validation": {"mean": v["mean_diff"], "se": v["se"], "seed": v["seed"]}})

    rng = np.random.default_rng(args.seed)

    def uniform(k):
        vals = {n: (int(rng.integers(a, b + 1)) if whole else float(rng.uniform(a, b)))
                for n, (a, b, whole) in bx.items()}
        return vals, lambda value: None

    print("random search ...", file=sys.stderr, flush=True)
    rows.append(baseline("random search, the best trial", uniform, args, rules, space, popsize,
                         base_spec))

    try:
        import optuna
    except ImportError:
        optuna = None
        print("optuna is not installed (pip install optuna): its row is skipped",
              file=sys.stderr)
    if optuna is not None:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(direction="maximize",
                                    sampler=optuna.samplers.TPESampler(seed=args.seed))

        def tpe(k):
            trial = study.ask()
            vals = {n: (trial.suggest_int(n, a, b) if whole else trial.suggest_float(n, a, b))
                    for n, (a, b, whole) in bx.items()}
            return vals, lambda value: study.tell(trial, value)

        print("Optuna (TPE, its default sampler) ...", file=sys.stderr, flush=True)
        rows.append(baseline(f"Optuna {optuna.__version__} TPE, the best trial", tpe, args,
                             rules, space, popsize, base_spec))

    lines = [
        "# Tuning baselines: CMA-ES, Optuna and random search on the same budget",
        "",
        "Generated by `benchmarks/studies/tune_baselines.py`; do not edit by hand.",
        "",
        f"Command: `python benchmarks/studies/tune_baselines.py --base {args.base} --hands-per-eval "
        f"{args.hands_per_eval} --budget {args.budget} --seed {args.seed} --rules {args.rules}"
        f"{'' if args.params is None else ' --params ' + args.params} --validate-hands "
        f"{args.validate_hands}`",
        "",
        f"Each method searched {len(names)} parameters of `{args.base}` under the "
        f"`{args.rules}` rules with at most {args.budget:,} deals (each played twice, seats "
        f"swapped), {args.hands_per_eval:,} deals per evaluation; then its answer played "
        f"{args.validate_hands:,} deals of seed {T.validation_seed(args.seed)} (never played "
        "by any search) against `expert`. The baselines' trials play against "
        f"`{args.base}`, in the box {args.base} ± 3 initial steps of `sim.tuning.INITIAL_STEPS`;"
        " CMA-ES's reference is its own mean.",
        "",
        "| method | evaluations | deals | gain during the search | validated gain over expert "
        "(95% interval) | search time |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        vv = row["validation"]
        lines.append(
            f"| {row['method']} | {row['trials']:,} | {row['deals']:,} | {row['search']:+.1f} | "
            f"{vv['mean']:+.1f} ({vv['mean'] - Z95 * vv['se']:+.1f} .. "
            f"{vv['mean'] + Z95 * vv['se']:+.1f}) | {row['seconds']:.0f} s |")
    if optuna is None:
        lines.append("| Optuna | - | - | - | skipped: optuna is not installed "
                     "(`pip install optuna`) | - |")
    lines += ["", "Evaluations: candidates played (CMA-ES's deals include its mean's evaluation "
              "against `expert` in every generation). Gain during the search: CMA-ES's answer as "
              "its last generation saw it (the weighted best candidates), the baselines' best "
              "trial's own estimate; the gap to the validated gain is the winner's curse. Search "
              "time: without the validation.", "", "The answers:", ""]
    lines += [f"* {row['method']}: `{row['spec']}`" for row in rows]
    lines += ["", f"Machine: {platform.machine()}, {__import__('os').cpu_count()} cores "
              "(shared with other work while it ran); Python "
              f"{platform.python_version()}, numpy {np.__version__}.", ""]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
