"""Positions whose right answer follows from the rules: the validation of sim.analyze.

Each file in tests/data/positions/ is a position with a comment at its top giving the
right answer, the reasoning and the rule IDs that make it right (RULES.md, scores
R55-R59); the answers were worked out from the rules, and each test checks that
``sim.analyze`` finds it with a few hundred rollouts.  Several are last turns (R50:
the stock is down to its reserve) or end in a close, where nobody plays again after the
analysed turn, so the paired difference is the same on every world and is asserted
exactly; the others are asserted by their paired 95% interval.

Kinds beside the four positions of tests/analysis/test_analyze.py (going out and closing with
4, 2 and 3 players; a one-card pile that completes a burraco): the last-turn discard
(4 and 2 players), the last-turn lay-off, the lay-off that completes a burraco (4 and
3 players), clean against dirty burraco (4 and 2 players), the pozzetto al volo, the
card the next opponent needs to close, the pile not to take on the last round, and the
close that wins the match (``objective="match"``).
"""
from pathlib import Path

import pytest

import sim

DATA = Path(__file__).resolve().parents[1] / "data" / "positions"
ROLLOUTS = 300


def analyze(name, **kw):
    return sim.analyze(DATA / f"{name}.toml", rollouts=kw.pop("rollouts", ROLLOUTS),
                       seed=kw.pop("seed", 5), **kw)


def rows(df):
    """{text: row} of an analysis table."""
    return {r.text: r for r in df.itertuples(index=False)}


def exact(row, diff):
    """The paired difference is ``diff`` points on every world (its interval a point)."""
    return row.diff_best == row.diff_low == row.diff_high == diff


def test_every_position_file_states_its_answer_and_rules():
    files = sorted(DATA.glob("*.toml"))
    assert len(files) >= 10
    for f in files:
        head = f.read_text(encoding="utf-8").split("format = 1")[0]
        assert head.startswith("# Known answer"), f.name
        assert "# Rules: R" in head, f.name
        assert f.stem in KNOWN, f"{f.name} has no test"


@pytest.mark.parametrize("name,order,diffs", [
    ("last_turn_discard_4p", ["discard JK", "discard 9♦", "discard 5♣"], [0, -20, -25]),
    ("last_turn_discard_2p", ["discard 2♣", "discard A♠", "discard 4♥"], [0, -5, -15]),
])
def test_last_turn_discard_keeps_the_cheapest_cards(name, order, diffs):
    df = analyze(name)
    assert df["text"].tolist() == order
    assert all(exact(r, d) for r, d in zip(df.itertuples(index=False), diffs))
    assert df["p_best"].tolist() == [1.0, 0.0, 0.0]
    assert (df["close_prob"] == 0).all()


def test_last_turn_lay_off_beats_holding_the_card():
    df = analyze("last_turn_lay_off_4p")
    assert df["text"].tolist() == ["lay off K♣ on meld 1", "end the meld phase"]
    end = df.iloc[1]
    assert -25 <= end.diff_low <= end.diff_high <= -15


@pytest.mark.parametrize("name", ["lay_off_completes_burraco_4p",
                                  "lay_off_completes_burraco_3p"])
def test_a_lay_off_that_completes_a_burraco(name):
    df = analyze(name)
    assert df["text"].tolist() == ["lay off 9♥ on meld 0", "end the meld phase"]
    end = df.iloc[1]
    assert -225 <= end.diff_low <= end.diff_high <= -215


@pytest.mark.parametrize("name", ["clean_beats_dirty_4p", "clean_beats_dirty_2p"])
def test_a_clean_burraco_beats_a_dirty_one_by_100(name):
    df = analyze(name, candidates="lay off 9♥ on meld 0; lay off 10♠ on meld 1")
    assert df["text"].tolist() == ["lay off 9♥ on meld 0", "lay off 10♠ on meld 1"]
    assert exact(df.iloc[1], -100)
    assert df["close_prob"].tolist() == [1.0, 1.0]


def test_the_pozzetto_al_volo():
    df = analyze("pozzetto_al_volo_4p")
    assert df["text"].tolist() == ["meld 7♠ 8♠ 9♠", "end the meld phase"]
    assert df.iloc[1].diff_high < -40
    assert df.iloc[0].p_best == 1.0


def test_the_card_the_next_opponent_needs_to_close_is_the_worst_discard():
    df = analyze("next_opponent_closes_4p", rollouts=400)
    assert df.iloc[-1].text == "discard 8♣"
    assert df.iloc[-1].diff_high < 0 and df.iloc[-1].p_best < 0.01
    r = rows(df)
    # discarding 8♣ beats neither of the others on the same worlds: checked per pair
    m = sim.analysis.rollout_matrix(sim.Game.from_position(DATA / "next_opponent_closes_4p.toml",
                                                           seed=5),
                                    [r[t].action for t in ("discard 8♣", "discard K♥",
                                                           "discard 4♠")], 400, seed=5)
    for j in (1, 2):
        d = m["result"][:, 0] - m["result"][:, j]
        assert d.mean() + 1.96 * d.std(ddof=1) / len(d) ** 0.5 < 0


def test_on_the_last_round_do_not_take_a_pile_you_cannot_meld():
    df = analyze("last_round_pile_4p")
    assert df["action"].tolist() == [sim.game.A_DRAW, sim.game.A_TAKE]
    assert df.iloc[1].diff_high < -30


def test_the_close_that_wins_the_match():
    df = analyze("match_close_wins_4p", objective="match")
    assert df["text"].tolist() == ["meld 7♠ 8♠ 9♠", "end the meld phase"]
    close, end = df.iloc[0], df.iloc[1]
    assert close.win_prob == 1.0 and close.later_hands == 0 and close.close_prob == 1.0
    assert end.later_hands >= 1.0                 # undecided after this hand on every world
    assert end.win_prob < 1.0 and end.win_diff_high < 0
    assert close.win_p_best == 1.0 and close.undecided == end.undecided == 0
    hand = analyze("match_close_wins_4p")         # the hand columns are the hand objective's
    cols = ["action", "mean_result", "ci95_low", "ci95_high", "diff_best", "p_best"]
    assert df[cols].equals(hand[cols])


KNOWN = {"last_turn_discard_4p", "last_turn_discard_2p", "last_turn_lay_off_4p",
         "lay_off_completes_burraco_4p", "lay_off_completes_burraco_3p", "clean_beats_dirty_4p",
         "clean_beats_dirty_2p", "pozzetto_al_volo_4p", "next_opponent_closes_4p",
         "last_round_pile_4p", "match_close_wins_4p"}
