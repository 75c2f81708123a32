"""Burraco as a Gymnasium single-agent environment (docs/rl.md).

One seat learns; the engine's named strategies play every other seat (the
partner too, with four players), inside :meth:`BurracoGymEnv.step`.  One hand
per episode, on :class:`sim.Game`::

    import gymnasium, numpy as np
    import sim.envs                       # registers "Burraco-v0"
    env = gymnasium.make("Burraco-v0", opponents="expert")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, done, truncated, info = env.step(int(env.np_random.choice(legal)))
"""
from __future__ import annotations

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:      # the rl extra is optional
    raise ImportError(f"sim.envs.gym_env needs Gymnasium ({exc}); pip install -e '.[rl]'") \
        from exc

from sim.core.cards import check_int, rules_or_default
from sim.play.game import N_ACTIONS, check_action
from . import _core

__all__ = ["BurracoGymEnv", "ILLEGAL_ACTIONS"]

#: what an action outside the mask does: end the episode with ``illegal_reward``,
#: play a uniformly random legal action instead, or raise ValueError
ILLEGAL_ACTIONS = ("terminate", "random", "raise")


class BurracoGymEnv(gymnasium.Env):
    """One hand of Burraco from one seat's view; the other seats play named strategies.

    Parameters
    ----------
    seat : int
        The learning seat (0 .. players - 1).
    opponents : str, sequence or dict
        The strategy of every other seat (``"expert"``, the default; any spec
        ``simulate`` takes), or one per seat as a list (the learning seat's
        entry is ignored) or a dict ``{seat: spec}`` (seats left out play
        ``expert``).
    rules : sim.Rules, str, dict or None
        The rule set (``{"num_players": 2}`` for two players).
    reward : str
        ``"score"`` (the side's hand score difference / 1000) or ``"win"``
        (+1, -1, 0), as in :mod:`sim.envs.burraco_v0`; given when the hand ends.
    illegal_action : str
        ``"terminate"`` (default): an action outside the mask ends the episode
        with reward ``illegal_reward`` and ``info["illegal_action"] = True``;
        ``"random"``: a uniformly random legal action is played instead (same
        flag); ``"raise"``: ValueError naming the rule.
    illegal_reward : float
        The reward of an illegal action under ``"terminate"`` (default -1).
    render_mode : None or "ansi"

    Observations are :meth:`sim.Game.observation_tensor` of the seat
    (``float32[6751]``), the legal actions are ``info["action_mask"]``
    (``int8[16308]``).  ``reset(seed=S)`` deals hand 0 of the run seeded ``S``
    and each later ``reset()`` the next hand; ``options={"hand_index": K}``
    deals hand ``K``.  ``terminated`` is True when the hand is over
    (``truncated`` is always False: the turn cap, R52, is a rule's end).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, seat: int = 0, opponents="expert", rules=None, reward: str = "score",
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None):
        self.rules = rules_or_default(rules)
        self.rules.check_supported()
        n = self.rules.num_players
        self.seat = check_int("seat", seat, 0, n - 1)
        self.reward_mode = _core.check_reward(reward)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action: {illegal_action!r} is not one of "
                             f"{', '.join(ILLEGAL_ACTIONS)}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: {render_mode!r} is not one of None, 'ansi'")
        self.render_mode = render_mode
        if isinstance(opponents, str):
            engine = _core.opponent_seats({s: opponents for s in range(n) if s != self.seat}, n)
        else:
            given = _core.opponent_seats(opponents, n)
            engine = {s: given.get(s, "expert") for s in range(n) if s != self.seat}
        self._engine = engine
        low, high, shape = _core.observation_bounds()
        self.observation_space = spaces.Box(low, high, shape, np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._seed = None
        self._next_hand = 0
        self.game = None
        self._done = True
        self._last = None

    def reset(self, *, seed=None, options=None):
        """Deal a hand; returns ``(observation, info)`` with ``info["action_mask"]``."""
        super().reset(seed=seed)
        self._seed, hand_index = _core.next_deal(
            self._seed, self._next_hand, seed, options,
            lambda: int(self.np_random.integers(0, 2**63)))
        self._next_hand = hand_index + 1
        self.game = _core.deal(self._seed, hand_index, self.rules, self._engine)
        self._last = None
        _core.play_engine_seats(self.game, self._engine)
        self._done = self.game.is_over
        return self._observe(), self._info()

    def _observe(self) -> np.ndarray:
        return self.game.observation_tensor(self.seat)

    def _info(self, **extra) -> dict:
        g = self.game
        mask = np.zeros(N_ACTIONS, np.int8)
        if not g.is_over:
            mask[g.legal_actions()] = 1
        info = {"action_mask": mask}
        if g.is_over:
            scores = _core.seat_scores(g)
            info.update(score=scores[self.seat], scores=scores)
        info.update(extra)
        return info

    def step(self, action):
        """Play ``action`` for the learning seat, then the other seats until it is to
        move again or the hand is over; returns ``(obs, reward, terminated, truncated, info)``.

        Only an id of the action space that is illegal in the position is an
        illegal move (``illegal_action``); anything else raises.

        Raises
        ------
        TypeError
            ``action`` is not an integer (:func:`sim.play.game.check_action`: a bool, a
            float even with an integral value, a string, an array of one or more
            elements).
        ValueError
            ``action`` is an integer outside the action space (0..16307), the
            episode is over or no hand is dealt (call :meth:`reset`), or an
            illegal action under ``illegal_action="raise"`` (the message names
            the rule).
        """
        g = self.game
        if g is None:
            raise ValueError("step: no hand is dealt yet; call reset() first")
        if self._done:
            why = "the hand is over" if g.is_over else "an illegal action ended it"
            raise ValueError(f"step: the episode is over ({why}); call reset()")
        a = check_action(action, what="step: action")
        legal = g.legal_actions()
        extra = {}
        if a not in legal:
            if self.illegal_action == "raise":
                g.apply(a)            # raises ValueError naming the rule
            extra["illegal_action"] = True
            if self.illegal_action == "terminate":
                self._done = True
                return self._observe(), self.illegal_reward, True, False, self._info(**extra)
            a = legal[int(self.np_random.integers(len(legal)))]
        if self.render_mode == "ansi":
            self._last = f"seat {self.seat}: {g.action_text(a)}"
        g.apply(a)
        _core.play_engine_seats(g, self._engine)
        reward = 0.0
        self._done = g.is_over
        if g.is_over:
            reward = _core.hand_rewards(g, self.reward_mode)[self.seat]
        return self._observe(), reward, g.is_over, False, self._info(**extra)

    def action_masks(self) -> np.ndarray:
        """The legal-action mask now (``bool[16308]``; sb3-contrib's MaskablePPO asks for it)."""
        g = self.game
        m = np.zeros(N_ACTIONS, bool)
        if g is not None and not g.is_over:
            m[g.legal_actions()] = True
        return m

    def render(self):
        """The table as text (``render_mode="ansi"``); None, with a warning, without one."""
        return _core.render(self.render_mode, self.game, self._last)
