"""Driver of the independent referee: simulate hands with ``sim.replay`` and check them.

This is the only referee file that imports ``sim``; the checker itself
(``tests/referee.py``) is standard library only.

Run from the project root::

    python -m tests.referee --hands 2000 --seed 1 --strategy heuristic
    python -m tests.referee --hands 2000 --seed 1 --strategy random --jobs 2
    python -m tests.referee --hands 500 --preset fibur_italian --dump /tmp/bad
    burraco replay --seed 1 --hand 42 --format json > h.json && python -m tests.referee --file h.json

Prints progress, then the number of hands refereed and the violations per
rule ID (with a few examples each).  Exit code 0 if every hand is clean, 1
otherwise, 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

try:                                    # python -m tests.referee / tests.referee_cli
    from . import referee as REF
except ImportError:                     # run with tests/ on sys.path
    import referee as REF

_CFG: dict = {}


def _init(cfg: dict) -> None:
    _CFG.update(cfg)


def _one(i: int):
    import sim.trace as SR                              # the engine: driver only
    rules = _CFG["rules"]
    try:
        doc = SR.replay(_CFG["seed"], i, strategies=_CFG["strategies"], rules=rules)
    except Exception as exc:                            # noqa: BLE001
        return i, [("PRODUCER", f"sim.replay failed: {type(exc).__name__}: {exc}")], None, None
    doc = json.loads(json.dumps(doc, ensure_ascii=False))   # referee sees exactly the JSON
    v = REF.check(doc)
    dump = None
    if v and _CFG.get("dump"):
        path = Path(_CFG["dump"]) / f"seed{_CFG['seed']}-hand{i}.json"
        path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        dump = str(path)
    end = doc.get("result", {}).get("end_reason")
    return i, [(x.rule, str(x)) for x in v], end, dump


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.referee",
                                description="Referee simulated Burraco hands against RULES.md")
    p.add_argument("--hands", type=int, default=None, help="number of hands to simulate")
    p.add_argument("--file", nargs="+", default=None,
                   help="check replay documents saved as JSON (e.g. from "
                        "'burraco replay --format json') instead of simulating")
    p.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    p.add_argument("--start", type=int, default=0, help="first hand index (default 0)")
    p.add_argument("--strategy", default="heuristic",
                   help="strategy spec for every seat, or 4 specs separated by '|'")
    p.add_argument("--preset", default=None, help="rules preset (default: default)")
    p.add_argument("--rules", default=None, help="rules options as a JSON object")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--dump", default=None, help="directory for documents with violations")
    p.add_argument("--examples", type=int, default=3, help="examples printed per rule ID")
    args = p.parse_args(argv)
    if args.file:
        bad = 0
        for name in args.file:
            doc = json.loads(Path(name).read_text(encoding="utf-8"))
            v = REF.check(doc)
            bad += bool(v)
            print(f"{name}: {len(v)} violation(s)")
            for x in v:
                print(f"  {x}")
        return 1 if bad else 0
    if args.hands is None:
        p.error("--hands or --file is required")
    if args.hands < 1 or args.start < 0 or args.jobs < 1:
        p.error("--hands and --jobs must be >= 1, --start >= 0")

    rules = None
    if args.preset or args.rules:
        import sim                                       # driver only
        base = sim.Rules.preset(args.preset or "default")
        try:
            extra = json.loads(args.rules) if args.rules else {}
        except json.JSONDecodeError as exc:
            p.error(f"--rules: {exc}")
        rules = base.replace(**extra) if extra else base
    strategies = args.strategy.split("|") if "|" in args.strategy else args.strategy
    if args.dump:
        Path(args.dump).mkdir(parents=True, exist_ok=True)
    cfg = {"seed": args.seed, "strategies": strategies, "rules": rules, "dump": args.dump}

    idx = range(args.start, args.start + args.hands)
    counts, examples, ends = Counter(), defaultdict(list), Counter()
    bad_hands, dumps = [], []
    t0 = time.time()
    every = max(1, args.hands // 20)
    if args.jobs == 1:
        _init(cfg)
        results = map(_one, idx)
        pool = None
    else:
        pool = mp.get_context("fork").Pool(args.jobs, initializer=_init, initargs=(cfg,))
        results = pool.imap_unordered(_one, idx, chunksize=8)
    try:
        for n, (i, viol, end, dump) in enumerate(results, 1):
            ends[end] += 1
            if viol:
                bad_hands.append(i)
                if dump:
                    dumps.append(dump)
            for rule, text in viol:
                counts[rule] += 1
                if len(examples[rule]) < args.examples:
                    examples[rule].append(text)
            if n % every == 0 or n == args.hands:
                print(f"  {n}/{args.hands} hands, {len(bad_hands)} with violations, "
                      f"{sum(counts.values())} violations, {time.time() - t0:.0f}s", flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    print(f"\nrefereed {args.hands} hands (seed {args.seed}, hands {args.start}.."
          f"{args.start + args.hands - 1}, strategy {args.strategy}, "
          f"rules {args.preset or 'default'}{' + ' + args.rules if args.rules else ''})")
    print("end reasons: " + ", ".join(f"{k}={v}" for k, v in sorted(ends.items(), key=str)))
    print(f"hands with violations: {len(bad_hands)}; violations: {sum(counts.values())}")
    for rule, k in counts.most_common():
        print(f"  {rule}: {k}")
        for text in examples[rule]:
            print(f"      {text}")
    if bad_hands:
        print("first bad hands: " + " ".join(map(str, sorted(bad_hands)[:20])))
    if dumps:
        print(f"documents written to {args.dump}")
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
