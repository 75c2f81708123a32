"""Rule-set configuration: the options of docs/RULES.md (its section Options) and the presets.

A :class:`Rules` value is immutable and validated when it is built; it enters
the kernels as the integer vector of :meth:`Rules.to_vector` (slots
``kernels.core.layout.RV_*``), so one compiled game loop serves every rule set.
"""
from __future__ import annotations

import dataclasses
import functools
import textwrap
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from kernels.core import layout as L
from kernels.core import options as O

#: Rank names by rank index (0 = ace .. 12 = king), as used by ``set_ranks``.
RANK_NAMES = O.RANK_NAMES
_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
_RANK_INDEX["T"] = 9

#: Every rank that may form a set by default (R16: any rank except 2).
ALL_SET_RANKS = O.BY_NAME["set_ranks"].default

#: String-valued options and their allowed values, in kernel code order
#: (the position of a value is the integer stored in the rules vector).
ENUMS = {o.name: o.choices for o in O.OPTIONS if o.kind == "choice"}

#: Names accepted by :meth:`Rules.preset`.
PRESETS = ("default", "fibur_italian", "fibur_international")


#: What each preset changes from the default of :data:`kernels.core.options.OPTIONS`.
PRESET_CHANGES = {
    "default": {},
    "fibur_italian": {"semi_clean_bonus": 150},
    "fibur_international": {"require_clean_burraco_to_close": True, "set_ranks": ("A", "3"),
                            "take_pile_requires_meld": True},
}
assert tuple(PRESET_CHANGES) == PRESETS and all(
    set(c) <= set(O.BY_NAME) for c in PRESET_CHANGES.values())

_ANNOTATION = {"int": "int", "bool": "bool", "choice": "str", "ranks": "tuple",
               "int_or_off": "int | None"}


def _fail(name: str, allowed: str, value: Any) -> None:
    raise ValueError(f"rules: {name} must be {allowed}, got {value!r}")


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    _fail(name, "true or false", value)


def _as_int(name: str, value: Any, lo: int, hi: int, step: int = 1, off: str = "") -> int:
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if ok:
        value = int(value)
        ok = lo <= value <= hi and value % step == 0
    if not ok:
        what = f"{off}an integer in {lo}..{hi}"
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


def _checked(o: O.Option, value: Any) -> Any:
    """``value`` of option ``o`` validated and normalised, by the option's kind."""
    if o.kind == "bool":
        return _as_bool(o.name, value)
    if o.kind == "choice":
        return _as_choice(o.name, value)
    if o.kind == "ranks":
        return _as_ranks(o.name, value)
    if o.kind == "int_or_off":
        return None if value is None else _as_int(o.name, value, o.lo, o.hi, o.step,
                                                  off="off (None) or ")
    return _as_int(o.name, value, o.lo, o.hi, o.step)


def _encoded(o: O.Option, value: Any) -> int:
    """The rules-vector integer of a valid ``value`` of option ``o``."""
    if o.kind == "choice":
        return o.choices.index(value)
    if o.kind == "ranks":
        return sum(1 << _RANK_INDEX[r] for r in value)
    return int(value or 0)


def _decoded(o: O.Option, number: int) -> Any:
    """The option value of a rules-vector integer (the inverse of :func:`_encoded`)."""
    number = int(number)
    if o.kind == "choice":
        return o.choices[number]
    if o.kind == "ranks":
        return tuple(RANK_NAMES[r] for r in range(13) if number >> r & 1)
    if o.kind == "bool":
        return bool(number)
    if o.kind == "int_or_off":
        return number or None
    return number


def _attributes() -> str:
    """The Attributes section of :class:`Rules`' docstring, from the table of the options."""
    lines = []
    for o in O.OPTIONS:
        unit = f", in {o.unit}" if o.unit else ""
        text = (f"{o.doc[0].upper()}{o.doc[1:]} ({o.rule}){unit}: {o.allowed}.  "
                f"Default {O.default_text(o)}.")
        lines += [f"    {o.name} : {_ANNOTATION[o.kind]}",
                  textwrap.fill(text, 78, initial_indent=" " * 8, subsequent_indent=" " * 8)]
    return "\n".join(lines)


def _declare_options(cls: type) -> type:
    """Give ``cls`` one field per row of :data:`kernels.core.options.OPTIONS`, in table order,
    with its default, and document them in its docstring."""
    cls.__annotations__ = {o.name: _ANNOTATION[o.kind] for o in O.OPTIONS}
    for o in O.OPTIONS:
        setattr(cls, o.name, o.default)
    cls.__doc__ = cls.__doc__.replace("    {attributes}", _attributes())
    return cls


@dataclass(frozen=True)
@_declare_options
class Rules:
    """One Burraco rule set (the options of docs/RULES.md).

    Build with keyword arguments (every option has the default of the
    ``default`` preset), with :meth:`preset`, :meth:`replace` or
    :meth:`from_dict`.  Every option is validated on construction.  The
    options are the rows of :data:`kernels.core.options.OPTIONS`.

    Attributes
    ----------
    {attributes}

    Raises
    ------
    ValueError
        On construction, an option of the wrong type or out of range; the
        one-line message names the option and its allowed values.
    """

    # ------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        for o in O.OPTIONS:
            object.__setattr__(self, o.name, _checked(o, getattr(self, o.name)))
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
        """Rule set of a named preset (the options of docs/RULES.md).

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
        if name in PRESET_CHANGES:
            return _preset(cls, name)
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
        kind = O.BY_NAME[name].kind
        low = raw.lower()
        if kind == "bool":
            table = {"true": True, "yes": True, "1": True, "on": True,
                     "false": False, "no": False, "0": False, "off": False}
            if low not in table:
                _fail(name, "true or false", raw)
            return name, table[low]
        if kind == "ranks":
            return name, tuple(r for r in raw.replace(" ", ",").split(",") if r)
        if kind == "int_or_off" and low in ("none", "null", "off", ""):
            return name, None
        if kind in ("int", "int_or_off"):
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
        """Option names in the order of the options of docs/RULES.md (the rows of
        :data:`kernels.core.options.OPTIONS`)."""
        return tuple(o.name for o in O.OPTIONS)

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
            args += ["--rule", f"{k}={O.typed(getattr(self, k))}"]
        return args

    def to_vector(self) -> np.ndarray:
        """Pack the options into the kernels' rules vector.

        Returns
        -------
        numpy.ndarray
            ``int64[kernels.core.layout.N_RULES]`` indexed by ``RV_*``: booleans as
            0/1, ``set_ranks`` as a bitmask (bit r for rank r, 0 = ace ..
            12 = king), string options as the index of their value in
            :data:`ENUMS`, ``semi_clean_bonus`` None as 0 (the encodings of
            :mod:`kernels.core.options`).
        """
        v = np.zeros(L.N_RULES, np.int64)
        for o in O.OPTIONS:
            v[o.slot] = _encoded(o, getattr(self, o.name))
        return v

    @classmethod
    def from_vector(cls, vector: np.ndarray) -> "Rules":
        """The rule set of a rules vector (the inverse of :meth:`to_vector`).

        Parameters
        ----------
        vector : numpy.ndarray
            ``int64[kernels.core.layout.N_RULES]`` indexed by ``RV_*``.

        Raises
        ------
        ValueError
            ``vector`` has the wrong length, or a slot holds a value the
            option does not allow.
        """
        vector = np.asarray(vector)
        if vector.shape != (L.N_RULES,):
            raise ValueError(f"rules: a rules vector has {L.N_RULES} slots, got shape "
                             f"{vector.shape}")
        values = {}
        for o in O.OPTIONS:
            if o.kind == "choice" and not 0 <= vector[o.slot] < len(o.choices):
                _fail(o.name, f"an index in 0..{len(o.choices) - 1}", int(vector[o.slot]))
            values[o.name] = _decoded(o, vector[o.slot])
        return cls(**values)

    def check_supported(self) -> None:
        """Refuse options the game kernels do not implement.

        Every option of docs/RULES.md is implemented, so this
        accepts every valid rule set; it stays as the one place the runner,
        replay and the deal ask.

        Raises
        ------
        ValueError
            Never, at present.
        """
        return None


@functools.lru_cache(maxsize=None)
def _preset(cls: type, name: str) -> Rules:
    """The preset ``name`` built (and validated) once per class: a rule set is immutable
    (frozen, every option an int, bool, str or tuple), so one object serves every call;
    reading and writing positions asks for each preset at every table."""
    return cls(**PRESET_CHANGES[name])
