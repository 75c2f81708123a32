"""The HTML hand viewer (sim.viewer, burraco replay --format html): the table at every step
against the replay document and its record, a self-contained page, the seat view, the
analysis panel, the CLI and the atomic write; then the page in headless Chromium."""
import io
import json
import os
import re

import pytest
from _browser import browser  # noqa: F401  (the headless Chromium fixture)

import sim
from kernels.core import layout as L
from sim import cli
from sim import trace as R
from sim import viewer as V

SEED, HAND = 1, 3          # a hand with pile pickups, lay-offs, a pozzetto, a burraco and a close



@pytest.fixture(scope="module")
def doc():
    d = sim.replay(SEED, HAND)
    kinds = {e["type"] for e in d["events"]}
    # the hand the tests lean on shows what the viewer must show
    assert {"take_pile", "meld", "lay_off", "pozzetto", "draw"} <= kinds, kinds
    assert d["result"]["end_reason"] == "closed"
    assert d["result"]["clean_burracos_t0"] + d["result"]["dirty_burracos_t0"] >= 1
    return d


def page_json(text: str) -> dict:
    """The data a page embeds."""
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert m, "no embedded data"
    return json.loads(m.group(1))


def expected(doc: dict, k: int) -> dict:
    """The table after the first ``k`` events of a 4-player deal, tracked here from the
    document's card texts alone (not through sim.viewer)."""
    hands = [list(h) for h in doc["deal"]["hands"]]
    pile = [doc["deal"]["discard"]]
    stock = len(doc["deal"]["stock"])
    melds = {0: [], 1: []}
    pozzetti = 0
    for e in doc["events"][:k]:
        t, s = e["type"], e["seat"]
        if t == "draw":
            hands[s].append(e["card"])
            stock -= 1
        elif t == "take_pile":
            assert e["cards"] == pile
            hands[s] += pile
            pile = []
        elif t in ("meld", "lay_off"):
            for c in e["cards"]:
                hands[s].remove(c)
            if t == "meld":
                melds[e["team"]].append(list(e["cards"]))
            else:
                melds[e["team"]][e["meld"]] += e["cards"]
        elif t == "pozzetto":
            hands[s] += e["cards"]
            pozzetti += 1
        elif t == "discard":
            hands[s].remove(e["card"])
            pile.append(e["card"])
    table = []
    for team in (0, 1):
        checks = [sim.melds.check(" ".join(m)) for m in melds[team]]
        table.append(sum(c.points + c.burraco_bonus for c in checks))
    return {"hands": [sorted(h) for h in hands], "pile": pile, "stock": stock,
            "melds": [sorted(sorted(m) for m in melds[t]) for t in (0, 1)], "table": table,
            "pozzetti_taken": pozzetti}


def faces(data: dict, ids) -> list:
    return [data["faces"][str(c)] for c in ids]


# ------------------------------------------------------------------ the table at every step

RULE_CASES = {
    "default": {},
    "two_players": {"num_players": 2},
    "three_solo_18": {"num_players": 3},
    "three_individual": {"num_players": 3, "three_player_mode": "individual_3x11"},
    "three_half_share": {"num_players": 3, "three_player_pair_share": "half_round_up"},
    "lock_two_roles": {"lock_two_roles": True},
    "pozzetto_as_stock": {"untaken_pozzetto_as_stock": True},
    "extra_classes": {"extra_burraco_classes": True, "semi_clean_bonus": 150},
}


@pytest.mark.parametrize("case", sorted(RULE_CASES))
def test_last_step_gives_the_record(case):
    """The last step's melds and hands, scored again by sim.scoring, give the record's
    score breakdown of every side (2, 3 and 4 players, rule options)."""
    rules = sim.Rules().replace(**RULE_CASES[case])
    n = rules.num_players
    for index in range(6):
        d = sim.replay(11, index, rules=rules)
        res = d["result"]
        steps = V.table_steps(d)
        assert len(steps) == len(d["events"]) + 1
        last = steps[-1]
        assert V.final_values(last, n) == {c: res[c] for c in V.final_values(last, n)}
        for step in steps:                 # every card in exactly one place at every step
            ids = [c for h in step["hands"] for c in h] + step["pile"]
            ids += [c for side in step["melds"] for m in side for c in m["cards"]]
            ids += [c for p in step["pozzetti"] for c in p.get("ids", ())]
            assert len(set(ids)) == len(ids)
            assert len(ids) + step["stock"] == 108
        closing_turn = [e["turn"] for e in d["events"] if e["type"] == "discard" and e["closes"]]
        pile_close = bool(closing_turn) and any(
            e["type"] == "take_pile" and e["turn"] == closing_turn[0] for e in d["events"])
        for t in range(3 if n == 3 else 2):
            side = last["side_of"][t] if n == 3 else t
            seats = [s for s in range(n) if last["side_of"][s] == side]
            melds = [m["cards"] for m in last["melds"][side]]
            if rules.lock_two_roles:          # the 2s' kept roles are not in the cards alone
                melds = [m.check for m in _melds_of(d, side)]
            ts = sim.scoring.score_team(
                melds, [last["hands"][s] for s in seats], bool(res[f"closed_t{t}"]),
                "taken" if res[f"pozzetto_taken_t{t}"] else "untaken", rules, pile_close)
            got = {"meld_points": ts.meld_points, "burraco_bonus": ts.burraco_bonus,
                   "closing_bonus": ts.closing_bonus, "hand_points": ts.hand_points,
                   "pozzetto_penalty": ts.pozzetto_penalty,
                   "clean_burracos": ts.clean_burracos, "dirty_burracos": ts.dirty_burracos,
                   "semi_clean_burracos": ts.semi_clean_burracos}
            if n != 3 or len(seats) == 1 or rules.three_player_pair_share == "full":
                got["score"] = ts.total          # (a pair's half share is credited, R62)
            assert got == {k: res[f"{k}_t{t}"] for k in got}, (case, index, t)


def _melds_of(d: dict, side: int) -> list:
    """The final melds of ``side`` with their kept roles (sim.viewer's table, rebuilt)."""
    tab = V._Table(d, sim.Rules.from_dict(d["rules"]))
    for e in d["events"]:
        tab.apply(e)
    return tab.melds[side]


def test_steps_follow_the_document(doc):
    """Chosen steps of the page's data against the document's events, tracked here."""
    data = page_json(R.to_html(doc))
    steps = data["steps"]
    ev = doc["events"]
    assert len(steps) == len(ev) + 1
    first = {t: next(i for i, e in enumerate(ev) if e["type"] == t) + 1
             for t in ("take_pile", "meld", "lay_off", "pozzetto")}
    for k in sorted({0, 1, len(ev) // 2, len(ev), *first.values()}):
        st, want = steps[k], expected(doc, k)
        assert [sorted(faces(data, h)) for h in st["hands"]] == want["hands"], k
        assert st["hand_counts"] == [len(h) for h in want["hands"]]
        assert faces(data, st["pile"]) == want["pile"], k
        assert st["stock"] == want["stock"], k
        assert [sorted(sorted(faces(data, m["cards"])) for m in side)
                for side in st["melds"]] == want["melds"], k
        assert [tp["total"] for tp in st["table_points"]] == want["table"], k
        assert sum(p["state"] == "taken" for p in st["pozzetti"]) == want["pozzetti_taken"]
        if k:
            e = ev[k - 1]
            assert (st["turn"], st["seat"], st["type"]) == (e["turn"], e["seat"], e["type"])
            if e["type"] in ("draw", "take_pile", "meld", "lay_off", "discard"):
                for c in e.get("cards", [e.get("card")]):
                    assert c in st["text"], (k, st["text"])
    meld = steps[first["meld"]]
    e = ev[first["meld"] - 1]
    side = meld["melds"][e["team"]][e["meld"]]
    assert sorted(side["cards"]) == sorted(e["card_ids"])
    assert meld["marked"]["meld"] == [e["team"], e["meld"]]
    check = sim.melds.check(" ".join(e["cards"]))
    assert side["kind"] == check.kind and side["clean"] == check.clean
    burracos = [m for s in steps[-1]["melds"] for m in s if m["burraco"]]
    assert len(burracos) == sum(doc["result"][f"{c}_burracos_t{t}"] for t in (0, 1)
                                for c in ("clean", "dirty"))
    assert all(len(m["cards"]) >= 7 and m["bonus"] > 0 for m in burracos)


def test_meld_order_and_wilds():
    """A sequence is shown low to high with its wild in the slot it holds, a natural 2
    apart from a wild 2 (R13, R19), a set by suit with its wild last."""
    rules = sim.Rules()
    ids = sim.notation.parse("7♥ 2♦ 4♥ 5♥ 3♥")            # the 2♦ stands for the 6♥
    m = V._Meld(sim.melds.check(ids, rules), rules).view
    assert faces({"faces": {str(c): sim.notation.format_card(c) for c in ids}}, m["cards"]) \
        == ["3♥", "4♥", "5♥", "2♦", "7♥"]
    assert m["wild"] == [int(ids[1])] and m["natural_two"] is None and not m["clean"]
    ids = sim.notation.parse("A♠ 2♠ 3♠ 4♠ JK")
    m = V._Meld(sim.melds.check(ids, rules), rules).view
    assert [sim.notation.format_card(c) for c in m["cards"]][:4] == ["A♠", "2♠", "3♠", "4♠"]
    assert m["natural_two"] == int(ids[1]) and m["wild"] == [int(ids[4])]
    ids = sim.notation.parse("2♣ Q♦ Q♠ Q♥")
    m = V._Meld(sim.melds.check(ids, rules), rules).view
    assert m["cards"][-1] == int(ids[0]) and m["kind"] == "set" and m["wild"] == [int(ids[0])]


@pytest.mark.parametrize("cards,order", [
    ("A♦ Q♦ K♦ J♦ 10♦", "10♦ J♦ Q♦ K♦ A♦"),          # the ace high, as it stands
    ("3♦ A♦ 2♦", "A♦ 2♦ 3♦"),                        # the ace low, a natural 2 in slot 2
    ("5♠ 2♣ 7♠", "5♠ 2♣ 7♠"),                        # the wild in the gap it fills
    ("7♠ 5♠ 2♣", "5♠ 2♣ 7♠"),
    ("9♣ 10♣ 2♠", "9♣ 10♣ 2♠"),                      # a free wild above the top card
    ("JK Q♥ K♥ A♥", "JK Q♥ K♥ A♥"),                  # ... below it when that is the high ace
    ("3♥ 5♥ 2♥", "3♥ 2♥ 5♥"),                        # a 2 of the suit as the wild for 4♥
    ("2♥ 2♠ 4♥ 5♥", "2♥ 2♠ 4♥ 5♥"),                  # a natural 2, then the wild for 3♥
    ("K♠ K♥ JK K♣ K♦", "K♣ K♦ K♥ K♠ JK"),            # a set by suit ♣ ♦ ♥ ♠, the wild last
    ("8♥ 2♦ 8♦ 8♥", "8♦ 8♥ 8♥ 2♦"),
])
def test_the_reading_order(cards, order):
    got = sim.melds.reading_order(sim.notation.parse(cards)).cards
    assert sim.notation.format(got) == order
    chk = sim.melds.check(cards)
    assert sim.notation.format(chk.reading().cards) == order
    # the observation's faces, from the meld's counts alone
    from sim.play.actions import _FACE_TEXT, _meld_faces
    from sim.core.cards import counts
    faces = _meld_faces(counts(sim.notation.parse(cards)))
    assert " ".join(_FACE_TEXT[f] for f in faces) == order


def test_reading_order_under_lock_two_roles_keeps_the_stored_roles():
    """3♦ 4♦ with 2♦ laid off as the wild for 5♦ keeps that role under lock_two_roles
    (R25): it reads 3♦ 4♦ 2♦, where the canonical reading is 2♦ 3♦ 4♦."""
    locked = sim.Rules(lock_two_roles=True)
    stored = sim.melds.table_meld(sim.notation.parse("3♦ 4♦ 2♦"), locked, natural_twos=0)
    assert sim.notation.format(stored.reading(locked).cards) == "3♦ 4♦ 2♦"
    assert sim.notation.format(sim.melds.reading_order(stored.cards).cards) == "2♦ 3♦ 4♦"
    with pytest.raises(ValueError, match="is not a valid meld"):
        sim.melds.check("4♣ 5♦ 6♠").reading()


@pytest.mark.parametrize("rules", [None, {"lock_two_roles": True}, {"num_players": 3}],
                         ids=["default", "lock_two_roles", "3p"])
def test_the_trace_the_viewer_and_the_observation_read_melds_alike(rules):
    """One reading order everywhere: every meld on the table at the end of a hand, as
    the text trace, the hand viewer and Game.observation write it."""
    seen = 0
    for hand in range(6):
        g = sim.Game.new(seed=5, hand_index=hand, rules=rules).play()
        doc = g.replay_document()
        trace_lines = R.format_text(doc).splitlines()
        last = V.table_steps(doc)[-1]
        obs = g.observation(0)
        for m in obs.melds:
            team, mi = m["team"], m["index"]
            text = " ".join(m["cards"])
            viewer = last["melds"][team][mi]["cards"]
            assert " ".join(sim.notation.format_card(c) for c in viewer) == text
            at = trace_lines.index(next(line for line in trace_lines
                                        if re.fullmatch(rf"(team|seat) {team} table:", line)))
            assert f"  meld {mi}: {text}" in trace_lines[at:], (hand, team, mi)
            seen += 1
    assert seen > 20


def test_a_wrong_record_or_event_is_refused(doc):
    bad = json.loads(json.dumps(doc))
    bad["result"]["meld_points_t1"] += 5
    with pytest.raises(V.ViewerMismatchError, match="meld_points_t1"):
        V.table_steps(bad)
    bad = json.loads(json.dumps(doc))
    draw = next(e for e in bad["events"] if e["type"] == "draw")
    draw["card_id"] = (draw["card_id"] + 1) % 108
    with pytest.raises(ValueError, match=f"turn {draw['turn']}, seat {draw['seat']}, draw"):
        V.table_steps(bad)
    with pytest.raises(ValueError, match="replay document"):
        V.to_html({"events": []})


def test_started_world_and_history_document():
    """A sampled world's document (a start block, no deal) and an unfinished hand's."""
    g = sim.Game.new(5, 2)
    for _ in range(30):
        g.apply(g.choose())
    w = g.sample_world(g.current_seat, seed=1)
    history = w.history_document()
    steps = V.table_steps(history)
    st = history["start"]
    assert len(steps) == 1 and steps[0]["type"] == "start"
    assert steps[0]["hands"] == [V._sort_hand(h) for h in st["hand_ids"]]
    assert steps[0]["pile"] == st["pile_ids"] and steps[0]["stock"] == len(st["stock_ids"])
    assert page_json(V.to_html(history))["final"] is None
    w.play()
    d = w.replay_document()
    data = page_json(V.to_html(d))
    assert len(data["steps"]) == len(d["events"]) + 1
    assert data["final"]["columns"][0]["score"] == d["result"]["score_t0"]


# ------------------------------------------------------------------------------- the page

def test_page_is_self_contained(doc):
    text = R.to_html(doc)
    assert text.startswith("<!DOCTYPE html>")
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"<link\b", text, re.I)
    assert not re.search(r"<script[^>]*\bsrc\s*=", text, re.I)
    assert not re.search(r"\b(src|href)\s*=", text, re.I)
    assert "@import" not in text and "url(" not in text
    assert len(re.findall(r"<script\b", text)) == 2          # the data and the code
    assert text.count("</script>") == 2                      # no card or name closes them
    data = page_json(text)
    assert data["final"]["columns"][1]["score"] == doc["result"]["score_t1"]
    assert data["meta"]["players"] == 4 and data["meta"]["seat"] is None


def test_seat_view_hides_the_other_hands(doc):
    seat = 1
    full = V.table_steps(doc)
    data = page_json(R.to_html(doc, seat=seat))
    public = set()                     # what seat 1 may see: its cards, the table, the pile
    for st in full:
        public |= set(st["hands"][seat]) | set(st["pile"])
        public |= {c for side in st["melds"] for m in side for c in m["cards"]}
    hidden = {c for st in full for s, h in enumerate(st["hands"]) if s != seat for c in h}
    hidden -= public
    hidden |= {c for p in full[0]["pozzetti"] for c in p["ids"]} - public
    hidden |= set(doc["deal_ids"]["stock"]) - public          # and the stock's order
    assert len(hidden) > 30

    shown = set()                      # every card id the page's steps hold
    for st in data["steps"]:
        shown |= {c for h in st["hands"] if h is not None for c in h} | set(st["pile"])
        shown |= set(st["marked"]["ids"])
        for m in (m for side in st["melds"] for m in side):
            shown |= set(m["cards"]) | set(m["wild"]) | {m["natural_two"]} - {None}
    assert shown and not shown & hidden
    assert not {int(c) for c in data["faces"]} & hidden
    assert shown == {int(c) for c in data["faces"]}
    for st, f in zip(data["steps"], full):
        assert st["hands"][seat] == f["hands"][seat]
        assert all(h is None for s, h in enumerate(st["hands"]) if s != seat)
        assert st["hand_counts"] == [len(h) for h in f["hands"]]
        assert all("ids" not in p for p in st["pozzetti"])
    for e, st in zip(doc["events"], data["steps"][1:]):
        if e["type"] == "draw" and e["seat"] != seat:
            assert st["text"].endswith("draws a card from the stock.")
    with pytest.raises(ValueError, match="seat must be an integer in 0..3"):
        R.to_html(doc, seat=4)


def test_analysis_rows(doc):
    rows = [{"action": "discard K♣", "mean": 12.5, "p_best": 0.61, "chosen": True},
            {"action": "discard 7♥", "mean": float("nan"), "p_best": 0.39, "chosen": False}]
    own = dict(doc, analyses={"3": [{"note": "from the document"}], "4": [{"x": 1}]})
    data = page_json(R.to_html(own, analyses={5: rows, 4: [{"x": 2}]}))
    assert data["analyses"]["5"] == [dict(rows[0]), dict(rows[1], mean=None)]
    assert data["analyses"]["3"] == [{"note": "from the document"}]
    assert data["analyses"]["4"] == [{"x": 2}]                 # the argument's rows win
    steps = len(doc["events"]) + 1
    with pytest.raises(ValueError,
                       match=rf"step {steps} is not a step of the hand \(0..{steps - 1}\)"):
        R.to_html(doc, analyses={steps: rows})
    with pytest.raises(ValueError, match=r"analyses\[2\] must be a list of dict rows"):
        R.to_html(doc, analyses={2: "discard"})
    with pytest.raises(ValueError, match="column 'x'"):
        R.to_html(doc, analyses={2: [{"x": object()}]})


# --------------------------------------------------------------------- CLI and the write

def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_writes_the_page(doc, tmp_path, capsys):
    out = tmp_path / "hand.html"
    code, text, err = run_cli(capsys, "replay", "--seed", SEED, "--hand", HAND, "--format", "html",
                              "--out", out)
    assert code == 0, err
    assert out.read_text(encoding="utf-8") == R.to_html(doc)
    assert str(out) in text and f"{len(doc['events']) + 1} steps" in text
    assert [p.name for p in tmp_path.iterdir()] == ["hand.html"]       # no temporary left
    code, _, err = run_cli(capsys, "replay", "--seed", SEED, "--hand", HAND, "--format", "html",
                           "--out", out, "--seat", 2)
    assert code == 2 and "exists" in err and "--overwrite" in err and err.count("\n") == 1
    assert out.read_text(encoding="utf-8") == R.to_html(doc)
    for flag in ("--overwrite", "--force"):
        seat = 2 if flag == "--overwrite" else 0
        code, _, err = run_cli(capsys, "replay", "--seed", SEED, "--hand", HAND, "--format",
                               "html", "--out", out, "--seat", seat, flag)
        assert code == 0, err
        assert out.read_text(encoding="utf-8") == R.to_html(doc, seat=seat)


def test_cli_replays_a_run_directory(tmp_path, capsys):
    run = tmp_path / "run"
    sim.simulate(4, seed=9, out=run)
    out = tmp_path / "h2.html"
    code, _, err = run_cli(capsys, "replay", run, "--hand", 2, "--format", "html", "--out", out)
    assert code == 0, err
    assert out.read_text(encoding="utf-8") == R.to_html(sim.replay(run=run, hand_index=2))


@pytest.mark.parametrize("args, message", [
    (["--format", "html"], "--format html writes a file: give --out FILE"),
    (["--format", "json", "--out", "{tmp}/x.html"], "--out applies to --format html"),
    (["--seat", "1"], "--seat applies to --format html"),
    (["--overwrite"], "--overwrite applies to --format html"),
    (["--format", "html", "--out", "{tmp}/x.html", "--seat", "4"],
     "--seat must be a seat of the hand, 0..3, got 4"),
    (["--format", "html", "--out", "{tmp}/nowhere/x.html"], "--out: the directory"),
    (["--format", "html", "--out", "{tmp}"], "is a directory"),
])
def test_cli_errors(tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, out, err = run_cli(capsys, "replay", "--seed", SEED, "--hand", HAND, *args)
    assert code == 2 and out == ""
    assert err.startswith("burraco: error: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_write_is_atomic(doc, tmp_path, monkeypatch):
    out = tmp_path / "hand.html"
    out.write_text("the old page")

    def broken(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(V.os, "fsync", broken)
    with pytest.raises(OSError, match="No space left"):
        V.write_html(doc, out, overwrite=True)
    assert out.read_text() == "the old page"                    # never half written
    assert [p.name for p in tmp_path.iterdir()] == ["hand.html"]  # the temporary removed
    monkeypatch.undo()
    renamed = []
    real = os.replace
    monkeypatch.setattr(V.os, "replace", lambda a, b: renamed.append((a, b)) or real(a, b))
    V.write_html(doc, out, overwrite=True)
    (tmp, final), = renamed
    assert os.path.dirname(tmp) == str(tmp_path) and final == str(out)
    assert out.read_text(encoding="utf-8") == R.to_html(doc)
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask         # not the temporary's 0o600
    # a file that appears while the page is made is not clobbered
    late = tmp_path / "late.html"
    page = V.to_html

    def racing(*a, **k):
        late.write_text("another writer's")
        return page(*a, **k)
    monkeypatch.setattr(V, "to_html", racing)
    with pytest.raises(ValueError, match="exists"):
        V.write_html(doc, late)
    assert late.read_text() == "another writer's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand.html", "late.html"]


# ------------------------------------------------------------------------ in a real browser

_READ_DOM = """
const cards = (el) => Array.from(el.querySelectorAll('.card')).map((c) => c.dataset.card);
const out = {step: Number(document.getElementById('stepno').dataset.step),
             slider: Number(document.getElementById('slider').value), hands: [], melds: [],
             scores: []};
for (let s = 0; s < 4; s++) out.hands.push(cards(document.getElementById('hand-' + s)));
for (let t = 0; t < 2; t++) {
  out.melds.push(Array.from(document.querySelectorAll('#melds-' + t + ' .meld')).map(cards));
  out.scores.push(Number(document.getElementById('score-' + t).dataset.total));
}
out.pile = cards(document.getElementById('pile'));
out.stock = Number(document.getElementById('stock').textContent);
out.event = document.getElementById('event').textContent;
out.final = !document.getElementById('final').hidden;
out.analysis = document.getElementById('analysis').hidden ? null :
  Array.from(document.querySelectorAll('#analysis-table tr')).map(
    (tr) => Array.from(tr.children).map((c) => c.textContent));
return out;
"""


@pytest.mark.slow
def test_page_in_a_browser(doc, tmp_path, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    ev = doc["events"]
    last = len(ev)
    decision = next(i for i, e in enumerate(ev) if e["type"] == "discard") + 1
    rows = [{"action": f"discard {ev[decision - 1]['card']}", "mean": 3.25},
            {"action": "discard something else", "mean": -1.5}]
    page = tmp_path / "hand.html"
    V.write_html(doc, page, analyses={decision: rows})
    browser.get(page.as_uri())

    def dom():
        return browser.execute_script(_READ_DOM)

    def agrees(k):
        got, want = dom(), expected(doc, k)
        assert got["step"] == k and got["slider"] == k
        assert [sorted(h) for h in got["hands"]] == want["hands"], k
        assert got["pile"] == want["pile"] and got["stock"] == want["stock"], k
        assert [sorted(sorted(m) for m in side) for side in got["melds"]] == want["melds"], k
        assert got["scores"] == want["table"], k
        if k:
            assert f"Turn {ev[k - 1]['turn']}, seat {ev[k - 1]['seat']}" in got["event"] \
                or ev[k - 1]["type"] == "end"
        return got

    agrees(0)
    nxt, prev = browser.find_element(By.ID, "next"), browser.find_element(By.ID, "prev")
    for _ in range(4):
        nxt.click()
    agrees(4)
    prev.click()
    agrees(3)
    body = browser.find_element(By.TAG_NAME, "body")
    ActionChains(browser).move_to_element(body).perform()
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT * (decision - 3)).perform()
    got = agrees(decision)
    assert got["analysis"] == [["action", "mean"], [rows[0]["action"], "3.25"],
                               [rows[1]["action"], "-1.50"]]
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    assert agrees(decision - 1)["analysis"] is None
    slider = browser.find_element(By.ID, "slider")
    ActionChains(browser).move_to_element(slider).click().perform()    # the slider's middle
    middle = dom()["slider"]
    assert 0 < middle < last
    agrees(middle)
    slider.send_keys(Keys.ARROW_RIGHT)                  # one step, not the range's own step too
    agrees(middle + 1)
    slider.send_keys(Keys.END)                          # the range input's own key
    got = agrees(last)
    assert got["final"]
    res = doc["result"]
    for t in (0, 1):
        for key in ("score", "meld_points", "burraco_bonus", "closing_bonus", "hand_points",
                    "pozzetto_penalty"):
            cell = browser.find_element(By.ID, f"final-{key}-{t}")
            assert int(cell.get_attribute("data-value")) == res[f"{key}_t{t}"]
        assert len(got["melds"][t]) == res[f"melds_t{t}"]
        burracos = browser.find_elements(By.CSS_SELECTOR, f"#melds-{t} .meld[data-burraco]")
        assert len(burracos) == res[f"clean_burracos_t{t}"] + res[f"dirty_burracos_t{t}"]
    assert nxt.get_attribute("disabled") and not prev.get_attribute("disabled")
    png = browser.get_screenshot_as_png()
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []

    import matplotlib.image
    import numpy as np
    img = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
    assert img.shape[0] > 500 and img.shape[1] > 1000
    rgb = (img * 255).round().astype(np.int64)
    colours = np.unique(rgb[..., 0] * 65536 + rgb[..., 1] * 256 + rgb[..., 2])
    assert colours.size > 500, colours.size                   # text, cards, felt, badges
    assert (rgb.min(axis=2) < 200).mean() > 0.15             # far from a blank page
    red = (rgb[..., 0] > 150) & (rgb[..., 1] < 80) & (rgb[..., 2] < 90)
    assert red.sum() > 200                                    # the red suits are drawn red

    # the seat view: the other hands face down with their counts
    seat_page = tmp_path / "seat.html"
    V.write_html(doc, seat_page, seat=0)
    browser.get(seat_page.as_uri())
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT * 5).perform()
    got = dom()
    want = expected(doc, 5)
    assert sorted(got["hands"][0]) == want["hands"][0]
    for s in (1, 2, 3):
        assert got["hands"][s] == ["back"] * len(want["hands"][s])
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


@pytest.mark.slow
def test_three_player_page_in_a_browser(tmp_path, browser):
    """A solo_18 hand (R62: two tables become one) stepped through to its end with the
    arrow keys: no error on any step, the merged table hidden, the credited scores shown."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = sim.replay(7, 1, rules=sim.Rules().replace(num_players=3))
    solo = d["result"]["solo_seat"]
    assert solo is not None and solo >= 0
    page = tmp_path / "three.html"
    V.write_html(d, page)
    browser.get(page.as_uri())
    assert len(browser.find_elements(By.CSS_SELECTOR, ".seat")) == 3
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT * len(d["events"])).perform()
    assert browser.find_element(By.ID, "stepno").get_attribute("data-step") == str(len(d["events"]))
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    last = V.table_steps(d)[-1]
    for t in range(3):
        box = browser.find_element(By.ID, f"side-{t}")
        assert box.is_displayed() == (t in last["side_of"])
        cell = browser.find_element(By.ID, f"final-score-{t}")
        assert int(cell.get_attribute("data-value")) == d["result"][f"score_t{t}"]
