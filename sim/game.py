"""A hand of Burraco decision by decision: the step API (issue 13).

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

import base64
import functools
import json
import operator
import re
import zlib
from dataclasses import dataclass, field

import numpy as np

from kernels.engine import actions as KA
from kernels.core import layout as L
from kernels.engine import legal as KL
from kernels.core import melds as KM
from kernels.engine import observe as KO
from kernels.table import state as KS
from kernels.table import work as KW
from kernels.core.cards import BURRACO_LEN, CIDX, CVALUE, N_COUNT

from . import compiling, notation
from ._cards import check_int, rules_or_default
from .rules import Rules

__all__ = ["Game", "Observation", "N_ACTIONS", "PHASES", "action_reason", "action_kind",
           "action_faces", "action_meld", "check_action", "A_DRAW", "A_TAKE", "A_END_MELD"]

N_ACTIONS = KA.N_ACTIONS
PHASES = KA.PHASES
A_DRAW, A_TAKE, A_END_MELD = KA.A_DRAW, KA.A_TAKE, KA.A_END_MELD
FORMAT = 1                  # to_json's format number
EV_ROWS = 4096              # event log of a game (rows, card slots): a hand uses a few hundred
EV_CARDS = 16384

_BAD_TEXT = {
    KA.BAD_PHASE: "it is not an action of this phase",
    KA.BAD_ACTION_ID: f"no such action id (ids are 0..{N_ACTIONS - 1})",
    KA.BAD_TAKE: "R34 (take_pile_requires_meld): the pile may be taken only if a meld or "
                 "lay-off can use it at once",
    KA.BAD_MUST_PLACE: "R34 (take_pile_requires_meld): after taking the pile, a meld or lay-off "
                       "must come before the meld phase ends",
    KA.BAD_EMPTY_PILE: "R33: there is no discard pile to take",
    KA.BAD_DISCARD_FACE: "R36/R37: no card of that face in the hand may be discarded",
    KA.BAD_OPEN_LAYOFF: "R24/R38: a lay-off of several cards is under way and must go on "
                        "(the next card on the same meld: alone its first card left a dead end)",
}


def action_reason(code: int) -> str:
    """The rule an illegal action breaks, from an ``apply_action`` code (0: legal)."""
    code = int(code)
    if code == 0:
        return ""
    if code in _BAD_TEXT:
        return _BAD_TEXT[code]
    if code >= KL.MELD_REASON_BASE:
        return KM.REASONS[code - KL.MELD_REASON_BASE]
    return KL.LEGAL_REASONS[code]


_COLD_CHECKED = []


def _kernels():
    """:mod:`kernels.play.game`, the step kernels compiled first if the cache lacks them.

    On a cold cache the first call plays a throwaway hand through the step API
    (:func:`warm_up`) inside :func:`sim.compiling.announce`, so the compile is
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


def action_kind(action: int) -> str:
    """What an action id does, without a game: ``"draw"``, ``"take"``, ``"end"``,
    ``"discard"``, ``"lay_off"`` or ``"meld"`` (a new meld).

    Raises
    ------
    TypeError, ValueError
        ``action`` is not an id of the action space (:func:`check_action`).
    """
    a = check_action(action)
    if a <= KA.A_END_MELD:
        return ("draw", "take", "end")[a]
    if a < KA.A_LAYOFF:
        return "discard"
    return "lay_off" if a < KA.A_CREATE else "meld"


def action_faces(action: int) -> tuple:
    """The card faces an action moves (0..51 ``13*suit + rank``, rank 0 the ace;
    52 a joker): the discarded or laid-off card's face, a new meld's faces in
    reading order; ``()`` for draw, take and end.

    Raises
    ------
    TypeError, ValueError
        ``action`` is not an id of the action space (:func:`check_action`).
    """
    a = check_action(action)
    kind = action_kind(a)
    if kind == "discard":
        return (a - KA.A_DISCARD,)
    if kind == "lay_off":
        return ((a - KA.A_LAYOFF) % N_COUNT,)
    if kind == "meld":
        return _create_faces(a - KA.A_CREATE)
    return ()


@functools.lru_cache(maxsize=None)
def _create_faces(row: int) -> tuple:
    """The faces of row ``row`` of the meld table, in reading order."""
    return tuple(_meld_faces(KA.MELD_CNT[row]))


def action_meld(action: int) -> int | None:
    """The index of the own side's meld a lay-off goes on (as
    ``Observation.melds[...]["index"]``); None for any other action."""
    a = check_action(action)
    return (a - KA.A_LAYOFF) // N_COUNT if action_kind(a) == "lay_off" else None


@dataclass(frozen=True, eq=False)
class Start:
    """Where a sampled world's own history begins (:meth:`Game.sample_world`): its
    documents write this state as their ``start`` block (:func:`sim.trace.history`).

    ``state``: the state words (``kernels.table.state.STATE_WORDS``, int64, read only) as
    the world was dealt; ``events``: the events logged before (they belong to the
    game it was sampled from); ``viewer``: the seat whose knowledge it keeps.
    """
    state: np.ndarray
    events: int
    viewer: int

    def __eq__(self, other) -> bool:
        return (isinstance(other, Start) and self.events == other.events
                and self.viewer == other.viewer and np.array_equal(self.state, other.state))

    __hash__ = None


def _packed(words: np.ndarray) -> str:
    """int64 words, compressed and base64-encoded (:meth:`Game.to_json`)."""
    return base64.b64encode(zlib.compress(words.tobytes(), 6)).decode("ascii")


def _unpacked(text, what: str) -> np.ndarray:
    """The words :func:`_packed` wrote (a writable copy)."""
    try:
        raw = zlib.decompress(base64.b64decode(text))
    except (TypeError, ValueError, zlib.error) as e:
        raise ValueError(f"game: {what} is damaged ({e})") from None
    return np.frombuffer(raw, np.int64).copy()


def check_action(action, limit: int = N_ACTIONS, what: str = "action", ids: str | None = None,
                 noun: str = "an action id") -> int:
    """``action`` as an ``int`` action id 0 .. ``limit - 1``, the one check of an action's
    type and range that :meth:`Game.apply`, :meth:`Game.action_text`, the ``action_*``
    helpers and the environments of :mod:`sim.envs` share.

    An action id is an integer: a Python ``int``, a numpy integer (``np.int64`` as
    Gymnasium's ``Discrete.sample`` returns it) or a 0-dimensional integer array
    (anything ``operator.index`` takes), never a ``bool``.  A float is refused even
    with an integral value (``1.0``), as are strings, None and arrays of one or more
    elements.

    Parameters
    ----------
    action : object
        What was given as an action.
    limit : int
        One past the largest id accepted: :data:`N_ACTIONS` (the action space), or
        ``N_ACTIONS + 108`` where a discard of one copy (``N_ACTIONS + card id``)
        is accepted too.
    what : str
        How the message names the action (``"step: action"``).
    ids, noun : str
        What the message says the allowed ids are (default: the action space's)
        and what an allowed id is (default ``"an action id"``).

    Returns
    -------
    int
        The action id.

    Raises
    ------
    TypeError
        ``action`` is not an integer (a bool, a float, a string, None, an array).
    ValueError
        ``action`` is an integer outside 0 .. ``limit - 1``.
    """
    if ids is None:
        ids = f"ids are 0..{min(limit, N_ACTIONS) - 1}"
        if limit > N_ACTIONS:
            ids += f" (and N_ACTIONS + card id up to {limit - 1}, a discard of that copy)"
    try:
        if isinstance(action, bool):
            raise TypeError
        a = operator.index(action)
    except TypeError:
        kind = (f"an array of shape {action.shape} and dtype {action.dtype}"
                if isinstance(action, np.ndarray) else
                "None" if action is None else f"a {type(action).__name__}")
        raise TypeError(f"{what} {action!r} is not {noun}: expected an integer, got "
                        f"{kind}; {ids}") from None
    if not 0 <= a < limit:
        raise ValueError(f"{what} {a} is not {noun}: {ids}")
    return a


def _random_seed(seed: int, hand_index: int, seat: int) -> int:
    from .pystrategy import random_seed
    return random_seed(seed, hand_index, seat)


def _face_text(f: int) -> str:
    return "JK" if f == 52 else notation.format_card(int(f))


#: the card ids of the copies of each face a meld's counts stand for (R1: copies are alike)
_FACE_IDS = tuple((f, f + 54) if f < 52 else (52, 53, 106, 107) for f in range(N_COUNT))


def _meld_faces(cnt, nat=None) -> list[int]:
    """The faces of a meld's counts in reading order (:func:`sim.melds.reading_order`:
    a set by suit, a sequence by slot with the wild where it stands); ``nat``: the
    sequence's natural 2s under ``lock_two_roles`` (None: the canonical reading)."""
    from .melds import reading_order
    ids = [c for f in range(N_COUNT) for c in _FACE_IDS[f][:int(cnt[f])]]
    return [int(CIDX[c]) for c in reading_order(ids, nat, KM.ANY_RANK).cards]


_CREATE_ROW = None
_CARD_TEXT = tuple(notation.format_card(c) for c in range(108))   # card id -> text
_CARD_FACE = tuple(int(CIDX[c]) for c in range(108))              # card id -> face
_FACE_TEXT = tuple(_face_text(f) for f in range(N_COUNT))         # face -> text
_MELD_CARDS: dict = {}         # a meld's counts (bytes) -> (texts, faces) in reading order


def _meld_cards(cnt, nat=None) -> tuple:
    """``(texts, faces)`` of a meld's cards in reading order (:func:`_meld_faces`), cached."""
    key = (cnt.tobytes(), nat)
    cards = _MELD_CARDS.get(key)
    if cards is None:
        if len(_MELD_CARDS) > 200_000:
            _MELD_CARDS.clear()
        faces = tuple(_meld_faces(cnt, nat))
        cards = _MELD_CARDS[key] = (tuple(_FACE_TEXT[f] for f in faces), faces)
    return cards


def _create_rows() -> dict:
    global _CREATE_ROW
    if _CREATE_ROW is None:
        _CREATE_ROW = {KA.MELD_CNT[k].tobytes(): k for k in range(KA.N_MELDS)}
    return _CREATE_ROW


def _parse_faces(text: str, what: str) -> list[int]:
    """Count faces (0..52) of a card list; copies do not matter."""
    try:
        ids = notation.parse(text)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
    return [int(CIDX[int(i)]) for i in ids]


@dataclass(frozen=True)
class Observation:
    """What one seat may know of a hand (R11), at one moment.

    Cards are given as card texts (``"10♥"``, ``"JK"``) in the ``*`` fields
    and as count faces (0..51 ``13*suit + rank``, 52 a joker) in ``*_faces``.

    Attributes
    ----------
    seat, team : int
        The observing seat and the side it plays for.
    phase : str
        One of :data:`PHASES`; ``current_seat`` is the seat to move.
    hand : tuple of str
        The seat's own hand, in hand order.
    melds : tuple of dict
        Every meld on the table: ``{"team", "index", "cards", "faces", "kind",
        "wilds"}`` (``index`` is the meld's number on its side's table, the one
        lay-off actions name; ``cards`` and ``faces`` in reading order).
    pile : tuple of str
        The whole discard pile, bottom first (R11).
    hand_sizes : tuple of int
        Cards held by each seat (4 entries; 0 for an empty seat).
    known : tuple of tuple of str
        For each seat, the cards every player knows it holds: taken with the
        pile and not melded or discarded since (R11).
    stock_size : int
        Cards in the stock (cards).
    pozzetti_left : int
        Pozzetti not yet taken (R40).
    pozzetto_taken : tuple of bool
        Per side (3 entries), whether it has taken its pozzetto (R42).
    barred : str or None
        The card taken as a one-card pile this turn that may not be discarded (R36).
    turn : int
        Player turns started so far (turns).
    team_of : tuple of int
        The side each seat plays for.
    meld_points : tuple of int
        Per side (3 entries), the value of the cards on its table (points, R2).
    burracos : tuple of tuple of int
        Per side, ``(clean, dirty)`` melds of 7 or more cards on its table (R27).
    match_totals : tuple of int or None
        The match totals before this hand, when the game is a match hand
        (:attr:`Game.match_totals`), else None.
    """
    seat: int
    team: int
    phase: str
    current_seat: int
    turn: int
    hand: tuple
    hand_faces: tuple
    melds: tuple
    pile: tuple
    pile_faces: tuple
    hand_sizes: tuple
    known: tuple
    known_faces: tuple
    stock_size: int
    pozzetti_left: int
    pozzetto_taken: tuple
    barred: str | None
    team_of: tuple
    num_players: int = 4
    meld_points: tuple = ()
    burracos: tuple = ()
    match_totals: tuple | None = None
    extra: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        """The observation as plain JSON-ready values."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "extra"}
        return json.loads(json.dumps(d, default=list))


# observation tensor layout: (name, length); float32, documented in docs/step_api.md and
# filled by the kernel kernels.engine.observe.observation_tensor
TENSOR_FIELDS = KO.TENSOR_FIELDS
TENSOR_SIZE = KO.TENSOR_SIZE


class Game:
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
        strategy, :mod:`sim.pystrategy`), used by :meth:`choose` and
        :meth:`play` and written into :meth:`result` (None for an empty seat).
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
            called now (:mod:`sim.pystrategy`).
        debug : bool
            Check card conservation and every meld after each action (a failed
            check sets the record's ``error`` column).

        Raises
        ------
        ValueError
            A field out of range or an unknown strategy or rule.
        """
        from .runner import _resolve_seats, seat_names
        seed = check_int("seed", seed, 0, 2**64 - 1)
        hand_index = check_int("hand_index", hand_index, 0, 2**63 - 1)
        r = rules_or_default(rules)
        r.check_supported()
        dealer_in = -1 if dealer is None else check_int("dealer", dealer, 0, r.num_players - 1)
        specs, kinds, params, pythons = _resolve_seats(strategies)
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

        ``players`` holds a :class:`sim.pystrategy.Player` per Python seat (reset
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
                p.reset(s, rules, hand_index, _random_seed(seed, hand_index, s))
        return game

    def clone(self) -> "Game":
        """A fully independent copy (its own buffer; Python strategy objects are shared,
        not copied)."""
        c = Game(self._work.copy(), self.seed, self.hand_index, self.rules,
                 list(self.strategies), self._players)
        c.sampled_for = self.sampled_for
        c._start = self._start
        c.match_totals = self.match_totals
        return c

    @classmethod
    def from_position(cls, position, seed: int = 0, strategies="heuristic") -> "Game":
        """A complete game consistent with one seat's view at a decision: a position
        file (TOML or JSON), its text or a dict (format: docs/positions.md).

        The cards the position gives are in place; every other card is dealt
        uniformly at random, from ``seed``, among the other hands (beyond their
        known cards), the stock and the untaken pozzetti (:func:`sim.positions.to_game`).

        Raises
        ------
        ValueError
            An impossible position; the one-line message names the field.
        """
        from . import positions
        return positions.to_game(position, seed=seed, strategies=strategies)

    def to_position(self, seat: int | None = None) -> dict:
        """``seat``'s view of the current decision as a position dict (only what
        the seat may know, R11); default the seat to move.  Write it with
        :func:`sim.positions.dump` (:func:`sim.positions.from_game`).

        Raises
        ------
        ValueError
            The hand is over, or ``seat`` is not a seat of this game.
        """
        from . import positions
        return positions.from_game(self, seat)

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
        world._start = Start(state, int(dst[KW.W_G + KS.G_NEV]), seat)
        world.match_totals = self.match_totals
        return world

    def to_json(self) -> str:
        """The game as JSON text; :meth:`from_json` gives an equal game back.

        The kernel buffer (state, the hand's generator, rules vector, event
        log) is stored compressed and base64-encoded beside the readable
        settings, so the round trip is exact.
        """
        d = {
            "format": FORMAT, "kind": "burraco_game", "seed": self.seed,
            "hand_index": self.hand_index, "rules": self.rules.to_dict(),
            "strategies": self.strategies, "words": int(self._work.shape[0]),
            "match_totals": None if self.match_totals is None else list(self.match_totals),
            "phase": self.phase, "current_seat": self.current_seat,
            "buffer": _packed(KW.canonical(self._work)),
        }
        if self.sampled_for is not None:         # a sampled world: where its history starts
            d["sampled_for"] = self.sampled_for
            if self._start is not None:
                d["start"] = {"events": self._start.events, "state": _packed(self._start.state)}
        return json.dumps(d, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Game":
        """The game :meth:`to_json` wrote.

        Raises
        ------
        ValueError
            Not a game document, another format, or a damaged buffer.
        """
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"game: not JSON ({e.msg} at line {e.lineno})") from None
        if not isinstance(d, dict) or d.get("kind") != "burraco_game":
            raise ValueError("game: not a burraco game document (kind must be 'burraco_game')")
        if d.get("format") != FORMAT:
            raise ValueError(f"game: format {d.get('format')!r} is not supported (only {FORMAT})")
        work = _unpacked(d.get("buffer"), "buffer")
        n = work.shape[0]
        expected = KW.work_words(int(work[KW.W_EV_ROWS]), int(work[KW.W_EV_CARDS])) \
            if n > KW.W_EV_CARDS else -1
        if n != int(d["words"]) or n != expected:
            raise ValueError(f"game: buffer has {n} words, expected "
                             f"{expected if expected > 0 else KW.work_words(EV_ROWS, EV_CARDS)} "
                             "(another version?)")
        r = rules_or_default(d["rules"])
        game = cls(work, int(d["seed"]), int(d["hand_index"]), r, list(d["strategies"]))
        if d.get("match_totals") is not None:
            game.match_totals = tuple(int(x) for x in d["match_totals"])
        if d.get("sampled_for") is not None:
            game.sampled_for = int(d["sampled_for"])
            start = d.get("start")
            if isinstance(start, dict):
                state = _unpacked(start.get("state"), "start.state")
                if state.shape[0] != KS.STATE_WORDS:
                    raise ValueError(f"game: start.state has {state.shape[0]} words, expected "
                                     f"{KS.STATE_WORDS} (another version?)")
                state.flags.writeable = False
                game._start = Start(state, int(start["events"]), game.sampled_for)
        return game

    def __eq__(self, other) -> bool:
        return (isinstance(other, Game) and self.seed == other.seed
                and self.hand_index == other.hand_index and self.rules == other.rules
                and self.match_totals == other.match_totals
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
            from .pystrategy import is_python_spec, load
            if is_python_spec(self.strategies[seat]):
                p = load(self.strategies[seat]).player()
                p.reset(seat, self.rules, self.hand_index,
                        _random_seed(self.seed, self.hand_index, seat))
                self._players = list(self._players)
                self._players[seat] = p
        return p

    def _ask(self, choose, seat: int, name) -> int:
        """A Python strategy's action at this decision (checked to be an action id)."""
        from .pystrategy import StrategyError, _exc_text
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
        from .pystrategy import StrategyError
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
                from .strategies import name_of
                try:
                    self.strategies[s] = name_of(v)
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
        from . import strategies as _strategies
        if seat >= self.rules.num_players:
            raise ValueError(f"play: seat {seat}: this game has {self.rules.num_players} seats")
        try:
            name, kind, params, python = _strategies.resolve_seat(spec)
        except ValueError as exc:
            raise ValueError(f"play: seat {seat}: {exc}") from None
        self._players = list(self._players)
        self.strategies[seat] = name
        if python is not None:
            p = python.player()
            p.reset(seat, self.rules, self.hand_index, _random_seed(self.seed, self.hand_index, seat))
            self._players[seat] = p
            return p
        self._players[seat] = None
        self._work[KW.W_KINDS + seat] = kind
        n = L.N_PARAMS
        self._work[KW.W_PARAMS + n * seat:KW.W_PARAMS + n * (seat + 1)] = \
            np.asarray(params, np.float64).view(np.int64)
        return None

    def action_text(self, action: int) -> str:
        """The action in words: "take the pile (5 cards: ...)", "meld 7♥ 8♥ 9♥",
        "lay off 10♥ on meld 2", "discard K♣ (closes)".

        Raises
        ------
        TypeError, ValueError
            ``action`` is not an id of the action space (:func:`check_action`).
        """
        return self._describe(check_action(action))

    def _describe(self, a: int) -> str:
        st = self.state
        g = st.g
        seat = int(g[KS.G_SEAT])
        if a == KA.A_DRAW:
            return "draw from the stock"
        if a == KA.A_TAKE:
            n = int(g[KS.G_PN])
            cards = " ".join(notation.format_card(int(c)) for c in st.pile[:n])
            return f"take the pile ({n} card{'s' if n != 1 else ''}: {cards})"
        if a == KA.A_END_MELD:
            return "end the meld phase"
        if a < KA.A_LAYOFF:
            f = a - KA.A_DISCARD
            text = f"discard {_face_text(f)}"
            if int(g[KS.G_PHASE]) == KA.PH_DISCARD and int(st.hn[seat]) == 1 \
                    and int(st.hcnt[seat, f]) == 1:
                cid = int(st.hand[seat, 0])
                code, closes = KL.can_discard(st, self.rules.to_vector(), int(g[KS.G_TEAM + seat]),
                                              seat, cid)
                if code == 0 and closes:
                    text += " (closes)"
                elif code == 0:
                    text += " (to the pozzetto)"
            return text
        if a < KA.A_CREATE:
            mi, f = divmod(a - KA.A_LAYOFF, N_COUNT)
            text = f"lay off {_face_text(f)} on meld {mi}"
            if int(g[KS.G_OPEN_LAYOFF]) == 0 and int(st.hn[seat]) == 2 \
                    and int(g[KS.G_PHASE]) in (KA.PH_PLACE, KA.PH_MELD):
                rest = [int(c) for c in st.hand[seat, :2]]
                team = int(g[KS.G_TEAM + seat])
                rv = self.rules.to_vector()
                code = KL.can_layoff(st, rv, team, seat, mi, f, np.zeros(N_COUNT, np.int64))[0]
                if code != 0 and KL.lay_off_opens(st, rv, team, seat, mi, f,
                                                  np.ones(N_COUNT, np.int64),
                                                  np.zeros(N_COUNT, np.int64)):
                    # alone a dead end: the first card of a lay-off of two (R24 with R38)
                    other = rest[1] if CIDX[rest[0]] == f else rest[0]
                    text += f" (then {notation.format_card(other)}: a lay-off of two cards)"
            return text
        row = a - KA.A_CREATE
        return "meld " + " ".join(_face_text(f) for f in _meld_faces(KA.MELD_CNT[row]))

    def action_from_text(self, text: str) -> int:
        """The action id of a text as :meth:`action_text` writes it (case and the
        parts in parentheses do not matter; "draw", "take", "end" are enough).

        Raises
        ------
        ValueError
            The text names no action (the message lists the accepted forms).
        """
        if not isinstance(text, str):
            raise ValueError(f"action text: expected a string, got {text!r}")
        t = re.sub(r"\(.*?\)", "", text).strip()
        low = t.lower()
        forms = ("accepted forms: 'draw', 'take', 'end', 'discard K♣', 'meld 7♥ 8♥ 9♥', "
                 "'lay off 10♥ on meld 2'")
        if low in ("draw", "draw from the stock", "stock"):
            return KA.A_DRAW
        if low.startswith("take"):
            return KA.A_TAKE
        if low in ("end", "end the meld phase", "end meld phase"):
            return KA.A_END_MELD
        m = re.fullmatch(r"discard\s+(\S+)", t, re.IGNORECASE)
        if m:
            faces = _parse_faces(m.group(1), "action text")
            return KA.A_DISCARD + faces[0]
        m = re.fullmatch(r"lay\s*off\s+(\S+)\s+on\s+meld\s+(\d+)", t, re.IGNORECASE)
        if m:
            f = _parse_faces(m.group(1), "action text")[0]
            mi = int(m.group(2))
            if mi >= KS.MMAX:
                raise ValueError(f"action text: meld {mi} does not exist (0..{KS.MMAX - 1})")
            return KA.A_LAYOFF + N_COUNT * mi + f
        m = re.fullmatch(r"meld\s+(.+)", t, re.IGNORECASE)
        if m:
            cnt = np.zeros(N_COUNT, np.int8)
            for f in _parse_faces(m.group(1), "action text"):
                cnt[f] += 1
            row = _create_rows().get(cnt.tobytes())
            if row is None:
                raise ValueError(f"action text: {m.group(1)!r} is not a valid meld (R15-R19)")
            return KA.A_CREATE + row
        raise ValueError(f"action text: {text!r} names no action; {forms}")

    # ------------------------------------------------------------ what a seat sees
    def _view(self, seat):
        """The checked seat, the state, its counters and the number of players."""
        seat = check_int("seat", seat, 0, self.rules.num_players - 1)
        st = self.state
        return seat, st, st.g, self.rules.num_players

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know by R11, and nothing else (see :class:`Observation`).

        Raises
        ------
        ValueError
            ``seat`` is not a seat of this game.
        """
        seat, st, _, n = self._view(seat)
        g = st.g.tolist()
        hand_ids = st.hand[seat, :int(st.hn[seat])].tolist()
        melds = []
        nm = st.nm.tolist()
        for t in range(KS.NTEAMS):
            if not nm[t]:
                continue
            info = st.minfo[t, :nm[t]].tolist()
            for mi in range(nm[t]):
                nat = info[mi][KS.MI_NAT2] if self.rules.lock_two_roles else None
                texts, faces = _meld_cards(st.mcnt[t, mi], nat)
                melds.append({"team": t, "index": mi, "cards": list(texts), "faces": list(faces),
                              "kind": "set" if info[mi][KS.MI_KIND] == KM.KIND_SET
                              else "sequence",
                              "wilds": info[mi][KS.MI_NWILD]})
        pile_ids = st.pile[:g[KS.G_PN]].tolist()
        known_faces = [(), (), (), ()]
        rows, cols = np.nonzero(st.known[:4])
        if rows.size:
            counts = st.known[rows, cols].tolist()
            per = [[], [], [], []]
            for r, f, k in zip(rows.tolist(), cols.tolist(), counts):
                per[r] += [f] * k
            known_faces = [tuple(x) for x in per]
        known_faces = tuple(known_faces)
        barred = g[KS.G_BARRED]
        phase = g[KS.G_PHASE]
        return Observation(
            seat=seat, team=g[KS.G_TEAM + seat], phase=PHASES[phase],
            current_seat=g[KS.G_SEAT], turn=g[KS.G_TURN],
            hand=tuple(map(_CARD_TEXT.__getitem__, hand_ids)),
            hand_faces=tuple(map(_CARD_FACE.__getitem__, hand_ids)),
            melds=tuple(melds),
            pile=tuple(map(_CARD_TEXT.__getitem__, pile_ids)),
            pile_faces=tuple(map(_CARD_FACE.__getitem__, pile_ids)),
            hand_sizes=tuple(st.hn[:4].tolist()),
            known=tuple(tuple(map(_FACE_TEXT.__getitem__, fs)) for fs in known_faces),
            known_faces=known_faces,
            stock_size=g[KS.G_SLEN] - g[KS.G_SP],
            pozzetti_left=g[KS.G_NPOZ] - g[KS.G_POZ_NEXT],
            pozzetto_taken=tuple(bool(g[KS.G_TPOZ + t]) for t in range(KS.NTEAMS)),
            barred=_CARD_TEXT[barred] if barred >= 0 else None,
            team_of=tuple(g[KS.G_TEAM:KS.G_TEAM + 4]),
            num_players=n,
            meld_points=tuple(int((st.mcnt[t].sum(axis=0) * CVALUE).sum())
                              for t in range(KS.NTEAMS)),
            burracos=tuple(
                (int(((st.minfo[t, :st.nm[t], KS.MI_LEN] >= BURRACO_LEN)
                      & (st.minfo[t, :st.nm[t], KS.MI_NWILD] == 0)).sum()),
                 int(((st.minfo[t, :st.nm[t], KS.MI_LEN] >= BURRACO_LEN)
                      & (st.minfo[t, :st.nm[t], KS.MI_NWILD] > 0)).sum()))
                for t in range(KS.NTEAMS)),
            match_totals=None if self.match_totals is None else tuple(self.match_totals),
        )

    def observation_tensor(self, seat: int) -> np.ndarray:
        """:meth:`observation` as a fixed-size ``float32[TENSOR_SIZE]`` vector
        (layout :data:`TENSOR_FIELDS`, documented in docs/step_api.md).

        Raises
        ------
        ValueError
            ``seat`` is not a seat of this game.
        """
        seat = check_int("seat", seat, 0, self.rules.num_players - 1)
        out = np.empty(TENSOR_SIZE, np.float32)
        KO.observation_tensor(self._work, seat, self.rules.num_players, out)
        return out

    # ------------------------------------------------------------ results
    def _record(self) -> np.ndarray:
        if not self.is_over:
            raise ValueError(f"result: the hand is not over (phase {self.phase!r}, "
                             f"seat {self.current_seat} to move)")
        rec = np.zeros(L.N_REC, np.int32)
        _kernels().record(self._work, rec)
        return rec

    def result(self) -> dict:
        """The record row ``simulate`` writes for this hand (once it is over).

        Raises
        ------
        ValueError
            The hand is not over.
        """
        from . import dataset
        return dataset.record_to_dict(self._record(), self.hand_index, self.strategies)

    def replay_document(self) -> dict:
        """The hand as a ``sim.replay`` document (same schema), for the referee.

        A sampled world's document (:meth:`sample_world`, :meth:`from_position`)
        has a ``start`` block, the state the world was dealt in, instead of the
        deal, and the events since (docs/step_api.md).

        Raises
        ------
        ValueError
            The hand is not over, or a sampled world has no start to document it from.
        """
        from . import trace
        rec = self._record()
        return trace.document(self.seed, self.hand_index, self.rules, self.strategies,
                              self._work, rec, self._start_of("replay_document"))

    def history_document(self) -> dict:
        """The hand so far as a replay-document prefix: :meth:`replay_document`'s
        fields without ``result``, the events up to now (no ``end`` event while
        the hand goes on).  ``tests/referee.py`` lists the legal actions from it.

        Raises
        ------
        ValueError
            A sampled world has no start to document it from.
        """
        from . import trace
        start = self._start_of("history_document")
        g = self._g
        return trace.history(self.seed, self.hand_index, self.rules, self.strategies,
                             self._work, int(g[KS.G_DEALER]), int(g[KS.G_FIRST]), start)

    def _start_of(self, what: str):
        """The start of a sampled world's documents (None for a dealt game)."""
        if self.sampled_for is None:
            return None
        if self._start is None:
            raise ValueError(f"{what}: this sampled world does not know the state it was dealt "
                             "in (its past draws are not the cards it holds), so it has no "
                             "history to document")
        if int(self._start.state[KW.W_G + KS.G_PHASE]) == KA.PH_OVER:
            raise ValueError(f"{what}: this world was sampled after the hand was over, so it "
                             "has no play of its own to document")
        return self._start

    def __repr__(self) -> str:
        return (f"Game(seed={self.seed}, hand_index={self.hand_index}, phase={self.phase!r}, "
                f"seat={self.current_seat}, turn={self.turn})")

