"""Rule options beyond the default preset (issue 7): hand-worked verdicts and the
referee over every supported option.

Every expected verdict below is worked out by hand from RULES.md; the rule IDs
are in the test names and comments.
"""
import pytest

import referee_cli
import sim
from sim.position import Position

INTL = sim.Rules.preset("fibur_international")
REQ = sim.Rules(take_pile_requires_meld=True)
REQ_PILE = sim.Rules(take_pile_requires_meld=True, pile_meld_source="from_pile")


# ---------------------------------------------------------------- R34 take_pile_requires_meld
@pytest.mark.parametrize("hand, pile, melds, rules, legal", [
    # nothing can be melded from 5♥ 9♣ K♦ 7♠ and there is no meld to lay off on
    ("5h 9c Kd", "7s", (), REQ, False),
    ("5h 9c Kd", "7s", (), sim.Rules(), True),                # R34 default: the pile is free
    # 7♥ 8♥ + 9♥ from the pile makes a sequence
    ("7h 8h Kc", "9h", (), REQ, True),
    ("7h 8h Kc", "9h", (), REQ_PILE, True),
    # a meld can be made, but only from hand cards: "any" yes, "from_pile" no
    ("7h 8h 9h Kc", "Qs", (), REQ, True),
    ("7h 8h 9h Kc", "Qs", (), REQ_PILE, False),
    # the pile card lays off on the team's sequence
    ("Kc Qd", "7s", ("4s 5s 6s",), REQ_PILE, True),
    # a lay-off of a hand card is enough under "any"
    ("Kc 7s", "Qd", ("4s 5s 6s",), REQ, True),
    ("Kc 7s", "Qd", ("4s 5s 6s",), REQ_PILE, False),
    # international sets only of A and 3 (R16): three eights are no meld there
    ("8c 8d Kh", "8s", (), INTL, False),
    ("8c 8d Kh", "8s", (), REQ, True),
    ("3c 3d Kh", "3s", (), INTL, True),
    # a wild fills the sequence: 5♣ JK + 7♣ from the pile
    ("5c JK Qh", "7c", (), INTL, True),
    # R23: a second set of kings is not a legal meld, and nothing else is
    ("Kc Kd 9h", "Ks", ("Kh Ks Kd",), REQ, True),            # ...but K lays off on the set
])
def test_r34_pile_only_with_a_meld(hand, pile, melds, rules, legal):
    v = Position(hand, team_melds=melds, pile=pile, rules=rules).can_take_pile()
    assert bool(v) is legal, v


def test_r34_position_without_pile_is_refused():
    with pytest.raises(ValueError, match="pile"):
        Position("5h 9c Kd", rules=REQ).can_take_pile()


def test_r34_verdict_names_the_rule():
    v = Position("5h 9c Kd", pile="7s", rules=REQ).can_take_pile()
    assert not v and "R34" in v.reason


# ---------------------------------------------------------------- referee over options
def _referee(args, capsys):
    rc = referee_cli.main(args + ["--jobs", "2"])
    out = capsys.readouterr().out
    assert "hands with violations: 0; violations: 0" in out, out[-3000:]
    assert rc == 0
    return out


@pytest.mark.parametrize("preset", ["fibur_italian", "fibur_international"])
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_referee_presets(preset, strategy, capsys):
    _referee(["--hands", "300", "--seed", "71", "--strategy", strategy, "--preset", preset],
             capsys)


@pytest.mark.parametrize("rules", [
    '{"take_pile_requires_meld": true, "pile_meld_source": "from_pile"}',
    '{"take_pile_requires_meld": true, "forbid_rediscard_single_pile": false}',
    '{"extra_burraco_classes": true, "semi_clean_bonus": 150}',
    '{"stock_end_mode": "immediate"}',
])
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_referee_options(rules, strategy, capsys):
    _referee(["--hands", "300", "--seed", "72", "--strategy", strategy, "--rules", rules],
             capsys)


# ---------------------------------------------------------------- R31 extra_burraco_classes
EXTRA = sim.Rules(extra_burraco_classes=True)
ROYAL_CLEAN = "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh"          # 120 points of cards
ROYAL_DIRTY = "2s 3s 4s 5s 6s JK 8s 9s 10s Js Qs Ks As"          # 145, joker in slot 7
SUPER_CLEAN = "7c 7c 7d 7d 7h 7h 7s 7s"                          # 40
SUPER_DIRTY = "7c 7c 7d 7d 7h 7h 7s JK"                          # 65


@pytest.mark.parametrize("meld, rules, bonus", [
    (ROYAL_CLEAN, sim.Rules(), 200), (ROYAL_CLEAN, EXTRA, 300),
    (ROYAL_DIRTY, sim.Rules(), 100), (ROYAL_DIRTY, EXTRA, 250),
    (SUPER_CLEAN, sim.Rules(), 200), (SUPER_CLEAN, EXTRA, 250),
    (SUPER_DIRTY, sim.Rules(), 100), (SUPER_DIRTY, EXTRA, 200),
    # R29 + R31: 7 naturals and a wild are semi-clean (150), but the super class (200) is higher
    (SUPER_DIRTY, sim.Rules(semi_clean_bonus=150), 150),
    (SUPER_DIRTY, sim.Rules(semi_clean_bonus=150, extra_burraco_classes=True), 200),
    # a 7-card clean set and a 12-card clean sequence are neither royal nor super
    ("7c 7c 7d 7d 7h 7h 7s", EXTRA, 200),
    ("Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh", EXTRA, 200),
])
def test_r31_extra_classes(meld, rules, bonus):
    from sim import scoring
    points = {ROYAL_CLEAN: 120, ROYAL_DIRTY: 145, SUPER_CLEAN: 40, SUPER_DIRTY: 65}.get(meld)
    ts = scoring.score_team([meld], [], False, "taken", rules=rules)
    assert ts.burraco_bonus == bonus
    if points is not None:
        assert ts.meld_points == points and ts.total == points + bonus


def test_r31_referee_agrees():
    from referee import team_score
    from sim import notation
    for meld, bonus in ((ROYAL_CLEAN, 300), (ROYAL_DIRTY, 250), (SUPER_CLEAN, 250),
                        (SUPER_DIRTY, 200)):
        ids = [int(c) for c in notation.parse(meld)]
        parts = team_score([ids], [], closed=False, pozzetto_taken=True,
                           rules={"extra_burraco_classes": True})
        assert parts["burraco_bonus"] == bonus
