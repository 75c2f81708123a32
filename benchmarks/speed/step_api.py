#!/usr/bin/env python
"""Speed of the step API (sim.Game); writes benchmarks/speed/step_api.md (see benchmarks/README.md).

    python benchmarks/speed/step_api.py [--quick] [--repeats N] [--out PATH] [--baseline REV]

Steps/s of random legal actions through ``sim.Game`` beside OpenSpiel's gin_rummy,
the kernel path (``legal_actions``/``apply_action``, ``choose``), sampled worlds/s,
whole-hand hands/s at HEAD beside a baseline revision, a Python strategy beside the
built-in heuristic, and the cold compile and cached start-up of the step API.
Every figure is measured on a snapshot of ``kernels`` and ``sim`` (harness.py).
"""
from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import (REPO, SEED, LoadMeter, RevisionWorker, Row, Run, check, child_env,
                     copy_packages, fmt, git, interleaved, log, open_gin_rummy, parser, run_child, settings,
                     source_digest, use_snapshot)

HERE = Path(__file__).resolve().parent

DEFAULT_BASELINE = "8a4a8f1"    # the commit before the step API's kernel change (the work buffer)
GIN_RUMMY_STEPS = 39_000        # goal: above OpenSpiel's gin_rummy, about 39,000 steps/s from Python
HANDS_PER_S_2T = 40_000         # goal: whole hands no slower than before the step API, ~40,000/s on 2 threads

# work per repeat; "repeats" timed repeats of every figure after an untimed warm-up
MODES = {
    "full": {"repeats": 5, "game_hands": 400, "gin_games": 300, "kernel_random_hands": 2_000,
             "choose_hands": 20_000, "positions": 1_000, "worlds": 200_000, "game_worlds": 10_000,
             "py_hands": 100, "play_hands": 2_000, "sim_hands": 20_000, "baseline_hands": 100_000,
             "observations": 5_000, "cold_repeats": 3, "startup_repeats": 5},
    "quick": {"repeats": 3, "game_hands": 40, "gin_games": 30, "kernel_random_hands": 200,
              "choose_hands": 2_000, "positions": 200, "worlds": 20_000, "game_worlds": 1_000,
              "py_hands": 10, "play_hands": 200, "sim_hands": 2_000, "baseline_hands": 5_000,
              "observations": 500, "cold_repeats": 1, "startup_repeats": 2},
}

# ---------------------------------------------------------------- child programs
# The step API's first calls in a fresh process: import, Game.new, legal_actions, apply.
STARTUP_CODE = """\
import json, time
t0 = time.perf_counter()
from sim import Game
t1 = time.perf_counter()
g = Game.new(1, 0)
t2 = time.perf_counter()
legal = g.legal_actions()
t3 = time.perf_counter()
g.apply(legal[0])
t4 = time.perf_counter()
print(json.dumps({"import sim.Game": t1 - t0, "Game.new": t2 - t1, "legal_actions": t3 - t2,
                  "apply": t4 - t3}))
"""

class Worker(RevisionWorker):
    """A :class:`harness.RevisionWorker` that plays whole hands; ``ready["compile"]`` is
    the wall time of its first one-hand ``simulate_range`` call (compile with an empty
    NUMBA_CACHE_DIR, then 1 hand)."""

    def __init__(self, label: str, src: Path, cache: Path, cwd: Path):
        super().__init__(label, src, cache, cwd)
        t0 = time.perf_counter()
        self.run(1, 1)
        self.ready["compile"] = time.perf_counter() - t0

    def run(self, hands: int, threads: int) -> list:
        """``[seconds, records digest, turns per hand]`` of hands 0..hands-1 of seed 1."""
        self.send("hands", hands, threads)
        return self.recv()


def extract_revision(rev: str, dest: Path) -> str:
    """``kernels/`` and ``sim/`` of git revision ``rev`` into ``dest``; returns its full hash."""
    full = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    if full == "?":
        raise SystemExit(f"step_api.py: --baseline {rev!r} is not a commit of {REPO}")
    tar = subprocess.run(["git", "-C", str(REPO), "archive", full, "kernels", "sim"],
                         capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(dest, filter="data")
    return full


class First:
    """A trivial Python strategy: the first (lowest) legal action id."""

    def __init__(self):
        self.calls = 0

    def choose(self, observation, legal_actions):
        self.calls += 1
        return legal_actions[0]


# ---------------------------------------------------------------- figures
def heuristic_args() -> tuple:
    """(rules vector, kinds, params) of default rules and the heuristic at every seat."""
    import sim
    from sim.strategies import resolve
    _, kind, p = resolve("heuristic")
    return sim.Rules().to_vector(), np.full(4, kind, np.int64), np.ascontiguousarray(np.tile(p, (4, 1)))


def bench_startup(c: dict, src: Path, tmp: Path, rows: list) -> None:
    """The step API's first calls in a fresh process: cold (empty NUMBA_CACHE_DIR) and cached."""
    sec = "start-up (subprocess)"
    cmd = [sys.executable, "-W", "ignore", "-c", STARTUP_CODE]
    cold, parts, indexes = [], [], []
    meter = LoadMeter()
    for i in range(c["cold_repeats"]):
        log(f"cold compile of the step API {i + 1}/{c['cold_repeats']}")
        cache = tmp / f"cold-cache{i}"
        cache.mkdir()
        child = run_child(cmd, child_env(src, NUMBA_CACHE_DIR=str(cache)), tmp)
        cold.append(child.wall)
        parts.append(json.loads(child.out.strip().splitlines()[-1]))
        indexes.append(len(list(cache.rglob("*.nbi"))))
    first = "first `Game.new(1, 0)`, `legal_actions()`, `apply()` in a fresh process"
    cold_load = meter.cores()
    meter = LoadMeter()
    warm, warm_parts = [], []
    for i in range(c["startup_repeats"] + 1):
        log(f"cached start-up {i}/{c['startup_repeats']}" + (" (warm-up)" if i == 0 else ""))
        child = run_child(cmd, child_env(src, NUMBA_CACHE_DIR=str(cache)), tmp)
        if i:
            warm.append(child.wall)
            warm_parts.append(json.loads(child.out.strip().splitlines()[-1]))

    def split(ps):
        return ", ".join(f"{k} {np.median([p[k] for p in ps]):.2f} s" for k in ps[0])

    r = Row(sec, "cold compile of the step API, empty NUMBA_CACHE_DIR: launch to exit", cold, "s", first,
            note=f"median per call: {split(parts)}; {min(indexes)} cache index files written",
            others=cold_load)
    w = Row(sec, "cached start-up of the step API (the cold runs' cache): launch to exit", warm, "s", first,
            note=f"median per call: {split(warm_parts)}", others=meter.cores())
    r.baseline = f"×{r.median / w.median:.0f} the cached start-up"
    rows += [r, w]


def bench_game_vs_gin(c: dict, rows: list, facts: dict, notes: list) -> float:
    """1: random legal actions through sim.Game beside gin_rummy in the same loop;
    returns the Game loop's steps/s."""
    from sim import Game
    sec = "1. Python loop of random legal actions"
    rng = random.Random(SEED)
    n = c["game_hands"]
    counts = []

    def game_loop(hands):
        steps = 0
        for h in range(hands):
            g = Game.new(SEED, h)
            while not g.is_over:
                g.apply(rng.choice(g.legal_actions()))
                steps += 1
        counts.append(steps)

    gin, skipped = open_gin_rummy(facts)
    gin_counts = []
    fns = {"game": lambda: game_loop(n)}
    if gin is None:
        notes.append(skipped)
    else:
        fns["gin"] = lambda: gin_counts.append(gin.play(c["gin_games"]))
    log(f"sim.Game random legal actions, {n} hands"
        + ("" if gin is None else f", beside gin_rummy, {c['gin_games']} games") + f", x {c['repeats']}")
    game_loop(max(n // 10, 1))
    if gin is not None:
        gin.play(max(c["gin_games"] // 10, 1))
    counts.clear()
    meter = LoadMeter()
    t = interleaved(fns, c["repeats"])
    load = meter.cores()
    steps = float(np.mean(counts))
    r = Row(sec, "sim.Game: `legal_actions()` + `apply(random.choice(...))`, new Game per hand",
            [k / x for k, x in zip(counts, t["game"])], "steps/s", f"hands 0..{n - 1} of seed {SEED}",
            note=f"{steps / n:.1f} steps (decisions) per hand; `Game.new` counted in the time", others=load)
    rows.append(r)
    if gin is not None:
        gsteps = [s for s, _ in gin_counts]
        gdec = [d for _, d in gin_counts]
        g = Row(sec, "OpenSpiel gin_rummy (pyspiel): `legal_actions()` + `apply_action(random.choice(...))`, "
                "chance outcomes by `np.random.choice(p=...)`", [k / x for k, x in zip(gsteps, t["gin"])],
                "steps/s", f"{c['gin_games']} games",
                note=f"{np.mean(gsteps) / c['gin_games']:.1f} steps per game, of which "
                     f"{np.mean(gdec) / c['gin_games']:.1f} player decisions; "
                     f"decisions/s {fmt(np.median([d / x for d, x in zip(gdec, t['gin'])]))}",
                others=load)
        dec_ratio = r.median / np.median([d / x for d, x in zip(gdec, t["gin"])])
        pairs = [(k / x) / (s / y) for k, x, s, y in zip(counts, t["game"], gsteps, t["gin"])]
        r.baseline = (f"×{r.median / g.median:.2f} gin_rummy's steps/s (repeat by repeat: {min(pairs):.2f} – "
                      f"{max(pairs):.2f}; ×{dec_ratio:.2f} its player decisions/s)")
        r.target = check(r.median > g.median, f"above gin_rummy in the same run (issue: ~{GIN_RUMMY_STEPS:,} steps/s)")
        rows.append(g)
    return r.median


def bench_kernel_steps(c: dict, rows: list, python_steps: float) -> None:
    """2: the kernel path, an @njit loop of legal_actions/apply_action and of choose/apply_action."""
    import jitloops
    from kernels.table.work import work_words
    sec = "2. kernel path (@njit loop)"
    rv, kinds, params = heuristic_args()
    work = np.empty(work_words(0, 0), np.int64)
    seed = np.uint64(SEED)
    res = {}
    for name, mode, n in (("random", 1, c["kernel_random_hands"]), ("heuristic", 0, c["choose_hands"])):
        log(f"kernel path, {name}: {n:,} hands x {c['repeats']}")

        def loop(k, mode=mode):
            return jitloops.steps_loop(seed, np.int64(0), np.int64(k), rv, kinds, params, work, np.int64(mode))

        loop(max(n // 10, 1))
        counts = []
        meter = LoadMeter()
        t = interleaved({name: lambda n=n, loop=loop: counts.append(loop(n))}, c["repeats"])[name]
        steps, illegal = counts[0]
        assert all(k == counts[0] for k in counts), counts       # the same hands every repeat
        res[name] = (n, steps, illegal, t, meter.cores())
    n, steps, illegal, t, load = res["random"]
    r = Row(sec, "random legal actions: `legal_actions(work, out)` + `apply_action(work, out[k])`",
            [steps / x for x in t], "steps/s", f"hands 0..{n - 1:,} of seed {SEED}, `new_hand` per hand",
            note=f"{steps / n:.1f} steps per hand; {illegal} illegal; work buffer without event log",
            others=load)
    r.baseline = f"×{r.median / python_steps:.2f} the sim.Game loop (1.)"
    rows.append(r)
    n, steps, illegal, t, load = res["heuristic"]
    r = Row(sec, "built-in heuristic: `choose(work)` + `apply_action(work, a)`", [steps / x for x in t],
            "steps/s", f"hands 0..{n - 1:,} of seed {SEED}, `new_hand` per hand",
            note=f"{steps / n:.1f} steps per hand, {fmt(np.median([n / x for x in t]))} hands/s; "
                 f"{illegal} illegal",
            others=load)
    rows.append(r)


def bench_worlds(c: dict, rows: list) -> None:
    """3: sampled worlds per second, kernel and Game."""
    import jitloops
    from kernels.table.work import work_words
    from sim import Game
    sec = "3. sampled worlds"
    rv, kinds, params = heuristic_args()
    P = c["positions"]
    stops = np.random.default_rng(SEED).integers(0, 60, P)
    words = work_words(0, 0)
    positions = np.zeros((P, words), np.int64)
    jitloops.positions_loop(np.uint64(SEED), rv, kinds, params, stops, positions)
    over = int(np.sum(positions[:, jitloops.W_G + jitloops.G_PHASE] == jitloops.PH_OVER))
    dst = np.empty(words, np.int64)
    n = c["worlds"]
    log(f"kernels.table.worlds.sample_world: {n:,} worlds from {P:,} positions x {c['repeats']}")
    jitloops.sample_worlds_loop(positions, np.uint64(SEED), np.int64(max(n // 10, 1)), dst)
    jitloops.copy_loop(positions[0], dst, np.int64(1))
    cards = []
    meter = LoadMeter()
    t = interleaved({"worlds": lambda: cards.append(jitloops.sample_worlds_loop(
        positions, np.uint64(SEED), np.int64(n), dst))}, c["repeats"])["worlds"]
    load = meter.cores()
    tc = interleaved({"copy": lambda: jitloops.copy_loop(positions[0], dst, np.int64(n))}, 3)["copy"]
    per_world = float(np.median(t)) / n
    per_copy = float(np.median(tc)) / n
    r = Row(sec, "`kernels.table.worlds.sample_world(src, seat, seed, k, dst)` in an @njit loop", [n / x for x in t],
            "worlds/s", f"{n:,} worlds, sample k from position k mod {P:,}",
            note=f"positions: hands 0..{P - 1:,} after 0-59 heuristic decisions ({over} already over), the "
                 f"seat to move samples; {cards[0] / n:.1f} unseen cards dealt again per world; "
                 f"buffer of {words:,} words without event log; a bare copy of it "
                 f"(`dst[i] = src[i]` loop) takes {per_copy * 1e6:.1f} µs, "
                 f"{per_copy / per_world:.0%} of a world's {per_world * 1e6:.1f} µs", others=load)
    rows.append(r)
    games = []
    for i in range(min(P, 200)):
        g = Game.new(SEED, i)
        for _ in range(int(stops[i])):
            if g.is_over:
                break
            g.apply(g.choose())
        games.append(g)
    m = c["game_worlds"]
    log(f"Game.sample_world: {m:,} worlds from {len(games)} games x {c['repeats']}")

    def game_worlds(k):
        for j in range(k):
            g = games[j % len(games)]
            g.sample_world(g.current_seat, SEED, j)

    game_worlds(max(m // 10, 1))
    meter = LoadMeter()
    t = interleaved({"g": lambda: game_worlds(m)}, c["repeats"])["g"]
    w = Row(sec, "`Game.sample_world(seat, seed, index)` from Python", [m / x for x in t], "worlds/s",
            f"{m:,} worlds from {len(games)} games (hands 0..{len(games) - 1}, same stops)",
            note=f"a new Game with its own buffer of {len(games[0]._work):,} words (with event log) per world",
            others=meter.cores())
    w.baseline = f"the kernel loop is ×{r.median / w.median:.1f} faster"
    rows.append(w)


def bench_whole_hands(c: dict, src: Path, tmp: Path, rev: str, rows: list, facts: dict) -> None:
    """4: simulate_range at HEAD beside the baseline revision, each in a worker subprocess."""
    sec = "4. whole hands, HEAD vs baseline"
    base = tmp / "baseline"
    full = extract_revision(rev, base)
    facts["baseline revision"] = f"{full} ({rev})"
    facts["baseline source digest (kernels/**/*.py, sim/**/*.py, sha256)"] = source_digest(base)
    workers = {}
    try:
        for label, tree in (("baseline", base), ("HEAD", src)):
            cache = tmp / f"worker-cache-{label}"
            cache.mkdir()
            log(f"worker {label}: compiling simulate_range (empty NUMBA_CACHE_DIR)")
            workers[label] = Worker(label, tree, cache, tmp)
        threads = sorted({1, workers["HEAD"].ready["threads"]})
        n = c["baseline_hands"]
        res = {}
        for th in threads:
            for w in workers.values():
                w.run(max(n // 10, 1), th)                     # warm-up
            log(f"simulate_range, {n:,} hands, {th} thread(s): baseline and HEAD in turn x {c['repeats']}")
            meter = LoadMeter()
            out = {k: [] for k in workers}
            for _ in range(c["repeats"]):
                for k, w in workers.items():
                    out[k].append(w.run(n, th))
            load = meter.cores()
            for k in workers:
                res[k, th] = out[k], load
    finally:
        for w in workers.values():
            w.close()
    for th in threads:
        base_rate = float(np.median([n / t for t, _, _ in res["baseline", th][0]]))
        for k in ("baseline", "HEAD"):
            runs, load = res[k, th]
            digests = {d for _, d, _ in runs} | {d for _, d, _ in res["baseline", th][0]}
            r = Row(sec, f"`simulate_range`, heuristic, {th} thread{'s' if th > 1 else ''}: "
                    + (f"baseline {rev}" if k == "baseline" else "HEAD"),
                    [n / t for t, _, _ in runs], "hands/s", f"hands 0..{n - 1:,} of seed {SEED}",
                    note=f"{runs[0][2]:.1f} turns per hand", others=load)
            if k == "HEAD":
                pairs = [b / h for (h, _, _), (b, _, _) in zip(runs, res["baseline", th][0])]
                r.baseline = (f"×{r.median / base_rate:.3f} the baseline (repeat by repeat: "
                              f"{min(pairs):.3f} – {max(pairs):.3f})")
                r.note += f"; records identical to the baseline's: {'yes' if len(digests) == 1 else 'NO'}"
                if th > 1:
                    r.target = check(r.median >= HANDS_PER_S_2T, f"≥ {HANDS_PER_S_2T:,} and no drop")
            rows.append(r)
    for k in ("baseline", "HEAD"):
        rows.append(Row(sec, "worker start: first `simulate_range` call, empty NUMBA_CACHE_DIR: "
                        + (f"baseline {rev}" if k == "baseline" else "HEAD"),
                        [workers[k].ready["compile"]], "s", "compile + 1 hand, once",
                        note="one measurement (not repeated); import time not included"))


def bench_strategies(c: dict, rows: list) -> None:
    """5: a Python strategy through Game.play beside the heuristic (Game.play, simulate_range)."""
    import numba

    from kernels.play import game as KG
    from kernels.core import layout as L
    from sim import Game
    sec = "5. strategies, whole hands"
    rv, kinds, params = heuristic_args()
    threads = int(numba.config.NUMBA_NUM_THREADS)
    npy, nplay, nsim = c["py_hands"], c["play_hands"], c["sim_hands"]
    first = First()
    turns = []

    def python_hands(k):
        for h in range(k):
            turns.append(Game.new(SEED, h).play([first] * 4).turn)

    def play_hands(k):
        for h in range(k):
            Game.new(SEED, h).play()

    out = np.zeros((nsim, L.N_REC), np.int32)

    def sim_hands(k, th):
        numba.set_num_threads(th)
        KG.simulate_range(np.uint64(SEED), np.int64(0), np.int64(k), rv, kinds, params, np.int64(0), out[:k])

    log(f"Python strategy ({npy} hands), Game.play() ({nplay:,}), simulate_range ({nsim:,}, 1 and "
        f"{threads} threads) in turn x {c['repeats']}")
    python_hands(max(npy // 10, 1))
    play_hands(max(nplay // 10, 1))
    sim_hands(max(nsim // 10, 1), 1)
    sim_hands(max(nsim // 10, 1), threads)
    first.calls = 0
    turns.clear()
    fns = {"python": lambda: python_hands(npy), "play": lambda: play_hands(nplay),
           "sim1": lambda: sim_hands(nsim, 1)}
    if threads > 1:
        fns["simN"] = lambda: sim_hands(nsim, threads)
    meter = LoadMeter()
    t = interleaved(fns, c["repeats"])
    load = meter.cores()
    numba.set_num_threads(threads)
    decisions = first.calls / c["repeats"]
    py = Row(sec, "Python strategy (`choose(observation, legal_actions)` → first legal id) "
             "through `Game.play([s] * 4)`", [npy / x for x in t["python"]], "hands/s",
             f"hands 0..{npy - 1} of seed {SEED}, new Game per hand",
             note=f"{decisions / npy:.1f} decisions per hand ({np.mean(turns):.1f} turns), "
                  f"{fmt(np.median([decisions / x for x in t['python']]))} decisions/s; "
                  "a different game from the heuristic's", others=load)
    rows.append(py)
    rows.append(Row(sec, "built-in heuristic through `Game.play()` (kernel `play_out`)",
                    [nplay / x for x in t["play"]], "hands/s", f"hands 0..{nplay - 1:,} of seed {SEED}, "
                    "new Game per hand", baseline=f"×{np.median([nplay / x for x in t['play']]) / py.median:,.0f} "
                    "the Python strategy", others=load))
    for key, th in (("sim1", 1), ("simN", threads)):
        if key in t:
            rate = float(np.median([nsim / x for x in t[key]]))
            rows.append(Row(sec, f"built-in heuristic through `simulate_range`, {th} thread{'s' if th > 1 else ''}",
                            [nsim / x for x in t[key]], "hands/s", f"hands 0..{nsim - 1:,} of seed {SEED}",
                            baseline=f"×{rate / py.median:,.0f} the Python strategy", others=load))
    # what a Python strategy's decision costs: the observation it is handed
    games = [Game.new(SEED, h) for h in range(50)]
    for i, g in enumerate(games):
        for _ in range(i):
            if g.is_over:
                break
            g.apply(g.choose())
    m = c["observations"]

    def observe(k):
        for j in range(k):
            g = games[j % len(games)]
            g.observation(g.current_seat)

    observe(max(m // 10, 1))
    meter = LoadMeter()
    t = interleaved({"obs": lambda: observe(m)}, c["repeats"])["obs"]
    rows.append(Row(sec, "`Game.observation(seat)` (what Game.play hands a Python strategy per decision)",
                    [m / x for x in t], "calls/s", f"{m:,} calls on 50 games (hands 0..49 after 0-49 "
                    "heuristic decisions)", others=meter.cores()))


# ---------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = parser(__doc__, out=HERE / "step_api.md")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE,
                    help=f"git revision for the whole-hand comparison (default {DEFAULT_BASELINE})")
    args = ap.parse_args(argv)
    mode = "quick" if args.quick else "full"
    c = settings(args, MODES)
    run = Run("speed/step_api.py", argv)
    rows, notes = [], []
    with tempfile.TemporaryDirectory(prefix="burraco-step-bench-") as tmpname:
        tmp = Path(tmpname)
        src = copy_packages(tmp / "src")
        digest = source_digest(src)
        run.facts["source digest (kernels/**/*.py, sim/**/*.py, sha256)"] = digest
        log(f"snapshot of kernels/ and sim/ ({digest}) in {src}")
        bench_startup(c, src, tmp, rows)
        use_snapshot(src, digest)
        import numba
        python_steps = bench_game_vs_gin(c, rows, run.facts, notes)
        bench_kernel_steps(c, rows, python_steps)
        bench_worlds(c, rows)
        bench_strategies(c, rows)
        run.facts["numba threading layer"] = numba.threading_layer()
        bench_whole_hands(c, src, tmp, args.baseline, rows, run.facts)
    notes += [
        "Every in-process figure runs on a snapshot of kernels/ and sim/ copied to a temporary directory "
        "first on sys.path; `jitloops.py` holds the @njit loops (`cache=True`, dropped when the kernel "
        "sources change). Figures measured together take their repeats in turn (A B A B ...), so a "
        "change of load falls on all of them; their *other processes* column is the same.",
        "*Other processes (cores)*: the machine's busy CPU time (/proc/stat) less this process tree's "
        "(including the worker subprocesses), per second of the figure's wall time, on "
        f"{os.cpu_count()} cores.",
        "1: a step is one `apply` (sim.Game) or one `apply_action` (gin_rummy, chance outcomes included; "
        "the deal of a Burraco hand is inside `Game.new`, timed too). gin_rummy is played as OpenSpiel's "
        "`examples/example.py` plays a game, driven through the pyspiel bindings like sim.Game's loop "
        "through its Python methods.",
        "4: each revision runs in its own subprocess (packages first on PYTHONPATH, its own empty "
        "NUMBA_CACHE_DIR, so both compile separately); the two take their repeats in turn; the records "
        "digest (sha256 of the record array) of every repeat is compared across the two.",
        "5: the Python strategy is `First` in this script (the first legal action: draw, end the meld phase, "
        "discard the lowest face), so its hands are not the heuristic's; decisions/s is the fair unit "
        "for it, hands/s the figure a user sees.",
    ]
    import sim.strategies
    if not hasattr(sim.strategies, "register"):
        notes.append("Not measured here: a registered Numba strategy's hands/s: "
                     "there is no `sim.strategies.register` at this revision.")
    order = ["start-up", "1.", "2.", "3.", "4.", "5."]
    rows.sort(key=lambda r: next(i for i, o in enumerate(order) if r.section.startswith(o)))
    run.finish(notes, suffer="the 2-thread figures and the HEAD/baseline ratio")
    run.write(args.out, mode, rows, notes, "burraco-sim step API benchmarks", "step API goals")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
