"""Where the time of a batch of hands goes: a `perf` profile of the jitted kernels by function.

Usage (from the repository root, Linux with `perf` installed)::

    python benchmarks/profiling/profile.py [--hands N] [--strategy S] [--top K]

Numba's machine code has no symbols that `perf` can see, so this script
compiles a private copy of ``kernels/`` (with ``cache=False``, which keeps the
LLVM modules in memory), writes a ``/tmp/perf-PID.map`` file with the address
and size of every compiled function, runs ``perf record`` on itself while
``simulate_range_serial`` plays the hands on one thread, and prints the share
of samples per function (self time; functions that LLVM inlined count in their
caller).  Compilation is not profiled.  Nothing in the repository is written.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def private_kernels(tmp: Path) -> None:
    """Copy kernels/ into ``tmp`` with caching off (so the compiled modules stay inspectable)."""
    dst = tmp / "kernels"
    shutil.copytree(REPO / "kernels", dst, ignore=shutil.ignore_patterns("__pycache__"))
    for p in dst.glob("*.py"):
        p.write_text(p.read_text().replace("cache=True", "cache=False"))


def short_name(mangled: str) -> str:
    """``_ZN7kernels8policies14heur_meld_stepB3v...`` -> ``policies.heur_meld_step``."""
    if not mangled.startswith("_ZN7kernels"):
        return mangled[:60]
    rest = mangled[len("_ZN7kernels"):]
    parts = []
    for _ in range(2):
        m = re.match(r"(\d+)", rest)
        if not m:
            break
        n = int(m.group(1))
        rest = rest[len(m.group(1)):]
        parts.append(rest[:n])
        rest = rest[n:]
    return ".".join(parts)


def write_perf_map(dispatcher) -> int:
    """Write /tmp/perf-PID.map for every function linked into ``dispatcher``'s code."""
    syms = set()
    for cres in dispatcher.overloads.values():
        lib = cres.library
        engine = lib._codegen._engine
        for fn in lib._final_module.functions:
            if fn.is_declaration:
                continue
            addr = engine.get_function_address(fn.name)
            if addr:
                syms.add((addr, fn.name))
    syms = sorted(syms)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for i, (addr, name) in enumerate(syms):
            size = syms[i + 1][0] - addr if i + 1 < len(syms) else 4096
            f.write(f"{addr:x} {size:x} {short_name(name)}\n")
    return len(syms)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=30_000, help="hands to profile (default 30000)")
    ap.add_argument("--strategy", default="heuristic", help="strategy of all four seats")
    ap.add_argument("--top", type=int, default=25, help="functions to list")
    ap.add_argument("--rules", default="default", metavar="PRESET",
                    help="rule preset (default, fibur_italian, fibur_international)")
    ap.add_argument("--players", type=int, choices=(2, 3, 4), default=None,
                    help="number of players (default: the preset's)")
    args = ap.parse_args(argv)
    if shutil.which("perf") is None:
        print("profile.py: error: perf is not installed (Debian: apt install linux-perf)",
              file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="burraco-profile-"))
    try:
        private_kernels(tmp)
        sys.path.insert(0, str(tmp))
        sys.path.insert(1, str(REPO))
        import numpy as np

        import sim
        from kernels.core import layout as L
        from kernels.play.game import simulate_range_serial
        from sim import strategies

        _, kind, params = strategies.resolve(args.strategy)
        rules = sim.Rules.preset(args.rules)
        if args.players:
            rules = rules.replace(num_players=args.players)
        rv = rules.to_vector()
        kinds = np.full(4, kind, np.int64)
        p = np.tile(params, (4, 1))

        def run(n, start):
            out = np.zeros((n, L.N_REC), np.int32)
            simulate_range_serial(np.uint64(1), np.int64(start), np.int64(n), rv, kinds, p,
                                  np.int64(0), out)

        t = time.perf_counter()
        run(10, 0)
        print(f"compiled in {time.perf_counter() - t:.1f} s; "
              f"{write_perf_map(simulate_range_serial)} functions mapped", file=sys.stderr)
        data = tmp / "perf.data"
        rec = subprocess.Popen(["perf", "record", "-F", "2000", "-o", str(data), "-p", str(os.getpid())],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        t = time.perf_counter()
        run(args.hands, 1000)
        dt = time.perf_counter() - t
        rec.send_signal(signal.SIGINT)
        rec.wait()
        out = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "sym",
                              "--stdio", "-q"], capture_output=True, text=True).stdout
        shares = Counter()
        for line in out.splitlines():
            m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(\S+)", line)
            if m:
                shares[m.group(2)] += float(m.group(1))
        print(f"{args.hands:,} hands of {args.strategy}, rules {args.rules}"
              + (f", {args.players} players" if args.players else "") + f", in {dt:.2f} s "
              f"({args.hands / dt:,.0f} hands/s on 1 thread, under perf)")
        print(f"{'self %':>7}  function")
        for name, share in shares.most_common(args.top):
            print(f"{share:7.2f}  {name}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        Path(f"/tmp/perf-{os.getpid()}.map").unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
