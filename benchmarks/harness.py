"""What the speed benchmarks share (``benchmarks/speed/``): the house rules.

* the command line of every speed script (:func:`parser`, :func:`settings`): ``--quick``
  (smaller counts, a smoke run of every figure), ``--repeats N`` (timed repeats of each
  figure after its warm-up) and ``--out PATH`` (where the report goes);
* a snapshot of ``kernels/`` and ``sim/`` measured everywhere (:func:`copy_packages`),
  and the guard of ``jitloops.py``'s Numba cache (:func:`guard_helper_cache`);
* timed repeats after an untimed warm-up (:func:`timed`, :func:`interleaved`,
  :func:`warm_median`), a :class:`Row` per figure (median, min - max, ratio to a
  baseline of the same run);
* child processes timed launch to exit with their peak memory (:func:`run_child`);
* the CPU other processes use while a figure or the whole run is measured
  (:class:`LoadMeter`), the machine's facts and the generated markdown report.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import random
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
_T0 = time.perf_counter()
# the scripts import sim and kernels of this checkout, whatever the current directory (the
# snapshot scripts put their copy first: use_snapshot)
if str(REPO) not in sys.path:
    sys.path.insert(1, str(REPO))


# ---------------------------------------------------------------- the command line
def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def parser(doc: str, out: Path | None = None, repeats: tuple | None = (5, 3)) -> argparse.ArgumentParser:
    """The command line every speed script starts from: ``--quick``; ``--repeats N`` when
    ``repeats`` gives the defaults ``(full, quick)``; ``--out PATH`` (default ``out``: the
    report beside the script; with ``out=None`` the script prints its tables and ``--out``
    also writes them to PATH).  A bad value is a one-line error naming the option (exit 2)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smaller counts: a smoke run of every figure, not figures of record")
    if repeats is not None:
        ap.add_argument("--repeats", type=_positive, default=None, metavar="N",
                        help=f"timed repeats of each figure after its warm-up "
                             f"(default {repeats[0]}, {repeats[1]} with --quick)")
    where = f"default {out.relative_to(REPO)}" if out is not None else "default: print only"
    ap.add_argument("--out", type=Path, default=out, metavar="PATH",
                    help=f"where to write the report ({where})")
    return ap


def settings(args, modes: dict) -> dict:
    """The counts of ``modes["quick"]`` or ``modes["full"]`` (by ``--quick``), with
    ``--repeats`` in place of the mode's ``repeats`` when it is given."""
    counts = dict(modes["quick" if args.quick else "full"])
    if getattr(args, "repeats", None) is not None:
        counts["repeats"] = args.repeats
    return counts


def emit(lines: list, out: Path | None, echo: bool = True) -> None:
    """Print a report (stdout; not with ``echo=False``, for a script that printed it as it
    went) and, with ``--out``, write it there too."""
    text = "\n".join(lines) + "\n"
    if echo:
        sys.stdout.write(text)
    if out is not None:
        Path(out).write_text(text)


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
    target: str = ""        # the goal and whether it is met
    note: str = ""
    others: float | None = None     # CPU cores other processes used while it was measured

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


def timed(fn, repeats: int) -> list:
    """Wall seconds (``time.perf_counter``) of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def warm_median(fn, repeats: int) -> tuple:
    """``(median, min, max)`` wall seconds of ``repeats`` calls of ``fn`` after one untimed
    call (the warm-up: it compiles or loads the kernels)."""
    fn()
    times = timed(fn, repeats)
    return float(np.median(times)), min(times), max(times)


def interleaved(fns: dict, repeats: int) -> dict:
    """:func:`timed` for several workloads, their repeats taken in turn (A B A B ...),
    so a change of machine load during the run falls on all of them alike."""
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            times[k] += timed(fn, 1)
    return times


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
    """The environment without NUMBA_* settings, ``src`` first on PYTHONPATH, then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = os.pathsep.join([str(src)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env.update(extra)
    return env


class RevisionWorker:
    """``benchmarks/revision_worker.py`` in a child process, one revision's packages
    (``src``) first on PYTHONPATH and its own NUMBA_CACHE_DIR (``cache``): requests go
    in with :meth:`send`, replies come back in order with :meth:`recv`."""

    def __init__(self, label: str, src: Path, cache: Path, cwd: Path):
        self.label = label
        cache.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-W", "ignore", str(HERE / "revision_worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=child_env(src, NUMBA_CACHE_DIR=str(cache)), cwd=cwd)
        self.ready = self.recv()
        if not Path(self.ready["file"]).resolve().is_relative_to(src.resolve()):
            raise RuntimeError(f"worker {label} imported {self.ready['file']}, not the packages in {src}")

    def send(self, *request) -> None:
        self.proc.stdin.write(json.dumps(list(request)) + "\n")
        self.proc.stdin.flush()

    def recv(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.label} exited {self.proc.wait()}")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


# ---------------------------------------------------------------- snapshot and caches
def copy_packages(dest: Path) -> Path:
    """Copy ``kernels/`` and ``sim/`` (without ``__pycache__``) to ``dest``; returns ``dest``."""
    for pkg in ("kernels", "sim"):
        shutil.copytree(REPO / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def source_digest(src: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(src.glob("*/**/*.py")):
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


def use_snapshot(src: Path, digest: str) -> None:
    """Import ``kernels`` and ``sim`` from the snapshot ``src`` in this process (and
    ``jitloops`` with a cache that matches it)."""
    sys.path.insert(0, str(src))
    import kernels
    import sim
    for mod in (kernels, sim):
        assert Path(mod.__file__).resolve().is_relative_to(src.resolve()), mod.__file__
    guard_helper_cache(digest)


# ---------------------------------------------------------------- OpenSpiel
class GinRummy:
    """OpenSpiel's ``gin_rummy`` played from Python through pyspiel, as OpenSpiel's own
    ``examples/example.py`` plays a game: a chance node's outcome drawn by its
    probabilities (``np.random.choice(actions, p=probs)``), a player's action uniformly
    among ``state.legal_actions()`` (``random.choice``), then ``state.apply_action``.
    """

    def __init__(self, pyspiel, seed: int = SEED):
        self.game = pyspiel.load_game("gin_rummy")
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(seed)

    def play(self, games: int) -> tuple:
        """Play ``games`` games to their end; returns (steps, player decisions), where a
        step is one ``apply_action`` (a chance outcome or a player's action)."""
        steps = decisions = 0
        rng, np_rng = self.rng, self.np_rng
        for _ in range(games):
            state = self.game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    action_list, prob_list = zip(*state.chance_outcomes())
                    state.apply_action(np_rng.choice(action_list, p=prob_list))
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    decisions += 1
                steps += 1
        return steps, decisions


def open_gin_rummy(facts: dict) -> tuple:
    """``(GinRummy, "")``, or ``(None, note)`` when open_spiel is not installed (it is
    optional: ``pip install open_spiel``); records its version in ``facts``."""
    try:
        import pyspiel
    except Exception as e:
        return None, f"open_spiel not installed: {type(e).__name__}: {e}"
    from importlib.metadata import version
    facts["open_spiel"] = version("open_spiel")
    return GinRummy(pyspiel), ""


# ---------------------------------------------------------------- machine load
_TICK = os.sysconf("SC_CLK_TCK")


def _live_descendants_cpu() -> float:
    """CPU-seconds of this process's live descendants (with the children they reaped):
    os.times counts a child only once it is reaped, a long-lived worker never."""
    parent, cpu = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            f = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parent[int(d)] = int(f[1])
        cpu[int(d)] = sum(int(x) for x in f[11:15]) / _TICK   # utime stime cutime cstime
    total, todo = 0.0, [os.getpid()]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p:
                total += cpu[c]
                todo.append(c)
    return total


def cpu_seconds() -> tuple:
    """(CPU-seconds busy on the whole machine, CPU-seconds of this process and its
    children, reaped or running, wall s)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = (sum(fields[:8]) - fields[3] - fields[4]) / _TICK     # all but idle, iowait
    t = os.times()
    ours = t.user + t.system + t.children_user + t.children_system + _live_descendants_cpu()
    return busy, ours, time.perf_counter()


class LoadMeter:
    """CPU cores that other processes used on average between ``start`` and
    ``cores()`` (the machine's busy time less this process tree's, by wall time)."""

    def __init__(self):
        self.t0 = cpu_seconds()

    def cores(self) -> float:
        busy, ours, wall = (b - a for a, b in zip(self.t0, cpu_seconds()))
        return max(busy - ours, 0.0) / wall if wall > 0 else 0.0


# ---------------------------------------------------------------- machine and report
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


def git(*args) -> str:
    r = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else "?"


class Run:
    """One benchmark run: the command, the machine's facts and the load, then the report.

    ``Run(script, argv)`` records the command, the machine, the date, the load average
    and the CPU counters; :meth:`finish` adds the load during the run (and a note when
    other processes used the CPU); :meth:`write` writes the markdown report.
    """

    def __init__(self, script: str, argv):
        self.script = script
        args = sys.argv[1:] if argv is None else list(argv)
        self.facts = {"command": shlex.join(["python", f"benchmarks/{script}", *args])}
        self.facts |= machine_facts()
        self.facts["date"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        self.load0 = os.getloadavg()
        self.meter = LoadMeter()

    def finish(self, notes: list, warn_at: float = 0.2, suffer: str = "the 2-thread figures") -> float:
        """Add the run's load to the facts (and a note to ``notes`` above ``warn_at``
        cores); returns the cores other processes used on average."""
        others = self.meter.cores()
        self.facts["load average (1, 5, 15 min) before the run"] = " ".join(f"{x:.2f}" for x in self.load0)
        self.facts["CPU used by other processes during the run"] = f"{others:.2f} cores on average"
        if others > warn_at:   # the load average before the run lags behind; judge by the run itself
            notes.append(f"Other processes were using the CPU: {others:.2f} of {os.cpu_count()} cores on "
                         f"average during the run (1-min load average {self.load0[0]:.2f} before it). "
                         f"Figures may be low and noisy; {suffer} suffer most.")
        return others

    def write(self, path: Path, mode: str, rows: list, notes: list, title: str, target: str,
              intro: str = "") -> None:
        per_row_load = any(r.others is not None for r in rows)
        lines = [
            f"# {title}",
            "",
            f"Generated by `benchmarks/{self.script}` (do not edit by hand; see benchmarks/README.md).",
            "",
            f"Command: `{self.facts['command']}` · mode: **{mode}**" + (
                " (smaller counts: a smoke run, not figures of record)" if mode == "quick" else ""),
            "",
            "Each figure is the median over its repeats, after an untimed warm-up; *range* is min – max",
            "over the repeats. Default rules (`sim.Rules()`); seed 1." + (f" {intro}" if intro else ""),
            "",
            "| section | figure | median | range | unit | one repeat | repeats | baseline in the same run "
            f"| target ({target}) |" + (" other processes (cores) |" if per_row_load else "") + " notes |",
            "|---|---|---:|---|---|---|---:|---|---|" + ("---:|" if per_row_load else "") + "---|",
        ]
        for r in rows:
            load = "" if r.others is None else f"{r.others:.2f}"
            lines.append(f"| {r.section} | {r.name} | {fmt(r.median)} | {spread(r.values)} | {r.unit} | {r.work} "
                         f"| {len(r.values)} | {r.baseline} | {r.target} |" + (f" {load} |" if per_row_load else "")
                         + f" {r.note} |")
        lines += ["", "## Notes", ""] + [f"* {n}" for n in notes]
        lines += ["", "## Machine", "", "| | |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in self.facts.items() if k != "command"]
        path.write_text("\n".join(lines) + "\n")
