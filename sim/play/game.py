"""A hand of Burraco decision by decision: the step API (docs/step_api.md).

:class:`Game` holds one hand in a kernel work buffer (:mod:`kernels.table.work`)
and runs the kernels the batch simulation runs: :func:`kernels.engine.actions.legal_actions`
lists the legal actions, :func:`kernels.engine.actions.apply_action` plays one, and
the built-in strategies choose with :func:`kernels.play.game.choose`.  So a hand
played through a :class:`Game` with the built-in strategy of every seat gives
exactly the record ``simulate`` writes for that hand.

Actions are integers of one fixed action space (``N_ACTIONS`` ids for every
rule set; see :mod:`kernels.engine.actions` and ``docs/step_api.md``)::

    >>> g = Game.new(seed=1, hand_index=0)
    >>> g.phase, g.current_seat
    ('pickup', 1)
    >>> [g.action_text(a) for a in g.legal_actions()]
    ['draw from the stock', 'take the pile (1 card: 9♦)']
    >>> g.apply(g.action_from_text("draw"))
"""
from __future__ import annotations

import re

import numpy as np

from kernels.engine import actions as KA
from kernels.core import layout as L
from kernels.table import state as KS
from kernels.table import work as KW
from kernels.core.cards import N_COUNT

from sim import strategies as _strategies
from sim._util import compiling
from sim.core.cards import check_int, rules_or_default
from sim.core.rules import Rules
from sim.play import position_build, position_file
from sim.strategies import name_of, resolve_seats, seat_names
from sim.strategies.pystrategy import StrategyError, _exc_text, is_python_spec, load, random_seed
# the action space and the observation are Game's API: sim.play.game names them too
from sim.play.actions import (A_DRAW, A_END_MELD, A_TAKE, N_ACTIONS, PHASES,  # noqa: F401
                              ActionWords, action_faces, action_kind, action_meld,
                              action_reason, check_action)
from sim.play.observation import TENSOR_FIELDS, TENSOR_SIZE, Observation, Observing  # noqa: F401
from sim.play.records import EV_CARDS, EV_ROWS, FORMAT, GameRecords, Start  # noqa: F401

__all__ = ["Game", "Observation", "N_ACTIONS", "PHASES", "action_reason", "action_kind",
           "action_faces", "action_meld", "check_action", "A_DRAW", "A_TAKE", "A_END_MELD"]



_COLD_CHECKED = []


def _kernels():
    """:mod:`kernels.play.game`, the step kernels compiled first if the cache lacks them.

    On a cold cache the first call plays a throwaway hand through the step API
    (:func:`warm_up`) inside :func:`sim._util.compiling.announce`, so the compile is
    said on stderr before the wait, with its time after it.
    """
    from kernels.play import game as KG
    if not _COLD_CHECKED:
        _COLD_CHECKED.append(True)
        cold = compiling.cold(*step_kernels())
        if cold:
            with compiling.announce("the step kernels of sim.Game", cold, prefix="sim.Game: "):
                warm_up()
    return KG


def step_kernels() -> tuple:
    """The kernels :class:`Game` calls from Python, which :func:`warm_up` compiles."""
    from kernels.play import game as KG
    from kernels.table import worlds as KWD
    return (KG.new_hand, KG.play_turn, KG.play_out, KG.choose, KG.record, KA.apply_action,
            KA.legal_actions, KW.work_words, KWD.sample_world)


def warm_up() -> None:
    """Compile (or load) the step kernels by playing one throwaway hand as the step API
    does: a choice, a sampled world, observation, legal actions and actions for a turn,
    the rest played out by the kernels and (on a copy) turn by turn, and the record.
    Mutates nothing but Numba's caches."""
    g = Game.new(0, 0)
    g.choose()
    g.sample_world(g.current_seat, 0, 0)
    for _ in range(3):                  # a turn of decisions as a Python seat makes
        g.observation(g.current_seat)
        g.apply(g.legal_actions()[0])
    g.clone().play()                    # the kernels' play-out
    g._play_python()                    # turn by turn, as with a Python seat
    g._record()


class Game(ActionWords, Observing, GameRecords):
    """One hand of Burraco, decision by decision (R32-R52).

    Make one with :meth:`new` (exactly the deal of hand ``hand_index`` of the
    run seeded ``seed``), :meth:`from_json` or :meth:`clone`.  A game is
    mutable: :meth:`apply` plays an action in place.

    Attributes
    ----------
    seed, hand_index : int
        The deal (as in ``simulate``).
    rules : sim.Rules
        The rule set.
    strategies : list of str
        The strategy of each seat (a built-in spec, or the spec of a Python
        strategy, :mod:`sim.strategies.pystrategy`), used by :meth:`choose` and
        :meth:`play` and written into :meth:`result` (None for an empty seat).
    deck : numpy.ndarray or None
        int64[108], the card ids in dealing order of a hand dealt from given cards
        (:meth:`from_deck`), whose documents show that deal; None for the seed's deal.
    """

    def __init__(self, work: np.ndarray, seed: int, hand_index: int, rules: Rules,
                 strategies: list, players=None):
        self._work = work
        self.seed = seed
        self.hand_index = hand_index
        self.rules = rules
        self.strategies = strategies
        self._out = None
        self._st = None
        self.sampled_for = None      # the seat a sampled world was dealt for (sample_world)
        self._start = None           # a sampled world's start (Start): its documents
        self.match_totals = None     # per side before this hand: a match hand, or a position's
        self.deck = None             # the deck of a hand dealt from given cards (from_deck)
        # per seat, the Python strategy playing it (sim.pystrategy.Player), None for a
        # built-in one; a Python seat of a game read back by from_json is loaded on first use
        self._players = list(players) if players is not None else [None] * 4

    # ------------------------------------------------------------ construction
    @classmethod
    def new(cls, seed: int, hand_index: int, rules=None, dealer: int | None = None,
            strategies="heuristic", debug: bool = False) -> "Game":
        """The hand ``hand_index`` of the run seeded ``seed``, dealt and waiting for
        the first player's pickup: the same deal (and dealer) ``simulate`` plays.

        Parameters
        ----------
        seed : int
            The run's seed, 0 .. 2**64-1.
        hand_index : int
            The hand's index in the run, >= 0.
        rules : sim.Rules, str, dict or None
            Rule set (a preset name, options, or None for the default).
        dealer : int or None
            The dealer seat; None for the deal's own (R6).
        strategies : str, sequence or dict
            Each seat's strategy (a strategy assignment as in ``simulate``:
            built-in specs, Python strategy specs ``FILE.py:CLASS`` or
            ``MODULE:CLASS``, classes or objects with ``choose``), for
            :meth:`choose`, :meth:`play` and the record.  A Python strategy
            class gets one instance per seat; every Python seat's ``reset`` is
            called now (:mod:`sim.strategies.pystrategy`).
        debug : bool
            Check card conservation and every meld after each action (a failed
            check sets the record's ``error`` column).

        Raises
        ------
        ValueError
            A field out of range or an unknown strategy or rule.
        """
        seed = check_int("seed", seed, 0, 2**64 - 1)
        hand_index = check_int("hand_index", hand_index, 0, 2**63 - 1)
        r = rules_or_default(rules)
        r.check_supported()
        dealer_in = -1 if dealer is None else check_int("dealer", dealer, 0, r.num_players - 1)
        specs, kinds, params, pythons = resolve_seats(strategies, r)
        names = seat_names(specs, r)
        players = [p.player() if p is not None and names[s] is not None else None
                   for s, p in enumerate(pythons)]
        return cls._deal(seed, hand_index, r, dealer_in, kinds, params, names, players,
                         debug=bool(debug))

    @classmethod
    def _deal(cls, seed: int, hand_index: int, rules: Rules, dealer_in: int, kinds, params,
              names: list, players: list, debug: bool = False, log: tuple = (EV_ROWS, EV_CARDS),
              work: np.ndarray | None = None) -> "Game":
        """:meth:`new` from resolved settings (the runner's entry: one call per hand).

        ``players`` holds a :class:`sim.strategies.pystrategy.Player` per Python seat (reset
        here), None for a built-in one; ``log`` is the event log's size (rows,
        card slots): ``(0, 0)`` plays as the batch kernel does, without a log (no
        replay document), reusing ``work`` when given.
        """
        rows, cards = log
        words = KW.work_words(rows, cards)
        if work is None or work.shape[0] != words:
            work = np.zeros(words, np.int64)
        _kernels().new_hand(np.uint64(seed), np.int64(hand_index), np.int64(dealer_in),
                            rules.to_vector(), kinds, params, np.int64(debug), rows, cards, work)
        game = cls(work, seed, hand_index, rules, names, players)
        for s, p in enumerate(players):
            if p is not None:
                p.reset(s, rules, hand_index, random_seed(seed, hand_index, s))
        return game

    @classmethod
    def from_deck(cls, deck, dealer: int, rules=None, strategies="heuristic") -> "Game":
        """A hand dealt from given cards, waiting for the first player's pickup.

        Parameters
        ----------
        deck : array_like of int
            The 108 card ids in dealing order (:mod:`kernels.core.deal`: the hands, the
            pozzetti, the up-card, then the stock top card first); a permutation of
            0..107.
        dealer : int
            The dealer seat (R6); the next seat plays first.
        rules, strategies
            As for :meth:`new`.

        The game's ``seed`` and ``hand_index`` are 0 (its random stream, for the
        strategies' choices, is hand 0 of seed 0's) and :attr:`deck` holds the deck, so
        that :meth:`replay_document` gives this deal
        (:func:`kernels.play.game.new_hand_deck`).

        Raises
        ------
        ValueError
            ``deck`` is not a permutation of 0..107, or a bad dealer, rule or strategy.
        """
        from kernels.play.game import new_hand_deck
        d = np.asarray(deck)
        if d.shape != (108,) or not np.issubdtype(d.dtype, np.integer) \
                or not np.array_equal(np.sort(d), np.arange(108)):
            raise ValueError("deck: expected the 108 card ids 0..107 in dealing order, each once")
        game = cls.new(0, 0, rules=rules, dealer=dealer, strategies=strategies)
        wv = game._work
        kinds = wv[KW.W_KINDS:KW.W_KINDS + 4].copy()
        params = wv[KW.W_PARAMS:KW.W_PARAMS + 4 * L.N_PARAMS].view(np.float64).reshape(
            4, L.N_PARAMS).copy()
        new_hand_deck(np.uint64(0), np.int64(0), np.int64(game._g[KS.G_DEALER]),
                      d.astype(np.int64), game.rules.to_vector(), kinds, params, np.int64(0),
                      np.int64(wv[KW.W_EV_ROWS]), np.int64(wv[KW.W_EV_CARDS]), wv)
        game.deck = d.astype(np.int64)
        return game

    def clone(self) -> "Game":
        """A fully independent copy (its own buffer; Python strategy objects are shared,
        not copied)."""
        c = Game(self._work.copy(), self.seed, self.hand_index, self.rules,
                 list(self.strategies), self._players)
        c.sampled_for = self.sampled_for
        c._start = self._start
        c.match_totals = self.match_totals
        c.deck = self.deck
        return c

    @classmethod
    def from_position(cls, position, seed: int = 0, strategies="heuristic") -> "Game":
        """A complete game consistent with one seat's view at a decision: a position
        file (TOML or JSON), its text or a dict (format: docs/positions.md).

        The cards the position gives are in place; every other card is dealt
        uniformly at random, from ``seed``, among the other hands (beyond their
        known cards), the stock and the untaken pozzetti (:func:`sim.play.positions.to_game`).

        Raises
        ------
        ValueError
            An impossible position; the one-line message names the field.
        """
        p = position_file.load(position)
        seed = check_int("seed", seed, 0, 2**64 - 1)
        _, rules = position_file._rules_of(p)
        return position_build.to_world(p, rules, seed,
                                       cls.new(0, 0, rules=rules, strategies=strategies))

    def to_position(self, seat: int | None = None) -> dict:
        """``seat``'s view of the current decision as a position dict (only what
        the seat may know, R11); default the seat to move.  Write it with
        :func:`sim.play.positions.dump` (:func:`sim.play.positions.from_game`).

        Raises
        ------
        ValueError
            The hand is over, or ``seat`` is not a seat of this game.
        """
        return position_build.from_game(self, seat)

    def sample_world(self, seat: int, seed: int, index: int = 0) -> "Game":
        """A complete game in which every card ``seat`` cannot see is dealt again.

        The other hands (apart from the cards known to be in them, R11), the
        stock order and the untaken pozzetti get the unseen card ids again,
        uniformly at random; ``seat``'s hand, the table, the pile, the known
        cards and every count stay as they are (:func:`kernels.table.worlds.sample_world`).

        Parameters
        ----------
        seat : int
            Whose knowledge is kept.
        seed, index : int
            The sample's random stream (the same ``(seed, index)`` gives the
            same world); it also drives the world's later random choices.

        The world remembers this moment: its :meth:`replay_document` and
        :meth:`history_document` start from the state dealt here (a ``start``
        block instead of the deal, docs/step_api.md) with the events played since.

        Raises
        ------
        ValueError
            ``seat``, ``seed`` or ``index`` out of range.
        """
        from kernels.table.worlds import sample_world
        seat = check_int("seat", seat, 0, self.rules.num_players - 1)
        seed = check_int("seed", seed, 0, 2**64 - 1)
        index = check_int("index", index, 0, 2**63 - 1)
        dst = np.empty_like(self._work)
        sample_world(self._work, np.int64(seat), np.uint64(seed), np.int64(index), dst)
        world = Game(dst, self.seed, self.hand_index, self.rules, list(self.strategies),
                     self._players)
        world.sampled_for = seat
        state = dst[:KS.STATE_WORDS].copy()
        state.flags.writeable = False
        world._start = Start(state, int(dst[KW.W_G + KS.G_EVENT_ROWS]), seat)
        world.match_totals = self.match_totals
        return world

    def __eq__(self, other) -> bool:
        return (isinstance(other, Game) and self.seed == other.seed
                and self.hand_index == other.hand_index and self.rules == other.rules
                and self.match_totals == other.match_totals
                and np.array_equal(self.deck if self.deck is not None else [],
                                   other.deck if other.deck is not None else [])
                and self.strategies == other.strategies
                and self.sampled_for == other.sampled_for and self._start == other._start
                and np.array_equal(KW.canonical(self._work), KW.canonical(other._work)))

    __hash__ = None

    # ------------------------------------------------------------ state
    @property
    def state(self) -> KS.State:
        """The full state (every hidden card too) as numpy views; read only by convention."""
        if self._st is None:
            self._st = KS.state_numpy(self._work, KW.EV_AT, int(self._work[KW.W_EV_ROWS]),
                                      int(self._work[KW.W_EV_CARDS]))
        return self._st

    @property
    def _g(self) -> np.ndarray:
        return self._work[KW.W_G:KW.W_G + KS.G_LEN]

    @property
    def phase(self) -> str:
        """The decision the hand waits for: one of :data:`PHASES`."""
        return PHASES[int(self._g[KS.G_PHASE])]

    @property
    def open_lay_off(self) -> int | None:
        """The own side's meld a lay-off of several cards is under way on, or None.

        A lay-off is one action of one or more cards (R24) and R38 judges the hand
        after the whole of it; the step API plays it card by card.  When its first
        card alone would leave a dead end (hand 7♠ 5♠, 5♠ the card of a one-card
        pile: 7♠ alone leaves 5♠, which may not be discarded), the step is legal
        because the lay-off goes on, and until it is complete the only legal
        actions are the next cards on that meld (no other meld, no end)."""
        mi = int(self._g[KS.G_OPEN_LAYOFF]) - 1
        return None if mi < 0 else mi

    @property
    def current_seat(self) -> int:
        """The seat to move (the seat that ended the hand, once over)."""
        return int(self._g[KS.G_SEAT])

    @property
    def is_over(self) -> bool:
        return int(self._g[KS.G_PHASE]) == KA.PH_OVER

    @property
    def turn(self) -> int:
        """Player turns started so far (turns)."""
        return int(self._g[KS.G_TURN])

    def team_of(self, seat: int) -> int:
        """The side (table) ``seat`` plays for now (R5, R61-R63)."""
        return int(self._g[KS.G_TEAM + seat])

    # ------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat to move, ascending (empty once over)."""
        if self._out is None:
            self._out = np.empty(N_ACTIONS, np.int64)
        n = KA.legal_actions(self._work, self._out)
        return self._out[:n].tolist()

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to move.

        ``action`` is an id of the action space (0..``N_ACTIONS - 1``, as
        :meth:`legal_actions` lists them), or ``N_ACTIONS + card id``: a discard
        of that physical copy, which :meth:`choose` returns for the built-in
        ``random`` strategy (it picks a hand position; the id keeps its records
        those of ``simulate``).  Such ids are never listed as legal.

        Raises
        ------
        TypeError
            ``action`` is not an integer (:func:`check_action`: a bool, a float,
            a string, None, an array of one or more elements).
        ValueError
            ``action`` is an integer outside 0 .. ``N_ACTIONS + 107``, the hand is
            over, or the action is illegal here (the message names the action
            and the rule it breaks); the game is unchanged.
        """
        a = check_action(action, N_ACTIONS + 108)
        code = KA.apply_action(self._work, np.int64(a))
        if code != 0:
            what = (self._describe(a) if a < N_ACTIONS else
                    f"discard the copy with card id {a - N_ACTIONS}")
            if self.is_over:
                raise ValueError(f"action {a} ({what}) is illegal: the hand is over "
                                 f"(turn {self.turn}); nothing more is played in it")
            raise ValueError(f"action {a} ({what}) is illegal: {action_reason(code)}")

    def choose(self) -> int:
        """The action the seat to move's strategy (:attr:`strategies`) chooses here.

        A built-in strategy chooses in the kernel (the game is unchanged except
        for its random stream); a Python strategy gets the seat's
        :meth:`observation` and :meth:`legal_actions`.

        Raises
        ------
        ValueError
            The hand is over: no seat is to move.
        sim.pystrategy.StrategyError
            A Python strategy raised, or returned something that is not an
            action id (the message names the seat and the hand).
        """
        if self.is_over:
            raise ValueError(f"choose: the hand is over (turn {self.turn}); no seat is to move")
        player = self._player(self.current_seat)
        if player is None:
            a = int(_kernels().choose(self._work))
            if a == KA.A_CREATE_SEL:        # "the meld the strategy left in SEL": its id
                a = int(KA.create_action(self._work[KW.W_SEL:KW.W_SEL + N_COUNT]))
            return a
        return self._ask(player.choose, self.current_seat, self.strategies[self.current_seat])

    def _player(self, seat: int):
        """The Python strategy of ``seat`` (None for a built-in one), loaded on first
        use for a game read back by :meth:`from_json`."""
        p = self._players[seat]
        if p is None and seat < 4 and isinstance(self.strategies[seat], str):
            if is_python_spec(self.strategies[seat]):
                p = load(self.strategies[seat]).player()
                p.reset(seat, self.rules, self.hand_index,
                        random_seed(self.seed, self.hand_index, seat))
                self._players = list(self._players)
                self._players[seat] = p
        return p

    def _ask(self, choose, seat: int, name) -> int:
        """A Python strategy's action at this decision (checked to be an action id)."""
        try:
            a = choose(self.observation(seat), self.legal_actions())
        except Exception as exc:
            raise StrategyError(f"{self._who(seat, name)}: choose raised "
                                f"{_exc_text(exc)}") from exc
        try:
            return check_action(a)
        except (TypeError, ValueError):
            raise StrategyError(f"{self._who(seat, name)}: choose returned {a!r}, not an action "
                                f"id 0..{N_ACTIONS - 1} (one of the legal_actions it was given)"
                                ) from None

    def _who(self, seat: int, name) -> str:
        strategy = f" (strategy {name!r})" if isinstance(name, str) else ""
        return f"seat {seat}{strategy}, hand {self.hand_index} (turn {self.turn})"

    def _play_python(self, overrides=None) -> None:
        """Play on to the end: Python seats through their ``choose``, built-in seats a
        whole turn per kernel call (as the batch loop: ``kernels.play.game.play_turn``).

        Raises
        ------
        sim.pystrategy.StrategyError
            A Python strategy raised, returned no action id, or an illegal one
            (the message names the seat, the hand, the action and the rule it
            breaks); the game stays at that decision.
        """
        play_turn = _kernels().play_turn
        g = self._g
        while int(g[KS.G_PHASE]) != KA.PH_OVER:
            seat = int(g[KS.G_SEAT])
            chooser = overrides[seat] if overrides is not None else None
            name = self.strategies[seat] if seat < len(self.strategies) else None
            if chooser is None:
                player = self._player(seat)
                if player is None:
                    play_turn(self._work)
                    continue
                chooser = player.choose
            else:
                chooser = chooser.choose
                name = None
            a = self._ask(chooser, seat, name)
            try:
                self.apply(a)
            except ValueError as exc:
                raise StrategyError(f"{self._who(seat, name)}: {exc}") from None

    def play(self, strategies=None) -> "Game":
        """Play on to the end of the hand; returns ``self``.

        Parameters
        ----------
        strategies : None, a strategy, a sequence of them (per seat) or a dict
            None: every seat plays its own strategy (:attr:`strategies`).  A
            strategy is a name (a built-in or registered one, or a Python
            strategy spec ``FILE.py:CLASS``), an object with
            ``choose(observation, legal_actions) -> action`` (its ``reset`` is
            not called) or a class of one (made without arguments, once per
            seat); one alone is every seat's.  In a sequence or a dict (keys:
            seats 0..3 or ``"seat0"`` .. ``"seat3"``) None keeps a seat's own
            strategy.  A strategy given here becomes the seat's for the rest of
            the hand and goes into :meth:`result`.

        Raises
        ------
        ValueError
            A seat, or a strategy that is neither None, a known name nor an object
            with ``choose``.
        sim.pystrategy.StrategyError
            A Python strategy raised or chose an illegal action (a ``ValueError``
            naming the seat, the hand, the action and the rule it breaks).
        """
        per_seat = [None] * 4
        if callable(getattr(strategies, "choose", None)):
            strategies = [strategies] * self.rules.num_players     # one object or class: every seat
        if isinstance(strategies, str):
            per_seat = [strategies] * self.rules.num_players + [None] * (4 - self.rules.num_players)
        elif isinstance(strategies, dict):
            for s, v in strategies.items():
                if isinstance(s, str) and re.fullmatch(r"seat[0-3]", s):
                    s = int(s[4])
                per_seat[check_int("seat", s, 0, 3)] = v
        elif strategies is not None:
            per_seat = list(strategies) + [None] * (4 - len(strategies))
        for s, v in enumerate(per_seat):
            if isinstance(v, str):
                per_seat[s] = self._set_strategy(s, v)
                continue
            if isinstance(v, type) and callable(getattr(v, "choose", None)):
                v = per_seat[s] = v()
            if v is not None and not callable(getattr(v, "choose", None)):
                raise ValueError(f"play: seat {s}: expected None, a strategy name or an object "
                                 f"with choose(observation, legal_actions), got {v!r}")
            if v is not None and s < len(self.strategies):
                try:
                    self.strategies[s] = name_of(v, self.rules)
                except ValueError:
                    self.strategies[s] = f"{type(v).__module__}:{type(v).__qualname__}"
        if all(s is None for s in per_seat) and all(
                self._player(s) is None for s in range(self.rules.num_players)):
            _kernels().play_out(self._work)
            return self
        self._play_python(per_seat)
        return self

    def _set_strategy(self, seat: int, spec: str):
        """Give ``seat`` the strategy ``spec`` from now on (:meth:`play` with a
        name): a built-in or registered one goes into the kernel buffer (None is
        returned); a Python one (``FILE.py:CLASS``, ``module:CLASS``) is loaded,
        reset for this hand and returned."""
        if seat >= self.rules.num_players:
            raise ValueError(f"play: seat {seat}: this game has {self.rules.num_players} seats")
        try:
            name, kind, params, python = _strategies.resolve_seat(spec, self.rules)
        except ValueError as exc:
            raise ValueError(f"play: seat {seat}: {exc}") from None
        self._players = list(self._players)
        self.strategies[seat] = name
        if python is not None:
            p = python.player()
            p.reset(seat, self.rules, self.hand_index, random_seed(self.seed, self.hand_index, seat))
            self._players[seat] = p
            return p
        self._players[seat] = None
        self._work[KW.W_KINDS + seat] = kind
        n = L.N_PARAMS
        self._work[KW.W_PARAMS + n * seat:KW.W_PARAMS + n * (seat + 1)] = \
            np.asarray(params, np.float64).view(np.int64)
        return None

    # ------------------------------------------------------------ results
    def _record(self) -> np.ndarray:
        if not self.is_over:
            raise ValueError(f"result: the hand is not over (phase {self.phase!r}, "
                             f"seat {self.current_seat} to move)")
        rec = np.zeros(L.N_REC, np.int32)
        _kernels().record(self._work, rec)
        return rec

    def __repr__(self) -> str:
        return (f"Game(seed={self.seed}, hand_index={self.hand_index}, phase={self.phase!r}, "
                f"seat={self.current_seat}, turn={self.turn})")

