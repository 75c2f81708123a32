#!/usr/bin/env python
"""Speed of the reinforcement-learning environments (sim.envs); writes benchmarks/speed/envs.md.

    python benchmarks/speed/envs.py [--quick] [--repeats N] [--out PATH]

Steps/s of a plain Python loop of random masked actions through each wrapper
(PettingZoo ``sim.envs.burraco_v0``, Gymnasium ``Burraco-v0``, OpenSpiel
``python_burraco``), beside the same loop over OpenSpiel's ``gin_rummy`` and
PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4`` (``pettingzoo[classic]``,
which needs rlcard; skipped with a note when it is not installed).  Every figure is
measured on a snapshot of ``kernels`` and ``sim`` (harness.py).
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # benchmarks/: the harness
from harness import (SEED, LoadMeter, Row, Run, copy_packages, interleaved, log,
                     open_gin_rummy, parser, settings, source_digest, use_snapshot)

HERE = Path(__file__).resolve().parent
GIN_RUMMY_STEPS = 39_000     # OpenSpiel's C++ gin_rummy from Python, ~39,000 steps/s

MODES = {
    "full": {"repeats": 5, "hands": 150, "gym_hands": 150, "spiel_hands": 150, "gin_games": 300,
             "classic_games": 3_000},
    "quick": {"repeats": 2, "hands": 15, "gym_hands": 15, "spiel_hands": 15, "gin_games": 30,
              "classic_games": 300},
}


# ---------------------------------------------------------------- the loops
def aec_loop(env, episodes: int, seed: int):
    """PettingZoo's AEC loop with a uniformly random action among the mask's; returns
    a function playing ``episodes`` episodes -> (decisions, episodes)."""
    rng = np.random.default_rng(seed)

    def run():
        decisions = 0
        env.reset(seed=seed)
        for _ in range(episodes):
            for agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
                    action = int(legal[rng.integers(len(legal))])
                    decisions += 1
                env.step(action)
            env.reset()
        return decisions, episodes
    return run


def gym_loop(env, episodes: int, seed: int):
    rng = np.random.default_rng(seed)

    def run():
        decisions = 0
        obs, info = env.reset(seed=seed)
        for _ in range(episodes):
            done = False
            while not done:
                legal = np.flatnonzero(info["action_mask"].view(np.bool_))
                obs, reward, done, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
                decisions += 1
            obs, info = env.reset()
        return decisions, episodes
    return run


def spiel_loop(game, episodes: int, seed: int, observe):
    """OpenSpiel's loop of examples/example.py: chance outcomes by their probabilities,
    a player's action by ``random.choice(state.legal_actions())``; with ``observe``
    also the player's observation tensor at every decision (what an agent reads):
    ``"numpy"`` through ``open_spiel.python.observation.make_observation`` (a numpy
    array), ``"list"`` as ``state.observation_tensor()`` returns it; None: no observation."""
    from open_spiel.python.observation import make_observation
    rng = random.Random(seed)
    np_rng = np.random.RandomState(seed)
    observation = make_observation(game) if observe == "numpy" else None

    def run():
        decisions = 0
        for _ in range(episodes):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(np_rng.choice(actions, p=probs)))
                    continue
                if observe == "numpy":
                    observation.set_from(state, state.current_player())
                elif observe == "list":
                    state.observation_tensor()
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions, episodes
    return run


def game_loop(hands: int, seed: int):
    """The step API alone: ``legal_actions()`` + ``apply(random.choice(...))``."""
    from sim import Game
    rng = random.Random(seed)

    def run():
        decisions = 0
        for h in range(hands):
            g = Game.new(seed, h)
            while not g.is_over:
                g.apply(rng.choice(g.legal_actions()))
                decisions += 1
        return decisions, hands
    return run


# ---------------------------------------------------------------- figures
def measure(section: str, loops: dict, repeats: int, rows: list, works: dict, notes_of: dict):
    """Each loop once untimed, then ``repeats`` timed repeats in turn; one Row each."""
    counts = {k: fn() for k, fn in loops.items()}      # warm-up (and the work of a repeat)
    meter = LoadMeter()
    times = interleaved(loops, repeats)
    others = meter.cores()
    out = {}
    for k, ts in times.items():
        decisions, episodes = counts[k]
        rates = [decisions / t for t in ts]
        out[k] = float(np.median(rates))
        rows.append(Row(section, k, rates, "steps/s", works[k], note=(
            f"{decisions / episodes:,.1f} decisions per episode; " + notes_of.get(k, "")).rstrip("; "),
            others=others))
    return out


def main(argv=None) -> int:
    args = parser(__doc__, out=HERE / "envs.md").parse_args(argv)
    mode = "quick" if args.quick else "full"
    c = settings(args, MODES)
    run = Run("speed/envs.py", argv)
    rows, notes = [], []
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(prefix="burraco-envs-bench-") as tmpname:
        src = copy_packages(Path(tmpname) / "src")
        digest = source_digest(src)
        run.facts["source digest (kernels/**/*.py, sim/**/*.py, sha256)"] = digest
        use_snapshot(src, digest)
        from importlib.metadata import version
        import pyspiel

        import sim.envs.openspiel_game  # noqa: F401  (registers python_burraco)
        from sim.envs import BurracoGymEnv, burraco_v0
        for pkg in ("pettingzoo", "gymnasium", "open_spiel"):
            run.facts[pkg] = version(pkg)
        h = c["hands"]
        loops = {
            "sim.Game: `legal_actions()` + `apply(random.choice(...))` (no observation)":
                game_loop(h, SEED),
            "PettingZoo `sim.envs.burraco_v0.env()`, 4 agents":
                aec_loop(burraco_v0.env(), h, SEED),
            "PettingZoo `burraco_v0.raw_env()`, 4 agents": aec_loop(burraco_v0.raw_env(), h, SEED),
            "PettingZoo `burraco_v0.env(rules={'num_players': 2})`, 2 agents":
                aec_loop(burraco_v0.env(rules={"num_players": 2}), h, SEED),
            "Gymnasium `BurracoGymEnv()`: seat 0 learns, 3 seats `expert`":
                gym_loop(BurracoGymEnv(), c["gym_hands"], SEED),
            "Gymnasium `BurracoGymEnv(rules={'num_players': 2})`, 1 seat `expert`":
                gym_loop(BurracoGymEnv(rules={"num_players": 2}), c["gym_hands"], SEED),
            "OpenSpiel `python_burraco`, 4 players: `legal_actions` + `apply_action`":
                spiel_loop(pyspiel.load_game("python_burraco"), c["spiel_hands"], SEED, None),
            "OpenSpiel `python_burraco`, 4 players, with the observation tensor":
                spiel_loop(pyspiel.load_game("python_burraco"), c["spiel_hands"], SEED, "numpy"),
            "OpenSpiel `python_burraco`, 4 players, with `state.observation_tensor()` (a list)":
                spiel_loop(pyspiel.load_game("python_burraco"), c["spiel_hands"], SEED, "list"),
        }
        works = {k: f"{h} hands of seed {SEED}" for k in loops}
        for k in loops:
            if k.startswith("Gymnasium"):
                works[k] = f"{c['gym_hands']} hands of seed {SEED}"
            if k.startswith("OpenSpiel"):
                works[k] = f"{c['spiel_hands']} hands (deals drawn at the chance node)"
        gin, gin_note = open_gin_rummy(run.facts)
        if gin is not None:
            g = gin.game
            loops["OpenSpiel `gin_rummy` (C++): `legal_actions` + `apply_action`"] = \
                spiel_loop(g, c["gin_games"], SEED, None)
            loops["OpenSpiel `gin_rummy` (C++), with the observation tensor"] = \
                spiel_loop(g, c["gin_games"], SEED, "numpy")
            works["OpenSpiel `gin_rummy` (C++): `legal_actions` + `apply_action`"] = \
                works["OpenSpiel `gin_rummy` (C++), with the observation tensor"] = \
                f"{c['gin_games']} games"
        else:
            notes.append(f"gin_rummy not measured: {gin_note}")
        try:
            from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
            run.facts["rlcard"] = version("rlcard")
            for name, mod in (("leduc_holdem_v4", leduc_holdem_v4),
                              ("texas_holdem_v4", texas_holdem_v4)):
                k = f"PettingZoo `{name}.env()` (rlcard)"
                loops[k] = aec_loop(mod.env(), c["classic_games"], SEED)
                works[k] = f"{c['classic_games']} games"
        except Exception as e:      # pettingzoo[classic] needs rlcard
            notes.append(f"PettingZoo's leduc_holdem_v4 and texas_holdem_v4 not measured: "
                         f"{type(e).__name__}: {e} (pip install 'pettingzoo[classic]')")
        log(f"measuring {len(loops)} loops, {c['repeats']} repeats each")
        rates = measure("random masked actions", loops, c["repeats"], rows, works, {})
        gin_key = "OpenSpiel `gin_rummy` (C++): `legal_actions` + `apply_action`"
        gin_rate = rates.get(gin_key)
        for r in rows:
            if gin_rate and r.name != gin_key:
                r.baseline = f"×{r.median / gin_rate:.2f} gin_rummy's"
            if gin_rate and r.name.startswith(("PettingZoo `sim", "PettingZoo `burraco",
                                                "Gymnasium", "OpenSpiel `python_burraco`")):
                ok = r.median >= gin_rate
                r.target = (f"≥ gin_rummy's steps/s in the same run (issue: ~{GIN_RUMMY_STEPS:,} "
                            f"on its machine) ({'met' if ok else 'NOT met'})")
    notes += [
        "A step is one decision of a player (an agent's `step` with an action, a pyspiel "
        "`apply_action` of a player): the chance node of an OpenSpiel game, PettingZoo's dead "
        "steps (`step(None)` after the end) and, in the Gymnasium loop, the `expert` seats' "
        "moves inside `step` are not counted as steps, but their time is in the figure.",
        "The action is uniform among the legal ones: from the `action_mask` of the observation "
        "(PettingZoo; `np.flatnonzero` of the mask seen as bool, then a numpy generator: on the "
        "int8 mask itself `np.flatnonzero` takes about 75 µs, on its bool view 5 µs) or of "
        "`info` (Gymnasium), "
        "`random.choice(state.legal_actions())` (OpenSpiel, as its examples/example.py). Every "
        "PettingZoo and Gymnasium step builds the observation (a float32 tensor and an int8 "
        "mask of the whole action space: 6,751 and 16,308 values for Burraco); the OpenSpiel "
        "rows say whether the observation tensor was read (through "
        "`open_spiel.python.observation.make_observation(game).set_from(state, player)`, a "
        "numpy array; `state.observation_tensor()` builds a Python list of floats: the row "
        "that reads it shows the cost for Burraco's 6,751).",
        "Every figure runs on a snapshot of kernels/ and sim/ copied to a temporary directory "
        "first on sys.path; the loops take their repeats in turn (A B A B ...), so a change of "
        "load falls on all of them; *other processes* is the CPU others used meanwhile, on "
        f"{os.cpu_count()} cores.",
    ]
    run.finish(notes, suffer="all figures")
    run.write(args.out, mode, rows, notes, "burraco-sim reinforcement-learning environments: "
              "speed", "goal")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
