"""The rules and the cards: rule sets (:mod:`sim.core.rules`), card text
(:mod:`sim.core.notation`), argument checks of cards and rules
(:mod:`sim.core.cards`), the deal of a hand and its features
(:mod:`sim.core.deal`, :mod:`sim.core.deal_features`), whole matches
(:mod:`sim.core.match`) and the record schema (:mod:`sim.core.dataset`).
Imports only :mod:`sim._util` and the kernels.
"""
