"""One seat's record of a hand (sim.play.hand_file, docs/review.md "One seat's record"): its
hand, its draws, every card played, checked by the engine once the unseen cards are placed.

* every seat's record of simulated hands (several rule sets) reads back to the hand's actions
  and result, whatever card the placement puts in whichever free slot, and whatever the
  filler seed;
* the review of a record does not depend on the made-up cards: two filler seeds, two different
  decks, the same rows and tables (while the raw games' analyses differ);
* every bad record tried is one line naming the turn, the seat, the action and the rule, and
  the CLI exits 2 writing nothing.
"""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import referee as R
from _hand_text import cut_turns, edit, refused_in_one_line

import sim
from sim.cli import main
from sim.play import hand_file as HF

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hand_one_seat.toml"
FULL = ROOT / "examples" / "hand.toml"

#: (rules, hands): simulated hands whose every seat's record is read back
RULE_SETS = [(None, 4), ({"untaken_pozzetto_as_stock": True}, 4),
             ({"take_pile_requires_meld": True}, 2), ({"num_players": 2}, 2),
             ({"num_players": 3, "three_player_mode": "individual_3x11"}, 2)]


@pytest.fixture(scope="module")
def text():
    return EXAMPLE.read_text(encoding="utf-8")


def _records():
    """(full hand file, seat, that seat's record) of simulated hands."""
    for rules, hands in RULE_SETS:
        for h in range(hands):
            for spec in ("expert", "random"):
                doc = sim.replay(5, h, strategies=spec, **({} if rules is None else
                                                            {"rules": rules}))
                full = HF.load(doc)
                for seat in range(full.game.rules.num_players):
                    yield full, seat, HF.from_replay(doc, seat=seat, one_seat=True)


def _same_hand(hf, full):
    a, b = hf.end.result(), full.end.result()
    assert hf.actions == full.actions
    assert {k: a[k] for k in b if k.startswith("score") or k in ("end_reason", "turns")} == \
        {k: b[k] for k in b if k.startswith("score") or k in ("end_reason", "turns")}


@pytest.mark.parametrize("pick", ["last", "first", "random"])
def test_every_seats_record_of_simulated_hands_reads_back(monkeypatch, pick):
    """A real deal exists for each record (the simulated one), and placing a card in any free
    slot of the seat finds one: every slot it holds at a play existed before it, and so
    before every later play too; only their number can run short."""
    rng = np.random.default_rng(3)
    choose = {"last": lambda slots: slots.pop(), "first": lambda slots: slots.pop(0),
              "random": lambda slots: slots.pop(int(rng.integers(len(slots))))}[pick]
    monkeypatch.setattr(HF._Placer, "pick", staticmethod(choose))
    seen = {"records": 0, "pozzetto": 0, "differ": 0}
    for full, seat, d in _records():
        a, b = HF.load(d, fill_seed=1), HF.load(d, fill_seed=2)
        assert a.one_seat and a.seat == seat and not full.one_seat
        _same_hand(a, full)
        _same_hand(b, full)
        seen["records"] += 1
        seen["pozzetto"] += any("pozzetto" in t for t in d["turns"])
        seen["differ"] += not np.array_equal(a.game.deck, b.game.deck)
    assert seen["records"] == 100 and seen["pozzetto"] >= 10 and seen["differ"] == 100, seen


def test_the_example_is_the_full_example_as_seat_0_saw_it(text):
    hf, full = HF.load(EXAMPLE), HF.load(FULL)
    assert hf.one_seat and hf.seat == 0 and hf.players == full.players
    _same_hand(hf, full)                      # `left` makes the count the real one (R55)
    assert not R.check(hf.end.replay_document())   # the deal made up: every action legal
    doc = full.end.replay_document()
    assert HF.dump(HF.from_replay(doc, seat=0, players=hf.players, title=hf.title,
                                  one_seat=True)) == text
    d = HF._read(text)
    assert HF.load(json.dumps(d, ensure_ascii=False)).actions == hf.actions     # JSON too
    del d["left"]                             # without it the other hands' count is made up
    res = HF.load(d).end.result()
    assert (res["end_reason"], res["turns"]) == ("closed", 18)


def test_the_review_does_not_depend_on_the_made_up_cards():
    a, b = HF.load(EXAMPLE, fill_seed=1), HF.load(EXAMPLE, fill_seed=2)
    assert (a.game.deck != b.game.deck).sum() > 10 and a.actions == b.actions
    ra = sim.review(a, rollouts=16, threads=1)
    rb = sim.review(b, rollouts=16, threads=1)
    assert ra.info["view"] == 0 and ra.info["seats"] == [0] and len(ra.decisions) == 10
    pd.testing.assert_frame_equal(ra.decisions, rb.decisions)
    assert ra.tables.keys() == rb.tables.keys()
    for k in ra.tables:
        pd.testing.assert_frame_equal(ra.tables[k], rb.tables[k])
    # not by chance: the games themselves, analysed as they are, give other worlds
    ply = int(ra.decisions["ply"].iloc[-1])
    ga, gb = a.game.clone(), b.game.clone()
    for act in a.actions[:ply]:
        ga.apply(act)
        gb.apply(act)
    ta, tb = (sim.analyze(g, rollouts=16, seed=1, threads=1) for g in (ga, gb))
    assert not ta["mean_result"].equals(tb["mean_result"])
    with pytest.raises(ValueError, match="seats: the hand file is seat 0's record"):
        sim.review(a, seats=[0, 1], rollouts=4)


BAD = {
    "a card named on another seat's draw": (
        lambda t: edit(t, '# turn 2\nseat = 1\nactions = ["draw"',
                        '# turn 2\nseat = 1\nactions = ["draw 7♦"'),
        "hand file: turn 2, seat 1, 'draw 7♦': seat 0 records this hand and cannot see the card "
        "seat 1 draws; write 'draw' (R11"),
    "the recording seat's draw without its card": (
        lambda t: edit(t, '"draw 7♣"', '"draw"'),
        "hand file: turn 5, seat 0, 'draw': the recording seat's draw names the card it drew, "
        "e.g. 'draw 7♦' (R11"),
    "a card the recording seat holds, played by another": (
        lambda t: edit(t, '"meld 7♣ 7♦ 7♥", "discard K♠"', '"meld 7♣ 7♦ 7♥", "discard 7♣"'),
        "hand file: turn 6, seat 1, 'discard 7♣': '7♣' would be a third copy of 7♣ (R1: each "
        "card exists twice; both copies are already in turn 4, seat 3, 'discard 7♣' and turn 5, "
        "seat 0, 'draw 7♣')"),
    "a third copy": (
        lambda t: edit(t, '"meld 3♥ 4♥ 5♥", "discard 3♠"', '"meld 3♥ 4♥ 5♥", "discard K♦"'),
        "hand file: turn 10, seat 1, 'discard K♦': 'K♦' would be a third copy of K♦ (R1: each "
        "card exists twice; both copies are already in seat 0's hand (deal.hand) and turn 9, "
        "seat 0, 'draw K♦')"),
    "more cards than the seat holds": (
        lambda t: edit(t, '"lay off 7♥ on meld 2", "discard 8♥"',
                        '"lay off 7♥ on meld 2", "meld Q♠ Q♥ Q♦", "discard 8♥"'),
        "hand file: turn 16, seat 3, 'meld Q♠ Q♥ Q♦': seat 3 cannot hold Q"),
    "a pozzetto on another seat's turn": (
        lambda t: edit(t, '# turn 2\nseat = 1\n', '# turn 2\nseat = 1\npozzetto = "K♠"\n'),
        "hand file: turn 2, seat 1: pozzetto: seat 0 records this hand and cannot see seat 1's "
        "pozzetto (R11, R41); leave it out"),
    "a pozzetto not taken": (
        lambda t: edit(t, '# turn 5\nseat = 0\n', '# turn 5\nseat = 0\npozzetto = "K♠"\n'),
        "hand file: turn 5, seat 0: pozzetto: seat 0 takes no pozzetto in this turn (R41"),
    "left not what the seat holds": (
        lambda t: edit(t, '"5♦ Q♦ 4♠ 4♦",', '"5♦ Q♦ 4♠",'),
        "hand file: left[3]: 3 cards, but seat 3 ends the hand holding 4"),
    "an earlier illegal action named first": (
        lambda t: edit(edit(t, "# turn 2\nseat = 1", "# turn 2\nseat = 2"),
                        '"meld 3♥ 4♥ 5♥", "discard 3♠"', '"meld 3♥ 4♥ 5♥", "discard K♦"'),
        "hand file: turn 2, seat 2: out of turn: seat 1 plays turn 2 (R6, R32"),
    "an illegal action": (
        lambda t: edit(t, '"meld 10♣ 10♥ 10♠"', '"meld 5♠ 6♠ 7♠"'),
        "hand file: turn 1, seat 0, 'meld 5♠ 6♠ 7♠': illegal in the meld phase: the cards are "
        "not all in the player's hand"),
    "truncated": (lambda t: cut_turns(t, 12),
                  "hand file: the file ends in turn 13 before the hand does (seat 0 to pickup): "
                  "truncated?"),
    "both forms mixed": (
        lambda t: edit(t, 'discard = "2♣"', 'discard = "2♣"\nstock = "7♦ 7♣"'),
        "hand file: deal: both forms mixed: deal.hand is one seat's record (its hand and the "
        "up-card only), deal.stock belongs to the full deal; give one or the other"),
    "no recording seat": (lambda t: edit(t, "seat = 0\ndealer", "dealer"),
                          "hand file: seat: missing (required in one seat's record"),
    "a short hand": (lambda t: edit(t, 'hand = "Q♣ A♦ ', 'hand = "A♦ '),
                     "hand file: deal.hand: 10 cards, expected 11 (R8)"),
    "a pile taken with other cards": (
        lambda t: edit(t, 'seat = 1\nactions = ["take", "meld 7♣ 7♦ 7♥"',
                       'seat = 1\nactions = ["take 5♠ 5♦ K♥", "meld 7♣ 7♦ 7♥"'),
        "hand file: turn 6, seat 1, 'take 5♠ 5♦ K♥': the discard pile holds 7♣ 9♠, not 5♠ 5♦ "
        "K♥ (R33: the whole pile is taken; 'take' alone names it)"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_every_bad_record_is_one_line_naming_the_fault(text, case):
    refused_in_one_line(HF.load, text, BAD, case)


def _pozzetto_record():
    """A simulated hand's record by a seat that takes its pozzetto, and that turn's index."""
    for h in range(8):
        doc = sim.replay(5, h, strategies="expert")
        for seat in range(4):
            d = HF.from_replay(doc, seat=seat, one_seat=True)
            for i, turn in enumerate(d["turns"]):
                if "pozzetto" in turn:
                    return d, i
    raise AssertionError("no record with the recording seat's pozzetto")


def test_the_recording_seats_pozzetto_is_named_where_it_takes_it():
    d, i = _pozzetto_record()
    seat = d["turns"][i]["seat"]
    HF.load(d)
    del d["turns"][i]["pozzetto"]
    with pytest.raises(ValueError) as exc:
        HF.load(d)
    assert str(exc.value).startswith(f"hand file: turn {i + 1}, seat {seat}, '") and \
        str(exc.value).endswith(f": seat {seat} takes its pozzetto here (R41); name its 11 cards "
                                "in this turn's pozzetto = \"...\""), str(exc.value)


def test_the_full_form_takes_neither_left_nor_a_pozzetto():
    full = FULL.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match=r"^hand file: left: only in one seat's record"):
        HF.load(edit(full, "dealer = 3", 'dealer = 3\nleft = ["", "", "", ""]'))
    with pytest.raises(ValueError, match=r"^hand file: turns\[1\]: unknown field 'pozzetto'"):
        HF.load(edit(full, "# turn 2\nseat = 1\n", '# turn 2\nseat = 1\npozzetto = "K♠"\n'))


def test_the_cli_reviews_a_record_and_refuses_a_bad_one(text, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["review", str(EXAMPLE), "--rollouts", "4", "--threads", "1", "--quiet",
                 "--format", "json", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["review"]["view"] == 0 and doc["review"]["seats"] == [0]
    capsys.readouterr()
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD["a third copy"][0](text), encoding="utf-8")
    page = tmp_path / "bad.json"
    assert main(["review", str(bad), "--rollouts", "4", "--quiet", "--format", "json",
                 "--out", str(page)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"burraco: error: {bad}: turn 10, seat 1, 'discard K♦': 'K♦' would be a third copy"), err
    assert main(["review", str(EXAMPLE), "--seats", "0,1", "--rollouts", "4", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "seats: the hand file is seat 0's record" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "r.json"]
