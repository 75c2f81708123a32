"""Documents that start from a state: the referee on sampled worlds.

A hand played on from a sampled world (``Game.sample_world``, ``Game.from_position``)
has a ``start`` block instead of a deal (sim/trace.py).  Here: the referee reports a
start that breaks the rules (a duplicated card, an invalid meld, a seat, stock, phase,
R36 card or pozzetti the rules cannot reach) and events after a clean start that break
one, each with its rule id; the referee's legal moves from a sampled world's
``history_document()`` are exactly ``legal_actions()``; a world sampled after the hand
ended, and one that does not know its start, are refused in one line.
"""
from __future__ import annotations

import copy
import json
from collections import Counter

import numpy as np
import pytest

import referee as R
import sim
from kernels.table import state as KS
from sim.play.game import A_END_MELD, Game
from _decisions import SPACE, choose, differences, positions

#: how often a decision of each phase gets a sampled world
WORLD_RATE = {"pickup": 0.05, "place": 0.5, "meld": 0.03, "discard": 0.05}


def world_doc(seed=3, hand=5, decisions=30, rules=None, phase=None, play=True):
    """The replay document of a hand played on (heuristic) from a world sampled for
    the seat to move after ``decisions`` decisions (at the first later ``phase``),
    as JSON would give it back; checked to be clean."""
    g = Game.new(seed, hand, rules=rules)
    for _ in range(decisions):
        g.apply(g.choose())
    while phase is not None and g.phase != phase:
        g.apply(g.choose())
    w = g.sample_world(g.current_seat, 11, 0)
    doc = json.loads(json.dumps((w.play().replay_document() if play
                                 else w.history_document()), ensure_ascii=False))
    if play:
        assert not R.check(doc), R.check(doc)
    return doc


def rules_of(doc) -> set:
    return {v.rule for v in R.check(doc)}


def move_card(doc, cid, src: list, dst: list, text_src: list, text_dst: list):
    """Move card ``cid`` from the id list ``src`` to ``dst`` (and its text)."""
    i = src.index(cid)
    src.pop(i)
    text_src.pop(i)
    dst.append(cid)
    text_dst.append(R.card_text(cid))


# ----------------------------------------------------------------------------- a bad start
def duplicated_card(doc):
    s = doc["start"]
    s["hand_ids"][0][0] = s["stock_ids"][0]             # a second stock top card, one lost
    s["hands"][0][0] = s["stock"][0]


def invalid_meld(doc):
    """Swap a natural of a meld with a hand card of another rank and suit (R17)."""
    s = doc["start"]
    for side in s["melds"]:
        for m in side:
            nat = [c for c in m["card_ids"] if not R.is_wild_card(R.fold(R.face_of(c)))]
            ranks = {R.rank_of(R.face_of(c)) for c in nat}
            suits = {R.suit_of(R.face_of(c)) for c in nat}
            for h, texts in zip(s["hand_ids"], s["hands"]):
                for k, c in enumerate(h):
                    f = R.fold(R.face_of(c))
                    if len(nat) >= 2 and not R.is_wild_card(f) and R.rank_of(f) not in ranks \
                            and R.suit_of(f) not in suits:
                        i = m["card_ids"].index(nat[0])
                        m["card_ids"][i], h[k] = c, nat[0]
                        m["cards"][i], texts[k] = R.card_text(c), R.card_text(nat[0])
                        return
    raise AssertionError("no meld to spoil")


def seat_out_of_turn(doc):
    doc["start"]["seat"] = (doc["start"]["seat"] + 1) % len(doc["start"]["hands"])


def stock_at_the_reserve(doc):
    s = doc["start"]
    while len(s["stock_ids"]) > 2:
        move_card(doc, s["stock_ids"][-1], s["stock_ids"], s["hand_ids"][1], s["stock"],
                  s["hands"][1])


def place_without_the_option(doc):
    s = doc["start"]
    s["phase"] = "place"
    s["this_turn"] = {"pickup": "take_pile", "pile_size": len(s["pile_ids"]),
                      "one_card_pile": False, "barred": None, "barred_id": None,
                      "actions": 0, "last_turn": False}
    seat = s["seat"]
    for c in list(s["pile_ids"]):
        move_card(doc, c, s["pile_ids"], s["hand_ids"][seat], s["pile"], s["hands"][seat])


def a_barred_card_without_a_pile(doc):
    s = doc["start"]
    c = s["hand_ids"][s["seat"]][0]
    s["this_turn"].update(barred=R.card_text(c), barred_id=c)


def two_pozzetti_for_one_side(doc):
    s = doc["start"]
    s["pozzetti"] = [{"state": "taken", "team": 0, "turn": 1, "mode": "direct"}] * 2


def a_stall_at_the_limit(doc):
    doc["start"]["stall"] = 12


BAD_STARTS = [  # (mutation, rule, the phase to sample at)
    (duplicated_card, "R1", "pickup"),
    (invalid_meld, "R17", "pickup"),
    (seat_out_of_turn, "R5", "pickup"),
    (stock_at_the_reserve, "R50", "pickup"),
    (place_without_the_option, "R34", "pickup"),
    (a_barred_card_without_a_pile, "R36", "discard"),
    (two_pozzetti_for_one_side, "R43", "pickup"),
    (a_stall_at_the_limit, "R51", "pickup"),
]


@pytest.mark.parametrize("mutate, rule, phase", BAD_STARTS, ids=[b[1] for b in BAD_STARTS])
def test_a_start_that_breaks_a_rule_is_reported(mutate, rule, phase):
    doc = world_doc(decisions=60, phase=phase)
    assert doc["start"]["phase"] == phase and doc["start"]["melds"][0]
    mutate(doc)
    got = [v for v in R.check(doc) if v.rule == rule]
    assert got and got[0].turn == 0 and str(got[0]).split()[3] == "start:", R.check(doc)


def test_a_duplicated_card_is_also_a_conservation_fault():
    doc = world_doc(decisions=60, phase="pickup")
    duplicated_card(doc)
    assert {"R1", "CONS"} <= rules_of(doc)


def test_a_clean_start_is_checked_like_a_deal():
    """Without the fault the same documents are clean, and the referee replays the
    start (its result check sees the counters from before it)."""
    doc = world_doc(decisions=60, phase="pickup")
    assert doc["start"]["pile_pickups"] != [0, 0]
    computed = R.computed_result(doc)
    assert computed["turns"] == doc["result"]["turns"] > doc["start"]["turn"]
    bad = copy.deepcopy(doc)
    bad["start"]["pile_pickups"][0] += 1         # a pickup before the start the result lacks
    assert {v.rule for v in R.check(bad)} == {"REC"}


# ----------------------------------------------------------------------------- bad events
def test_events_after_a_start_that_break_a_rule_are_reported():
    doc = world_doc(decisions=60, phase="pickup")
    ev = doc["events"][0]
    assert ev["type"] == "draw" and ev["card_id"] == doc["start"]["stock_ids"][0]
    s = doc["start"]                                   # draw the second card, not the top
    ev["card_id"], ev["card"] = s["stock_ids"][1], s["stock"][1]
    got = [v for v in R.check(doc) if v.rule == "R33"]
    assert got and got[0].turn == s["turn"] and "top of the stock" in got[0].message


def one_card_pile_world():
    """A world sampled right after its seat to move took a one-card pile (R36 bars
    the card)."""
    for hand in range(200):
        g = Game.new(8, hand, strategies="uniform")
        while not g.is_over:
            if g.phase == "meld" and g.state.g[KS.G_BARRED] >= 0:
                return g.sample_world(g.current_seat, 1, hand)
            g.apply(g.choose())
    raise AssertionError("no one-card pile taken")


def test_discarding_the_card_of_a_one_card_pile_after_a_start_is_reported():
    """The seat ends its meld phase at once, so its first discard, in the start's turn,
    could be the barred card it still holds: the document discarding it breaks R36."""
    w = one_card_pile_world().clone()
    assert A_END_MELD in w.legal_actions()
    w.apply(A_END_MELD)
    doc = w.play().replay_document()
    s = doc["start"]
    barred = s["this_turn"]["barred_id"]
    assert s["phase"] == "meld" and s["this_turn"]["one_card_pile"] and barred is not None
    assert not R.check(doc)
    first = next(e for e in doc["events"] if e["type"] == "discard")
    assert barred in s["hand_ids"][s["seat"]] and first["turn"] == s["turn"]
    assert first["card_id"] != barred
    first["card_id"], first["card"] = barred, R.card_text(barred)
    got = [v for v in R.check(doc) if v.rule == "R36"]
    assert got and got[0].turn == s["turn"], R.check(doc)


def test_a_meld_after_a_start_at_the_discard_is_reported():
    doc = world_doc(decisions=60, phase="discard")
    events = doc["events"]
    assert doc["start"]["phase"] == "discard" and events[0]["type"] == "discard"
    melds = [e for e in events if e["type"] == "meld"]
    assert melds, "the hand played on from this world has no meld to move: pick another"
    m = dict(melds[0], turn=events[0]["turn"], seat=events[0]["seat"])
    events.insert(0, m)
    got = [v for v in R.check(doc) if v.rule == "R32"]
    assert any("meld phase was ended" in v.message for v in got), R.check(doc)


# ----------------------------------------------------------------------------- the mask
MASK_CONFIGS = [  # (rules, driver, seed, worlds, decisions judged per world)
    (None, "heuristic", 201, 40, 4),
    (None, "random", 202, 40, 4),
    ("fibur_international", "random", 203, 40, 4),
    ({"num_players": 3}, "random", 204, 20, 4),
    ({"lock_two_roles": True}, "heuristic", 205, 20, 4),
]


@pytest.mark.slow
def test_the_mask_of_sampled_worlds_is_exact():
    """At 640 decisions of hands played on from worlds sampled at decisions of real
    games (the world's first decisions, every phase), the referee's legal moves from
    ``history_document()`` (a ``start`` block and the events since) are exactly the
    engine's ``legal_actions()``."""
    bad, phases, n = [], Counter(), 0
    for rules, driver, seed, count, per_world in MASK_CONFIGS:
        r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**(rules or {}))
        rng = np.random.default_rng(seed)
        for k, (g, _) in enumerate(positions(r, driver, seed, count, rate=WORLD_RATE)):
            w = g.sample_world(g.current_seat, seed, k)
            for _ in range(per_world):
                if w.is_over:
                    break
                legal = w.legal_actions()
                doc = w.history_document()
                assert "start" in doc and "deal" not in doc
                ref = R.legal_actions(doc, w.phase, w.current_seat, SPACE)
                if differences(w, legal, ref):
                    bad.append(differences(w, legal, ref))
                phases[w.phase] += 1
                n += 1
                w.apply(choose(w, legal, driver, rng))
    assert not bad, f"{len(bad)} of {n} decisions differ:\n" + "\n".join(bad[:10])
    assert n >= 600 and min(phases[p] for p in ("pickup", "place", "meld", "discard")) >= 20, \
        phases


# ----------------------------------------------------------------------------- refusals
def test_a_document_is_refused_only_where_none_can_be_made():
    g = Game.new(4, 2).play()
    w = g.sample_world(0, 1)
    with pytest.raises(ValueError, match="sampled after the hand was over"):
        w.history_document()
    w = Game.new(4, 2).sample_world(0, 1)
    w._start = None                              # a world that lost its start
    with pytest.raises(ValueError, match="does not know the state it was dealt in"):
        w.history_document()


def test_deal_documents_have_no_start():
    doc = Game.new(4, 2).play().replay_document()
    assert list(doc) == ["seed", "hand_index", "rules", "strategies", "dealer",
                         "first_player", "deal", "deal_ids", "events", "result"]
    assert doc == sim.replay(4, 2)


# ----------------------------------------------------------------------------- R36 in worlds
# kernels.table.worlds.unseen_places once kept the first copy of a face in hand order as the
# known one, so a world sampled for another seat could deal away the card the mover
# took as a one-card pile while it held the other copy (and let it discard that card).
def test_worlds_for_another_seat_keep_the_card_of_a_one_card_pile():
    """The R36 card stays in the mover's hand, by its own id, in every world sampled
    for another seat, and the world's start passes the referee."""
    for hand in range(400):
        g = Game.new(22, hand, strategies="uniform")
        while not g.is_over:
            st = g.state
            barred, seat = int(st.g[KS.G_BARRED]), g.current_seat
            held = st.hand[seat, :st.hn[seat]].tolist()
            if g.phase == "meld" and barred in held and \
                    sum(c % 54 == barred % 54 for c in held) == 2:
                for k in range(10):
                    w = g.sample_world((seat + 1) % 4, 5, k)
                    assert barred in w.state.hand[seat, :w.state.hn[seat]].tolist()
                    v = [x for x in R.check(dict(w.history_document(), result={}))
                         if x.turn == 0]
                    assert not v, "\n".join(map(str, v))
                return
            g.apply(g.choose())
    pytest.fail("no one-card pile taken beside its other copy")
