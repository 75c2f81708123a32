"""The independent referee (tests/referee/referee.py) on hand-made documents.

A few small legal hands are written by hand (deal + events + the result
computed by hand, arithmetic in the comments); each must pass with zero
violations.  Each is then corrupted in one way and the referee must report the
right rule ID.
"""
from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import referee as R

TESTS = Path(__file__).parent


# ============================================================================ document builder
class Script:
    """Writes a replay document by moving cards (no rule logic: it trusts the script)."""

    def __init__(self, hands, pozzetti, upcard, stock_top, dealer=3, rules=None, fill=None):
        deck = R.Deck()
        if fill is None:
            self.h = [deck.ids(t) for t in hands]
            self.p = [deck.ids(t) for t in pozzetti]
            up = deck.ids(upcard)[0]
            top = deck.ids(stock_top)
            stock = top + [c for c in range(108) if c not in deck.used]
        else:
            self.h, self.p, up, stock = fill
        self.deal_ids = {"hands": [list(x) for x in self.h], "pozzetti": [list(x) for x in self.p],
                         "discard": up, "stock": list(stock)}
        self.hands = [list(x) for x in self.h]
        self.poz = [list(x) for x in self.p]
        self.next_poz = 0
        self.stock = list(stock)
        self.pile = [up]
        self.melds = [[], []]
        self.events = []
        self.dealer = dealer
        self.first = (dealer + 1) % 4
        self.rules = dict(rules or {})
        self.turn = 0
        self.seat = None

    # ---- helpers
    def pick(self, seat, text):
        out = []
        for tok in text.split():
            want = R.parse_face(tok)
            for c in self.hands[seat]:
                if R.fold(R.face_of(c)) == want and c not in out:
                    out.append(c)
                    break
            else:
                raise AssertionError(f"script: {tok} not in seat {seat}'s hand")
        return out

    def ev(self, typ, **kw):
        e = {"turn": self.turn, "seat": self.seat, "type": typ}
        e.update(kw)
        self.events.append(e)
        return e

    @staticmethod
    def txt(ids):
        return [R.card_text(c) for c in ids]

    # ---- actions
    def next_turn(self):
        self.turn += 1
        self.seat = (self.first + self.turn - 1) % 4
        return self

    def draw(self):
        c = self.stock.pop(0)
        self.hands[self.seat].append(c)
        self.ev("draw", card=R.card_text(c), card_id=c)
        return self

    def take(self):
        cards, self.pile = self.pile, []
        self.hands[self.seat] += cards
        self.ev("take_pile", cards=self.txt(cards), card_ids=list(cards))
        return self

    def meld(self, text, team=None):
        team = self.seat % 2 if team is None else team
        ids = self.pick(self.seat, text)
        for c in ids:
            self.hands[self.seat].remove(c)
        self.melds[team].append(list(ids))
        self.ev("meld", team=team, meld=len(self.melds[team]) - 1, cards=self.txt(ids),
                card_ids=ids)
        return self

    def lay(self, idx, text, team=None):
        team = self.seat % 2 if team is None else team
        ids = self.pick(self.seat, text)
        for c in ids:
            self.hands[self.seat].remove(c)
        self.melds[team][idx] += ids
        self.ev("lay_off", team=team, meld=idx, cards=self.txt(ids), card_ids=ids)
        return self

    def pozzetto(self, mode):
        cards = self.poz[self.next_poz]
        self.next_poz += 1
        self.hands[self.seat] += cards
        self.ev("pozzetto", mode=mode, cards=self.txt(cards), card_ids=list(cards))
        return self

    def discard(self, text, closes=False):
        c = self.pick(self.seat, text)[0]
        self.hands[self.seat].remove(c)
        self.pile.append(c)
        self.ev("discard", card=R.card_text(c), card_id=c, closes=closes)
        return self

    def end(self, reason):
        self.ev("end", reason=reason)
        return self

    def doc(self, result):
        d = self.deal_ids
        return {
            "seed": 0, "hand_index": 0, "rules": dict(self.rules), "strategies": ["script"] * 4,
            "dealer": self.dealer, "first_player": self.first,
            "deal": {"hands": [self.txt(x) for x in d["hands"]],
                     "pozzetti": [self.txt(x) for x in d["pozzetti"]],
                     "discard": R.card_text(d["discard"]), "stock": self.txt(d["stock"])},
            "deal_ids": copy.deepcopy(d),
            "events": copy.deepcopy(self.events),
            "result": dict(result),
        }


def team_cols(t, *, score, meld_points, burraco_bonus=0, closing_bonus=0, hand_points,
              pozzetto_penalty=0, clean=0, dirty=0, semi=0, melds=0, closed=False,
              pozzetto_turn=-1, pozzetto_mode="none", pile_pickups=0, pile_cards=0):
    return {f"score_t{t}": score, f"meld_points_t{t}": meld_points,
            f"burraco_bonus_t{t}": burraco_bonus, f"closing_bonus_t{t}": closing_bonus,
            f"hand_points_t{t}": hand_points, f"pozzetto_penalty_t{t}": pozzetto_penalty,
            f"clean_burracos_t{t}": clean, f"dirty_burracos_t{t}": dirty,
            f"semi_clean_burracos_t{t}": semi, f"melds_t{t}": melds, f"closed_t{t}": closed,
            f"pozzetto_taken_t{t}": pozzetto_turn != -1, f"pozzetto_turn_t{t}": pozzetto_turn,
            f"pozzetto_mode_t{t}": pozzetto_mode, f"pile_pickups_t{t}": pile_pickups,
            f"pile_cards_t{t}": pile_cards}


# ============================================================================ the main scenario
# dealer 3, first player 0; team 0 = seats 0, 2; team 1 = seats 1, 3.
HANDS = [
    "5♥ 6♥ 7♥ 8♥ 9♥ 10♥ K♠ K♦ K♣ K♠ 4♠",      # seat 0
    "Q♣ Q♥ 2♣ K♥ 3♦ 4♦ 6♦ 8♥ J♣ J♦ 5♠",        # seat 1
    "5♦ 7♦ 8♦ J♥ Q♥ 10♣ 4♥ 9♥ 3♥ 6♣ 5♥",       # seat 2
    "3♠ 4♠ 5♠ 6♠ J♠ J♦ J♥ J♣ 8♠ 9♠ 10♠",       # seat 3
]
POZZETTI = ["3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ A♠ A♦ A♣ K♥",
            "A♥ 2♥ 3♥ 5♣ 7♦ 10♦ Q♦ K♦ 8♦ 4♣ 6♥"]
UPCARD = "9♦"
STOCK_TOP = "10♦ Q♦ Q♠ K♣ 7♥ 7♠ A♥"


def main_script(variant=None):
    s = Script(HANDS, POZZETTI, UPCARD, STOCK_TOP)
    # turn 1, seat 0: takes the one-card pile [9♦]; melds; the 9♦ may not be discarded (R36)
    s.next_turn().take().meld("5♥ 6♥ 7♥ 8♥ 9♥ 10♥").meld("K♠ K♦ K♣ K♠")
    s.discard("9♦" if variant == "rediscard" else "4♠")
    # turn 2, seat 1: draws 10♦, melds a dirty set of queens
    s.next_turn()
    if variant == "draw_not_top":
        c = s.stock.pop(1)                              # the Q♦ under the 10♦
        s.hands[1].append(c)
        s.ev("draw", card=R.card_text(c), card_id=c)
    else:
        s.draw()
    s.meld("Q♣ Q♥ 2♣")
    if variant == "opponent_layoff":
        s.lay(1, "K♥", team=0).discard("10♦")
    else:
        s.discard("K♥")
    # turn 3, seat 2: draws Q♦, discards 5♦
    s.next_turn().draw()
    s.discard("5♦")
    # turn 4, seat 3: draws Q♠, melds 3♠-6♠, discards the Q♠
    s.next_turn().draw().meld("3♠ 4♠ 5♠ 6♠").discard("Q♠")
    # turn 5, seat 0: draws K♣, lays it off, discards the last card -> pozzetto 0 con lo scarto
    s.next_turn().draw().lay(1, "K♣")
    if variant == "close_without_pozzetto":
        s.discard("9♦", closes=True).end("closed")
        return s
    s.discard("4♠" if variant == "rediscard" else "9♦")
    s.pozzetto("discard")
    # turn 6, seat 1: takes the 5-card pile, melds 3♦-6♦, discards 8♥
    s.next_turn().take().meld("3♦ 4♦ 5♦ 6♦").discard("8♥")
    # turn 7, seat 2: draws 7♥ and discards it
    s.next_turn().draw().discard("7♥")
    # turn 8, seat 3: draws 7♠, builds the spade burraco, melds the jacks -> empty hand ->
    # pozzetto 1 al volo; melds A♥ 2♥ 3♥ from it, discards 6♥
    s.next_turn().draw()
    order = ["8♠", "7♠", "9♠", "10♠"] if variant == "bad_layoff" else ["7♠", "8♠", "9♠", "10♠"]
    for c in order:
        s.lay(1, c)
    s.meld("J♠ J♦ J♥ J♣")
    if variant != "missing_pozzetto":
        s.pozzetto("direct")
        s.meld("A♥ 2♥ 3♥").discard("6♥")
    else:
        s.hands[3] += s.poz[1]          # cards appear without an event
        s.next_poz = 2
        s.meld("A♥ 2♥ 3♥").discard("6♥")
    # turn 9, seat 0: holds pozzetto 0, draws A♥, melds the club burraco and the aces, closes
    s.next_turn().draw()
    if variant == "close_without_burraco":
        s.meld("3♣ 4♣ 5♣ 6♣ 7♣ 8♣").meld("A♠ A♦ A♣ A♥").lay(1, "K♥")
        s.discard("9♣", closes=True).end("closed")
        return s
    s.meld("3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣").meld("A♠ A♦ A♣ A♥")
    if variant == "second_pozzetto":
        ids = list(s.p[1])
        s.hands[0] += ids
        s.ev("pozzetto", mode="direct", cards=s.txt(ids), card_ids=ids)
    if variant == "dead_end":
        s.lay(1, "K♥").end("closed")
        return s
    s.discard("K♥", closes=True)
    if variant == "play_after_close":
        s.next_turn().draw()
        s.ev("discard", card=R.card_text(s.hands[1][-1]), card_id=s.hands[1][-1], closes=False)
        s.hands[1].pop()
    s.end("closed")
    return s


MAIN_RESULT = {
    "dealer": 3, "first_player": 0, "end_reason": "closed", "turns": 9, "closing_seat": 0,
    "stock_left": 41 - 7,           # draws in turns 2, 3, 4, 5, 7, 8, 9
    "pile_left": 4,                 # 8♥ 7♥ 6♥ K♥ (the closing discard lies on the pile)
    "error": 0,
    # team 0 melds: 5♥..10♥ = 5+5+5+10+10+10 = 45; K♠ K♦ K♣ K♠ K♣ = 50;
    # 3♣..9♣ = 5*5 + 10+10 = 45 (7 cards, clean burraco +200); A♠ A♦ A♣ A♥ = 60  -> 200
    # seat 2 holds 7♦ 8♦ J♥ Q♥ 10♣ 4♥ 9♥ 3♥ 6♣ 5♥ Q♦ = 5+10+10+10+10+5+10+5+5+5+10 = 85
    # 200 + 200 + 100 - 85 = 415
    **team_cols(0, score=415, meld_points=200, burraco_bonus=200, closing_bonus=100,
                hand_points=85, clean=1, melds=4, closed=True, pozzetto_turn=5,
                pozzetto_mode="discard", pile_pickups=1, pile_cards=1),
    # team 1 melds: Q♣ Q♥ 2♣ = 40; 3♠..10♠ = 5*5 + 3*10 = 55 (8 cards clean +200);
    # 3♦..6♦ = 20; J♠ J♦ J♥ J♣ = 40; A♥ 2♥ 3♥ = 15+20+5 = 40  -> 195
    # seat 1: J♣ J♦ 5♠ 10♦ 4♠ K♥ Q♠ 9♦ = 10+10+5+10+5+10+10+10 = 70
    # seat 3: 5♣ 7♦ 10♦ Q♦ K♦ 8♦ 4♣ = 5+5+10+10+10+10+5 = 55       -> 125
    # 195 + 200 - 125 = 270
    **team_cols(1, score=270, meld_points=195, burraco_bonus=200, hand_points=125, clean=1,
                melds=5, pozzetto_turn=8, pozzetto_mode="direct", pile_pickups=1,
                pile_cards=5),
}


def main_doc(variant=None):
    return main_script(variant).doc(MAIN_RESULT)


def swap_cards(doc, a, b):
    """Exchange two physical cards everywhere in a document (deal and events)."""
    sw = {a: b, b: a}
    d = doc["deal_ids"]
    d["hands"] = [[sw.get(c, c) for c in h] for h in d["hands"]]
    d["pozzetti"] = [[sw.get(c, c) for c in p] for p in d["pozzetti"]]
    d["discard"] = sw.get(d["discard"], d["discard"])
    d["stock"] = [sw.get(c, c) for c in d["stock"]]
    doc["deal"] = {"hands": [Script.txt(h) for h in d["hands"]],
                   "pozzetti": [Script.txt(p) for p in d["pozzetti"]],
                   "discard": R.card_text(d["discard"]), "stock": Script.txt(d["stock"])}
    for e in doc["events"]:
        if "card_id" in e:
            e["card_id"] = sw.get(e["card_id"], e["card_id"])
            e["card"] = R.card_text(e["card_id"])
        if "card_ids" in e:
            e["card_ids"] = [sw.get(c, c) for c in e["card_ids"]]
            e["cards"] = Script.txt(e["card_ids"])
    return doc


def rules_of(violations):
    return {v.rule for v in violations}


def assert_caught(doc, rule, *, text=None):
    v = R.check(doc)
    hits = [x for x in v if x.rule == rule and (text is None or text in x.message)]
    assert hits, f"expected a {rule} violation" + (f" mentioning {text!r}" if text else "") + \
        ":\n" + "\n".join(map(str, v))
    for x in v:
        assert x.seed == 0 and x.hand_index == 0
    return v


# ============================================================================ legal documents
def test_main_document_is_clean():
    doc = main_doc()
    R.check_strict(doc)


def test_main_document_survives_json():
    import json
    assert R.check_json(json.dumps(main_doc(), ensure_ascii=False)) == []


def ten_value_fill():
    """44 ten-point cards dealt to the hands (8..K), then the rest in id order."""
    tens = [54 * cp + 13 * s + r for cp in (0, 1) for s in range(4) for r in range(7, 13)]
    hands = [tens[11 * k:11 * k + 11] for k in range(4)]
    up = tens[44]
    rest = [c for c in range(108) if c not in set(tens[:45])]
    poz = [rest[:11], rest[11:22]]
    return hands, poz, up, rest[22:]


def stall_script(limit=3, *, early=False, rediscard=False):
    s = Script(None, None, None, None, dealer=0, rules={"stall_turn_limit": limit},
               fill=ten_value_fill())
    # every turn takes the one-card pile and discards another card, no meld: stall += 1
    for k in range(3):
        s.next_turn().take()
        hand = s.hands[s.seat]
        c = hand[-1] if rediscard and k == 1 else hand[0]
        hand.remove(c)
        s.pile.append(c)
        s.ev("discard", card=R.card_text(c), card_id=c, closes=False)
    s.end("stall")
    return s


STALL_RESULT = {
    "dealer": 0, "first_player": 1, "end_reason": "stall", "turns": 3, "closing_seat": -1,
    "stock_left": 41, "pile_left": 1, "error": 0,
    # every hand keeps 11 ten-point cards: 2 * 110 = 220; no pozzetto: -100 -> -320
    **team_cols(0, score=-320, meld_points=0, hand_points=220, pozzetto_penalty=100,
                pile_pickups=1, pile_cards=1),          # seat 2 in turn 2
    **team_cols(1, score=-320, meld_points=0, hand_points=220, pozzetto_penalty=100,
                pile_pickups=2, pile_cards=2),          # seats 1, 3 in turns 1, 3
}


def stock_script(extra_turn=False, reason="stock_exhausted"):
    s = Script(None, None, None, None, dealer=1, rules={"stock_reserve": 38},
               fill=ten_value_fill())
    # three draws leave 41 - 3 = 38 = stock_reserve cards: the hand ends after turn 3 (R50)
    for _ in range(4 if extra_turn else 3):
        s.next_turn().draw()
        c = s.hands[s.seat][-1]                 # discard the drawn card
        s.hands[s.seat].remove(c)
        s.pile.append(c)
        s.ev("discard", card=R.card_text(c), card_id=c, closes=False)
    s.end(reason)
    return s


STOCK_RESULT = {
    "dealer": 1, "first_player": 2, "end_reason": "stock_exhausted", "turns": 3,
    "closing_seat": -1, "stock_left": 38, "pile_left": 4, "error": 0,
    **team_cols(0, score=-320, meld_points=0, hand_points=220, pozzetto_penalty=100),
    **team_cols(1, score=-320, meld_points=0, hand_points=220, pozzetto_penalty=100),
}


def cap_script(turns=2):
    s = Script(None, None, None, None, dealer=2, rules={"max_turns_per_hand": 2},
               fill=ten_value_fill())
    for _ in range(turns):
        s.next_turn().draw()
        c = s.hands[s.seat][-1]
        s.hands[s.seat].remove(c)
        s.pile.append(c)
        s.ev("discard", card=R.card_text(c), card_id=c, closes=False)
    s.end("turn_cap")
    return s


CAP_RESULT = {
    "dealer": 2, "first_player": 3, "end_reason": "turn_cap", "turns": 2,
    "closing_seat": -1, "stock_left": 39, "pile_left": 3, "error": 0,
    **team_cols(0, score=-320, meld_points=0, hand_points=220, pozzetto_penalty=100),
    **team_cols(1, score=-320, meld_points=0, hand_points=220, pozzetto_penalty=100),
}


def test_stall_document_is_clean():
    R.check_strict(stall_script().doc(STALL_RESULT))


def test_stock_document_is_clean():
    R.check_strict(stock_script().doc(STOCK_RESULT))


def test_turn_cap_document_is_clean():
    R.check_strict(cap_script().doc(CAP_RESULT))


def test_semi_clean_and_rule_options_in_scoring():
    """The same main hand under other bonus values: only the scores move."""
    doc = main_doc()
    doc["rules"] = {"clean_bonus": 300, "closing_bonus": 50, "pozzetto_penalty": 0,
                    "semi_clean_bonus": 150}
    res = doc["result"]
    res.update(burraco_bonus_t0=300, closing_bonus_t0=50, score_t0=200 + 300 + 50 - 85,
               burraco_bonus_t1=300, score_t1=195 + 300 - 125)
    R.check_strict(doc)


def test_pile_close_no_bonus_does_not_apply_to_a_drawing_turn():
    doc = main_doc()
    doc["rules"] = {"pile_close_no_bonus": True}     # turn 9 drew: the bonus stays
    R.check_strict(doc)


# ============================================================================ corrupted documents
def test_two_wilds_in_a_meld_R14():
    doc = main_doc()
    q_hearts = doc["deal_ids"]["hands"][1][1]        # the Q♥ of the queens set
    assert R.card_text(q_hearts) == "Q♥"
    joker = next(c for c in doc["deal_ids"]["stock"][10:] if R.face_of(c) >= 52)
    swap_cards(doc, q_hearts, joker)                  # meld becomes Q♣ JK 2♣
    assert_caught(doc, "R14")


def test_close_on_a_wild_R45():
    doc = main_doc()
    k_hearts = doc["deal_ids"]["pozzetti"][0][-1]
    assert R.card_text(k_hearts) == "K♥"
    two = next(c for c in doc["deal_ids"]["stock"][10:] if R.card_text(c) == "2♦")
    swap_cards(doc, k_hearts, two)                    # the closing discard becomes 2♦
    v = assert_caught(doc, "R45", text="natural")
    assert "R38" in rules_of(v)                       # the lone 2♦ was already a dead end


def test_close_without_a_burraco_R45():
    assert_caught(main_doc("close_without_burraco"), "R45", text="no burraco")


def test_close_without_a_clean_burraco_R45():
    doc = main_doc()
    doc["rules"] = {"require_clean_burraco_to_close": True}
    R.check_strict(doc)                               # the club burraco is clean: fine
    two = next(c for c in doc["deal_ids"]["stock"][10:] if R.card_text(c) == "2♦")
    nine = doc["deal_ids"]["pozzetti"][0][6]
    assert R.card_text(nine) == "9♣"
    swap_cards(doc, nine, two)                        # 3♣..8♣ 2♦: a dirty burraco only
    assert_caught(doc, "R45", text="no clean burraco")


def test_close_without_the_pozzetto_R45():
    v = assert_caught(main_doc("close_without_pozzetto"), "R45", text="pozzetto")
    assert "R41" in rules_of(v)


def test_lay_off_on_the_opponents_meld_R21():
    assert_caught(main_doc("opponent_layoff"), "R21")


def test_second_pozzetto_for_one_team_R43():
    v = assert_caught(main_doc("second_pozzetto"), "R43")
    assert "R40" in rules_of(v)                       # and no pozzetto was left to take


def test_wrong_pozzetto_R40():
    doc = main_doc()
    ev = next(e for e in doc["events"] if e["type"] == "pozzetto" and e["turn"] == 5)
    ev["card_ids"] = list(doc["deal_ids"]["pozzetti"][1])     # team 0 was first: pozzetto 0
    ev["cards"] = Script.txt(ev["card_ids"])
    assert_caught(doc, "R40")


def test_missing_pozzetto_event_R41():
    assert_caught(main_doc("missing_pozzetto"), "R41")


def test_rediscard_of_a_single_card_pile_R36():
    assert_caught(main_doc("rediscard"), "R36")


def test_rediscard_in_stall_document_R36():
    assert_caught(stall_script(rediscard=True).doc(STALL_RESULT), "R36")


def test_draw_not_the_stock_top_R33():
    assert_caught(main_doc("draw_not_top"), "R33")


def test_partial_pile_pickup_R33():
    doc = main_doc()
    ev = next(e for e in doc["events"] if e["type"] == "take_pile" and e["turn"] == 6)
    ev["card_ids"] = ev["card_ids"][1:]
    ev["cards"] = ev["cards"][1:]
    assert_caught(doc, "R33", text="whole pile")


def test_wrong_score_R55():
    doc = main_doc()
    doc["result"]["score_t0"] += 5
    v = assert_caught(doc, "R55")
    assert len(v) == 1


def test_wrong_burraco_count_R56():
    doc = main_doc()
    doc["result"]["clean_burracos_t1"] = 0
    doc["result"]["dirty_burracos_t1"] = 1
    assert rules_of(R.check(doc)) == {"R56"}


def test_wrong_record_column():
    doc = main_doc()
    doc["result"]["pile_cards_t1"] = 4
    assert rules_of(R.check(doc)) == {"REC"}


def test_card_conservation_broken_CONS():
    doc = main_doc()
    ev = next(e for e in doc["events"] if e["type"] == "discard" and e["turn"] == 3)
    ev["card_id"] = doc["deal_ids"]["hands"][3][0]             # a card of seat 3, not seat 2
    ev["card"] = R.card_text(ev["card_id"])
    assert_caught(doc, "CONS", text="not in seat 2's hand")


def test_deal_not_a_permutation_R8():
    doc = main_doc()
    doc["deal_ids"]["stock"][-1] = doc["deal_ids"]["stock"][-2]
    doc["deal"]["stock"][-1] = doc["deal"]["stock"][-2]
    assert_caught(doc, "R8")


def test_dead_end_R38():
    assert_caught(main_doc("dead_end"), "R38", text="empty")


def test_illegal_lay_off_order_R24():
    assert_caught(main_doc("bad_layoff"), "R24")


def test_play_after_a_close_R47():
    assert_caught(main_doc("play_after_close"), "R47")


def test_turn_after_stock_exhaustion_R50():
    res = dict(STOCK_RESULT, turns=4, stock_left=37, pile_left=5)
    assert_caught(stock_script(extra_turn=True).doc(res), "R50")


def test_wrong_end_reason_R50():
    assert_caught(stock_script(reason="turn_cap").doc(STOCK_RESULT), "R50")


def test_stall_declared_too_early_R51():
    doc = stall_script().doc(STALL_RESULT)
    doc["rules"]["stall_turn_limit"] = 4
    assert_caught(doc, "R51")


def test_turn_cap_ignored_R52():
    res = dict(CAP_RESULT, turns=3, stock_left=38, pile_left=4)
    assert_caught(cap_script(turns=3).doc(res), "R52")


def test_wrong_turn_order_R5():
    doc = main_doc()
    for e in doc["events"]:
        if e["turn"] == 3:
            e["seat"] = 0
    assert_caught(doc, "R5")


def test_first_player_R6():
    doc = main_doc()
    doc["first_player"] = 2
    assert_caught(doc, "R6")


def test_unsupported_option_reported():
    doc = main_doc()
    doc["rules"] = {"num_players": 5}                  # R64: out of scope
    v = R.check(doc)
    assert "OPT" in rules_of(v) and "unsupported option" in [x for x in v if x.rule == "OPT"][
        0].message


def test_check_strict_lists_all():
    with pytest.raises(AssertionError, match="R36"):
        R.check_strict(main_doc("rediscard"))


# ============================================================================ independence
STDLIB_OK = {"__future__", "itertools", "json", "collections", "dataclasses", "argparse",
             "sys", "pathlib", "typing", "functools", "math", "re", "os"}


#: the referee's files: the entry point and its package, whose modules import each other
REFEREE_FILES = [TESTS / "referee.py"] + sorted((TESTS / "ref").glob("*.py"))


def referee_own_import(path: Path, node) -> bool:
    """An import of the referee's package by its entry point, or of one of its modules
    by another (relative)."""
    if not isinstance(node, ast.ImportFrom):
        return False
    if path.parent.name == "ref":
        return node.level == 1
    return (node.module or "").split(".")[0] == "ref" and node.level in (0, 1)


@pytest.mark.parametrize("path", REFEREE_FILES, ids=lambda p: p.name)
def test_referee_imports_only_stdlib(path):
    assert len(REFEREE_FILES) > 10
    tree = ast.parse(path.read_text(encoding="utf-8"))
    main_block = None
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            main_block = node
    for node in ast.walk(tree):
        if main_block is not None and node in set(ast.walk(main_block)):
            continue
        if referee_own_import(path, node):
            continue
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]]
        else:
            continue
        for name in names:
            assert name in STDLIB_OK and name in sys.stdlib_module_names | {"__future__"}, \
                f"tests/referee/{path.relative_to(TESTS).as_posix()} imports {name!r}"


def test_importing_the_referee_loads_no_engine_code():
    code = ("import sys; sys.path.insert(0, 'tests/referee'); import referee; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('sim', 'kernels', 'numba', 'numpy')); print(bad); assert not bad")
    out = subprocess.run([sys.executable, "-c", code], cwd=TESTS.parents[1], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("command", [["tests/referee/referee.py"], ["-m", "tests.referee"]],
                         ids=["script", "module"])
def test_the_command_line_checks_saved_documents(command, tmp_path):
    """``python tests/referee/referee.py --file ...`` and ``python -m tests.referee --file ...``
    (the entry point and its package, in both ways of running it): the clean document
    passes, one with a wrong score fails with R55, and the exit code says so."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(main_doc(), ensure_ascii=False), encoding="utf-8")
    doc = main_doc()
    doc["result"]["score_t0"] += 5
    bad.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    runs = {}
    for files in ([good], [good, bad]):
        runs[len(files)] = subprocess.run([sys.executable, *command, "--file", *map(str, files)],
                                          cwd=TESTS.parents[1], capture_output=True, text=True,
                                          encoding="utf-8")
    out = runs[1]
    assert out.returncode == 0 and out.stdout == f"{good}: 0 violation(s)\n", \
        out.stdout + out.stderr
    out = runs[2]
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == [f"{good}: 0 violation(s)", f"{bad}: 1 violation(s)"], out.stdout
    assert lines[2].lstrip().startswith("[R55] ") and "score_t0" in lines[2], out.stdout


# ============================================================================ RULES.md E1-E11
FIBUR_IT = {"semi_clean_bonus": 150}
# (example, team): melds, hands, closed, pozzetto taken, {rules name: expected score}
EXAMPLES = [
    ("E1 A", ["5♥ 6♥ 7♥ 8♥ 9♥ 10♥ J♥", "K♠ K♦ K♣"], ["3♦ 9♣"], True, True, {"d": 370}),
    ("E1 B", ["Q♣ Q♥ JK", "4♠ 5♠ 6♠ 7♠"], ["A♣ 8♦ 3♥", "2♦ K♥"], False, False, {"d": -90}),
    ("E2 A", ["A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣", "2♦ 3♦ 4♦ JK"], ["10♠"], True, True, {"d": 410}),
    ("E2 B", ["8♥ 8♠ 8♣ 8♦ 8♥ 8♠ 2♥"], ["JK 5♦", "Q♦ Q♦ 3♠"], False, True, {"d": 120}),
    ("E3 A", ["4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ JK", "2♣ 9♥ 10♥ J♥ Q♥ K♥ A♥"], ["5♣ 6♣", "A♠"], False,
     True, {"d": 340, "fi": 390}),
    ("E3 B", ["3♦ 3♣ 3♥"], ["K♣ K♦ 7♦ 7♥ 2♠", "J♠ J♦ 4♥ 4♦ 6♣ 6♠ 9♠ 9♦ 10♦ Q♠ 8♣"], False,
     False, {"d": -225}),
    ("E4 A", ["7♦ 7♣ 7♠ 7♥ 7♦ 7♣ 7♠", "J♣ Q♣ K♣"], ["4♥"], True, True, {"d": 360}),
    ("E4 B", ["9♠ 10♠ J♠ Q♠ K♠"], ["JK 2♠ A♦ A♣ K♥ 10♣ 9♦ 8♠ 6♥ 5♠ 3♣", "Q♥ 4♠"], False, True,
     {"d": -100}),
    ("E5 A", ["3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥ 10♥ J♥ Q♥ K♥ A♥", "A♠ A♦ A♣ JK A♥ A♠ A♦"], ["6♦ 6♦"], True,
     True, {"d": 610}),
    ("E5 B", ["5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣"], ["JK JK 2♦", "K♦ Q♦ J♦ 3♠"], False, True, {"d": 140}),
    ("E6 A", ["3♦ 4♦ 2♦ 6♦ 7♦ 8♦ 9♦"], ["K♠"], False, True, {"d": 150}),
    ("E6 A'", ["2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦"], ["K♠"], False, True, {"d": 255}),
    ("E7 A", ["A♠ 2♠ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠ JK"], ["9♦ 9♣"], True, True,
     {"d": 330, "fi": 380}),
    ("E7 B", ["Q♥ K♥ A♥ 2♥", "5♦ 5♣ 5♠"], ["JK 3♣ 3♦ 8♠"], False, True, {"d": 20}),
    ("E8 A", ["9♣ 10♣ J♣ Q♣ K♣ A♣ 2♣", "6♥ 6♠ 6♦"], ["4♣ 4♦", "7♠ 8♠ JK"], False, True,
     {"d": 145}),
    ("E8 B", [], ["A♦ K♦ Q♦ J♦ 10♦ 9♦ 8♦ 7♦ 6♦ 5♦ 4♦", "3♥ 3♠ 10♥"], False, False,
     {"d": -215}),
    ("E9 A", ["3♠ 4♠ 5♠ JK 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠"], ["2♥"], True, True,
     {"d": 290, "fi": 340, "fi_end": 290}),
    ("E10 A", ["8♥ 8♠ 8♣ 8♦ 8♥ 8♠ 8♣ JK", "2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 2♣"], ["Q♣"], True, True,
     {"d": 455, "fi": 505}),
    ("E11 A", ["8♥ 9♥ 10♥ J♥ Q♥ K♥ A♥"], ["5♣ 5♥", "2♦"], False, True, {"d": 245}),
    ("E11 B", ["4♠ 5♠ 6♠ 7♠ 8♠", "J♦ J♣ J♥"], ["K♠ K♥ Q♣ 9♥ 9♦ 6♣ 5♦ 4♦ 3♣ A♠ JK", "8♦ 3♥"],
     False, True, {"d": -70}),
]
RULESETS = {"d": {}, "fi": FIBUR_IT, "fi_end": dict(FIBUR_IT, semi_clean_rule="wild_at_end")}


@pytest.mark.parametrize("name,melds,hands,closed,poz,want", EXAMPLES,
                         ids=[e[0] for e in EXAMPLES])
def test_worked_scoring_examples(name, melds, hands, closed, poz, want):
    deck = R.Deck()
    meld_ids = [deck.ids(m) for m in melds]
    for m in meld_ids:
        assert R.analyze(m).valid, m
    hand_ids = [c for h in hands for c in deck.ids(h)]
    for key, score in want.items():
        got = R.team_score(meld_ids, hand_ids, closed=closed, pozzetto_taken=poz,
                           rules=RULESETS[key])
        assert got["score"] == score, (name, key, got)
