"""Strategy registry: names, policy kinds and tunable parameters.

A strategy enters the kernels as a policy kind (int, see
:mod:`kernels.core.layout`) plus one ``float64[N_PARAMS]`` parameter row per
seat; sweeping a parameter needs no recompilation.  A seat may instead play
a strategy written in Python (``FILE.py:CLASS``, ``MODULE:CLASS``, a class
or an object with ``choose``: :mod:`sim.pystrategy`); :func:`resolve_seat`
takes both, :func:`resolve` built-in specs only.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kernels.core import layout as L
from kernels.core.layout import (HP_CLOSE_MIN_BURRACOS, HP_DISCARD_W_DANGER, HP_DISCARD_W_MIDDLE,
                            HP_DISCARD_W_NEIGHBOR, HP_DISCARD_W_PAIR, HP_DISCARD_W_POINTS,
                            HP_DISCARD_W_WILD, HP_PILE_AVOID_OPP_2_OR_5, HP_PILE_MIN_SIZE,
                            HP_PILE_MIN_STOCK, HP_PILE_SIZE_WEIGHT, HP_PILE_THRESHOLD,
                            HP_MELD_DELAY_ROUNDS, HP_PILE_W_WILD, HP_SET_BIAS,
                            HP_USE_WILD_TO_MELD,
                            HP_WILD_LAYOFF_MIN_LEN)

from . import compiling


@dataclass(frozen=True)
class Strategy:
    """A named strategy: a policy kind and its documented parameters."""

    name: str
    kind: int
    doc: str
    params: dict = field(default_factory=dict)       # name -> (slot, default, doc)
    limits: dict = field(default_factory=dict)       # name -> (lowest, highest, whole number)

    def vector(self, overrides: dict | None = None) -> np.ndarray:
        """Parameter row, ``float64[N_PARAMS]``, defaults with ``overrides``.

        Raises
        ------
        ValueError
            An override names an unknown parameter (the message lists the
            allowed ones).
        """
        v = np.zeros(L.N_PARAMS, np.float64)
        for _name, (slot, default, _doc) in self.params.items():
            v[slot] = default
        for key, value in (overrides or {}).items():
            if key not in self.params:
                allowed = ", ".join(sorted(self.params)) or "none"
                raise ValueError(
                    f"strategy {self.name!r} has no parameter {key!r}; allowed: {allowed}")
            lo, hi, whole = self.limits.get(key, (-1e9, 1e9, False))
            value = float(value)
            if not lo <= value <= hi or (whole and not value.is_integer()):
                kind = "a whole number" if whole else "a number"
                raise ValueError(f"strategy {self.name!r}: {key} must be {kind} in "
                                 f"{lo:g}..{hi:g}, got {value:g}")
            v[self.params[key][0]] = value
        return v


# allowed values of the heuristic's parameters: (lowest, highest, whole number only)
HEURISTIC_LIMITS = {
    "pile_size_weight": (-100, 100, False), "pile_threshold": (0, 1000, False),
    "use_wild_to_meld": (0, 1, True), "wild_layoff_min_len": (0, 99, True),
    "discard_w_pair": (-1000, 1000, False), "discard_w_neighbor": (-1000, 1000, False),
    "discard_w_danger": (-1000, 1000, False), "discard_w_points": (-100, 100, False),
    "discard_w_wild": (-1000, 1000, False), "pile_w_wild": (-100, 100, False),
    "pile_min_size": (0, 108, True), "pile_min_stock": (0, 108, True),
    "pile_avoid_opp_2_or_5": (0, 1, True), "close_min_burracos": (0, 20, True),
    "set_bias": (-14, 14, False), "discard_w_middle": (-1000, 1000, False),
    "meld_delay_rounds": (0, 100, True),
}

HEURISTIC = Strategy(
    name="heuristic",
    kind=L.POLICY_HEURISTIC,
    doc=("A sensible club player: melds what it can while keeping a legal discard, "
         "lays off on its team's melds, takes the discard pile when its cards help, "
         "heads for the pozzetto, closes as soon as it may, and discards the card "
         "least useful to it and least useful to the next opponent."),
    params={
        "pile_size_weight": (HP_PILE_SIZE_WEIGHT, 0.25,
                             "value of each card of the discard pile when deciding to take it "
                             "(points of the decision score per card)"),
        "pile_threshold": (HP_PILE_THRESHOLD, 1.0,
                           "take the pile when some card of it is usable and (usable cards, 1 "
                           "each, wilds pile_w_wild) + pile_size_weight * pile size reaches this "
                           "score (so values up to 1 + pile_size_weight all take any pile with a "
                           "usable card)"),
        "use_wild_to_meld": (HP_USE_WILD_TO_MELD, 1.0,
                             "1: use a wild to open a meld from two naturals; 0: never"),
        "wild_layoff_min_len": (HP_WILD_LAYOFF_MIN_LEN, 6.0,
                                "lay a wild off on a meld only when the meld has at least this many "
                                "cards (6: only to make a burraco)"),
        "discard_w_pair": (HP_DISCARD_W_PAIR, 3.0,
                           "keep-value of a card per other card of its rank in hand"),
        "discard_w_neighbor": (HP_DISCARD_W_NEIGHBOR, 2.0,
                               "keep-value of a card per same-suit card within two ranks"),
        "discard_w_danger": (HP_DISCARD_W_DANGER, 6.0,
                             "penalty for discarding a card the next opponent can lay off "
                             "on its team's melds"),
        "discard_w_points": (HP_DISCARD_W_POINTS, 0.05,
                             "preference for discarding high-value cards (per point)"),
        "discard_w_wild": (HP_DISCARD_W_WILD, 20.0,
                           "keep-value of a wild (joker or two)"),
        "pile_w_wild": (HP_PILE_W_WILD, 1.0,
                        "extra decision score per wild in the discard pile"),
        "pile_min_size": (HP_PILE_MIN_SIZE, 0.0,
                          "never take a discard pile of fewer cards than this (cards; 0: no limit)"),
        "pile_min_stock": (HP_PILE_MIN_STOCK, 0.0,
                           "never take the discard pile once the stock has fewer cards than this "
                           "(cards; the stage of the hand; 0: no limit)"),
        "pile_avoid_opp_2_or_5": (HP_PILE_AVOID_OPP_2_OR_5, 0.0,
                                  "1: never take the discard pile while an opponent holds 2 or 5 "
                                  "cards (the players' saying); 0: ignore opponents' hand sizes"),
        "close_min_burracos": (HP_CLOSE_MIN_BURRACOS, 0.0,
                               "keep building: never go down to the closing card before the "
                               "team has this many burracos (0: close as soon as allowed)"),
        "set_bias": (HP_SET_BIAS, 0.0,
                     "runs versus sets: a set of k cards is preferred to a run of up to "
                     "k + set_bias cards (cards; negative prefers runs)"),
        "discard_w_middle": (HP_DISCARD_W_MIDDLE, 0.0,
                             "keep-value of a 5, 6, 7, 8 or 9 (middle ranks join more runs; "
                             "negative: discard them first)"),
        "meld_delay_rounds": (HP_MELD_DELAY_ROUNDS, 0.0,
                              "keeping cards back: open no new meld in the hand's first rounds "
                              "(rounds of four turns; lay-offs still allowed; 0: lay down at once)"),
    },
    limits=HEURISTIC_LIMITS,
)

# the heuristic with values found by paired comparisons against it (burraco compare,
# 20,000 deals of seeds 100 and 200, one parameter at a time); validated on other seeds
EXPERT_VALUES = {"discard_w_danger": 0.0, "discard_w_points": -0.1, "wild_layoff_min_len": 99.0}

EXPERT = Strategy(
    name="expert",
    kind=L.POLICY_HEURISTIC,
    doc=("The heuristic tuned by paired comparisons: discards its least useful card even "
         "when the next opponent can use it, keeps high cards (worth more once melded) and "
         "lets low ones go, and lays a wild on a clean meld only to go out. Same "
         "parameters as heuristic, other defaults."),
    params={k: (slot, EXPERT_VALUES.get(k, default), doc)
            for k, (slot, default, doc) in HEURISTIC.params.items()},
    limits=HEURISTIC_LIMITS,
)

# the heuristic tuned by CMA-ES for each rule preset (burraco tune, issue 18): the strategy
# files in sim/tuned/ (usable with --strategy-file), validated against expert on deals the
# search never saw (docs/tune.md)
TUNED_DIR = Path(__file__).with_name("tuned")
TUNED_PRESETS = ("default", "fibur_italian", "fibur_international")


def _tuned(preset: str) -> Strategy:
    """The ``tuned_<preset>`` strategy: the heuristic with the values of its strategy file."""
    import tomllib
    path = TUNED_DIR / f"tuned_{preset}.toml"
    with open(path, "rb") as f:
        table = tomllib.load(f)["all"]
    if table.get("name") != "heuristic" or set(table) - {"name"} != set(HEURISTIC.params):
        raise ValueError(f"{path}: expected [all] with name = \"heuristic\" and every "
                         "parameter of the heuristic")
    HEURISTIC.vector({k: table[k] for k in HEURISTIC.params})   # inside the documented ranges
    params = {k: (slot, float(table[k]), doc) for k, (slot, _d, doc) in HEURISTIC.params.items()}
    strat = Strategy(
        name=f"tuned_{preset}", kind=L.POLICY_HEURISTIC,
        doc=(f"The heuristic tuned by CMA-ES for the {preset} rules (burraco tune, "
             f"sim/tuned/tuned_{preset}.toml; docs/tune.md). Same parameters as heuristic, "
             "other defaults."),
        params=params, limits=HEURISTIC_LIMITS)
    return strat


TUNED = tuple(_tuned(p) for p in TUNED_PRESETS)

RANDOM = Strategy(
    name="random",
    kind=L.POLICY_RANDOM,
    doc="Uniform over legal choices at every decision (pickup, each meld-phase action "
        "or stopping, discard).",
    params={},
)

UNIFORM = Strategy(
    name="uniform",
    kind=L.POLICY_UNIFORM,
    doc="Uniform over the legal actions of the action space at every decision (any meld of "
        "any length, each lay-off, ending the meld phase, each discard by face): the step "
        "API's masked-uniform baseline.",
    params={},
)

# the rollout strategy's search parameters (slots after the heuristic's 0..16, as in
# kernels.search.player.RP_*): name -> (slot, default, doc), and their limits
ROLLOUT_SEARCH = {
    "worlds": (17, 32.0, "sampled worlds per searched decision (each candidate is rolled out "
                        "on every world: common random numbers)"),
    "rollouts": (18, 400.0, "rollout budget per decision: the worlds are cut to rollouts // "
                           "candidates (at least 1); 0: no budget"),
    "search_pickup": (19, 1.0, "1: search the pickup (draw or take the pile); 0: the base "
                               "policy's"),
    "search_discard": (20, 1.0, "1: search the discard; 0: the base policy's"),
    "search_meld": (21, 0.0, "1: search every meld-phase decision (each new meld, lay-off or "
                             "the end of the meld phase); 0: the base policy's"),
    "max_candidates": (22, 12.0, "at most this many candidates per decision: the base "
                                 "policy's choice, then (discards) the cards it least wants "
                                 "to keep"),
    "margin": (23, 0.0, "leave the base policy's choice only when the best candidate's mean "
                        "gain over it exceeds this many standard errors of the paired "
                        "difference (0: the best mean wins)"),
}
ROLLOUT_LIMITS = {"worlds": (1, 1000, True), "rollouts": (0, 100000, True),
                  "search_pickup": (0, 1, True), "search_discard": (0, 1, True),
                  "search_meld": (0, 1, True), "max_candidates": (2, 16308, True),
                  "margin": (0, 10, False)}
ROLLOUT_KIND = -1        # resolved to the search callback's address in this process (resolve)

ROLLOUT = Strategy(
    name="rollout",
    kind=ROLLOUT_KIND,
    doc=("Flat Monte Carlo search (kernels.search.player): at the pickup and the discard it tries "
         "each candidate on sampled worlds consistent with what its seat knows, plays each "
         "out with the base policy on every seat, and keeps the best mean result; elsewhere "
         "it plays as the base policy: the heuristic with these parameters, expert's by "
         "default."),
    params={**EXPERT.params, **ROLLOUT_SEARCH},
    limits={**HEURISTIC_LIMITS, **ROLLOUT_LIMITS},
)

STRATEGIES = {s.name: s for s in (HEURISTIC, EXPERT, *TUNED, RANDOM, UNIFORM, ROLLOUT)}
BUILT_IN = frozenset(STRATEGIES)
_CALLBACKS = {}          # name -> the compiled callback of a registered chooser (kept alive)
#: strategies registered on first use: name -> (one-line doc, a function that registers it);
#: :func:`get` calls it (so every process, forked or not, resolves the name)
LAZY = {}


def register(name: str, chooser, params: dict | None = None, doc: str = "") -> Strategy:
    """Make a Numba chooser a named strategy of this process (issue 13).

    ``chooser`` is an ``@njit`` function ``choose(work) -> int64`` (the
    interface of :mod:`kernels.strategies.api`); it is compiled once as a C callback and
    runs inside the parallel batch kernel, so ``name`` works wherever a
    strategy spec does (``simulate``, ``compare``, ``replay``, ``sim.Game``)
    in this process.  Registering a name again replaces it.

    Parameters
    ----------
    name : str
        The strategy's name: letters, digits and ``_``, not a built-in name.
    chooser : numba dispatcher
        The ``@njit`` chooser.
    params : dict, optional
        ``{parameter: default}`` (at most ``N_PARAMS`` = 24, floats): the
        chooser reads them from its seat's row ``params[seat]`` in the order
        given; a spec ``"name:p=v"`` overrides one.
    doc : str
        One line for the strategy list.

    Returns
    -------
    Strategy

    Raises
    ------
    ValueError
        A bad name or parameter list, or a chooser that is not an ``@njit``
        function; Numba's typing error when the chooser does not compile for
        the interface.
    """
    import re
    from kernels.strategies.api import chooser_cfunc
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"register: name must be letters, digits and _, got {name!r}")
    if name in BUILT_IN:
        raise ValueError(f"register: {name!r} is a built-in strategy; choose another name")
    if not hasattr(chooser, "py_func"):
        raise ValueError("register: chooser must be an @njit function choose(work) -> int")
    params = dict(params or {})
    if len(params) > L.N_PARAMS:
        raise ValueError(f"register: at most {L.N_PARAMS} parameters, got {len(params)}")
    with compiling.announce(f"the chooser {name} as a C callback",
                            note="once per process; the chooser's code may be cached"):
        callback = chooser_cfunc(chooser)
    table = {p: (slot, float(default), "") for slot, (p, default) in enumerate(params.items())}
    strat = Strategy(name, int(callback.address), doc or f"registered Numba chooser {name}",
                     table)
    _CALLBACKS[name] = callback
    STRATEGIES[name] = strat
    return strat


def is_registered(kind: int) -> bool:
    """Whether a policy kind is a C callback's address of this process (a registered
    chooser's, or the ``rollout`` search's), not a kernel's built-in kind."""
    return int(kind) not in (L.POLICY_HEURISTIC, L.POLICY_RANDOM, L.POLICY_UNIFORM)


def names() -> list[str]:
    """Every strategy name of this process, sorted: the built-in ones, the peer bots
    compiled on first use (:data:`LAZY`) and the registered Numba choosers; the list
    that errors give as the allowed names."""
    return sorted({*STRATEGIES, *LAZY})


def get(name: str) -> Strategy:
    """Look a strategy up by name.

    Raises
    ------
    ValueError
        Unknown name; the message lists the allowed names.
    """
    if name not in STRATEGIES and name in LAZY:
        LAZY[name][1]()
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"strategy: unknown name {name!r}; allowed: {', '.join(names())}, "
                         "or a Python strategy FILE.py:CLASS or MODULE:CLASS") from None


def resolve(spec: str) -> tuple[str, int, np.ndarray]:
    """Parse ``"name"`` or ``"name:p=v,q=w"`` into (name, kind, params row).

    Returns
    -------
    name : str
        The canonical spec (:func:`canonical_spec`): ``"heuristic"`` for
        ``"heuristic:pile_threshold=1"`` (the default value), parameters sorted.
    kind : int
        Policy kind (``kernels.core.layout.POLICY_*``).
    params : numpy.ndarray
        ``float64[N_PARAMS]``.

    Raises
    ------
    ValueError
        Unknown name or parameter, a value that is not a number, or a Python
        strategy (:mod:`sim.pystrategy`; see :func:`resolve_seat`).
    """
    strat, overrides, vector = _parse(spec)
    return canonical_spec(strat, overrides), _kind(strat), vector


def _parse(spec) -> tuple:
    """``(Strategy, {parameter: value}, float64[N_PARAMS])`` of a built-in spec; raises
    ``ValueError`` (a Python spec, an unknown name or parameter, a bad value)."""
    from .pystrategy import is_python_spec
    if not isinstance(spec, str):
        raise ValueError(f"strategy: expected a spec string, got {spec!r}")
    if is_python_spec(spec):
        raise ValueError(f"strategy {spec.strip()!r} is a Python strategy (FILE.py:CLASS or "
                         "MODULE:CLASS); only built-in strategies are accepted here")
    name, _, rest = spec.partition(":")
    strat = get(name.strip())
    overrides = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            if not eq:
                raise ValueError(f"strategy: expected name=value in {item!r}")
            if key.strip() in overrides:
                raise ValueError(f"strategy: parameter {key.strip()!r} given twice in {spec!r}")
            try:
                number = float(val)
            except ValueError:
                number = float("nan")
            if not np.isfinite(number):
                raise ValueError(
                    f"strategy: parameter {key.strip()!r} needs a finite number, got {val.strip()!r}")
            overrides[key.strip()] = number
    return strat, overrides, strat.vector(overrides)      # vector validates the names


def check_spec(what: str, spec) -> None:
    """Check a strategy spec's name and parameters without compiling anything for it.

    A Python strategy (``FILE.py:CLASS``, ``MODULE:CLASS``) passes: it is loaded where it
    is used.  Raises ``ValueError`` beginning with ``what: `` (the option that gave it).
    """
    from .pystrategy import is_python_spec
    if isinstance(spec, str) and is_python_spec(spec):
        return
    try:
        _parse(spec)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def resolve_for(what: str, spec) -> tuple[str, int, np.ndarray]:
    """:func:`resolve` of the spec given as ``what`` (a parameter, or the option that
    gave it): its errors begin with ``what: ``, e.g. ``base: strategy 'heuristic' has no
    parameter 'x'``."""
    try:
        return resolve(spec)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _kind(strat: Strategy) -> int:
    """A strategy's policy kind; for ``rollout`` the address of the search's C callback
    (compiled, or loaded from Numba's cache, at its first use in the process)."""
    if strat.kind != ROLLOUT_KIND:
        return strat.kind
    if "kernels.search.player" not in sys.modules:         # importing it compiles the callback
        with compiling.announce("the search player rollout",
                                compiling.cold("search.player.rollout_callback")):
            import kernels.search.player  # noqa: F401  (compiles or loads the callback)
    from kernels.search.player import rollout_callback
    return int(rollout_callback.address)


def resolve_seat(value) -> tuple:
    """One seat's strategy: a built-in spec, or a Python strategy (a spec string
    ``FILE.py:CLASS`` / ``MODULE:CLASS``, a class or an object with ``choose``).

    Returns
    -------
    tuple
        ``(name, kind, params, python)``: as :func:`resolve` for a built-in spec
        (``python`` None); for a Python strategy its spec string, the kind and
        parameter row of ``heuristic`` (never used: the seat is played through
        ``sim.Game``) and its :class:`sim.pystrategy.PythonStrategy`.

    Raises
    ------
    ValueError
        As :func:`resolve`, or a Python strategy that does not load
        (:class:`sim.pystrategy.StrategyError`).
    """
    from .pystrategy import as_python
    python = as_python(value)
    if python is None:
        return (*resolve(value), None)
    return python.spec, HEURISTIC.kind, HEURISTIC.vector(), python


def name_of(value) -> str:
    """The name a seat's strategy gets in records: the canonical spec of a built-in
    strategy, the spec string of a Python one (ValueError as :func:`resolve_seat`)."""
    return resolve_seat(value)[0]


def _is_strategy_object(value) -> bool:
    from .pystrategy import PythonStrategy
    return not isinstance(value, (str, list, tuple, dict)) and (
        isinstance(value, PythonStrategy) or callable(getattr(value, "choose", None)))


def canonical_spec(strat: Strategy, overrides: dict) -> str:
    """``name`` or ``name:p=v,...`` listing, sorted, only the parameters that
    differ from their defaults (so equal strategies get equal specs)."""
    changed = sorted((k, v) for k, v in overrides.items() if v != strat.params[k][1])
    if not changed:
        return strat.name
    return strat.name + ":" + ",".join(f"{k}={v:g}" for k, v in changed)


SEAT_KEYS = ("all", "team0", "team1", "seat0", "seat1", "seat2", "seat3")


def seat_specs(assignment) -> list[str]:
    """The strategy spec of each seat 0..3 from a strategy assignment.

    Parameters
    ----------
    assignment : str, sequence of 4, or dict
        One spec for every seat; four specs for seats 0..3; or a dict with
        keys from :data:`SEAT_KEYS` (``all``, then ``team0`` = seats 0 and 2
        and ``team1`` = seats 1 and 3, then ``seat0``..``seat3``; later keys
        override earlier ones; unassigned seats play ``heuristic``).  A dict
        value is a spec string or a dict ``{"name": ..., param: value, ...}``
        (as in a TOML strategy file, :func:`load_file`).  Wherever a spec
        string goes, a Python strategy may go too: a spec ``FILE.py:CLASS``
        or ``MODULE:CLASS``, a class or an object with ``choose``
        (:mod:`sim.pystrategy`).

    Returns
    -------
    list
        Four specs (or strategy objects), not yet validated
        (:func:`resolve_seat` does that).

    Raises
    ------
    ValueError
        An assignment of the wrong shape or an unknown key (the message lists
        the allowed keys).
    """
    if isinstance(assignment, str) or _is_strategy_object(assignment) \
            or isinstance(assignment, type):
        return [assignment] * 4
    if isinstance(assignment, (list, tuple)):
        if len(assignment) == 4:
            for seat, value in enumerate(assignment):
                if not (isinstance(value, (str, type)) or _is_strategy_object(value)):
                    raise ValueError(f"strategies: seat {seat} is {_not_a_strategy(value)}")
            return list(assignment)
        raise ValueError("strategies: a list needs 4 specs, one per seat 0..3; "
                         f"got {assignment!r}")
    if isinstance(assignment, dict):
        unknown = sorted(set(assignment) - set(SEAT_KEYS))
        if unknown:
            raise ValueError(f"strategies: unknown key {unknown[0]!r}; allowed: "
                             f"{', '.join(SEAT_KEYS)}")
        seats = [HEURISTIC.name] * 4
        targets = {"all": (0, 1, 2, 3), "team0": (0, 2), "team1": (1, 3),
                   "seat0": (0,), "seat1": (1,), "seat2": (2,), "seat3": (3,)}
        for key in SEAT_KEYS:
            if key in assignment:
                spec = _spec_of(key, assignment[key])
                for s in targets[key]:
                    seats[s] = spec
        return seats
    raise ValueError("strategies must be a spec (str), a strategy object, 4 of them (one per "
                     f"seat) or a dict with keys {', '.join(SEAT_KEYS)}; got "
                     f"{_not_a_strategy(assignment)}")


def _not_a_strategy(value) -> str:
    """What a value that is no strategy is, for an error message."""
    if isinstance(value, (int, float, bool, list, tuple, dict, type(None))):
        return repr(value)
    return (f"a {type(value).__name__} object without a choose(observation, legal_actions) "
            "method: not a strategy")


def _spec_of(key: str, value) -> str:
    if isinstance(value, (str, type)) or _is_strategy_object(value):
        return value
    if isinstance(value, dict):
        if not isinstance(value.get("name"), str):
            raise ValueError(f"strategies: {key} needs a 'name' (one of {', '.join(names())}, "
                             "or a Python strategy FILE.py:CLASS or MODULE:CLASS)")
        params = []
        for k, v in value.items():
            if k == "name":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ValueError(f"strategies: {key}.{k} needs a number, got {v!r}")
            params.append(f"{k}={v!r}")
        return value["name"] + (":" + ",".join(params) if params else "")
    raise ValueError(f"strategies: {key} needs a spec string, a table or a strategy object, "
                     f"got {_not_a_strategy(value)}")


def load_file(path) -> list[str]:
    """The four seat specs of a TOML strategy file.

    The file assigns strategies with the keys of :data:`SEAT_KEYS`, each a
    spec string or a table with ``name`` and parameter values::

        team1 = "heuristic"

        [team0]
        name = "heuristic"
        pile_threshold = 3

    Raises
    ------
    ValueError
        The file cannot be read or parsed, or an unknown key or value.
    """
    import tomllib

    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as exc:
        raise ValueError(f"strategy file {str(path)!r}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"strategy file {str(path)!r}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"strategy file {str(path)!r}: not a text (UTF-8) TOML file") from None
    return seat_specs(doc)
