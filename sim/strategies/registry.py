"""Strategy registry: names, policy kinds and tunable parameters.

A strategy enters the kernels as a policy kind (int, see
:mod:`kernels.core.layout`) plus one ``float64[N_PARAMS]`` parameter row per
seat; sweeping a parameter needs no recompilation.  A seat may instead play
a strategy written in Python (``FILE.py:CLASS``, ``MODULE:CLASS``, a class
or an object with ``choose``: :mod:`sim.strategies.pystrategy`); :func:`resolve_seat`
takes both, :func:`resolve` built-in specs only.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kernels.core import layout as L
from kernels.core.params import HEURISTIC_PARAMS, LEARNED_PARAMS, ROLLOUT_PARAMS

from sim._util import compiling
from sim.strategies import learned


@dataclass(frozen=True)
class Strategy:
    """A named strategy: a policy kind and its documented parameters."""

    name: str
    kind: int
    doc: str
    params: dict = field(default_factory=dict)       # name -> (slot, default, doc)
    limits: dict = field(default_factory=dict)       # name -> (lowest, highest, whole number)
    #: parameters the canonical spec always writes out, even at their defaults
    #: (:func:`canonical_spec`)
    named: tuple = ()

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


# allowed values of the heuristic's parameters: (lowest, highest, whole number only), from the
# table of its parameters (kernels.core.params.HEURISTIC_PARAMS)
HEURISTIC_LIMITS = {p.name: p.limits for p in HEURISTIC_PARAMS}

HEURISTIC = Strategy(
    name="heuristic",
    kind=L.POLICY_HEURISTIC,
    doc=("A sensible club player: melds what it can while keeping a legal discard, "
         "lays off on its team's melds, takes the discard pile when its cards help, "
         "heads for the pozzetto, closes as soon as it may, and discards the card "
         "least useful to it and least useful to the next opponent."),
    params={p.name: (p.slot, p.default, p.doc) for p in HEURISTIC_PARAMS},
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

# the heuristic tuned by CMA-ES for each rule preset (burraco tune): the strategy
# files in sim/strategies/tuned/ (usable with --strategy-file), validated against expert on deals the
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
             f"sim/strategies/tuned/tuned_{preset}.toml; docs/tune.md). Same parameters as heuristic, "
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
# kernels.search.player.RP_*), from their table (kernels.core.params.ROLLOUT_PARAMS):
# name -> (slot, default, doc), and their limits
ROLLOUT_SEARCH = {p.name: (p.slot, p.default, p.doc) for p in ROLLOUT_PARAMS}
ROLLOUT_LIMITS = {p.name: p.limits for p in ROLLOUT_PARAMS}
ROLLOUT_KIND = -1        # resolved to the search callback's address in this process (resolve)

ROLLOUT = Strategy(
    name="rollout",
    kind=ROLLOUT_KIND,
    doc=("Monte Carlo search (kernels.search.player): at the pickup and the discard it tries "
         "each candidate on sampled worlds consistent with what its seat knows, plays each "
         "out with the base policy on every seat, and keeps the best mean result; elsewhere "
         "it plays as the base policy: the heuristic with these parameters, expert's by "
         "default. halving=0 spreads the rollouts flat over the candidates, halving=1 by "
         "sequential halving (the better half of the candidates on twice the worlds, round "
         "after round)."),
    params={**EXPERT.params, **ROLLOUT_SEARCH},
    limits={**HEURISTIC_LIMITS, **ROLLOUT_LIMITS},
    # the budget's allocation is always named: records say which search played (the
    # default was the flat halving=0,worlds=32,rollouts=400 before sequential halving)
    named=("halving", "rollouts", "worlds"),
)

#: the learned player's settings (the ``weights`` slot is internal, set from ``model``)
LEARNED_SETTINGS = {p.name: (p.slot, p.default, p.doc) for p in LEARNED_PARAMS[1:]}
LEARNED_LIMITS = {p.name: p.limits for p in LEARNED_PARAMS[1:]}
LEARNED_KIND = -2        # resolved to the learned player's callback address in this process


@dataclass(frozen=True)
class LearnedStrategy(Strategy):
    """The ``learned`` strategy: its row is the heuristic's parameters (the meld phase and
    the hard rules) and, in the ``weights`` slot, the address of the network's weights
    loaded in this process (:mod:`sim.strategies.learned`); the spec's ``model`` option
    (a string: ``v1`` or a path) names the weights file."""

    def vector(self, overrides: dict | None = None) -> np.ndarray:
        """As :meth:`Strategy.vector`, with the weights of ``overrides["model"]`` (the
        newest shipped version of the default rules' line without it; the spec parser fills
        in the line of the run's rules, :func:`sim.strategies.specs.resolve`) loaded and their
        address in the row.

        Raises
        ------
        ValueError
            A bad parameter, or no such weights file (the message says how to train one).
        """
        rest = dict(overrides or {})
        model = rest.pop("model", None)
        v = Strategy.vector(self, rest)
        v[LEARNED_PARAMS[0].slot] = float(learned.address(None if model is None
                                                           else str(model)))
        return v


LEARNED = LearnedStrategy(
    name="learned",
    kind=LEARNED_KIND,
    doc=("A small network trained on the rollout search's valuations (sim.strategies.learned, "
         "kernels.strategies.learned): at the pickup and the discard it plays the action the "
         "network values highest among those keeping the base policy's hard rules, and "
         "only when it values it more than pickup_margin (discard_margin) points above the "
         "base policy's choice; the meld phase is the heuristic's with these parameters (expert's by default). "
         "learned:model=v1 names a shipped version, learned:model=fibur_international a "
         "model trained under that preset, learned:model=FILE.npz a weights file (burraco "
         "train); learned alone is the newest shipped model for the run's rules (the "
         "fibur_international line under that preset, v3 otherwise)."),
    params={**EXPERT.params, **LEARNED_SETTINGS},
    limits={**HEURISTIC_LIMITS, **LEARNED_LIMITS},
)

STRATEGIES = {s.name: s for s in (HEURISTIC, EXPERT, *TUNED, RANDOM, UNIFORM, ROLLOUT, LEARNED)}
BUILT_IN = frozenset(STRATEGIES)
_CALLBACKS = {}          # name -> the compiled callback of a registered chooser (kept alive)
#: strategies registered on first use: name -> (one-line doc, a function that registers it);
#: :func:`get` calls it (so every process, forked or not, resolves the name)
LAZY = {}


def register(name: str, chooser, params: dict | None = None, doc: str = "",
             callback=None) -> Strategy:
    """Make a Numba chooser a named strategy of this process.

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
        ``{parameter: default}`` (at most ``N_PARAMS`` = 28, floats): the
        chooser reads them from its seat's row ``params[seat]`` in the order
        given; a spec ``"name:p=v"`` overrides one.
    doc : str
        One line for the strategy list.
    callback : numba CFunc, optional
        ``chooser``'s C callback, compiled already (the peer bots': cached,
        :func:`kernels.peers.common.callback`); by default it is compiled here.

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
    if callback is None:
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


def registered_here_only(spec: str) -> bool:
    """Whether ``spec`` names a Numba chooser registered in this process
    (:func:`register`), which another process cannot resolve by name; the built-in
    callbacks (``rollout``, ``learned``, the peer bots) resolve anywhere."""
    name = spec.split(":")[0]
    return name in _CALLBACKS and name not in LAZY


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


def _kind(strat: Strategy) -> int:
    """A strategy's policy kind; for ``rollout`` (``learned``) the address of the search's
    (the learned player's) C callback, compiled or loaded from Numba's cache at its first
    use in the process."""
    if strat.kind == LEARNED_KIND:
        if "kernels.strategies.learned" not in sys.modules:
            with compiling.announce("the learned player",
                                    compiling.cold("strategies.learned.learned_callback")):
                import kernels.strategies.learned  # noqa: F401  (compiles or loads the callback)
        from kernels.strategies.learned import learned_callback
        return int(learned_callback.address)
    if strat.kind != ROLLOUT_KIND:
        return strat.kind
    if "kernels.search.player" not in sys.modules:         # importing it compiles the callback
        with compiling.announce("the search player rollout",
                                compiling.cold("search.player.rollout_callback")):
            import kernels.search.player  # noqa: F401  (compiles or loads the callback)
    from kernels.search.player import rollout_callback
    return int(rollout_callback.address)


def canonical_spec(strat: Strategy, overrides: dict) -> str:
    """``name`` or ``name:p=v,...`` listing, sorted, the parameters that differ from
    their defaults and those of ``strat.named`` (so equal strategies get equal specs).

    ``rollout`` always names its allocation (``halving``, ``rollouts``, ``worlds``):
    its default is ``rollout:halving=1,rollouts=120,worlds=256``, and a name written
    before that default (``rollout``, ``rollout:worlds=64``: the flat search) can never be
    the name of another search, so a run directory of the flat search is never resumed
    or extended with the new one.
    """
    over = dict(overrides)
    for k in strat.named:
        over.setdefault(k, strat.params[k][1])
    changed = sorted((k, v) for k, v in over.items()
                     if k not in strat.params or v != strat.params[k][1] or k in strat.named)
    if not changed:
        return strat.name
    return strat.name + ":" + ",".join(f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}"
                                       for k, v in changed)


