"""Strategy registry: names, policy kinds and tunable parameters.

A strategy enters the kernels as a policy kind (int, see
:mod:`kernels.layout`) plus one ``float64[N_PARAMS]`` parameter row per
seat; sweeping a parameter needs no recompilation.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernels import layout as L
from kernels.layout import (HP_DISCARD_W_DANGER, HP_DISCARD_W_NEIGHBOR, HP_DISCARD_W_PAIR,
                            HP_DISCARD_W_POINTS, HP_DISCARD_W_WILD, HP_PILE_SIZE_WEIGHT,
                            HP_PILE_THRESHOLD, HP_PILE_W_WILD, HP_USE_WILD_TO_MELD,
                            HP_WILD_LAYOFF_MIN_LEN)


@dataclass(frozen=True)
class Strategy:
    """A named strategy: a policy kind and its documented parameters."""

    name: str
    kind: int
    doc: str
    params: dict = field(default_factory=dict)       # name -> (slot, default, doc)

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
            v[self.params[key][0]] = float(value)
        return v


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
                           "take the pile when (cards it lets us meld now) + weight * pile size "
                           "reaches this score"),
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
    },
)

RANDOM = Strategy(
    name="random",
    kind=L.POLICY_RANDOM,
    doc="Uniform over legal choices at every decision (pickup, each meld-phase action "
        "or stopping, discard).",
    params={},
)

STRATEGIES = {s.name: s for s in (HEURISTIC, RANDOM)}


def get(name: str) -> Strategy:
    """Look a strategy up by name.

    Raises
    ------
    ValueError
        Unknown name; the message lists the allowed names.
    """
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(
            f"strategy: unknown name {name!r}; allowed: {', '.join(sorted(STRATEGIES))}"
        ) from None


def resolve(spec: str) -> tuple[str, int, np.ndarray]:
    """Parse ``"name"`` or ``"name:p=v,q=w"`` into (name, kind, params row).

    Returns
    -------
    name : str
        The canonical spec (:func:`canonical_spec`): ``"heuristic"`` for
        ``"heuristic:pile_threshold=1"`` (the default value), parameters sorted.
    kind : int
        Policy kind (``kernels.layout.POLICY_*``).
    params : numpy.ndarray
        ``float64[N_PARAMS]``.

    Raises
    ------
    ValueError
        Unknown name or parameter, or a value that is not a number.
    """
    name, _, rest = spec.partition(":")
    strat = get(name.strip())
    overrides = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            if not eq:
                raise ValueError(f"strategy: expected name=value in {item!r}")
            try:
                number = float(val)
            except ValueError:
                number = float("nan")
            if not np.isfinite(number):
                raise ValueError(
                    f"strategy: parameter {key.strip()!r} needs a finite number, got {val.strip()!r}")
            overrides[key.strip()] = number
    vector = strat.vector(overrides)          # validates the parameter names
    return canonical_spec(strat, overrides), strat.kind, vector


def canonical_spec(strat: Strategy, overrides: dict) -> str:
    """``name`` or ``name:p=v,...`` listing, sorted, only the parameters that
    differ from their defaults (so equal strategies get equal specs)."""
    changed = sorted((k, v) for k, v in overrides.items() if v != strat.params[k][1])
    if not changed:
        return strat.name
    return strat.name + ":" + ",".join(f"{k}={v:g}" for k, v in changed)
