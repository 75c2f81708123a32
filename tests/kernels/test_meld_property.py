"""Property tests: the engine's meld rules (sim.melds, i.e. the Numba kernels) against the
referee's literal brute-force reading of RULES.md R13-R20 and R24 (tests/referee/referee.py).

Random multisets of 3..14 cards (at most 2 copies of a card, 4 jokers), biased toward one
suit, one rank, runs, 2s and jokers so that valid melds are common.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import referee as R
import sim
from kernels.core.cards import N_COUNT
from sim import melds as SM

SETTINGS = settings(max_examples=2000, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

RULES_DEFAULT = sim.Rules()
RULES_SEMI = {"adjacent_run": sim.Rules(semi_clean_bonus=150),
              "wild_at_end": sim.Rules(semi_clean_bonus=150, semi_clean_rule="wild_at_end")}
RULES_AS = sim.Rules(set_ranks=("A", "3"))
SET_RANKS_AS = frozenset({0, 2})


# ----------------------------------------------------------------------------- generators
def to_ids(faces):
    """Distinct physical ids for a list of faces (None if a card would exceed its copies)."""
    used, out, jokers = set(), [], [52, 53, 106, 107]
    for f in faces:
        if f >= 52:
            if not jokers:
                return None
            out.append(jokers.pop(0))
            continue
        for cid in (f, 54 + f):
            if cid not in used:
                used.add(cid)
                out.append(cid)
                break
        else:
            return None
    return out


wild = st.one_of(st.just(52), st.integers(0, 3).map(lambda s: 13 * s + 1))


@st.composite
def run_faces(draw):
    """A run of one suit, perhaps with a wild replacing/added, a same-suit 2, a gap."""
    s = draw(st.integers(0, 3))
    n = draw(st.integers(3, 14))
    lo = draw(st.integers(1, 15 - n))
    slots = list(range(lo, lo + n))
    faces = [13 * s + (0 if x in (1, 14) else x - 1) for x in slots]
    if draw(st.booleans()):                               # a wild replaces a card
        k = draw(st.integers(0, n - 1))
        faces[k] = draw(wild)
    if draw(st.integers(0, 3)) == 0:                      # an extra wild
        faces.append(draw(wild))
    if draw(st.integers(0, 3)) == 0:                      # a same-suit 2
        faces.append(13 * s + 1)
    if draw(st.integers(0, 3)) == 0 and len(faces) > 3:   # drop a card (gap)
        faces.pop(draw(st.integers(0, len(faces) - 1)))
    if draw(st.integers(0, 5)) == 0:                      # a stray card
        faces.append(draw(st.integers(0, 52)))
    return faces[:14]


@st.composite
def set_faces(draw):
    r = draw(st.sampled_from([x for x in range(13) if x != 1]))
    n = draw(st.one_of(st.integers(2, 5), st.integers(6, 9)))
    faces = [13 * draw(st.integers(0, 3)) + r for _ in range(n)]
    for _ in range(draw(st.integers(0, 2))):
        faces.append(draw(wild))
    if draw(st.integers(0, 5)) == 0:
        faces.append(draw(st.integers(0, 52)))
    return faces


@st.composite
def suit_faces(draw):
    s = draw(st.integers(0, 3))
    n = draw(st.integers(3, 14))
    faces = [13 * s + draw(st.integers(0, 12)) for _ in range(n)]
    for _ in range(draw(st.integers(0, 2))):
        faces.append(draw(wild))
    return faces[:14]


any_faces = st.lists(st.integers(0, 52), min_size=3, max_size=14)

candidate = st.one_of(run_faces(), run_faces(), set_faces(), set_faces(), suit_faces(), any_faces) \
    .map(to_ids).filter(lambda ids: ids is not None and 3 <= len(ids) <= 14)


# ----------------------------------------------------------------------------- helpers
def ref_bonus(info, n, semi_rule=None):
    """Referee bonus (R56). When a sequence has two fewest-wild readings (a natural ace and a
    natural 2: ace low, or ace high with the 2 alone in slot 2) it is semi-clean if either
    reading is (the project's decision on the R20/R29 ambiguity)."""
    if not info.valid or n < 7:
        return 0
    if info.clean:
        return 200
    if semi_rule is None:
        return 100
    return 150 if R.semi_clean(info, n, semi_rule) else 100


def points(ids):
    return sum(R.value(R.face_of(c)) for c in ids)


# ----------------------------------------------------------------------------- validity
@pytest.mark.slow
@SETTINGS
@given(candidate)
def test_meld_check_agrees_with_r18(ids):
    eng = SM.check(ids, RULES_DEFAULT)
    ref = R.analyze(ids)
    text = R.faces_text(R.face_of(c) for c in ids)
    assert eng.valid == ref.valid, (text, eng, ref.rule, ref.reason)
    assert eng.points == points(ids), text
    if ref.valid:
        assert eng.kind == ref.kind, text
        assert eng.clean == ref.clean, text
        assert eng.burraco_bonus == ref_bonus(ref, len(ids)), text


@pytest.mark.slow
@SETTINGS
@given(candidate, st.sampled_from(sorted(RULES_SEMI)))
def test_semi_clean_bonus_agrees(ids, semi_rule):
    ref = R.analyze(ids)
    eng = SM.check(ids, RULES_SEMI[semi_rule])
    assert eng.valid == ref.valid
    want = ref_bonus(ref, len(ids), semi_rule)
    assert eng.burraco_bonus == want, (R.faces_text(R.face_of(c) for c in ids), semi_rule)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(candidate)
def test_set_ranks_option_agrees(ids):
    eng = SM.check(ids, RULES_AS)
    ref = R.analyze(ids, SET_RANKS_AS)
    assert eng.valid == ref.valid, R.faces_text(R.face_of(c) for c in ids)
    if ref.valid:
        assert eng.kind == ref.kind


# ----------------------------------------------------------------------------- lay-off (R24)
valid_meld = st.one_of(run_faces(), run_faces(), set_faces()).map(to_ids) \
    .filter(lambda ids: ids is not None and R.analyze(ids).valid)


@st.composite
def meld_and_card(draw):
    ids = draw(valid_meld)
    info = R.analyze(ids)
    faces = [R.face_of(c) for c in ids]
    naturals = [f for f in faces if not R.is_wild_card(R.fold(f))]
    f0 = naturals[0]
    s, r = R.suit_of(f0), R.rank_of(f0)
    choice = draw(st.integers(0, 5))
    if choice == 0:
        f = 52
    elif choice == 1:
        f = 13 * draw(st.integers(0, 3)) + 1                  # a 2 of any suit
    elif choice == 2 and info.kind == "set":
        f = 13 * draw(st.integers(0, 3)) + r
    elif choice in (2, 3):
        f = 13 * s + draw(st.integers(0, 12))                 # same suit, any rank
    elif choice == 4:
        f = 13 * s + 1                                        # the same-suit 2
    else:
        f = draw(st.integers(0, 52))
    full = to_ids(faces + [f])
    if full is None:
        f = 52
        full = to_ids(faces + [f])
    if full is None:
        return ids, None
    return full[:-1], full[-1]


@pytest.mark.slow
@SETTINGS
@given(meld_and_card())
def test_lay_off_agrees_with_r24(pair):
    meld, card = pair
    assume(card is not None)
    eng = SM.lay_off(meld, [card], RULES_DEFAULT)
    ok, why, new = R.layoff_step(meld, card)
    text = R.faces_text(R.face_of(c) for c in meld) + " + " + R.card_text(card)
    assert eng.valid == ok, (text, why, eng.reason)
    if ok:
        assert eng.kind == new.kind and eng.clean == new.clean, text


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(meld_and_card(), meld_and_card())
def test_two_card_lay_off_agrees(p1, p2):
    """Two cards in one action: legal iff some order of single steps is (R24)."""
    meld, c1 = p1
    _, c2 = p2
    assume(c1 is not None and c2 is not None)
    faces = [R.face_of(c) for c in meld] + [R.face_of(c1), R.face_of(c2)]
    ids = to_ids(faces)
    assume(ids is not None)
    m, add = ids[:-2], ids[-2:]
    eng = SM.lay_off(m, add, RULES_DEFAULT)
    ok, why = R.layoff_action(m, add)
    assert eng.valid == ok, (R.faces_text(R.face_of(c) for c in m), R.faces_text(
        R.face_of(c) for c in add), why, eng.reason)


# ----------------------------------------------------------------------------- known ambiguity
def test_ace_side_ambiguity_is_real():
    """A♦ 2♦ 3♦ 4♦ 5♦ 6♦ JK 8♦ … K♦: two fewest-wild readings (ace low: JK fixed at 7 between
    runs of 6 and 6; ace high: runs 2-6 and 8-A, the latter 7 long).  RULES.md R20 says the
    canonical reading is unique; here it is not, and R29 "adjacent_run" differs between them.
    Decision: the meld is semi-clean if either reading is (the arrangement a player shows)."""
    text = "A♦ 2♦ 3♦ 4♦ 5♦ 6♦ JK 8♦ 9♦ 10♦ J♦ Q♦ K♦"
    ids = R.Deck().ids(text)
    info = R.analyze(ids)
    assert len(info.canonical) == 2
    assert {rd.ace_slot for rd in info.canonical} == {1, 14}
    assert ref_bonus(info, len(ids), "adjacent_run") == 150
    assert sim.melds.check(text, sim.Rules(semi_clean_bonus=150)).burraco_bonus == 150
    assert sim.melds.check(text, sim.Rules(semi_clean_bonus=150,
                                           semi_clean_rule="wild_at_end")).burraco_bonus == 100


# ----------------------------------------------------------------------------- lock_two_roles (R25)
RULES_LOCK = sim.Rules(lock_two_roles=True, semi_clean_bonus=150)


@st.composite
def meld_and_cards(draw):
    """A valid meld and 1-4 more cards (biased to its suit or rank, 2s and jokers)."""
    ids = draw(valid_meld)
    naturals = [R.face_of(c) for c in ids if not R.is_wild_card(R.fold(R.face_of(c)))]
    s, r = R.suit_of(naturals[0]), R.rank_of(naturals[0])
    faces = []
    for _ in range(draw(st.integers(1, 4))):
        choice = draw(st.integers(0, 5))
        if choice == 0:
            faces.append(52)
        elif choice == 1:
            faces.append(13 * s + 1)                           # the suit's own 2
        elif choice == 2:
            faces.append(13 * draw(st.integers(0, 3)) + 1)     # a 2 of any suit
        elif choice == 3:
            faces.append(13 * draw(st.integers(0, 3)) + r)     # the rank
        else:
            faces.append(13 * s + draw(st.integers(0, 12)))    # the suit
    full = to_ids([R.face_of(c) for c in ids] + faces)
    if full is None:
        return ids, []
    return full[:len(ids)], full[len(ids):]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(meld_and_cards())
def test_lock_two_roles_chain_agrees(pair):
    """lock_two_roles (R25): single-card lay-offs chained on one meld, the engine (a MeldCheck
    carries the roles) against the referee's per-card roles: same verdicts, and after each
    legal step the same class, natural 2 and bonus (clean / dirty / semi-clean, R29)."""
    ids, cards = pair
    eng = SM.check(ids, RULES_LOCK)
    roles = R.locked_info(ids, {})[1]
    cur = list(ids)
    for card in cards:
        text = R.faces_text(R.face_of(c) for c in cur) + " + " + R.card_text(card)
        res = SM.lay_off(eng, [card], RULES_LOCK)
        ok, rule, why, new_roles = R.layoff_step_locked(cur, roles, card)
        assert res.valid == ok, (text, rule, why, res.reason)
        if not ok:
            continue
        eng, roles, cur = res, new_roles, cur + [card]
        info = R.locked_info(cur, roles)[0]
        parts = R.team_score([cur], [], closed=False, pozzetto_taken=True, roles=[roles],
                             rules={"lock_two_roles": True, "semi_clean_bonus": 150})
        assert (eng.clean, eng.natural_two, eng.burraco_bonus) == (
            info.clean, "natural" in roles.values(), parts["burraco_bonus"]), text


def _ids_of(cnt):
    """Distinct physical ids for counts, and the ids still free per count index."""
    ids, free = [], {}
    for f in range(N_COUNT):
        copies = [52, 53, 106, 107] if f == 52 else [f, 54 + f]
        ids += copies[:cnt[f]]
        free[f] = copies[cnt[f]:]
    return ids, free


@pytest.mark.slow
def test_lock_two_roles_steps_agree_exhaustively():
    """Every sequence of the fast-path family that holds a 2 of its suit, with every stored
    role of that 2 (natural / wild) that a reading allows, plus every card: the kernel's
    step (kernels.core.melds.layoff_step_roles) and the referee's (R25) give the same verdict and
    the same number of natural 2s afterwards."""
    import numpy as np
    from kernels.core import melds as KM
    from test_kernel_fastpaths import MELDS

    checked = 0
    for cnt in MELDS[::2]:
        kind, _nw, _n2, key = KM.analyze(cnt, 0x1FFF)[:4]
        if kind != KM.KIND_SEQ or cnt[13 * key + 1] == 0:
            continue
        ids, free = _ids_of(cnt)
        twos = [c for c in ids if c % 54 == 13 * key + 1]
        for nat in (0, 1):
            k_kind, k_nw, k_n2 = KM.analyze_roles(cnt, 0x1FFF, key, nat, 0)[:3]
            roles = {c: "wild" for c in ids if R.is_two(R.fold(R.face_of(c)))}
            if nat:
                roles[twos[0]] = "natural"
            ref_ok = R.locked_info(ids, roles)[0].valid
            assert (k_kind == KM.KIND_SEQ and k_n2 >= nat) == ref_ok, (ids, nat)
            if not ref_ok:
                continue
            for c in range(N_COUNT):
                if not free[c]:
                    continue
                ok, _k, _w, n2 = KM.layoff_step_roles(cnt.copy(), k_kind, k_nw, k_n2, key,
                                                      np.int64(c), 0x1FFF)[:4]
                r_ok, rule, why, new_roles = R.layoff_step_locked(ids, roles, free[c][0])
                assert bool(ok) == r_ok, (R.faces_text(R.face_of(x) for x in ids), nat, c, why)
                if r_ok:
                    assert n2 == sum(v == "natural" for v in new_roles.values()), (ids, nat, c)
                checked += 1
    assert checked > 50_000
