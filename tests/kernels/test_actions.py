"""The action space and the work buffer (kernels.engine.actions, kernels.table.work).

The meld table must hold exactly the valid melds: every row is valid by the referee's
independent analysis (all set ranks allowed), and every candidate the referee finds valid
is a row. The buffer's fields must not overlap.
"""
from __future__ import annotations

from kernels.core.cards import N_COUNT
import numpy as np
import pytest

import referee as R
from kernels.engine import actions as KA
from kernels.table import state as KS
from kernels.table import work as KW


def faces_of(cnt):
    return [f for f in range(N_COUNT) for _ in range(int(cnt[f]))]


EVERY_RANK = frozenset(range(13))


def test_every_table_row_is_a_valid_meld_for_the_referee():
    kinds = {"set": 0, "sequence": 0}
    for row in KA.MELD_CNT:
        info = R.analyze(faces_of(row), EVERY_RANK)
        assert info.valid, (faces_of(row), info.reason)
        kinds[info.kind] += 1
    assert kinds == {"set": KA.N_SET_MELDS, "sequence": KA.N_MELDS - KA.N_SET_MELDS}
    assert len({row.tobytes() for row in KA.MELD_CNT}) == KA.N_MELDS


def random_candidate(rng):
    """A multiset shaped like a meld: one rank's or one suit's cards, 0..2 copies each,
    plus at most two extra wilds."""
    cnt = np.zeros(N_COUNT, np.int64)
    if rng.random() < 0.4:
        r = rng.integers(13)
        for s in range(4):
            cnt[13 * s + r] = rng.integers(3)
    else:
        s = rng.integers(4)
        lo = rng.integers(13)
        hi = min(13, lo + rng.integers(2, 15))
        for r in range(lo, hi):
            cnt[13 * s + r] = rng.choice(3, p=[0.15, 0.8, 0.05])
    for _ in range(rng.choice(3, p=[0.5, 0.4, 0.1])):
        cnt[52 if rng.random() < 0.3 else 13 * rng.integers(4) + 1] += 1
    return cnt


@pytest.mark.slow
def test_every_valid_meld_is_a_row():
    rng = np.random.default_rng(2026)
    valid = 0
    for _ in range(20_000):
        cnt = random_candidate(rng)
        if cnt.sum() < 3 or cnt.max() > 2 or cnt[52] > 2:
            continue
        ok = R.analyze(faces_of(cnt), EVERY_RANK).valid
        row = KA.meld_row(cnt)
        assert (row >= 0) == ok, (faces_of(cnt), ok, row)
        if ok:
            assert np.array_equal(KA.MELD_CNT[row], cnt)
            assert KA.create_action(cnt) == KA.A_CREATE + row
            valid += 1
    assert valid > 3_000


def test_action_id_layout():
    assert (KA.A_DRAW, KA.A_TAKE, KA.A_END_MELD, KA.A_DISCARD) == (0, 1, 2, 3)
    assert KA.A_LAYOFF == 3 + 53 and KA.A_CREATE == KA.A_LAYOFF + 40 * 53
    assert KA.N_ACTIONS == KA.A_CREATE + 14_132 == 16_308
    sel = np.zeros(N_COUNT, np.int64)
    for row in (0, 1, KA.N_SET_MELDS, KA.N_MELDS - 1):
        KA.meld_sel(row, sel)
        assert np.array_equal(sel, KA.MELD_CNT[row])


def test_work_buffer_fields_do_not_overlap():
    fields = KW.layout_table()
    at = 0
    for name, first, words in fields:
        assert first == at and words > 0, name
        at += words
    assert at == KW.EV_AT and fields[0] == ("STATE", 0, KS.STATE_WORDS)
    assert KW.W_G == KS.S_G and KW.work_words(0, 0) == KW.EV_AT
    # the numpy views of Python code and the kernel's views see the same words
    work = np.arange(KW.work_words(2, 3), dtype=np.int64)
    st = KS.state_numpy(work, KW.EV_AT, 2, 3)
    assert st.g[0] == KS.S_G and st.known[0, 0] == KS.S_KNOWN and st.ev[0, 0] == KW.EV_AT
    assert st.evc[-1] == KW.work_words(2, 3) - 1
