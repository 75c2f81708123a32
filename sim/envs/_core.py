"""What the three environments share, without their libraries: the deal, the seats
an engine strategy plays, the legal-action mask, the rewards and the text table.

Every rule is the engine's (:class:`sim.Game`): the environments only call
``Game.new``, ``legal_actions``, ``apply``, ``choose``, ``observation_tensor``,
``observation`` and ``result``.
"""
from __future__ import annotations

import secrets
import warnings

import numpy as np

from sim.core.cards import check_int, rules_or_default
from sim.play.game import N_ACTIONS, TENSOR_SIZE, Game
from sim.strategies import resolve_seat

__all__ = ["REWARDS", "SCORE_SCALE", "AGENT", "seat_scores", "hand_rewards", "legal_mask",
           "deal", "opponent_seats", "play_engine_seats", "render_table", "check_reward", "check_seed",
           "fresh_seed", "next_deal", "OBS_HIGH"]

#: the reward options: the hand score difference (scaled) or the win (+1, -1, 0)
REWARDS = ("score", "win")
#: points -> reward for reward="score": a hand won by 120 points is a reward of 0.12
SCORE_SCALE = 1.0 / 1000.0
#: the strategy name an agent's seat carries in the game's record (result, replay document)
AGENT = "agent"
#: the largest value of an observation tensor slot (4 jokers / 2)
OBS_HIGH = 2.0


def check_reward(reward) -> str:
    """``reward`` if it is one of :data:`REWARDS` (ValueError naming the field otherwise)."""
    if reward not in REWARDS:
        raise ValueError(f"reward: {reward!r} is not one of {', '.join(REWARDS)}")
    return reward


def check_seed(seed) -> int:
    """A deal seed 0 .. 2**64-1 (numpy integers accepted)."""
    if isinstance(seed, np.integer):
        seed = int(seed)
    return check_int("seed", seed, 0, 2**64 - 1)


def fresh_seed() -> int:
    """A deal seed from the operating system's entropy, for a reset without a seed."""
    return secrets.randbits(64)


def next_deal(run_seed, next_hand: int, seed, options, fresh) -> tuple:
    """``(run seed, hand index)`` of a reset: ``seed`` given, hand 0 of it (or the
    ``"hand_index"`` option); else the run's next hand, the run's seed drawn by
    ``fresh()`` the first time.  Other option keys are not used (a warning names
    them: PettingZoo's api_test passes one).

    Raises
    ------
    ValueError
        A seed or hand index out of range.
    """
    hand_index = next_hand
    if seed is not None:
        run_seed = check_seed(seed)
        hand_index = 0
    elif run_seed is None:
        run_seed = fresh()
    for key, value in (options or {}).items():
        if key == "hand_index":
            hand_index = check_int("hand_index", value, 0, 2**63 - 1)
        else:
            warnings.warn(f"reset: option {key!r} is not used (the options are: hand_index)",
                          stacklevel=3)
    return run_seed, hand_index


def opponent_seats(opponents, num_players: int) -> dict:
    """``{seat: strategy spec}`` of the seats an engine strategy plays.

    ``opponents`` is None (no seat), a sequence per seat (None: an agent's
    seat) or a dict keyed by seat number or ``"player_K"``.

    Raises
    ------
    ValueError
        A seat out of range or a value that is not a strategy spec string.
    """
    out = {}
    if opponents is None:
        return out
    if isinstance(opponents, dict):
        items = opponents.items()
    elif isinstance(opponents, (list, tuple)):
        if len(opponents) > num_players:
            raise ValueError(f"opponents: {len(opponents)} seats given, the game has "
                             f"{num_players}")
        items = enumerate(opponents)
    else:
        raise ValueError(f"opponents: expected None, a list per seat or a dict "
                         f"{{seat: strategy}}, got {opponents!r}")
    for key, spec in items:
        seat = key
        if isinstance(key, str) and key.startswith("player_") and key[7:].isdigit():
            seat = int(key[7:])
        seat = check_int("opponents seat", seat, 0, num_players - 1)
        if spec is None:
            continue
        if not isinstance(spec, str):
            raise ValueError(f"opponents: seat {seat}: expected a strategy name such as "
                             f"'expert', got {spec!r}")
        try:
            resolve_seat(spec)
        except ValueError as exc:
            raise ValueError(f"opponents: seat {seat}: {exc}") from None
        out[seat] = spec
    return out


def deal(seed: int, hand_index: int, rules, opponents: dict,
         agent_strategy: str = "uniform") -> Game:
    """Hand ``hand_index`` of the run seeded ``seed`` (the deal ``simulate`` plays),
    the seats in ``opponents`` carrying their strategy and the others
    ``agent_strategy`` (what :meth:`sim.Game.choose` would play there; an agent
    chooses instead), named :data:`AGENT` in the record.

    Raises
    ------
    ValueError
        An unknown strategy or rule, or a seed out of range.
    """
    r = rules_or_default(rules)
    specs = [opponents.get(s, agent_strategy) for s in range(4)]
    g = Game.new(seed=check_seed(seed), hand_index=hand_index, rules=r, strategies=specs)
    for s in range(r.num_players):
        if s not in opponents:
            g.strategies[s] = AGENT
    return g


def play_engine_seats(game: Game, engine: dict) -> None:
    """Let the engine's strategies move while the seat to move is one of ``engine``."""
    while not game.is_over and game.current_seat in engine:
        game.apply(game.choose())


def legal_mask(legal, out: np.ndarray | None = None) -> np.ndarray:
    """``int8[N_ACTIONS]``: 1 at each action id of ``legal``, else 0."""
    if out is None:
        out = np.zeros(N_ACTIONS, np.int8)
    else:
        out[:] = 0
    if legal:
        out[legal] = 1
    return out


def seat_scores(game: Game) -> list:
    """Each seat's hand score (points, R55): its side's with 2 or 4 players, what it is
    credited with 3 (R62's pair shares), from :meth:`sim.Game.result`."""
    row = game.result()
    n = game.rules.num_players
    return [int(row[f"score_t{s % 2 if n == 4 else s}"]) for s in range(n)]


def hand_rewards(game: Game, reward: str = "score") -> list:
    """Each seat's reward for the finished hand.

    ``"score"``: with 2 or 4 players the side's score minus the other side's,
    with 3 the seat's score minus the mean of the two others' (every player
    keeps a total of its own, R63); times :data:`SCORE_SCALE`.  Zero-sum.
    ``"win"``: +1 when the seat's score is above every opponent's (the seats on
    another side at the end of the hand), -1 when an opponent's is above it,
    0 otherwise.  Zero-sum with 2 and 4 players.
    """
    scores = seat_scores(game)
    n = len(scores)
    out = []
    for s in range(n):
        if reward == "score":
            if n == 3:
                d = scores[s] - sum(scores[o] for o in range(n) if o != s) / 2.0
            else:
                d = scores[s] - scores[(s + 1) % n]
            out.append(d * SCORE_SCALE)
        else:
            side = game.team_of(s)
            best = max(scores[o] for o in range(n) if game.team_of(o) != side)
            out.append(1.0 if scores[s] > best else -1.0 if scores[s] < best else 0.0)
    return out


def _cards(texts) -> str:
    return " ".join(texts) if texts else "-"


def render_table(game: Game, last: str | None = None) -> str:
    """The whole table as text: every hand, every side's melds, the pile, the stock,
    the pozzetti and the last action (for watching; an agent sees its observation)."""
    n = game.rules.num_players
    obs = [game.observation(s) for s in range(n)]
    o = obs[0]
    head = (f"Burraco: hand {game.hand_index} of seed {game.seed}, {n} players, turn {o.turn}, "
            + ("the hand is over" if game.is_over else
               f"seat {o.current_seat} to move ({o.phase})"))
    lines = [head, f"{'seat':<5}{'side':<6}{'cards':<7}hand"]
    for s in range(n):
        mark = "*" if not game.is_over and s == o.current_seat else " "
        lines.append(f"{mark}{s:<4}{o.team_of[s]:<6}{o.hand_sizes[s]:<7}{_cards(obs[s].hand)}")
    for t in sorted(set(o.team_of[:n])):
        melds = [m for m in o.melds if m["team"] == t]
        taken = "taken" if o.pozzetto_taken[t] else "not taken"
        table = " ".join(f"[{' '.join(m['cards'])}]" for m in melds) or "-"
        lines.append(f"side {t}: {o.meld_points[t]} points on the table, pozzetto {taken}: "
                     f"{table}")
    top = o.pile[-1] if o.pile else "-"
    lines.append(f"pile ({len(o.pile)}, top {top}): {_cards(o.pile)}")
    lines.append(f"stock {o.stock_size}, pozzetti left {o.pozzetti_left}")
    if game.is_over:
        lines.append("scores: " + ", ".join(f"seat {s} {v}" for s, v in
                                            enumerate(seat_scores(game))))
    if last:
        lines.append(f"last: {last}")
    return "\n".join(lines) + "\n"


def render(render_mode, game: Game | None, last: str | None):
    """``render()`` of the environments: :func:`render_table` with ``render_mode="ansi"``,
    None (and Gymnasium's warning) without a render mode."""
    if render_mode is None:
        import gymnasium
        gymnasium.logger.warn("render: no render_mode was given (use render_mode='ansi')")
        return None
    if game is None:
        return "Burraco: no hand dealt yet (call reset)\n"
    return render_table(game, last)


def observation_bounds():
    """(low, high, shape) of the observation tensor's Box: 0 .. :data:`OBS_HIGH`."""
    return 0.0, OBS_HIGH, (TENSOR_SIZE,)
