"""Strategy specs and seat resolution: a spec string (``"name"``,
``"name:p=v,..."``, ``FILE.py:CLASS``, ``MODULE:CLASS``), a strategy object or a
class, a seat assignment (one spec, four, or a dict by team and seat, a TOML
strategy file) resolved into what the kernels and :class:`sim.Game` play.

:func:`resolve` takes built-in specs only (the registry of
:mod:`sim.strategies.registry`); :func:`resolve_seat` also a Python strategy
(:mod:`sim.strategies.pystrategy`); :func:`resolve_seats` a whole assignment.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from sim.strategies import registry
from sim.strategies.pystrategy import PythonStrategy, as_python, is_python_spec
from sim.strategies import learned as learned_model
from sim.strategies.registry import HEURISTIC, LearnedStrategy, canonical_spec, get, names

if TYPE_CHECKING:
    from sim.core.rules import Rules


def resolve(spec: str, rules: Rules | None = None) -> tuple[str, int, np.ndarray]:
    """Parse ``"name"`` or ``"name:p=v,q=w"`` into (name, kind, params row).

    ``rules`` are the rules it will play under: ``learned`` without a ``model`` plays the
    shipped model trained for them (:func:`sim.strategies.learned.model_for_rules`; the
    default rules' newest model for None).

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
        strategy (:mod:`sim.strategies.pystrategy`; see :func:`resolve_seat`).
    """
    strat, overrides, vector = _parse(spec, rules)
    return canonical_spec(strat, overrides), registry._kind(strat), vector


#: ``rollout``'s allocation while the flat search was its default: a recorded ``rollout``
#: name without ``halving`` was written then (:func:`recorded_spec`)
FLAT_ROLLOUT = {"halving": 0.0, "rollouts": 400.0, "worlds": 32.0}


def recorded_spec(name):
    """The spec that plays today what a run recorded as ``name`` played when it was recorded.

    ``rollout``'s default was the flat search (``halving=0,worlds=32,rollouts=400``) before
    sequential halving, and its canonical names left out the parameters at their defaults;
    they now always give ``halving``, ``rollouts`` and ``worlds``
    (:attr:`sim.strategies.registry.Strategy.named`). A ``rollout`` name without one of the
    three was therefore recorded then: it gets :data:`FLAT_ROLLOUT`'s values for those it does
    not give (``"rollout"`` -> ``"rollout:halving=0,rollouts=400,worlds=32"``,
    ``"rollout:halving=1,worlds=64"`` -> ``"rollout:halving=1,rollouts=400,worlds=64"``).
    Every other value (another strategy, a Python strategy, None) is returned as it is.
    """
    if not isinstance(name, str) or is_python_spec(name):
        return name
    base, _, rest = name.partition(":")
    if base.strip() != "rollout":
        return name
    items = [x for x in rest.split(",") if x.strip()]
    given = {x.partition("=")[0].strip() for x in items}
    if given >= set(FLAT_ROLLOUT):
        return name
    items += [f"{k}={v:g}" for k, v in FLAT_ROLLOUT.items() if k not in given]
    return "rollout:" + ",".join(sorted(items))


def canonical_name(spec: str, rules: Rules | None = None) -> str:
    """The canonical name of a built-in spec under ``rules`` (:func:`resolve`'s first value)
    without loading or compiling its chooser; raises ``ValueError`` as :func:`resolve`."""
    strat, overrides, _ = _parse(spec, rules)
    return canonical_spec(strat, overrides)


def _parse(spec, rules: Rules | None = None) -> tuple:
    """``(Strategy, {parameter: value}, float64[N_PARAMS])`` of a built-in spec under
    ``rules`` (they pick ``learned``'s model when none is named); raises ``ValueError`` (a
    Python spec, an unknown name or parameter, a bad value)."""
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
            if isinstance(strat, LearnedStrategy) and key.strip() == "model":
                if not val.strip():                    # e.g. an unset shell variable
                    have = ", ".join(learned_model.shipped_names())
                    raise ValueError(f"strategy 'learned': model needs a shipped version "
                                     f"({have}) or a weights file (.npz), got ''")
                overrides["model"] = val.strip()       # a shipped version (v1) or a file
                continue
            try:
                number = float(val)
            except ValueError:
                number = float("nan")
            if not np.isfinite(number):
                raise ValueError(
                    f"strategy: parameter {key.strip()!r} needs a finite number, got {val.strip()!r}")
            overrides[key.strip()] = number
    if isinstance(strat, LearnedStrategy):     # the model named exactly (a version, a digest)
        overrides["model"] = learned_model.canonical_model(
            overrides["model"] if "model" in overrides else learned_model.model_for_rules(rules))
    return strat, overrides, strat.vector(overrides)      # vector validates the names


def check_spec(what: str, spec, rules: Rules | None = None) -> None:
    """Check a strategy spec's name and parameters without compiling anything for it.

    A Python strategy (``FILE.py:CLASS``, ``MODULE:CLASS``) passes: it is loaded where it
    is used.  Raises ``ValueError`` beginning with ``what: `` (the option that gave it).
    """
    if isinstance(spec, str) and is_python_spec(spec):
        return
    try:
        _parse(spec, rules)
    except ValueError as exc:
        raise relabel(what, exc) from None


def resolve_for(what: str, spec, rules: Rules | None = None) -> tuple[str, int, np.ndarray]:
    """:func:`resolve` of the spec given as ``what`` (a parameter, or the option that
    gave it): its errors begin with ``what: ``, e.g. ``base: strategy 'heuristic' has no
    parameter 'x'``."""
    try:
        return resolve(spec, rules)
    except ValueError as exc:
        raise relabel(what, exc) from None


def relabel(what: str, exc: ValueError) -> ValueError:
    """The error ``exc`` of a strategy spec labelled with ``what`` (the option or parameter
    that gave the spec) instead of its own ``strategy: `` label, so the label is said once:
    ``--team0: unknown name 'x'``, not ``--team0: strategy: unknown name 'x'``."""
    text = str(exc)
    return ValueError(f"{what}: {text[len('strategy: '):] if text.startswith('strategy: ') else text}")


def resolve_seat(value, rules: Rules | None = None) -> tuple:
    """One seat's strategy: a built-in spec, or a Python strategy (a spec string
    ``FILE.py:CLASS`` / ``MODULE:CLASS``, a class or an object with ``choose``).

    Returns
    -------
    tuple
        ``(name, kind, params, python)``: as :func:`resolve` for a built-in spec
        (``python`` None); for a Python strategy its spec string, the kind and
        parameter row of ``heuristic`` (never used: the seat is played through
        ``sim.Game``) and its :class:`sim.strategies.pystrategy.PythonStrategy`.

    Raises
    ------
    ValueError
        As :func:`resolve`, or a Python strategy that does not load
        (:class:`sim.strategies.pystrategy.StrategyError`).
    """
    python = as_python(value)
    if python is None:
        return (*resolve(value, rules), None)
    return python.spec, HEURISTIC.kind, HEURISTIC.vector(), python


def name_of(value, rules: Rules | None = None) -> str:
    """The name a seat's strategy gets in records under ``rules``: the canonical spec of a
    built-in strategy, the spec string of a Python one (ValueError as :func:`resolve_seat`)."""
    return resolve_seat(value, rules)[0]


def _is_strategy_object(value) -> bool:
    return not isinstance(value, (str, list, tuple, dict)) and (
        isinstance(value, PythonStrategy) or callable(getattr(value, "choose", None)))


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
        (:mod:`sim.strategies.pystrategy`).

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


# ---------------------------------------------------------------- validation
def resolve_seats(strategies, rules: Rules | None = None) -> tuple:
    """``(names, kinds, params, pythons)`` of a strategy assignment played under ``rules``
    (:func:`resolve`): the seats' names, policy kinds (``int64[4]``) and parameter rows
    (``float64[4, N_PARAMS]``) for the kernels, and per seat its
    :class:`sim.strategies.pystrategy.PythonStrategy` (None for a built-in strategy)."""
    specs = seat_specs(strategies)
    resolved = [resolve_seat(s, rules) for s in specs]
    names = [r[0] for r in resolved]
    kinds = np.array([r[1] for r in resolved], np.int64)
    params = np.ascontiguousarray(np.stack([r[2] for r in resolved]), np.float64)
    return names, kinds, params, tuple(r[3] for r in resolved)


def resolve_builtin_seats(strategies, who: str | None = None, rules: Rules | None = None) -> tuple:
    """``(names, kinds, params)`` of an assignment of built-in strategies only, played
    under ``rules``; a Python strategy is refused (ValueError naming ``who``)."""
    names, kinds, params, pythons = resolve_seats(strategies, rules)
    for name, py in zip(names, pythons):
        if py is not None:
            raise ValueError(f"{who or 'strategies'}: {name!r} is a Python strategy; this "
                             "takes built-in strategies only")
    return names, kinds, params


def python_sources(names: Sequence, pythons: Sequence) -> dict:
    """``{spec: source digest}`` of the Python strategies of a run's seats (empty
    seats left out), for its configuration and identity."""
    return {n: p.digest for n, p in zip(names, pythons) if p is not None and n is not None}


def seat_names(names: Sequence, rules: Rules) -> list:
    """The strategy spec of each of the 4 seat columns; None for a seat that is
    empty under ``rules`` (seats 2 and 3 with 2 players, R61)."""
    return [n if s < rules.num_players else None for s, n in enumerate(names)]
