"""sim.review / burraco review: a whole hand's decisions rated against the best (docs/review.md).

* the decisions listed are the hand's pickups and discards, counted from the replay
  document's events independently, each with the action the replay shows and the event
  it made; a run directory gives the same rows (its record checked against the row);
* a decision's table is ``sim.analyze_decision``'s for the same decision, rollouts and
  analysis seed (the review's one implementation), and its loss the cross-fitted loss of
  those rollouts, worked out by hand on a small matrix;
* the marks follow the thresholds and never mark a loss whose interval includes 0, on
  constructed inputs; the summaries are the sums of the rows, their intervals worked out
  by hand on a constructed table;
* the JSON document round-trips and its keys are the ones docs/review.md lists;
* the CLI prints the library's review, writes --out whole or not at all, and every bad
  input is one line with exit code 2;
* the viewer's page holds each decision at its step (the table the seat saw), the marks and
  the summary, and in headless Chromium the marks on the slider take the page there.
"""
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _browser import browser  # noqa: F401  (the headless Chromium fixture)

import sim
from kernels.core.cards import CIDX
from kernels.engine import actions as KA
from sim._util.stats import Z95
from sim.analysis import review as RV
from sim.analysis.decision import decision_game
from sim.analysis.rollouts import rollout_matrix
from sim.cli import main
from sim.cli import review as CLI_REVIEW

ROOT = Path(__file__).resolve().parents[2]
SEED, HAND = 11, 3
SPECS = ["heuristic", "random", "expert", "random"]
WORLDS = 40


@pytest.fixture(scope="module")
def reviewed():
    return sim.review(SEED, HAND, strategies=SPECS, rollouts=WORLDS, threads=2)


@pytest.fixture(scope="module")
def hand_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("review") / "run"
    sim.simulate(HAND + 1, SEED, strategies=SPECS, out=out)
    return out


def _action_of(event: dict) -> int:
    """The action id a replay event shows (a discard by its face)."""
    if event["type"] == "draw":
        return KA.A_DRAW
    if event["type"] == "take_pile":
        return KA.A_TAKE
    return KA.A_DISCARD + int(CIDX[event["card_id"]])


# ------------------------------------------------------------------ the decisions listed
def test_the_decisions_are_the_replays_pickups_and_discards(reviewed):
    doc = sim.replay(SEED, HAND, strategies=SPECS)
    events = doc["events"]
    made = [(i, e) for i, e in enumerate(events) if e["type"] in ("draw", "take_pile", "discard")]
    d = reviewed.decisions
    assert len(d) == len(made) == 86                     # 43 turns, a pickup and a discard each
    assert d["decision"].tolist() == list(range(len(made)))
    assert d["turn"].tolist() == [e["turn"] for _, e in made]
    assert d["seat"].tolist() == [e["seat"] for _, e in made]
    assert d["phase"].tolist() == ["discard" if e["type"] == "discard" else "pickup"
                                   for _, e in made]
    assert d["event"].tolist() == [i for i, _ in made]     # the event the action made
    assert d["chosen"].tolist() == [_action_of(e) for _, e in made]
    assert d["team"].tolist() == [e["seat"] % 2 for _, e in made]
    assert d["strategy"].tolist() == [SPECS[e["seat"]] for _, e in made]
    assert reviewed.hand == doc                                # the replay document itself
    # forced: one legal action (the discards that take the pozzetto or close, here)
    forced = d[d["forced"]]
    assert forced["legal"].eq(1).all() and forced["worlds"].eq(0).all()
    assert forced["loss"].eq(0).all() and forced["mark"].eq("").all()
    assert (forced["chosen"] == forced["best"]).all()
    assert forced["turn"].tolist() == [17, 42, 43]
    rated = d[~d["forced"]]
    assert rated["legal"].gt(1).all() and rated["worlds"].eq(WORLDS).all()
    assert set(reviewed.tables) == set(rated["decision"])
    assert (rated["loss"] >= 0).all() and (rated["loss_low"] <= rated["loss"]).all()
    assert (rated["loss"] <= rated["loss_high"]).all()
    assert (rated["loss_high"] > 0).sum() > len(rated) / 2       # rarely 0 .. 0: clearly best
    zero = rated[rated["loss"] == 0]
    assert len(zero) and (zero["chosen"] == zero["best"]).all()     # no loss: it is the best
    assert reviewed.info["checked"] is False and reviewed.info["seats"] == [0, 1, 2, 3]


def test_seats_choose_the_rows_and_a_run_directory_gives_the_same(reviewed, hand_run):
    r = sim.review(run=hand_run, hand_index=HAND, seats=[2], rollouts=WORLDS, threads=1)
    mine = reviewed.decisions[reviewed.decisions["seat"] == 2].reset_index(drop=True)
    got = r.decisions.drop(columns="decision")
    pd.testing.assert_frame_equal(got, mine.drop(columns="decision"))
    assert r.info["checked"] is True and r.info["run"] == str(hand_run)
    assert r.seats["who"].tolist() == ["seat 2"] and r.teams["who"].tolist() == ["team 0"]


def test_the_meld_phase_on_request(reviewed):
    r = sim.review(SEED, HAND, strategies=SPECS, seats=3, meld=True, rollouts=8)
    phases = r.decisions["phase"].tolist()
    assert set(phases) == {"pickup", "meld", "discard"}
    plain = reviewed.decisions[reviewed.decisions["seat"] == 3]
    assert (r.decisions[r.decisions["phase"] != "meld"]["ply"].tolist()
            == plain["ply"].tolist())
    # every turn's meld phase: at least its end, between the pickup and the discard
    turns = r.decisions.groupby("turn")["phase"].apply(list)
    for t, ph in turns.items():
        assert ph[0] == "pickup" and "meld" in ph[1:], (t, ph)


# ------------------------------------------------------------------ one implementation
@pytest.mark.parametrize("phase", ["pickup", "discard"])
def test_a_decisions_loss_is_the_cross_fit_of_analyze_decisions_rollouts(reviewed, phase):
    d = reviewed.decisions
    row = d[(d["phase"] == phase) & (d["loss"] > 0)].iloc[0]
    seed = int(row["analysis_seed"])
    assert seed == RV.decision_seed(0, int(row["ply"]))
    df = sim.analyze_decision(HAND, int(row["turn"]), phase, seed=SEED, strategies=SPECS,
                              rollouts=WORLDS, analysis_seed=seed)
    mine = df[df["chosen"]].iloc[0]
    assert df.attrs["chosen"] == row["chosen"] and df.attrs["chosen_text"] == row["chosen_text"]
    assert row["p_best"] == mine["p_best"]
    assert row["best"] == df["action"].iloc[0] and row["best_text"] == df["text"].iloc[0]
    pd.testing.assert_frame_equal(reviewed.tables[int(row["decision"])], df[
        list(reviewed.tables[int(row["decision"])].columns)], check_like=False)
    # the loss: the cross-fit of the same rollouts (the worlds of analyze_decision's seed)
    game, chosen, _ = decision_game(HAND, int(row["turn"]), phase, seed=SEED, strategies=SPECS)
    acts = game.legal_actions()
    m = rollout_matrix(game, acts, WORLDS, seed=seed)["result"]
    x = RV.cross_fit_loss(m, acts.index(chosen))
    assert (row["loss"], row["loss_low"], row["loss_high"], row["loss_se"]) == (
        x["loss"], x["loss_low"], x["loss_high"], x["loss_se"])
    assert x["loss"] == max(0.0, x["margin"]) > 0
    assert row["difference"] == x["margin"]
    assert row["loss"] != -mine["diff_best"] or len(acts) == 2   # not the sample's best


def test_cross_fit_loss_worked_by_hand():
    r = [[10, 12, 7],       # world 0 (even half)
         [0, 6, 9],         # world 1 (odd half)
         [4, 2, 8],         # world 2
         [6, 10, 1]]        # world 3
    # chosen column 0.  The odd worlds' means of the others: 8 (col 1), 5 (col 2): the even
    # worlds are measured against col 1: e = 12 - 10 = 2 and 2 - 4 = -2.  The even worlds'
    # means: 7 (col 1), 7.5 (col 2): the odd worlds against col 2: e = 9 - 0 = 9, 1 - 6 = -5.
    x = RV.cross_fit_loss(r, 0)
    assert x["comparators"] == [1, 2]
    assert x["margin"] == x["loss"] == (2 + 9 - 2 - 5) / 4 == 1.0
    # e - mean = 1, 8, -3, -6: var 110 / 3, se^2 = 110 / 12
    assert x["loss_se"] == pytest.approx(math.sqrt(110 / 12))
    assert x["loss_low"] == 0.0                                  # 1 - 1.96 * 3.03 < 0: clipped
    assert x["loss_high"] == pytest.approx(1 + Z95 * math.sqrt(110 / 12))
    # against the best of the same sample (col 1, mean 7.5 over all worlds) it would be 2.5
    # chosen column 1, which leads the sample: against col 2 picked on both halves,
    # e = 7 - 12, 9 - 6, 8 - 2, 1 - 10 = -5, 3, 6, -9: margin -1.25, loss 0, yet the
    # interval is not 0 .. 0 (deviations -3.75, 4.25, 7.25, -7.75: var 144.75 / 3)
    y = RV.cross_fit_loss(r, 1)
    assert y["comparators"] == [2, 2] and y["margin"] == -1.25 and y["loss"] == 0.0
    assert y["loss_se"] == pytest.approx(math.sqrt(144.75 / 12))
    assert y["loss_low"] == 0.0
    assert y["loss_high"] == pytest.approx(-1.25 + Z95 * math.sqrt(144.75 / 12))
    assert RV.cross_fit_loss(r, 0, z=3.0)["loss_high"] == pytest.approx(
        1 + 3 * math.sqrt(110 / 12))
    for bad, needle in ((([[1, 2]], 0), "expected W >= 2 worlds of C >= 2 candidates"),
                        (([[1], [2]], 0), "expected W >= 2 worlds of C >= 2"),
                        ((r, 3), "chosen: expected a column 0..2, got 3")):
        with pytest.raises(ValueError, match=re.escape(needle)):
            RV.cross_fit_loss(*bad)


def test_decision_seeds_differ_and_are_fixed():
    assert RV.decision_seed(0, 5) == RV.decision_seed(0, 5)
    seeds = {RV.decision_seed(s, p) for s in (0, 1) for p in range(100)}
    assert len(seeds) == 200 and all(0 <= s < 2**64 for s in seeds)


# ------------------------------------------------------------------ marks
def test_marks_follow_the_thresholds_and_the_interval():
    loss = [0.0, 19.9, 20.0, 59.9, 60.0, 100.0, 100.0, 100.0, math.nan, 25.0]
    low = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, -5.0, 0.1, math.nan, 0.001]
    assert RV.marks(loss, low).tolist() == ["", "", "doubtful", "doubtful", "blunder", "", "",
                                            "blunder", "", "doubtful"]
    assert RV.marks(loss, low, doubtful=10, blunder=25).tolist() == [
        "", "doubtful", "doubtful", "blunder", "blunder", "", "", "blunder", "", "blunder"]
    assert RV.marks([30.0], [5.0], doubtful=30, blunder=30).tolist() == ["blunder"]
    assert (RV.DOUBTFUL, RV.BLUNDER) == (CLI_REVIEW.DOUBTFUL, CLI_REVIEW.BLUNDER) == (20, 60)
    for kw, needle in (({"doubtful": 70}, "blunder must be at least doubtful (70 points), got 60"),
                       ({"doubtful": -1}, "doubtful must be a loss in points, a finite number"),
                       ({"blunder": math.inf}, "blunder must be a loss in points"),
                       ({"doubtful": True}, "doubtful must be")):
        with pytest.raises(ValueError, match=re.escape(needle)):
            RV.marks([1.0], [1.0], **kw)


def test_the_review_marks_its_rows_by_the_rule(reviewed):
    d = reviewed.decisions
    want = np.where(d["loss_low"] <= 0, "",
                    np.where(d["loss"] >= 60, "blunder", np.where(d["loss"] >= 20, "doubtful", "")))
    assert d["mark"].tolist() == want.tolist()
    assert (d["mark"] != "").any()                          # random seats blunder here


# ------------------------------------------------------------------ summaries
def test_the_summaries_are_the_sums_of_the_rows(reviewed):
    d = reviewed.decisions
    for table, by in ((reviewed.seats, "seat"), (reviewed.teams, "team")):
        assert table["who"].tolist() == [f"{by} {k}" for k in sorted(d[by].unique())]
        for s in table.itertuples(index=False):
            part = d[d[by] == int(s.who.split()[1])]
            rated = part[~part["forced"]]
            assert s.decisions == len(part) and s.rated == len(rated)
            assert s.loss == pytest.approx(rated["loss"].sum(), abs=1e-9)
            assert s.loss_per_decision == pytest.approx(rated["loss"].sum() / len(rated))
            assert s.doubtful == (part["mark"] == "doubtful").sum()
            assert s.blunder == (part["mark"] == "blunder").sum()
            assert s.loss_low < s.loss < s.loss_high
    seats, teams = reviewed.seats, reviewed.teams
    for t in (0, 1):
        mine = seats[seats["seat"] % 2 == t]
        row = teams[teams["team"] == t].iloc[0]
        assert row["rated"] == mine["rated"].sum() and row["blunder"] == mine["blunder"].sum()
        assert row["loss"] == pytest.approx(mine["loss"].sum())
    assert teams["strategy"].tolist() == ["heuristic, expert", "random"]


def test_the_summary_interval_worked_by_hand():
    rows = []
    for i, (loss, low, high, se, forced, mark) in enumerate([
            (10.0, 0.0, 20.0, 6.0, False, ""), (30.0, 10.0, 50.0, 8.0, False, "doubtful"),
            (0.0, 0.0, 0.0, 0.0, True, "")]):
        rows.append({c: 0 for c in RV.DECISION_COLUMNS} | {
            "decision": i, "seat": 1, "team": 1, "strategy": "x", "phase": "discard",
            "forced": forced, "loss": loss, "loss_low": low, "loss_high": high, "loss_se": se,
            "mark": mark, "z_interval": 1.959963984540054, "chosen_text": "", "best_text": ""})
    s = RV.summarize(pd.DataFrame(rows)).iloc[0]
    # the standard errors 6 and 8 (not the clipped intervals): half-width 1.96 * sqrt(36 + 64)
    assert (s["decisions"], s["rated"], s["loss"], s["doubtful"], s["blunder"]) == (3, 2, 40, 1, 0)
    assert s["loss_low"] == pytest.approx(40 - Z95 * 10)
    assert s["loss_high"] == pytest.approx(40 + Z95 * 10)
    assert s["loss_per_decision"] == 20
    assert s["per_decision_high"] == pytest.approx(20 + Z95 * 10 / 2)
    # losses of 1 and 0 points: 1 - 1.96 * 10 is below 0, and a loss never is: clipped
    small = pd.DataFrame(rows).assign(loss=[1.0, 0.0, 0.0], loss_low=0.0, mark="")
    t = RV.summarize(small).iloc[0]
    assert (t["loss"], t["loss_low"], t["per_decision_low"]) == (1.0, 0.0, 0.0)
    assert t["loss_high"] == pytest.approx(1 + Z95 * 10)


# ------------------------------------------------------------------ JSON and its schema
def test_the_json_document_round_trips(reviewed):
    doc = reviewed.to_document()
    text = json.dumps(doc, allow_nan=False)
    back = RV.Review.from_document(json.loads(text))
    pd.testing.assert_frame_equal(back.decisions, reviewed.decisions)
    pd.testing.assert_frame_equal(back.seats, reviewed.seats)
    pd.testing.assert_frame_equal(back.teams, reviewed.teams)
    assert back.to_document() == json.loads(text)
    assert json.loads(reviewed.to_json()) == json.loads(text)
    with pytest.raises(ValueError, match="format: not a review document"):
        RV.Review.from_document({"format": "burraco-replay"})


def _documented(section: str) -> list:
    """The keys a section of docs/review.md lists in its table (first column)."""
    text = (ROOT / "docs" / "review.md").read_text()
    part = text.split(f"<!-- {section} -->")[1].split("<!-- end -->")[0]
    return re.findall(r"^\| `([a-z_0-9]+)` \|", part, re.M)


def test_the_document_has_the_documented_keys(reviewed):
    doc = reviewed.to_document()
    assert list(doc) == _documented("top")
    assert list(doc["review"]) == _documented("review")
    assert list(doc["decisions"][0]) == list(RV.DECISION_COLUMNS) + ["candidates"]
    assert _documented("decisions") == list(RV.DECISION_COLUMNS) + ["candidates"]
    assert list(doc["decisions"][-1]["candidates"]) == []         # forced: none
    rated = next(r for r in doc["decisions"] if r["candidates"])
    assert list(rated["candidates"][0]) == _documented("candidates")
    assert list(doc["seats"][0]) == list(doc["teams"][0]) == list(RV.SUMMARY_COLUMNS)
    assert _documented("summary") == list(RV.SUMMARY_COLUMNS)
    text = (ROOT / "docs" / "review.md").read_text()
    for table in (RV.DECISION_COLUMNS, RV.SUMMARY_COLUMNS):       # declared once
        for key, meaning in table.items():
            assert f"| `{key}` | {meaning} |" in text, key


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("kwargs,needle", [
    ({"seats": [4]}, "seats must be seats of the hand, 0..3, got 4"),
    ({"seats": []}, "seats: give at least one seat"),
    ({"rollouts": 1}, "rollouts must be an integer in 2.."),
    ({"hand_index": None}, "hand_index: give the hand to review"),
    ({"seed": None}, "seed: give the run's seed"),
    ({"blunder": 5}, "blunder must be at least doubtful (20 points), got 5"),
    ({"policy": "nosuch"}, "nosuch"),
])
def test_bad_settings_are_named(kwargs, needle):
    args = {"seed": SEED, "hand_index": HAND, "strategies": SPECS, "rollouts": 4} | kwargs
    with pytest.raises(ValueError, match=re.escape(needle)):
        sim.review(**args)


def test_a_run_fixes_its_settings(hand_run):
    with pytest.raises(ValueError, match="seed is taken from the run"):
        sim.review(SEED, HAND, run=hand_run)


# ------------------------------------------------------------------ the command line
ARGV = ["review", "--seed", str(SEED), "--hand", str(HAND), *sum([["--strategy", s] for s in SPECS],
                                                                 []), "--rollouts", str(WORLDS)]


def test_cli_text_and_json_are_the_librarys(reviewed, capsys):
    assert main([*ARGV, "--quiet", "--seats", "0,2"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == (f"review of hand {HAND} of seed {SEED}: closed after 43 turns "
                        "(team 0 535, team 1 210)")
    s = reviewed.seats.iloc[2]
    assert any(line.startswith(f"  seat 2  (expert): {s.rated} decisions rated, "
                               f"{s.loss:.1f} lost ({s.loss_low:.1f} .. {s.loss_high:.1f})")
               for line in lines), out
    rows = [line for line in lines if re.match(r"\s+\d+\s+[0-3]\s+(pickup|discard)", line)]
    assert len(rows) == reviewed.decisions["seat"].isin([0, 2]).sum() == 44
    assert main([*ARGV, "--quiet", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = reviewed.to_document()
    for k in ("elapsed_s", "threads"):
        doc["review"].pop(k), want["review"].pop(k)
    assert doc == want


def test_cli_out_is_written_whole_and_not_replaced(tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = [*ARGV, "--quiet", "--seats", "1", "--rollouts", "4", "--format", "json",
            "--out", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: review of hand {HAND} of seed")
    doc = json.loads(out.read_text())
    assert doc["format"] == RV.FORMAT and doc["review"]["seats"] == [1]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (f"burraco: error: --out: {str(out)!r} exists; use another name, or "
                   "--overwrite to replace it\n")
    assert json.loads(out.read_text()) == doc
    assert main([*argv, "--overwrite"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]      # no temporary left


@pytest.mark.parametrize("argv,needle", [
    (["--hand", "0"], "--hand needs a run directory or --seed"),
    (["--seed", "1", "--hand", "0", "--seats", "5"], "--seats must be seats of the hand, 0..3"),
    (["--seed", "1", "--hand", "0", "--seats", "a,b"], "argument --seats: expected seats"),
    (["--seed", "1", "--hand", "0", "--doubtful", "70"],
     "--blunder must be at least doubtful (70 points), got 60"),
    (["--seed", "1", "--hand", "0", "--doubtful", "-1"], "--doubtful must be a loss in points"),
    (["--seed", "1", "--hand", "0", "--blunder", "lots"],
     "argument --blunder: expected a number of points"),
    (["--seed", "1", "--hand", "0", "--rollouts", "1"], "--rollouts must be an integer in 2.."),
    (["--seed", "1", "--hand", "-1"], "--hand must be an integer in 0.."),
    (["--seed", "1", "--hand", "0", "--analysis-seed", "-1"],
     "--analysis-seed must be an integer in 0.."),
    (["--seed", "1", "--hand", "0", "--overwrite"], "--overwrite applies to --out FILE"),
    (["--seed", "1", "--hand", "0", "--out", "/nonexistent/dir/r.txt"],
     "--out: the directory '/nonexistent/dir' does not exist"),
    (["--seed", "1", "--hand", "0", "--format", "yaml"], "argument --format: invalid choice"),
    (["--seed", "1", "--hand", "0", "--quiet", "--progress"], "not allowed with argument"),
    (["/nonexistent/run", "--hand", "0"], "DIR: '/nonexistent/run' does not exist"),
    (["pyproject.toml", "--hand", "0"], "--hand: the hand file 'pyproject.toml' fixes the hand"),
    (["pyproject.toml"], "burraco: error: pyproject.toml: unknown field 'build-system'"),
    (["--seed", "1"], "--hand: give the hand to review"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, needle, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    try:
        code = main(["review", "--rollouts", "4", *argv])
    except SystemExit as exc:                # argparse's own errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("burraco: error: ") and needle in err, err


def test_cli_run_directory_errors(hand_run, capsys):
    for argv, needle in ((["--seed", "1"], "--seed is taken from the run in DIR"),
                         (["--rules", "fibur_italian"], "--rules is taken from the run in DIR")):
        assert main(["review", str(hand_run), "--hand", "0", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
    assert main(["review", str(hand_run), "--hand", "9", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"has hands 0..{HAND}, not hand 9" in err, err


# ------------------------------------------------------------------ the viewer
def _page_data(path) -> dict:
    text = Path(path).read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                text, re.S).group(1))


def test_the_page_holds_each_decision_at_its_step(reviewed, tmp_path):
    page = tmp_path / "review.html"
    reviewed.write_html(page)
    data = _page_data(page)
    d = reviewed.decisions
    events = reviewed.hand["events"]
    assert len(data["steps"]) == len(events) + 1
    marked = d[d["mark"] != ""]
    assert [(m["step"], m["mark"]) for m in data["review"]["marks"]] == list(
        zip(marked["event"].tolist(), marked["mark"].tolist()))
    verdicts = data["review"]["verdicts"]
    assert sum(len(v) for v in verdicts.values()) == len(d)
    for row in d.itertuples(index=False):
        lines = verdicts[str(row.event)]
        assert any(f"Turn {row.turn}, seat {row.seat}, {row.phase}: {row.chosen_text}" in x
                   for x in lines)
        # the step shows the table the seat saw: the event the decision made comes next
        assert events[row.event]["seat"] == row.seat and events[row.event]["turn"] == row.turn
        rows = data["analyses"].get(str(row.event), [])
        if row.forced:
            assert rows == [] and any("forced" in x for x in lines)
            continue
        table = reviewed.tables[row.decision]
        assert [r["action"] for r in rows] == table["text"].tolist()
        assert [r["chosen"] for r in rows] == ["*" if a == row.chosen else ""
                                               for a in table["action"]]
        assert rows[0]["diff to best"] == 0 and rows[0]["P(best)"] == table["p_best"].iloc[0]
    summary = data["review"]["summary"]
    assert [r[0] for r in summary["rows"]] == ["seat 0", "seat 1", "seat 2", "seat 3", "team 0",
                                               "team 1"]
    assert [r[2] for r in summary["rows"]] == (reviewed.seats["rated"].tolist()
                                               + reviewed.teams["rated"].tolist())
    with pytest.raises(ValueError, match="exists"):
        reviewed.write_html(page)                               # never clobbered
    with pytest.raises(ValueError, match="hand: this review holds no replay document"):
        RV.Review.from_document(reviewed.to_document()).to_html()


@pytest.mark.parametrize("review,needle", [
    ({"marks": [{"step": 0, "mark": "error", "text": ""}]}, "review['marks'][0] must be a dict"),
    ({"marks": [{"step": 10_000, "mark": "blunder", "text": ""}]}, "step 10000 is not a step"),
    ({"verdicts": {"x": ["a"]}}, "the step 'x' is not an integer"),
    ({"verdicts": {"1": "a"}}, "must be a list of strings"),
    ({"summary": {"columns": ["a", "b"], "rows": [[1]]}}, "one value per column"),
    ({"colour": 1}, "review: unknown key 'colour'"),
])
def test_the_viewer_refuses_a_bad_review(reviewed, review, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        sim.viewer.to_html(reviewed.hand, review=review)


def test_cli_html(tmp_path, capsys):
    page = tmp_path / "r.html"
    assert main([*ARGV, "--quiet", "--seats", "2", "--rollouts", "4", "--format", "html",
                 "--out", str(page)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {page}: review of hand {HAND} of seed")
    data = _page_data(page)
    assert data["meta"]["title"] == f"Burraco: hand {HAND} of seed {SEED}"
    assert data["review"]["summary"]["rows"][0][0] == "seat 2"
    assert main([*ARGV, "--quiet", "--format", "html"]) == 2
    assert capsys.readouterr().err == ("burraco: error: --format html writes a file: give --out "
                                       "FILE (the page is not written to stdout)\n")


@pytest.mark.slow
def test_the_review_page_in_a_browser(reviewed, tmp_path, browser):
    """The marks on the slider take the page to their step, whose panel shows the verdict
    and the decision's table; the summary and the list of marks are drawn; no script error."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "review.html"
    reviewed.write_html(page)
    browser.get(page.as_uri())
    d = reviewed.decisions
    marked = d[d["mark"] != ""]
    ticks = browser.find_elements(By.CSS_SELECTOR, "#marks .mark")
    assert [(int(t.get_attribute("data-step")), t.get_attribute("data-mark")) for t in ticks] == \
        list(zip(marked["event"].tolist(), marked["mark"].tolist()))
    lefts = [t.location["x"] for t in ticks]
    assert lefts == sorted(lefts) and lefts[0] < lefts[-1]     # placed along the slider
    rows = browser.find_elements(By.CSS_SELECTOR, "#review-table tr")
    assert [r.find_elements(By.TAG_NAME, "td")[0].text for r in rows[1:]] == [
        "seat 0", "seat 1", "seat 2", "seat 3", "team 0", "team 1"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-marks li")) == len(marked)
    for tick, row in zip(ticks[:3], marked.itertuples(index=False)):
        tick.click()
        assert browser.find_element(By.ID, "stepno").get_attribute("data-step") == str(row.event)
        assert not browser.find_element(By.ID, "analysis").get_attribute("hidden")
        verdict = [p.text for p in browser.find_elements(By.CSS_SELECTOR, "#verdict p")]
        assert any(v.startswith(f"Turn {row.turn}, seat {row.seat}, {row.phase}: "
                                f"{row.chosen_text}; best {row.best_text}; loss {row.loss:.1f}")
                   and v.endswith(row.mark) for v in verdict), verdict
        cells = [tr.find_elements(By.TAG_NAME, "td")
                 for tr in browser.find_elements(By.CSS_SELECTOR, "#analysis-table tr")[1:]]
        assert [c[0].text for c in cells] == reviewed.tables[row.decision]["text"].tolist()
        assert [c[0].text for c in cells if c[1].text == "*"] == [row.chosen_text]
    first = marked.iloc[0]
    browser.find_elements(By.CSS_SELECTOR, "#review-marks li")[0].click()
    assert browser.find_element(By.ID, "stepno").get_attribute("data-step") == str(first.event)
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()     # the keys still step
    assert browser.find_element(By.ID, "stepno").get_attribute("data-step") == str(first.event + 1)
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_one_seats_record_page_in_a_browser(tmp_path, browser):
    """One seat's record, reviewed and drawn: the page shows the recording seat's view (the
    other hands face down, none of the cards made up when the record was read), its decisions'
    tables at their steps, and no script error."""
    from selenium.webdriver.common.by import By

    record = Path(__file__).resolve().parents[2] / "examples" / "hand_one_seat.toml"
    r = sim.review(str(record), rollouts=20)
    seat = r.info["view"]
    assert seat == 0 and set(r.decisions["seat"]) == {0}
    page = tmp_path / "one_seat.html"
    r.write_html(page)
    text = page.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                text, re.S).group(1))
    assert data["meta"]["seat"] == seat
    assert all(h is None for st in data["steps"] for s, h in enumerate(st["hands"]) if s != seat)
    browser.get(page.as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, ".card.back")          # the hidden hands
    rows = browser.find_elements(By.CSS_SELECTOR, "#review-table tr")
    assert len(rows) >= 1 + int((~r.decisions["forced"]).sum() > 0)
    first = r.decisions[~r.decisions["forced"]].iloc[0]
    browser.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent("
                           "new Event('input'))", browser.find_element(By.ID, "slider"),
                           int(first.event))
    assert browser.find_element(By.ID, "stepno").get_attribute("data-step") == str(first.event)
    assert not browser.find_element(By.ID, "analysis").get_attribute("hidden")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
