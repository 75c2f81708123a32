"""Position files (docs/positions.md): sim.positions, Game.from_position, Game.to_position.

* positions taken from simulated games at many decisions (heuristic and random
  legal play; pickup, place, meld and discard; default rules, both presets, 2
  and 3 players, lock_two_roles, take_pile_requires_meld, R53) read back into a
  game with the same legal actions, the same observation and observation tensor
  for the viewer (and for another seat), the same counters, meld readings and
  the same heuristic choice; the game built plays on to a clean end that the
  referee passes (its replay document starts from the position's state);
* a position file round-trips: dump -> load -> dump is equal (TOML and JSON),
  and so is game -> position -> game -> position;
* every impossible position is refused with a one-line error naming the field;
* the example file under examples/ is canonical and builds.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import referee as R
import sim
from kernels.core import layout as L
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.table import work as KW
from kernels.core.cards import CIDX
from sim import positions
from sim.play.game import Game

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "position.toml"

# the counters a position carries exactly (the stock's offsets may differ, its size not;
# the pile counters and the event log are history, not part of a view)
SAME_G = ([KS.G_PILE_SIZE, KS.G_NEXT_POZZETTO, KS.G_TURN, KS.G_STALL, KS.G_TOOK_PILE, KS.G_ACTIONS,
           KS.G_CLOSER, KS.G_N_POZZETTI, KS.G_SOLO_SEAT, KS.G_SOLO_18, KS.G_PHASE, KS.G_SEAT, KS.G_END,
           KS.G_LAST_TURN, KS.G_SINGLE, KS.G_DEALER, KS.G_FIRST]
          + [KS.G_POZZETTO_TAKEN + t for t in range(3)] + [KS.G_POZZETTO_TURN + t for t in range(3)]
          + [KS.G_POZZETTO_MODE + t for t in range(3)] + [KS.G_POZZETTO_SIZE + k for k in range(3)]
          + [KS.G_POZZETTO_HIDDEN + s for s in range(4)] + [KS.G_TEAM + s for s in range(4)])


def decisions(rules, seed, hands, rate, rng, random_play, per_hand=12):
    """Copies of games at decisions of ``hands`` hands (each decision kept with
    probability ``rate``, at most ``per_hand`` a hand), played by the heuristic or by
    uniform random legal actions."""
    for i in range(hands):
        g = Game.new(seed, i, rules=rules)
        kept = 0
        while not g.is_over and kept < per_hand:
            if rng.random() < rate:
                kept += 1
                yield g.clone()
            if random_play:
                legal = g.legal_actions()
                g.apply(legal[rng.integers(len(legal))])
            else:
                g.apply(g.choose())


def barred_view(g):
    st = g.state
    b = int(st.g[KS.G_BARRED])
    if b < 0:
        return None
    mover = g.current_seat
    return int(CIDX[b]), b in st.hand[mover, :st.hn[mover]].tolist()


def assert_same_view(g, w, seat):
    """``w`` (built from ``g``'s position for ``seat``) agrees with ``g`` on all ``seat`` knows."""
    assert w.observation(seat) == g.observation(seat)
    assert np.array_equal(w.observation_tensor(seat), g.observation_tensor(seat))
    a, b = g.state, w.state
    assert np.array_equal(a.g[SAME_G], b.g[SAME_G])
    assert a.g[KS.G_STOCK_END] - a.g[KS.G_STOCK_TOP] == b.g[KS.G_STOCK_END] - b.g[KS.G_STOCK_TOP]
    assert barred_view(g) == barred_view(w)
    assert np.array_equal(a.hn, b.hn) and np.array_equal(a.known, b.known)
    assert np.array_equal(a.hcnt[seat], b.hcnt[seat])
    assert [CIDX[c] for c in a.hand[seat, :a.hn[seat]]] == [CIDX[c] for c in b.hand[seat, :b.hn[seat]]]
    assert np.array_equal(a.nm, b.nm)
    for t in range(KS.NTEAMS):
        m = int(a.nm[t])
        assert np.array_equal(a.mcnt[t, :m], b.mcnt[t, :m])
        assert np.array_equal(a.minfo[t, :m], b.minfo[t, :m])     # readings, 2s' roles (R25)
    assert ([CIDX[c] for c in a.pile[:a.g[KS.G_PILE_SIZE]]]
            == [CIDX[c] for c in b.pile[:b.g[KS.G_PILE_SIZE]]])
    assert KSM.conservation_ok(b)


CONFIGS = [
    ("default", None),
    ("fibur_italian", "fibur_italian"),
    ("fibur_international", "fibur_international"),
    ("2 players", {"num_players": 2}),
    ("3 players solo_18", {"num_players": 3}),
    ("3 players 3x11", {"num_players": 3, "three_player_mode": "individual_3x11"}),
    ("lock_two_roles", {"lock_two_roles": True}),
    ("take_pile_requires_meld", {"take_pile_requires_meld": True,
                                 "pile_meld_source": "from_pile"}),
    ("R53", {"untaken_pozzetto_as_stock": True, "stock_end_mode": "immediate"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,rules", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_positions_from_games_read_back_the_same(name, rules):
    r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**(rules or {}))
    rng = np.random.default_rng(11)
    seen = {"phases": set(), "barred": 0, "barred_melded": 0, "unplayed": 0, "known": 0,
            "roles": 0, "n": 0, "solo": 0, "poz_stock": 0}
    for random_play in (False, True):
        for g in decisions(r, 7 if random_play else 8, 20 if random_play else 30,
                           0.02 if random_play else 0.1, rng, random_play):
            seat = g.current_seat
            p = g.to_position()
            w = Game.from_position(p, seed=int(rng.integers(1 << 32)))
            assert w.legal_actions() == g.legal_actions()
            assert_same_view(g, w, seat)
            if not random_play:
                assert w.choose() == g.choose()        # the heuristic sees the same
            assert w.to_position(seat) == p
            for fmt in ("toml", "json"):
                text = positions.dump(p, fmt=fmt)
                assert positions.load(text) == p
                assert positions.dump(positions.load(text), fmt=fmt) == text
            other = (seat + 1) % r.num_players     # another seat's view: same facts for it
            po = g.to_position(other)
            wo = Game.from_position(po, seed=3)
            assert_same_view(g, wo, other)
            assert wo.to_position(other) == po
            # coverage of the position's parts
            seen["n"] += 1
            seen["phases"].add(p["phase"])
            t = p.get("this_turn", {})
            seen["barred"] += "barred" in t
            seen["barred_melded"] += t.get("barred_in_hand") is False
            seen["unplayed"] += any("unplayed_seat" in e for e in p["pozzetti"]["taken"])
            seen["known"] += any(k for s, k in enumerate(p["known"]) if s != seat)
            seen["roles"] += sum("natural_twos" in m for m in p["melds"])
            seen["solo"] += int(g.state.g[KS.G_SOLO_SEAT]) >= 0
            seen["poz_stock"] += p["pozzetti"]["left"] + len(p["pozzetti"]["taken"]) < 2
    print(name, seen)
    assert seen["n"] >= 300
    assert {"pickup", "meld", "discard"} <= seen["phases"]
    assert ("place" in seen["phases"]) == r.take_pile_requires_meld
    assert seen["barred"] and seen["barred_melded"] and seen["unplayed"] and seen["known"]
    assert seen["roles"] or not r.lock_two_roles
    assert seen["solo"] or not (r.num_players == 3 and r.three_player_mode == "solo_18")
    assert seen["poz_stock"] or not r.untaken_pozzetto_as_stock


@pytest.mark.slow
def test_games_built_from_positions_play_on_cleanly():
    rng = np.random.default_rng(2)
    n = 0
    for rules in (None, {"num_players": 3}, {"lock_two_roles": True}, "fibur_international"):
        r = sim.Rules.preset(rules) if isinstance(rules, str) else sim.Rules(**(rules or {}))
        for g in decisions(r, 4, 25, 0.1, rng, False, per_hand=2):
            w = Game.from_position(g.to_position(), seed=n)
            w._work[KW.W_DEBUG] = 1        # conservation and meld checks after every action
            while not w.is_over:
                legal = w.legal_actions()
                w.apply(legal[rng.integers(len(legal))])
            assert w._record()[L.REC_ERROR] == 0
            assert isinstance(w.result()["score_t0"], int)
            doc = w.replay_document()             # the position's state, then the play
            assert doc["start"]["sampled_for"] == w.sampled_for
            assert not R.check(doc), R.check(doc)
            n += 1
    assert n > 100


def test_unseen_cards_are_dealt_at_random():
    g = Game.new(5, 1)
    for _ in range(30):
        g.apply(g.choose())
    p = g.to_position()
    a, b = Game.from_position(p, seed=1), Game.from_position(p, seed=2)
    assert Game.from_position(p, seed=1) == a                   # seeded
    other = (p["seat"] + 1) % 4
    assert a.state.hcnt[other].tolist() != b.state.hcnt[other].tolist()
    assert a.observation(p["seat"]) == b.observation(p["seat"])


def test_a_position_file_round_trips(tmp_path):
    pos = positions.load(EXAMPLE)
    for suffix in (".toml", ".json"):
        f = tmp_path / ("p" + suffix)
        text = positions.dump(pos, f)
        assert f.read_text(encoding="utf-8") == text
        assert positions.load(f) == pos
        assert positions.dump(positions.load(f), fmt=suffix[1:]) == text
        assert positions.dump(str(f), fmt=suffix[1:]) == text
    assert positions.dump(pos) == EXAMPLE.read_text(encoding="utf-8")     # the example is canonical
    g = Game.from_position(EXAMPLE, seed=9)
    assert g.to_position(pos["seat"]) == pos
    assert g.match_totals == pos["match"]["totals"] and g.clone().match_totals == g.match_totals


def test_short_positions_take_defaults():
    text = """
seat = 0
phase = "pickup"
hand = "7h 8h 9h Kc Kd JK 3s 4s 5s Qd Qc"
hand_sizes = [11, 11, 11, 11]
pile = "2c"
stock = 41
"""
    p = positions.load(text)
    assert p["to_move"] == 0 and p["turn"] == 1 and p["dealer"] == 3
    assert p["hand"].startswith("7♥ 8♥ 9♥ K♣") and p["pozzetti"] == {"left": 2, "taken": []}
    g = Game.from_position(text, seed=4)
    assert g.phase == "pickup" and g.current_seat == 0 and g.legal_actions() == [0, 1]
    assert g.observation(0).hand[:3] == ("7♥", "8♥", "9♥")
    assert positions.load(json.dumps({**p, "rules": "fibur_italian"}))["rules"] == \
        {"preset": "fibur_italian"}
    # the rules are written as the nearest preset and the options that differ from it
    p2 = positions.load({**p, "rules": {"preset": "fibur_italian", "semi_clean_bonus": "off"}})
    assert p2["rules"] == {"preset": "default"}
    assert Game.from_position(p2).rules == sim.Rules()
    p3 = positions.load({**p, "rules": {"lock_two_roles": True, "semi_clean_bonus": 150}})
    assert p3["rules"] == {"preset": "fibur_italian", "lock_two_roles": True}


# ----------------------------------------------------------------------------- refusals
BASE = {
    "seat": 0, "phase": "meld", "turn": 9, "dealer": 3,
    "hand": "7h 8h 9h Kc Kd JK 3s 4s 5s Qd", "hand_sizes": [10, 11, 9, 10],
    "known": ["", "", "4d", ""], "pile": "2c 5d", "stock": 41,
    "this_turn": {"pickup": "stock"},
    "melds": [{"side": 1, "cards": "4c 4d 4s"}],
}


def test_the_base_position_builds():
    g = Game.from_position(BASE, seed=1)
    assert g.phase == "meld" and g.current_seat == 0 and g.turn == 9
    assert sum(g.state.hn) + 3 + 2 + 41 + 22 == 108


def with_(**changes):
    d = json.loads(json.dumps(BASE))
    for k, v in changes.items():
        if v is None:
            d.pop(k, None)
        else:
            d[k] = v
    return d


REFUSED = [
    # (what, position, the field in the message, a phrase of the reason)
    ("a third copy", with_(pile="7h 7h"), r"pile: '7♥' would be a third copy of 7♥", "exists twice"),
    ("a fifth joker", with_(hand="JK JK JK Kc Kd 7h 3s 4s 5s Qd", pile="JK JK"),
     r"pile: 'JK' would be a fifth joker", "there are 4"),
    ("a bad card", with_(hand="7h 8h 9h Kc Kd JK 3s 4s 5s 1d"), r"hand: bad card '1d'", "rank"),
    ("counts", with_(stock=30), r"the counts do not add up to the 108-card deck", "stock 30 + untaken pozzetti 22 = 97"),
    ("hand size", with_(hand_sizes=[11, 11, 9, 10]), r"hand_sizes\[0\]: seat 0 holds the 10",
     "not 11"),
    ("an invalid meld", with_(melds=[{"side": 1, "cards": "4c 5d 6s"}]),
     r"melds\[0\]\.cards: '4♣ 5♦ 6♠' is not a valid meld", "R16/R17"),
    ("two wilds", with_(melds=[{"side": 1, "cards": "4c 4d JK 2s"}], hand="7h 8h 9h Kc Kd 3s 4s 5s Qd 6d"),
     r"melds\[0\]\.cards: .* is not a valid meld", "R14"),
    ("a set rank the rules forbid", with_(rules="fibur_international",
                                          this_turn={"pickup": "stock"}),
     r"melds\[0\]\.cards: .* is not a valid meld", "set_ranks"),
    ("two sets of a rank", with_(melds=[{"side": 1, "cards": "4c 4d 4s"},
                                        {"side": 1, "cards": "4c 4h 4h"}], stock=38),
     r"melds\[1\]\.cards", "R23"),
    ("a side with no seat", with_(melds=[{"side": 2, "cards": "4c 4d 4s"}]), r"melds\[0\]\.side",
     "0..1"),
    ("place without the option", with_(phase="place", this_turn={"pickup": "pile"}, pile=""),
     r"phase: 'place' follows only a pile pickup", "take_pile_requires_meld"),
    ("place after a draw", with_(phase="place", rules={"take_pile_requires_meld": True}),
     r"phase: 'place' is the meld phase right after taking the pile", "pickup = 'pile'"),
    ("a discard phase with an empty hand", with_(phase="discard", hand="", hand_sizes=[0, 11, 9, 10]),
     r"position: hand: a hand in play is never empty", "R38"),
    ("a pile after taking it", with_(this_turn={"pickup": "pile"}),
     r"pile: the seat took the pile this turn", "empty"),
    ("an empty pile at the pickup", with_(phase="pickup", this_turn=None, pile="", stock=43),
     r"pile: at a pickup the discard pile holds", "up-card"),
    ("this_turn at the pickup", with_(phase="pickup"), r"this_turn: a position at the pickup",
     "nothing"),
    # after the pickup, what the turn did is never assumed (it was taken as a stock draw)
    ("no this_turn in the meld phase", with_(this_turn=None),
     r"this_turn: missing \(required in the 'meld' phase", "at least pickup = 'stock' or 'pile'"),
    ("no this_turn in the discard phase", with_(phase="discard", this_turn=None),
     r"this_turn: missing \(required in the 'discard' phase", "pickup = 'stock' or 'pile'"),
    ("no this_turn in the place phase", with_(phase="place", this_turn=None, pile="",
                                              rules={"take_pile_requires_meld": True}),
     r"this_turn: missing \(required in the 'place' phase", "pickup"),
    ("an empty this_turn", with_(phase="discard", this_turn={}),
     r"this_turn.pickup: missing \(required", "'stock' if the seat drew from the stock, 'pile'"),
    ("this_turn without its pickup", with_(this_turn={"actions": 1}),
     r"this_turn.pickup: missing \(required", "'pile' if it took the discard pile"),
    ("a turn that cannot start", with_(phase="pickup", this_turn=None, stock=2, hand_sizes=[10, 11, 9, 49]),
     r"stock: a turn never starts with 2 cards", "R50"),
    ("a stock below the reserve", with_(stock=1, hand_sizes=[10, 11, 9, 50]),
     r"stock: the stock never falls below", "stock_reserve=2"),
    ("the seat out of range", with_(seat=4), r"seat: expected an integer in 0..3", "got 4"),
    ("to_move out of range", with_(rules={"num_players": 2}, to_move=2),
     r"to_move: expected an integer in 0..1", "got 2"),
    ("hand sizes of another player count", with_(rules={"num_players": 3}, dealer=None),
     r"hand_sizes: expected a list of 3", "one per seat"),
    ("the dealer", with_(dealer=1), r"dealer: with dealer 1 seat 2 plays turn 9", "R6"),
    ("three pozzetti", with_(pozzetti={"left": 3}), r"pozzetti.left: expected an integer in 0..2",
     "got 3"),
    ("a pozzetto missing", with_(pozzetti={"left": 1}, stock=52),
     r"pozzetti.left: 0 taken \+ 1 left", "R53"),
    ("a pozzetto taken twice", with_(pozzetti={"left": 0, "taken": [{"side": 0}, {"side": 0}]}),
     r"pozzetti.taken\[1\]\.side: side 0 took a pozzetto already", "R43"),
    ("an unplayed pozzetto of the wrong size",
     with_(pozzetti={"left": 1, "taken": [{"side": 1, "turn": 7, "mode": "discard",
                                            "unplayed_seat": 3}]}, stock=52),
     r"pozzetti.taken\[0\]\.unplayed_seat: seat 3 holds 10 cards", "its 11 cards"),
    ("an unplayed pozzetto taken al volo",
     with_(pozzetti={"left": 1, "taken": [{"side": 1, "mode": "direct", "unplayed_seat": 3}]},
           stock=52), r"pozzetti.taken\[0\]\.unplayed_seat: only a pozzetto taken with the discard",
     "R57"),
    ("barred without a one-card pile", with_(this_turn={"pickup": "stock", "barred": "7h"}),
     r"this_turn.barred: only after taking a one-card pile", "R36"),
    ("barred not in hand", with_(pile="", stock=43, this_turn={"pickup": "pile", "one_card_pile": True,
                                                            "barred": "6c"}),
     r"this_turn.barred: 6♣ is not in hand", "barred_in_hand"),
    ("barred without the option", with_(rules={"forbid_rediscard_single_pile": False}, pile="",
                                        stock=43, this_turn={"pickup": "pile", "one_card_pile": True,
                                                             "barred": "7h"}),
     r"this_turn.barred: only with forbid_rediscard_single_pile", "R36"),
    ("known cards not held", with_(known=["Ah", "", "", ""]),
     r"known\[0\]: 1 × A♥ known in seat 0's hand", "holds 0"),
    ("too many known cards", with_(known=["", "", "4d 5d 6d 7d 8d 9d 10d Jd Qd Kd", ""]),
     r"known\[2\]: 10 known cards in a hand of 9", "9"),
    ("natural_twos without the option", with_(melds=[{"side": 1, "cards": "4c 4d 4s",
                                                     "natural_twos": 1}]),
     r"melds\[0\]\.natural_twos: only with the option lock_two_roles", "R25"),
    ("natural_twos that no reading keeps",
     with_(rules={"lock_two_roles": True}, stock=38, hand_sizes=[9, 11, 9, 10],
           melds=[{"side": 1, "cards": "4c 4d 4s"}, {"side": 0, "cards": "2h 3h 4h JK",
                                                     "natural_twos": 0}],
           hand="8h 9h Kc Kd 3s 4s 5s Qd 6d"),
     r"melds\[1\]\.natural_twos: 0 natural 2s in '2♥ 3♥ 4♥ JK'", "R14"),
    ("an unknown field", with_(colour="red"), r"^position: unknown field 'colour'", "allowed"),
    ("an unknown rule", with_(rules={"colour": "red"}), r"position: rules: unknown option 'colour'",
     "allowed"),
    ("an unknown phase", with_(phase="over"), r"phase: expected one of", "'discard'"),
    ("a missing field", with_(stock=None), r"position: stock: missing", "required"),
    ("the stall counter", with_(stall=12), r"stall: expected an integer in 0..11", "got 12"),
    ("a turn past the cap", with_(turn=401), r"turn: expected an integer in 1..400", "got 401"),
    ("match totals", with_(match={"totals": [1, 2, 3]}), r"match.totals: expected a list of 2",
     "one per side"),
    ("no discard after the meld phase", with_(hand="JK", hand_sizes=[1, 11, 9, 10], stock=61,
                                              pozzetti={"left": 1, "taken": [{"side": 0}]}),
     r"hand: no card of the hand could be discarded", "R38"),
]


@pytest.mark.parametrize("what,position,field,why", REFUSED, ids=[r[0] for r in REFUSED])
def test_impossible_positions_are_refused(what, position, field, why):
    with pytest.raises(ValueError) as e:
        Game.from_position(position)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("position: "), msg
    import re
    assert re.search(field, msg) and why in msg, msg


def test_unreadable_sources_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"position: text is not TOML"):
        positions.load("seat = = 0\n")
    with pytest.raises(ValueError, match=r"position: text is not JSON"):
        positions.load("{\"seat\": }")
    with pytest.raises(ValueError, match=r"cannot read"):
        positions.load(str(tmp_path / "missing.toml"))
    with pytest.raises(ValueError, match=r"fmt must be"):
        positions.dump(BASE, fmt="yaml")
    with pytest.raises(ValueError, match=r"format 2 is not supported"):
        positions.load({**BASE, "format": 2})
    g = Game.new(1, 1).play()
    with pytest.raises(ValueError, match=r"to_position: the hand is over"):
        g.to_position()
    with pytest.raises(ValueError, match=r"seat must be an integer in 0..3"):
        Game.new(1, 1).to_position(5)



def test_lock_two_roles_keeps_the_stored_role_of_a_two():
    """2♥ 3♥ 4♥ 5♥ whose 2 entered as a wild (created as 4♥ 5♥ 2♥, then 3♥ laid off) is
    dirty under lock_two_roles and takes no joker; read canonically it is clean (R20, R25)."""
    from kernels.engine import actions as KA
    lay_joker = KA.A_LAYOFF + 53 * 0 + 52
    for nat, dirty in ((0, 1), (1, 0)):
        p = with_(rules={"lock_two_roles": True}, stock=37,
                  melds=[{"side": 1, "cards": "4c 4d 4s"},
                         {"side": 0, "cards": "2h 3h 4h 5h", "natural_twos": nat}])
        g = Game.from_position(p, seed=2)
        meld = [m for m in g.observation(0).melds if m["team"] == 0][0]
        assert meld["wilds"] == dirty
        assert (lay_joker in g.legal_actions()) == (not dirty)
        assert g.to_position(0)["melds"][0]["natural_twos"] == nat
    default = with_(rules={"lock_two_roles": True}, stock=37,
                    melds=[{"side": 1, "cards": "4c 4d 4s"}, {"side": 0, "cards": "2h 3h 4h 5h"}])
    assert Game.from_position(default).to_position(0)["melds"][0]["natural_twos"] == 1
