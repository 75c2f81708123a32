"""The other engines' bots as named strategies (issue 15, item 3; docs/peer_bots.md).

Each name below is a Numba chooser of :mod:`kernels.peers`, registered with
:func:`sim.strategies.register` the first time the name is resolved (so
``import sim`` compiles nothing, and every process that resolves the name,
a forked worker included, has it).  They play wherever a strategy spec does
(``simulate``, ``compare``, ``sweep``, ``replay``, ``sim.Game``, a rollout
policy of ``analyze``); parameters are overridden with ``name:p=v``.
"""
from __future__ import annotations

from . import strategies as _strategies

_BLOFROTH = {"pile_on_odd_rounds": 1.0, "three_card_starts": 1.0, "w_replace": 0.0,
             "w_sequence": 10.0, "w_sequence_wild": 10.0, "w_set": 15.0, "w_append": 20.0,
             "w_stop": 30.0}

#: name -> (chooser in kernels.peers, {parameter: default}, one-line doc)
PEERS = {
    "babbo_coded": ("babbo_coded_chooser",
                    {"pile_min_no_burraco": 4.0, "pile_min_with_burraco": 2.0,
                     "keep_after_meld_no_burraco": 2.0, "keep_after_meld_with_burraco": 1.0,
                     "ace_in_runs": 0.0},
                    ("PyBurracoBabbo's coded player: pile by hand and pile size, one pass of "
                     "lay-offs, one longest meld per turn, a random discard")),
    "goodwin_random": ("goodwin_random_chooser", {},
                       "burraco-game's random player: coin-flip pickup, melds everything "
                       "(sequences first), a random discard"),
    "goodwin_low": ("goodwin_low_chooser", {"pile_min": 4.0, "skip_invalid_first": 0.0},
                    "burraco-game's low AI: the pile when it has 4+ cards, one meld per turn, "
                    "no lay-offs, discards its first card"),
    "blofroth_dumb": ("blofroth_dumb_chooser", dict(_BLOFROTH),
                      "blofroth's dumb agent: stock/pile by round, the last listed action, "
                      "discards its first card (jokers first)"),
    "blofroth_random": ("blofroth_random_chooser", dict(_BLOFROTH),
                        "blofroth's random agent: coin-flip pickup, a random action until none "
                        "is left, a random discard"),
    "blofroth_smart": ("blofroth_smart_chooser", dict(_BLOFROTH),
                       "blofroth's smart agent: the pile when a card of it adds an action, "
                       "fixed action classes, smallest gain first, a discard that feeds no "
                       "opposing meld"),
    "blofroth_max": ("blofroth_max_chooser", dict(_BLOFROTH),
                     "blofroth's max agent: stock/pile by round, the largest point gain, "
                     "discards its first card"),
    "masu_normal": ("masu_normal_chooser", {},
                    "gioco-burraco's normal bot: lexicographic ranking (closure, pozzetto, "
                    "burraco class, cards, wilds, points)"),
    "masu_easy": ("masu_easy_chooser", {},
                  "gioco-burraco's easy bot: always the stock, most cards played, discards "
                  "its highest non-wild"),
}


def _loader(name: str):
    def load():
        from kernels import peers as KP
        attr, params, doc = PEERS[name]
        _strategies.register(name, getattr(KP, attr), params=params, doc=doc)
    return load


for _name, (_attr, _params, _doc) in PEERS.items():
    _strategies.LAZY[_name] = (_doc, _loader(_name))


def register_all() -> list[str]:
    """Register every peer bot now (compiles them); returns their names."""
    for name in PEERS:
        _strategies.get(name)
    return list(PEERS)
