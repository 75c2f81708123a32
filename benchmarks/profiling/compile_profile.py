#!/usr/bin/env python
"""What the first use of each part of burraco-sim costs to compile, and where it goes.

    python benchmarks/profiling/compile_profile.py [--top K] [--before PATH] [--out PATH]

One child process with an empty Numba cache (a temporary NUMBA_CACHE_DIR) takes the
steps a user meets in turn: import sim, a hand run (``simulate_range``), a match run
(``simulate_hands``), the step API (``sim.Game``), a replay, a position analysis
(``sim.analyze``) and the ``rollout`` search player.  For each step it reports the wall
and CPU seconds (what was already compiled by an earlier step is not paid again), and
the Numba code libraries finalized during it (LLVM's optimization and machine code,
self time: a library's time without the libraries finalized inside it), largest
first: a library holds its function and, linked in, every function it calls, so a
deep call tree is optimized once per level.  The rest of a step's time is Numba's
front end (typing, lowering) and Python.  Writes Markdown to ``--out`` (default
``benchmarks/profiling/compile.md``) and prints it.  ``--before`` names an earlier report
(of another checkout, say): its wall and CPU seconds per step are put beside
this run's, to compare a change; on a shared machine compare the CPU seconds,
the wall seconds depend on the load.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

CHILD = r'''
import collections, json, resource, sys, time
from numba.core import codegen

finalize = codegen.CPUCodeLibrary.finalize
stack, libs = [], []


def timed_finalize(self):
    t0 = time.perf_counter()
    stack.append(0.0)
    try:
        return finalize(self)
    finally:
        dt = time.perf_counter() - t0
        inner = stack.pop()
        if stack:
            stack[-1] += dt
        nfun = sum(1 for f in self._final_module.functions if not f.is_declaration)
        libs.append((self.name, dt - inner, nfun))


codegen.CPUCodeLibrary.finalize = timed_finalize


def label(name):
    """A library's name without process addresses (the parallel loop's parts)."""
    if name.startswith("<numba.np.ufunc.wrappers._GufuncWrapper"):
        return "(parfor gufunc wrapper)"
    if name.startswith("__numba_parfor_gufunc"):
        return "(parfor gufunc body)"
    return name


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def step(name, fn):
    start, c0, t0 = len(libs), cpu(), time.perf_counter()
    fn()
    wall, used = time.perf_counter() - t0, cpu() - c0
    mine = collections.Counter()
    sizes = {}
    for lib, t, nfun in libs[start:]:
        mine[label(lib)] += t
        sizes[label(lib)] = nfun
    print(json.dumps({"step": name, "wall": wall, "cpu": used, "libraries": len(libs) - start,
                      "finalize": sum(mine.values()),
                      "top": [[n[:60], t, sizes[n]] for n, t in mine.most_common(TOP)]}),
          flush=True)


TOP = int(sys.argv[1])


def imports():
    global sim
    import sim


def hand_run():
    from sim import executors
    executors.prepare_kernels(1, "simulate_range")


def match_run():
    from sim import executors
    executors.prepare_kernels(1, "simulate_hands")


def step_api():
    g = sim.Game.new(1, 0)
    for _ in range(5):
        g.apply(g.legal_actions()[0])
    g.observation(g.current_seat)
    g.observation_tensor(g.current_seat)
    g.clone().play()
    g.sample_world(g.current_seat, 1)


def replay():
    sim.replay(seed=1, hand_index=0)


def analyze():
    g = sim.Game.new(1, 0)
    sim.analyze(g, rollouts=8, seed=1, threads=1)


def search_player():
    sim.simulate(hands=1, seed=1, strategies="rollout", threads=1)


for name, fn in (("import sim", imports), ("hand run: simulate_range", hand_run),
                 ("match run: simulate_hands", match_run), ("step API: sim.Game", step_api),
                 ("replay: sim.replay", replay), ("position analysis: sim.analyze", analyze),
                 ("search player: rollout", search_player)):
    step(name, fn)
'''


def _read_report(path: Path) -> dict:
    """The wall and CPU seconds per step of a report this script wrote, and its command line."""
    steps, command = {}, ""
    for line in path.read_text().splitlines():
        if line.startswith("Command: "):
            command = line.removeprefix("Command: ")
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 3:
            try:
                steps[cells[0]] = (float(cells[1].split()[0]), float(cells[2].split()[0]))
            except ValueError:
                continue            # the header
    return {"steps": steps, "command": command}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=6, help="libraries listed per step (default 6)")
    ap.add_argument("--before", type=Path, help="an earlier report: its wall and CPU seconds "
                    "per step are shown beside this run's")
    ap.add_argument("--out", type=Path, default=HERE / "compile.md", help="where to write the report")
    args = ap.parse_args(argv)
    before = _read_report(args.before) if args.before else None
    with tempfile.TemporaryDirectory(prefix="burraco-compile-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache,
               "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.Popen([sys.executable, "-W", "ignore", "-c", CHILD, str(args.top)],
                                cwd=cache, env=env, stdout=subprocess.PIPE, text=True)
        rows = []
        for line in proc.stdout:
            row = json.loads(line)
            rows.append(row)
            print(f"{row['step']}: {row['wall']:.1f} s wall, {row['cpu']:.1f} s CPU, "
                  f"{row['libraries']} libraries finalized in {row['finalize']:.1f} s", flush=True)
        if proc.wait():
            raise SystemExit(f"compile_profile.py: the child exited {proc.returncode}")
    load = os.getloadavg()
    lines = ["# First-use compile cost per step", "",
             "Generated by `benchmarks/profiling/compile_profile.py` (do not edit by hand).", "",
             f"Command: `python benchmarks/profiling/compile_profile.py --top {args.top}` · empty Numba cache · load average after the run "
             f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores)", "",
             "One process takes the steps in turn; what an earlier step compiled is not paid "
             "again. *Finalize* is LLVM's optimization and machine code of the Numba libraries "
             "finalized in the step (self time); the rest is Numba's front end and Python.", "",
             "| step | wall (s) | CPU (s) | libraries | finalize (s) | largest libraries: self s (functions) |",
             "|---|---:|---:|---:|---:|---|"]
    if before is not None:
        lines[-2:-2] = [f"Beside each figure, in brackets, the same step before: `{args.before.stem}` "
                        f"({before['command']}).", ""]
    for r in rows:
        top = "; ".join(f"`{n}` {t:.1f} ({k})" for n, t, k in r["top"] if t >= 0.05)
        wall, cpu = f"{r['wall']:.1f}", f"{r['cpu']:.1f}"
        if before is not None and r["step"] in before["steps"]:
            wall += f" ({before['steps'][r['step']][0]:.1f})"
            cpu += f" ({before['steps'][r['step']][1]:.1f})"
        lines.append(f"| {r['step']} | {wall} | {cpu} | {r['libraries']} | "
                     f"{r['finalize']:.1f} | {top} |")
    total_wall = sum(r["wall"] for r in rows)
    total_cpu = sum(r["cpu"] for r in rows)
    total_fin = sum(r["finalize"] for r in rows)
    total = f"All steps: {total_wall:.1f} s wall, {total_cpu:.1f} s CPU"
    if before is not None:
        old = before["steps"].values()
        total += (f" (before: {sum(w for w, _ in old):.1f} s wall, "
                  f"{sum(c for _, c in old):.1f} s CPU)")
    lines += ["", f"{total}; {total_fin:.1f} s finalizing libraries.", ""]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
