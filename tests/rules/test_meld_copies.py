"""A card given as text names a card, not a physical copy (RULES.md R1), in the meld API.

A fault once found: ``sim.melds.lay_off(meld_check, "JK")`` refused the joker because the meld
already held the first joker id.  Every expected value below is worked out by hand from R1
(each card exists twice, four jokers; id = 54 * copy + face, jokers 52, 53, 106, 107), R14,
R16, R17 and R24.
"""
from __future__ import annotations

import pytest

from sim import melds, notation
from sim.table.position import Position

QS = 50                 # Q♠: face 13*3 + 11; the other copy is 104
JOKERS = (52, 53, 106, 107)


def _valid_meld_with(face: int, copies: tuple) -> list:
    """Card ids of a valid meld holding ``copies`` (0 and/or 1) of natural ``face``.

    A rank other than 2: a set of that rank, the other suits filling it to 3 cards (R16).
    A 2: its suit's sequence, A 2 3 with one copy (the 2 natural, R13) or 2 2 3 with both
    (one 2 natural, the other the wild, L10)."""
    rank, suit = face % 13, face // 13
    ids = [54 * c + face for c in copies]
    if rank == 1:
        ids.append(13 * suit + 2)                    # the 3 of the suit
        if len(copies) == 1:
            ids.append(13 * suit)                    # the ace of the suit
        return ids
    others = [13 * s + rank for s in range(4) if s != suit]
    return ids + others[:3 - len(ids)]


@pytest.mark.parametrize("copy", [0, 1])
@pytest.mark.parametrize("face", range(52))
def test_text_takes_the_other_copy_of_every_card(face, copy):
    """Every natural card, whichever copy the meld (as ids) holds: the text adds the other one,
    and the lay-off is legal (R16: a natural of the set's rank; a 2 on A 2 3 is the wild 4)."""
    meld = _valid_meld_with(face, (copy,))
    assert melds.check(meld).valid
    res = melds.lay_off(meld, notation.format_card(face))
    assert res.valid, res.reason
    assert sorted(res.cards) == sorted(meld + [54 * (1 - copy) + face])


@pytest.mark.parametrize("face", range(52))
def test_third_copy_of_every_card_is_refused_naming_it(face):
    """Both copies already in the meld: a third does not exist (R1); the error names the card."""
    meld = _valid_meld_with(face, (0, 1))
    assert melds.check(meld).valid
    card = notation.format_card(face)
    with pytest.raises(ValueError, match=f"third copy of {card}") as exc:
        melds.lay_off(meld, card)
    assert "meld_cards" in str(exc.value) and "R1" in str(exc.value)
    with pytest.raises(ValueError, match=f"third copy of {card}"):
        melds.lay_off(melds.check(meld), card)         # the same through a MeldCheck


def test_chained_meldcheck_takes_each_copy_then_refuses_a_third():
    """Q♦ Q♥ Q♠ (copy 0 of Q♠) + "Q♠" adds id 104; a third "Q♠" is refused (R1, R16)."""
    m = melds.check("Q♦ Q♥ Q♠")
    assert QS in m.cards
    m2 = melds.lay_off(m, "Q♠")
    assert m2.valid and m2.kind == "set" and m2.clean and m2.points == 40
    assert m2.cards[-1] == QS + 54
    with pytest.raises(ValueError, match="'Q♠' would be a third copy of Q♠"):
        melds.lay_off(m2, "Q♠")


def test_meld_holding_the_second_copy_gets_the_first():
    """The meld holds copy 1 only (id 104): the text Q♠ is copy 0 (id 50)."""
    res = melds.lay_off([QS + 54, 24, 37], "Q♠")          # Q♠(copy 1) Q♦ Q♥
    assert res.valid and res.cards == (QS + 54, 24, 37, QS)


def test_both_copies_in_the_added_text():
    """Q♦ Q♥ Q♣ + "Q♠ Q♠": the two copies, 50 and 104 (one action, R24: set of 5 naturals)."""
    res = melds.lay_off(melds.check("Q♦ Q♥ Q♣"), "Q♠ Q♠")
    assert res.valid and res.points == 50 and res.cards[-2:] == (QS, QS + 54)
    with pytest.raises(ValueError, match="third copy of Q♠"):
        melds.lay_off([QS + 54, 24, 37], "Q♠ Q♠")


def test_meld_as_text_added_as_ids():
    """The meld's text takes the copy the added ids leave free: Q♦ Q♥ Q♠ + id 50 gives the meld
    Q♠ 104; with Q♠ twice in the meld text and id 50 added the meld would need a third Q♠."""
    res = melds.lay_off("Q♦ Q♥ Q♠", [QS])
    assert res.valid and sorted(res.cards) == sorted([24, 37, QS + 54, QS])
    with pytest.raises(ValueError, match="meld_cards: 'Q♠' would be a third copy of Q♠"):
        melds.lay_off("Q♠ Q♠ Q♥", [QS])


@pytest.mark.parametrize("joker", JOKERS)
def test_second_joker_is_a_verdict_not_an_error(joker):
    """4♣ 5♣ 6♣ JK 8♣ (any of the four jokers, fixed as 7♣) + "JK": another joker; the meld
    has its wild, so the action is illegal (R14, R24), with the reason."""
    meld = [3, 4, 5, joker, 7]
    res = melds.lay_off(meld, "JK")
    assert not res.valid and "R24" in res.reason
    added = res.cards[-1]
    assert added in JOKERS and added != joker
    res = melds.lay_off(melds.lay_off(meld, "3♣"), "JK")    # after a legal lay-off
    assert not res.valid and "R24" in res.reason


def test_joker_text_on_a_meld_without_a_wild():
    """3♥ 4♥ 5♥ + "JK": legal (the joker free at an end, R19, R24), a dirty meld of 45 (R2)."""
    res = melds.lay_off(melds.check("3♥ 4♥ 5♥"), "JK")
    assert res.valid and not res.clean and res.points == 45 and res.cards[-1] == 52


def test_fifth_joker_is_refused_naming_it():
    with pytest.raises(ValueError, match="'JK' would be a fifth joker"):
        melds.lay_off([3, 4, 5, 106, 7], "JK JK JK JK")


def test_a_card_id_in_both_arguments_is_still_refused():
    """Ids are physical cards: the same id in the meld and the addition is one card twice."""
    with pytest.raises(ValueError, match="card id 50 .Q♠. is also in meld_cards"):
        melds.lay_off([QS, 24, 37], [QS])
    with pytest.raises(ValueError, match="card id 52"):
        melds.lay_off(melds.check("4♣ 5♣ 6♣ JK 8♣"), [52])


def test_position_hand_text_beside_a_meldcheck():
    """Position draws every argument from one deck: a hand given as text takes the Q♠ copy the
    MeldCheck on the table does not hold, and the lay-off is legal (R24, R38: 4♣ 9♦ remain);
    a third Q♠ is refused naming the card."""
    meld = melds.check("Q♦ Q♥ Q♠")
    pos = Position("Q♠ 4♣ 9♦", team_melds=[meld])
    assert int(pos.hand_ids[0]) == QS + 54
    assert pos.can_lay_off(0, "Q♠")
    with pytest.raises(ValueError, match="third copy of Q♠"):
        Position("Q♠ Q♠ 4♣", team_melds=[meld])
    with pytest.raises(ValueError, match="card id 50"):
        Position([QS, 3], team_melds=[meld])
