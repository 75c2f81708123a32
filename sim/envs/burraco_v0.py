"""Burraco as a PettingZoo AEC environment: ``sim.envs.burraco_v0`` (docs/rl.md).

One hand per episode, played by :class:`sim.Game` (the engine's kernels: every
rule is theirs).  The agents are ``player_0`` .. ``player_{n-1}``, one per seat
that no engine strategy plays (``opponents``); the seat to move is the agent
selected, so a turn (pickup, the meld phase's melds and lay-offs one by one, its
end, the discard) is several steps of one agent in a row::

    from sim.envs import burraco_v0
    env = burraco_v0.env(rules={"num_players": 2})
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Observations are ``{"observation": float32[6751], "action_mask": int8[16308]}``
(:meth:`sim.Game.observation_tensor` of the agent's seat, and its legal actions
when it is to move, else all zeros).  Rewards come once, when the hand is over
(``reward="score"``: the side's hand score difference / 1000; ``"win"``: +1,
-1 or 0); then every agent is terminated (no truncation: the rules' turn cap,
R52, ends a hand as any other end does).
"""
from __future__ import annotations

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:      # the rl extra is optional
    raise ImportError(f"sim.envs.burraco_v0 needs PettingZoo and Gymnasium ({exc}); "
                      "pip install -e '.[rl]'") from exc

from sim.core.cards import rules_or_default
from sim.play.game import N_ACTIONS, check_action
from . import _core

__all__ = ["env", "raw_env", "ILLEGAL_ACTIONS"]

#: what an illegal action does (option ``illegal_action``)
ILLEGAL_ACTIONS = ("raise", "terminate")


def env(**kwargs):
    """The environment as PettingZoo's classic games come: an illegal action ends the
    hand with reward -1 for the agent that played it (as ``TerminateIllegalWrapper``
    does), an action that is not an id of the space and a call before ``reset`` raise
    (as ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` do).  The checks are
    built in, not wrappers: PettingZoo's wrappers forward every attribute access and
    would cost twice the environment's own time per step.

    Takes the options of :class:`raw_env` (``illegal_action`` defaults to
    ``"terminate"`` here).
    """
    kwargs.setdefault("illegal_action", "terminate")
    return raw_env(**kwargs)


class raw_env(AECEnv):
    """One hand of Burraco for PettingZoo's AEC API (docs/rl.md).

    Parameters
    ----------
    rules : sim.Rules, str, dict or None
        The rule set: a preset name, options (``{"num_players": 2}`` for two
        players, 3 for three) or None for the default (four players, R1-R64).
    opponents : None, sequence or dict
        Seats an engine strategy plays instead of an agent: a dict
        ``{seat or "player_K": spec}`` or a list per seat (None for an agent),
        specs as in ``simulate`` (``"expert"``, ``"heuristic:pile_threshold=3"``,
        a Python strategy ``FILE.py:CLASS``).  Those seats have no agent: they
        move inside :meth:`step`.  Default: every seat is an agent.
    reward : str
        ``"score"`` (default): the side's hand score minus the other side's
        (3 players: minus the mean of the two others'), divided by 1000.
        ``"win"``: +1 when the seat's score beats every opponent's, -1 when an
        opponent's beats it, 0 otherwise.
    render_mode : None or "ansi"
        ``"ansi"``: :meth:`render` returns the table as text.
    illegal_action : str
        ``"raise"`` (default of ``raw_env``): an illegal action raises ValueError
        naming the rule it breaks, and the game is unchanged.  ``"terminate"``
        (default of :func:`env`): the hand ends, the agent that played it gets
        ``illegal_reward`` and every other agent 0, every agent is terminated,
        and the offender's info has ``illegal_action=True``.
    illegal_reward : float
        The reward of an illegal action under ``"terminate"`` (default -1).

    Seeds: ``reset(seed=S)`` deals hand 0 of the run seeded ``S`` (the hand
    ``simulate(seed=S)`` plays first), each later ``reset()`` without a seed the
    run's next hand; ``options={"hand_index": K}`` deals hand ``K``.  Without any
    seed the run's seed comes from the operating system.

    Raises
    ------
    ValueError
        A bad option (a one-line message naming it); in :meth:`step`, an
        integer outside the action space, or an illegal action under
        ``illegal_action="raise"`` (naming the rule it breaks); a call before
        :meth:`reset`.
    TypeError
        In :meth:`step`, an action that is not an integer (a bool, a float).
    """

    metadata = {"render_modes": ["ansi"], "name": "burraco_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, rules=None, opponents=None, reward: str = "score",
                 render_mode: str | None = None, illegal_action: str = "raise",
                 illegal_reward: float = -1.0):
        super().__init__()
        self.rules = rules_or_default(rules)
        self.rules.check_supported()
        n = self.rules.num_players
        self.reward_mode = _core.check_reward(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: {render_mode!r} is not one of None, 'ansi'")
        self.render_mode = render_mode
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action: {illegal_action!r} is not one of "
                             f"{', '.join(ILLEGAL_ACTIONS)}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._engine = _core.opponent_seats(opponents, n)
        seats = [s for s in range(n) if s not in self._engine]
        if not seats:
            raise ValueError("opponents: every seat is an engine strategy's; leave at least "
                             "one seat to an agent")
        self.possible_agents = [f"player_{s}" for s in seats]
        self._seat = {a: s for a, s in zip(self.possible_agents, seats)}
        self._agent_of = {s: a for a, s in self._seat.items()}
        low, high, shape = _core.observation_bounds()
        obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, shape, np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._seed = None
        self._next_hand = 0
        self.game = None
        self._legal = None
        self._last = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None, options=None):
        """Deal a new hand (see the class's note on seeds)."""
        self._seed, hand_index = _core.next_deal(self._seed, self._next_hand, seed, options,
                                                 _core.fresh_seed)
        self._next_hand = hand_index + 1
        self.game = _core.deal(self._seed, hand_index, self.rules, self._engine)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._last = None
        self._after_move()

    def _after_move(self):
        """The engine's seats move; then the next agent is selected, or the hand is over."""
        g = self.game
        _core.play_engine_seats(g, self._engine)
        self._legal = None
        if g.is_over:
            rewards = _core.hand_rewards(g, self.reward_mode)
            scores = _core.seat_scores(g)
            for a in self.agents:
                self.rewards[a] = rewards[self._seat[a]]
                self.terminations[a] = True
                self.infos[a] = {"score": scores[self._seat[a]], "scores": scores}
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]    # over before any agent moved
        else:
            self.agent_selection = self._agent_of[g.current_seat]

    def step(self, action):
        """Play ``action`` (an id of the action space) for the selected agent; None for
        an agent that is terminated (PettingZoo's dead step).

        Raises
        ------
        TypeError
            The action is not an integer (:func:`sim.play.game.check_action`: a bool,
            a float, a string, an array of one or more elements).
        ValueError
            The action is an integer outside the space (0..16307), None for an
            agent that is to move, or (``illegal_action="raise"``) an illegal one:
            the message names the rule it breaks; the game is unchanged.
        """
        g = self.game
        if g is None:
            raise ValueError("step: no hand is dealt yet; call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"step: {agent} is to move; None is only for a terminated agent")
        action = check_action(action, what="step: action")
        self._cumulative_rewards[agent] = 0
        for a in self.rewards:
            self.rewards[a] = 0
        if self.illegal_action == "terminate" and action not in self._legal_now():
            self._last = f"seat {g.current_seat}: illegal action {action} ({g.action_text(action)})"
            for a in self.agents:
                self.terminations[a] = True
            self.rewards[agent] = self.illegal_reward
            self.infos[agent] = {"illegal_action": True}
            self._accumulate_rewards()
            self._deads_step_first()
            return
        if self.render_mode == "ansi":
            self._last = f"seat {g.current_seat}: {g.action_text(action)}"
        g.apply(action)
        self._after_move()
        self._accumulate_rewards()

    def _legal_now(self) -> list:
        if self._legal is None:
            self._legal = self.game.legal_actions()
        return self._legal

    # ------------------------------------------------------------------ views
    def observe(self, agent):
        """``{"observation": float32[6751], "action_mask": int8[16308]}`` of ``agent``'s
        seat (the mask is all zeros unless the agent is to move)."""
        seat = self._seat[agent]
        g = self.game
        if g is None:
            raise ValueError("observe: no hand is dealt yet; call reset() first")
        mask = np.zeros(N_ACTIONS, np.int8)
        if not g.is_over and g.current_seat == seat and not self.terminations.get(agent, True):
            mask[self._legal_now()] = 1
        return {"observation": g.observation_tensor(seat), "action_mask": mask}

    def render(self):
        """The table as text (``render_mode="ansi"``); None, with a warning, without one."""
        return _core.render(self.render_mode, self.game, self._last)

    def close(self):
        """Nothing to release: the hand lives in ``self.game``, no window or file is opened."""
        return None

    def __str__(self):
        return "burraco_v0"

