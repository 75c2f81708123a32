"""Driver of the independent referee: simulate hands with ``sim.replay`` and check them.

This is the only referee file that imports ``sim``; the checker itself
(``tests/referee/referee.py``) is standard library only.

Run from the project root::

    python -m tests.referee --hands 2000 --seed 1 --strategy heuristic
    python -m tests.referee --hands 2000 --seed 1 --strategy random --jobs 2
    python -m tests.referee --hands 500 --preset fibur_italian --dump /tmp/bad
    python -m tests.referee --matches 1000 --seed 1 --rules '{"num_players": 2}'
    burraco replay --seed 1 --hand 42 --format json > h.json && python -m tests.referee --file h.json

With ``--matches N`` the driver plays N matches with ``sim.simulate_matches``,
re-checks every match (deals, rotating dealer R6, running totals, R60 end
and winner: ``referee.check_match``), referees every hand of every match
from its replay with the match's dealer, and compares that replay's result
with the hand row of the run.

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
except ImportError:                     # run with tests/referee/ on sys.path
    import referee as REF

_CFG: dict = {}


def _init(cfg: dict) -> None:
    _CFG.update(cfg)


def _same(a, b) -> bool:
    if a is None or b is None or a != a or b != b:          # null / NaN (an empty seat)
        return (a is None or a != a) and (b is None or b != b)
    if isinstance(a, (bool, int, float)) and isinstance(b, (bool, int, float)):
        return int(a) == int(b)
    return str(a) == str(b)


def _one(task):
    """Referee one hand: ``task`` is a hand index, or ``(index, dealer, run_row)``
    for a match hand (the run's row is compared with the replay's result)."""
    import sim.batch.replay as SR                              # the engine: driver only
    i, dealer, row = task if isinstance(task, tuple) else (task, None, None)
    rules = _CFG["rules"]
    if row is not None and rules.num_players == 3 and bool(row["individual"]):
        rules = rules.replace(three_player_mode="individual_3x11")       # R63 switch
    try:
        doc = SR.replay(_CFG["seed"], i, strategies=_CFG["strategies"], rules=rules,
                        dealer=dealer)
    except Exception as exc:                            # noqa: BLE001
        return i, [("PRODUCER", f"sim.replay failed: {type(exc).__name__}: {exc}")], None, None
    doc = json.loads(json.dumps(doc, ensure_ascii=False))   # referee sees exactly the JSON
    v = [(x.rule, str(x)) for x in REF.check(doc)]
    if row is not None:
        res = doc.get("result", {})
        for key, want in res.items():
            if key in row and not _same(row[key], want):
                v.append(("RUN", f"hand {i} (dealer {dealer}): the run's {key} is {row[key]!r}, "
                                 f"its replay gives {want!r}"))
    dump = None
    if v and _CFG.get("dump"):
        path = Path(_CFG["dump"]) / f"seed{_CFG['seed']}-hand{i}.json"
        path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        dump = str(path)
    end = doc.get("result", {}).get("end_reason")
    return i, v, end, dump


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.referee",
                                description="Referee simulated Burraco hands against RULES.md")
    p.add_argument("--hands", type=int, default=None, help="number of hands to simulate")
    p.add_argument("--matches", type=int, default=None,
                   help="number of whole matches to simulate and referee (R6, R60 and every "
                        "hand)")
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
    if (args.hands is None) == (args.matches is None):
        p.error("exactly one of --hands, --matches or --file is required")
    if (args.hands or args.matches) < 1 or args.start < 0 or args.jobs < 1:
        p.error("--hands, --matches and --jobs must be >= 1, --start >= 0")

    rules = None
    if args.preset or args.rules:
        import sim                                       # driver only
        base = sim.Rules.preset(args.preset or "default")
        try:
            extra = json.loads(args.rules) if args.rules else {}
        except json.JSONDecodeError as exc:
            p.error(f"--rules: {exc}")
        try:
            rules = base.replace(**extra) if extra else base
        except (TypeError, ValueError) as exc:
            p.error(f"--rules: {exc}")
    strategies = args.strategy.split("|") if "|" in args.strategy else args.strategy
    if args.dump:
        Path(args.dump).mkdir(parents=True, exist_ok=True)
    cfg = {"seed": args.seed, "strategies": strategies, "rules": rules, "dump": args.dump}

    counts, examples, ends = Counter(), defaultdict(list), Counter()
    bad_hands, dumps = [], []
    if args.matches is not None:
        import sim                                       # driver only
        run = sim.simulate_matches(args.matches, args.seed, strategies=strategies, rules=rules)
        hands_df = run.hands.sort_values(["match", "hand_in_match"])
        by_match = {m: g.to_dict("records") for m, g in hands_df.groupby("match")}
        rules = rules or sim.Rules()
        cfg["rules"] = rules
        rules_dict = rules.to_dict()
        for row in run.matches.to_dict("records"):
            if row["winner"] is not None and row["winner"] != row["winner"]:   # NaN
                row["winner"] = None
            elif row["winner"] is not None and str(row["winner"]) == "<NA>":
                row["winner"] = None
            for key in ("final_t2",):
                if key in row and row[key] != row[key]:              # NaN: not 3 players
                    row.pop(key)
            for text in REF.check_match(row, by_match.get(row["match"], []), rules_dict):
                rule = text[1:text.index("]")]
                counts[rule] += 1
                if len(examples[rule]) < args.examples:
                    examples[rule].append(text)
        print(f"{args.matches} matches, {len(hands_df)} hands; match checks: "
              f"{sum(counts.values())} violations", flush=True)
        idx = [(int(h["hand_index"]), int(h["dealer"]), h) for h in hands_df.to_dict("records")]
        args.hands = len(idx)
    else:
        idx = range(args.start, args.start + args.hands)
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
    what = (f"{args.matches} matches" if args.matches is not None else
            f"hands {args.start}..{args.start + args.hands - 1}")
    print(f"\nrefereed {args.hands} hands (seed {args.seed}, {what}, strategy {args.strategy}, "
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
