#!/usr/bin/env python
"""Speed benchmarks of burraco-sim; writes benchmarks/results.md (see benchmarks/README.md).

    python benchmarks/run.py [--quick] [--big] [--out PATH]

Every figure is measured on one snapshot of the repository's ``kernels`` and
``sim`` packages, copied to a temporary directory at the start, so that edits
made while the benchmark runs do not mix into its figures.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SEED = 1

# work per repeat; "repeats" is the count of timed repeats of each in-process figure
MODES = {
    "full": dict(repeats=5, deals=1_000_000, meld_vectors=30_000, meld_passes=50, search_hands=100_000,
                 heuristic_hands=100_000, random_hands=2_000, pure_hands=100, cli_hands=1_000_000,
                 cli_repeats=3, cold_repeats=5, startup_repeats=5, openspiel_games=300),
    "quick": dict(repeats=5, deals=100_000, meld_vectors=5_000, meld_passes=4, search_hands=2_000,
                  heuristic_hands=5_000, random_hands=200, pure_hands=10, cli_hands=100_000,
                  cli_repeats=1, cold_repeats=1, startup_repeats=3, openspiel_games=30),
}
BIG_HANDS = 10_000_000
GIB = 1024 ** 3
_T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f} s] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- results
@dataclass
class Row:
    section: str
    name: str
    values: list            # one per repeat (rates or seconds or bytes)
    unit: str
    work: str               # what one repeat does
    baseline: str = ""      # ratio against a baseline measured in the same run
    target: str = ""        # issue 4's target and whether it is met
    note: str = ""

    @property
    def median(self) -> float:
        return float(np.median(self.values))


def fmt(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def spread(values) -> str:
    return "-" if len(values) < 2 else f"{fmt(min(values))} – {fmt(max(values))}"


def check(ok: bool, text: str) -> str:
    return f"{text} ({'met' if ok else 'NOT met'})"


# ---------------------------------------------------------------- child processes
@dataclass
class Child:
    wall: float
    code: int
    out: str
    err: str
    maxrss: int             # bytes, peak resident set of the child


def run_child(cmd: list, env: dict, cwd: Path) -> Child:
    """Run ``cmd``; wall time by perf_counter, peak RSS from wait4's rusage."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        child = Child(wall, proc.returncode, out.read().decode(), err.read().decode(),
                      usage.ru_maxrss * 1024)
    if child.code != 0:
        raise RuntimeError(f"{shlex.join(map(str, cmd))} exited {child.code}:\n{child.err[-2000:]}")
    return child


def child_env(src: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = os.pathsep.join([str(src)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env.update(extra)
    return env


def burraco_cmd() -> list:
    script = Path(sys.executable).parent / "burraco"
    return [str(script)] if script.exists() else [sys.executable, "-m", "sim"]


# ---------------------------------------------------------------- snapshot and caches
def copy_packages(dest: Path) -> Path:
    for pkg in ("kernels", "sim"):
        shutil.copytree(REPO / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def source_digest(src: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(src.glob("*/*.py")):
        h.update(f.relative_to(src).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def guard_helper_cache(digest: str) -> None:
    """Numba's cache of benchmarks/jitloops.py does not notice kernel edits: drop it when they change."""
    cache = HERE / "__pycache__"
    stamp = cache / "jitloops.kernels-digest"
    if stamp.exists() and stamp.read_text() == digest:
        return
    for f in cache.glob("jitloops.*.nb[ic]"):
        f.unlink()
    cache.mkdir(exist_ok=True)
    stamp.write_text(digest)


# ---------------------------------------------------------------- workloads
def random_count_vectors(n: int, rng: np.random.Generator) -> np.ndarray:
    """Count vectors (int64[n, 53]) of 3-14 cards: a third any cards of the two packs
    (mostly invalid), a third runs of one suit, a third sets, half of those with a wild."""
    cnt = np.zeros((n, 53), np.int64)
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


def timed(fn, repeats: int) -> list:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def bench_kernels(c: dict, rows: list, facts: dict) -> dict:
    """In-process figures: deals, meld checks, meld search, complete hands."""
    import numba

    import jitloops
    import sim
    from kernels import game
    from kernels import layout as L
    from kernels.state import new_state
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
    rows.append(Row(sec, "deals/s (kernels.deal.deal_hand)", [n / x for x in t], "deals/s",
                    f"{n:,} deals"))

    log("meld checks/s")
    cnts = random_count_vectors(c["meld_vectors"], rng)
    mask = np.int64(rv[L.RV_SET_RANKS_MASK])
    passes = c["meld_passes"]
    valid = jitloops.analyze_loop(cnts, mask, 1)
    t = timed(lambda: jitloops.analyze_loop(cnts, mask, passes), R)
    k = len(cnts) * passes
    rows.append(Row(sec, "meld checks/s (kernels.melds.analyze)", [k / x for x in t], "checks/s",
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
        rows.append(Row(sec, f"meld search, {size}-card hands/s (kernels.policies.meld_search)",
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
                    "(kernels.game.simulate_range)", [n / x for x in t], "hands/s",
                    f"hands 0..{n - 1:,} of seed {SEED}",
                    note=f"{out[:, L.REC_TURNS].mean():.1f} turns per hand")
            rates[strat, th] = r.median
            if th > 1:
                r.baseline = f"×{r.median / rates[strat, 1]:.2f} vs 1 thread"
                if strat == "heuristic":
                    r.target = check(r.median >= 50_000, "≥ 50,000")
            rows.append(r)
        if strat == "heuristic":
            digest_hands = out[: c["pure_hands"]].copy()
    numba.set_num_threads(int(numba.config.NUMBA_NUM_THREADS))
    facts["numba threading layer"] = numba.threading_layer()
    return {"rates": rates, "jit_records": digest_hands}


def bench_pure_python(c: dict, src: Path, tmp: Path, rows: list, jit: dict) -> None:
    n, R = c["pure_hands"], c["repeats"]
    log(f"pure Python (NUMBA_DISABLE_JIT=1), {n} hands x {R}")
    code = (
        "import json, sys, time, numpy as np\n"
        "from kernels import game, layout as L\n"
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


def bench_startup(c: dict, pristine: Path, tmp: Path, rows: list) -> Path:
    """Cold compile (fresh copy of the packages, no cache) and cached start-up of
    ``burraco simulate --hands 1``; returns the last copy, whose cache is now warm."""
    cold, announced, caches = [], [], []
    for i in range(c["cold_repeats"]):
        log(f"cold compile {i + 1}/{c['cold_repeats']}")
        src = tmp / f"src{i}"
        shutil.copytree(pristine, src)
        cmd = burraco_cmd() + ["simulate", "--hands", "1", "--seed", str(SEED), "--out", str(tmp / f"cold{i}")]
        child = run_child(cmd, child_env(src), tmp)
        cold.append(child.wall)
        announced.append("compiling kernels" in child.err)
        caches.append(len(list((src / "kernels" / "__pycache__").glob("*.nbi"))))
        shutil.rmtree(tmp / f"cold{i}")
        if i + 1 < c["cold_repeats"]:
            shutil.rmtree(src)
    rows.append(Row("start-up", "cold compile: `burraco simulate --hands 1`, empty cache", cold, "s",
                    "one run in a fresh copy of kernels/ and sim/",
                    target=check(float(np.median(cold)) <= 30, "≤ 30 s"),
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
            "one run", target=check(float(np.median(warm)) <= 1.5, "≤ 1.5 s"))
    rows[-1].baseline = f"×{rows[-1].median / r.median:.0f} the cached start-up"
    rows.append(r)
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
        size = sum(f.stat().st_size for f in out.glob("shard-*.parquet"))
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
                    target=check(float(np.median(wall)) <= 20, "≤ 20 s") if hands == 1_000_000 else ""))
    rows.append(Row(sec, f"{what}: hands/s by wall time (incl. start-up)", [hands / w for w in wall],
                    "hands/s", work))
    rows.append(Row(sec, f"{what}: hands/s from the run summary", [r[1] for r in res], "hands/s", work))
    rows.append(Row(sec, f"{what}: peak memory (max RSS)", [r[3] / 2**20 for r in res], "MiB", work,
                    target=check(float(np.median([r[3] for r in res])) <= 2 * GIB, "≤ 2 GiB")
                    if big else ""))
    if not big:
        rows.append(Row(sec, f"{what}: Parquet bytes per hand", [r[2] / hands for r in res], "bytes/hand", work,
                        note=f"{res[0][2] / 2**20:.1f} MiB of shards for {hands:,} hands"))


def bench_openspiel(c: dict, rows: list, ours: float, facts: dict) -> str:
    """OpenSpiel gin_rummy random playouts on 1 thread; returns a note when skipped."""
    try:
        import random

        import pyspiel
    except Exception as e:      # optional: pip install open_spiel
        return f"open_spiel not installed: {type(e).__name__}: {e}"
    from importlib.metadata import version
    facts["open_spiel"] = version("open_spiel")
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(SEED)
    actions = []

    def playouts(n):
        for _ in range(n):
            s = game.new_initial_state()
            k = 0
            while not s.is_terminal():
                if s.is_chance_node():
                    outcomes, probs = zip(*s.chance_outcomes())
                    s.apply_action(rng.choices(outcomes, probs)[0])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
                k += 1
            actions.append(k)

    n = c["openspiel_games"]
    log(f"OpenSpiel gin_rummy random playouts, {n} games x {c['repeats']}")
    playouts(max(n // 10, 1))
    t = timed(lambda: playouts(n), c["repeats"])
    r = Row("OpenSpiel (same run)", "gin_rummy random playouts/s, 1 thread (pyspiel, Python loop)",
            [n / x for x in t], "games/s", f"{n} games",
            note=f"{np.mean(actions):.0f} actions (incl. chance) per game")
    r.baseline = f"our heuristic hands/s (1 thread) is ×{ours / r.median:,.1f} its games/s"
    rows.append(r)
    return ""


# ---------------------------------------------------------------- machine and report
def cpu_seconds() -> tuple:
    """(CPU-seconds busy on the whole machine, CPU-seconds of this process and its children, wall s)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")   # all but idle, iowait
    t = os.times()
    return busy, t.user + t.system + t.children_user + t.children_system, time.perf_counter()


def machine_facts() -> dict:
    import numba
    import pandas
    import pyarrow

    def read(path):
        try:
            return Path(path).read_text()
        except OSError:
            return ""

    cpu = re.search(r"^model name\s*:\s*(.*)$", read("/proc/cpuinfo"), re.M)
    mem = re.search(r"^MemTotal:\s*(\d+) kB", read("/proc/meminfo"), re.M)
    osname = re.search(r'^PRETTY_NAME="?([^"\n]*)', read("/etc/os-release"), re.M)

    def git(*args):
        r = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else "?"

    dirty = git("status", "--porcelain", "--", "kernels", "sim")
    return {
        "CPU": cpu.group(1) if cpu else platform.processor() or "?",
        "cores (os.cpu_count)": str(os.cpu_count()),
        "numba threads (NUMBA_NUM_THREADS)": str(numba.config.NUMBA_NUM_THREADS),
        "memory": f"{int(mem.group(1)) / 2**20:.1f} GiB" if mem else "?",
        "OS": f"{osname.group(1) if osname else platform.system()}, kernel {platform.release()}",
        "Python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": pyarrow.__version__,
        "pandas": pandas.__version__,
        "git commit": git("rev-parse", "HEAD") + (" + uncommitted changes in kernels/ or sim/" if dirty else ""),
    }


def write_report(path: Path, mode: str, rows: list, facts: dict, notes: list) -> None:
    lines = [
        "# burraco-sim benchmarks",
        "",
        "Generated by `benchmarks/run.py` (do not edit by hand; see benchmarks/README.md).",
        "",
        f"Command: `{facts['command']}` · mode: **{mode}**" + (
            " (smaller counts: a smoke run, not figures of record)" if mode == "quick" else ""),
        "",
        "Each figure is the median over its repeats, after an untimed warm-up; *range* is min – max",
        "over the repeats. Default rules (`sim.Rules()`); seed 1.",
        "",
        "| section | figure | median | range | unit | one repeat | repeats | baseline in the same run "
        "| target (issue 4) | notes |",
        "|---|---|---:|---|---|---|---:|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r.section} | {r.name} | {fmt(r.median)} | {spread(r.values)} | {r.unit} | {r.work} "
                     f"| {len(r.values)} | {r.baseline} | {r.target} | {r.note} |")
    lines += ["", "## Notes", ""] + [f"* {n}" for n in notes]
    lines += ["", "## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in facts.items() if k != "command"]
    path.write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller counts, for a smoke run")
    ap.add_argument("--big", action="store_true",
                    help=f"also run {BIG_HANDS:,} hands through the CLI (peak memory, wall time)")
    ap.add_argument("--out", type=Path, default=HERE / "results.md", help="where to write results.md")
    args = ap.parse_args(argv)
    mode = "quick" if args.quick else "full"
    c = MODES[mode]
    facts = {"command": shlex.join(["python", "benchmarks/run.py", *(sys.argv[1:] if argv is None else argv)])}
    facts |= machine_facts()
    facts["date"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    load0 = os.getloadavg()
    cpu0 = cpu_seconds()
    rows, notes = [], []

    with tempfile.TemporaryDirectory(prefix="burraco-bench-") as tmpname:
        tmp = Path(tmpname)
        pristine = copy_packages(tmp / "pristine")
        digest = source_digest(pristine)
        facts["source digest (kernels/*.py, sim/*.py, sha256)"] = digest
        log(f"snapshot of kernels/ and sim/ ({digest}) in {pristine}")

        src = bench_startup(c, pristine, tmp, rows)     # leaves src with a warm cache
        sys.path.insert(0, str(src))                    # in-process figures use the same snapshot
        import kernels
        assert Path(kernels.__file__).resolve().is_relative_to(src.resolve()), kernels.__file__
        guard_helper_cache(digest)
        jit = bench_kernels(c, rows, facts)
        bench_pure_python(c, src, tmp, rows, jit)
        add_cli_rows(bench_cli(c["cli_hands"], c["cli_repeats"], src, tmp, "run"), c["cli_hands"], rows, False)
        if args.big:
            add_cli_rows(bench_cli(BIG_HANDS, 1, src, tmp, "--big"), BIG_HANDS, rows, True)
        skipped = bench_openspiel(c, rows, jit["rates"]["heuristic", 1], facts)
        if skipped:
            notes.append(skipped)

    busy, ours, wall = (b - a for a, b in zip(cpu0, cpu_seconds()))
    others = max(busy - ours, 0.0) / wall
    facts["load average (1, 5, 15 min) before the run"] = " ".join(f"{x:.2f}" for x in load0)
    facts["CPU used by other processes during the run"] = f"{others:.2f} cores on average"
    notes += [
        "The start-up, CLI and pure-Python figures are separate processes timed from launch to exit "
        "(`time.perf_counter`); peak memory is the child's `ru_maxrss` (`os.wait4`). "
        "The CLI runs use the numba cache warmed by the start-up runs, which serve as their warm-up; "
        "they use all numba threads (the CLI default).",
        "Cold compile: each repeat copies kernels/ and sim/ (without `__pycache__`) to a fresh directory "
        "put first on PYTHONPATH, so numba finds no cache; the last copy then serves every other figure.",
        "Complete hands: `kernels.game.simulate_range` with `numba.set_num_threads(T)`, "
        "the same hand indices in every repeat.",
        "OpenSpiel's figure is driven from Python through pyspiel (one binding call per action and per "
        "legal-action list), so it measures the binding as much as the game engine.",
    ]
    if others > 0.2:           # the load average before the run lags behind; judge by the run itself
        notes.append(f"Other processes were using the CPU: {others:.2f} of {os.cpu_count()} cores on average "
                     f"during the run (1-min load average {load0[0]:.2f} before it). Figures may be low "
                     "and noisy; the 2-thread figures suffer most.")
    write_report(args.out, mode, rows, facts, notes)
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
