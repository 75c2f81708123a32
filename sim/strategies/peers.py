"""The other engines' bots as named strategies (docs/peer_bots.md).

Each name below is a Numba chooser of one engine's module of
:mod:`kernels.peers` (:data:`MODULES`), registered with
:func:`sim.strategies.register` the first time the name is resolved (so
``import sim`` compiles nothing, and every process that resolves the name,
a forked worker included, has it).  They play wherever a strategy spec does
(``simulate``, ``compare``, ``sweep``, ``replay``, ``sim.Game``, a rollout
policy of ``analyze``); parameters are overridden with ``name:p=v``.
"""
from __future__ import annotations

import importlib

from sim._util import compiling
from sim.strategies import registry as _strategies

_BLOFROTH = {"pile_on_odd_rounds": 1.0, "three_card_starts": 1.0, "w_replace": 0.0,
             "w_sequence": 10.0, "w_sequence_wild": 10.0, "w_set": 15.0, "w_append": 20.0,
             "w_stop": 30.0}

#: the module of kernels.peers of each engine; a name's module is the one it begins with
MODULES = ("goodwin", "babbo_coded", "blofroth", "masu", "guglio", "legends_medium", "valmir",
           "raphael_bot", "thilanguis_bot")

#: name -> (chooser in its engine's module, {parameter: default}, one-line doc)
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
    "guglio_easy": ("guglio_easy_chooser",
                    {"p_stop": 0.3, "max_new_melds": 2.0, "p_skip_layoffs": 0.5},
                    "burraco-pwa's easy bot: always the stock, the biggest meld first, stops "
                    "at random, a random non-wild discard"),
    "guglio_medium": ("guglio_medium_chooser", {},
                      "burraco-pwa's medium bot: the pile when its top makes a meld or fits, the "
                      "biggest meld first, discards the highest useless card"),
    "guglio_hard": ("guglio_hard_chooser", {},
                    "burraco-pwa's hard bot: as medium, lay-offs that make a burraco first, "
                    "a useless discard that feeds no opposing meld"),
    "legends_medium": ("legends_medium_chooser",
                       {"pile_max": 4.0, "wild_stock_below": 15.0, "wild_hand_at_most": 5.0,
                        "keep_min": 2.0},
                       "burraco-legends' bot: a small pile when its top makes a natural meld, "
                       "thrifty with wilds, discards its least useful natural"),
    "valmir_easy": ("valmir_easy_chooser", {"allow_sets": 0.0, "p_take": 0.5},
                    "card_game_buraco's easy AI: sequences and sets of aces, no dirty meld "
                    "before a clean burraco, random moves and discards"),
    "valmir_medium": ("valmir_medium_chooser", {"allow_sets": 0.0},
                      "card_game_buraco's medium AI: a random lay-off, else a random meld; "
                      "discards a 3, 4 or 5 first"),
    "valmir_hard": ("valmir_hard_chooser", {"allow_sets": 0.0},
                    "card_game_buraco's hard AI: the first lay-off, else the longest meld; "
                    "discards its lowest card, 3-5 first"),
    "raphael_bot": ("raphael_bot_chooser", {},
                    "buraco-online's bot: sequences only, the pile when its top extends a "
                    "sequence, a weighted discard score"),
    "thilanguis_bot": ("thilanguis_bot_chooser",
                       {"panic_stock": 8.0, "desperate_lead": 1000.0, "desperate_stock": 25.0,
                        "rush_hand": 5.0, "endgame_stock": 22.0, "endgame_hand": 6.0,
                        "juicy_pile": 8.0, "big_pile_refuse": 7.0, "duo_dirty_stock": 16.0,
                        "duo_wild_layoff_stock": 10.0, "max_actions": 25.0, "w_wild": 1000.0,
                        "w_opp": 500.0, "w_own": 200.0, "w_ace": 150.0},
                       "Thilanguis' Buraco bot: sequences only, clean first, panic and "
                       "desperate modes, a danger-scored discard"),
    "goodwin_ismcts": ("goodwin_ismcts_chooser",
                       {"iterations": 20000.0, "c_uct": 0.7, "w_burraco": 0.3, "w_pozzetto": 0.4,
                        "h_0": 0.0, "h_1": 0.30, "h_2": 0.25, "h_3_4": 0.20, "h_5_6": 0.15,
                        "h_7_9": 0.10, "h_10_plus": 0.05, "stop_at_stock_end": 0.0},
                       "burraco-game's SO-ISMCTS: a fresh tree per action, iterations "
                       "determinizations with random playouts, hand-size/burraco/pozzetto reward "
                       "(slow: the default 20,000 per action)"),
}


def module_of(name: str) -> str:
    """The module of :mod:`kernels.peers` holding the peer bot ``name`` (a key of :data:`PEERS`).

    Parameters
    ----------
    name : str
        A peer bot's name, say ``"guglio_hard"``.

    Returns
    -------
    str
        The engine's module, say ``"guglio"``: the entry of :data:`MODULES`
        that ``name`` begins with.
    """
    return next(m for m in MODULES if name.startswith(m))


def callback_of(name: str) -> str:
    """The name of the C callback's body of the peer bot ``name`` in its module
    (``guglio_hard_chooser`` -> ``guglio_hard_callback``), compiled with Numba's on-disk
    cache by :func:`kernels.peers.common.callback`."""
    return PEERS[name][0].removesuffix("_chooser") + "_callback"


def _loader(name: str):
    def load():
        attr, params, doc = PEERS[name]
        # asked by file name, since importing the module takes a moment that belongs
        # inside the announcement; the C callback is cached with the chooser in it
        module = module_of(name)
        with compiling.announce(f"the peer bot {name}",
                                compiling.cold(f"peers.{module}.{callback_of(name)}")):
            engine = importlib.import_module(f"kernels.peers.{module}")
            common = importlib.import_module("kernels.peers.common")
            callback = common.callback(getattr(engine, callback_of(name)))
            _strategies.register(name, getattr(engine, attr), params=params, doc=doc,
                                 callback=callback)
    return load


for _name, (_attr, _params, _doc) in PEERS.items():
    _strategies.LAZY[_name] = (_doc, _loader(_name))


def register_all() -> list[str]:
    """Register every peer bot now (compiles them); returns their names."""
    for name in PEERS:
        _strategies.get(name)
    return list(PEERS)
