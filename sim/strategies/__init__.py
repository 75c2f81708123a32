"""Strategies: the registry of named strategies (:mod:`sim.strategies.registry`),
specs and seat resolution (:mod:`sim.strategies.specs`), strategies written in
Python (:mod:`sim.strategies.pystrategy`), the other engines' bots
(:mod:`sim.strategies.peers`) and the tuned parameter files (``tuned/*.toml``).

The names below are the package's API (``sim.strategies.resolve``,
``sim.strategies.register`` ...).  Imports only :mod:`sim.table`, :mod:`sim.core`,
:mod:`sim._util` and the kernels.
"""
from sim.strategies import peers
from sim.strategies.registry import (BUILT_IN, EXPERT, EXPERT_VALUES, HEURISTIC, HEURISTIC_LIMITS,
                                     LAZY, LEARNED, RANDOM, ROLLOUT, ROLLOUT_KIND, ROLLOUT_LIMITS,
                                     ROLLOUT_SEARCH, STRATEGIES, TUNED, TUNED_DIR, TUNED_PRESETS,
                                     UNIFORM, Strategy, canonical_spec, get, is_registered, names,
                                     register, registered_here_only)
from sim.strategies.specs import (FLAT_ROLLOUT, SEAT_KEYS, canonical_name, check_spec, load_file,
                                  name_of, python_sources, recorded_spec, resolve,
                                  resolve_builtin_seats, resolve_for, resolve_seat, resolve_seats,
                                  seat_names, seat_specs)

__all__ = ["BUILT_IN", "EXPERT", "EXPERT_VALUES", "FLAT_ROLLOUT", "HEURISTIC", "HEURISTIC_LIMITS",
           "LAZY",
           "LEARNED", "RANDOM", "ROLLOUT", "ROLLOUT_KIND", "ROLLOUT_LIMITS", "ROLLOUT_SEARCH",
           "SEAT_KEYS", "STRATEGIES", "TUNED", "TUNED_DIR", "TUNED_PRESETS", "UNIFORM", "Strategy",
           "canonical_name", "canonical_spec", "check_spec", "get", "is_registered", "load_file", "name_of", "names",
           "peers", "python_sources", "recorded_spec", "register", "registered_here_only", "resolve",
           "resolve_builtin_seats", "resolve_for", "resolve_seat", "resolve_seats", "seat_names",
           "seat_specs"]
