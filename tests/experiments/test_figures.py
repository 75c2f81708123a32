"""python -m sim.figures: the strategy questions' figures as small PNG files (docs/questions.md).

A tiny run (2,000 hands, two figures) into a temporary directory: valid PNGs of the stated
size under the size limit, figures.json matching the files and the sim functions' own
answers, plain-word labels, one-line errors; and the committed docs/figures: every PNG
small, listed in figures.json, shown in the docs beside its answer.
"""
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

import sim                                   # noqa: E402
from sim import figures as F                 # noqa: E402
from sim.strategies import STRATEGIES        # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "figures"
HANDS = 2000
ONLY = ["first_player", "close_or_build"]


def png_size(data: bytes) -> tuple:
    """(width, height) of a PNG from its IHDR chunk; AssertionError if it is not a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def raw_codes(text: str) -> list:
    """Parameter codes in a label: strategy parameter and rule option names, preset names,
    ``name=value`` and the notebooks' ``min len 99`` style."""
    names = {p for s in STRATEGIES.values() for p in s.params} | set(sim.Rules.options())
    names |= {"fibur_italian", "fibur_international", "individual_3x11", "solo_18"}
    found = [n for n in names if n in text]
    found += re.findall(r"\w+=\S*|\bmin len\b|\b[a-z]+_[a-z0-9_]+\b", text)
    return found


def one_sentence(text: str) -> bool:
    """One sentence: it ends with a full stop and no sentence ends inside it."""
    return text.endswith(".") and not re.search(r"[.!?]\s+[A-Z]", text)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    argv = ["--out", str(out), "--hands", str(HANDS), "--only", ",".join(ONLY)]
    code = F.main(argv)
    assert code == 0
    return out


def test_tiny_run_writes_small_pngs_of_the_stated_size(tiny):
    pngs = sorted(p.name for p in tiny.glob("*.png"))
    assert pngs == sorted(f"{n}.png" for n in ONLY)
    for name in pngs:
        data = (tiny / name).read_bytes()
        assert png_size(data) == F.SIZE == (800, 450)
        assert 2_000 < len(data) <= F.MAX_BYTES, (name, len(data))
    assert not [p.name for p in tiny.iterdir() if p.name.endswith(".tmp")]


def test_index_lists_the_files_with_command_hands_seed_and_answer(tiny):
    doc = json.loads((tiny / F.INDEX).read_text())
    entries = doc["figures"]
    assert [e["name"] for e in entries] == ONLY
    assert {e["file"] for e in entries} == {p.name for p in tiny.glob("*.png")}
    for e in entries:
        spec = F.FIGURES[e["name"]]
        assert e["hands"] == HANDS and e["seed"] == spec.seed
        assert e["command"] == f"python -m sim.figures --only {e['name']} --hands {HANDS} " \
                               f"--seed {spec.seed}"
        assert e["question"] == spec.question and e["source"] == spec.source
        assert e["bytes"] == (tiny / e["file"]).stat().st_size
        assert "95% interval" in e["answer"] and f"{HANDS:,}" in e["answer"]
        assert one_sentence(e["answer"]), e["answer"]


def test_answers_are_those_of_the_sim_functions(tiny):
    """The figure's numbers are sim.compare's and the notebook's, on the same deals."""
    by = {e["name"]: e for e in json.loads((tiny / F.INDEX).read_text())["figures"]}
    row = sim.compare("expert:close_min_burracos=2", "expert", hands=HANDS,
                      seed=F.FIGURES["close_or_build"].seed).iloc[0]
    assert (f"by {row.mean_diff:+.1f} points per hand (95% interval {row.ci95_low:+.1f} .. "
            f"{row.ci95_high:+.1f}, {HANDS:,} deals)") in by["close_or_build"]["answer"]
    df = sim.simulate(HANDS, F.FIGURES["first_player"].seed, "expert")
    d = df.score_t0 - df.score_t1
    diff = d.where(df.first_player % 2 == 0, -d)
    assert f"worth {diff.mean():+.1f} points per hand" in by["first_player"]["answer"]


def test_labels_are_plain_words(tiny):
    for e in json.loads((tiny / F.INDEX).read_text())["figures"]:
        assert e["question"] in e["labels"]                 # the title is the question
        assert any("seed" in t and f"{HANDS:,}" in t for t in e["labels"])   # the footer
        for text in e["labels"]:
            assert not raw_codes(text), (e["name"], text)
    assert "close at once" in next(e for e in json.loads((tiny / F.INDEX).read_text())[
        "figures"] if e["name"] == "close_or_build")["labels"]


def test_label_function_has_no_parameter_codes():
    labels = [F.point_label("pile_min_size", k) for k in F.PILE_SIZES]
    labels += [F.point_label("close_min_burracos", k) for k in F.CLOSE_BURRACOS]
    labels += [F.clean_label(a, b) for a in F.CLEAN_GRID["wild_layoff_min_len"]
               for b in F.CLEAN_GRID["use_wild_to_meld"]]
    labels += [label for _preset, _extra, label in F.RULE_SETS]
    assert len(set(labels)) == len(labels)
    for text in labels:
        assert not raw_codes(text), text
    assert F.point_label("close_min_burracos", 1) == "close at once"
    assert F.point_label("close_min_burracos", 2) == "wait for a 2nd burraco"
    assert F.point_label("pile_min_size", 4) == "refuse piles of fewer than 4 cards"
    assert F.clean_label(99, 0).startswith("chase the clean burraco")
    assert raw_codes("min len 99, open with wild 0") and raw_codes("wild_layoff_min_len 99")
    with pytest.raises(ValueError, match="point_label: no label for set_bias=1"):
        F.point_label("set_bias", 1)


def test_a_later_only_run_keeps_the_other_entries(tiny, tmp_path):
    out = tmp_path / "more"
    out.mkdir()
    for p in tiny.iterdir():
        (out / p.name).write_bytes(p.read_bytes())
    (out / "close_or_build.png").unlink()             # its entry goes with its file
    assert F.main(["--out", str(out), "--hands", "1000", "--seed", "9",
                   "--only", "hand_length"]) == 0
    entries = json.loads((out / F.INDEX).read_text())["figures"]
    assert [e["name"] for e in entries] == ["first_player", "hand_length"]
    assert {e["file"] for e in entries} == {p.name for p in out.glob("*.png")}
    assert entries[0]["hands"] == HANDS and entries[1]["hands"] == 1000
    assert entries[1]["seed"] == 9 and entries[1]["command"].endswith("--hands 1000 --seed 9")


def test_another_player_answers_the_same_questions(tmp_path, monkeypatch):
    """``--player learned``: every run plays the player on every seat (the sweeps' variants
    are the player's: ``learned:close_min_burracos=2`` against ``learned``); the answers,
    figures.json and the command name it; the default directory is the player's own."""
    monkeypatch.chdir(tmp_path)
    argv = ["--hands", "1000", "--only", "first_player,close_or_build,clean_or_dirty",
            "--player", "learned"]
    assert F.main(argv) == 0
    player = sim.strategies.canonical_name("learned")            # learned:model=vN
    out = tmp_path / F.player_dir(player)
    assert out == tmp_path / "docs" / "figures" / player.replace(":", "_").replace("=", "_")
    by = {e["name"]: e for e in json.loads((out / F.INDEX).read_text())["figures"]}
    assert set(by) == {"first_player", "close_or_build", "clean_or_dirty"}
    version = player.rsplit("=", 1)[1]
    for e in by.values():
        assert e["player"] == player and f"--player {player}" in e["command"]
        assert f"learned {version} play" in e["answer"] and one_sentence(e["answer"])
    row = sim.compare("learned:close_min_burracos=2", "learned", hands=1000,
                      seed=F.FIGURES["close_or_build"].seed).iloc[0]
    assert f"by {row.mean_diff:+.1f} points per hand" in by["close_or_build"]["answer"]
    # chasing the clean burraco against the player accepting dirty ones (expert's
    # parameters, and so learned's, keep wilds off clean melds: not the plain player)
    row = sim.compare("learned:use_wild_to_meld=0,wild_layoff_min_len=99",
                      "learned:wild_layoff_min_len=6,use_wild_to_meld=1", hands=1000,
                      seed=F.FIGURES["clean_or_dirty"].seed).iloc[0]
    assert f"by {row.mean_diff:+.1f} points per hand" in by["clean_or_dirty"]["answer"]
    assert by["clean_or_dirty"]["strategy"] == \
        f"learned {version} variants, against learned {version} accepting dirty burracos"
    for e in by.values():                     # the footers say the player in plain words
        for text in e["labels"]:
            assert not raw_codes(text), (e["name"], text)
    df = sim.simulate(1000, F.FIGURES["first_player"].seed, "learned")
    d = df.score_t0 - df.score_t1
    diff = d.where(df.first_player % 2 == 0, -d)
    assert f"worth {diff.mean():+.1f} points per hand" in by["first_player"]["answer"]
    assert F.player_dir("expert") == "docs/figures"


@pytest.mark.parametrize("argv, needle", [
    (["--player", "nosuch"], "--player: strategy: unknown name 'nosuch'; allowed: "),
    (["--only", "first_player,bogus"], "--only: unknown figure 'bogus'; allowed: "
     + ", ".join(F.NAMES)),
    (["--hands", "10"], f"--hands must be at least {F.MIN_HANDS}, got 10"),
    (["--seed", "-1"], "--seed must be in 0 .. 2**64-1, got -1"),
    (["--threads", "0"], "--threads must be in 1 .."),
], ids=["player", "only", "hands", "seed", "threads"])
def test_bad_input_is_one_line_exit_2(argv, needle, tmp_path, capsys):
    assert F.main(["--out", str(tmp_path / "f"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("figures: error: ") and needle in err
    assert not (tmp_path / "f").exists()


def test_bad_only_from_the_command_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sim.figures", "--out", str(tmp_path),
                        "--only", "nope"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == ["figures: error: --only: unknown figure 'nope'; allowed: "
                                     + ", ".join(F.NAMES)]


def test_missing_matplotlib_is_one_line_exit_2(monkeypatch, tmp_path, capsys):
    real = F.importlib.util.find_spec
    monkeypatch.setattr(F.importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    assert F.main(["--out", str(tmp_path / "f"), "--only", "first_player"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "matplotlib is not installed" in err and "[figures]" in err


def test_figures_extra_in_pyproject():
    import tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert extras["figures"] == ["matplotlib>=3.7"] and "matplotlib>=3.7" in extras["dev"]


# ------------------------------------------------------------- the committed figures
def committed() -> list:
    return sorted(COMMITTED.glob("*.png"))


def test_committed_figures_are_small_and_listed():
    pngs = committed()
    assert {p.stem for p in pngs} == set(F.NAMES), "run python -m sim.figures"
    for p in pngs:
        data = p.read_bytes()
        assert png_size(data) == F.SIZE and len(data) <= F.MAX_BYTES, p.name
    entries = json.loads((COMMITTED / F.INDEX).read_text())["figures"]
    assert [e["file"] for e in entries] == [f"{n}.png" for n in F.NAMES]
    for e in entries:
        if not F.FIGURES[e["name"]].needs:      # the committed run is the default one
            assert e["hands"] == F.FIGURES[e["name"]].hands, e["name"]
        assert one_sentence(e["answer"]) and "95% interval" in e["answer"], e["answer"]
        for text in e["labels"]:
            assert not raw_codes(text), (e["name"], text)


def test_committed_figures_are_shown_beside_their_answers():
    readme = (ROOT / "README.md").read_text()
    questions = " ".join((ROOT / "docs" / "questions.md").read_text().split())   # unwrapped
    notebooks = " ".join((ROOT / "notebooks" / "README.md").read_text().split())
    for p in committed():
        assert f"(figures/{p.name})" in questions or f"(docs/figures/{p.name})" in readme, \
            p.name
    assert readme.count("](docs/figures/") == 1            # one headline figure
    for e in json.loads((COMMITTED / F.INDEX).read_text())["figures"]:
        assert e["answer"] in questions, f"docs/questions.md lacks the answer of {e['name']}"
        assert e["command"] in questions or e["name"] == "summary"
        if e["source"].startswith("notebooks/"):
            assert f"(../docs/figures/{e['file']})" in notebooks, e["name"]
            assert e["answer"] in notebooks, e["name"]
    for target in re.findall(r"\]\((\.\./docs/figures/[^)]+)\)", notebooks):
        assert (ROOT / "notebooks" / target).is_file(), target


def test_the_strong_play_figures_are_committed_small_and_shown_beside_their_answers():
    """``python -m sim.figures --player learned``: the same nine figures for the shipped
    model on every seat, each small, listed, at its default size, its answer naming the
    player and shown in docs/questions.md beside the figure."""
    player = sim.strategies.canonical_name("learned")
    strong = ROOT / F.player_dir(player)
    assert strong.is_dir(), f"run python -m sim.figures --player learned ({player})"
    pngs = sorted(strong.glob("*.png"))
    assert {p.stem for p in pngs} == set(F.NAMES)
    questions = " ".join((ROOT / "docs" / "questions.md").read_text().split())
    rel = strong.relative_to(ROOT / "docs")
    for p in pngs:
        data = p.read_bytes()
        assert png_size(data) == F.SIZE and len(data) <= F.MAX_BYTES, p.name
        assert f"({rel.as_posix()}/{p.name})" in questions, p.name
    entries = json.loads((strong / F.INDEX).read_text())["figures"]
    assert [e["file"] for e in entries] == [f"{n}.png" for n in F.NAMES]
    who = f"learned {player.rsplit('=', 1)[1]}"
    for e in entries:
        # the rule sets' figure lets each rule set pick the model: its command says learned
        given = "learned" if e["name"] == "rule_sets" else player
        assert e["player"] == player and f"--player {given} " in e["command"] + " "
        if e["name"] == "rule_sets":
            assert "learned Fibur International v1 under Fibur International" in e["answer"]
        if not F.FIGURES[e["name"]].needs:
            assert e["hands"] == F.FIGURES[e["name"]].hands, e["name"]
            assert who in e["answer"], e["answer"]
        assert one_sentence(e["answer"]) and "95% interval" in e["answer"], e["answer"]
        assert e["answer"] in questions, f"docs/questions.md lacks the strong answer of {e['name']}"
        for text in e["labels"]:
            assert not raw_codes(text), (e["name"], text)



def test_the_rule_sets_figure_lets_each_rule_set_pick_learneds_model():
    """With ``--player learned`` the rule sets' figure plays, under Fibur International, the
    model trained there (as ``sim.simulate(..., "learned", rules=...)`` does), and its answer
    and footer say so; with the model named, that model plays everywhere."""
    from sim.figures import questions as FQ
    lines = []
    ctx = FQ._Ctx(2, lines.append, player="learned:model=v3", given="learned")
    made = FQ._rule_sets(200, 1, ctx)
    others = ("learned Fibur International v1 under Fibur International, learned Three "
              "Players v1 under three players, partners after pozzetto A")
    assert made.answer.endswith(f"(200 hands per rule set, learned v3 play, {others}).")
    assert made.strategy == f"learned v3, {others} on every seat"
    fi = sim.simulate(200, 1, "learned", rules=sim.Rules.preset("fibur_international"))
    assert made.data["rows"][2][1][0] == pytest.approx(
        (fi["score_t0"].mean() + fi["score_t1"].mean()) / 2)
    named = FQ._rule_sets(200, 1, FQ._Ctx(2, lines.append, player="learned:model=v3",
                                          given="learned:model=v3"))
    assert "Fibur International v1" not in named.answer + named.strategy


def test_the_rule_sets_figures_command_keeps_the_player_as_given(tmp_path):
    """figures.json names the player exactly, and the command that redraws the rule sets'
    figure gives ``--player learned`` (``learned:model=v3`` would play v3 under Fibur
    International too)."""
    assert F.main(["--hands", "1000", "--only", "rule_sets", "--player", "learned",
                   "--out", str(tmp_path), "--threads", "2"]) == 0
    [e] = json.loads((tmp_path / F.INDEX).read_text())["figures"]
    assert e["player"] == "learned:model=v3"
    assert e["command"] == ("python -m sim.figures --only rule_sets --player learned "
                            "--hands 1000 --seed 2026")


def test_two_jokers_answer_is_the_paired_function_on_the_selected_deals():
    """Question (g) at 1,000 deals of expert: the deals selected are those dealing seat 0
    exactly two jokers, the unpaired margin is the runs' own, and the paired answers are
    :func:`two_jokers_paired` on those deals (as the search's benchmark computes them)."""
    from sim.figures import questions as FQ
    ctx = FQ._Ctx(2, lambda line: None)
    made = FQ._two_jokers(1000, 14, ctx)
    deals = sim.deals(14, 1000)
    idx = deals.index[deals["s0_jokers"] == 2].to_numpy()
    assert made.data["selected"] == len(idx) > 20
    df = sim.simulate(1000, 14, "expert")
    margin = (df["score_t0"] - df["score_t1"]).to_numpy()[idx]
    assert made.data["by_jokers"][2][1] == pytest.approx(margin.mean())
    again = FQ.two_jokers_paired(14, idx, "expert", threads=1)
    assert again == made.data["paired"]
    m, lo, hi = again["stock"]
    assert lo < m < hi and made.answer.startswith(f"Holding two jokers is worth {m:+.1f} points")
