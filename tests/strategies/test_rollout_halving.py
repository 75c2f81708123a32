"""The ``rollout`` search's allocation of its budget (docs/strategies.md): ``halving=0`` is the
flat search, its records pinned; ``halving=1`` sequential halving over the candidates, whose
schedule fits the budget, whose hands pass the referee and whose decisions read no hidden card;
the pickup's share of the budget; the counter of the rollouts played."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import referee as R
from test_hidden_info import play_checked

import sim
from kernels.core import layout as L
from kernels.search import player as KS_
from kernels.table import work as KW
from sim.play.game import Game

FLAT = "rollout:halving=0,worlds=32,rollouts=400,max_candidates=12"
# sha256 of the records of FLAT's hands below, computed with the flat search before the
# parameter `halving` existed (commit d137d55, where `rollout` at its defaults is FLAT)
FLAT_DIGEST = "2c72fc48b45a50a163390fb83c6820d791f0e566bf2057fdb9c0cdd349944faf"
CHEAP_HALVING = "rollout:halving=1,worlds=8,rollouts=40"
# the same for CHEAP_HALVING (sequential halving, the default allocation) and for rollout:worlds=16
# (the flat search), computed at commit 2b6dd4f, before the parameter `card_model` existed: its
# default (0, uniform worlds) plays the same records
CHEAP_HALVING_DIGEST = "512a31467e82b64cb1605240df647e4a6d350294e78bdfacba933feeb13ee6fd"
FLAT_16_DIGEST = "3794e89cb4ef2bb21bdb48217eaa5e49bc40c85bfb837b2994d003505710a9cd"


def records_digest(spec: str) -> str:
    """sha256 of every record column but the run id and the strategy names, of hands 0..15 of
    seed 3101 (``spec`` on team 0, ``expert`` on team 1) and hands 0..7 of seed 3102
    (``spec`` on every seat)."""
    h = hashlib.sha256()
    for df in (sim.simulate(hands=16, seed=3101, strategies={"team0": spec, "team1": "expert"},
                            threads=2),
               sim.simulate(hands=8, seed=3102, strategies=spec, threads=2)):
        for c in df.columns:
            if c.startswith("strategy") or c == "run_id":
                continue
            h.update(c.encode())
            h.update("|".join(map(str, df[c].tolist())).encode())
    return h.hexdigest()


@pytest.mark.slow
def test_halving_0_plays_the_flat_searchs_records():
    assert records_digest(FLAT) == FLAT_DIGEST


@pytest.mark.slow
def test_card_model_0_plays_the_records_from_before_it_existed():
    assert records_digest(CHEAP_HALVING) == CHEAP_HALVING_DIGEST
    assert records_digest(CHEAP_HALVING + ",card_model=0") == CHEAP_HALVING_DIGEST
    assert records_digest("rollout:worlds=16") == FLAT_16_DIGEST


def _schedule(m, budget, cap):
    ends = np.zeros(KS_.MAX_ROUNDS, np.int64)
    rounds, cost = KS_.halving_schedule(np.int64(m), np.int64(budget), np.int64(cap), ends)
    return list(ends[:rounds]), int(cost)


def _cost(m, ends):
    cost, prev, s = 0, 0, m
    for e in ends:
        cost += s * (e - prev)
        prev, s = e, (s + 1) // 2
    return cost


@pytest.mark.parametrize("m", [2, 3, 5, 6, 12, 13, 16, 40])
@pytest.mark.parametrize("budget,cap", [(400, 32), (400, 128), (400, 1000), (800, 64),
                                        (96, 8), (5, 100), (0, 32), (100000, 1000)])
def test_the_halving_schedule_fits_the_budget_and_the_cap(m, budget, cap):
    ends, cost = _schedule(m, budget, cap)
    rounds = 0
    s = m
    while s > 1:
        rounds, s = rounds + 1, (s + 1) // 2
    assert len(ends) == rounds
    assert cost == _cost(m, ends)
    assert all(1 <= a <= b <= cap for a, b in zip(ends, ends[1:] + [cap]))
    if budget == 0:
        assert ends[-1] == cap                              # no budget: the cap alone
    elif cost > budget:
        assert ends[0] == 1                                 # the least schedule: a world each
    else:
        # the worlds double while under the cap, and no larger first round would fit
        w0 = ends[0]
        assert all(e == min(w0 << k, cap) for k, e in enumerate(ends[:-1]))
        bigger = [min((w0 + 1) << k, cap) for k in range(rounds)]
        assert w0 == cap or _cost(m, bigger) > budget or bigger == ends
    if m == 2:                                              # one round: the flat search's worlds
        assert ends == [min(cap, max(1, budget // 2)) if budget else cap]


def test_two_candidates_are_the_flat_schedule():
    assert _schedule(2, 400, 32) == ([32], 64)
    # 12 x 12 + 6 x 12 + 3 x 24 + 2 x 48 = 384; the 16 left give the last two 8 worlds more
    assert _schedule(12, 400, 128) == ([12, 24, 48, 104], 400)


def _row(game, seat):
    w = game._work
    return w[KW.W_PARAMS + L.N_PARAMS * seat:KW.W_PARAMS + L.N_PARAMS * (seat + 1)].view(
        np.float64)


def _rollouts_by_phase(spec, seed, hands):
    """``{phase: [rollouts of each of team 0's decisions]}``, from the search's counter."""
    out = {"pickup": [], "meld": [], "discard": []}
    for i in hands:
        game = Game.new(seed, i, strategies={"team0": spec, "team1": "expert"})
        while not game.is_over:
            seat, ph = game.current_seat, game.phase
            before = _row(game, seat)[KS_.RP_ROLLOUTS_PLAYED]
            a = game.choose()
            if seat % 2 == 0:
                out[ph].append(int(_row(game, seat)[KS_.RP_ROLLOUTS_PLAYED] - before))
            game.apply(a)
    return out


def test_the_counter_counts_the_flat_searchs_rollouts():
    got = _rollouts_by_phase("rollout:halving=0,worlds=5,rollouts=30", 3103, range(3))
    assert set(got["pickup"]) <= {0, 10}                    # 2 candidates x 5 worlds
    assert not any(got["meld"])
    # m candidates x min(5, 30 // m) worlds
    ok = {0} | {m * min(5, max(1, 30 // m)) for m in range(2, 13)}
    assert set(got["discard"]) <= ok and max(got["discard"]) > 0


def test_halving_stays_within_its_budget_and_the_pickup_share_moves_it():
    got = _rollouts_by_phase("rollout:halving=1,worlds=64,rollouts=48", 3104, range(3))
    assert max(got["discard"]) <= 48 and max(got["discard"]) > 24
    assert set(got["pickup"]) <= {0, 48}                    # 2 candidates x 24 worlds
    more = _rollouts_by_phase("rollout:halving=1,worlds=64,rollouts=48,pickup_share=2", 3104,
                              range(3))
    assert set(more["pickup"]) <= {0, 96} and 96 in more["pickup"]
    # the share moves the pickup's budget only (the first decisions are the same)
    assert more["discard"][:3] == got["discard"][:3]


def test_the_counter_is_not_a_setting():
    with pytest.raises(ValueError, match="rollouts_played"):
        sim.strategies.check_spec("strategy", "rollout:rollouts_played=5")


@pytest.mark.slow
def test_halvings_hands_pass_the_referee_and_are_the_same_on_any_thread_count():
    spec = {"team0": CHEAP_HALVING, "team1": "expert"}
    one = sim.simulate(hands=40, seed=3105, strategies=spec, threads=1, debug=True)
    two = sim.simulate(hands=40, seed=3105, strategies=spec, threads=2)
    cols = ["score_t0", "score_t1", "turns", "end_reason", "error"]
    assert one[cols].astype(str).values.tolist() == two[cols].astype(str).values.tolist()
    assert (one["error"] == 0).all()
    for i in range(0, 40, 2):
        doc = json.loads(json.dumps(sim.replay(3105, i, strategies=spec), ensure_ascii=False))
        v = R.check(doc)
        assert not v, f"hand {i}: " + "\n".join(map(str, v[:5]))
        assert doc["result"]["score_t0"] == one["score_t0"][i]
    flat = sim.simulate(hands=40, seed=3105, strategies={
        "team0": "rollout:halving=0,worlds=8,rollouts=40", "team1": "expert"})
    assert flat[cols].astype(str).values.tolist() != one[cols].astype(str).values.tolist()


@pytest.mark.slow
def test_halving_reads_no_hidden_card():
    gen = np.random.default_rng(20261203)
    compared = sum(play_checked(CHEAP_HALVING + ",margin=1", 80, i, gen) for i in range(10))
    compared += sum(play_checked(CHEAP_HALVING, 81, i, gen) for i in range(10))
    assert compared > 1_000


def _as_recorded_before_halving(run, legacy: str) -> None:
    """Rewrite run directory ``run`` (every seat ``rollout:halving=0,...``) as the flat
    search's default era wrote it: every seat named ``legacy``, the run id recomputed in the
    manifest, the shards' ``run_id`` column and their metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from sim.batch import rundir
    mpath = run / "_manifest.json"
    m = json.loads(mpath.read_text())
    m["config"]["strategies"] = [legacy] * 4
    m["run_id"] = rundir.identity(m["config"])
    mpath.write_text(json.dumps(m))
    for f in sorted((run / "hands").glob("*.parquet")):
        t = pq.read_table(f)
        meta = dict(t.schema.metadata)
        inner = json.loads(meta[b"burraco_sim"])
        inner["config"]["strategies"] = [legacy] * 4
        if "run_id" in inner:
            inner["run_id"] = m["run_id"]
        meta[b"burraco_sim"] = json.dumps(inner).encode()
        for c in ["run_id"] + [f"strategy_s{s}" for s in range(4)]:
            i = t.column_names.index(c)
            value = m["run_id"] if c == "run_id" else legacy
            col = pa.array([value] * t.num_rows).dictionary_encode() \
                if pa.types.is_dictionary(t.schema.field(c).type) else pa.array([value] * t.num_rows)
            t = t.set_column(i, pa.field(c, col.type), col)
        pq.write_table(t.replace_schema_metadata(meta), f)


@pytest.mark.slow
def test_a_run_recorded_while_the_flat_search_was_the_default(tmp_path, monkeypatch, capsys):
    """A name recorded while rollout's default was the flat search (no ``halving=``) replays
    the flat search, and resuming the run is refused in one line saying why."""
    from sim.batch import replay as replay_mod
    from sim.batch.replay import ReplayMismatchError
    from sim.cli import main
    flat, legacy = "rollout:halving=0,rollouts=24,worlds=3", "rollout:rollouts=24,worlds=3"
    run = tmp_path / "old"
    sim.simulate(hands=6, seed=3107, strategies={"team0": flat, "team1": flat}, out=str(run),
                 return_frame=False)
    _as_recorded_before_halving(run, legacy)
    assert sim.load(str(run))["run_id"].nunique() == 1               # a consistent run
    for i in range(6):
        doc = sim.replay(run=str(run), hand_index=i)                  # checked against its row
        assert doc["strategies"] == [flat] * 4
    # without the mapping the recorded name plays the new search, and the replay says so
    monkeypatch.setattr(replay_mod, "recorded_spec", lambda name: name)
    with pytest.raises(ReplayMismatchError):
        for i in range(6):
            sim.replay(run=str(run), hand_index=i)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"^out: .* was simulated while rollout's default was "
                       r"the flat search, recorded as 'rollout:rollouts=24,worlds=3', which is "
                       r"now named 'rollout:halving=0,rollouts=24,worlds=3'"):
        sim.simulate(hands=8, seed=3107, strategies=sim.strategies.recorded_spec(legacy),
                     out=str(run), return_frame=False)
    # the command line resumes with the recorded seats: the same refusal, exit 2
    assert main(["simulate", "--hands", "8", "--out", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "was simulated while rollout's default was the flat search" in err[0]
