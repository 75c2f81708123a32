"""The mask is exact: at decisions of real games, the legal actions the
engine lists (``sim.Game.legal_actions``, the kernels' mask) are exactly the
actions the independent referee judges legal (``referee.legal_actions``, its own
rule code replaying ``Game.history_document()``).

2,000 positions: decisions reached by the built-in heuristic, by uniform random
legal actions and by a "hoarder" who takes every pile (hands of 20 to 45 cards),
under the default rules, both presets, ``take_pile_requires_meld`` with
``pile_meld_source = "from_pile"``, ``lock_two_roles``, 2 and 3 players and
``stock_end_mode = "immediate"``, spread over every phase.  The referee only
*encodes* its verdicts with the engine's action layout (:data:`_decisions.SPACE`); it judges
them without the engine.  Tests below show that the comparison fails on a mask with
an action too many or too few, and on a mask that ignores one of R16, R23, R34,
R36, R45.

Lay-offs of several cards (R24 with R38 and R34) are judged apart, at the end: the
``from_pile`` pickups, where the only placement may be a lay-off whose first card is
from the hand, and a lay-off whose first card alone would leave a dead end.
"""
from __future__ import annotations

from collections import Counter

from kernels.core.cards import N_COUNT
import numpy as np
import pytest

import referee as R
import sim
from kernels.engine import actions as KA
from kernels.table import state as KS
from _decisions import RATE, SPACE, differences, positions
from sim.play.game import Game

FROM_PILE = {"take_pile_requires_meld": True, "pile_meld_source": "from_pile"}
MELD_PHASES = frozenset({"place", "meld", "discard"})

#: (id, rules, driver, seed, positions, phases kept)
CONFIGS = [
    ("default-heuristic", None, "heuristic", 101, 200, None),
    ("default-random", None, "random", 102, 150, None),
    ("default-hoarder", None, "hoarder", 103, 150, None),
    ("fibur_italian-heuristic", "fibur_italian", "heuristic", 104, 150, None),
    ("fibur_international-heuristic", "fibur_international", "heuristic", 105, 150, None),
    ("fibur_international-random", "fibur_international", "random", 106, 150, None),
    ("from_pile-heuristic", FROM_PILE, "heuristic", 107, 100, MELD_PHASES),
    ("from_pile-random", FROM_PILE, "random", 108, 150, MELD_PHASES),
    ("lock_two_roles-heuristic", {"lock_two_roles": True}, "heuristic", 109, 100, None),
    ("lock_two_roles-random", {"lock_two_roles": True}, "random", 110, 150, None),
    ("lock_two_roles-hoarder", {"lock_two_roles": True}, "hoarder", 111, 100, None),
    ("2p-random", {"num_players": 2}, "random", 112, 150, None),
    ("3p-heuristic", {"num_players": 3}, "heuristic", 113, 100, None),
    ("3p-random", {"num_players": 3}, "random", 114, 100, None),
    ("immediate-heuristic", {"stock_end_mode": "immediate"}, "heuristic", 115, 100, None),
]
#: the from_pile pickups, judged apart: every pickup of 400 of random play
FROM_PILE_PICKUPS = ("from_pile-pickups", FROM_PILE, "random", 114, 400, frozenset({"pickup"}))


def _rules(spec):
    if spec is None:
        return sim.Rules()
    return sim.Rules.preset(spec) if isinstance(spec, str) else sim.Rules(**spec)


def features(g: Game, legal) -> set:
    """What makes a position worth having (for the coverage checks)."""
    st = g.state
    seat = g.current_seat
    hn = int(st.hn[seat])
    out = {g.phase}
    if hn >= 20:
        out.add("20+ cards")
    if st.g[KS.G_POZZETTO_TAKEN + g.team_of(seat)] and hn <= 3:
        out.add("pozzetto taken, 3 cards or fewer")
    if g.phase == "pickup" and st.g[KS.G_PILE_SIZE] > 0 and KA.A_TAKE not in legal:
        out.add("pile refused")
    if g.phase == "discard" and len(legal) < int(np.count_nonzero(st.hcnt[seat])):
        out.add("a card that may not be discarded")
    if g.phase in ("place", "meld") and any(a >= KA.A_CREATE for a in legal):
        out.add("a meld to create")
    return out


def judge(config) -> tuple:
    """Compare engine and referee at every position of ``config``:
    ``(list of difference messages, Counter of features)``."""
    _, spec, driver, seed, n, phases = config
    bad, seen = [], Counter()
    rate = {"pickup": 1.0} if config is FROM_PILE_PICKUPS else RATE
    for g, legal in positions(_rules(spec), driver, seed, n, phases, rate):
        seen.update(features(g, legal))
        ref = R.legal_actions(g.history_document(), g.phase, g.current_seat, SPACE)
        diff = differences(g, legal, ref)
        if diff:
            bad.append(diff)
    return bad, seen


def test_the_sample_is_2000_positions():
    assert sum(c[4] for c in CONFIGS) == 2000     # and the from_pile pickups


#: the configurations of the fast tier (pytest -m "not slow"); the others are marked slow
FAST_CONFIGS = ("default-heuristic", "2p-random")


@pytest.mark.parametrize("config", [pytest.param(c, id=c[0], marks=() if c[0] in FAST_CONFIGS
                                                 else pytest.mark.slow) for c in CONFIGS])
def test_mask_is_exact(config):
    bad, seen = judge(config)
    assert not bad, f"{len(bad)} of {config[4]} positions differ:\n" + "\n".join(bad[:10])
    phases = config[5] or {"pickup", "meld", "discard"}
    if _rules(config[1]).take_pile_requires_meld:
        phases = phases | {"place"}
    for phase in phases:
        assert seen[phase] >= 5, f"only {seen[phase]} {phase} positions: {dict(seen)}"


def test_the_sample_covers_the_hard_cases():
    """The sample meets the cases where rules bite: hands of 20+ cards after a
    pile, R38's last cards with the pozzetto taken, R34's refused pile, a card R36
    or R45 keeps from the discard."""
    seen = Counter()
    for _, spec, driver, seed, n, phases in CONFIGS:
        for g, legal in positions(_rules(spec), driver, seed, n, phases):
            seen.update(features(g, legal))
    for what, least in (("20+ cards", 30), ("pozzetto taken, 3 cards or fewer", 100),
                        ("pile refused", 10), ("a card that may not be discarded", 20),
                        ("a meld to create", 200)):
        assert seen[what] >= least, f"{seen[what]} positions with {what}: {dict(seen)}"


# ----------------------------------------------------------------------------- lay-offs of several cards
# RULES.md R24: a lay-off is one action of one or more cards, legal when some order of
# single-card steps is; R38 judges the hand after the whole action; R34: under
# take_pile_requires_meld the pile may be taken when a legal meld-phase action then
# places a card (with "from_pile", a card of the pile).  The step API plays a lay-off
# card by card: a card that alone would leave a dead end is legal when the lay-off can
# go on to a hand that is none, and then only the next cards on that meld may follow
# (Game.open_lay_off).  These positions are where that bites; the engine once missed
# them (kernels.engine.placement.find_placement looked at one-card lay-offs only).
@pytest.mark.slow
def test_mask_is_exact_at_from_pile_pickups():
    """Every pickup of 400 of random play under pile_meld_source = "from_pile",
    among them lay-offs whose first card is from the hand (7♥ then the pile's 4♥ on
    2♣(=7♥) 6♥ 8♥)."""
    bad, seen = judge(FROM_PILE_PICKUPS)
    assert seen["pickup"] == FROM_PILE_PICKUPS[4]
    assert not bad, f"{len(bad)} of {FROM_PILE_PICKUPS[4]} positions differ:\n" + "\n".join(bad)


def play_to(seed: int, hand: int, rules, turn: int, phase: str) -> Game:
    """Hand ``hand`` of ``seed`` played by uniform random legal actions (a stream of
    its own) up to ``phase`` of turn ``turn``."""
    rng = np.random.default_rng([seed, hand])
    g = Game.new(seed, hand, rules=rules)
    while not (g.turn == turn and g.phase == phase):
        assert not g.is_over
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])
    return g


def _history_ok(g: Game):
    """The referee replays the history so far without a violation."""
    R.legal_moves(g.history_document(), g.phase, g.current_seat)


def test_a_lay_off_of_two_cards_that_empties_the_hand_places_the_pile():
    """Hand 7♠, pile 5♠ (one card: R36 bars it), team meld 2♣ 8♠ 9♠ 10♠ J♠, no
    pozzetto yet, under take_pile_requires_meld: the pile may be taken (R34), since
    laying off 7♠ then 5♠ is one legal action (R24) that empties the hand for the
    pozzetto al volo (R41); 7♠ alone would leave the R36 card alone (R38), so the
    lay-off is open after it and 5♠ is the only action."""
    g = play_to(13, 906, sim.Rules(take_pile_requires_meld=True), 10, "pickup")
    seat, team = g.current_seat, g.team_of(g.current_seat)
    assert g.observation(seat).hand == ("7♠",)
    assert g.observation(seat).pile == ("5♠",)
    ref = R.legal_actions(g.history_document(), g.phase, seat, SPACE)
    assert g.legal_actions() == sorted(ref) == [KA.A_DRAW, KA.A_TAKE]
    g.apply(KA.A_TAKE)
    assert g.phase == "place"
    melds = g.observation(seat).melds
    mi = next(m["index"] for m in melds if m["team"] == team and "J♠" in m["cards"])
    seven, five = KA.A_LAYOFF + 53 * mi + (13 * 3 + 6), KA.A_LAYOFF + 53 * mi + (13 * 3 + 4)
    ref = R.legal_actions(g.history_document(), g.phase, seat, SPACE)
    assert g.legal_actions() == sorted(ref) == [seven]
    assert g.action_text(seven) == f"lay off 7♠ on meld {mi} (then 5♠: a lay-off of two cards)"
    g.apply(seven)
    assert g.open_lay_off == mi and g.phase == "meld"
    assert g.legal_actions() == [five]          # the lay-off goes on: no end, no other meld
    with pytest.raises(ValueError, match="lay-off of several cards is under way"):
        g.apply(KA.A_END_MELD)
    p = g.to_position()
    assert p["this_turn"]["open_lay_off"] == mi
    assert Game.from_position(p, seed=4).legal_actions() == [five]
    for w in (g.sample_world(seat, 1), g.sample_world((seat + 1) % 4, 2),
              Game.from_position(p, seed=5)):
        assert w.legal_actions() == [five]
        w.play()                 # the lay-off goes on in the world's own history
        assert not R.check(w.replay_document()), R.check(w.replay_document())
    g.apply(five)
    assert g.open_lay_off is None and g.phase == "meld"
    assert len(g.observation(seat).hand) == 11           # the pozzetto al volo
    events = g.history_document()["events"]
    lay = [e for e in events if e["type"] == "lay_off"][-1]
    assert lay["cards"] == ["7♠", "5♠"] and events[-1]["type"] == "pozzetto"
    _history_ok(g)
    g.play("heuristic")
    assert not R.check(g.replay_document())


def test_a_lay_off_is_open_only_where_its_first_card_alone_is_a_dead_end():
    """The first card of such a lay-off is legal by kernels.engine.placement.lay_off_opens, not
    by the one-card test; the same hand without the R36 bar needs no open lay-off."""
    from kernels.engine import legal as KL
    from kernels.engine import placement as KP
    from sim.table.position import Position
    p = Position(hand="7♠ 5♠", team_melds=["2♣ 8♠ 9♠ 10♠ J♠"], single_pile_card="5♠")
    assert p.can_lay_off(0, "7♠ 5♠")            # the rules' verdict, and the engine's
    scratch, sel, need = (np.zeros(N_COUNT, np.int64) for _ in range(3))
    need[:] = 1
    seven, five = 13 * 3 + 6, 13 * 3 + 4
    assert KL.can_layoff(p.st, p.rv, 0, 0, 0, seven, scratch)[0] == KL.BAD_LAST_CARD_BARRED
    assert KL.can_layoff(p.st, p.rv, 0, 0, 0, five, scratch)[0] == KL.BAD_LAYOFF
    assert KP.lay_off_opens(p.st, p.rv, 0, 0, 0, seven, need, sel)
    assert not KP.lay_off_opens(p.st, p.rv, 0, 0, 0, five, need, sel)
    free = Position(hand="7♠ 5♠", team_melds=["2♣ 8♠ 9♠ 10♠ J♠"])
    assert KL.can_layoff(free.st, free.rv, 0, 0, 0, seven, scratch)[0] == KL.OK
    # with the team's pozzetto taken the hand may not empty: no lay-off of the two
    taken = Position(hand="7♠ 5♠", team_melds=["2♣ 8♠ 9♠ 10♠ J♠"], single_pile_card="5♠",
                     pozzetto_taken=True)
    assert not KP.lay_off_opens(taken.st, taken.rv, 0, 0, 0, seven, need, sel)


# ----------------------------------------------------------------------------- the test can fail
def test_a_dropped_or_added_action_is_reported():
    """A mask with one legal action left out, or one illegal action put in, is
    reported with that action in words."""
    rng = np.random.default_rng(3)
    phases = Counter()
    for g, legal in positions(sim.Rules(), "random", 7, 60):
        ref = R.legal_actions(g.history_document(), g.phase, g.current_seat, SPACE)
        assert not differences(g, legal, ref)
        phases[g.phase] += 1
        a = legal[rng.integers(len(legal))]
        msg = differences(g, set(legal) - {a}, ref)
        assert f"only the referee ['{a} {g.action_text(a)}']" in msg, msg
        illegal = [b for b in _nearby(g) if b not in ref]
        b = illegal[rng.integers(len(illegal))]
        msg = differences(g, set(legal) | {b}, ref)
        assert f"only the engine lists ['{b} {g.action_text(b)}']" in msg, msg
    assert phases["pickup"] and phases["meld"] and phases["discard"]


def _nearby(g: Game) -> list:
    """Action ids a careless mask might list: the pickups, "end", a discard of every
    face in hand and, in the meld phase, every lay-off of a card in hand on an own
    meld and every meld of the table that the hand holds."""
    st = g.state
    seat = g.current_seat
    hc = st.hcnt[seat]
    held = np.flatnonzero(hc)
    out = [KA.A_DRAW, KA.A_TAKE, KA.A_END_MELD] + [KA.A_DISCARD + int(f) for f in held]
    if g.phase in ("place", "meld"):
        nm = int(st.nm[g.team_of(seat)])
        out += [KA.A_LAYOFF + 53 * m + int(f) for m in range(nm) for f in held]
        fits = np.all(KA.MELD_CNT <= hc[None, :], axis=1)
        out += [KA.A_CREATE + int(k) for k in np.flatnonzero(fits)]
    return out


ALL_SET_RANKS = ["A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


@pytest.mark.parametrize("rules, option, value, phases, driver, n", [
    (None, "forbid_rediscard_single_pile", False, {"discard"}, "random", 60),          # R36
    (None, "allow_duplicate_set_rank", True, {"meld"}, "random", 100),                 # R23
    ("fibur_international", "set_ranks", ALL_SET_RANKS, {"meld"}, "heuristic", 40),    # R16
    ("fibur_international", "require_clean_burraco_to_close", False, {"discard", "meld"},
     "heuristic", 80),                                                                 # R45
    ("fibur_international", "take_pile_requires_meld", False, {"pickup"}, "heuristic",
     40),                                                                              # R34
], ids=["R36", "R23", "R16", "R45", "R34"])
def test_an_engine_ignoring_a_rule_would_be_caught(rules, option, value, phases, driver, n):
    """The same positions judged by the rule set with one rule relaxed (as if the
    engine ignored it) list more actions than the mask, never fewer: the referee
    applies each rule itself, and the comparison reports the difference."""
    caught = 0
    for g, legal in positions(_rules(rules), driver, 9, n, phases):
        doc = g.history_document()
        doc["rules"] = dict(doc["rules"], **{option: value})
        ref = R.legal_actions(doc, g.phase, g.current_seat, SPACE)
        assert set(legal) <= ref, differences(g, legal, ref)
        if ref != set(legal):
            assert "only the referee" in differences(g, legal, ref)
            caught += 1
    assert caught > 0, f"no position where {option}={value!r} makes a difference"


# ----------------------------------------------------------------------------- the enumerator
@pytest.mark.slow
def test_the_referee_meld_candidates_miss_no_meld():
    """Every sub-multiset of a hand that the referee reads as a valid meld is among
    its candidates (brute force over hands of 10 cards, from two suits and the
    jokers so that many sub-multisets are melds)."""
    from itertools import product
    rng = np.random.default_rng(5)
    deck = [f for f in range(52) if f // 13 in (1, 2)] * 2 + [R.JOKER] * 4 + [1, 40]   # + 2♣ 2♠
    n_melds = 0
    for _ in range(50):
        hand = Counter(rng.choice(deck, 10, replace=False).tolist())
        faces = sorted(hand)
        brute = set()
        for k in product(*(range(hand[f] + 1) for f in faces)):
            sub = tuple(f for f, n in zip(faces, k) for _ in range(n))
            if len(sub) >= 3 and R.analyze(sub).valid:
                brute.add(sub)
        got = {c for c in R.meld_candidates(hand) if R.analyze(c).valid}
        assert got == brute, (R.faces_text(faces), brute ^ got)
        n_melds += len(brute)
    assert n_melds > 500


def test_legal_moves_refuses_a_decision_the_history_does_not_lead_to():
    g = Game.new(1, 0)
    for _ in range(3):
        g.apply(g.choose())
    doc = g.history_document()
    assert "result" not in doc and all(e["type"] != "end" for e in doc["events"])
    R.legal_moves(doc, g.phase, g.current_seat)
    with pytest.raises(ValueError, match="decision is seat"):
        R.legal_moves(doc, g.phase, (g.current_seat + 1) % 4)
    with pytest.raises(ValueError, match="decision is seat"):
        R.legal_moves(doc, "pickup" if g.phase != "pickup" else "discard", g.current_seat)
    bad = dict(doc, events=doc["events"] + [dict(doc["events"][0], turn=99)])
    with pytest.raises(ValueError, match="history breaks the rules"):
        R.legal_moves(bad, g.phase, g.current_seat)
