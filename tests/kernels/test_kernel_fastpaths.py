"""The kernels' fast paths give exactly the answers of the full analysis they shortcut
(speed without changing a result).

``kernels.engine.legal.layoff_fits`` decides most lay-offs from the meld's stored reading;
``layoff_fits_full`` re-analyses the meld plus the card (R24).  They are compared on
every valid meld of a large systematic family and every one of the 53 card kinds.
"""
import itertools

from kernels.core.cards import N_COUNT
import numpy as np
import pytest
from numba import njit

from kernels.engine import legal as KL

from kernels.engine import placement as KP
from kernels.core import melds as KM
from kernels.table import state as KS
from kernels.table import moves as KSM

JOKER = 52


def seq_family():
    """Sequences of every suit and span, clean, with a same-suit 2 in slot 2, or with one
    wild (joker, a 2 of another suit, the suit's own 2) in a gap or at an end."""
    for s in range(4):
        for lo in range(1, 15):
            for hi in range(lo + 1, 15):
                slots = list(range(lo, hi + 1))
                faces = [13 * s + (0 if x in (1, 14) else x - 1) for x in slots]
                yield faces
                for w in (JOKER, 13 * ((s + 1) % 4) + 1, 13 * s + 1):
                    yield faces + [w]                        # wild at an end
                    for k in range(1, len(faces) - 1):       # wild in a gap
                        yield faces[:k] + faces[k + 1:] + [w]


def set_family():
    for r in [x for x in range(13) if x != 1]:
        for suits in itertools.combinations_with_replacement(range(4), 2):
            base = [13 * s + r for s in suits]
            for extra in range(0, 8):
                faces = base + [13 * (i % 4) + r for i in range(extra)]
                yield faces
                for w in (JOKER, 1, 14):
                    yield faces + [w]


def valid_melds():
    out = []
    for faces in itertools.chain(seq_family(), set_family()):
        cnt = np.zeros(N_COUNT, np.int64)
        for f in faces:
            cnt[f] += 1
        if cnt[:52].max() > 2 or cnt[JOKER] > 4 or cnt.sum() > 14:
            continue
        if KM.analyze(cnt, 0x1FFF)[0] != KM.KIND_NONE:
            out.append(cnt)
    return out


MELDS = valid_melds()


def test_family_is_large_and_mixed():
    kinds = [KM.analyze(c, 0x1FFF)[0] for c in MELDS]
    assert kinds.count(KM.KIND_SET) > 200 and kinds.count(KM.KIND_SEQ) > 2000


@pytest.mark.parametrize("part", range(4))
def test_layoff_fast_path_equals_full_analysis(part):
    st = KS.new_state(0, 0)
    mcnt, minfo = st[6], st[8]
    checked = 0
    for cnt in MELDS[part::4]:
        mcnt[0, 0] = cnt
        KSM.set_meld_info(st, 0, 0)
        for c in range(N_COUNT):
            fast = KL.layoff_fits(mcnt, minfo, 0, 0, c)
            full = KL.layoff_fits_full(mcnt, minfo, 0, 0, c)
            assert fast == full, (np.nonzero(cnt)[0].tolist(), c, fast, full)
            checked += 1
    assert checked > 10_000


def test_layoff_fast_path_known_answers():
    """Hand-checked verdicts (R16, R17, R24): 5-6-7 of clubs takes the 4 and the 8 (clean),
    not the 9, not a 7; a set of three 9s takes a 9 and one wild, a full set nothing."""
    st = KS.new_state(0, 0)
    mcnt, minfo = st[6], st[8]
    mcnt[0, 0, [4, 5, 6]] = 1
    KSM.set_meld_info(st, 0, 0)
    assert [KL.layoff_fits(mcnt, minfo, 0, 0, c) for c in (3, 7, 8, 6, 17)] == [1, 1, 0, 0, 0]
    assert KL.layoff_fits(mcnt, minfo, 0, 0, JOKER) == 2
    mcnt[0, 0] = 0
    mcnt[0, 0, [8, 21, 34]] = 1
    KSM.set_meld_info(st, 0, 0)
    assert [KL.layoff_fits(mcnt, minfo, 0, 0, c) for c in (47, 1, JOKER, 7)] == [1, 2, 2, 0]
    mcnt[0, 0, [8, 21, 34, 47]] = 2     # eight 9s and a joker: a full set (R16)
    mcnt[0, 0, JOKER] = 1
    KSM.set_meld_info(st, 0, 0)
    assert int(minfo[0, 0, KS.MI_LEN]) == 9
    assert [KL.layoff_fits(mcnt, minfo, 0, 0, c) for c in (8, 1, JOKER)] == [0, 0, 0]


@pytest.mark.parametrize("part", range(4))
def test_meld_info_update_equals_full_analysis(part):
    """After every legal lay-off on every meld of the family, the incremental update of
    the meld's reading (length, kind, wilds, natural 2, key, lo, hi, wild slot) equals a
    fresh analysis (R18-R20)."""
    st = KS.new_state(0, 0)
    mcnt, minfo = st[6], st[8]
    checked = 0
    for cnt in MELDS[part::4]:
        for c in range(N_COUNT):
            mcnt[0, 0] = cnt
            KSM.set_meld_info(st, 0, 0)
            if KL.layoff_fits(mcnt, minfo, 0, 0, c) == 0:
                continue
            mcnt[0, 0, c] += 1
            KSM.meld_info_after_add(mcnt, minfo, 0, 0, c)
            fast = minfo[0, 0].copy()
            KSM.meld_info_full(mcnt, minfo, 0, 0)
            assert fast.tolist() == minfo[0, 0].tolist(), (np.nonzero(cnt)[0].tolist(), c)
            checked += 1
    assert checked > 2_000


def _lock_rows(st, cnt):
    """minfo rows of meld ``cnt`` under lock_two_roles: one per stored role of the suit's 2
    (0 or 1 natural) that some reading keeps; a set or a sequence without that 2 has one."""
    mcnt, minfo = st[6], st[8]
    mcnt[0, 0] = cnt
    KSM.set_meld_info(st, 0, 0)
    kind, key = int(minfo[0, 0, KS.MI_KIND]), int(minfo[0, 0, KS.MI_KEY])
    if kind != KM.KIND_SEQ or cnt[13 * key + 1] == 0:
        return [minfo[0, 0].copy()]
    rows = []
    for nat in (0, 1):
        KSM.meld_info_roles(mcnt, minfo, 0, 0, nat, 0)
        if minfo[0, 0, KS.MI_KIND] == KM.KIND_SEQ and minfo[0, 0, KS.MI_NAT2] >= nat:
            rows.append(minfo[0, 0].copy())
    return rows


@pytest.mark.parametrize("part", range(2))
def test_lock_two_roles_fast_paths_equal_full_analysis(part):
    """Option lock_two_roles (R25, rows marked MI_LOCK), every meld of the family with every
    stored role of its suit's 2 and every card: the fast paths of layoff_fits equal the full
    step (layoff_step_roles), and after a legal lay-off the incremental reading equals a
    fresh one with the roles the step leaves (meld_info_roles)."""
    st = KS.new_state(0, 0)
    KSM.set_lock_two_roles(st, 1)
    mcnt, minfo = st[6], st[8]
    checked = 0
    for cnt in MELDS[part::2]:
        for row in _lock_rows(st, cnt):
            assert row[KS.MI_LOCK] == 1
            for c in range(N_COUNT):
                mcnt[0, 0] = cnt
                minfo[0, 0] = row
                fast = KL.layoff_fits(mcnt, minfo, 0, 0, c)
                full = KL.layoff_fits_full(mcnt, minfo, 0, 0, c)
                assert fast == full, (np.nonzero(cnt)[0].tolist(), row.tolist(), c, fast, full)
                if fast == 0:
                    continue
                ok, kind, nwild, nat2 = KM.layoff_step_roles(
                    cnt.copy(), row[KS.MI_KIND], row[KS.MI_NWILD], row[KS.MI_NAT2],
                    row[KS.MI_KEY], np.int64(c), 0x1FFF)[:4]
                assert ok == 1 and fast == 1 + nwild
                mcnt[0, 0, c] += 1
                KSM.meld_info_after_add(mcnt, minfo, 0, 0, c)
                got = minfo[0, 0].copy()
                if kind == KM.KIND_SEQ and mcnt[0, 0, 13 * row[KS.MI_KEY] + 1] > 0:
                    KSM.meld_info_roles(mcnt, minfo, 0, 0, nat2, 0)
                else:
                    KSM.meld_info_full(mcnt, minfo, 0, 0)
                assert got.tolist() == minfo[0, 0].tolist(), (np.nonzero(cnt)[0].tolist(), c)
                assert got[KS.MI_NAT2] == nat2 and got[KS.MI_NWILD] == nwild
                checked += 1
    assert checked > 10_000          # legal lay-offs compared


def best_run_reference(held_ranks):
    """Longest run of held slots (ace low and high; the 2 in slot 2), capped at 13 cards,
    the first one found scanning slots 1..14: (length, first slot)."""
    best_len = best_a = run = 0
    for sl in range(1, 15):
        rank = 0 if sl in (1, 14) else sl - 1
        if rank in held_ranks:
            run += 1
            if best_len < run <= 13:
                best_len, best_a = run, sl - run + 1
        else:
            run = 0
    return best_len, best_a


def test_best_run_table_equals_slot_scan():
    from kernels.strategies.policies import _best_run
    hc = np.zeros(N_COUNT, np.int64)
    for bits in range(1 << 13):
        held = {r for r in range(13) if bits >> r & 1}
        hc[:] = 0
        for r in held:
            hc[26 + r] = 1 + (r % 2)          # hearts; one or two copies
        assert tuple(_best_run(hc, 26)) == best_run_reference(held), sorted(held)
    hc[:] = 0
    hc[[26 + r for r in range(13)]] = 1      # the whole suit: A..K is the first 13-card run
    assert tuple(_best_run(hc, 26)) == (13, 1)


# ----------------------------------------------------------------------------- analyze
@njit(cache=True)
def _single_suit_mismatches(suit, jokers, other_twos):
    """Compare analyze with analyze_reference on every count pattern (0, 1 or 2 copies of
    each rank) of one suit, with ``jokers`` jokers and ``other_twos`` 2s of the next suit."""
    cnt = np.zeros(N_COUNT, np.int64)
    bad = 0
    checked = 0
    for code in range(3 ** 13):
        x = code
        for r in range(13):
            cnt[13 * suit + r] = x % 3
            x //= 3
        cnt[JOKER] = jokers
        cnt[13 * ((suit + 1) % 4) + 1] = other_twos
        for mask in (0x1FFF, 0x0005):
            if KM.analyze(cnt, mask) != KM.analyze_reference(cnt, mask):
                bad += 1
            checked += 1
    return bad, checked


@njit(cache=True)
def _random_mismatches(seed, n):
    """The same comparison on ``n`` random multisets of 0..16 cards over all 53 faces,
    biased towards one suit or one rank so that every branch of the reading is taken."""
    np.random.seed(seed)
    cnt = np.zeros(N_COUNT, np.int64)
    bad = 0
    for _ in range(n):
        cnt[:] = 0
        k = np.random.randint(0, 17)
        mode = np.random.randint(0, 3)
        s = np.random.randint(0, 4)
        r = np.random.randint(0, 13)
        for _ in range(k):
            u = np.random.randint(0, 10)
            if u == 0:
                f = JOKER
            elif u == 1:
                f = 13 * np.random.randint(0, 4) + 1
            elif mode == 0:
                f = 13 * s + np.random.randint(0, 13)
            elif mode == 1:
                f = 13 * np.random.randint(0, 4) + r
            else:
                f = np.random.randint(0, 52)
            if cnt[f] < (4 if f == JOKER else 2):
                cnt[f] += 1
        for mask in (0x1FFF, 0x1FFD, 0x0005):
            if KM.analyze(cnt, mask) != KM.analyze_reference(cnt, mask):
                bad += 1
    return bad


@pytest.mark.parametrize("jokers,other_twos", [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1)])
def test_analyze_equals_reference_on_every_one_suit_pattern(jokers, other_twos):
    bad, checked = _single_suit_mismatches(2, jokers, other_twos)
    assert checked == 2 * 3 ** 13
    assert bad == 0


def test_analyze_equals_reference_on_random_multisets():
    assert _random_mismatches(20261202, 2_000_000) == 0


def test_analyze_equals_reference_on_the_meld_families():
    for faces in itertools.chain(seq_family(), set_family()):
        cnt = np.zeros(N_COUNT, np.int64)
        for f in faces:
            cnt[f] += 1
        for mask in (0x1FFF, 0x0005):
            assert KM.analyze(cnt, mask) == KM.analyze_reference(cnt, mask), (faces, mask)


def test_analyze_known_readings():
    """Hand-checked readings (R18-R20): 5-6-joker-8 of hearts has the joker fixed in slot 7;
    A-2-3 of spades reads the 2 as natural (clean, slot 2); K-A-2 of spades is a dirty Q-K-A
    (the 2 a wild in slot 12) but K-A-2-3 is a wrap, refused (R17)."""
    def cnt_of(*faces):
        c = np.zeros(N_COUNT, np.int64)
        for f in faces:
            c[f] += 1
        return c
    H, S = 26, 39
    assert KM.analyze(cnt_of(H + 4, H + 5, JOKER, H + 7), 0x1FFF) == (KM.KIND_SEQ, 1, 0, 2, 5, 8, 7, 0)
    assert KM.analyze(cnt_of(S + 0, S + 1, S + 2), 0x1FFF) == (KM.KIND_SEQ, 0, 1, 3, 1, 3, KM.WILD_NONE, 0)
    assert KM.analyze(cnt_of(S + 12, S + 0, S + 1), 0x1FFF) == (KM.KIND_SEQ, 1, 0, 3, 13, 14, KM.WILD_FREE, 0)
    assert KM.analyze(cnt_of(S + 12, S + 0, S + 1, S + 2), 0x1FFF)[7] == KM.WHY_WRAP


def test_trio_shape_filter_never_refuses_a_meld():
    """find_placement skips the trios kernels.engine.placement.trio_may_meld refuses: for every
    trio of count indices a <= b <= c the two packs can hold, and every set-rank
    option tried, a refused trio is no meld (melds.analyze) -- and the filter refuses
    most trios, so it is doing work."""
    refused = accepted_melds = 0
    for a, b, c in itertools.combinations_with_replacement(range(N_COUNT), 3):
        cnt = np.zeros(N_COUNT, np.int64)
        for x in (a, b, c):
            cnt[x] += 1
        if max(cnt[:52]) > 2:
            continue
        for mask in (0x1FFF, 0x1FFD, 0x0005, 0x0002):
            may = KP.trio_may_meld(a, b, c, mask)
            refused += not may
            kind = KM.analyze(cnt, mask)[0]
            if not may:
                assert kind == KM.KIND_NONE, (a, b, c, mask)
            elif kind != KM.KIND_NONE:
                accepted_melds += 1
    assert refused > 4 * 15_000, refused
    assert accepted_melds > 1_000, accepted_melds


def test_trio_shape_filter_known_answers():
    H, S = 26, 39
    every, ace_three = 0x1FFD, 0x0005
    assert KP.trio_may_meld(S + 12, S + 0, S + 1, every)       # K-A-2: Q-K-A with the 2 wild
    assert KP.trio_may_meld(H + 4, H + 6, 52, ace_three)       # 5-7 of hearts and a joker
    assert KP.trio_may_meld(H + 4, S + 4, 1, every)            # two fives and a two: a set
    assert not KP.trio_may_meld(H + 4, S + 4, 1, ace_three)    # ... but not where only A and 3 form sets
    assert KP.trio_may_meld(H + 2, S + 2, 52, ace_three)       # two threes and a joker
    assert not KP.trio_may_meld(H + 4, S + 5, 52, every)       # 5 of hearts, 6 of spades
    assert not KP.trio_may_meld(H + 4, H + 8, 52, every)       # 5 and 9 of hearts: too far apart
    assert not KP.trio_may_meld(H + 0, H + 3, 1, every)        # A and 4 of hearts: A-2-3-4 needs four


def _placement_rule_vectors():
    import sim
    out = []
    for preset, extra in (("default", {}), ("fibur_international", {}),
                          ("fibur_international", {"pile_meld_source": "from_pile"}),
                          ("fibur_italian", {})):
        r = sim.Rules.preset(preset)
        out.append((r.replace(**extra) if extra else r).to_vector())
    return out


@pytest.mark.parametrize("part", range(2))
def test_find_placement_masks_equal_the_plain_scan(part):
    """kernels.engine.placement.find_placement (R34) skips, by 53-bit masks, the cards
    layoff_candidates rules out of a meld and the first cards of a lay-off of several
    cards that the one-card loop already refused; on random positions (hands of 1 to
    20 cards, up to six melds of the family, any or the pile's cards needed, a barred
    card, the pozzetto taken or not) it finds the very action find_placement_full's
    scan of all 53 indices finds -- and every kind of answer occurs."""
    rng = np.random.default_rng(1600 + part)
    rvs = _placement_rule_vectors()
    st = KS.new_state(0, 0)
    z = np.zeros(N_COUNT, np.int64)
    seen = {0: 0, 1: 0, 2: 0}
    small = 0
    for trial in range(20_000):
        rv = rvs[trial % len(rvs)]
        KS.reset_g(st.g)
        st.hcnt[:] = 0
        st.mcnt[:] = 0
        st.minfo[:] = 0
        team, seat = 0, 0
        nm = int(rng.integers(0, 7))
        st.nm[team] = nm
        for mi in range(nm):
            st.mcnt[team, mi] = MELDS[int(rng.integers(len(MELDS)))]
            KSM.set_meld_info(st, team, mi)
        # a hand drawn at random, or (half the time) from the cards that fit a meld
        fits = [c for mi in range(nm) for c in range(N_COUNT)
                if KL.layoff_fits(st.mcnt, st.minfo, team, mi, c) > 0]
        nh = int(rng.choice([1, 2, 2, 3, 4, 6, 9, 14, 20]))
        u = rng.random()
        if fits and u < 0.3:
            faces = rng.choice(fits, nh)
        elif fits and u < 0.6:          # a chain: each card fits meld 0 after the ones before
            faces = []
            while len(faces) < nh:
                nxt = [c for c in range(N_COUNT) if KL.layoff_fits(st.mcnt, st.minfo, team, 0, c) > 0]
                if not nxt:
                    break
                c = int(rng.choice(nxt))
                faces.append(c)
                st.mcnt[team, 0, c] += 1
                KSM.set_meld_info(st, team, 0)
            for c in faces:
                st.mcnt[team, 0, c] -= 1
            KSM.set_meld_info(st, team, 0)
            if not faces:               # meld 0 takes nothing: a card of another meld
                faces = [int(rng.choice(fits))]
            faces = np.array(faces[::-1] if rng.random() < 0.5 else faces, np.int64)
            nh = len(faces)
        else:
            faces = rng.integers(0, 53, nh)
        for f in faces:
            st.hcnt[seat, f] += 1
        st.hn[seat] = nh
        st.hand[seat, :nh] = faces       # count index = card id of the first pack
        st.g[KS.G_BARRED] = faces[0] if rng.random() < 0.5 else -1
        st.g[KS.G_POZZETTO_TAKEN + team] = int(rng.random() < 0.5)
        st.g[KS.G_NEXT_POZZETTO] = int(rng.integers(0, 3))
        st.g[KS.G_N_POZZETTI] = 2
        need = np.ones(N_COUNT, np.int64)
        if rng.random() < 0.4:
            need[:] = 0
            need[rng.integers(0, 53, int(rng.integers(1, 4)))] = 1
        small += nh < 3
        if need[0] == 0 and rng.random() < 0.5:
            need[faces[0]] = 1           # the pile's card is in the hand (R34, "from_pile")
        fast = KP.find_placement(st, rv, team, seat, need, z.copy(), z.copy())
        full = KP.find_placement_full(st, rv, team, seat, need, z.copy(), z.copy())
        assert fast == full, (trial, np.nonzero(st.hcnt[seat])[0].tolist(), nm, fast, full)
        seen[fast[0]] += 1
    assert min(seen.values()) > 200 and small > 1_000, (seen, small)


def test_one_rank_naturals_meld_only_as_an_allowed_set():
    """heur_meld_choice skips can_create for naturals of one rank (2 to 8 of them,
    with or without a wild) whose rank set_ranks does not let form a set: melds.analyze
    finds no meld in any of them (R15-R17), and does find a set where the rank may."""
    checked = 0
    for r in [x for x in range(13) if x != 1]:
        for k in range(2, 9):
            for suits in itertools.combinations_with_replacement(range(4), k):
                cnt = np.zeros(N_COUNT, np.int64)
                for s in suits:
                    cnt[13 * s + r] += 1
                if cnt.max() > 2:
                    continue
                for w in (None, JOKER, 1, 13 * 2 + 1):
                    c2 = cnt.copy()
                    if w is not None:
                        c2[w] += 1
                    if k + (w is not None) < 3:
                        continue
                    for mask in (0x1FFF, 0x1FFD, 0x0005, 0x0002):
                        kind = KM.analyze(c2, mask)[0]
                        if (mask >> r) & 1 == 0:
                            assert kind == KM.KIND_NONE, (r, suits, w, mask)
                        elif k + (w is not None) <= 9:
                            assert kind == KM.KIND_SET, (r, suits, w, mask)
                        checked += 1
    assert checked > 5_000, checked
