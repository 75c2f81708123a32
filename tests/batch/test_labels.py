"""Label runs (burraco label, sim.batch.labels, docs/labels.md): every stored value equals what
the search computes when its position is searched again, the observation is the step API's,
the chosen action follows from the stored values, the hands are simulate's hands, the label
seeds are apart, and the run directory resumes, refuses a second writer and another run, and
gives the same rows with the Dask executor."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from kernels.core import layout as L
from kernels.core.rng import next_u64
from kernels.engine.actions import A_CREATE_SEL, PH_DISCARD, PH_PICKUP, create_action
from kernels.engine.observe import TENSOR_SIZE
from kernels.search import player as KP
from kernels.search.rollouts import ROLL_WORDS, rollouts
from kernels.strategies.choosers import heuristic_chooser
from kernels.table import work as KW
from kernels.table.state import G_PHASE
from sim._util.lock import LockedError
from sim.batch import executors, labels
from sim.batch.labels import LABEL_HAND_OFFSET, LABEL_SCHEMA, label_hands, label_run, load_labels
from sim.cli import main
from sim.core.rules import Rules
from sim.play.game import Game
from sim.strategies import resolve_seats

ROOT = Path(__file__).resolve().parents[2]
FLAT = "rollout:halving=0,worlds=6,rollouts=30"
HALVING = "rollout:halving=1,worlds=8,rollouts=30"
SEED = 7


def _params(spec):
    _full, vec = labels.full_spec(spec)
    return np.tile(vec, (4, 1))


@pytest.fixture(scope="module")
def labelled():
    """Hands 0..1 of label seed SEED with each teacher: ``{spec: (records, table)}``."""
    return {spec: label_hands(SEED, range(2), Rules().to_vector(), _params(spec))
            for spec in (FLAT, HALVING)}


def _rows(table, hand):
    return [r for r in table.to_pylist() if r["hand"] == hand]


def _search_again(game: Game, cand: list, worlds: list) -> tuple:
    """Each candidate's mean result and standard error, recomputed from the rollouts of
    ``kernels.search.rollouts.rollouts`` (analyze's) on the worlds the search deals here:
    the hidden cards laid out canonically, the worlds' seed the next draw of the hand's
    generator, the base policy (the seat's parameter row) on every seat."""
    work = game._work
    seat = game.current_seat
    seed = next_u64(work[KW.W_RNG:KW.W_RNG + 4].view(np.uint64).copy())
    src = np.zeros(KW.work_words(0, 0), np.int64)
    src[:ROLL_WORDS] = work[:ROLL_WORDS]
    src[KW.W_EV_ROWS] = src[KW.W_EV_CARDS] = 0
    KP.canonical_hidden(src, seat)
    row = work[KW.W_PARAMS:KW.W_PARAMS + 4 * L.N_PARAMS].view(np.float64).reshape(4, -1)[seat]
    n = max(worlds)
    acts = np.array(cand, np.int64)
    result, own, closed, error = (np.zeros((n, len(cand)), np.int64) for _ in range(4))
    rollouts(src, seat, acts, seed, 0, n, np.full(4, L.POLICY_HEURISTIC, np.int64),
             np.tile(row, (4, 1)), 0, ROLL_WORDS,
             np.zeros((1, 2, KW.work_words(0, 0)), np.int64), result, own, closed, error)
    assert not error.any()
    means = [result[:w, c].mean() for c, w in enumerate(worlds)]
    ses = [result[:w, c].std(ddof=1) / np.sqrt(w) if w >= 2 else np.nan
           for c, w in enumerate(worlds)]
    return np.array(means), np.array(ses)


def _base_choice(game: Game) -> int:
    w = game._work.copy()
    a = int(heuristic_chooser(w))
    return int(create_action(w[KW.W_SEL:KW.W_SEL + 53])) if a == A_CREATE_SEL else a


@pytest.mark.parametrize("spec", [FLAT, HALVING])
def test_stored_values_are_what_the_search_computes_here(labelled, spec):
    """Hand 1 rebuilt with the step API: at each labelled decision the stored observation is
    Game.observation_tensor, the candidates start with the base policy's choice and are
    legal, the means / SEs / worlds are those of the rollouts of that position, and the step
    API's search there plays the stored action."""
    rec, table = labelled[spec]
    rows = _rows(table, 1)
    assert rows
    game = Game.new(SEED, LABEL_HAND_OFFSET + 1, strategies=spec)
    k = 0
    while not game.is_over:
        row = rows[k] if k < len(rows) else None
        here = row is not None and row["turn"] == game.turn and row["seat"] == game.current_seat \
            and row["phase"] == int(game._g[G_PHASE])
        if here:
            seat = row["seat"]
            obs = np.zeros(TENSOR_SIZE, np.float32)
            obs[np.array(row["obs_index"], np.int64)] = row["obs_value"]
            assert np.array_equal(obs, game.observation_tensor(seat))
            assert list(row["obs_index"]) == sorted(row["obs_index"])
            cand = row["candidates"]
            assert cand[0] == _base_choice(game)
            assert set(cand) <= set(game.legal_actions()) and len(set(cand)) == len(cand)
            means, ses = _search_again(game, cand, row["worlds"])
            np.testing.assert_allclose(row["mean"], means.astype(np.float32), rtol=1e-6)
            np.testing.assert_allclose(row["se"], ses.astype(np.float32), rtol=1e-5)
            a = game.choose()                  # the strategy itself, through its C callback
            assert a == row["chosen"]
            k += 1
        else:
            a = game.choose()
        game.apply(a)
    assert k == len(rows)                      # every row met, in order
    assert np.array_equal(game._record(), rec[1])


def _picked(row, halving):
    mean, worlds = np.array(row["mean"], np.float64), np.array(row["worlds"])
    if halving:                               # the last round's survivors: the most worlds
        mean = np.where(worlds == worlds.max(), mean, -np.inf)
    return row["candidates"][int(np.argmax(mean))]    # ties: the first (the prior's order)


@pytest.mark.parametrize("spec", [FLAT, HALVING])
def test_chosen_follows_from_the_stored_values(labelled, spec):
    rec, table = labelled[spec]
    rows = table.to_pylist()
    assert len(rows) > 20
    budget, cap = 30, (6 if spec == FLAT else 8)
    for row in rows:
        assert row["chosen"] == _picked(row, spec == HALVING)
        m = len(row["candidates"])
        assert 2 <= m <= 12 and all(len(row[c]) == m for c in ("mean", "se", "worlds"))
        if spec == FLAT:
            assert row["worlds"] == [min(cap, budget // m)] * m
        else:
            ends = np.zeros(KP.MAX_ROUNDS, np.int64)
            rounds, cost = KP.halving_schedule(m, budget, cap, ends)
            assert set(row["worlds"]) <= set(ends[:rounds].tolist())
            assert sum(row["worlds"]) == cost and row["worlds"][0] >= 1
    assert {r["phase"] for r in rows} == {PH_PICKUP, PH_DISCARD}   # the searched decisions


def test_label_hands_are_simulates_hands():
    """With the offset 0 the label kernel plays simulate's hands: the same records as the
    batch kernel with the rollout strategy on every seat (one implementation of the rules)."""
    names, kinds, params, _py = resolve_seats(FLAT)
    rv = Rules().to_vector()
    rec, table = label_hands(SEED, range(3), rv, _params(FLAT), offset=0)
    ref = executors._records(SEED, 0, 3, rv, kinds, params, False)
    assert np.array_equal(rec, ref)
    assert table.num_rows and table.column("hand").to_pylist() == sorted(
        table.column("hand").to_pylist())


def test_label_seeds_are_apart_from_evaluation_seeds(labelled, tmp_path):
    """Label hand i of seed S is not hand i of simulate --seed S: another deal (every hand
    index an evaluation deals is below 2**62), and the manifest records the rule."""
    _rec, table = labelled[FLAT]
    first = _rows(table, 0)[0]
    for i in range(2):
        mine, theirs = Game.new(SEED, LABEL_HAND_OFFSET + i), Game.new(SEED, i)
        assert not np.array_equal(mine._work[KW.W_DECK:KW.W_DECK + 108],
                                  theirs._work[KW.W_DECK:KW.W_DECK + 108])
    obs = np.zeros(TENSOR_SIZE, np.float32)
    obs[np.array(first["obs_index"], np.int64)] = first["obs_value"]
    g = Game.new(SEED, LABEL_HAND_OFFSET)
    assert np.array_equal(obs, g.observation_tensor(first["seat"]))
    assert not np.array_equal(obs, Game.new(SEED, 0).observation_tensor(first["seat"]))
    from sim.batch.runner import MAX_HANDS
    from sim.core.match import MATCH_STRIDE
    assert (MAX_HANDS + 1) * MATCH_STRIDE <= LABEL_HAND_OFFSET
    s = label_run(1, SEED, FLAT, out=tmp_path / "run")
    m = json.loads((tmp_path / "run" / "_manifest.json").read_text())
    assert m["labels_schema"] == 1 and m["kind"] == "labels"
    assert m["config"]["label_seed"]["hand_offset"] == LABEL_HAND_OFFSET
    assert m["teacher"] == labels.full_spec(FLAT)[0] and "worlds=6" in m["teacher"]
    assert "halving=0" in m["teacher"] and "pickup_share=1" in m["teacher"]
    assert m["versions"]["burraco_sim"] and "commit" in m["git"]
    assert s.rows == load_labels(tmp_path / "run").num_rows == _count(labelled, FLAT, 0)


def _count(labelled, spec, hand):
    return len(_rows(labelled[spec][1], hand))


def test_schema_and_reading_back(tmp_path):
    out = tmp_path / "run"
    s = label_run(3, SEED, FLAT, out=out, shard_size=2, threads=2, return_table=True)
    assert s.hands == s.new_hands == 3 and s.rows == s.table.num_rows > 0
    files = sorted(p.name for p in (out / "labels").iterdir())
    assert files == ["shard-000000000000-000000000002.parquet",
                     "shard-000000000002-000000000003.parquet"]
    back = load_labels(out)
    assert back.schema == LABEL_SCHEMA and back.equals(s.table)
    one = pq.read_table(out / "labels").replace_schema_metadata(None)   # a plain reader
    assert one.num_rows == back.num_rows
    # threads do not change the rows
    assert label_run(3, SEED, FLAT, shard_size=3, threads=1).table.equals(s.table)


def test_a_killed_run_resumes_without_duplicate_or_missing_rows(tmp_path):
    out = tmp_path / "run"
    ref = label_run(5, SEED, FLAT, shard_size=2).table

    def stop_after_first(shard):
        if shard.stop == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        label_run(5, SEED, FLAT, out=out, shard_size=2, callback=stop_after_first)
    assert [p.name for p in (out / "labels").iterdir()] == [
        "shard-000000000000-000000000002.parquet"]
    assert json.loads((out / "_manifest.json").read_text())["finished"] is False
    # a half-written shard of the kill: a hidden temporary file, removed when resuming
    (out / "labels" / ".shard-000000000002-000000000004.parquet.tmp").write_bytes(b"half")
    seen = []
    s = label_run(5, SEED, FLAT, out=out, callback=seen.append, return_table=True)
    assert [x.resumed for x in seen] == [True, False, False]
    assert s.new_hands == 3 and s.hands == 5
    assert s.table.equals(ref) and load_labels(out).equals(ref)
    assert not list(out.rglob("*.tmp"))
    assert json.loads((out / "_manifest.json").read_text())["finished"] is True
    # extended: hands 5..6 added, the first five read back
    assert label_run(7, SEED, FLAT, out=out).new_hands == 2
    assert load_labels(out).slice(0, ref.num_rows).equals(ref)


HOLD = """\
import sys
from sim._util.lock import DirectoryLock
with DirectoryLock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_a_second_writer_is_refused(tmp_path):
    out = tmp_path / "run"
    label_run(1, SEED, FLAT, out=out)
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "locked\n"
        with pytest.raises(LockedError, match=f"pid {proc.pid}"):
            label_run(2, SEED, FLAT, out=out)
    finally:
        proc.stdin.close()
        proc.wait()
    assert label_run(2, SEED, FLAT, out=out).new_hands == 1     # free again: resumes


@pytest.mark.parametrize("change, needle", [
    (["--seed", "8"], "differs in: seed"),
    (["--strategy", "rollout:halving=0,worlds=7,rollouts=30"], "teacher"),
    (["--rule", "stock_reserve=0"], "rules: stock_reserve"),
])
def test_another_teacher_seed_or_rules_is_refused(tmp_path, capsys, change, needle):
    out = str(tmp_path / "run")
    args = ["label", "--hands", "1", "--seed", str(SEED), "--out", out, "--strategy", FLAT,
            "--quiet"]
    assert main(args) == 0
    assert "decisions of 1 hand" in capsys.readouterr().out
    stamp = (tmp_path / "run" / "_manifest.json").read_text()
    given = dict(zip(args[1::2], args[2::2]))
    given.update(dict(zip(change[::2], change[1::2])))
    argv = ["label", *[x for kv in given.items() for x in kv if kv[0] != "--quiet"], "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and err.startswith("burraco: error: --out:")
    assert (tmp_path / "run" / "_manifest.json").read_text() == stamp
    assert main(["label", "--out", out, "--quiet"]) == 0          # the manifest's options
    assert "nothing new" in capsys.readouterr().out


def test_the_command_line_default_teacher_is_the_librarys():
    from sim.cli import label as cli_label
    assert cli_label.DEFAULT_TEACHER == labels.DEFAULT_TEACHER


def test_the_teacher_must_be_a_search(tmp_path):
    with pytest.raises(ValueError, match="not a rollout spec"):
        label_run(1, SEED, "expert", out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_a_simulate_run_is_not_resumed_as_labels(tmp_path):
    import sim
    sim.simulate(3, 1, out=tmp_path / "run", return_frame=False)
    with pytest.raises(ValueError, match="holds a hand run"):
        label_run(3, 1, FLAT, out=tmp_path / "run")


@pytest.mark.slow
def test_dask_gives_the_same_rows_as_local(tmp_path):
    pytest.importorskip("dask.distributed")
    local = label_run(4, SEED, FLAT, out=tmp_path / "local", shard_size=2)
    remote = label_run(4, SEED, FLAT, out=tmp_path / "dask", shard_size=2, executor="dask",
                       workers=2)
    assert remote.rows == local.rows
    assert load_labels(tmp_path / "dask").equals(load_labels(tmp_path / "local"))
    m = json.loads((tmp_path / "dask" / "_manifest.json").read_text())
    assert m["finished"] and len(m["shards"]) == 2


def test_hand_readers_refuse_a_label_run_in_one_line(tmp_path, capsys):
    import sim
    out = tmp_path / "run"
    label_run(1, SEED, FLAT, out=out)
    with pytest.raises(ValueError, match="holds a label run"):
        sim.load(out)
    for argv in (["summarize", str(out)], ["summarize", str(out), "--repair"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "holds a label run (burraco label)" in err and err.count("\n") == 1
    assert sorted(p.name for p in (out / "labels").iterdir()) == [
        "shard-000000000000-000000000001.parquet"]


@pytest.mark.slow
def test_a_run_killed_with_sigkill_resumes_to_the_same_rows(tmp_path):
    """burraco label killed with SIGKILL once a shard is on disk: the same command resumes
    it to the rows of an uninterrupted run."""
    import os
    import signal
    import time
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "sim", "label", "--hands", "10", "--seed", str(SEED), "--out",
            str(out), "--strategy", FLAT, "--shard-size", "1", "--threads", "1", "--quiet"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    first = out / "labels" / "shard-000000000000-000000000001.parquet"
    t0 = time.monotonic()
    while not first.exists() and proc.poll() is None and time.monotonic() - t0 < 300:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = sorted(p.name for p in (out / "labels").glob("shard-*"))
    assert 1 <= len(done) < 10, done
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ref = label_run(10, SEED, FLAT, shard_size=5).table
    assert load_labels(out).equals(ref)
