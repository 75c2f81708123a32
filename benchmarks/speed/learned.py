#!/usr/bin/env python
"""Speed of the ``learned`` strategy: hands/s, the cost of one evaluation, the cold compile.

    python benchmarks/speed/learned.py [--quick] [--repeats N] [--out PATH]
        [--model FILE] [--settings P=V,...] [--hands H] [--skip-cold] [--base COMMIT]

1. **hands/s**, ``learned`` on every seat against ``expert`` on every seat, in the same
   run: ``sim.simulate(H, seed 1)`` on 2 threads and on 1, the repeats interleaved after an
   untimed warm-up, the median and the ratio to ``expert``;
2. **one decision's parts**, one thread, over the pickup and discard decisions of real
   hands (their stored work buffers): the features as the player computes them (from the
   state), the same from the observation tensor (the training's path, tensor included),
   the forward pass (the hidden layers and the outputs of the legal candidates), the same
   with the candidate term (a network of features version 2), and the whole chooser
   (``learned_choose``: legal actions, hard rules and the base policy's choice included),
   in microseconds; each decision's work buffer 20 times in a row (a buffer is 0.7 MB: in
   play a thread's one buffer stays in the cache, and 3,000 buffers in turn would measure
   memory, not the chooser);
3. **cold compile** of the first ``burraco simulate --hands 1`` in a fresh copy of the
   packages (no cache), of this checkout and of the commit it branched from (``git
   merge-base HEAD main``), and the extra compile of the first ``--strategy learned`` run
   in the copy of this checkout (run after it: the simulate kernels are cached then).

The network is ``--model FILE`` or the newest shipped version; without either, an
untrained network of the default shape (its play, hence its hands' length, is not a
trained model's: the note says so).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import (REPO, Row, Run, child_env, copy_packages, fmt, log, parser,  # noqa: E402
                     run_child, settings, spread)

MODES = {"full": {"repeats": 5, "hands": 20_000, "decisions": 3000, "cold": 2},
         "quick": {"repeats": 2, "hands": 2_000, "decisions": 500, "cold": 1}}


def model_spec(model: str | None, tmp: Path) -> tuple[str, str]:
    from sim.strategies import learned as SL
    from sim.strategies import train as T
    if model:
        return f"learned:model={model}", f"the weights file {model}"
    if SL.shipped():
        return "learned", f"the newest shipped version ({SL.model_path(None).name})"
    path = T.untrained(tmp / "untrained.npz", seed=0)
    return f"learned:model={path}", ("an UNTRAINED network (no weights shipped): its play, "
                                     "hence the hands' length, is not a trained model's")


def bench_hands(spec: str, c: dict, rows: list) -> None:
    import sim
    from harness import interleaved
    for threads in (2, 1):
        fns = {s: (lambda s=s: sim.simulate(c["hands"], 1, strategies=s, threads=threads))
               for s in (spec, "expert")}
        for fn in fns.values():
            fn()                                            # warm-up: compiles or loads
        times = interleaved(fns, c["repeats"])
        rates = {k: [c["hands"] / t for t in v] for k, v in times.items()}
        turns = float(sim.simulate(2000, 1, strategies=spec, threads=threads)["turns"].mean())
        e = float(np.median(rates["expert"]))
        rows.append(Row("hands", f"learned on every seat, {threads} thread(s)", rates[spec],
                        "hands/s", f"sim.simulate({c['hands']}, seed 1)",
                        baseline=f"{np.median(rates[spec]) / e:.3f} x expert ({fmt(e)} hands/s)",
                        target=(f"≥ 10,000 ({'met' if np.median(rates[spec]) >= 10_000 else 'NOT met'})"
                                if threads == 2 else ""),
                        note=f"{turns:.1f} turns per hand"))


def decisions(spec: str, n: int) -> list:
    """Work buffers of the learned seats' pickup and discard decisions in real hands."""
    from sim.play.game import Game
    out, i = [], 0
    while len(out) < n:
        game = Game.new(1, i, strategies=spec)
        while not game.is_over and len(out) < n:
            if game.phase in ("pickup", "discard"):
                out.append(game._work.copy())
            game.apply(game.choose())
        i += 1
    return out


def bench_parts(spec: str, c: dict, rows: list) -> None:
    from numba import njit
    from kernels.core import layout as L
    from kernels.core.cards import N_COUNT
    from kernels.engine.observe import TENSOR_SIZE, observation_tensor
    from kernels.strategies import learned as KL
    from kernels.table import work as KW
    from kernels.table.state import G_SEAT

    @njit
    def run(bufs, what, reps, feats, nfs):
        obs = np.empty(TENSOR_SIZE, np.float32)
        fidx = np.empty(KL.MAX_ACTIVE + 2 * N_COUNT + 10, np.int64)
        h = np.empty(1024, np.float64)
        bits = np.empty(KL.N_FEATURES, np.uint8)
        cbuf = np.empty(KL.MAX_CANDIDATE_ACTIVE, np.int64)
        total = 0.0
        for b in range(bufs.shape[0]):
            work = bufs[b]
            vw = KW.views(work)
            seat = vw.state.g[G_SEAT]
            w = KL.weights_at(np.int64(vw.params[seat, KL.LP_WEIGHTS]))
            for _r in range(reps):       # one buffer in a row, as a thread's in play
                if what == 0:
                    total += KL.state_features(work, seat, vw.rules[L.RV_NUM_PLAYERS], fidx,
                                               fidx[KL.MAX_ACTIVE:])
                elif what == 1:
                    observation_tensor(work, seat, vw.rules[L.RV_NUM_PLAYERS], obs)
                    total += KL.features(obs, fidx)
                elif what == 2:
                    at, width = KL.hidden(w, feats[b], nfs[b], h)
                    ids, n = KL.legal(work)
                    for i in range(n):
                        o = KL.out_index(ids[i])
                        if o >= 0:
                            total += KL.output(w, h, at, width, o)
                elif what == 3:
                    at, width = KL.hidden(w, feats[b], nfs[b], h)
                    q = h[at + width:]
                    k = KL.candidate_weights(w, h, at, width, q)
                    if k > 0:
                        KL.feature_bits(feats[b], nfs[b], bits)
                        ids, n = KL.legal(work)
                        for i in range(n):
                            o = KL.out_index(ids[i])
                            if o >= 0:
                                for j in range(KL.candidate_features(bits, o, False, cbuf)):
                                    total += q[cbuf[j]]
                else:
                    total += KL.learned_choose(work)
        return total

    bufs = np.stack(decisions(spec, c["decisions"]))
    n = bufs.shape[0]
    feats = np.zeros((n, KL.MAX_ACTIVE + 2 * N_COUNT + 10), np.int64)
    nfs = np.zeros(n, np.int64)
    for b in range(n):
        vw_seat = int(bufs[b][KW.W_G + G_SEAT])
        nfs[b] = KL.state_features(bufs[b], vw_seat, 4, feats[b], feats[b][KL.MAX_ACTIVE:])
    names = ("features from the state (the player's: state_features)",
             "observation tensor + features (the training's path)",
             "forward pass: hidden layers + every legal candidate's output (incl. legal list)",
             "the forward pass + the candidate term (q = v + V h, the position's feature "
             "bits, each legal candidate's features and their q; incl. legal list)",
             "the whole chooser (learned_choose)")
    reps = 20
    params = bufs[0][KW.W_PARAMS:KW.W_PARAMS + 4 * L.N_PARAMS].view(np.float64)
    addr = int(params.reshape(4, L.N_PARAMS)[int(bufs[0][KW.W_G + G_SEAT]), KL.LP_WEIGHTS])
    has_term = KL.weights_at(addr)[7] > 0
    for what, name in enumerate(names):
        if what == 3 and not has_term:
            continue                                   # a network without a candidate term
        run(bufs.copy(), what, 1, feats, nfs)
        ts = []
        for _ in range(c["repeats"]):
            b = bufs.copy()
            t0 = time.perf_counter()
            run(b, what, reps, feats, nfs)
            ts.append((time.perf_counter() - t0) / (reps * n) * 1e6)
        target = ""
        if what == 2:
            target = f"0.3 - 1.1 µs ({'met' if np.median(ts) <= 1.1 else 'NOT met'})"
        rows.append(Row("decision", name, ts, "µs",
                        f"{n} pickup and discard decisions, each {reps} times in a row "
                        f"({nfs.mean():.1f} active features on average)", target=target))


def bench_cold(spec: str, c: dict, rows: list, tmp: Path, base: str | None = None) -> None:
    base = subprocess.run(["git", "-C", str(REPO), "rev-parse", base] if base else
                          ["git", "-C", str(REPO), "merge-base", "HEAD", "main"],
                          capture_output=True, text=True, check=True).stdout.strip()
    for label, make in (("this checkout", lambda d: copy_packages(d)),
                        (f"merge-base {base[:8]}", lambda d: _archive(base, d))):
        walls, extra = [], []
        for i in range(c["cold"]):
            src = tmp / f"cold-{label[:4]}-{i}"
            make(src)
            cmd = [sys.executable, "-m", "sim", "simulate", "--hands", "1", "--seed", "1",
                   "--out", str(tmp / f"out-{label[:4]}-{i}")]
            log(f"cold compile, {label}, {i + 1}/{c['cold']}")
            walls.append(run_child(cmd, child_env(src), tmp).wall)
            if label == "this checkout":
                cmd2 = [sys.executable, "-m", "sim", "simulate", "--hands", "1", "--seed", "1",
                        "--strategy", spec, "--out", str(tmp / f"outl-{i}")]
                t1 = run_child(cmd2, child_env(src), tmp).wall
                t2 = run_child(cmd2[:-1] + [str(tmp / f"outl2-{i}")], child_env(src), tmp).wall
                extra.append(t1 - t2)
            shutil.rmtree(src)
        rows.append(Row("cold", f"cold compile of `burraco simulate --hands 1`, {label}", walls,
                        "s", "a fresh copy of kernels/ and sim/, no cache"))
        if extra:
            rows.append(Row("cold", "the learned player's first use: `simulate --strategy "
                            "learned` first run less the cached run", extra, "s",
                            "after the cold simulate above, in the same copy"))


def _archive(commit: str, dest: Path) -> Path:
    dest.mkdir(parents=True)
    tar = subprocess.run(["git", "-C", str(REPO), "archive", commit, "kernels", "sim"],
                         capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=tar, check=True)
    return dest


def main(argv=None) -> int:
    ap = parser(__doc__, out=Path(__file__).with_suffix(".md"))
    ap.add_argument("--model", default=None, help="the weights file (default: newest shipped)")
    ap.add_argument("--hands", type=int, default=None)
    ap.add_argument("--skip-cold", action="store_true", help="leave the cold compiles out")
    ap.add_argument("--settings", default="", metavar="P=V,...",
                    help="the learned player's settings, e.g. discard_margin=1000 (default: "
                         "none, the defaults)")
    ap.add_argument("--base", default=None, metavar="COMMIT",
                    help="the commit whose cold compile is the baseline (default: git "
                         "merge-base HEAD main)")
    args = ap.parse_args(argv)
    c = settings(args, MODES)
    if args.hands:
        c["hands"] = args.hands
    run = Run("speed/learned.py", argv)
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        spec, what = model_spec(args.model, tmp)
        if args.settings:
            spec = f"{spec}:{args.settings}" if ":" not in spec else f"{spec},{args.settings}"
            what += f", with {args.settings}"
        notes.append(f"The network: {what}.")
        log(f"hands/s of {spec}")
        bench_hands(spec, c, rows)
        log("one decision's parts")
        bench_parts(spec, c, rows)
        if not args.skip_cold:
            bench_cold(spec, c, rows, tmp, args.base)
    run.finish(notes)
    lines = ["# Speed of the learned strategy", "", f"`{run.facts['command']}`", "",
             "| section | figure | median | min – max | unit | one repeat | baseline | target | note |",
             "|---|---|---:|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.section} | {r.name} | {fmt(r.median)} | {spread(r.values)} | {r.unit} | "
                     f"{r.work} | {r.baseline} | {r.target} | {r.note} |")
    lines += [""] + notes + ["", "| fact | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in run.facts.items()]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out is not None:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
