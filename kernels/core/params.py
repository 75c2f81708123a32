"""The parameters of the built-in choosers, declared once.

A seat's parameter row is ``float64[N_PARAMS]``.  :data:`HEURISTIC_PARAMS`
declares the ``heuristic`` family's parameters (slots ``0..16``) and
:data:`ROLLOUT_PARAMS` the ``rollout`` search player's (slots ``17..27``, after
its base policy's heuristic parameters) and :data:`LEARNED_PARAMS` the ``learned``
player's (slot ``17``, after the heuristic's that play its meld phase): each row names the parameter, its
slot, its default, its allowed range (lowest, highest, whole numbers only),
the initial spread of ``burraco tune`` (heuristic only) and one line of
documentation.  From them come the ``HP_*`` slots of
:mod:`kernels.core.layout`, the ``RP_*`` slots of :mod:`kernels.search.player`,
and the parameters, defaults and limits of ``sim.strategies`` and the steps of
``sim.tuning``.
"""
from __future__ import annotations

from typing import NamedTuple

from .slots import check_family

N_PARAMS = 28       # length of one seat's parameter row


class Param(NamedTuple):
    """One parameter of a built-in chooser: a row of :data:`HEURISTIC_PARAMS` or
    :data:`ROLLOUT_PARAMS`."""

    name: str               # as in a spec: heuristic:NAME=VALUE
    slot: int               # index in the seat's parameter row
    default: float          # the heuristic's (expert and tuned_* override some)
    lo: float               # lowest allowed value
    hi: float               # highest allowed value
    whole: bool             # whole numbers only
    step: float | None      # initial spread of burraco tune (parameter units); None: not tuned
    doc: str                # one line: what it does

    @property
    def limits(self) -> tuple:
        """``(lowest, highest, whole numbers only)``."""
        return self.lo, self.hi, self.whole


HEURISTIC_PARAMS = (
    Param('pile_size_weight', 0, 0.25, -100, 100, False, 0.1,
          'value of each card of the discard pile when deciding to take it (points of the '
          'decision score per card)'),
    Param('pile_threshold', 1, 1.0, 0, 1000, False, 0.5,
          'take the pile when some card of it is usable and (usable cards, 1 each, wilds '
          'pile_w_wild) + pile_size_weight * pile size reaches this score (so values up to 1 + '
          'pile_size_weight all take any pile with a usable card)'),
    Param('use_wild_to_meld', 2, 1.0, 0, 1, True, 0.3,
          '1: use a wild to open a meld from two naturals; 0: never'),
    Param('wild_layoff_min_len', 3, 6.0, 0, 99, True, 1.5,
          'lay a wild off on a meld only when the meld has at least this many cards (6: only to'
          ' make a burraco)'),
    Param('discard_w_pair', 4, 3.0, -1000, 1000, False, 1.0,
          'keep-value of a card per other card of its rank in hand'),
    Param('discard_w_neighbor', 5, 2.0, -1000, 1000, False, 1.0,
          'keep-value of a card per same-suit card within two ranks'),
    Param('discard_w_danger', 6, 6.0, -1000, 1000, False, 1.5,
          "penalty for discarding a card the next opponent can lay off on its team's melds"),
    Param('discard_w_points', 7, 0.05, -100, 100, False, 0.05,
          'preference for discarding high-value cards (per point)'),
    Param('discard_w_wild', 8, 20.0, -1000, 1000, False, 5.0,
          'keep-value of a wild (joker or two)'),
    Param('pile_w_wild', 9, 1.0, -100, 100, False, 0.5,
          'extra decision score per wild in the discard pile'),
    Param('pile_min_size', 10, 0.0, 0, 108, True, 1.0,
          'never take a discard pile of fewer cards than this (cards; 0: no limit)'),
    Param('pile_min_stock', 11, 0.0, 0, 108, True, 3.0,
          'never take the discard pile once the stock has fewer cards than this (cards; the '
          'stage of the hand; 0: no limit)'),
    Param('pile_avoid_opp_2_or_5', 12, 0.0, 0, 1, True, 0.3,
          "1: never take the discard pile while an opponent holds 2 or 5 cards (the players' "
          "saying); 0: ignore opponents' hand sizes"),
    Param('close_min_burracos', 13, 0.0, 0, 20, True, 0.3,
          'keep building: never go down to the closing card before the team has this many '
          'burracos (0: close as soon as allowed)'),
    Param('set_bias', 14, 0.0, -14, 14, False, 0.5,
          'runs versus sets: a set of k cards is preferred to a run of up to k + set_bias cards'
          ' (cards; negative prefers runs)'),
    Param('discard_w_middle', 15, 0.0, -1000, 1000, False, 0.5,
          'keep-value of a 5, 6, 7, 8 or 9 (middle ranks join more runs; negative: discard them'
          ' first)'),
    Param('meld_delay_rounds', 16, 0.0, 0, 100, True, 0.3,
          "keeping cards back: open no new meld in the hand's first rounds (rounds of four "
          'turns; lay-offs still allowed; 0: lay down at once)'),
)

ROLLOUT_PARAMS = (
    Param('worlds', 17, 256.0, 1, 1000, True, None,
          'sampled worlds per searched decision (halving=0: every candidate on every world; '
          'halving=1: the most worlds a candidate gets); common random numbers'),
    Param('rollouts', 18, 120.0, 0, 100000, True, None,
          'rollout budget per decision: the worlds are cut to rollouts // candidates (at least '
          '1); 0: no budget'),
    Param('search_pickup', 19, 1.0, 0, 1, True, None,
          "1: search the pickup (draw or take the pile); 0: the base policy's"),
    Param('search_discard', 20, 1.0, 0, 1, True, None,
          "1: search the discard; 0: the base policy's"),
    Param('search_meld', 21, 0.0, 0, 1, True, None,
          '1: search every meld-phase decision (each new meld, lay-off or the end of the meld '
          "phase); 0: the base policy's"),
    Param('max_candidates', 22, 12.0, 2, 16308, True, None,
          "at most this many candidates per decision: the base policy's choice, then (discards)"
          ' the cards it least wants to keep'),
    Param('margin', 23, 0.0, 0, 10, False, None,
          "leave the base policy's choice only when the best candidate's mean gain over it "
          'exceeds this many standard errors of the paired difference (0: the best mean wins)'),
    Param('halving', 24, 1.0, 0, 1, True, None,
          '0: flat allocation (every candidate on the same worlds); 1: sequential halving '
          '(every candidate on the first worlds, the better half kept, the worlds doubled, '
          'until one is left; worlds caps the worlds of a candidate)'),
    Param('pickup_share', 25, 1.0, 0.01, 100, False, None,
          "the pickup decision's rollout budget relative to the discard's: rollouts * "
          'pickup_share at the pickup, rollouts elsewhere'),
    Param('rollouts_played', 26, 0.0, 0, 0, True, None,
          'output, not a setting: the search adds the rollouts it plays to this slot of the '
          "seat's row (a counter for benchmarks; the hand's play never reads it)"),
    Param('card_model', 27, 0.0, 0, 1, True, None,
          "1: deal each sampled world's unseen cards with the card-location model's weights "
          "(what the other seats discarded, passed on and melded: kernels.search.card_model); "
          '0: uniformly (R11 either way)'),
)


LEARNED_PARAMS = (
    Param('weights', 17, 0.0, 0, 2.0 ** 53, True, None,
          "internal, not a setting: the address of the network's weights, loaded by "
          'sim.strategies in this process (kernels.strategies.learned)'),
    Param('pickup_margin', 18, 10.0, 0, 1000, False, None,
          "leave the base policy's pickup (draw or take the pile) only for the other action "
          'when the network values it more than this many points above (0: the higher wins; '
          '10 was best of 0, 10, 20 for v1 and v2 against expert; 1000, the most: always the '
          "base policy's pickup)"),
    Param('discard_margin', 19, 0.0, 0, 1000, False, None,
          "leave the base policy's discard only for a card the network values more than this "
          "many points above it (0, the default: the highest value wins, as v2 plays; 1000, "
          "the most: always the base policy's discard, the network not evaluated, as v1 "
          "was measured: its discards lost to expert's on the offline gate)"),
)


def hp_name(p: Param) -> str:
    """Slot constant of a heuristic parameter (``HP_PILE_THRESHOLD``)."""
    return "HP_" + p.name.upper()


def lp_name(p: Param) -> str:
    """Slot constant of a ``learned`` parameter (``LP_WEIGHTS``)."""
    return "LP_" + p.name.upper()


def rp_name(p: Param) -> str:
    """Slot constant of a search parameter (``RP_WORLDS``, ``RP_PICKUP`` for
    ``search_pickup``)."""
    return "RP_" + p.name.upper().removeprefix("SEARCH_")


check_family("HP+RP", {**{hp_name(p): p.slot for p in HEURISTIC_PARAMS},
                       **{rp_name(p): p.slot for p in ROLLOUT_PARAMS}}, N_PARAMS)
check_family("HP+LP", {**{hp_name(p): p.slot for p in HEURISTIC_PARAMS},
                       **{lp_name(p): p.slot for p in LEARNED_PARAMS}}, N_PARAMS)
