"""A child process of ``benchmarks/speed/run.py`` that measures one revision of the packages.

    PYTHONPATH=<a revision's kernels/ and sim/> NUMBA_CACHE_DIR=<its own> python revision_worker.py

``run.py`` starts one worker for HEAD and one for the baseline revision and sends
them the same requests in turn (A B A B ...), so a change of machine load falls on
both.  It compiles what it needs on the first request, then answers each line of
stdin, a JSON list, with one JSON line on stdout:

* ``["hands", n, threads]``: hands 0..n-1 of seed 1 through
  ``kernels.play.game.simulate_range``, heuristic on every seat, default rules ->
  ``[seconds, records digest, turns per hand]``;
* ``["rollouts", worlds, threads]``: ``kernels.search.rollouts.rollouts`` of every legal
  action of ``examples/position.toml`` (seat 3, meld phase of turn 12), expert on
  every seat, ``worlds`` sampled worlds -> ``[seconds, rollouts, results digest]``;
* ``["game_steps", hands]``: random legal actions through ``sim.Game`` (a new
  Game per hand, Python's ``random.Random(1)``) -> ``[seconds, steps]``;
* ``["kernel_steps", hands, random_legal]``: the step API's kernel path
  (``benchmarks/jitloops.steps_loop``: ``legal_actions``/``apply_action`` with
  ``random_legal`` 1, ``choose``/``apply_action`` with 0) -> ``[seconds, steps]``.

The first line it prints is ``{"file": kernels.play.game's path, "threads": N}``, so
``run.py`` can check that the revision it meant is the one imported.  Both
revisions must have these entry points with today's signatures (they do from
0a270b0, the commit before the speed work, on), in the kernels' subpackages or, before
those, in flat modules.
"""
import hashlib
import json
import random
import sys
import time
from pathlib import Path

import numba
import numpy as np

import kernels

#: the revision's kernels are in subpackages by layer; a baseline from before them has flat
#: modules.  Told by the package's own directory, not by a failed import: an editable install
#: of another checkout would supply the missing subpackage from there.
LAYERED = (Path(kernels.__file__).parent / "play").is_dir()
if LAYERED:
    from kernels.core import layout as L
    from kernels.play import game
else:
    from kernels import game, layout as L
from sim import Rules
from sim.strategies import resolve

SEED = 1
POSITION = Path(__file__).resolve().parent.parent / "examples" / "position.toml"

_, _kind, _p = resolve("heuristic")
RV = Rules().to_vector()
KINDS = np.full(4, _kind, np.int64)
PARAMS = np.ascontiguousarray(np.tile(_p, (4, 1)))
_outs = {}


def hands(n, threads):
    numba.set_num_threads(threads)
    out = _outs.setdefault(n, np.zeros((n, L.N_REC), np.int32))
    t0 = time.perf_counter()
    game.simulate_range(np.uint64(SEED), np.int64(0), np.int64(n), RV, KINDS, PARAMS, np.int64(0), out)
    t = time.perf_counter() - t0
    return [t, hashlib.sha256(out.tobytes()).hexdigest()[:16], float(out[:, L.REC_TURNS].mean())]


_mid = None


def _rollout_kernels():
    """The rollouts and work-buffer modules, imported only by the requests that use them: an
    early baseline revision (step_api.py's) has neither, nor ``sim.Game``."""
    if LAYERED:
        from kernels.search import rollouts as KR
        from kernels.table import work as KW
    else:
        from kernels import rollouts as KR
        from kernels import work as KW
    return KR, KW


def rollouts(worlds, threads):
    """The call ``benchmarks/speed/analyze.py`` times (the signature ``sim.analyze`` compiles)."""
    global _mid
    import sim
    from sim import Game
    if (Path(sim.__file__).parent / "strategies").is_dir():    # sim in subpackages by layer
        from sim.strategies import resolve_builtin_seats as _resolve_strategies
    else:
        from sim.runner import _resolve_strategies
    KR, KW = _rollout_kernels()
    if _mid is None:
        g = Game.from_position(POSITION, seed=SEED)
        words = KW.work_words(0, 0)
        src = np.zeros(words, np.int64)
        src[:KR.ROLL_WORDS] = g._work[:KR.ROLL_WORDS]
        src[KW.W_EV_ROWS] = src[KW.W_EV_CARDS] = 0
        _, kinds, params = _resolve_strategies("expert")
        _mid = (g.current_seat, np.asarray(g.legal_actions(), np.int64), src, kinds, params, words)
    seat, acts, src, kinds, params, words = _mid
    numba.set_num_threads(threads)
    out = [np.zeros((worlds, acts.shape[0]), np.int64) for _ in range(4)]
    scratch = np.zeros((4 * threads, 2, words), np.int64)
    t0 = time.perf_counter()
    KR.rollouts(src, np.int64(seat), acts, np.uint64(SEED), np.int64(0), np.int64(worlds), kinds, params,
                np.int64(0), np.int64(KR.ROLL_WORDS), scratch, *out, np.int64(KR.WORLDS_SAMPLED))
    t = time.perf_counter() - t0
    h = hashlib.sha256(b"".join(o.tobytes() for o in out)).hexdigest()[:16]
    return [t, worlds * int(acts.shape[0]), h]


def game_steps(n):
    from sim import Game
    rng = random.Random(SEED)
    steps = 0
    t0 = time.perf_counter()
    for h in range(n):
        g = Game.new(SEED, h)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
            steps += 1
    return [time.perf_counter() - t0, steps]


_work = None


def kernel_steps(n, random_legal):
    global _work
    import jitloops
    _, KW = _rollout_kernels()
    if _work is None:
        _work = np.empty(KW.work_words(0, 0), np.int64)
    t0 = time.perf_counter()
    steps, illegal = jitloops.steps_loop(np.uint64(SEED), np.int64(0), np.int64(n), RV, KINDS, PARAMS, _work,
                                         np.int64(random_legal))
    assert illegal == 0, illegal
    return [time.perf_counter() - t0, int(steps)]


REQUESTS = {"hands": hands, "rollouts": rollouts, "game_steps": game_steps, "kernel_steps": kernel_steps}


def main():
    print(json.dumps({"file": game.__file__, "threads": int(numba.config.NUMBA_NUM_THREADS)}), flush=True)
    for line in sys.stdin:
        name, *args = json.loads(line)
        print(json.dumps(REQUESTS[name](*args)), flush=True)


if __name__ == "__main__":
    main()
