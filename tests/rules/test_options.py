"""Rule options beyond the default preset (docs/RULES.md, Options): hand-worked verdicts and the
referee over every supported option.

Every expected verdict below is worked out by hand from RULES.md; the rule IDs
are in the test names and comments.
"""
import pytest

import referee_cli
import sim
from kernels.core.cards import N_COUNT
from sim.table.position import Position

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


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["fibur_italian", "fibur_international"])
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_referee_presets(preset, strategy, capsys):
    _referee(["--hands", "300", "--seed", "71", "--strategy", strategy, "--preset", preset],
             capsys)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [
    '{"take_pile_requires_meld": true, "pile_meld_source": "from_pile"}',
    '{"take_pile_requires_meld": true, "forbid_rediscard_single_pile": false}',
    '{"extra_burraco_classes": true, "semi_clean_bonus": 150}',
    '{"stock_end_mode": "immediate"}',
    '{"lock_two_roles": true}',
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
ROYAL_14 = "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh JK"          # 150, joker as the high ace
ROYAL_SEMI = "3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks As JK"           # 130, joker free as the 2♠


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
    # 14 cards, the joker as the high ace (L9): a dirty royal burraco
    (ROYAL_14, sim.Rules(), 100), (ROYAL_14, EXTRA, 250),
    # a 13-card sequence with a free wild and 12 naturals is semi-clean (R29, 150); R31's royal
    # dirty class (250) is higher, so it scores 250 only
    (ROYAL_SEMI, sim.Rules(semi_clean_bonus=150), 150),
    (ROYAL_SEMI, sim.Rules(semi_clean_bonus=150, extra_burraco_classes=True), 250),
    # a dirty super set of 9 (8 naturals and a 2, L15): 200, not 100
    ("7c 7c 7d 7d 7h 7h 7s 7s 2d", EXTRA, 200),
])
def test_r31_extra_classes(meld, rules, bonus):
    """R56 with R31: score_team and sim.melds.check give the meld the same bonus."""
    from sim import melds, scoring
    points = {ROYAL_CLEAN: 120, ROYAL_DIRTY: 145, SUPER_CLEAN: 40, SUPER_DIRTY: 65,
              ROYAL_14: 150, ROYAL_SEMI: 130}.get(meld)
    ts = scoring.score_team([meld], [], False, "taken", rules=rules)
    assert ts.burraco_bonus == bonus
    if points is not None:
        assert ts.meld_points == points and ts.total == points + bonus
    chk = melds.check(meld, rules=rules)
    assert chk.valid and chk.burraco_bonus == bonus
    if points is not None:
        assert chk.points == points


@pytest.mark.parametrize("rules, clean, bonus", [
    # R25.1 by default: the 5♦ lets the 2♦ turn natural -> A♦(high) 2♦ 3♦ .. K♦, 14 cards, no
    # wild: a clean royal burraco (R31) 300
    (EXTRA, True, 300),
    # lock_two_roles: the 2♦ keeps its wild role -> 14 cards with one wild: a dirty royal 250
    (EXTRA.replace(lock_two_roles=True), False, 250),
])
def test_r31_royal_after_a_lay_off_follows_the_roles(rules, clean, bonus):
    """3♦ 4♦ 2♦(=5♦) 6♦ .. K♦ A♦ is a 12-card dirty burraco (R28: 100; not royal); laying off
    the 5♦ makes 14 cards.  check, lay_off and score_team agree (R25, R31, R56)."""
    from sim import melds, scoring
    start = melds.check("3♦ 4♦ 2♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦ K♦ A♦", rules=rules)
    assert start.valid and not start.clean and start.burraco_bonus == 100 and start.points == 115
    after = melds.lay_off(start, "5♦", rules=rules)
    assert after.valid and after.clean is clean and after.points == 120
    assert after.burraco_bonus == bonus
    assert scoring.score_team([after], [], False, "taken", rules=rules).burraco_bonus == bonus


def test_r31_referee_agrees():
    from referee import team_score
    from sim import notation
    for meld, bonus in ((ROYAL_CLEAN, 300), (ROYAL_DIRTY, 250), (SUPER_CLEAN, 250),
                        (SUPER_DIRTY, 200)):
        ids = [int(c) for c in notation.parse(meld)]
        parts = team_score([ids], [], closed=False, pozzetto_taken=True,
                           rules={"extra_burraco_classes": True})
        assert parts["burraco_bonus"] == bonus


# ---------------------------------------------------------------- R25 lock_two_roles
LOCK = sim.Rules(lock_two_roles=True)
E6_A = "3♦ 4♦ 2♦ 6♦ 7♦ 8♦ 9♦"          # the 2♦ is a fixed wild for 5♦ (E6 position A)


def _e6_after_5d(rules):
    from sim import melds
    return melds.lay_off(E6_A, "5♦", rules=rules)


@pytest.mark.parametrize("rules, history, total", [
    (LOCK, True, 155),                  # E6: the 2♦ keeps its wild role -> dirty, 65 + 100 - 10
    # default: R25.1, the 2♦ turns natural -> clean, 65 + 200 - 10
    (sim.Rules(), True, 255),
    (LOCK, False, 255),                 # the final cards alone: read as laid down in one go
    # fibur_italian: 7 naturals (3♦-9♦) and a free wild -> semi-clean, 65 + 150 - 10
    (sim.Rules.preset("fibur_italian").replace(lock_two_roles=True), True, 205),
])
def test_r25_e6_score_uses_stored_roles(rules, history, total):
    """E6 (R25, R28, R29): the class at scoring follows the roles the 2s kept, which only
    a meld's history (a MeldCheck from lay_off) carries."""
    from sim import scoring
    meld = _e6_after_5d(rules) if history else "2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦"
    ts = scoring.score_team([meld], ["K♠"], False, "taken", rules=rules)
    assert (ts.total, ts.meld_points) == (total, 65)


def test_r25_referee_scores_e6_with_roles():
    """The referee's scoring with stored roles gives E6's 155 (and 255 without the option)."""
    import referee as R
    ids = R.Deck().ids("3♦ 4♦ 2♦ 6♦ 7♦ 8♦ 9♦ 5♦")
    meld, five = ids[:-1], ids[-1]
    roles = R.locked_info(meld, {})[1]
    assert roles == {ids[2]: "wild"}
    ok, rule, why, roles = R.layoff_step_locked(meld, roles, five)
    assert ok and roles == {ids[2]: "wild"}
    hand = R.Deck().ids("K♠")
    kw = dict(closed=False, pozzetto_taken=True)
    assert R.team_score([ids], hand, rules={"lock_two_roles": True}, roles=[roles],
                        **kw)["score"] == 155
    assert R.team_score([ids], hand, **kw)["score"] == 255


def test_r25_position_keeps_roles():
    """Position under lock_two_roles: a team meld passed as a MeldCheck keeps its 2♦ wild, so
    the meld takes no joker (R24(b)) and, under require_clean_burraco_to_close, is no clean
    burraco to close with (R45); given as plain cards it reads clean (canonical)."""
    rules = LOCK.replace(require_clean_burraco_to_close=True)
    kept = _e6_after_5d(rules)
    assert kept.valid and not kept.clean and not kept.natural_two
    for meld, legal in ((kept, False), ("2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦ 9♦", True)):
        pos = Position("JK 4♣ 5♣", team_melds=[meld], pozzetto_taken=True, rules=rules)
        v = pos.can_lay_off(0, "JK")
        assert bool(v) is legal and (legal or "R25" in v.reason), v
        pos = Position("4♣", team_melds=[meld], pozzetto_taken=True, rules=rules)
        assert pos.discard_closes("4♣") is legal


def test_r25_position_natural_two_stays():
    """L26 through Position: the natural 2♥ may not become the wild for 8♥ (R25); without the
    option the lay-off is legal (R25.2)."""
    for rules, legal in ((LOCK, False), (sim.Rules(), True)):
        pos = Position("9♥ 3♣ 4♣", team_melds=["2♥ 3♥ 4♥ 5♥ 6♥ 7♥"], rules=rules)
        v = pos.can_lay_off(0, "9♥")
        assert bool(v) is legal, v
        if not legal:
            assert "R25" in v.reason


def test_r25_multi_card_lay_off_takes_the_natural_order():
    """Decision where R25 is silent: 2♥ and 3♥ laid off together on 4♥ 5♥ 6♥ are legal in
    both orders (2♥ first enters as the wild for 3♥); the result is the order that leaves
    the 2♥ natural, a clean meld.  One at a time, 2♥ first, it stays a wild."""
    from sim import melds
    together = melds.lay_off("4♥ 5♥ 6♥", "2♥ 3♥", rules=LOCK)
    assert together.valid and together.clean and together.natural_two
    first = melds.lay_off("4♥ 5♥ 6♥", "2♥", rules=LOCK)
    assert first.valid and not first.natural_two
    then = melds.lay_off(first, "3♥", rules=LOCK)
    assert then.valid and not then.clean and not then.natural_two
    import referee as R
    ids = R.Deck().ids("4♥ 5♥ 6♥ 2♥ 3♥")
    ok, rule, why, roles = R.layoff_action_locked(ids[:3], {}, ids[3:])
    assert ok and roles == {ids[3]: "natural"}


def test_r25_kernel_state_keeps_roles():
    """The kernels as the game runs them: meld_create then meld_add on a state marked with
    the option keep the 2♦ wild (MI_NAT2 0, one wild), and score_team scores a dirty
    burraco; the same moves without the option give the clean reading (R25.1)."""
    import numpy as np
    from kernels.core import layout as KLY
    from kernels.table import scoring as KSC
    from kernels.table import state as KS
    from kernels.table import moves as KSM
    from sim import notation
    for lock, nwild, bonus in ((1, 1, 100), (0, 0, 200)):
        st = KS.new_state(0, 0)
        KSM.set_lock_two_roles(st, lock)
        for cid in notation.parse(E6_A + " 5♦"):
            KSM.hand_add(st, 0, int(cid))
        sel = np.zeros(N_COUNT, np.int64)
        for cid in notation.parse(E6_A):
            sel[int(cid) % 54] += 1
        mi = KSM.meld_create(st, 0, 0, sel)
        assert st[8][0, mi, KS.MI_NWILD] == 1 and st[8][0, mi, KS.MI_NAT2] == 0
        KSM.meld_add(st, 0, 0, mi, np.int64(17))                     # 5♦
        assert st[8][0, mi, KS.MI_NWILD] == nwild and st[8][0, mi, KS.MI_LEN] == 8
        rv = sim.Rules(lock_two_roles=bool(lock)).to_vector()
        out = KSC.score_team(st[6][0], st[8][0], 1, np.zeros((1, N_COUNT), np.int64), 1, 0,
                             KSC.POZ_TAKEN, 0, rv)
        assert (out[1], out[2]) == (65, bonus)
        assert rv[KLY.RV_LOCK_TWO_ROLES] == lock


def test_r25_referee_agrees_with_hand_worked_cases():
    """The referee's R25 implementation replays the lock_two_roles lay-off cases of
    tests/data/rules_examples.toml (hand-worked) with the same verdicts and final class."""
    import referee as R
    from _casetools import load
    cases = [c for c in load("rules_examples.toml")["layoff"]
             if c.get("rules", {}).get("lock_two_roles")]
    assert len(cases) >= 6
    for case in cases:
        deck = R.Deck()
        ids = deck.ids(case["meld"])
        roles = R.locked_info(ids, {})[1]
        for add, legal in zip(case["add"], case["legal"]):
            add_ids = deck.ids(add)       # parsed in order, as the case's strings are (R1)
            ok, rule, why, new_roles = R.layoff_action_locked(ids, roles, add_ids)
            assert ok == legal, (case["id"], add, why)
            if ok:
                ids, roles = ids + add_ids, new_roles
            else:
                assert rule in case["reason_any"], (case["id"], rule, why)
        info = R.locked_info(ids, roles)[0]
        parts = R.team_score([ids], [], closed=False, pozzetto_taken=True, roles=[roles],
                             rules={"lock_two_roles": True})
        assert (info.kind, info.clean, parts["meld_points"], parts["burraco_bonus"]) == (
            case["final_kind"], case["final_clean"], case["final_points"],
            case["final_burraco_bonus"]), case["id"]


# ---------------------------------------------------------------- --rule / --players
@pytest.mark.parametrize("text, pair", [
    ("target_score=1505", ("target_score", 1505)),
    ("take_pile_requires_meld=true", ("take_pile_requires_meld", True)),
    ("forbid_rediscard_single_pile=no", ("forbid_rediscard_single_pile", False)),
    ("set_ranks=A,3", ("set_ranks", ("A", "3"))),
    ("semi_clean_bonus=off", ("semi_clean_bonus", None)),
    ("semi_clean_bonus=150", ("semi_clean_bonus", 150)),
    ("stock_end_mode=immediate", ("stock_end_mode", "immediate")),
])
def test_parse_assignment(text, pair):
    assert sim.Rules.parse_assignment(text) == pair


@pytest.mark.parametrize("text, needle", [
    ("target_score", "OPTION=VALUE"), ("bogus=1", "unknown option 'bogus'"),
    ("clean_bonus=abc", "clean_bonus must be an integer"),
    ("lock_two_roles=maybe", "lock_two_roles must be true or false"),
])
def test_parse_assignment_errors(text, needle):
    with pytest.raises(ValueError, match=needle):
        sim.Rules.parse_assignment(text)


def test_cli_rule_and_players_reach_the_manifest_and_the_records(tmp_path, capsys):
    import json

    import pandas as pd

    from sim.cli import main
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "200", "--seed", "4", "--out", str(out), "--quiet",
                 "--rules", "fibur_italian", "--players", "2",
                 "--rule", "target_score=1505", "--rule", "stock_end_mode=immediate"]) == 0
    capsys.readouterr()
    rules = json.loads((out / "_manifest.json").read_text())["config"]["rules"]
    assert rules["num_players"] == 2 and rules["target_score"] == 1505
    assert rules["semi_clean_bonus"] == 150 and rules["stock_end_mode"] == "immediate"
    df = pd.read_parquet(out)
    assert set(df.dealer) <= {0, 1} and set(df.first_player) <= {0, 1}
    assert df.strategy_s2.isna().all() and df.strategy_s3.isna().all()
    assert (df.strategy_s0 == "heuristic").all()
    # the run's first hand is the replay of hand 0 under the same rules
    doc = sim.replay(4, 0, rules=sim.Rules.from_dict(rules))
    assert doc["result"]["score_t0"] == df.score_t0.iloc[0]
    assert len(doc["deal"]["hands"]) == 2 and len(doc["deal"]["stock"]) == 63     # R61


def test_cli_bad_rule_is_one_line_exit_2(tmp_path, capsys):
    from sim.cli import main
    assert main(["simulate", "--hands", "10", "--seed", "1", "--out", str(tmp_path / "r"),
                 "--rule", "pozzetto_size=40"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pozzetto_size must be an integer in 1..18" in err[0]
    assert not (tmp_path / "r").exists()


# ---------------------------------------------------------------- R61 two players
def test_r61_two_player_deal_counts():
    d = sim.deal(7, 3, rules=sim.Rules(num_players=2))
    assert [len(h) for h in d.hands] == [11, 11] and [len(p) for p in d.pozzetti] == [11, 11]
    assert len(d.stock) == 63 and d.dealer in (0, 1) and d.first_player == 1 - d.dealer
    ids = [int(c) for h in d.hands for c in h] + [int(c) for p in d.pozzetti for c in p] \
        + [d.discard] + [int(c) for c in d.stock]
    assert sorted(ids) == list(range(108))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_referee_two_players(strategy, capsys):
    _referee(["--hands", "300", "--seed", "73", "--strategy", strategy,
              "--rules", '{"num_players": 2}'], capsys)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [None, '{"num_players": 2}', '{"target_score": 1005}'])
def test_referee_matches(rules, capsys):
    args = ["--matches", "60", "--seed", "74"] + (["--rules", rules] if rules else [])
    out = _referee(args, capsys)
    assert "60 matches" in out and "match checks: 0 violations" in out


# ---------------------------------------------------------------- R62, R63 three players
SOLO = sim.Rules(num_players=3)
INDIV = sim.Rules(num_players=3, three_player_mode="individual_3x11")


@pytest.mark.parametrize("rules, pozzetti, stock", [(SOLO, [18, 11], 45),
                                                    (INDIV, [11, 11, 11], 41)])
def test_r62_r63_deal_counts(rules, pozzetti, stock):
    d = sim.deal(7, 5, rules=rules)
    assert [len(h) for h in d.hands] == [11, 11, 11]
    assert [len(p) for p in d.pozzetti] == pozzetti and len(d.stock) == stock
    assert d.first_player == (d.dealer + 1) % 3
    ids = [int(c) for h in d.hands for c in h] + [int(c) for p in d.pozzetti for c in p] \
        + [d.discard] + [int(c) for c in d.stock]
    assert sorted(ids) == list(range(108))


@pytest.mark.parametrize("points, half", [(155, 80), (150, 75), (10, 5), (5, 5), (0, 0),
                                          (-155, -75), (-150, -75), (-5, 0)])
def test_r62_half_round_up(points, half):
    from kernels.play.game import _half_round_up
    assert _half_round_up(points) == half


def test_r62_records_credit_the_pair_in_full():
    df = sim.simulate(400, seed=75, rules=SOLO)
    assert df.solo_seat.isin([-1, 0, 1, 2]).all() and (df.solo_seat >= 0).mean() > 0.9
    assert df.strategy_s3.isna().all() and df.score_t2.notna().all()
    for _, h in df[df.solo_seat >= 0].head(50).iterrows():
        a, b = [s for s in range(3) if s != h.solo_seat]
        for col in ("score", "meld_points", "melds", "hand_points", "pile_pickups"):
            assert h[f"{col}_t{a}"] == h[f"{col}_t{b}"], col     # one side, credited in full
        assert h[f"pozzetto_taken_t{h.solo_seat}"]               # the solo took pozzetto A
    half = sim.simulate(400, seed=75, rules=SOLO.replace(three_player_pair_share="half_round_up"))
    for (_, h), (_, g) in zip(df.head(50).iterrows(), half.head(50).iterrows()):
        if h.solo_seat >= 0:
            a = next(s for s in range(3) if s != h.solo_seat)
            assert g[f"score_t{a}"] == -(-h[f"score_t{a}"] // 10) * 5
            assert g[f"score_t{h.solo_seat}"] == h[f"score_t{h.solo_seat}"]


def test_four_player_records_have_null_third_player_columns():
    df = sim.simulate(20, seed=3)
    assert df.score_t2.isna().all() and df.solo_seat.isna().all()
    assert str(df.score_t2.dtype) == "Int32"


@pytest.mark.slow
@pytest.mark.parametrize("rules", [
    '{"num_players": 3}', '{"num_players": 3, "three_player_mode": "individual_3x11"}',
    '{"num_players": 3, "three_player_pair_share": "half_round_up"}'])
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_referee_three_players(rules, strategy, capsys):
    _referee(["--hands", "200", "--seed", "76", "--strategy", strategy, "--rules", rules], capsys)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ['{"num_players": 3}',
                                   '{"num_players": 3, "three_player_switch_at": 500, '
                                   '"three_player_target": 1505}'])
def test_referee_three_player_matches(rules, capsys):
    out = _referee(["--matches", "60", "--seed", "77", "--rules", rules], capsys)
    assert "match checks: 0 violations" in out


def test_r63_three_player_match_switches_to_individual():
    r = SOLO.replace(three_player_switch_at=600)
    run = sim.simulate_matches(100, 78, rules=r)
    h, m = run.hands, run.matches
    assert set(m.winner.dropna().astype(int)) <= {0, 1, 2}
    for mid, g in h.groupby("match"):
        g = g.sort_values("hand_in_match")
        before = g[["total_t0", "total_t1", "total_t2"]].max(axis=1).shift(fill_value=0)
        assert (g.individual.astype(bool) == (before >= 600)).all()
        final = g.iloc[-1]
        assert max(final.total_t0, final.total_t1, final.total_t2) >= 2005


# ---------------------------------------------------------------- R53 untaken_pozzetto_as_stock
def test_r53_last_untaken_pozzetto_goes_on_top_of_the_reserve():
    import numpy as np

    from kernels.table import state as KS
    from kernels.table import moves as KSM
    st = KS.new_state(64, 256)
    stock, poz, g = st[3], st[5], st[10]
    stock[:41] = np.arange(41)
    g[KS.G_STOCK_END], g[KS.G_STOCK_TOP] = 41, 39                  # two reserve cards left: 39, 40
    poz[0, :11] = np.arange(41, 52)
    poz[1, :11] = np.arange(60, 71)
    g[KS.G_NEXT_POZZETTO] = 1                               # team 0 took pozzetto 0 already
    assert KSM.pozzetto_to_stock(st, np.int64(1))
    assert list(stock[g[KS.G_STOCK_TOP]:g[KS.G_STOCK_END]]) == list(range(60, 71)) + [39, 40]
    assert g[KS.G_N_POZZETTI] == 1 and (poz[1] == -1).all()
    assert KSM.no_pozzetto_left(g, np.int64(1)) and not KSM.pozzetto_to_stock(st, np.int64(1))


@pytest.mark.slow
@pytest.mark.parametrize("rules", ['{"untaken_pozzetto_as_stock": true}',
                                   '{"untaken_pozzetto_as_stock": true, "num_players": 3}',
                                   '{"untaken_pozzetto_as_stock": true, "num_players": 2, '
                                   '"stock_end_mode": "immediate"}'])
@pytest.mark.parametrize("strategy", ["heuristic", "random"])
def test_referee_untaken_pozzetto_as_stock(rules, strategy, capsys):
    _referee(["--hands", "200", "--seed", "79", "--strategy", strategy, "--rules", rules], capsys)


def test_r53_changes_how_random_hands_end():
    plain = sim.simulate(300, seed=80, strategies="random")
    r53 = sim.simulate(300, seed=80, strategies="random",
                       rules=sim.Rules(untaken_pozzetto_as_stock=True))
    # a pozzetto becoming the stock gives the hand 11 more draws: fewer hands run the stock out
    assert (r53.end_reason == "stock_exhausted").mean() < (plain.end_reason ==
                                                            "stock_exhausted").mean()
    assert r53.turns.mean() > plain.turns.mean()


# ---------------------------------------------------------------- found by a new-user trial
@pytest.mark.parametrize("argv, needle", [
    (["simulate", "--matches", "5", "--players", "3", "--rule", "hand_size=24"],
     "a 3-player match switches to individual_3x11"),
    (["compare", "heuristic", "random", "--hands", "10", "--players", "3"],
     "3-player games are not supported"),
    (["simulate", "--hands", "10", "--players", "2", "--rule", "num_players=3"], "disagree"),
])
def test_cli_refuses_in_one_line_and_writes_nothing(argv, needle, tmp_path, capsys):
    from sim.cli import main
    out = tmp_path / "run"
    args = argv + ["--seed", "1"] + (["--out", str(out)] if argv[0] == "simulate" else [])
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not out.exists()


def test_three_player_summary_shows_every_seat():
    from sim.batch.runner import Summary
    s = Summary()
    s.add(np_records(50, 81, SOLO))
    d = s.as_dict()
    assert "mean_score_t2" in d and "seat 2" in s.format()


def np_records(n, seed, rules):
    import numpy as np

    from kernels.core import layout as L
    from kernels.play.game import simulate_range
    from sim.strategies import resolve_builtin_seats as _resolve_strategies
    _, kinds, params = _resolve_strategies("heuristic")
    out = np.zeros((n, L.N_REC), np.int32)
    simulate_range(np.uint64(seed), np.int64(0), np.int64(n), rules.to_vector(), kinds, params,
                   np.int64(0), out)
    return out
