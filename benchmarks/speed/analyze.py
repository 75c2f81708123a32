#!/usr/bin/env python
"""Speed of position analysis by rollouts; writes benchmarks/speed/analyze.md.

    python benchmarks/speed/analyze.py [--quick] [--repeats N] [--out PATH]

Rollouts/s from a mid-hand position with ``expert`` as the rollout strategy on 1 and
2 threads; the time of ``sim.analyze`` for 20 candidates x 5,000 rollouts after
compilation and how it splits (sampling, rollouts, summary); what copying only the
words a rollout needs saves over copying the whole buffer; the cold and cached
start-up of ``python -m sim analyze``.  Every figure is measured on a snapshot of
``kernels`` and ``sim`` (harness.py).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import (  # noqa: E402
    REPO,
    SEED,
    Row,
    Run,
    check,
    child_env,
    copy_packages,
    interleaved,
    log,
    parser,
    run_child,
    settings,
    source_digest,
    use_snapshot,
)

HERE = Path(__file__).resolve().parent
ROLLOUTS_PER_S_2T = 20_000      # goal: at least 20,000 rollouts/s on 2 cores
BIG_SECONDS = 5.0               # goal: 20 candidates x 5,000 rollouts in at most 5 s

MODES = {
    "full": {"repeats": 5, "worlds": 2_000, "big_worlds": 5_000, "copy_worlds": 1_000,
             "cold_repeats": 2, "startup_repeats": 5},
    "quick": {"repeats": 2, "worlds": 300, "big_worlds": 500, "copy_worlds": 200,
              "cold_repeats": 1, "startup_repeats": 2},
}
MID_HAND = REPO / "examples" / "position.toml"   # seat 3, meld phase of turn 12, 15 candidates
BIG_HAND, BIG_DECISION = 14, 58                  # seed 1, expert: meld phase of turn 13, 24 legal


def _big_game():
    """The game of the 20-candidate figure: hand 14 of seed 1 played by expert to decision 58."""
    from sim import Game
    g = Game.new(SEED, BIG_HAND, strategies="expert")
    for _ in range(BIG_DECISION):
        g.apply(g.choose())
    assert len(g.legal_actions()) >= 20, len(g.legal_actions())
    return g


def _kernel_runner(game, acts, worlds, threads, words=None, prefix=None):
    """A call of the rollout kernel on ``worlds`` worlds (buffers of ``words`` words,
    ``prefix`` of them copied per world and rollout)."""
    import numba

    from kernels.search import rollouts as KR
    from kernels.table import work as KW
    from sim.strategies import resolve_builtin_seats as _resolve_strategies

    words = KW.work_words(0, 0) if words is None else words
    prefix = KR.ROLL_WORDS if prefix is None else prefix
    src = np.zeros(words, np.int64)
    src[:KR.ROLL_WORDS] = game._work[:KR.ROLL_WORDS]
    src[KW.W_EV_ROWS] = src[KW.W_EV_CARDS] = 0
    _, kinds, params = _resolve_strategies("expert")
    acts = np.asarray(acts, np.int64)
    out = [np.zeros((worlds, acts.shape[0]), np.int64) for _ in range(4)]
    scratch = np.zeros((4 * threads, 2, words), np.int64)

    def run():
        numba.set_num_threads(threads)
        KR.rollouts(src, np.int64(game.current_seat), acts, np.uint64(SEED), np.int64(0),
                    np.int64(worlds), kinds, params, np.int64(0), np.int64(prefix), scratch, *out,
                    np.int64(KR.WORLDS_SAMPLED))      # the signature rollout_matrix compiles
    return run


def measure(m: dict) -> tuple:
    reps = m["repeats"]
    rows, notes = [], []
    import numba

    from kernels.table import work as KW
    from sim import Game, analyze
    from sim.play.game import EV_CARDS, EV_ROWS

    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    mid = Game.from_position(MID_HAND, seed=SEED)
    mid_acts = mid.legal_actions()
    log("compiling or loading the rollout kernel")
    t0 = time.perf_counter()
    _kernel_runner(mid, mid_acts, 1, threads)()
    notes.append(f"First kernel call in the measuring process (compile or cache load): "
                 f"{time.perf_counter() - t0:.1f} s, not in any figure.")

    # 1. rollouts/s, mid-hand
    w = m["worlds"]
    n = w * len(mid_acts)
    runs = {t: _kernel_runner(mid, mid_acts, w, t) for t in sorted({1, threads})}
    times = interleaved(runs, reps)
    for t in sorted(runs):
        target = check(n / np.median(times[t]) >= ROLLOUTS_PER_S_2T,
                       f"≥ {ROLLOUTS_PER_S_2T:,} on 2 cores") if t == 2 else ""
        rows.append(Row("1. rollouts, mid-hand", f"`kernels.search.rollouts.rollouts`, expert, {t} "
                        f"thread{'s' if t > 1 else ''}", [n / x for x in times[t]], "rollouts/s",
                        f"{w:,} worlds x {len(mid_acts)} candidates of examples/position.toml",
                        target=target,
                        note="seat 3, meld phase of turn 12, stock 33; sampling included"))
    ratio = np.median(times[1]) / np.median(times[threads]) if threads > 1 else 1.0
    rows[-1].baseline = f"×{ratio:.2f} the 1-thread figure"

    # 2. 20 candidates x 5,000 rollouts through sim.analyze
    big = _big_game()
    acts = big.legal_actions()[:20]
    bw = m["big_worlds"]
    frames = []

    def whole():
        frames.append(analyze(big, rollouts=bw, seed=SEED, candidates=acts, threads=threads))
    analyze(big, rollouts=2, seed=SEED, candidates=acts, threads=threads)   # warm the Python side
    t_whole = interleaved({"whole": whole}, reps)["whole"]
    rows.append(Row("2. 20 candidates", f"`sim.analyze(game, rollouts={bw:,}, candidates=20 "
                    f"actions, threads={threads})`", t_whole, "s",
                    f"{bw * 20:,} rollouts; hand {BIG_HAND} of seed {SEED} (expert) at decision "
                    f"{BIG_DECISION}: meld phase of turn {big.turn}",
                    target=check(np.median(t_whole) <= BIG_SECONDS, f"≤ {BIG_SECONDS:g} s")
                    if bw == 5_000 else "",
                    note="the whole call: clone, candidates, rollouts, statistics"))
    split = {k: [f.attrs[k] for f in frames] for k in ("rollout_s", "summary_s", "elapsed_s")}
    sampling = interleaved({"s": _kernel_runner(big, [], bw, threads)}, reps)["s"]
    rows.append(Row("2. 20 candidates", "of which: the rollout kernel (sampling included)",
                    split["rollout_s"], "s", "the calls above (attrs['rollout_s'])",
                    note=f"{bw * 20 / np.median(split['rollout_s']):,.0f} rollouts/s"))
    rows.append(Row("2. 20 candidates", "of which: sampling the worlds alone", sampling, "s",
                    f"the kernel with no candidate, {bw:,} worlds",
                    note=f"{np.median(sampling) / np.median(split['rollout_s']):.1%} of the kernel "
                         "time"))
    rows.append(Row("2. 20 candidates", "of which: the statistics (`summarize_rollouts`)",
                    split["summary_s"], "s", f"{bw:,} x 20 matrix; p_best from 20,000 normal "
                                             "draws"))
    r = frames[-1]
    notes.append(f"Figure 2's table: best {r.iloc[0].text!r} ({r.iloc[0].mean_result:+.1f} "
                 f"points), CRN variance reduction ×{r.attrs['var_reduction']:.2f}.")
    t = np.median(split["elapsed_s"])
    notes.append(f"Figure 2 split: kernel {np.median(split['rollout_s']) / t:.0%}, statistics "
                 f"{np.median(split['summary_s']) / t:.0%}, the rest (clone, candidates, texts) "
                 f"{1 - (np.median(split['rollout_s']) + np.median(split['summary_s'])) / t:.0%}.")

    # 3. what copying the whole buffer would cost
    cw = m["copy_worlds"]
    variants = {
        "prefix": (None, None, "the words a rollout needs (ROLL_WORDS, the default)"),
        "compact": (None, KW.EV_AT, "the whole buffer without event log (work_words(0, 0))"),
        "game": (KW.work_words(EV_ROWS, EV_CARDS), KW.work_words(EV_ROWS, EV_CARDS),
                 "a sim.Game buffer, event log included"),
    }
    runs = {k: _kernel_runner(mid, mid_acts, cw, threads, words, prefix)
            for k, (words, prefix, _) in variants.items()}
    times = interleaved(runs, reps)
    n = cw * len(mid_acts)
    from kernels.search import rollouts as KR
    for k, (words, prefix, what) in variants.items():
        copied = KR.ROLL_WORDS if prefix is None else prefix
        rows.append(Row("3. copies per rollout", f"copy {copied:,} words ({copied * 8 / 1024:,.0f} "
                        f"KiB): {what}", [n / x for x in times[k]], "rollouts/s",
                        f"{cw:,} worlds x {len(mid_acts)} candidates, {threads} threads",
                        baseline="" if k == "prefix" else
                        f"×{np.median(times['prefix']) / np.median(times[k]):.2f} the prefix "
                        "copy's speed"))
    return rows, notes


STARTUP = [sys.executable, "-m", "sim", "analyze", str(MID_HAND), "--rollouts", "200", "--quiet"]


def startup(m: dict) -> list:
    """Cold (fresh package copy, so no Numba cache) and cached launches of the CLI."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        colds = []
        for i in range(m["cold_repeats"]):
            src = copy_packages(Path(tmp) / f"cold{i}")
            log(f"cold start-up {i + 1}/{m['cold_repeats']}")
            colds.append(run_child(STARTUP, child_env(src), src).wall)
        log("cached start-ups")
        cached = [run_child(STARTUP, child_env(src), src).wall
                  for _ in range(m["startup_repeats"])]
    rows.append(Row("4. start-up (subprocess)", "cold: `python -m sim analyze "
                    "examples/position.toml --rollouts 200 --quiet`, no Numba cache", colds, "s",
                    "launch to exit, a fresh copy of kernels/ and sim/", note="every kernel the "
                    "command uses is compiled"))
    rows.append(Row("4. start-up (subprocess)", "cached: the same command again", cached, "s",
                    "launch to exit, the cold run's cache",
                    baseline=f"the cold start-up is ×{np.median(colds) / np.median(cached):.0f} it",
                    note="3,000 rollouts of the 15 candidates included"))
    return rows


def main(argv=None) -> int:
    args = parser(__doc__, out=HERE / "analyze.md").parse_args(argv)
    mode = "quick" if args.quick else "full"
    m = settings(args, MODES)
    run = Run("speed/analyze.py", argv)
    with tempfile.TemporaryDirectory() as tmp:
        src = copy_packages(Path(tmp))
        digest = source_digest(src)
        run.facts["measured sources (digest)"] = digest
        use_snapshot(src, digest)
        rows, notes = measure(m)
    rows += startup(m)
    notes.append("The development machine is shared with other sessions and is often loaded; "
                 "the line below gives the CPU they used during this run. On 2 cores a second "
                 "thread only helps with a core to spare.")
    run.finish(notes, suffer="the 2-thread and start-up figures")
    run.write(args.out, mode, rows, notes, "burraco-sim position analysis benchmarks",
              "position analysis goals")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
