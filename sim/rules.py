"""Rule-set configuration: the options of RULES.md section 14 and the presets.

A :class:`Rules` value is immutable and validated when it is built; it enters
the kernels as the integer vector of :meth:`Rules.to_vector` (slots
``kernels.core.layout.RV_*``), so one compiled game loop serves every rule set.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from kernels.core import layout as L

#: Rank names by rank index (0 = ace .. 12 = king), as used by ``set_ranks``.
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
_RANK_INDEX["T"] = 9

#: Every rank that may form a set by default (R16: any rank except 2).
ALL_SET_RANKS = tuple(r for r in RANK_NAMES if r != "2")

#: String-valued options and their allowed values, in kernel code order
#: (the position of a value is the integer stored in the rules vector).
ENUMS = {
    "three_player_mode": ("solo_18", "individual_3x11"),
    "semi_clean_rule": ("adjacent_run", "wild_at_end"),
    "stock_end_mode": ("finish_turn", "immediate"),
    "pile_meld_source": ("any", "from_pile"),
    "three_player_pair_share": ("full", "half_round_up"),
}

#: Names accepted by :meth:`Rules.preset`.
PRESETS = ("default", "fibur_italian", "fibur_international")

_MAX_POINTS = 100_000       # bound for bonus/penalty options (points)
_MAX_TURNS = 10_000         # turn counts are stored as int16 in the dataset
_MAX_POZZETTO = 18          # cards per pozzetto the kernels' state holds (PMAX)


def _fail(name: str, allowed: str, value: Any) -> None:
    raise ValueError(f"rules: {name} must be {allowed}, got {value!r}")


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    _fail(name, "true or false", value)


def _as_int(name: str, value: Any, lo: int, hi: int, step: int = 1) -> int:
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if ok:
        value = int(value)
        ok = lo <= value <= hi and value % step == 0
    if not ok:
        what = f"an integer in {lo}..{hi}"
        if step != 1:
            what += f" and a multiple of {step}"
        _fail(name, what, value)
    return value


def _as_choice(name: str, value: Any) -> str:
    allowed = ENUMS[name]
    if not isinstance(value, str) or value not in allowed:
        _fail(name, "one of " + ", ".join(repr(a) for a in allowed), value)
    return value


def _as_ranks(name: str, value: Any) -> tuple:
    allowed = "a collection of ranks from A, 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K (never 2)"
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        _fail(name, allowed, value)
    idx = set()
    for item in value:
        key = item.strip().upper() if isinstance(item, str) else None
        if key not in _RANK_INDEX or key == "2":
            _fail(name, allowed, item)
        idx.add(_RANK_INDEX[key])
    return tuple(RANK_NAMES[i] for i in sorted(idx))


@dataclass(frozen=True)
class Rules:
    """One Burraco rule set (RULES.md section 14).

    Build with keyword arguments (every option has the default of the
    ``default`` preset), with :meth:`preset`, :meth:`replace` or
    :meth:`from_dict`.  Every option is validated on construction.

    Attributes
    ----------
    num_players : int
        2, 3 or 4 (R5, R61-R63).  Default 4.
    hand_size : int
        Cards dealt to each player (R8).  Default 11.
    pozzetto_size : int
        Cards in each pozzetto (R8).  Default 11.
    three_player_mode : str
        ``"solo_18"`` or ``"individual_3x11"`` (R62, R63).
    set_ranks : tuple of str
        Ranks that may form a set (R16), in rank order; given as any
        collection of rank names (``"A"``, ``"3"`` .. ``"10"`` or ``"T"``,
        ``"J"``, ``"Q"``, ``"K"``); ``"2"`` is never allowed.  Default: all
        ranks except 2.
    allow_duplicate_set_rank : bool
        A team may hold two sets of one rank (R23).  Default False.
    lock_two_roles : bool
        A two keeps the role (natural or wild) it entered a meld with for
        the rest of the hand, and classes are scored with the kept roles
        (R25).  Default False.
    semi_clean_bonus : int or None
        Bonus of a semi-clean burraco in points (R29); None disables the
        class (such melds score as dirty).  Default None.
    semi_clean_rule : str
        ``"adjacent_run"`` or ``"wild_at_end"`` (R29).
    extra_burraco_classes : bool
        Royal/super burraco classes (R31).  Default False.
    take_pile_requires_meld : bool
        The discard pile may be taken only if a card can then be placed
        (R34).  Default False.
    forbid_rediscard_single_pile : bool
        The card of a one-card pile may not be discarded in the same turn
        (R36).  Default True.
    require_clean_burraco_to_close : bool
        Closing needs a clean burraco, not any burraco (R45).  Default False.
    stock_reserve : int
        Stock cards that are never drawn (R50), in cards.  Default 2.
    stock_end_mode : str
        ``"finish_turn"`` or ``"immediate"`` (R50).
    stall_turn_limit : int
        Consecutive stalled turns that end the hand (R51).  Default 12.
    max_turns_per_hand : int
        Safety cap on player turns per hand (R52).  Default 400.
    untaken_pozzetto_as_stock : bool
        An untaken pozzetto becomes the stock (R53).  Default False.
    clean_bonus, dirty_bonus, closing_bonus, pozzetto_penalty : int
        Points (R55, R56), non-negative multiples of 5 so that hand scores
        stay multiples of 5 (R59).  Defaults 200, 100, 100, 100.
    target_score : int
        Match threshold in points, inclusive (R60).  Default 2005.
    pile_close_no_bonus : bool
        No closing bonus in a turn that took the discard pile (D12).
        Default False.
    pile_meld_source : str
        ``"any"`` or ``"from_pile"``, with ``take_pile_requires_meld`` (R34).
    three_player_pozzetto_a_size : int
        Size of pozzetto A in 3-player ``solo_18`` (R62).  Default 18.
    three_player_pair_share : str
        ``"full"`` or ``"half_round_up"`` (R62).
    three_player_switch_at, three_player_target : int
        Match thresholds of the 3-player game in points (R63).
        Defaults 1000, 2005.

    Raises
    ------
    ValueError
        On construction, an option of the wrong type or out of range; the
        one-line message names the option and its allowed values.
    """

    num_players: int = 4
    hand_size: int = 11
    pozzetto_size: int = 11
    three_player_mode: str = "solo_18"
    set_ranks: tuple = field(default=ALL_SET_RANKS)
    allow_duplicate_set_rank: bool = False
    lock_two_roles: bool = False
    semi_clean_bonus: int | None = None
    semi_clean_rule: str = "adjacent_run"
    extra_burraco_classes: bool = False
    take_pile_requires_meld: bool = False
    forbid_rediscard_single_pile: bool = True
    require_clean_burraco_to_close: bool = False
    stock_reserve: int = 2
    stock_end_mode: str = "finish_turn"
    stall_turn_limit: int = 12
    max_turns_per_hand: int = 400
    untaken_pozzetto_as_stock: bool = False
    clean_bonus: int = 200
    dirty_bonus: int = 100
    closing_bonus: int = 100
    pozzetto_penalty: int = 100
    target_score: int = 2005
    pile_close_no_bonus: bool = False
    pile_meld_source: str = "any"
    three_player_pozzetto_a_size: int = 18
    three_player_pair_share: str = "full"
    three_player_switch_at: int = 1000
    three_player_target: int = 2005

    # ------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        def put(name, value):
            object.__setattr__(self, name, value)

        put("num_players", _as_int("num_players", self.num_players, 2, 4))
        put("hand_size", _as_int("hand_size", self.hand_size, 1, 50))
        put("pozzetto_size", _as_int("pozzetto_size", self.pozzetto_size, 1, _MAX_POZZETTO))
        put("set_ranks", _as_ranks("set_ranks", self.set_ranks))
        for name in ("allow_duplicate_set_rank", "lock_two_roles", "extra_burraco_classes",
                     "take_pile_requires_meld", "forbid_rediscard_single_pile",
                     "require_clean_burraco_to_close", "untaken_pozzetto_as_stock",
                     "pile_close_no_bonus"):
            put(name, _as_bool(name, getattr(self, name)))
        for name in ENUMS:
            put(name, _as_choice(name, getattr(self, name)))
        if self.semi_clean_bonus is not None:
            v = self.semi_clean_bonus
            ok = isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            if not ok or not 5 <= v <= _MAX_POINTS or v % 5:
                _fail("semi_clean_bonus",
                      f"off (None) or an integer in 5..{_MAX_POINTS} and a multiple of 5", v)
            put("semi_clean_bonus", int(v))
        for name in ("clean_bonus", "dirty_bonus", "closing_bonus", "pozzetto_penalty"):
            put(name, _as_int(name, getattr(self, name), 0, _MAX_POINTS, 5))
        put("stock_reserve", _as_int("stock_reserve", self.stock_reserve, 0, 107))
        put("stall_turn_limit", _as_int("stall_turn_limit", self.stall_turn_limit, 1, _MAX_TURNS))
        put("max_turns_per_hand",
            _as_int("max_turns_per_hand", self.max_turns_per_hand, 1, _MAX_TURNS))
        put("target_score", _as_int("target_score", self.target_score, 5, 10 * _MAX_POINTS))
        put("three_player_pozzetto_a_size",
            _as_int("three_player_pozzetto_a_size", self.three_player_pozzetto_a_size, 1,
                    _MAX_POZZETTO))
        put("three_player_switch_at",
            _as_int("three_player_switch_at", self.three_player_switch_at, 0, 10 * _MAX_POINTS))
        put("three_player_target",
            _as_int("three_player_target", self.three_player_target, 5, 10 * _MAX_POINTS))
        stock = self.initial_stock
        if stock <= self.stock_reserve:
            raise ValueError(
                f"rules: hand_size={self.hand_size}, pozzetto_size={self.pozzetto_size} and "
                f"num_players={self.num_players} leave an initial stock of {stock} cards, which "
                f"must exceed stock_reserve={self.stock_reserve}")

    @property
    def initial_stock(self) -> int:
        """Cards in the stock right after the deal (R8, R61-R63).

        Returns
        -------
        int
            ``108 - hands - pozzetti - 1`` (cards); may be negative for
            impossible settings, which construction refuses.
        """
        n, h, p = self.num_players, self.hand_size, self.pozzetto_size
        if n == 3:
            pozzetti = (self.three_player_pozzetto_a_size + p
                        if self.three_player_mode == "solo_18" else 3 * p)
        else:
            pozzetti = 2 * p
        return 108 - n * h - pozzetti - 1

    # ------------------------------------------------------------ constructors
    @classmethod
    def preset(cls, name: str) -> "Rules":
        """Rule set of a named preset (RULES.md section 14).

        Parameters
        ----------
        name : str
            ``"default"`` (the seed's rules, FIBUR-Italian choices where it
            is silent), ``"fibur_italian"`` (default + semi-clean burraco 150,
            R29) or ``"fibur_international"`` (default + clean burraco to
            close R45, sets of A and 3 only R16, pile only with a meld R34).

        Raises
        ------
        ValueError
            Unknown name; the message lists the allowed names.
        """
        if name == "default":
            return cls()
        if name == "fibur_italian":
            return cls(semi_clean_bonus=150)
        if name == "fibur_international":
            return cls(require_clean_burraco_to_close=True, set_ranks=("A", "3"),
                       take_pile_requires_meld=True)
        raise ValueError(f"rules: unknown preset {name!r}; allowed: {', '.join(PRESETS)}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rules":
        """Build from a mapping of option names to values (see :meth:`to_dict`).

        Options not in ``data`` take their defaults.

        Raises
        ------
        ValueError
            ``data`` is not a mapping, names an unknown option, or holds an
            invalid value.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"rules: expected a mapping of option names to values, got {data!r}")
        cls._check_names(data)
        return cls(**data)

    def replace(self, **changes: Any) -> "Rules":
        """Copy with some options changed (validated like the constructor).

        Raises
        ------
        ValueError
            Unknown option name or invalid value.
        """
        self._check_names(changes)
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse_assignment(cls, text: str) -> tuple:
        """Parse ``"option=value"`` as typed on the command line (``--rule``).

        Booleans are ``true``/``false`` (also ``yes``/``no``, ``1``/``0``),
        integers are decimal, ``semi_clean_bonus`` also takes ``none``/``off``,
        ``set_ranks`` is a comma-separated list of ranks (``A,3``), string
        options take their value as written.

        Returns
        -------
        tuple
            ``(option, value)`` with the value converted to the option's
            type (it is validated when a :class:`Rules` is built).

        Raises
        ------
        ValueError
            No ``=``, an unknown option, or a value of the wrong type; the
            one-line message names the option and what is allowed.
        """
        if not isinstance(text, str) or "=" not in text:
            raise ValueError(f"rule: expected OPTION=VALUE (e.g. target_score=1505), got {text!r}")
        name, raw = (part.strip() for part in text.split("=", 1))
        cls._check_names([name])
        default = getattr(cls(), name)
        low = raw.lower()
        if isinstance(default, bool):
            table = {"true": True, "yes": True, "1": True, "on": True,
                     "false": False, "no": False, "0": False, "off": False}
            if low not in table:
                _fail(name, "true or false", raw)
            return name, table[low]
        if name == "set_ranks":
            return name, tuple(r for r in raw.replace(" ", ",").split(",") if r)
        if name == "semi_clean_bonus" and low in ("none", "null", "off", ""):
            return name, None
        if isinstance(default, int) or name == "semi_clean_bonus":
            try:
                return name, int(raw)
            except ValueError:
                _fail(name, "an integer", raw)
        return name, raw

    @classmethod
    def _check_names(cls, names: Iterable[str]) -> None:
        known = cls.options()
        for key in names:
            if key not in known:
                raise ValueError(f"rules: unknown option {key!r}; allowed: {', '.join(known)}")

    @classmethod
    def options(cls) -> tuple:
        """Option names in RULES.md section 14 order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    # ------------------------------------------------------------ export
    def to_dict(self) -> dict:
        """JSON-friendly mapping of every option name to its value.

        ``set_ranks`` becomes a list of rank names in rank order.
        """
        d = {name: getattr(self, name) for name in self.options()}
        d["set_ranks"] = list(self.set_ranks)
        return d

    def command_options(self) -> list:
        """The options of the ``burraco`` command that give this rule set, as a list of
        arguments: ``--rules PRESET`` (the preset closest to it, left out for
        ``default``), ``--players N`` (left out for 4), then ``--rule OPTION=VALUE`` for
        every other option that differs from that preset, in the order of
        :meth:`options` (the inverse of :meth:`parse_assignment`).

        Returns
        -------
        list of str
            Empty for the default rules.
        """
        best = None
        for name in PRESETS:
            base = Rules.preset(name).replace(num_players=self.num_players)
            changed = [k for k in self.options()
                       if k != "num_players" and getattr(self, k) != getattr(base, k)]
            if best is None or len(changed) < len(best[1]):
                best = (name, changed)
        name, changed = best
        args = [] if name == "default" else ["--rules", name]
        if self.num_players != 4:
            args += ["--players", str(self.num_players)]
        for k in changed:
            v = getattr(self, k)
            text = ("true" if v else "false") if isinstance(v, bool) else \
                ",".join(v) if isinstance(v, tuple) else "none" if v is None else str(v)
            args += ["--rule", f"{k}={text}"]
        return args

    def to_vector(self) -> np.ndarray:
        """Pack the options into the kernels' rules vector.

        Returns
        -------
        numpy.ndarray
            ``int64[kernels.core.layout.N_RULES]`` indexed by ``RV_*``: booleans as
            0/1, ``set_ranks`` as a bitmask (bit r for rank r, 0 = ace ..
            12 = king), string options as the index of their value in
            :data:`ENUMS`, ``semi_clean_bonus`` None as 0.
        """
        v = np.zeros(L.N_RULES, np.int64)
        v[L.RV_NUM_PLAYERS] = self.num_players
        v[L.RV_HAND_SIZE] = self.hand_size
        v[L.RV_POZZETTO_SIZE] = self.pozzetto_size
        v[L.RV_SET_RANKS_MASK] = sum(1 << _RANK_INDEX[r] for r in self.set_ranks)
        v[L.RV_ALLOW_DUPLICATE_SET_RANK] = self.allow_duplicate_set_rank
        v[L.RV_LOCK_TWO_ROLES] = self.lock_two_roles
        v[L.RV_SEMI_CLEAN_BONUS] = self.semi_clean_bonus or 0
        v[L.RV_SEMI_CLEAN_RULE] = ENUMS["semi_clean_rule"].index(self.semi_clean_rule)
        v[L.RV_EXTRA_BURRACO_CLASSES] = self.extra_burraco_classes
        v[L.RV_TAKE_PILE_REQUIRES_MELD] = self.take_pile_requires_meld
        v[L.RV_FORBID_REDISCARD_SINGLE_PILE] = self.forbid_rediscard_single_pile
        v[L.RV_REQUIRE_CLEAN_BURRACO_TO_CLOSE] = self.require_clean_burraco_to_close
        v[L.RV_STOCK_RESERVE] = self.stock_reserve
        v[L.RV_STOCK_END_MODE] = ENUMS["stock_end_mode"].index(self.stock_end_mode)
        v[L.RV_STALL_TURN_LIMIT] = self.stall_turn_limit
        v[L.RV_MAX_TURNS_PER_HAND] = self.max_turns_per_hand
        v[L.RV_UNTAKEN_POZZETTO_AS_STOCK] = self.untaken_pozzetto_as_stock
        v[L.RV_CLEAN_BONUS] = self.clean_bonus
        v[L.RV_DIRTY_BONUS] = self.dirty_bonus
        v[L.RV_CLOSING_BONUS] = self.closing_bonus
        v[L.RV_POZZETTO_PENALTY] = self.pozzetto_penalty
        v[L.RV_TARGET_SCORE] = self.target_score
        v[L.RV_PILE_CLOSE_NO_BONUS] = self.pile_close_no_bonus
        v[L.RV_PILE_MELD_SOURCE] = ENUMS["pile_meld_source"].index(self.pile_meld_source)
        v[L.RV_THREE_PLAYER_MODE] = ENUMS["three_player_mode"].index(self.three_player_mode)
        v[L.RV_THREE_PLAYER_POZZETTO_A_SIZE] = self.three_player_pozzetto_a_size
        v[L.RV_THREE_PLAYER_PAIR_SHARE] = ENUMS["three_player_pair_share"].index(
            self.three_player_pair_share)
        v[L.RV_THREE_PLAYER_SWITCH_AT] = self.three_player_switch_at
        v[L.RV_THREE_PLAYER_TARGET] = self.three_player_target
        return v

    def check_supported(self) -> None:
        """Refuse options the game kernels do not implement.

        Every option of RULES.md section 14 is implemented (issue 7), so this
        accepts every valid rule set; it stays as the one place the runner,
        replay and the deal ask.

        Raises
        ------
        ValueError
            Never, at present.
        """
        return None
