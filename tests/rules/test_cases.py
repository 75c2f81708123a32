"""Case batches copied from shared/cases into tests/data/cases_*.toml (see that README).

Tables: [[meld]] (sim.melds.check), [[layoff]] (sim.melds.lay_off, actions in order, run
twice: as card ids parsed together, and as a user chains it, the previous MeldCheck and the
card texts), [[score]] (sim.scoring.score_team, R55) and [[match]] (R60 match end,
sim.match.winner).
Test ids: <file stem>-<table>-<index>-<first cited rule>.
"""
from __future__ import annotations

import numpy as np
import pytest

from _casetools import assert_cites, case_files, cited_rules, faces, load, make_rules, parse_group

TABLES = ("meld", "layoff", "score", "match")
BATCHES = {path.stem: load(path.name) for path in case_files()}

#: known failures: case id -> reason (strict xfail: remove when fixed)
XFAIL: dict = {}


def _params(table: str):
    out = []
    for stem, batch in BATCHES.items():
        for k, case in enumerate(batch.get(table, [])):
            cites = cited_rules(case)
            cid = f"{stem}-{table}-{k}" + (f"-{cites[0]}" if cites else "")
            marks = []
            if cid in XFAIL:
                marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[cid]))
            out.append(pytest.param(case, id=cid, marks=marks))
    return out


def test_batches_present_and_tables_known():
    """Every table of every batch is one this module runs (nothing silently skipped)."""
    assert {"cases_001", "cases_002"} <= set(BATCHES)
    for stem, batch in BATCHES.items():
        assert set(batch) <= set(TABLES), f"{stem}: unknown tables {set(batch) - set(TABLES)}"


# ------------------------------------------------------------------------------- [[meld]]
@pytest.mark.parametrize("case", _params("meld"))
def test_meld(case):
    """R2 points, R13-R18 validity, R27 class, R28/R56 bonus of a new meld."""
    from sim import melds

    res = melds.check(case["cards"], rules=make_rules(case))
    what = f"{case['cards']}"
    assert bool(res.valid) == case["valid"], f"{what}: valid ({getattr(res, 'reason', '')!r})"
    if not case["valid"]:
        cites = cited_rules(case)
        if cites:   # the reason must cite one of the rules the case names
            assert_cites(res.reason, cites, what)
        return
    if "clean" in case:
        assert bool(res.clean) == case["clean"], f"{what}: clean"
    if "points" in case:
        assert int(res.points) == case["points"], f"{what}: points"
    if "burraco_bonus" in case:
        assert int(res.burraco_bonus) == case["burraco_bonus"], f"{what}: burraco_bonus"


# ------------------------------------------------------------------------------- [[layoff]]
def _assert_final(case: dict, final) -> None:
    """The case's ``final_*`` values against the MeldCheck of the meld after the last action."""
    for key, get in (("final_clean", bool), ("final_points", int), ("final_burraco_bonus", int)):
        if key in case:
            attr = key[len("final_"):]
            assert get(getattr(final, attr)) == case[key], key


@pytest.mark.parametrize("case", _params("layoff"))
def test_layoff(case):
    """R24: each `add` entry is one action; an illegal one leaves the meld unchanged."""
    from sim import melds

    rules = make_rules(case)
    groups = parse_group([case["meld"]] + list(case["add"]))
    current = groups[0]
    assert len(case["add"]) == len(case["legal"]), "test data"
    for step, (add, legal) in enumerate(zip(groups[1:], case["legal"])):
        res = melds.lay_off(current, add, rules=rules)
        assert bool(res.valid) == legal, (
            f"action {step} ({case['add'][step]}): got {bool(res.valid)} "
            f"({getattr(res, 'reason', '')!r})")
        if legal:
            current = np.concatenate([current, add])
    final = melds.check(current, rules=rules)
    assert bool(final.valid), "the meld on the table must stay valid (R16-R18)"
    _assert_final(case, final)


@pytest.mark.parametrize("case", _params("layoff"))
def test_layoff_chained_as_text(case):
    """R24 as docs/api.md shows it: each `add` text is laid off on the MeldCheck of the previous
    legal action.  A text names a card, not a copy (R1): a card whose other copy is already in
    the meld takes that copy (a second JK another joker); an illegal action is a verdict, never
    an error, and leaves the meld unchanged."""
    from sim import melds

    rules = make_rules(case)
    current = melds.check(case["meld"], rules=rules)
    assert current.valid, current.reason
    for step, (add, legal) in enumerate(zip(case["add"], case["legal"])):
        res = melds.lay_off(current, add, rules=rules)
        assert bool(res.valid) == legal, f"action {step} ({add}): {res.reason!r}"
        if legal:
            assert faces(res.cards) == faces(current.cards + tuple(parse_group([add])[0]))
            assert len(set(res.cards)) == len(res.cards), "one id per physical card (R1)"
            current = res
        else:
            assert_cites(res.reason, cited_rules(case) or ["R24"], f"action {step} ({add})")
    _assert_final(case, current)


# ------------------------------------------------------------------------------- [[score]]
@pytest.mark.parametrize("case", _params("score"))
def test_score(case):
    """R55 hand score of each team (R56 bonuses, R57 unplayed pozzetto)."""
    from sim import scoring

    rules = make_rules(case)
    for team in ("a", "b"):
        t = case[f"team_{team}"]
        groups = parse_group(list(t["melds"]) + list(t["hands"]))
        n = len(t["melds"])
        ts = scoring.score_team(groups[:n], groups[n:], t["closed"], t["pozzetto"], rules=rules)
        assert int(ts.total) == case[f"expected_{team}"], f"team {team}: {case.get('description')}"


# ------------------------------------------------------------------------------- [[match]]
@pytest.mark.parametrize("case", _params("match"))
def test_match(case):
    """R60: after a hand, if a total reaches target_score (2005) the higher total wins;
    -1 = the match goes on (also on a tie above the target)."""
    from sim.core.match import winner

    got = winner(list(case["before"]), list(case["hand"]), rules=make_rules(case))
    assert int(got) == case["winner"], case.get("description")


@pytest.mark.parametrize("before, hand, target, expected", [
    ([1900, 1000], [100, 50], 2005, -1),      # 2000 has not reached 2005
    ([1900, 1000], [105, 50], 2005, 0),       # 2005 reaches it
    ([2000, 2100], [0, -200], 2005, -1),      # 2000 and 1900: below again
    ([1950, 1950], [100, 100], 2005, -1),     # equal totals above the target: play on
    ([1400, 1450], [110, 0], 1505, 0),        # a lower target (tournament)
    ([-300, 1900], [-100, 120], 2005, 1),
])
def test_match_winner_by_hand(before, hand, target, expected):
    """R60 worked by hand: the higher total wins once a total reaches target_score."""
    from sim import Rules
    from sim.core.match import winner
    assert winner(before, hand, rules=Rules(target_score=target)) == expected


def test_match_winner_refuses_bad_totals():
    from sim.core.match import winner
    with pytest.raises(ValueError, match="before must be two integers"):
        winner([1, 2, 3], [0, 0])
    with pytest.raises(ValueError, match="hand must be two integers"):
        winner([1, 2], [0.5, 0])
