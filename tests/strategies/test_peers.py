"""The other engines' bots as named strategies: each follows its
description (docs/peer_bots.md) on hand-made positions, one test per rule; all of them
play only legal actions (the referee) and read no hidden card."""
from __future__ import annotations

import json

import numpy as np
import pytest

import referee as R
import sim
from sim.play.game import Game
from test_hidden_info import play_checked

NAMES = list(sim.peers.PEERS)[:9]    # the first nine; the others: tests/strategies/test_peers_more.py


def pos(hand, phase="meld", melds=(), pile="", sizes=(11, 11, 11), turn=1, taken=(),
        seat=0, **extra):
    """A position of seat ``seat`` (4 players); the stock size is what the counts leave."""
    if phase != "pickup" and not pile:
        pile = "10♦"                      # the last discard before this turn
    hand_cards = hand.split()
    hs = [len(hand_cards)] + list(sizes)
    hs = hs[-seat:] + hs[:-seat] if seat else hs
    mcards = sum(len(m[1].split()) for m in melds)
    left = 2 - len(taken)
    stock = 108 - sum(hs) - mcards - len(pile.split()) - 11 * left
    p = {"seat": seat, "phase": phase, "turn": turn, "hand": hand, "hand_sizes": hs,
         "pile": pile, "stock": stock,
         "melds": [{"side": s, "cards": c} for s, c in melds],
         "pozzetti": {"left": left, "taken": [{"side": s} for s in taken]}}
    if phase != "pickup":
        p["this_turn"] = {"pickup": "stock"}
    p.update(extra)
    return p


def choice(spec, position, seed=0):
    g = Game.from_position(position, seed=seed, strategies=spec)
    return g.action_text(g.choose())


def choices(spec, position, seeds=range(40)):
    return {choice(spec, position, s) for s in seeds}


# ---------------------------------------------------------------- goodwin_random
def test_goodwin_random_pickup_is_a_coin_flip():
    p = pos("3♣ 7♦ 9♥ J♠ K♣", phase="pickup", pile="5♥ 8♠")
    seen = [choice("goodwin_random", p, s).split(" (")[0] for s in range(60)]
    assert set(seen) == {"draw from the stock", "take the pile"}
    assert 15 <= seen.count("take the pile") <= 45


def test_goodwin_random_new_sequence_first_most_naturals_natural_first():
    p = pos("5♥ 6♥ 7♥ 8♥ 9♣ 10♣ JK K♦ K♠ K♣ 3♠ 4♦")
    assert choice("goodwin_random", p) == "meld 5♥ 6♥ 7♥ 8♥"


def test_goodwin_random_lay_off_on_a_sequence_before_a_new_set():
    p = pos("8♥ K♦ K♠ K♣ 3♠ 4♦", melds=[(0, "Q♣ Q♦ Q♠"), (0, "5♥ 6♥ 7♥")])
    assert choice("goodwin_random", p) == "lay off 8♥ on meld 1"
    p = pos("Q♥ K♦ K♠ K♣ 3♠ 4♦", melds=[(0, "Q♣ Q♦ Q♠"), (0, "5♥ 6♥ 7♥")])
    assert choice("goodwin_random", p) == "meld K♣ K♦ K♠"      # a new set before a set lay-off


def test_goodwin_random_discards_any_card_at_random():
    p = pos("3♣ 7♦ 9♥ J♠ K♣", phase="discard")
    seen = choices("goodwin_random", p, range(60))
    assert seen == {f"discard {c}" for c in "3♣ 7♦ 9♥ J♠ K♣".split()}


# ---------------------------------------------------------------- goodwin_low
def test_goodwin_low_takes_a_pile_of_four_or_more():
    hand = "3♣ 7♦ 9♥ J♠ K♣"
    assert choice("goodwin_low", pos(hand, "pickup", pile="5♥ 8♠ 4♦ Q♥")).startswith("take")
    assert choice("goodwin_low", pos(hand, "pickup", pile="5♥ 8♠ 4♦")) == "draw from the stock"


def test_goodwin_low_melds_the_longest_window_first_a_gap_with_the_first_wild():
    # clubs first: 5-6-7-9 has no run of 4; 4-card windows with one gap take the wild
    p = pos("5♣ 6♣ 7♣ 9♣ 2♦ K♥ K♠ K♦ 4♠")
    assert choice("goodwin_low", p) == "meld 5♣ 6♣ 7♣ 2♦ 9♣"
    p = pos("5♣ 6♣ 7♣ 9♣ K♥ K♠ K♦ 4♠")
    assert choice("goodwin_low", p) == "meld 5♣ 6♣ 7♣"       # no wild: the run of 3


def test_goodwin_low_one_new_meld_per_turn():
    g = Game.from_position(pos("5♣ 6♣ 7♣ K♥ K♠ K♦ 4♠ 9♦", "pickup", pile="Q♦"),
                           strategies="goodwin_low")
    g.apply(g.choose())                                       # draws (1-card pile)
    first = g.choose()
    assert g.action_text(first) == "meld 5♣ 6♣ 7♣"
    g.apply(first)
    assert g.action_text(g.choose()) == "end the meld phase"   # the set of kings waits


def test_goodwin_low_invalid_first_candidate_melds_nothing_unless_skipped():
    # a wild in hand allows 2-card windows: the clubs pair 5-6 comes first and is no meld
    p = pos("5♣ 6♣ 7♥ 8♥ 9♥ JK Q♠ 4♦")
    assert choice("goodwin_low", p) == "end the meld phase"
    # skipped: a run of two takes no wild (no gap), so the hearts run comes next
    assert choice("goodwin_low:skip_invalid_first=1", p) == "meld 7♥ 8♥ 9♥"


def test_goodwin_low_never_lays_off():
    p = pos("8♥ 3♠ J♦ 4♣", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("goodwin_low", p) == "end the meld phase"


def test_goodwin_low_discards_its_first_card_wilds_included():
    assert choice("goodwin_low", pos("K♠ 9♦ 2♣ 5♥", phase="discard")) == "discard 2♣"


# ---------------------------------------------------------------- babbo_coded
def test_babbo_pickup_without_a_burraco():
    hand = "3♣ 7♦ 9♥ J♠ K♣"
    assert choice("babbo_coded", pos(hand, "pickup", pile="5♥ 8♠ 4♦ Q♥")).startswith("take")
    assert choice("babbo_coded", pos(hand, "pickup", pile="5♥ 8♠ 4♦")) == "draw from the stock"
    assert choice("babbo_coded", pos("3♣", "pickup", pile="5♥", taken=(0,))).startswith("take")


def test_babbo_pickup_with_a_burraco():
    run = [(0, "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥")]
    assert choice("babbo_coded", pos("3♣ K♣", "pickup", melds=run, pile="5♦ 8♠")).startswith(
        "take")
    assert choice("babbo_coded", pos("3♣ K♣ 9♠", "pickup", melds=run,
                                     pile="5♦ 8♠ 4♦ Q♥")) == "draw from the stock"


def test_babbo_meld_keeps_two_cards_without_a_burraco_one_with():
    hand = "5♠ 6♠ 7♠ 8♠ 3♣"
    assert choice("babbo_coded", pos(hand)) == "end the meld phase"
    run = [(0, "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥")]
    assert choice("babbo_coded", pos(hand, melds=run)) == "meld 5♠ 6♠ 7♠ 8♠"


def test_babbo_melds_the_longest_candidate_a_set_with_the_first_wild():
    p = pos("K♣ K♦ K♠ JK 5♥ 6♥ 7♥ 9♣ 3♦")
    assert choice("babbo_coded", p) == "meld K♣ K♦ K♠ JK"       # 4 cards beat the run of 3


def test_babbo_aces_never_join_a_run_unless_asked():
    p = pos("Q♥ K♥ A♥ 3♣ 9♦ 5♠")
    assert choice("babbo_coded", p) == "end the meld phase"
    assert choice("babbo_coded:ace_in_runs=1", p) == "meld Q♥ K♥ A♥"


def test_babbo_lays_off_before_melding_and_keeps_cards_back():
    p = pos("8♥ K♣ K♦ K♠ 3♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("babbo_coded", p) == "lay off 8♥ on meld 0"
    # pozzetto taken, no burraco: never down to 2 cards by a lay-off
    p = pos("8♥ 3♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")], taken=(0,))
    assert choice("babbo_coded", p) == "end the meld phase"


def test_babbo_discards_at_random():
    seen = choices("babbo_coded", pos("3♣ 7♦ 9♥ J♠", phase="discard"), range(50))
    assert seen == {f"discard {c}" for c in "3♣ 7♦ 9♥ J♠".split()}


# ---------------------------------------------------------------- blofroth
def test_blofroth_dumb_alternates_stock_and_pile_by_round():
    hand = "3♣ 7♦ 9♥ J♠ K♣"
    assert choice("blofroth_dumb", pos(hand, "pickup", pile="5♥ 8♠", turn=1)) == \
        "draw from the stock"
    assert choice("blofroth_dumb", pos(hand, "pickup", pile="5♥ 8♠", turn=5)).startswith("take")
    assert choice("blofroth_max", pos(hand, "pickup", pile="5♥ 8♠", turn=5)).startswith("take")


def test_blofroth_dumb_plays_the_last_listed_action():
    # an append beats a new set, a new set beats a new sequence; only 3-card new melds
    p = pos("8♥ K♣ K♦ K♠ 3♣ 4♣ 5♣ 6♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("blofroth_dumb", p) == "lay off 8♥ on meld 0"
    p = pos("K♣ K♦ K♠ 3♣ 4♣ 5♣ 6♣ 9♦")
    assert choice("blofroth_dumb", p) == "meld K♣ K♦ K♠"
    p = pos("3♣ 4♣ 5♣ 6♣ 9♦ J♥")
    assert choice("blofroth_dumb", p) in {"meld 3♣ 4♣ 5♣", "meld 4♣ 5♣ 6♣"}


def test_blofroth_discards_jokers_first_then_low_clubs():
    assert choice("blofroth_dumb", pos("K♠ 9♦ JK 3♣", phase="discard")) == "discard JK"
    assert choice("blofroth_max", pos("K♠ 9♦ A♣ 3♣", phase="discard")) == "discard 3♣"


def test_blofroth_random_never_stops_while_it_can_play():
    p = pos("8♥ K♣ K♦ K♠ 3♣ 9♦", melds=[(0, "5♥ 6♥ 7♥")])
    seen = choices("blofroth_random", p, range(40))
    assert "end the meld phase" not in seen and len(seen) >= 2
    assert choice("blofroth_random", pos("8♥ K♣ 3♣ 9♦")) == "end the meld phase"


def test_blofroth_smart_takes_a_pile_whose_card_adds_an_action():
    hand = "3♣ 7♦ 9♥ J♠ K♣ K♦"
    assert choice("blofroth_smart", pos(hand, "pickup", pile="5♥ K♠")).startswith("take")
    assert choice("blofroth_smart", pos(hand, "pickup", pile="5♥ 4♠")) == "draw from the stock"


def test_blofroth_smart_class_order_then_smallest_gain():
    # a new sequence (10) before a new set (15) before an append (20)
    p = pos("8♥ K♣ K♦ K♠ J♠ Q♠ 3♦ 4♦ 5♦ 9♣", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("blofroth_smart", p) == "meld 3♦ 4♦ 5♦"       # 15 points before 30
    p = pos("8♥ K♣ K♦ K♠ 9♣ 3♠", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("blofroth_smart", p) == "meld K♣ K♦ K♠"


def test_blofroth_smart_discards_the_first_card_that_feeds_no_opposing_meld():
    p = pos("JK 3♣ 9♦ K♠", phase="discard", melds=[(1, "3♠ 3♦ 3♥")])
    assert choice("blofroth_smart", p) == "discard 9♦"           # JK and 3♣ fit the 3s
    p = pos("JK 3♣ 9♦", phase="discard")
    assert choice("blofroth_smart", p) == "discard JK"           # quirk S1


def test_blofroth_max_takes_the_largest_point_gain():
    # 10♥ on the 6-card run makes a clean burraco (+10 +200)
    p = pos("10♥ K♣ K♦ K♠ 3♣ 9♦", melds=[(0, "4♥ 5♥ 6♥ 7♥ 8♥ 9♥")])
    assert choice("blofroth_max", p) == "lay off 10♥ on meld 0"
    p = pos("3♥ K♣ K♦ K♠ 8♣ 9♦", melds=[(0, "4♥ 5♥ 6♥")])
    assert choice("blofroth_max", p) == "meld K♣ K♦ K♠"          # 30 points beat 5


# ---------------------------------------------------------------- masu
def test_masu_normal_takes_the_pile_when_a_pile_card_is_used():
    hand = "3♣ 7♦ 9♥ J♠ K♣ K♦"
    assert choice("masu_normal", pos(hand, "pickup", pile="5♥ K♠")).startswith("take")
    assert choice("masu_normal", pos(hand, "pickup", pile="8♥ 10♥")).startswith("take")
    assert choice("masu_normal", pos(hand, "pickup", pile="5♥ 4♠")) == "draw from the stock"
    assert choice("masu_easy", pos(hand, "pickup", pile="5♥ K♠")) == "draw from the stock"


def test_masu_normal_goes_for_the_pozzetto_and_the_closure_first():
    # three cards: the set K♣ K♦ K♠ empties the hand (pozzetto al volo) against more cards
    p = pos("K♣ K♦ K♠", melds=[(0, "4♥ 5♥ 6♥")])
    assert choice("masu_normal", p) == "meld K♣ K♦ K♠"
    # pozzetto taken and a burraco: leave one natural card to close with
    run = [(0, "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥")]
    p = pos("10♥ J♥ Q♥ 5♣", melds=run, taken=(0,))
    assert choice("masu_normal", p) == "meld 10♥ J♥ Q♥"     # not the lay-off of 10♥


def test_masu_ranks_by_class_gain_then_cards_then_fewer_wilds():
    # the lay-off that makes a clean burraco beats a 4-card meld
    p = pos("10♥ K♣ K♦ K♠ JK 9♦ 3♣", melds=[(0, "4♥ 5♥ 6♥ 7♥ 8♥ 9♥")])
    assert choice("masu_normal", p) == "lay off 10♥ on meld 0"
    assert choice("masu_easy", p) == "meld K♣ K♦ K♠ JK"          # easy: most cards
    p = pos("4♥ 8♥ JK 3♣ 9♦ K♠", melds=[(0, "5♥ 6♥ 7♥")])
    # one card each: fewer wilds (not JK), then more points (8♥ before 4♥)
    assert choice("masu_easy", p) == "lay off 8♥ on meld 0"


def test_masu_discards():
    # normal: not a wild, fits no own meld, fewest future melds, then the most points
    p = pos("JK 9♦ A♠ 8♥ 3♣ 4♣", phase="discard", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("masu_normal", p) == "discard A♠"       # 8♥ fits, 3♣ 4♣ JK is a meld
    p = pos("JK 9♦ A♠ A♥ 3♣", phase="discard", melds=[(0, "A♣ A♦ A♠")])
    assert choice("masu_normal", p) == "discard 9♦"       # the aces fit the own set
    assert choice("masu_easy", p) == "discard A♥"         # the highest non-wild, first face
    p = pos("JK 9♦ A♠ 8♥", phase="discard", melds=[(0, "5♥ 6♥ 7♥")])
    assert choice("masu_easy", p) == "discard A♠"
    assert choice("masu_normal", p) == "discard A♠"


# ---------------------------------------------------------------- every peer bot
def test_every_peer_name_has_its_chooser_in_its_engine_s_module():
    """... and its C callback's body, which calls that chooser."""
    import importlib

    from sim import peers
    for name, (attr, _params, _doc) in peers.PEERS.items():
        module = importlib.import_module(f"kernels.peers.{peers.module_of(name)}")
        assert callable(getattr(module, attr, None)), name
        body = getattr(module, peers.callback_of(name))
        assert attr in body.__code__.co_names, name
    assert {peers.module_of(n) for n in peers.PEERS} == set(peers.MODULES)


@pytest.mark.parametrize("name", NAMES)
def test_referee_passes_every_action(name):
    spec = {"team0": name, "team1": "expert"}
    df = sim.simulate(hands=300, seed=11, strategies=spec)
    assert (df["error"] == 0).all()
    for i in range(0, 300, 15):
        doc = json.loads(json.dumps(sim.replay(11, i, strategies=spec), ensure_ascii=False))
        v = R.check(doc)
        assert not v, "\n".join(map(str, v))


@pytest.mark.parametrize("name", NAMES)
def test_no_hidden_card_is_read(name):
    gen = np.random.default_rng(20261201)
    assert sum(play_checked(name, 79, i, gen) for i in range(8)) > 150
