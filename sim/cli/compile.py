"""``burraco compile``: compile every kernel into Numba's on-disk cache, in parallel processes.

A kernel is compiled at its first use and cached on disk (:mod:`kernels.build.cachestamp`);
later processes load it in about a second.  On a fresh install the first uses add up:
the turn loop (about 30 s on one core), the step kernels of ``sim.Game``, the search player
``rollout``, the label kernel, the learned player, the analysis kernels and each peer bot.  ``burraco compile`` does them all at
once, before a long job, a container image or a test run: the turn loop first, since most
other units call its kernels, and beside it the units that do not (the peer bots, which share
only the legality code with it, and the deal features); then the rest, all as independent
units over ``--jobs`` processes.  A unit whose kernels are all cached is skipped.

The test suite's controller runs :func:`compile_all` before its worker processes start
(``tests/conftest.py``): two workers would otherwise each compile every kernel.
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context

from sim._util import compiling
from sim._util.text import plural


def _turn_loop() -> None:
    from sim.batch.executors import prepare_kernels
    prepare_kernels(1, "simulate_range")


def _step() -> None:
    from sim.play.game import warm_up
    warm_up()


def _replay() -> None:
    from sim.batch.replay import replay
    replay(seed=0, hand_index=0)


def _search() -> None:
    from sim.batch.runner import simulate
    simulate(1, 0, "rollout:worlds=2,rollouts=8", threads=1, return_frame=False)


def _learned() -> None:
    import kernels.strategies.learned  # noqa: F401  (importing it compiles or loads its callback)


def _labels() -> None:
    from sim.batch.executors import prepare_kernels
    prepare_kernels(1, "label_hand")


def _analysis() -> None:
    from sim.analysis import analyze
    from sim.play.game import Game
    game = Game.new(0, 0)
    analyze(game, rollouts=8, threads=1)
    analyze(game, rollouts=8, threads=1, adjust="cv")
    analyze(game, rollouts=8, threads=1, worlds="model")
    game.match_totals = (0, 0)               # a match's first hand
    analyze(game, rollouts=2, threads=1, objective="match")


def _deal_features() -> None:
    from sim.core.deal_features import deals
    deals(0, 2, threads=1)


def _peer(name: str):
    def run() -> None:              # its cached C callback is all that the bot compiles
        from sim.strategies import registry
        registry.get(name)
    return run


def _checks():
    """unit name -> the kernels whose cache entries say it is compiled (names or dispatchers)."""
    from sim.strategies.peers import PEERS, callback_of, module_of
    checks = {
        "the turn loop": ["play.game.play_hands_chunk"],
        "the step kernels": ["play.game.new_hand", "play.game.play_turn", "play.game.choose",
                             "table.worlds.sample_world"],
        "the replay kernel": ["play.game.play_hand"],
        "the search player rollout": ["search.player.rollout_callback"],
        "the learned player": ["strategies.learned.learned_callback"],
        "the label kernel": ["search.label.label_hand"],
        "the analysis kernels": ["search.rollouts.rollouts_chunk", "search.rollouts.feature_means",
                                 "search.rollouts.world_features", "search.card_model.card_odds",
                                 "search.match_rollouts.match_rollouts_chunk"],
        "the deal features": ["table.deal_features.deal_features"],
    }
    for name in PEERS:
        checks[f"the peer bot {name}"] = [f"peers.{module_of(name)}.{callback_of(name)}"]
    return checks


def needs(name: str) -> tuple[str, ...]:
    """The units whose kernels the unit ``name`` calls: :func:`compile_all` starts it once
    they are compiled, so that it loads them instead of compiling them again.

    The turn loop's (``kernels.play`` and the built-in choosers) for every unit but the
    turn loop itself, the peer bots (they share only the legality code with it) and the deal
    features; and the search player's ``rollout_search`` for the label kernel.
    """
    if name == "the turn loop" or name.startswith("the peer bot ") or name == "the deal features":
        return ()
    if name == "the label kernel":
        return ("the turn loop", "the search player rollout")
    return ("the turn loop",)


def units() -> list[tuple[str, object]]:
    """The compile units, the turn loop first, then the longest first (so that the last
    to finish is a short one): ``(name, function)`` pairs."""
    from sim.strategies.peers import PEERS
    slow = ["goodwin_ismcts", "thilanguis_bot"]        # the peers that take longest
    out = [("the turn loop", _turn_loop), ("the search player rollout", _search),
           ("the step kernels", _step)]
    out += [(f"the peer bot {name}", _peer(name)) for name in slow]
    out += [("the analysis kernels", _analysis), ("the label kernel", _labels),
            ("the learned player", _learned), ("the replay kernel", _replay),
            ("the deal features", _deal_features)]
    out += [(f"the peer bot {name}", _peer(name)) for name in PEERS if name not in slow]
    return out


def cold_units() -> list[str]:
    """The names of the units some kernel of which is not in the cache (all of them when
    that cannot be told)."""
    from kernels.build import cachestamp
    checks = _checks()
    return [name for name, _ in units() if cachestamp.cached(*checks.get(name, ["?.?"])) is not True]


def _run_unit(name: str) -> tuple[str, float]:
    """Run the unit ``name`` in this process; ``(name, seconds)``."""
    import numba
    numba.set_num_threads(1)
    compiling.ENABLED = False           # the parent says what is compiled and how long it took
    fn = dict(units())[name]
    t0 = time.perf_counter()
    fn()
    return name, time.perf_counter() - t0


def compile_all(jobs: int = 2, only_cold: bool = True, out=sys.stderr) -> dict[str, float]:
    """Compile (or load) every kernel of the package into Numba's on-disk cache.

    ``jobs`` worker processes (spawned, so this process imports no kernel) take the units
    in the order of :func:`units`, each when the units it :func:`needs` are compiled: the
    turn loop first, and beside it the peer bots and the deal features, which do not call
    its kernels; the units that do call them once it is compiled.

    Parameters
    ----------
    jobs : int
        Worker processes, at least 1.
    only_cold : bool
        Skip the units whose kernels are all cached.
    out : file
        Where the progress lines go (None: nowhere).

    Returns
    -------
    dict
        Unit name -> seconds its worker spent on it (wall clock); empty when nothing was cold.

    Raises
    ------
    ValueError
        ``jobs`` below 1.
    RuntimeError
        A unit failed (its error named).
    """
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs: expected a whole number of at least 1, got {jobs!r}")
    names = cold_units() if only_cold else [n for n, _ in units()]
    if not names:
        return {}

    def say(text: str) -> None:
        if out is not None:
            print(text, file=out, flush=True)

    say(f"compiling {plural(len(names), 'kernel unit')} into Numba's cache on "
        f"{plural(jobs, 'process', 'processes')}...")
    t0 = time.perf_counter()
    done: dict[str, float] = {}
    ctx = get_context("spawn")
    pending = list(names)
    running: dict = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        while pending or running:
            while len(running) < jobs:           # one unit per free process, none queued
                ready = [n for n in pending if not set(needs(n)) & {*pending, *running.values()}]
                if not ready:
                    break
                pending.remove(ready[0])
                running[pool.submit(_run_unit, ready[0])] = ready[0]
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                del running[fut]
                try:
                    name, seconds = fut.result()
                except Exception as exc:          # noqa: BLE001  named and re-raised
                    raise RuntimeError(f"compile: a unit failed: {exc}") from exc
                done[name] = seconds
                say(f"  {name}: {seconds:.1f} s")
    say(f"compiled in {time.perf_counter() - t0:.1f} s")
    return done


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``compile`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "compile", help="compile every kernel into Numba's cache, in parallel processes",
        description="Compile every kernel (the turn loop, the step kernels, the search player, "
                    "the analysis kernels, each peer bot) into Numba's on-disk cache, so that "
                    "later commands load them in about a second. The turn loop goes first, "
                    "beside it the units that do not call it, then the rest, over --jobs "
                    "processes; cached units are skipped.")
    p.add_argument("--jobs", type=int, default=2, metavar="N",
                   help="worker processes (default 2)")
    p.add_argument("--all", action="store_true",
                   help="run every unit, cached or not (loading a cached one takes a second)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco compile``; the exit code."""
    try:
        done = compile_all(args.jobs, only_cold=not args.all)
    except RuntimeError as exc:
        print(f"burraco {exc}", file=sys.stderr)
        return 1
    if not done:
        print("every kernel is cached; nothing to compile", file=sys.stderr)
    return 0
