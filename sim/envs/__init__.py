"""Burraco for reinforcement learning and game research (docs/rl.md; the ``rl`` extra).

* :mod:`sim.envs.burraco_v0`: a PettingZoo AEC environment (``env()``, ``raw_env``);
* :class:`sim.envs.BurracoGymEnv`: a Gymnasium single-agent environment, registered
  as ``"Burraco-v0"`` when this package is imported;
* :mod:`sim.envs.openspiel_game`: an OpenSpiel game, registered as
  ``"python_burraco"`` when that module is imported.

All three play the engine's :class:`sim.Game`.  Each needs its library
(``pip install "burraco-sim[rl]"``); importing this package needs none of them.
"""
from __future__ import annotations

from ._core import AGENT, REWARDS, SCORE_SCALE, hand_rewards, legal_mask, seat_scores

__all__ = ["AGENT", "REWARDS", "SCORE_SCALE", "hand_rewards", "legal_mask", "seat_scores",
           "BurracoGymEnv", "GYM_ID"]

#: the Gymnasium id of :class:`BurracoGymEnv` (``gymnasium.make("Burraco-v0")``)
GYM_ID = "Burraco-v0"


def __getattr__(name):
    if name == "BurracoGymEnv":
        from .gym_env import BurracoGymEnv
        return BurracoGymEnv
    if name in ("burraco_v0", "gym_env", "openspiel_game"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register_gym() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="sim.envs.gym_env:BurracoGymEnv")


_register_gym()
