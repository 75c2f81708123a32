"""Hand files (sim.play.hand_file, docs/review.md): a hand as people played it, checked by the
engine action by action.

* a simulated hand written as a hand file reads back to the same actions and the same record,
  and its review is the review of the simulated hand (same tables, same losses);
* examples/hand.toml is played through to the record its docs give, and the independent
  referee finds every action of its replay document legal;
* every bad file tried (a card twice, a card that does not exist, a deal that does not add up,
  an action out of turn, an illegal meld, a one-card pile's card discarded, a lay-off or meld
  that leaves a dead end (R38), a wrong draw, a turn without its discard, a truncated file) is
  one line
  naming what is wrong, and the CLI exits 2 writing nothing.
"""
import json
import re
from pathlib import Path

import pandas as pd
import pytest
import referee as R
from _hand_text import cut_turns, edit, refused_in_one_line

import sim
from sim.cli import main
from sim.play import hand_file as HF

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hand.toml"
SPECS = ["heuristic", "expert", "expert", "heuristic"]


@pytest.fixture(scope="module")
def example_text():
    return EXAMPLE.read_text(encoding="utf-8")


def test_a_simulated_hand_reads_back_and_reviews_the_same():
    doc = sim.replay(11, 3, strategies=SPECS)
    text = HF.dump(HF.from_replay(doc, seat=2))
    hf = HF.load(text)
    assert hf.seat == 2 and hf.players == SPECS
    got = hf.end.replay_document()
    def faces(events):                      # a hand file names cards, not copies (R1)
        return [{k: v for k, v in e.items() if not k.endswith("_id") and k != "card_ids"}
                for e in events]

    assert got["deal"] == doc["deal"] and faces(got["events"]) == faces(doc["events"])
    assert {k: got["result"][k] for k in ("end_reason", "turns", "score_t0", "score_t1")} == \
        {k: doc["result"][k] for k in ("end_reason", "turns", "score_t0", "score_t1")}
    assert HF.load(doc).actions == hf.actions                # the replay document itself
    mine = sim.review(11, 3, strategies=SPECS, seats=[2], rollouts=16, threads=1)
    theirs = sim.review(text, rollouts=16, threads=1)       # the recording seat: 2
    pd.testing.assert_frame_equal(mine.decisions.drop(columns="strategy"),
                                  theirs.decisions.drop(columns="strategy"))
    assert theirs.info["seed"] is None and theirs.info["file"] is None
    assert theirs.info["strategies"] == SPECS


def test_the_example_plays_to_its_record(example_text):
    hf = HF.load(EXAMPLE)
    assert hf.seat == 0 and hf.players == ["Anna", "Bruno", "Carla", "Dario"]
    res = hf.end.result()
    assert (res["end_reason"], res["turns"], res["score_t0"], res["score_t1"]) == \
        ("closed", 18, 220, 520)
    assert len(hf.actions) == 88 and hf.labels[0] == "turn 1, seat 0, 'take'"
    doc = hf.end.replay_document()
    assert not R.check(doc)                      # the independent referee agrees: all legal
    back = sim.Game.from_json(hf.end.to_json())  # the deck goes with the game
    assert back == hf.end and back.replay_document() == doc
    assert back != sim.Game.from_deck(list(range(108)), 3).clone() and \
        hf.game.clone() == hf.game
    assert " ".join(doc["deal"]["hands"][0]) == "Q♣ A♦ 10♣ 10♠ 3♣ 3♥ 10♥ K♦ 9♠ 4♦ 2♥"
    assert HF.dump(HF.from_replay(doc, seat=0, players=hf.players, title=hf.title)) == \
        example_text


BAD = {
    "a card twice": (lambda t: edit(t, 'stock = "7♦', 'stock = "Q♣'),
                     "hand file: deal.stock: 'Q♣' would be a third copy of Q♣ (R1: each card "
                     "exists twice; both copies are already in deal.hands[0] and deal.pozzetti[0])"),
    "a fifth joker": (lambda t: edit(t, 'stock = "7♦', 'stock = "JK'),
                      "hand file: deal.stock: 'JK' would be a fifth joker (R1: there are 4"),
    "a card that does not exist": (lambda t: edit(t, '"Q♣ A♦ 10♣', '"Q♣ 11♦ 10♣'),
                                   "hand file: deal.hands[0]: bad card '11♦'; expected a rank "
                                   "(A 2-10 J Q K, T for ten) followed by a suit"),
    "a short hand": (lambda t: edit(t, '"Q♣ A♦ 10♣', '"A♦ 10♣'),
                     "hand file: deal.hands[0]: 10 cards, expected 11 (R8)"),
    "a card missing": (lambda t: edit(t, ' JK JK"', ' JK"'),
                       "hand file: deal: the cards do not add up to the 108-card deck (R1, R8): "
                       "107 given; missing JK"),
    "out of turn": (lambda t: edit(t, "# turn 2\nseat = 1", "# turn 2\nseat = 2"),
                    "hand file: turn 2, seat 2: out of turn: seat 1 plays turn 2 (R6, R32"),
    "not a meld": (lambda t: edit(t, '"meld 10♣ 10♥ 10♠"', '"meld 10♣ 3♥ 10♠"'),
                   "hand file: turn 1, seat 0, 'meld 10♣ 3♥ 10♠': '10♣ 3♥ 10♠' is not a valid "
                   "meld (R15-R19)"),
    "a meld of cards not held": (
        lambda t: edit(t, '"meld 10♣ 10♥ 10♠"', '"meld 5♠ 6♠ 7♠"'),
        "hand file: turn 1, seat 0, 'meld 5♠ 6♠ 7♠': illegal in the meld phase: the cards are "
        "not all in the player's hand"),
    "the one-card pile's card discarded": (
        lambda t: edit(t, 'actions = ["take", "meld 10♣ 10♥ 10♠", "meld 2♣ 3♣ 3♥", '
                           '"discard Q♣"]', 'actions = ["take", "discard 2♣"]'),
        "hand file: turn 1, seat 0, 'discard 2♣': illegal in the discard phase: R36/R37: no card "
        "of that face in the hand may be discarded"),
    "a wrong draw": (lambda t: edit(t, '"draw 7♦"', '"draw 7♣"'),
                     "hand file: turn 2, seat 1, 'draw 7♣': the stock's top card is 7♦, not 7♣ "
                     "(the deal's stock, top card first)"),
    "no action": (lambda t: edit(t, '"draw 7♦"', '"fold"'),
                  "hand file: turn 2, seat 1, 'fold': 'fold' names no action; accepted forms"),
    "a turn without its discard": (
        lambda t: edit(t, '"meld 2♣ 3♣ 3♥", "discard Q♣"]', '"meld 2♣ 3♣ 3♥"]'),
        "hand file: turn 1, seat 0: the turn ends without its discard (R32: pick up, meld, "
        "discard); the seat is in the meld phase"),
    "two turns in one": (lambda t: edit(t, '"discard Q♣"]', '"discard Q♣", "draw"]'),
                         "hand file: turn 1, seat 0, 'draw': the turn is over (after the discard "
                         "play passes on, R32)"),
    "truncated mid-line": (lambda t: t[:t.index('"meld 10♣ 10♥') + 8],
                           "hand file: text is not TOML ("),
    "truncated at a turn": (lambda t: cut_turns(t, 12),
                            "hand file: the file ends in turn 13 before the hand does (seat 0 to "
                            "pickup): truncated?"),
    "an unknown field": (lambda t: edit(t, "dealer = 3", "dealer = 3\nwinner = 1"),
                         "hand file: unknown field 'winner'; allowed: format, title"),
    "no dealer": (lambda t: edit(t, "dealer = 3\n", ""),
                  "hand file: dealer: missing (required: the dealer seat, R6"),
    "a pile taken with other cards": (
        lambda t: edit(t, 'seat = 1\nactions = ["take", "meld 7♣ 7♦ 7♥"',
                       'seat = 1\nactions = ["take 5♠ 5♦ K♥", "meld 7♣ 7♦ 7♥"'),
        "hand file: turn 6, seat 1, 'take 5♠ 5♦ K♥': the discard pile holds 7♣ 9♠, not 5♠ 5♦ "
        "K♥ (R33: the whole pile is taken; 'take' alone names it)"),
    "an action after the close": (
        lambda t: edit(t, '"lay off 6♣ on meld 1", "discard 10♥"]',
                       '"lay off 6♣ on meld 1", "discard 10♥", "draw"]'),
        "hand file: turn 18, seat 1, 'draw': the hand is over (it ended with the action "
        "before: a close, R45"),
    "a title that is not a text": (lambda t: edit(t, 'title = "A club', 'title = 5\n# "A club'),
                                   "hand file: title: expected a text, got 5"),
    "a word that only begins like take": (
        lambda t: edit(t, 'seat = 1\nactions = ["take", "meld 7♣ 7♦ 7♥"',
                       'seat = 1\nactions = ["takeover", "meld 7♣ 7♦ 7♥"'),
        "hand file: turn 6, seat 1, 'takeover': 'takeover' names no action"),
}


def test_a_pile_taken_with_its_cards_named_reads_as_take(example_text):
    """``take`` may name the pile's cards, in any order (checked, as ``draw X`` is)."""
    named = edit(example_text, 'seat = 1\nactions = ["take", "meld 7♣ 7♦ 7♥"',
                 'seat = 1\nactions = ["take 9♠ 7♣", "meld 7♣ 7♦ 7♥"')
    assert HF.load(named).actions == HF.load(example_text).actions


@pytest.mark.parametrize("case", list(BAD))
def test_every_bad_file_is_one_line_naming_the_fault(example_text, case):
    refused_in_one_line(HF.load, example_text, BAD, case)


@pytest.mark.parametrize("hand,ply,turn,action,needle", [
    (7, 55, 12, "lay off 8♠ on meld 0",
     "illegal in the meld phase: R38/R45: the one card left could not be discarded (a close "
     "needs the pozzetto, a burraco and a natural card)"),
    (1, 133, 32, "meld 3♣ 3♦ 3♥ 3♠",
     "illegal in the meld phase: R38/R43/R46: the hand would be empty with the team's "
     "pozzetto already taken (a close needs a discard)"),
])
def test_an_action_that_leaves_a_dead_end(hand, ply, turn, action, needle):
    """R38: a move after which no discard would be legal is refused; the positions were found
    by trying every action at the late decisions of expert hands of seed 2026."""
    d = HF.from_replay(sim.replay(2026, hand, strategies="expert"))
    hf = HF.load(d)
    done = sum(1 for label in hf.labels[:ply] if label.startswith(f"turn {turn},"))
    seat = d["turns"][turn - 1]["seat"]
    d["turns"] = d["turns"][:turn]
    d["turns"][-1]["actions"] = d["turns"][-1]["actions"][:done] + [action]
    with pytest.raises(ValueError) as exc:
        HF.load(d)
    assert str(exc.value) == f"hand file: turn {turn}, seat {seat}, {action!r}: {needle}"


def test_the_cli_reviews_a_hand_file_and_refuses_a_bad_one(example_text, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["review", str(EXAMPLE), "--rollouts", "8", "--quiet", "--format", "json",
                 "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: review of the hand file {EXAMPLE}")
    doc = json.loads(out.read_text())
    assert doc["review"]["file"] == str(EXAMPLE) and doc["review"]["seats"] == [0]
    assert {d["strategy"] for d in doc["decisions"]} == {"Anna"}
    good = tmp_path / "good.html"                    # the viewer draws the file's deal
    assert main(["review", str(EXAMPLE), "--rollouts", "4", "--quiet", "--format", "html",
                 "--out", str(good)]) == 0
    page = good.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                page, re.S).group(1))
    assert data["meta"]["title"] == "Burraco: A club evening, third hand: Anna and Carla " \
        "against Bruno and Dario, as Anna wrote it down"
    assert [s["strategy"] for s in data["meta"]["seats"]] == ["Anna", "Bruno", "Carla", "Dario"]
    capsys.readouterr()
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD["out of turn"][0](example_text), encoding="utf-8")
    page = tmp_path / "bad.html"
    assert main(["review", str(bad), "--rollouts", "8", "--quiet", "--format", "html",
                 "--out", str(page)]) == 2
    err = capsys.readouterr().err
    assert err == (f"burraco: error: {bad}: turn 2, seat 2: out of turn: seat 1 plays turn 2 "
                   "(R6, R32: play goes round, the seat after the dealer first)\n")
    assert not page.exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.toml", "good.html", "r.json"]
    for argv, needle in (([str(EXAMPLE), "--hand", "1"], "--hand: the hand file"),
                         ([str(EXAMPLE), "--seed", "1"], "--seed: the hand file"),
                         ([str(EXAMPLE), "--strategy", "expert"], "--strategy: the hand file")):
        assert main(["review", *argv, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
    with pytest.raises(ValueError, match=re.escape("hand_index: a hand file fixes the hand")):
        sim.review(EXAMPLE, 3)
