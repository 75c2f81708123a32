"""The deal table (sim.deals), runs of selected hands (simulate(hand_index=...), --where)
and hands played from modified decks (sim.deal_features.play_decks); docs/deals.md."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import sim
from kernels.core import cards as C
from sim import deal_features as DF
from sim.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _counts(ids) -> tuple:
    """(jokers, twos, wilds) of card ids, from the card encoding (R1, R12)."""
    ids = np.asarray(ids, np.int64)
    jokers = int((ids % 54 >= 52).sum())
    twos = int(((ids % 54 < 52) & (ids % 54 % 13 == 1)).sum())
    return jokers, twos, jokers + twos


def _longest_run(ids) -> int:
    """Longest run of one suit in ``ids``, the ace low or high, one card per rank (R13):
    written out here apart from the kernel, from the ranks held."""
    best = 0
    for suit in range(4):
        ranks = {int(i % 54 % 13) for i in ids if i % 54 < 52 and i % 54 // 13 == suit}
        ladder = [r in ranks for r in range(13)] + [0 in ranks]      # A 2 .. K A
        for lo, hi in ((0, 13), (1, 14)):                           # one ace: not both ends
            run = 0
            for held in ladder[lo:hi]:
                run = run + 1 if held else 0
                best = max(best, run)
    return best


def _expected_row(d: sim.Deal, rules: sim.Rules) -> dict:
    row = {"dealer": d.dealer, "first_player": d.first_player, "upcard_id": d.discard,
           "upcard": sim.notation.format_card(d.discard)}
    for s, hand in enumerate(d.hands):
        j, t, w = _counts(hand)
        faces = [int(i % 54) for i in hand if i % 54 < 52]
        row.update({f"s{s}_jokers": j, f"s{s}_twos": t, f"s{s}_wilds": w,
                    f"s{s}_pairs": sum(faces.count(f) == 2 for f in set(faces)),
                    f"s{s}_run_len": _longest_run(hand),
                    f"s{s}_points": int(C.VALUE[np.asarray(hand, np.int64)].sum())})
    for k, poz in enumerate(d.pozzetti):
        row.update(dict(zip((f"p{k}_jokers", f"p{k}_twos", f"p{k}_wilds"), _counts(poz))))
    row.update(dict(zip(("stock_jokers", "stock_twos", "stock_wilds"), _counts(d.stock))))
    row["stock_cards"] = len(d.stock)
    return row


def test_hand_zero_of_seed_one_by_hand():
    """Seat 0 of hand 0, seed 1 holds 2♦ 3♦ Q♣ A♦ 10♣ 10♥ 8♠ 9♣ 6♠ JK J♥ and the up-card is
    K♣: one joker and one two (2 wilds), no face twice (10♣ 10♥ differ in suit), the
    longest run A♦ 2♦ 3♦ (3; clubs 9♣ 10♣ stop at the missing J♣), and 20+5+10+15+10+10+
    10+10+5+30+10 = 135 points (R2)."""
    assert sim.notation.format(sim.deal(1, 0).hands[0]) == "2♦ 3♦ Q♣ A♦ 10♣ 10♥ 8♠ 9♣ 6♠ JK J♥"
    row = sim.deals(1, 1).iloc[0]
    assert (row.s0_jokers, row.s0_twos, row.s0_wilds, row.s0_pairs, row.s0_run_len,
            row.s0_points) == (1, 1, 2, 0, 3, 135)
    assert (row.upcard, row.upcard_id, bool(row.upcard_wild)) == ("K♣", 12, False)


@pytest.mark.parametrize("rules", ["default", sim.Rules(num_players=2),
                                   sim.Rules(num_players=3),
                                   sim.Rules(num_players=3, three_player_mode="individual_3x11")],
                         ids=["4p", "2p", "3p-solo18", "3p-3x11"])
def test_rows_match_the_dealt_hands(rules):
    """Every column of a few rows against the cards sim.deal hands out (the deal of
    Game.new and simulate), counted here in Python."""
    r = sim.Rules.preset(rules) if isinstance(rules, str) else rules
    table = sim.deals(7, 6, rules=r, first=1000)
    assert table["hand_index"].tolist() == list(range(1000, 1006))
    for _, row in table.iterrows():
        d = sim.deal(7, int(row.hand_index), rules=r)
        for key, want in _expected_row(d, r).items():
            assert row[key] == want, (key, int(row.hand_index))
    n = r.num_players
    assert {c for c in table.columns if c.startswith("s") and c[1].isdigit()} == {
        f"s{s}_{k}" for s in range(n) for k in sim.core.deal_features._SEAT}
    assert (f"p{len(sim.deal(7, 0, rules=r).pozzetti)}_jokers" not in table.columns)
    assert ("t0_jokers" in table.columns) == (n != 3)
    if n == 4:
        game = sim.Game.new(7, 1003, rules=r)       # the hands the step API deals
        obs = game.observation(0)
        assert table.iloc[3].s0_jokers == obs.hand.count("JK")
        assert table.iloc[3].upcard == obs.pile[0]


def test_invariants_over_many_deals():
    """Over 20,000 deals: 4 jokers and 8 twos in all (R1), 108 cards, team columns are
    the seats' sums, the first player follows the dealer, every dealer seat occurs."""
    t = sim.deals(11, 20_000)
    places = ["s0", "s1", "s2", "s3", "p0", "p1", "stock"]
    up_joker = (t.upcard_id.to_numpy() % 54 >= 52).astype(int)
    up_two = ((t.upcard_id.to_numpy() % 54 < 52) & (t.upcard_id.to_numpy() % 54 % 13 == 1))
    jokers = sum(t[f"{p}_jokers"].astype(int) for p in places) + up_joker
    twos = sum(t[f"{p}_twos"].astype(int) for p in places) + up_two.astype(int)
    assert (jokers == 4).all() and (twos == 8).all()
    assert (sum(t[f"{p}_wilds"].astype(int) for p in places) + up_joker + up_two == 12).all()
    assert (t.stock_cards == 41).all() and 4 * 11 + 2 * 11 + 1 + 41 == 108
    assert (t.upcard_wild == (up_joker.astype(bool) | up_two)).all()
    for k in ("jokers", "twos", "wilds"):
        assert (t[f"t0_{k}"] == t[f"s0_{k}"] + t[f"s2_{k}"]).all()
        assert (t[f"t1_{k}"] == t[f"s1_{k}"] + t[f"s3_{k}"]).all()
    assert ((t.dealer + 1) % 4 == t.first_player).all()
    assert sorted(t.dealer.unique()) == [0, 1, 2, 3]
    for s in range(4):
        assert t[f"s{s}_run_len"].between(1, 11).all() and t[f"s{s}_pairs"].between(0, 5).all()
        assert (t[f"s{s}_wilds"] == t[f"s{s}_jokers"] + t[f"s{s}_twos"]).all()
    # the mean jokers per seat is 4 * 11 / 108 (every place equally likely for a card)
    assert abs(t.s0_jokers.mean() - 44 / 108) < 0.03
    assert set(t.columns) <= set(DF.COLUMNS)
    # the table does not depend on the blocks it is dealt in
    assert t.iloc[5000:5010].reset_index(drop=True).equals(sim.deals(11, 10, first=5000))


def test_longest_run_ace_low_or_high():
    """J♠ Q♠ K♠ A♠ 2♠ 3♠ with one ace: Q-K-A of 4 (J Q K A) beats A-2-3; the ace is not
    both low and high (R13), so it is 4, not 6."""
    hand = sim.notation.parse("J♠ Q♠ K♠ A♠ 2♠ 3♠ 5♥ 7♥ 9♣ 9♣ 4♦")
    deck = [int(c) for c in hand] + [i for i in range(108) if i not in set(hand.tolist())]
    row = DF.deck_features(np.array([deck]), [0]).iloc[0]
    assert (row.s0_run_len, row.s0_pairs, row.s0_twos, row.s0_jokers) == (4, 1, 1, 0)


def test_decks_and_play_decks_give_the_simulated_hands():
    """The decks of decks() have the features of deals(); played unchanged by play_decks
    they give the records of simulate; with the jokers of seat 0 swapped into the stock
    the features move with them and the hand is another hand."""
    idx = np.arange(0, 200, 2)
    decks, dealers = DF.decks(5, idx)
    assert (np.sort(decks, axis=1) == np.arange(108)).all()
    feats = DF.deck_features(decks, dealers).drop(columns="hand_index")
    want = sim.deals(5, 200).iloc[idx].reset_index(drop=True).drop(columns="hand_index")
    assert feats.equals(want)
    played = DF.play_decks(5, idx, decks)
    full = sim.simulate(200, 5)
    cols = [c for c in full.columns if c != "run_id"]
    assert played[cols].equals(full.iloc[idx].reset_index(drop=True)[cols])
    moved = decks.copy()
    changed = 0
    for row in moved:
        hand = np.flatnonzero(row[:11] % 54 >= 52)
        natural = np.flatnonzero(row[67:] % 54 < 52)[:len(hand)] + 67
        row[hand], row[natural] = row[natural].copy(), row[hand].copy()
        changed += len(hand) > 0
    mf = DF.deck_features(moved, dealers)
    assert (mf.s0_jokers == 0).all()
    assert (mf.stock_jokers == want.stock_jokers + want.s0_jokers).all()
    again = DF.play_decks(5, idx, moved)
    assert (again.dealer.to_numpy() == full.dealer.to_numpy()[idx]).all()
    assert (again.error == 0).all()
    assert (again.score_t0.to_numpy() != full.score_t0.to_numpy()[idx]).sum() > changed // 2
    bad = decks.copy()
    bad[3, 0] = bad[3, 1]
    with pytest.raises(ValueError, match="decks: row 3 is not a permutation"):
        DF.play_decks(5, idx, bad)


@pytest.mark.parametrize("rules", ["default", "fibur_international"])
def test_selected_hands_equal_the_full_run(rules):
    """simulate(hand_index=...) plays each hand as the full run does: every column but
    run_id equal, in hand order, given in any order; where= selects the same hands."""
    full = sim.simulate(300, 21, rules=rules)
    table = sim.deals(21, 300, rules=rules)
    idx = table.query("t0_wilds >= 4 or upcard_wild")["hand_index"].to_numpy()
    assert 10 < len(idx) < 290
    part = sim.simulate(300, 21, rules=rules, hand_index=idx[::-1].copy())
    cols = [c for c in full.columns if c != "run_id"]
    assert part[cols].equals(full.iloc[idx].reset_index(drop=True)[cols])
    assert part.run_id.iloc[0] != full.run_id.iloc[0]
    by_where = sim.simulate(300, 21, rules=rules, where="t0_wilds >= 4 or upcard_wild")
    assert by_where[cols].equals(part[cols])


def test_bad_selections_are_refused():
    with pytest.raises(ValueError, match="hand_index: 300 is not a hand of the run"):
        sim.simulate(300, 1, hand_index=[1, 300])
    with pytest.raises(ValueError, match="hand_index: hand 4 is given twice"):
        sim.simulate(300, 1, hand_index=[4, 2, 4])
    with pytest.raises(ValueError, match="non-empty 1-D array"):
        sim.simulate(300, 1, hand_index=[])
    with pytest.raises(ValueError, match="where: 's0_jokers > 4' selects none of hands 0..299"):
        sim.simulate(300, 1, where="s0_jokers > 4")
    with pytest.raises(ValueError, match="where: cannot evaluate 'jokers >= 1'.*s0_jokers"):
        sim.simulate(300, 1, where="jokers >= 1")
    py = ROOT / "docs" / "examples" / "pile_taker.py"
    with pytest.raises(ValueError, match="Python strategy"):
        sim.simulate(10, 1, strategies=f"{py}:PileTaker", hand_index=[1, 2])


def _snapshot(directory: Path) -> dict:
    return {os.fspath(p.relative_to(directory)): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file() and p.name != ".burraco.lock"}


def test_selected_run_directory_resumes_and_is_never_mixed(tmp_path):
    """A selected run in DIR: shards of hand ranges holding the selected hands (an empty
    file for a range with none), read back as the in-memory run, resumed, and refused
    to a full run, to another selection and to an extension; a full run's DIR is refused
    to a selected run.  A refusal changes no file."""
    sel, full_dir = tmp_path / "sel", tmp_path / "full"
    idx = [3, 5, 150, 151, 299]
    mem = sim.simulate(300, 9, hand_index=idx)
    sim.simulate(300, 9, hand_index=idx, out=sel, shard_size=100, return_frame=False)
    names = sorted(os.listdir(sel / "hands"))
    assert names == [f"shard-{a:012d}-{a + 100:012d}.parquet" for a in (0, 100, 200)]
    assert [len(sim.load(sel, filter=[("hand_index", ">=", a), ("hand_index", "<", a + 100)]))
            for a in (0, 100, 200)] == [2, 2, 1]
    assert sim.load(sel).equals(mem)
    manifest = json.loads((sel / "_manifest.json").read_text())
    assert manifest["config"]["selection"]["hands"] == 5
    assert manifest["config"]["selection"]["where"] is None
    status = sim.check_run(sel)
    assert status.complete and status.hands_total == 5 and status.hands_done == 5
    (sel / "hands" / names[1]).unlink()                      # interrupted: resumed
    assert sim.simulate(300, 9, hand_index=idx, out=sel).equals(mem)
    before = _snapshot(sel)
    for kwargs, why in [({}, "holds a run of selected hands"),
                        ({"hand_index": [3, 5]}, "differs in: selection"),
                        ({"where": "s0_jokers >= 1"}, "differs in: selection")]:
        with pytest.raises(ValueError, match=why):
            sim.simulate(300, 9, out=sel, **kwargs)
        assert _snapshot(sel) == before
    with pytest.raises(ValueError, match="never extended"):
        sim.simulate(600, 9, hand_index=idx, out=sel)
    assert _snapshot(sel) == before
    sim.simulate(300, 9, out=full_dir, return_frame=False)
    before = _snapshot(full_dir)
    with pytest.raises(ValueError, match="a selected run .* is never mixed with a full one"):
        sim.simulate(300, 9, hand_index=idx, out=full_dir)
    assert _snapshot(full_dir) == before
    # a shard of the full run copied into the selected run is another run's: refused, kept
    (sel / "hands" / names[0]).write_bytes((full_dir / "hands" / (
        "shard-000000000000-000000000300.parquet")).read_bytes())
    assert "another run" in sim.check_run(sel).corrupt[names[0]]
    before = _snapshot(sel)
    with pytest.raises(ValueError, match="a shard of another run"):
        sim.simulate(300, 9, hand_index=idx, out=sel)
    assert _snapshot(sel) == before


def test_cli_where(tmp_path, capsys):
    out = tmp_path / "w"
    args = ["simulate", "--hands", "300", "--seed", "4", "--out", str(out), "--quiet"]
    assert main(args + ["--where", "s0_jokers + s2_jokers >= 2"]) == 0
    text = capsys.readouterr().out
    want = sim.deals(4, 300).query("s0_jokers + s2_jokers >= 2")["hand_index"].to_numpy()
    assert f"selected {len(want):,} of 300 hands" in text
    assert (sim.load(out)["hand_index"].to_numpy() == want).all()
    assert main(["simulate", "--out", str(out), "--quiet"]) == 0       # resumes, --where kept
    assert "(all read back" in capsys.readouterr().out
    for where in ("s9_jokers >= 1", "s0_jokers >=", "s0_jokers + 1"):
        assert main(["simulate", "--hands", "300", "--seed", "4", "--out", str(tmp_path / "x"),
                     "--where", where]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("burraco: error: --where") and "s0_jokers, s0_twos" in err
        assert len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()
    assert main(["simulate", "--matches", "3", "--seed", "4", "--out", str(tmp_path / "m"),
                 "--where", "s0_jokers >= 1"]) == 2
    assert "--where selects hands of a hand run" in capsys.readouterr().err
    assert main(["simulate", "--hands", "300", "--seed", "4", "--out", str(out), "--where",
                 "s0_jokers >= 1"]) == 2                    # another selection: refused
    assert "differs in: selection" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert "--where EXPR" in capsys.readouterr().out


def test_docs_list_every_column():
    text = (ROOT / "docs" / "deals.md").read_text()
    for name in DF.COLUMNS:
        generic = name.replace(name[1], "N", 1) if name[0] in "spt" and name[1].isdigit() \
            else name
        assert f"`{generic}`" in text, name
