"""Decisions of real games and the engine's mask against the referee's legal actions: the
helpers shared by tests/play/test_game_mask.py, tests/play/test_game.py and
tests/referee/test_referee_start.py.

:func:`positions` yields decisions of hands played by a driver (:func:`choose`): the
built-in heuristic, uniform random legal actions or a "hoarder" who takes every pile;
:data:`SPACE` hands the engine's action layout to the referee, which writes its verdicts
as the engine's ids (it judges them without the engine); :func:`differences` says in words
which actions only one side lists.
"""
from __future__ import annotations

import numpy as np

import referee as R
from kernels.engine import actions as KA
from kernels.table import state as KS
from sim.game import Game

#: the engine's action layout, handed to the referee to write its verdicts as ids
SPACE = R.ActionSpace(draw=KA.A_DRAW, take=KA.A_TAKE, end_meld=KA.A_END_MELD,
                      discard=KA.A_DISCARD, lay_off=KA.A_LAYOFF, create=KA.A_CREATE,
                      faces=53, max_melds=KS.MMAX,
                      meld_rows=tuple(map(tuple, KA.MELD_CNT.tolist())))

#: how often a decision of each phase is kept (the meld phase has the most decisions)
RATE = {"pickup": 0.12, "place": 1.0, "meld": 0.12, "discard": 0.12}


def differences(g: Game, engine, referee) -> str:
    """The actions only one side lists, in words ("" when the sets are equal)."""
    engine, referee = set(engine), set(referee)
    if engine == referee:
        return ""
    def words(ids):
        return [f"{a} {g.action_text(a)}" for a in sorted(ids)]
    hand = " ".join(g.observation(g.current_seat).hand)
    return (f"seed {g.seed} hand {g.hand_index} turn {g.turn} seat {g.current_seat} "
            f"phase {g.phase} (hand {hand}): only the engine lists {words(engine - referee)}; "
            f"only the referee {words(referee - engine)}")


def choose(g: Game, legal: list, driver: str, rng) -> int:
    """The action of ``driver``: ``"heuristic"`` (the built-in strategy), ``"random"``
    (uniform over the legal actions) or ``"hoarder"`` (seat 0 takes the pile whenever
    it may and mostly ends the meld phase at once, the others draw and then play at
    random: seat 0 holds 20+ cards)."""
    if driver == "heuristic":
        return g.choose()
    if driver == "hoarder" and g.phase == "pickup":
        return KA.A_TAKE if g.current_seat == 0 and KA.A_TAKE in legal else KA.A_DRAW
    if driver == "hoarder" and g.phase == "meld" and g.current_seat == 0 \
            and rng.random() < 0.8:
        return KA.A_END_MELD
    return legal[rng.integers(len(legal))]


def positions(rules, driver: str, seed: int, n: int, phases=None, rate=RATE):
    """``n`` decisions of hands ``0, 1, ...`` of ``seed`` played by ``driver``
    (:func:`choose`), each kept with probability ``rate`` of its phase (only
    ``phases`` if given).  Yields ``(game at the decision, its legal actions)``;
    the game plays on once the consumer is done with it."""
    rng = np.random.default_rng(seed)
    kept = 0
    hand = 0
    while kept < n:
        g = Game.new(seed, hand, rules=rules)
        while not g.is_over and kept < n:
            legal = g.legal_actions()
            if g.open_lay_off is not None:
                # a lay-off of several cards under way: its history is not complete
                # (tested apart); its one continuation is played
                assert len(legal) == 1
            elif (phases is None or g.phase in phases) and rng.random() < rate.get(g.phase, 0):
                kept += 1
                yield g, legal
            g.apply(choose(g, legal, driver, rng))
        hand += 1
