"""The second set of other engines' bots (guglio, legends, valmir, raphael, thilanguis,
goodwin_ismcts): each follows its description (docs/peer_bots.md) on hand-made
positions, one test per rule; all of them play only legal actions (the referee over 100
hands each) and read no hidden card.  The levels of one peer share a compiled chooser, so
the referee and hidden-information checks run per peer family, one test each
(``goodwin_ismcts`` with 20 iterations per action: 20 hands and 2)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import referee as R
import sim
from test_hidden_info import play_checked
from test_peers import choice, choices, pos

FAMILIES = {"guglio": ["guglio_easy", "guglio_medium", "guglio_hard"],
            "legends": ["legends_medium"],
            "valmir": ["valmir_easy", "valmir_medium", "valmir_hard"],
            "raphael": ["raphael_bot"],
            "thilanguis": ["thilanguis_bot"],
            "ismcts": ["goodwin_ismcts:iterations=20"]}
#: the families as test parameters: the search bot's, seconds long, is left out of the fast tier
FAMILY_PARAMS = [pytest.param(f, marks=pytest.mark.slow) if f == "ismcts" else f
                 for f in FAMILIES]
RUN7 = [(0, "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥")]


# ---------------------------------------------------------------- guglio
def test_guglio_easy_always_draws_and_discards_a_random_natural():
    assert choice("guglio_easy", pos("K♠ K♥ 3♣", "pickup", pile="8♠ K♦")) == \
        "draw from the stock"
    seen = choices("guglio_easy", pos("3♣ 7♦ JK 2♥ K♣", phase="discard"), range(50))
    assert seen == {"discard 3♣", "discard 7♦", "discard K♣"}
    assert choice("guglio_easy", pos("JK 2♥", phase="discard")) in {"discard JK", "discard 2♥"}


def test_guglio_easy_stops_at_random_and_after_two_new_melds():
    p = pos("K♣ K♦ K♠ 5♥ 9♣ 3♦")
    seen = [choice("guglio_easy", p, s) for s in range(200)]
    assert set(seen) == {"meld K♣ K♦ K♠", "end the meld phase"}
    assert 40 <= seen.count("end the meld phase") <= 80          # p_stop = 0.3 of 200
    assert choices("guglio_easy:p_stop=0", p, range(30)) == {"meld K♣ K♦ K♠"}
    # no new meld possible: the lay-offs are skipped half the time (p_skip_layoffs)
    p = pos("8♥ 3♣ 9♦ J♠", melds=[(0, "5♥ 6♥ 7♥")])
    seen = [choice("guglio_easy:p_stop=0", p, s) for s in range(200)]
    assert set(seen) == {"lay off 8♥ on meld 0", "end the meld phase"}
    assert 70 <= seen.count("end the meld phase") <= 130
    g = sim.Game.from_position(pos("K♣ K♦ K♠ Q♣ Q♦ Q♠ J♣ J♦ J♠ 5♥", "pickup", pile="4♦"),
                               strategies="guglio_easy:p_stop=0")
    g.apply(g.choose())                             # draws
    for _ in range(2):
        a = g.choose()
        assert g.action_text(a).startswith("meld")
        g.apply(a)
    assert g.action_text(g.choose()) == "end the meld phase"


def test_guglio_biggest_meld_first_cards_from_the_front_of_the_hand():
    # seven cards at most, the first valid combination in hand order
    p = pos("3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ K♦ K♥")
    assert choice("guglio_medium", p) == "meld 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣"
    # four kings beat a run of three; a run with a wild is a combination of four
    assert choice("guglio_hard", pos("5♥ 6♥ 7♥ K♣ K♦ K♠ K♥ 3♦")).startswith("meld K♣ K♦")
    assert choice("guglio_medium", pos("5♥ 6♥ 7♥ JK 9♣ 3♦")) == "meld 5♥ 6♥ 7♥ JK"


def test_guglio_new_melds_before_lay_offs_then_meld_and_hand_order():
    p = pos("8♥ K♣ K♦ K♠ 3♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("guglio_medium", p) == "meld K♣ K♦ K♠"
    p = pos("8♥ 10♠ 3♣ 9♦ J♠", melds=[(0, "5♥ 6♥ 7♥"), (0, "4♠ 5♠ 6♠ 7♠ 8♠ 9♠")])
    assert choice("guglio_medium", p) == "lay off 8♥ on meld 0"


def test_guglio_hard_lays_off_on_a_six_card_meld_first_then_longer_melds():
    p = pos("8♥ 10♠ 3♣ 9♦ J♠", melds=[(0, "5♥ 6♥ 7♥"), (0, "4♠ 5♠ 6♠ 7♠ 8♠ 9♠")])
    assert choice("guglio_hard", p) == "lay off 10♠ on meld 1"
    p = pos("8♥ 3♦ 3♣ 9♦ J♠", melds=[(0, "5♥ 6♥ 7♥"), (0, "4♦ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦")])
    assert choice("guglio_hard", p) == "lay off 3♦ on meld 1"     # 7 cards before 3


def test_guglio_medium_takes_the_pile_when_its_top_makes_a_meld_or_fits():
    hand = "9♦ K♠ K♥ 3♣"
    assert choice("guglio_medium", pos(hand, "pickup", pile="8♠ K♦")).startswith("take")
    assert choice("guglio_medium", pos(hand, "pickup", pile="K♦ 8♠")) == "draw from the stock"
    assert choice("guglio_hard", pos(hand, "pickup", pile="K♦ 8♥",
                                     melds=[(0, "5♥ 6♥ 7♥")])).startswith("take")


def test_guglio_medium_discards_the_highest_useless_card_else_the_lowest():
    # a joker that makes no meld and fits none is useless: the most points
    assert choice("guglio_medium", pos("JK 9♦ K♠ 5♥ 3♣", phase="discard")) == "discard JK"
    # every card useful: the fewest points (5♥)
    assert choice("guglio_medium", pos("5♥ 6♥ 7♥ 9♦ 9♠ 9♣", phase="discard")) == "discard 5♥"
    # 8♥ fits the own run: useful; the useless K♠ goes
    p = pos("8♥ K♠ 3♣", phase="discard", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("guglio_medium", p) == "discard K♠"


def test_guglio_hard_discards_a_useless_card_that_feeds_no_opposing_meld():
    p = pos("JK 9♦ K♠ 5♥ 3♣", phase="discard", melds=[(1, "K♣ K♦ K♥")])
    assert choice("guglio_hard", p) == "discard 9♦"
    assert choice("guglio_medium", p) == "discard JK"
    # every useless card feeds them: the useless one with the fewest points, hand order
    p = pos("K♠ Q♠ 5♥ 6♥ 7♥", phase="discard", melds=[(1, "K♣ K♦ K♥"), (1, "9♠ 10♠ J♠")])
    assert choice("guglio_hard", p) == "discard Q♠"
    # every card useful: the fewest points among those that feed no opposing meld
    p = pos("5♥ 6♥ 7♥ 9♦ 9♠ 9♣", phase="discard",
            melds=[(1, "5♣ 5♦ 5♠"), (1, "7♣ 7♦ 7♠")])
    assert choice("guglio_hard", p) == "discard 6♥"
    assert choice("guglio_medium", p) == "discard 5♥"


# ---------------------------------------------------------------- legends_medium
def test_legends_takes_a_small_pile_whose_natural_top_makes_a_natural_meld():
    hand = "9♦ K♠ K♥ 3♣ 5♠"
    assert choice("legends_medium", pos(hand, "pickup", pile="8♠ K♦")).startswith("take")
    # five cards: too many (pile_max = 4); a wild on top; a wild needed
    assert choice("legends_medium", pos(hand, "pickup", pile="8♠ 4♥ 3♠ 7♥ K♦")) == \
        "draw from the stock"
    assert choice("legends_medium", pos("9♦ K♠ K♥ 3♣", "pickup", pile="8♠ JK")) == \
        "draw from the stock"
    assert choice("legends_medium", pos("9♦ K♠ JK 3♣", "pickup", pile="8♠ K♦")) == \
        "draw from the stock"


def test_legends_melds_the_longest_natural_candidate():
    assert choice("legends_medium", pos("5♥ 6♥ 7♥ 8♥ K♣ K♦ K♠ 3♦ 9♠")) == "meld 5♥ 6♥ 7♥ 8♥"
    assert choice("legends_medium", pos("5♥ 6♥ 7♥ K♣ K♦ K♠ K♥ 3♦ 9♠")).startswith("meld K♣")


def test_legends_uses_a_wild_only_when_wilds_are_allowed_and_no_natural_meld_is_as_long():
    # one wild, 8 cards, a full stock: no wild meld
    assert choice("legends_medium", pos("5♥ 6♥ 8♥ JK 3♦ 9♠ Q♣ 10♦")) == "end the meld phase"
    # two wilds: the gap is filled with the first wild (2♣ before the joker)
    assert choice("legends_medium", pos("5♥ 6♥ 8♥ JK 2♣ 3♦ 9♠ Q♣")) == "meld 5♥ 6♥ 2♣ 8♥"
    # five cards in hand: a pair and a wild
    assert choice("legends_medium", pos("Q♣ Q♦ JK 3♦ 9♠")) == "meld Q♣ Q♦ JK"
    # a natural run of 3 is as long as a pair and a wild: the natural one
    assert choice("legends_medium", pos("Q♣ Q♦ JK 5♠ 6♠ 7♠")) == "meld 5♠ 6♠ 7♠"


def test_legends_skips_a_meld_that_leaves_one_card_without_a_close():
    assert choice("legends_medium", pos("5♥ 6♥ 7♥ 3♦")) == "end the meld phase"
    # with the pozzetto and a burraco a close is possible: it melds
    assert choice("legends_medium", pos("5♠ 6♠ 7♠ 3♦", melds=RUN7, taken=(0,))) == \
        "meld 5♠ 6♠ 7♠"


def test_legends_lays_off_first_keeping_two_cards_and_wilds_back():
    p = pos("8♥ K♣ K♦ K♠ 3♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("legends_medium", p) == "lay off 8♥ on meld 0"
    assert choice("legends_medium", pos("8♥ 3♣", melds=[(0, "5♥ 6♥ 7♥")])) == \
        "end the meld phase"
    p = pos("JK 3♣ 9♦ J♠ K♦ 5♣ 8♠", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("legends_medium", p) == "end the meld phase"      # one wild, 7 cards
    p = pos("JK 3♣ 9♦ J♠ K♦", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("legends_medium", p) == "lay off JK on meld 0"     # a hand of 5


def test_legends_discards_its_least_useful_natural_never_a_wild():
    # no neighbours anywhere: the most points (first in hand order)
    assert choice("legends_medium", pos("5♥ 8♥ 3♦ 9♠ JK", phase="discard")) == "discard 8♥"
    # K♣ with K♦ (3) scores 30-10; 9♠ has 10♠ one away (3); 4♦ has 6♦ two away (1): 10-5
    p = pos("K♣ K♦ 9♠ 10♠ 4♦ 6♦ 2♥", phase="discard")
    assert choice("legends_medium", p) == "discard 4♦"


# ---------------------------------------------------------------- valmir
def test_valmir_takes_a_useful_pile():
    hand = "9♦ 8♦ K♠ 3♣"
    for spec in ("valmir_medium", "valmir_hard"):
        assert choice(spec, pos(hand, "pickup", pile="K♥ 10♦")).startswith("take")
        assert choice(spec, pos(hand, "pickup", pile="10♦ K♥")) == "draw from the stock"
    # sets of aces only: a king on top of a pair of kings is no meld for it
    assert choice("valmir_hard", pos("K♦ K♠ 3♣", "pickup", pile="K♥")) == "draw from the stock"
    assert choice("valmir_hard", pos("A♦ A♠ 3♣", "pickup", pile="A♥")).startswith("take")
    seen = [choice("valmir_easy", pos(hand, "pickup", pile="K♥ 10♦"), s) for s in range(100)]
    assert 30 <= sum(a.startswith("take") for a in seen) <= 70        # p_take = 0.5


def test_valmir_no_dirty_meld_before_a_clean_burraco():
    p = pos("5♥ 6♥ JK 3♣ 9♦ K♠ Q♦")
    assert choice("valmir_hard", p) == "end the meld phase"
    p = pos("5♥ 6♥ JK 3♣ 9♦ K♠ Q♦", melds=RUN7)
    assert choice("valmir_hard", p) == "meld 5♥ 6♥ JK"
    # never dirty a clean burraco, even after one
    p = pos("JK 3♣ 9♦ K♠", melds=RUN7)
    assert choice("valmir_hard", p) == "end the meld phase"


def test_valmir_makes_sequences_and_sets_of_aces_only():
    assert choice("valmir_hard", pos("K♦ K♠ K♣ 3♣ 9♦")) == "end the meld phase"
    assert choice("valmir_hard", pos("A♦ A♠ A♣ 3♣ 9♦")).startswith("meld A")
    assert choice("valmir_hard:allow_sets=1", pos("K♦ K♠ K♣ 3♣ 9♦")) == "meld K♣ K♦ K♠"


def test_valmir_hard_first_lay_off_then_the_longest_meld():
    p = pos("8♥ 4♥ K♣ Q♣ J♣ 10♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("valmir_hard", p) == "lay off 4♥ on meld 0"
    assert choice("valmir_hard", pos("K♣ Q♣ J♣ 10♣ 5♦ 6♦ 7♦ 9♠")) == "meld 10♣ J♣ Q♣ K♣"


def test_valmir_medium_a_random_lay_off_before_a_random_meld_easy_any():
    p = pos("8♥ 4♥ K♣ Q♣ J♣ 9♦ 3♠", melds=[(0, "5♥ 6♥ 7♥")])
    assert choices("valmir_medium", p) == {"lay off 4♥ on meld 0", "lay off 8♥ on meld 0"}
    seen = choices("valmir_easy", p, range(60))
    assert seen == {"lay off 4♥ on meld 0", "lay off 8♥ on meld 0", "meld J♣ Q♣ K♣"}


def test_valmir_discards():
    # never a wild while a natural is held
    assert choices("valmir_easy", pos("JK 2♥ K♣ 9♦", phase="discard")) == \
        {"discard K♣", "discard 9♦"}
    # medium: the first 3, 4 or 5 in hand order; else a random natural
    assert choice("valmir_medium", pos("K♣ 5♦ 4♥ 9♠", phase="discard")) == "discard 5♦"
    assert choices("valmir_medium", pos("K♣ 9♦ JK", phase="discard")) == \
        {"discard K♣", "discard 9♦"}
    # hard: 3, 4, 5 first (lowest), then the lowest rank, the ace high
    assert choice("valmir_hard", pos("K♣ 5♦ 4♥ 9♠", phase="discard")) == "discard 4♥"
    assert choice("valmir_hard", pos("K♣ A♦ 9♠ 2♥", phase="discard")) == "discard 9♠"


# ---------------------------------------------------------------- raphael_bot
def test_raphael_pickup_rules():
    seqs = [(0, "5♥ 6♥ 7♥")]
    # (a) the top extends a team sequence
    p = pos("K♣ 3♦ J♠", "pickup", pile="K♦ 8♥", melds=seqs)
    assert choice("raphael_bot", p).startswith("take")
    # (b) with one hand card
    p = pos("K♣ 8♥ J♠", "pickup", pile="K♦ 9♥", melds=seqs)
    assert choice("raphael_bot", p).startswith("take")
    # (c) a clean new sequence with two hand cards of its suit; not a set
    assert choice("raphael_bot", pos("9♠ J♠ 3♦", "pickup", pile="K♦ 10♠")).startswith("take")
    assert choice("raphael_bot", pos("10♦ 10♣ 3♦", "pickup", pile="K♦ 10♠")) == \
        "draw from the stock"
    # a wild on a clean sequence: before the pozzetto only
    p = pos("K♣ 3♦ J♠", "pickup", pile="K♦ 2♣", melds=seqs, taken=(0,))
    assert choice("raphael_bot", p) == "draw from the stock"
    p = pos("K♣ 3♦ J♠", "pickup", pile="K♦ 2♣", melds=seqs)
    assert choice("raphael_bot", p).startswith("take")


def test_raphael_lays_off_naturals_before_twos_and_keeps_clean_sequences_after_the_pozzetto():
    p = pos("2♣ 8♥ K♣ 3♦ J♠", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("raphael_bot", p) == "lay off 8♥ on meld 0"
    p = pos("2♣ K♣ 3♦ J♠", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("raphael_bot", p) == "lay off 2♣ on meld 0"
    p = pos("2♣ K♣ 3♦ J♠", melds=[(0, "5♥ 6♥ 7♥")], taken=(0,))
    assert choice("raphael_bot", p) == "end the meld phase"
    # sets are not its melds: nothing on the team's set of kings
    assert choice("raphael_bot", pos("K♥ 3♦ J♠ 9♣", melds=[(0, "K♣ K♦ K♠")])) == \
        "end the meld phase"


def test_raphael_new_meld_the_longest_run_of_the_first_suit_then_two_cards_and_a_2():
    p = pos("3♣ 4♣ 5♣ 9♦ 10♦ J♦ Q♦ K♠ K♥ K♦")
    assert choice("raphael_bot", p) == "meld 3♣ 4♣ 5♣"              # clubs first
    assert choice("raphael_bot", pos("9♦ 10♦ J♦ Q♦ 5♣ K♠")) == "meld 9♦ 10♦ J♦ Q♦"
    assert choice("raphael_bot", pos("K♠ K♥ K♦ 9♣ 3♦")) == "end the meld phase"
    a = choice("raphael_bot", pos("9♦ J♦ 2♠ 5♣ K♠"))
    assert a.startswith("meld") and sorted(a.split()[1:]) == sorted(["9♦", "J♦", "2♠"])
    assert choice("raphael_bot", pos("9♦ J♦ JK 5♣ K♠")) == "end the meld phase"   # no joker


def test_raphael_discard_score():
    # 9♠/10♠ one apart (utility 50 each), 4♦/6♦ two apart (25 each); K♣ and 3♥ none:
    # K♣ has the more points
    p = pos("K♣ 9♠ 10♠ 4♦ 6♦ 3♥", phase="discard")
    assert choice("raphael_bot", p) == "discard K♣"
    # the pile top's face costs 40
    p = pos("K♣ 3♥ 9♠ 10♠", phase="discard", pile="K♣")
    assert choice("raphael_bot", p) == "discard 3♥"
    # risk: K♣ extends the opponents' clubs run
    p = pos("K♣ 3♥ 9♠ 10♠", phase="discard", melds=[(1, "10♣ J♣ Q♣")])
    assert choice("raphael_bot", p) == "discard 3♥"
    # 2s only when nothing else may go
    assert choice("raphael_bot", pos("2♣ 2♥ 9♠ 10♠", phase="discard")) == "discard 9♠"


# ---------------------------------------------------------------- thilanguis_bot
def test_thilanguis_pickup_clean_fits_and_clean_sequences():
    # 1. the top on an own meld without a wild
    p = pos("K♣ 3♦ J♠ 9♣ 4♠ 6♦ 8♣", "pickup", pile="K♦ 8♥", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("thilanguis_bot", p).startswith("take")
    # 2. a clean 3-card sequence; not a second sequence of a suit on the table
    p = pos("9♠ J♠ 3♦ K♣ 5♣ 6♦ 8♣", "pickup", pile="K♦ 10♠")
    assert choice("thilanguis_bot", p).startswith("take")
    p = pos("9♠ J♠ 3♦ K♣ 5♣ 6♦ 8♣", "pickup", pile="K♦ 10♠", melds=[(0, "3♠ 4♠ 5♠")])
    assert choice("thilanguis_bot", p) == "draw from the stock"
    # no set
    p = pos("10♦ 10♣ 3♦ K♣ 5♣ 6♦ 8♣", "pickup", pile="K♦ 10♠")
    assert choice("thilanguis_bot", p) == "draw from the stock"


def test_thilanguis_pickup_juicy_pile_and_the_free_pile():
    # 3. a pile of 8: a sequence whose only wild is a 2 of its suit (9♠ 2♠ and J♠ on top)
    pile8 = "4♦ 7♣ Q♥ 3♥ 5♣ 8♦ 6♥ J♠"
    p = pos("9♠ 2♠ 3♦ K♣ 5♦ 6♦ A♥", "pickup", pile=pile8)
    assert choice("thilanguis_bot", p).startswith("take")
    # 5. the free pile: 4 or 5 cards are taken, 6 or more are not
    hand = "9♠ 3♦ K♣ 5♦ 6♦ A♥ Q♣"
    assert choice("thilanguis_bot", pos(hand, "pickup", pile="4♦ 7♣ Q♥ 3♥")).startswith("take")
    assert choice("thilanguis_bot", pos(hand, "pickup", pile="4♦ 7♣ Q♥ 3♥ 5♣ 10♥")) == \
        "draw from the stock"
    # ... unless it holds a wild
    assert choice("thilanguis_bot", pos(hand, "pickup", pile="4♦ 7♣ JK 3♥ 5♣ 10♥")).startswith(
        "take")
    assert choice("thilanguis_bot", pos(hand, "pickup", pile="4♦ 7♣ Q♥")) == \
        "draw from the stock"
    # rushing (no pozzetto yet, a hand of 5 or fewer): 3 cards are enough
    p = pos("9♠ 3♦ K♣ 5♦ 6♦", "pickup", pile="4♦ 7♣ Q♥")
    assert choice("thilanguis_bot", p).startswith("take")


def test_thilanguis_pickup_refuses_a_big_pile_at_the_endgame():
    pile8 = "4♦ 7♣ Q♥ 3♥ 5♣ 8♦ 6♥ 10♠"
    hand = "9♠ J♠ 3♦ K♣ 5♦ 6♦ A♥"
    assert choice("thilanguis_bot", pos(hand, "pickup", pile=pile8)).startswith("take")
    p = pos(hand, "pickup", pile=pile8, sizes=(20, 20, 11))
    assert p["stock"] == 20                                          # <= endgame_stock 22
    assert choice("thilanguis_bot", p) == "draw from the stock"


def test_thilanguis_meld_phase_order_naturals_then_a_natural_two_then_clean_threes():
    p = pos("8♥ 2♣ K♣ Q♣ J♣ 4♠", melds=[(0, "5♥ 6♥ 7♥"), (0, "3♣ 4♣ 5♣")])
    assert choice("thilanguis_bot", p) == "lay off 8♥ on meld 0"
    p = pos("2♣ K♣ Q♣ J♣ 4♠ 9♦", melds=[(0, "5♥ 6♥ 7♥"), (0, "3♣ 4♣ 5♣")])
    assert choice("thilanguis_bot", p) == "lay off 2♣ on meld 1"    # its natural 2
    p = pos("K♣ Q♣ J♣ 10♣ 4♠ 9♦ 5♥")
    assert choice("thilanguis_bot", p) in {"meld J♣ Q♣ K♣", "meld 10♣ J♣ Q♣"}
    # never a second sequence of a suit already on the table
    p = pos("K♣ Q♣ J♣ 4♠ 9♦ 6♥", melds=[(0, "3♣ 4♣ 5♣")])
    assert choice("thilanguis_bot", p) == "end the meld phase"


def test_thilanguis_dirty_plays_only_when_rushing_desperate_or_at_the_endgame():
    # a full stock, no mode: the wild stays in hand
    assert choice("thilanguis_bot", pos("Q♣ K♣ JK 4♠ 9♦ 6♥ 8♠")) == "end the meld phase"
    # desperate: the opponents took their pozzetto, we did not, the stock under 25
    p = pos("Q♣ K♣ JK 4♠ 9♦ 6♥", taken=(1,), sizes=(25, 21, 20))
    assert 22 < p["stock"] < 25
    assert choice("thilanguis_bot", p) == "meld Q♣ K♣ JK"


def test_thilanguis_safe_actions_only():
    # safe: our R38 refuses the same actions (one card left after the pozzetto without a
    # burraco); with a burraco the meld is safe, and before the pozzetto too
    assert choice("thilanguis_bot", pos("K♣ Q♣ J♣ 4♠", taken=(0,))) == "end the meld phase"
    assert choice("thilanguis_bot", pos("K♣ Q♣ J♣ 4♠", taken=(0,), melds=RUN7)) == \
        "meld J♣ Q♣ K♣"
    assert choice("thilanguis_bot", pos("K♣ Q♣ J♣ 4♠")) == "meld J♣ Q♣ K♣"


def test_thilanguis_discards_the_least_dangerous_card():
    melds = [(1, "10♦ J♦ Q♦"), (0, "3♠ 4♠ 5♠"), (0, "7♥ 8♥ 9♥")]
    # K♣ 0, 9♦ fits theirs 500, A♠ an ace of a suit we hold 150, 6♥ fits ours 200
    assert choice("thilanguis_bot", pos("JK 2♥ K♣ 9♦ A♠ 6♥", "discard", melds=melds)) == \
        "discard K♣"
    assert choice("thilanguis_bot", pos("JK 2♥ 9♦ A♠ 6♥", "discard", melds=melds)) == \
        "discard A♠"
    assert choice("thilanguis_bot", pos("JK 2♥", phase="discard")) == "discard 2♥"


# ---------------------------------------------------------------- goodwin_ismcts
def test_goodwin_ismcts_keeps_the_described_budget_as_its_default():
    assert sim.strategies.get("goodwin_ismcts").params["iterations"][1] == 20000


def test_goodwin_ismcts_expands_a_random_untried_action():
    # one iteration: the only child is a uniformly drawn legal action
    p = pos("K♣ K♦ K♠ 5♥ 9♣ 3♦")
    assert choices("goodwin_ismcts:iterations=1", p, range(30)) == \
        {"meld K♣ K♦ K♠", "end the meld phase"}


def test_goodwin_ismcts_reward_drives_the_choice():
    # H rewards small hands: melding the kings (2 cards after the discard, H = 0.25) beats
    # keeping them (5 cards, 0.15); with H reversed the search keeps them
    p = pos("K♣ K♦ K♠ 5♥ 9♣ 3♦")
    assert choices("goodwin_ismcts:iterations=300", p, range(6)) == {"meld K♣ K♦ K♠"}
    rev = ("goodwin_ismcts:iterations=300,h_0=0,h_1=0,h_2=0,h_3_4=0,h_5_6=1,h_7_9=1,"
           "h_10_plus=1")
    assert choices(rev, p, range(6)) == {"end the meld phase"}


def test_goodwin_ismcts_most_visited_child_avoids_a_big_pile():
    # a pile of 10 makes a hand of 15 (H = 0.05): the most visited pickup is the stock
    p = pos("K♣ K♦ 5♥ 9♣ 3♦", phase="pickup", pile="K♠ 7♦ 8♠ 4♥ 6♣ 10♥ J♦ Q♣ 2♦ 3♠")
    seen = [choice("goodwin_ismcts:iterations=300", p, s) for s in range(10)]
    assert seen.count("draw from the stock") >= 8


# ---------------------------------------------------------------- every new bot
@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_referee_passes_every_action(family):
    for k, name in enumerate(FAMILIES[family]):
        spec = {"team0": name, "team1": "expert"} if k % 2 == 0 else \
            {"team0": "expert", "team1": name}
        hands = 20 if family == "ismcts" else 100
        df = sim.simulate(hands=hands, seed=12 + k, strategies=spec)
        assert (df["error"] == 0).all()
        for i in range(0, hands, 20):
            doc = json.loads(json.dumps(sim.replay(12 + k, i, strategies=spec),
                                        ensure_ascii=False))
            v = R.check(doc)
            assert not v, "\n".join(map(str, v))


@pytest.mark.parametrize("family", FAMILY_PARAMS)
def test_no_hidden_card_is_read(family):
    gen = np.random.default_rng(20261202)
    for name in FAMILIES[family]:
        k = 2 if family == "ismcts" else 4
        assert sum(play_checked(name, 81, i, gen) for i in range(k)) > 15 * k
