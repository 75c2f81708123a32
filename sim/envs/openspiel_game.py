"""Burraco as an OpenSpiel game, ``python_burraco`` (docs/rl.md), on :class:`sim.Game`.

Importing this module registers the game::

    import pyspiel
    import sim.envs.openspiel_game          # registers "python_burraco"
    game = pyspiel.load_game("python_burraco", {"players": 2})
    state = game.new_initial_state()        # a chance node: which deal
    state.apply_action(7)                   # hand 7 of the run seeded deal_seed
    state.legal_actions(), state.observation_tensor(), state.information_state_tensor()

The game starts at one chance node with ``deals`` equally likely outcomes: outcome
``k`` deals hand ``k`` of the run seeded ``deal_seed`` (the deal ``burraco simulate
--seed`` plays as hand ``k``).  The players are the seats; the actions are the
engine's action space (``N_ACTIONS`` = 16,308 ids); a turn is several actions of
one player.  Returns come at the end of the hand (``reward``).

``resample_from_infostate(player, sampler)`` deals every card ``player`` cannot
see again (:meth:`sim.Game.sample_world`, seeded from ``sampler()``), so that
OpenSpiel's ``ISMCTSBot`` searches sampled worlds; ``serialize`` and
``game.deserialize_state`` go through :meth:`sim.Game.to_json`.
"""
from __future__ import annotations

import json

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as exc:      # the rl extra is optional
    raise ImportError(f"sim.envs.openspiel_game needs OpenSpiel ({exc}); "
                      "pip install -e '.[rl]'") from exc

from kernels.core.cards import CIDX, N_CARDS, N_COUNT
from kernels.table.state import G_NEXT_POZZETTO

from sim.core.cards import rules_or_default
from sim.play.game import A_DRAW, N_ACTIONS, TENSOR_FIELDS, TENSOR_SIZE, Game, check_action
from . import _core
from sim.strategies import resolve_seat

__all__ = ["BurracoGame", "BurracoState", "BurracoObserver", "PlayoutEvaluator",
           "INFO_FIELDS", "INFO_SIZE", "PARAMETERS"]

_A_DISCARD, _A_LAYOFF = 3, 3 + N_COUNT      # discard ids 3 + face (kernels.engine.actions)

#: the game's parameters and their defaults
PARAMETERS = {
    "players": 4,            # 2, 3 or 4 (the rules' num_players)
    "rules": "",             # a preset name, or a JSON object of rule options ("" default)
    "deal_seed": 1,          # the run seed of the deals
    "deals": 1000,           # chance outcomes: hands 0 .. deals-1 of that run
    "reward": "score",       # "score" (hand score difference / 1000) or "win" (+1, -1, 0)
    "strategy": "heuristic",  # built-in strategy of Game.choose() and PlayoutEvaluator
}

#: the information state tensor: the observation tensor, then what the history adds
INFO_FIELDS = TENSOR_FIELDS + (
    ("discarded", 4 * N_COUNT),     # per relative seat, the faces it discarded / 2
    ("drawn", N_COUNT),             # the faces this seat drew from the stock / 2
)
INFO_SIZE = sum(n for _, n in INFO_FIELDS)

_MAX_SCORE = 10.0       # |reward| bound for "score": 10,000 points (a hand is below 6,000)


def _game_type(utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name="python_burraco",
        long_name="Python Burraco (burraco-sim)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETERS))


_GAME_TYPE = _game_type(pyspiel.GameType.Utility.ZERO_SUM)


def _rules_of(params: dict):
    """The rule set of the ``rules`` and ``players`` parameters (ValueError naming them)."""
    text = params["rules"]
    if not isinstance(text, str):
        raise ValueError(f"rules: expected a preset name or a JSON object, got {text!r}")
    given = {}
    if text.strip().startswith("{"):
        try:
            given = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"rules: not a JSON object ({e.msg})") from None
        rules = rules_or_default(given)
    else:
        rules = rules_or_default(text.strip() or None)
    players = params["players"]
    if players not in (2, 3, 4):
        raise ValueError(f"players: {players!r} is not 2, 3 or 4")
    if "num_players" in given and given["num_players"] != players:
        raise ValueError(f"rules: num_players {given['num_players']} differs from players "
                         f"{players}")
    rules = rules.replace(num_players=players)
    rules.check_supported()
    return rules


class _Box:
    """A :class:`sim.Game` inside a state's attributes: OpenSpiel clones a Python state
    by deep-copying them (here :meth:`sim.Game.clone`) and serialises it by pickling
    them (here :meth:`sim.Game.to_json`)."""

    __slots__ = ("game",)

    def __init__(self, game):
        self.game = game

    def __deepcopy__(self, memo):
        return _Box(self.game.clone())

    def __reduce__(self):
        return (_from_json, (self.game.to_json(),))


def _from_json(text: str) -> _Box:
    return _Box(Game.from_json(text))


class BurracoGame(pyspiel.Game):
    """The game ``python_burraco`` (parameters :data:`PARAMETERS`).

    Raises
    ------
    ValueError
        A bad parameter, named.
    """

    def __init__(self, params=None):
        p = dict(PARAMETERS)
        p.update(params or {})
        unknown = sorted(set(p) - set(PARAMETERS))
        if unknown:
            raise ValueError(f"python_burraco: unknown parameter {unknown[0]!r} (parameters: "
                             f"{', '.join(PARAMETERS)})")
        self.rules = _rules_of(p)
        self.reward_mode = _core.check_reward(p["reward"])
        self.deal_seed = _core.check_seed(p["deal_seed"])
        self.deals = int(p["deals"])
        if self.deals < 1:
            raise ValueError(f"deals: {self.deals} is not >= 1")
        self.strategy = str(p["strategy"])
        resolve_seat(self.strategy)             # an unknown strategy fails here, named
        n = self.rules.num_players
        zero_sum = self.reward_mode == "score" or n != 3
        bound = _MAX_SCORE if self.reward_mode == "score" else 1.0
        # a turn is at most a pickup, one card placed per action, the end and a discard
        length = self.rules.max_turns_per_hand * (108 + 3) + 1
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS, max_chance_outcomes=self.deals, num_players=n,
            min_utility=-bound, max_utility=bound, utility_sum=0.0 if zero_sum else None,
            max_game_length=length)
        game_type = _GAME_TYPE if zero_sum else _game_type(pyspiel.GameType.Utility.GENERAL_SUM)
        super().__init__(game_type, info, p)
        self._outcomes = [(k, 1.0 / self.deals) for k in range(self.deals)]

    def new_initial_state(self):
        """The chance node before the deal."""
        return BurracoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of the observation (default) or the information state
        (``perfect_recall=True``) of one player."""
        return BurracoObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class BurracoState(pyspiel.State):
    """A state of ``python_burraco``: before the deal (a chance node), a decision of a
    seat, or the end of the hand.  :attr:`game` is the engine's :class:`sim.Game`."""

    def __init__(self, game: BurracoGame):
        super().__init__(game)
        self._box = None
        self._moves = ""                     # the public history: "seat:action " each move
        self._private = ["", "", "", ""]     # per seat, its hand after each private look
        self._discarded = np.zeros((4, N_COUNT), np.int8)
        self._drawn = np.zeros((4, N_COUNT), np.int8)
        self._returns = None

    @property
    def game(self) -> Game | None:
        """The engine's game (None before the deal)."""
        return None if self._box is None else self._box.game

    # ---------------------------------------------------------------- the API
    def current_player(self):
        g = self.game
        if g is None:
            return pyspiel.PlayerId.CHANCE
        if g.is_over:
            return pyspiel.PlayerId.TERMINAL
        return g.current_seat

    def _legal_actions(self, player):
        return self.game.legal_actions()

    def chance_outcomes(self):
        return list(self.get_game()._outcomes)

    def _look(self, seat: int) -> None:
        """Record what ``seat`` saw privately: its hand (face counts) now."""
        self._private[seat] += "".join(map(str, self.game.state.hcnt[seat].tolist())) + " "

    def _check(self, action) -> int:
        """``action`` as an int: at the chance node a deal 0 .. ``deals - 1``, else an id
        :meth:`sim.Game.apply` takes (:func:`sim.play.game.check_action`)."""
        if self.game is None:
            deals = self.get_game().deals
            return check_action(action, deals, what="chance outcome", noun="a deal of this game",
                                ids=f"the outcomes are 0..{deals - 1} (parameter deals)")
        return check_action(action, N_ACTIONS + N_CARDS)

    def apply_action(self, action):
        """Play ``action``: at the chance node a deal 0 .. ``deals - 1``, else a legal
        action of the seat to move (:meth:`sim.Game.apply`; ``N_ACTIONS + card id``,
        a discard of that copy as :meth:`sim.Game.choose` may return it, too).

        Raises
        ------
        TypeError
            ``action`` is not an integer (a bool, a float, a string).
        ValueError
            A chance outcome that is not one of the state's ``deals``, an action
            id outside the space, an illegal action (naming the rule it breaks)
            or an action after the end of the hand; the state is unchanged.
        """
        super().apply_action(self._check(action))

    def child(self, action):
        """A clone with ``action`` applied (:meth:`apply_action`, with its checks)."""
        s = self.clone()
        s.apply_action(action)
        return s

    def _apply_action(self, action):
        action = self._check(action)
        if self.game is None:
            pg = self.get_game()
            g = _core.deal(pg.deal_seed, action, pg.rules, {}, agent_strategy=pg.strategy)
            self._box = _Box(g)
            up = " ".join(map(str, g.observation(0).pile_faces))
            self._moves = f"up {up}: "
            for s in range(pg.rules.num_players):
                self._look(s)
            return
        g = self.game
        seat = g.current_seat
        st = g.state
        before = st.hcnt[seat].copy() if action == A_DRAW else None
        pozzetto = int(st.g[G_NEXT_POZZETTO])
        g.apply(action)
        self._moves += f"{seat}:{action} "
        if _A_DISCARD <= action < _A_LAYOFF:
            self._discarded[seat, action - _A_DISCARD] += 1
        elif action >= N_ACTIONS:                    # a discard of one copy (Game.choose)
            self._discarded[seat, CIDX[action - N_ACTIONS]] += 1
        if before is not None:
            self._drawn[seat] += (st.hcnt[seat] - before).clip(0, None).astype(np.int8)
        if before is not None or int(st.g[G_NEXT_POZZETTO]) != pozzetto:
            self._look(seat)
        if g.is_over:
            self._returns = _core.hand_rewards(g, self.get_game().reward_mode)

    def _action_to_string(self, player, action):
        pg = self.get_game()
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal hand {action} of seed {pg.deal_seed}"
        if self.game is None:
            return f"action {action}"
        return self.game.action_text(action)

    def is_terminal(self):
        g = self.game
        return g is not None and g.is_over

    def returns(self):
        if self._returns is None:
            return [0.0] * self.get_game().rules.num_players
        return list(self._returns)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state in which every card ``player_id`` cannot see is dealt again
        (:meth:`sim.Game.sample_world` seeded from ``probability_sampler()``); its
        information state for ``player_id`` is this one's.  The other players' private
        records are unknown there and left empty."""
        s = self.clone()
        if self.game is None or self.game.is_over:
            return s
        seed = int(probability_sampler() * 2**53)
        s._box = _Box(self.game.sample_world(int(player_id), seed))
        for p in range(4):
            if p != player_id:
                s._private[p] = "?"
                s._drawn[p] = 0
        return s

    def __str__(self):
        g = self.game
        if g is None:
            return f"python_burraco: before the deal (seed {self.get_game().deal_seed})"
        return _core.render_table(g)

    # ---------------------------------------------------------------- the views
    def observation_text(self, player: int) -> str:
        """``player``'s observation (:meth:`sim.Game.observation`) as JSON text."""
        g = self.game
        if g is None:
            return f"seat {player}: before the deal"
        return json.dumps(g.observation(player).to_dict(), ensure_ascii=False,
                          separators=(",", ":"))

    def information_text(self, player: int) -> str:
        """``player``'s information state as text: the deal's face-up card, every move
        so far (all are public: seat and action id; a draw's card is not), its hand
        (face counts) after each private look (the deal, each draw from the stock,
        each pozzetto it took) and its hand now.  Everything the player has seen
        follows from these (perfect recall), and the text is quick to build, as
        ISMCTS keys its nodes with it."""
        g = self.game
        if g is None:
            return f"seat {player}: before the deal"
        now = "".join(map(str, g.state.hcnt[player].tolist()))
        return (f"seat {player}\nmoves {self._moves}\nseen {self._private[player]}\n"
                f"hand {now}")


class BurracoObserver:
    """OpenSpiel's Python observer of ``python_burraco``: the observation tensor
    (:meth:`sim.Game.observation_tensor`, float32[6751]) or, with
    ``perfect_recall``, the information state tensor (:data:`INFO_FIELDS`,
    float32[7016]); strings are :meth:`BurracoState.observation_text` and
    :meth:`BurracoState.information_text`."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observer: parameters are not supported, got {params!r}")
        if (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise ValueError("observer: only a player's own view (public and its private "
                             "information) is provided")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        fields = INFO_FIELDS if self.perfect_recall else TENSOR_FIELDS
        self.tensor = np.zeros(sum(n for _, n in fields), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        g = state.game
        if g is None:
            self.tensor.fill(0)
            return
        self.tensor[:TENSOR_SIZE] = g.observation_tensor(player)
        if self.perfect_recall:
            n = g.rules.num_players
            at = TENSOR_SIZE
            for j in range(4):
                self.tensor[at + j * N_COUNT:at + (j + 1) * N_COUNT] = (
                    state._discarded[(player + j) % n] / 2.0 if j < n else 0.0)
            at += 4 * N_COUNT
            self.tensor[at:at + N_COUNT] = state._drawn[player] / 2.0

    def string_from(self, state, player):
        if self.perfect_recall:
            return state.information_text(player)
        return state.observation_text(player)


class PlayoutEvaluator(mcts.Evaluator):
    """An MCTS evaluator that plays the hand out with a built-in strategy in the kernels
    (:meth:`sim.Game.play`), much faster and stronger than random rollouts.

    Parameters
    ----------
    strategy : str
        The built-in strategy every seat plays out with (default ``"heuristic"``).
    n_playouts : int
        Playouts averaged per evaluation.
    """

    def __init__(self, strategy: str = "heuristic", n_playouts: int = 1):
        self.strategy = strategy
        self.n_playouts = int(n_playouts)

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        pg = state.get_game()
        total = np.zeros(pg.rules.num_players)
        for _ in range(self.n_playouts):
            g = state.game.clone()
            g.play(self.strategy)
            total += _core.hand_rewards(g, pg.reward_mode)
        return total / self.n_playouts

    def prior(self, state):
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


pyspiel.register_game(_GAME_TYPE, BurracoGame)
