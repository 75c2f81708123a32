#!/usr/bin/env python
"""Speed benchmarks of burraco-sim; writes benchmarks/speed/results.md (see benchmarks/README.md).

    python benchmarks/speed/run.py [--quick] [--repeats N] [--big] [--out PATH] [--baseline REV]

Every figure is measured on one snapshot of the repository's ``kernels`` and
``sim`` packages, copied to a temporary directory at the start, so that edits
made while the benchmark runs do not mix into its figures.
"""
from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import (REPO, SEED, RevisionWorker, Row, Run, check, child_env, copy_packages, git,
                     interleaved, log, open_gin_rummy, parser, run_child, settings, source_digest, timed,
                     use_snapshot)

HERE = Path(__file__).resolve().parent

# work per repeat; "repeats" is the count of timed repeats of each in-process figure
MODES = {
    "full": dict(repeats=5, deals=1_000_000, meld_vectors=30_000, meld_passes=50, search_hands=100_000,
                 heuristic_hands=100_000, random_hands=2_000, pure_hands=100, cli_hands=1_000_000,
                 cli_repeats=3, cold_repeats=5, startup_repeats=5, openspiel_games=300, chain_repeats=2,
                 rule_hands=50_000, base_hands=100_000, base_worlds=2_000, base_game_hands=400,
                 base_random_hands=2_000, base_choose_hands=20_000),
    "quick": dict(repeats=5, deals=100_000, meld_vectors=5_000, meld_passes=4, search_hands=2_000,
                  heuristic_hands=5_000, random_hands=200, pure_hands=10, cli_hands=100_000,
                  cli_repeats=1, cold_repeats=1, startup_repeats=3, openspiel_games=30, chain_repeats=1,
                  rule_hands=5_000, base_hands=5_000, base_worlds=200, base_game_hands=40,
                  base_random_hands=200, base_choose_hands=2_000),
}
BIG_HANDS = 10_000_000
GIB = 1024 ** 3
BASELINE = "0a270b0"        # the commit before the speed work: its "before"

# the speed goals (docs/scale.md)
HANDS_1T, HANDS_2T = 30_000, 60_000     # hands/s, heuristic on every seat, default rules
CLI_1M_S = 20.0                         # s, a million hands through the CLI, launch to exit, once compiled
COLD_S = 20.0                           # s, `burraco simulate --hands 1`, empty cache
FIRST_USE_S = 20.0                      # s, the first use of the other commands, in all
CACHED_S = 1.0                          # s, `burraco simulate --hands 1`, warm cache
GIN_RATIO = 200                         # our hands/s over OpenSpiel gin_rummy random games/s
RULE_SET_RATIO = 0.5                    # no rule set slower than twice the default
RULE_SETS = [("default", {}), ("fibur_italian", {}), ("fibur_international", {}),
             ("default", {"num_players": 2}), ("default", {"num_players": 3}),
             ("default", {"num_players": 3, "three_player_mode": "individual_3x11"})]


def burraco_cmd() -> list:
    script = Path(sys.executable).parent / "burraco"
    return [str(script)] if script.exists() else [sys.executable, "-m", "sim"]


# ---------------------------------------------------------------- workloads
def random_count_vectors(n: int, rng: np.random.Generator) -> np.ndarray:
    """Count vectors (int64[n, 53]) of 3-14 cards: a third any cards of the two packs
    (mostly invalid), a third runs of one suit, a third sets, half of those with a wild."""
    from kernels.core.cards import N_COUNT     # the snapshot's kernels (use_snapshot comes first)
    cnt = np.zeros((n, N_COUNT), np.int64)
    set_ranks = [r for r in range(13) if r != 1]
    for i in range(n):
        kind = i % 3
        if kind == 0:
            for cid in rng.choice(108, rng.integers(3, 15), replace=False):
                cnt[i, min(cid % 54, 52)] += 1
            continue
        if kind == 1:
            length = int(rng.integers(3, 15))
            suit = int(rng.integers(4))
            slots = list(range(lo := int(rng.integers(0, 15 - length)), lo + length))
            faces = [13 * suit + s % 13 for s in slots]
            wild = length == 14 or rng.random() < 0.5
            if wild:
                faces.pop(int(rng.integers(length)))
        else:
            rank = int(rng.choice(set_ranks))
            nat = int(rng.integers(2, 9))
            faces = [13 * (int(s) % 4) + rank for s in rng.choice(8, nat, replace=False)]
            wild = nat == 2 or (nat < 9 and rng.random() < 0.5)
        for f in faces:
            cnt[i, f] += 1
        if wild:
            other = (suit + 1 + int(rng.integers(3))) % 4 if kind == 1 else int(rng.integers(4))
            cnt[i, 52 if rng.random() < 0.5 else 13 * other + 1] += 1
    return cnt


def bench_kernels(c: dict, rows: list, facts: dict) -> dict:
    """In-process figures: deals, meld checks, meld search, complete hands."""
    import numba

    import jitloops
    import sim
    from kernels.play import game
    from kernels.core import layout as L
    from kernels.table.state import new_state
    from sim.strategies import resolve

    R = c["repeats"]
    rv = sim.Rules().to_vector()
    rng = np.random.default_rng(SEED)
    seed = np.uint64(SEED)
    sec = "kernels (in-process)"

    log("deals/s")
    n = c["deals"]
    jitloops.deal_loop(seed, np.int64(0), np.int64(n // 10))
    t = timed(lambda: jitloops.deal_loop(seed, np.int64(0), np.int64(n)), R)
    rows.append(Row(sec, "deals/s (kernels.core.deal.deal_hand)", [n / x for x in t], "deals/s",
                    f"{n:,} deals"))

    log("meld checks/s")
    cnts = random_count_vectors(c["meld_vectors"], rng)
    mask = np.int64(rv[L.RV_SET_RANKS_MASK])
    passes = c["meld_passes"]
    valid = jitloops.analyze_loop(cnts, mask, 1)
    t = timed(lambda: jitloops.analyze_loop(cnts, mask, passes), R)
    k = len(cnts) * passes
    rows.append(Row(sec, "meld checks/s (kernels.core.melds.analyze)", [k / x for x in t], "checks/s",
                    f"{k:,} checks", note=f"{len(cnts):,} random 3-14-card multisets, "
                    f"{valid / len(cnts):.0%} valid"))

    _, kind, p = resolve("heuristic")
    st = new_state(0, 0)
    for size in (11, 20):
        log(f"meld search, {size}-card hands")
        n = c["search_hands"]
        hands = np.ascontiguousarray(np.argsort(rng.random((n, 108)), axis=1)[:, :size], np.int64)
        jitloops.meld_search_loop(hands[: max(n // 10, 1)], rv, p, st)
        melds, cards = jitloops.meld_search_loop(hands, rv, p, st)
        t = timed(lambda: jitloops.meld_search_loop(hands, rv, p, st), R)
        rows.append(Row(sec, f"meld search, {size}-card hands/s (kernels.strategies.choosers.meld_search)",
                        [n / x for x in t], "hands/s", f"{n:,} random hands",
                        note=f"per hand: {melds / n:.2f} melds, {cards / n:.2f} cards melded"))

    threads = sorted({1, int(numba.config.NUMBA_NUM_THREADS)})
    rates = {}
    for strat in ("heuristic", "random"):
        _, kind, p = resolve(strat)
        kinds = np.full(4, kind, np.int64)
        params = np.ascontiguousarray(np.tile(p, (4, 1)))
        n = c[f"{strat}_hands"]
        out = np.zeros((n, L.N_REC), np.int32)
        for th in threads:
            log(f"complete hands, {strat}, {th} thread(s)")
            numba.set_num_threads(th)
            run = lambda m: game.simulate_range(seed, np.int64(0), np.int64(m), rv, kinds, params,  # noqa: E731
                                                np.int64(0), out[:m])
            run(max(n // 10, 1))
            t = timed(lambda: run(n), R)
            r = Row(sec, f"complete hands/s, {strat}, {th} thread{'s' if th > 1 else ''} "
                    "(kernels.play.game.simulate_range)", [n / x for x in t], "hands/s",
                    f"hands 0..{n - 1:,} of seed {SEED}",
                    note=f"{out[:, L.REC_TURNS].mean():.1f} turns per hand")
            rates[strat, th] = r.median
            if th > 1:
                r.baseline = f"×{r.median / rates[strat, 1]:.2f} vs 1 thread"
            if strat == "heuristic":
                goal = HANDS_2T if th > 1 else HANDS_1T
                r.target = check(r.median >= goal, f"≥ {goal:,}")
            rows.append(r)
        if strat == "heuristic":
            digest_hands = out[: c["pure_hands"]].copy()
    numba.set_num_threads(int(numba.config.NUMBA_NUM_THREADS))
    facts["numba threading layer"] = numba.threading_layer()
    return {"rates": rates, "jit_records": digest_hands}


def bench_rule_sets(c: dict, rows: list) -> None:
    """Complete hands/s of each preset and of 2 and 3 players beside the default rules,
    their repeats in turn (interleaved), all numba threads."""
    import numba

    import sim
    from kernels.play import game
    from kernels.core import layout as L
    from sim.strategies import resolve

    sec = "rule sets (in-process)"
    n, th = c["rule_hands"], int(numba.config.NUMBA_NUM_THREADS)
    _, kind, p = resolve("heuristic")
    kinds = np.full(4, kind, np.int64)
    params = np.ascontiguousarray(np.tile(p, (4, 1)))
    seed = np.uint64(SEED)
    outs, fns, labels = {}, {}, {}
    numba.set_num_threads(th)
    for i, (preset, extra) in enumerate(RULE_SETS):
        rules = sim.Rules.preset(preset).replace(**extra) if extra else sim.Rules.preset(preset)
        rv = rules.to_vector()
        out = outs[i] = np.zeros((n, L.N_REC), np.int32)
        fns[i] = lambda m=n, rv=rv, out=out: game.simulate_range(seed, np.int64(0), np.int64(m), rv, kinds,
                                                                 params, np.int64(0), out[:m])
        fns[i](max(n // 10, 1))     # warm-up (the kernels take the rules as data: nothing compiles)
        mode = f", {rules.three_player_mode}" if rules.num_players == 3 else ""
        labels[i] = f"`{preset}`, {rules.num_players} players{mode}"
    log(f"rule sets: {len(RULE_SETS)} x {n:,} hands, {th} thread(s), x {c['repeats']} in turn")
    times = interleaved(fns, c["repeats"])
    base = float(np.median([n / x for x in times[0]]))
    for i in fns:
        r = Row(sec, f"complete hands/s, heuristic, {labels[i]}, {th} thread{'s' if th > 1 else ''}",
                [n / x for x in times[i]], "hands/s", f"hands 0..{n - 1:,} of seed {SEED}",
                note=f"{outs[i][:, L.REC_TURNS].mean():.1f} turns per hand")
        if i:
            ratio = r.median / base
            r.baseline = f"×{ratio:.2f} the default rules"
            r.target = check(ratio >= RULE_SET_RATIO, f"≥ ×{RULE_SET_RATIO} the default")
        rows.append(r)


def bench_pure_python(c: dict, src: Path, tmp: Path, rows: list, jit: dict) -> None:
    n, R = c["pure_hands"], c["repeats"]
    log(f"pure Python (NUMBA_DISABLE_JIT=1), {n} hands x {R}")
    code = (
        "import json, sys, time, numpy as np\n"
        "from kernels.play import game\nfrom kernels.core import layout as L\n"
        "from sim import Rules\n"
        "from sim.strategies import resolve\n"
        "n, repeats = int(sys.argv[1]), int(sys.argv[2])\n"
        "_, kind, p = resolve('heuristic')\n"
        "args = (Rules().to_vector(), np.full(4, kind, np.int64), np.tile(p, (4, 1)), np.int64(0))\n"
        "out = np.zeros((n, L.N_REC), np.int32)\n"
        f"run = lambda m: game.simulate_range_serial(np.uint64({SEED}), np.int64(0), np.int64(m), *args, out[:m])\n"
        "run(2)\n"
        "times = []\n"
        "for _ in range(repeats):\n"
        "    t0 = time.perf_counter(); run(n); times.append(time.perf_counter() - t0)\n"
        "np.save(sys.argv[3], out)\n"
        "print(json.dumps(times))\n")
    npy = tmp / "pure.npy"
    child = run_child([sys.executable, "-W", "ignore", "-c", code, str(n), str(R), str(npy)],
                      child_env(src, NUMBA_DISABLE_JIT="1"), tmp)
    t = json.loads(child.out.strip().splitlines()[-1])
    same = np.array_equal(np.load(npy), jit["jit_records"])
    r = Row("pure Python", "complete hands/s, heuristic, NUMBA_DISABLE_JIT=1 (1 thread)",
            [n / x for x in t], "hands/s", f"hands 0..{n - 1} of seed {SEED}",
            note=f"records identical to the jitted ones: {'yes' if same else 'NO'}")
    r.baseline = f"jitted 1 thread is ×{jit['rates']['heuristic', 1] / r.median:,.0f} faster"
    rows.append(r)


# The step API's first calls (sim.Game) in a fresh process.
STEP_API_CODE = """\
from sim import Game
g = Game.new(1, 0)
for _ in range(5):
    g.apply(g.legal_actions()[0])
g.apply(g.choose())
g.observation(g.current_seat)
g.sample_world(g.current_seat, 1)
"""


def first_uses(tmp: Path, run_dir: Path, i: int) -> list:
    """``(name, command, in the issue's sum)`` of the commands whose first use follows
    the first hand run: each compiles what it needs beyond ``simulate_range``."""
    burraco = burraco_cmd()
    s = str(SEED)
    return [
        ("match run: `burraco simulate --matches 1`", burraco + ["simulate", "--matches", "1", "--seed", s,
                                                               "--out", str(tmp / f"chain-m{i}")], True),
        ("replay: `burraco replay DIR --hand 0 --format json`",
         burraco + ["replay", str(run_dir), "--hand", "0", "--format", "json"], True),
        ("compare: `burraco compare heuristic random --hands 10`",
         burraco + ["compare", "heuristic", "random", "--hands", "10", "--seed", s], True),
        ("step API: `Game.new`, `apply`, `choose`, `observation`, `sample_world`",
         [sys.executable, "-W", "ignore", "-c", STEP_API_CODE], True),
        ("analyze: `burraco analyze examples/position.toml --rollouts 20`",
         burraco + ["analyze", str(REPO / "examples" / "position.toml"), "--rollouts", "20", "--seed", s,
                    "--quiet"], True),
        ("search player: `burraco compare rollout heuristic --hands 1`",
         burraco + ["compare", "rollout", "heuristic", "--hands", "1", "--seed", s], False),
    ]


def bench_first_uses(src: Path, tmp: Path, run_dir: Path, i: int, found: dict) -> None:
    """Each command of :func:`first_uses` once with the cache as the first hand run
    left it (cold) and once more (cached): ``found[name, in the issue's sum]`` gets
    ``(cold s, cached s)``."""
    for name, cmd, counted in first_uses(tmp, run_dir, i):
        walls = []
        for kind in ("first use", "cached"):
            log(f"  {kind}: {name}")
            walls.append(run_child(cmd, child_env(src), tmp).wall)
            if (tmp / f"chain-m{i}").exists():
                shutil.rmtree(tmp / f"chain-m{i}")
        found.setdefault((name, counted), []).append(tuple(walls))


def add_first_use_rows(found: dict, rows: list) -> None:
    sec = "start-up"
    total = []
    for (name, counted), runs in found.items():
        extra = [cold - warm for cold, warm in runs]
        if counted:
            total.append(extra)
        rows.append(Row(sec, f"first use after the first hand run, {name}: compile (first run less cached run)",
                        extra, "s", "one first run and one cached run in the cold copy",
                        note=f"first run {np.median([a for a, _ in runs]):.1f} s, cached run "
                             f"{np.median([b for _, b in runs]):.2f} s"
                             + ("" if counted else "; not one of the issue's commands: not in the sum")))
    sums = [float(sum(x)) for x in zip(*total)]
    rows.append(Row(sec, "first use of the other commands (match run, replay, compare, step API, analyze), "
                    "in all", sums, "s", "the sum of the rows above but the search player",
                    target=check(float(np.median(sums)) <= FIRST_USE_S, f"≤ {FIRST_USE_S:.0f} s more")))


def bench_startup(c: dict, pristine: Path, tmp: Path, rows: list) -> Path:
    """Cold compile (fresh copy of the packages, no cache) and cached start-up of
    ``burraco simulate --hands 1``, then in the first copies the first use of every other
    command; returns the last copy, whose cache is now warm."""
    cold, announced, caches, found = [], [], [], {}
    for i in range(c["cold_repeats"]):
        log(f"cold compile {i + 1}/{c['cold_repeats']}")
        src = tmp / f"src{i}"
        shutil.copytree(pristine, src)
        cmd = burraco_cmd() + ["simulate", "--hands", "1", "--seed", str(SEED), "--out", str(tmp / f"cold{i}")]
        child = run_child(cmd, child_env(src), tmp)
        cold.append(child.wall)
        announced.append("compiling kernels" in child.err)
        caches.append(len(list((src / "kernels").rglob("__pycache__/*.nbi"))))
        if i < c["chain_repeats"]:
            log(f"first use of the other commands {i + 1}/{c['chain_repeats']}")
            bench_first_uses(src, tmp, tmp / f"cold{i}", i, found)
        shutil.rmtree(tmp / f"cold{i}")
        if i + 1 < c["cold_repeats"]:
            shutil.rmtree(src)
    rows.append(Row("start-up", "cold compile: `burraco simulate --hands 1`, empty cache", cold, "s",
                    "one run in a fresh copy of kernels/ and sim/",
                    target=check(float(np.median(cold)) <= COLD_S, f"≤ {COLD_S:.0f} s"),
                    note=f"'compiling kernels' announced: {'yes' if all(announced) else 'NO'}; "
                         f"{min(caches)} cache index files written into the copy"))
    warm = []
    for i in range(c["startup_repeats"] + 1):
        log(f"cached start-up {i}/{c['startup_repeats']}" + (" (warm-up)" if i == 0 else ""))
        out = tmp / f"warm{i}"
        cmd = burraco_cmd() + ["simulate", "--hands", "1", "--seed", str(SEED), "--out", str(out)]
        child = run_child(cmd, child_env(src), tmp)
        if i:
            warm.append(child.wall)
        shutil.rmtree(out)
    r = Row("start-up", "cached start-up: `burraco simulate --hands 1`, warm cache", warm, "s",
            "one run", target=check(float(np.median(warm)) <= CACHED_S, f"≤ {CACHED_S:.1f} s"))
    rows[-1].baseline = f"×{rows[-1].median / r.median:.0f} the cached start-up"
    rows.append(r)
    add_first_use_rows(found, rows)
    return src


def bench_cli(hands: int, repeats: int, src: Path, tmp: Path, label: str) -> list:
    """``burraco simulate --hands N --quiet`` runs: [(wall s, summary hands/s, bytes, peak RSS)]."""
    res = []
    for i in range(repeats):
        log(f"CLI {label}: {hands:,} hands, run {i + 1}/{repeats}")
        out = tmp / f"cli{i}"
        cmd = burraco_cmd() + ["simulate", "--hands", str(hands), "--seed", str(SEED), "--out", str(out),
                               "--quiet"]
        child = run_child(cmd, child_env(src), tmp)
        m = re.search(r"^hands/s\s+([\d,]+)", child.out, re.M)
        size = sum(f.stat().st_size for f in (out / "hands").glob("shard-*.parquet"))     # sim.rundir layout
        res.append((child.wall, float(m.group(1).replace(",", "")) if m else float("nan"), size,
                    child.maxrss))
        shutil.rmtree(out)
    return res


def add_cli_rows(res: list, hands: int, rows: list, big: bool) -> None:
    sec = "end to end (CLI, Parquet)"
    what = f"{hands:,} hands"
    work = f"`burraco simulate --hands {hands} --seed {SEED} --out DIR --quiet`"
    wall = [r[0] for r in res]
    rows.append(Row(sec, f"{what}: wall time, launch to exit", wall, "s", work,
                    target=check(float(np.median(wall)) <= CLI_1M_S, f"≤ {CLI_1M_S:.0f} s")
                    if hands == 1_000_000 else ""))
    rows.append(Row(sec, f"{what}: hands/s by wall time (incl. start-up)", [hands / w for w in wall],
                    "hands/s", work))
    rows.append(Row(sec, f"{what}: hands/s from the run summary", [r[1] for r in res], "hands/s", work))
    rows.append(Row(sec, f"{what}: peak memory (max RSS)", [r[3] / 2**20 for r in res], "MiB", work,
                    target=check(float(np.median([r[3] for r in res])) <= 2 * GIB, "≤ 2 GiB")
                    if big else ""))
    if not big:
        rows.append(Row(sec, f"{what}: Parquet bytes per hand", [r[2] / hands for r in res], "bytes/hand", work,
                        note=f"{res[0][2] / 2**20:.1f} MiB of shards for {hands:,} hands"))


def bench_revisions(c: dict, src: Path, tmp: Path, rows: list, facts: dict, rev: str) -> None:
    """Before and after: the same figures of revision ``rev`` and of the snapshot, each in
    a :class:`RevisionWorker`, their repeats in turn."""
    import numba
    from step_api import extract_revision

    sec = f"before (baseline {rev}) and after"
    base = tmp / "baseline"
    full = extract_revision(rev, base)
    facts["baseline revision (before)"] = f"{full} ({rev}, the commit before the speed work)"
    threads = sorted({1, int(numba.config.NUMBA_NUM_THREADS)})
    n, w = c["base_hands"], c["base_worlds"]
    figures = []        # (request, name, unit, work, rate of a reply, note of a reply)
    for th in threads:
        figures.append((["hands", n, th], f"complete hands/s, heuristic, {th} thread{'s' if th > 1 else ''} "
                        "(`kernels.play.game.simulate_range`)", "hands/s", f"hands 0..{n - 1:,} of seed {SEED}",
                        lambda x, n=n: n / x[0], lambda x: f"records digest {x[1]}, {x[2]:.1f} turns per hand"))
    for th in threads:
        figures.append((["rollouts", w, th], f"rollouts/s from a mid-hand position, expert, {th} "
                        f"thread{'s' if th > 1 else ''} (`kernels.search.rollouts.rollouts`)", "rollouts/s",
                        f"{w:,} sampled worlds x every legal action of examples/position.toml",
                        lambda x: x[1] / x[0], lambda x: f"results digest {x[2]}; seat 3, meld phase of turn 12"))
    g, kr, kc = c["base_game_hands"], c["base_random_hands"], c["base_choose_hands"]
    figures += [
        (["game_steps", g], "step API, Python loop: `sim.Game` `legal_actions()` + `apply(random.choice(...))`",
         "steps/s", f"hands 0..{g - 1} of seed {SEED}, a new Game per hand", lambda x: x[1] / x[0],
         lambda x: f"{x[1]:,} steps"),
        (["kernel_steps", kr, 1], "step API, kernel path: `legal_actions` + `apply_action` of a random legal "
         "action (@njit loop)", "steps/s", f"hands 0..{kr - 1:,} of seed {SEED}", lambda x: x[1] / x[0],
         lambda x: f"{x[1]:,} steps"),
        (["kernel_steps", kc, 0], "step API, kernel path: `choose` + `apply_action` (heuristic, @njit loop)",
         "steps/s", f"hands 0..{kc - 1:,} of seed {SEED}", lambda x: x[1] / x[0], lambda x: f"{x[1]:,} steps"),
    ]
    workers = {}
    try:
        for label, tree in (("before", base), ("after", src)):
            log(f"worker {label}: starting ({tree})")
            workers[label] = RevisionWorker(label, tree, tmp / f"cache-{label}", tmp)
        for req, name, unit, work, rate, note in figures:
            warm = list(req)
            warm[1] = max(warm[1] // 10, 1)
            log(f"{name}: compile or load, warm-up, then before and after in turn x {c['repeats']}")
            for wk in workers.values():         # both compile at once (two processes)
                wk.send(*warm)
            for wk in workers.values():
                wk.recv()
            got = {k: [] for k in workers}
            for _ in range(c["repeats"]):
                for k, wk in workers.items():
                    wk.send(*req)
                    got[k].append(wk.recv())
            before = Row(sec, f"{name}: before", [rate(x) for x in got["before"]], unit, work,
                         note=note(got["before"][0]))
            after = Row(sec, f"{name}: after", [rate(x) for x in got["after"]], unit, work,
                        note=note(got["after"][0]))
            pairs = [rate(a) / rate(b) for a, b in zip(got["after"], got["before"])]
            after.baseline = (f"×{after.median / before.median:.3f} before (repeat by repeat "
                              f"{min(pairs):.3f} – {max(pairs):.3f})")
            if req[0] in ("hands", "rollouts"):
                key = 1 if req[0] == "hands" else 2       # the digest of the records or results
                same = {x[key] for x in got["before"] + got["after"]} == {got["before"][0][key]}
                after.note += f"; identical to before: {'yes' if same else 'NO'}"
            rows += [before, after]
    finally:
        for wk in workers.values():
            wk.close()


def bench_openspiel(c: dict, rows: list, rates: dict, facts: dict) -> str:
    """OpenSpiel gin_rummy random playouts on 1 thread beside our heuristic hands/s
    (``rates[strategy, threads]``); returns a note when skipped."""
    gin, skipped = open_gin_rummy(facts)
    if gin is None:
        return skipped
    actions = []

    def playouts(n):
        actions.append(gin.play(n)[0] / n)

    n = c["openspiel_games"]
    log(f"OpenSpiel gin_rummy random playouts, {n} games x {c['repeats']}")
    playouts(max(n // 10, 1))
    t = timed(lambda: playouts(n), c["repeats"])
    r = Row("OpenSpiel (same run)", "gin_rummy random playouts/s, 1 thread (pyspiel, Python loop)",
            [n / x for x in t], "games/s", f"{n} games",
            note=f"{np.mean(actions):.0f} actions (incl. chance) per game")
    threads = max(th for _, th in rates)
    ours = rates["heuristic", threads]
    r.baseline = (f"our heuristic hands/s on {threads} thread{'s' if threads > 1 else ''} is "
                  f"×{ours / r.median:,.1f} its games/s (on 1 thread ×{rates['heuristic', 1] / r.median:,.1f})")
    r.target = check(ours / r.median >= GIN_RATIO, f"ours ≥ ×{GIN_RATIO}")
    rows.append(r)
    return ""


def main(argv=None) -> int:
    ap = parser(__doc__, out=HERE / "results.md")
    ap.add_argument("--big", action="store_true",
                    help=f"also run {BIG_HANDS:,} hands through the CLI (peak memory, wall time)")
    ap.add_argument("--baseline", default=BASELINE,
                    help=f"git revision measured beside the snapshot for the before/after figures "
                         f"(default {BASELINE}, the commit before the speed work)")
    args = ap.parse_args(argv)
    if git("rev-parse", "--verify", "--quiet", f"{args.baseline}^{{commit}}") == "?":
        ap.error(f"--baseline: {args.baseline!r} is not a commit of {REPO} (a clone with its history is needed)")
    mode = "quick" if args.quick else "full"
    c = settings(args, MODES)
    run = Run("speed/run.py", argv)
    facts = run.facts
    rows, notes = [], []

    with tempfile.TemporaryDirectory(prefix="burraco-bench-") as tmpname:
        tmp = Path(tmpname)
        pristine = copy_packages(tmp / "pristine")
        digest = source_digest(pristine)
        facts["source digest (kernels/**/*.py, sim/**/*.py, sha256)"] = digest
        log(f"snapshot of kernels/ and sim/ ({digest}) in {pristine}")

        src = bench_startup(c, pristine, tmp, rows)     # leaves src with a warm cache
        use_snapshot(src, digest)                       # in-process figures use the same snapshot
        jit = bench_kernels(c, rows, facts)
        bench_rule_sets(c, rows)
        bench_pure_python(c, src, tmp, rows, jit)
        add_cli_rows(bench_cli(c["cli_hands"], c["cli_repeats"], src, tmp, "run"), c["cli_hands"], rows, False)
        if args.big:
            add_cli_rows(bench_cli(BIG_HANDS, 1, src, tmp, "--big"), BIG_HANDS, rows, True)
        bench_revisions(c, src, tmp, rows, facts, args.baseline)
        skipped = bench_openspiel(c, rows, jit["rates"], facts)
        if skipped:
            notes.append(skipped)

    notes += [
        "The start-up, CLI and pure-Python figures are separate processes timed from launch to exit "
        "(`time.perf_counter`); peak memory is the child's `ru_maxrss` (`os.wait4`). "
        "The CLI runs use the numba cache warmed by the start-up runs, which serve as their warm-up; "
        "they use all numba threads (the CLI default).",
        "Cold compile: each repeat copies kernels/ and sim/ (without `__pycache__`) to a fresh directory "
        "put first on PYTHONPATH, so numba finds no cache; the last copy then serves every other figure.",
        "Complete hands: `kernels.play.game.simulate_range` with `numba.set_num_threads(T)`, "
        "the same hand indices in every repeat.",
        "OpenSpiel's figure is driven from Python through pyspiel (one binding call per action and per "
        "legal-action list), so it measures the binding as much as the game engine.",
        "First use of the other commands: in the first cold copies, right after the cold hand run, each "
        "command runs twice; what it compiles is its first run less its second (both include Python's "
        "start-up and the command's own work, which cancel out).",
        "Rule sets: the kernels take the rules as data (`Rules.to_vector()`), so no rule set compiles "
        "anything of its own; their repeats are taken in turn.",
        "Before and after: each revision runs in its own child process (`revision_worker.py`, packages "
        "first on PYTHONPATH, its own empty NUMBA_CACHE_DIR); the two take their repeats in turn, so a "
        "change of load falls on both.",
    ]
    run.finish(notes)
    run.write(args.out, mode, rows, notes, "burraco-sim benchmarks", "speed goals")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
