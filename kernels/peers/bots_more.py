"""More of the other engines' computer players as Numba choosers.

The bots of guglio1981/burraco-pwa (``guglio_easy/medium/hard``),
burraco-legends (``legends_medium``), ValmirBP/card_game_buraco
(``valmir_easy/medium/hard``), raphaelmmachado/buraco-online (``raphael_bot``)
and Thilanguis/Buraco (``thilanguis_bot``), re-implemented under our rules
(docs/peer_bots.md) with the conventions of :mod:`kernels.peers.bots`: each chooser
``*_chooser(work) -> int64`` lists the engine's legal actions and picks one by
that bot's preferences (the next one in its own order when our rules refuse
the first), reads only what its seat may know (R11) and draws random numbers
only from the hand's generator.  A wild *in hand* is a joker or any 2; a meld's
clean or dirty state is the engine's canonical reading (R13, R20); lay-offs are
single cards; the turn memory sits in the last row of the work buffer's
candidate array (:func:`kernels.peers.bots.mem`).

Where a peer's description leaves the ace undetermined (legends, raphael,
valmir), the ports count it high only (after the king; 2s are wilds for these
peers, so A-2-3 is never one of their runs).  The Brazilian bots keep their
"sequences only" play (raphael, thilanguis) or "sequences and sets of aces"
(valmir) under our rules, where every set is legal: they simply never make
another set.

One variant function per peer (``guglio_chooser(work, level)``, ...) so that the
levels of a peer share one compilation.  Parameter rows: each chooser reads its
seat's ``params[seat]`` in the order listed by ``sim.peers``.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_DRAW, A_LAYOFF, N_SET_MELDS, PH_DISCARD, PH_OVER,
                      PH_PICKUP, apply_action, create_action, meld_sel)
from kernels.strategies.api import legal
from kernels.core.cards import CIDX, CVALUE, JOKER, N_COUNT
from kernels.engine.legal import OK, can_create, layoff_fits
from kernels.core.melds import ANY_RANK, KIND_SEQ, KIND_SET, analyze
from kernels.peers.bots import (NEG, TRIOS, TRIO_IS_SET, _first_wild, _low_rank_key, action_cards, discard_ok,
                    finish_meld, fits_team, forms_trio, has_action, has_burraco, is_wild, mem,
                    meld_value, note, opp_team, single_layoff, take_if, trio_allowed,
                    trio_count_with, trio_fit, wilds_of)
from kernels.core.rng import bounded, next_u64, seed_hand
from kernels.table.state import (G_ACTIONS, G_OPEN_ROW, G_PN, G_PHASE, G_SEAT, G_SLEN, G_SP, G_TEAM, G_TPOZ, G_TURN,
                    MI_KIND, MI_LEN, MI_NWILD)
from kernels.table.work import views
from kernels.table.worlds import _card_at, deal_ids, unseen_places


def _trio_tables():
    """Per 3-card meld of :data:`kernels.peers.bots.TRIOS`: wilds of its canonical
    reading (0 clean, R20), whether it holds a 2 of another suit than the
    sequence's (an off-suit 2), whether it holds a joker, and its rank (sets)."""
    k = TRIOS.shape[0]
    nwild = np.zeros(k, np.int64)
    off2 = np.zeros(k, np.int64)
    joker = np.zeros(k, np.int64)
    rank = np.full(k, -1, np.int64)
    cnt = np.zeros(N_COUNT, np.int64)
    for i in range(k):
        cnt[:] = 0
        for f in TRIOS[i]:
            cnt[f] += 1
        kind, nw, nat2, key, lo, hi, wslot, why = analyze(cnt, ANY_RANK)
        nwild[i] = nw
        joker[i] = 1 if cnt[JOKER] > 0 else 0
        if kind == KIND_SET:
            rank[i] = key
        else:
            for s in range(4):
                if s != key and cnt[13 * s + 1] > 0:
                    off2[i] = 1
    return nwild, off2, joker, rank


TRIO_NWILD, TRIO_OFF2, TRIO_JOKER, TRIO_RANK = _trio_tables()


# ---------------------------------------------------------------- small readers
@njit(cache=True, _nrt=False)
def stock_left(st):
    """Cards in the stock."""
    return st.g[G_SLEN] - st.g[G_SP]


@njit(cache=True, _nrt=False)
def pile_top(st):
    """Count face of the discard pile's top card, -1 for an empty pile."""
    if st.g[G_PN] == 0:
        return -1
    return CIDX[st.pile[st.g[G_PN] - 1]]


@njit(cache=True, _nrt=False)
def team_points(st, rv, team):
    """Points of ``team``'s melds: cards (R2) and burraco bonuses (R56)."""
    v = 0
    for mi in range(st.nm[team]):
        v += meld_value(st.mcnt[team, mi], rv)
    return v


@njit(cache=True, _nrt=False)
def has_clean_burraco(st, team):
    """Does ``team`` hold a clean meld of 7 or more cards (R27, R28)?"""
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_LEN] >= 7 and st.minfo[team, mi, MI_NWILD] == 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def has_seq_of_suit(st, team, s):
    """Does ``team`` hold a sequence of suit ``s``?"""
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_KIND] == KIND_SEQ:
            # the meld's suit: its naturals other than 2s are of suit s
            for r in range(13):
                if r != 1 and st.mcnt[team, mi, 13 * s + r] > 0:
                    return True
    return False


@njit(cache=True, _nrt=False)
def dirties(st, team, a, sel):
    """Does create or lay-off ``a`` leave a dirty meld (canonical reading, R20)
    where there was a clean one or none?  ``sel`` is overwritten."""
    if a >= A_CREATE:
        meld_sel(a - A_CREATE, sel)
        return analyze(sel, ANY_RANK)[1] > 0
    mi = (a - A_LAYOFF) // N_COUNT
    c = (a - A_LAYOFF) % N_COUNT
    if st.minfo[team, mi, MI_NWILD] > 0:
        return False
    return layoff_fits(st.mcnt, st.minfo, team, mi, c) > 1


@njit(cache=True, _nrt=False)
def on_clean_burraco(st, team, a):
    """Is ``a`` a lay-off on a clean meld of 7 or more cards?"""
    if a >= A_CREATE:
        return False
    mi = (a - A_LAYOFF) // N_COUNT
    return st.minfo[team, mi, MI_LEN] >= 7 and st.minfo[team, mi, MI_NWILD] == 0


@njit(cache=True, _nrt=False)
def uniform(rng):
    """A uniform draw in [0, 1) at a resolution of 1e-6 from the hand's generator."""
    return bounded(rng, 1000000) * 1e-6


@njit(cache=True, _nrt=False)
def random_discard_of(st, rv, team, seat, rng, nonwild):
    """A uniformly drawn face among the hand's faces that may be discarded, with
    ``nonwild`` only among the naturals when one may be discarded (a face once
    however many copies); its discard id, -1 when none."""
    for pass_ in range(2):
        k = 0
        for c in range(N_COUNT):
            if st.hcnt[seat, c] > 0 and not (nonwild and pass_ == 0 and is_wild(c)) \
                    and discard_ok(st, rv, team, seat, c):
                k += 1
        if k == 0:
            continue
        j = bounded(rng, k)
        for c in range(N_COUNT):
            if st.hcnt[seat, c] > 0 and not (nonwild and pass_ == 0 and is_wild(c)) \
                    and discard_ok(st, rv, team, seat, c):
                if j == 0:
                    return A_DISCARD + c
                j -= 1
    return -1


@njit(cache=True, _nrt=False)
def first_legal_discard(st, rv, team, seat):
    """The first face in hand order (the canonical face order) that may be discarded."""
    for c in range(N_COUNT):
        if st.hcnt[seat, c] > 0 and discard_ok(st, rv, team, seat, c):
            return A_DISCARD + c
    return -1


@njit(cache=True, _nrt=False)
def trio_uses(hc, top, rv, kinds, clean_only):
    """Does the card ``top`` (not counted in ``hc``) make a valid 3-card meld with
    two cards of ``hc``?  ``kinds``: 0 sequences only, 1 sequences and sets of
    aces, 2 any kind the rules allow; ``clean_only``: a clean meld (R27, a
    same-suit 2 only as natural) without a joker."""
    for i in range(TRIOS.shape[0]):
        if TRIO_IS_SET[i] == 1 and (kinds == 0 or (kinds == 1 and TRIO_RANK[i] != 0)):
            continue
        if not trio_allowed(i, rv) or (clean_only and (TRIO_NWILD[i] > 0 or TRIO_JOKER[i] > 0)):
            continue
        inside = False
        for j in range(3):
            if TRIOS[i, j] == top:
                inside = True
        if not inside:
            continue
        ok = True
        for j in range(3):
            f = TRIOS[i, j]
            need = 0
            for k in range(3):
                if TRIOS[i, k] == f:
                    need += 1
            if f == top:
                need -= 1
            if need > hc[f]:
                ok = False
        if ok:
            return True
    return False


# ---------------------------------------------------------------- guglio_*
@njit(cache=True, _nrt=False)
def _prefix_ok(faces, idx, d):
    """Can the cards ``faces[idx[0..d]]`` still be part of one meld (naturals of
    one rank or one suit; at most two jokers and 2s, one outside a sequence)?"""
    w = 0
    r0 = -1
    s0 = -1
    same_rank = True
    same_suit = True
    for j in range(d + 1):
        f = faces[idx[j]]
        if is_wild(f):
            w += 1
            continue
        if r0 < 0:
            r0 = f % 13
            s0 = f // 13
        else:
            if f % 13 != r0:
                same_rank = False
            if f // 13 != s0:
                same_suit = False
    if not same_rank and not same_suit:
        return False
    if w > 2 or (w > 1 and not same_suit):
        return False
    return True


@njit(cache=True)
def first_combination(faces, n, k, rv, sel):
    """The first combination of ``k`` of the hand cards ``faces[:n]`` (hand order)
    in lexicographic order of positions that is a valid meld (R15-R18); fills
    ``sel`` with its counts and returns True, else False."""
    idx = np.zeros(8, np.int64)
    for f in range(N_COUNT):
        sel[f] = 0
    d = 0
    idx[0] = 0
    while True:
        if idx[d] > n - (k - d):
            d -= 1
            if d < 0:
                return False
            f = faces[idx[d]]
            sel[f] -= 1
            j = idx[d] + 1
            while j < n and faces[j] == f:
                j += 1
            idx[d] = j
            continue
        f = faces[idx[d]]
        sel[f] += 1
        ok = _prefix_ok(faces, idx, d)
        if ok and d == k - 1:
            if analyze(sel, rv[L.RV_SET_RANKS_MASK])[0] != 0:
                return True
            ok = False
        if not ok:
            sel[f] -= 1
            j = idx[d] + 1
            while j < n and faces[j] == f:
                j += 1
            idx[d] = j
            continue
        d += 1
        idx[d] = idx[d - 1] + 1


@njit(cache=True)
def guglio_new_meld(st, rv, team, seat, sel):
    """guglio's new meld: for each size from min(7, hand size) down to 3 the
    first valid combination of that size in hand order; the first of them our
    rules accept (R23, R38).  Returns the create id or -1."""
    faces = np.zeros(112, np.int64)
    n = 0
    for f in range(N_COUNT):
        for _ in range(st.hcnt[seat, f]):
            faces[n] = f
            n += 1
    for k in range(min(7, n), 2, -1):
        if first_combination(faces, n, k, rv, sel):
            a = create_action(sel)
            if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                return a
    return -1


@njit(cache=True, _nrt=False)
def guglio_layoff(st, rv, team, seat, ids, n, hard, scratch):
    """guglio's lay-off: the first single-card lay-off in meld order then hand
    order; ``hard`` first onto melds of exactly 6 cards, then onto longer
    melds.  Returns its id or -1."""
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF or a >= A_CREATE or not single_layoff(st, rv, team, seat, a, scratch):
            continue
        s = -float(a)
        if hard:
            ln = st.minfo[team, (a - A_LAYOFF) // N_COUNT, MI_LEN]
            s += (ln == 6) * 1e9 + ln * 1e6
        if s > bs:
            bs = s
            best = a
    return best


@njit(cache=True, _nrt=False)
def guglio_useful(st, rv, team, seat, c):
    """A card of a valid 3-card meld of hand cards, or one that fits an own meld."""
    return trio_count_with(st.hcnt[seat], c, rv) > 0 or fits_team(st, team, c)


@njit(cache=True, _nrt=False)
def guglio_discard(st, rv, team, seat, hard):
    """medium: the non-useful card with the most points, else the card with the
    fewest; hard: among non-useful cards those that fit no opposing meld (most
    points), else the non-useful one with the fewest points, else (all useful)
    the fewest points among those that fit no opposing meld, else among all.
    Ties to hand order; a refused card gives way to the first legal one."""
    opp = opp_team(st, rv, seat)
    # classes: 0 non-useful and safe, 1 non-useful, 2 useful and safe, 3 useful
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if st.hcnt[seat, c] == 0:
            continue
        useful = guglio_useful(st, rv, team, seat, c)
        feeds = hard and fits_team(st, opp, c)
        if not useful:
            if not feeds:
                s = 4e6 + CVALUE[c]
            else:
                s = 3e6 - CVALUE[c]
        else:
            s = (2e6 if not feeds else 1e6) - CVALUE[c]
        if not hard:
            s = (4e6 + CVALUE[c]) if not useful else (1e6 - CVALUE[c])
        if s > bs:
            bs = s
            best = c
    if best >= 0 and discard_ok(st, rv, team, seat, best):
        return A_DISCARD + best
    return first_legal_discard(st, rv, team, seat)


@njit(cache=True)
def guglio_chooser(work, level):
    """The three guglio levels (``level`` 0 easy, 1 medium, 2 hard).

    Pickup: easy always draws; medium and hard take the pile when its top card
    makes a 3-card meld with two hand cards or fits an own meld.  Meld phase,
    one pass per call: a new meld (:func:`guglio_new_meld`), else a lay-off
    (:func:`guglio_layoff`), else stop; easy stops at the start of a pass after
    ``max_new_melds`` new melds or with probability ``p_stop``, and in a pass
    without a new meld skips the lay-offs (stops) with probability
    ``p_skip_layoffs``.  Discard: easy a random non-wild, medium and hard
    :func:`guglio_discard`.
    """
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    if ph == PH_PICKUP:
        if level == 0:
            return A_DRAW
        top = pile_top(st)
        return take_if(ids, n, top >= 0 and (forms_trio(st.hcnt[seat], top, rv, False)
                                             or fits_team(st, team, top)))
    if ph == PH_DISCARD:
        if level == 0:
            return random_discard_of(st, rv, team, seat, rng, True)
        return guglio_discard(st, rv, team, seat, level == 2)
    if level == 0 and (m[1] >= p[1] or uniform(rng) < p[0]):
        return finish_meld(ids, n, -1)
    a = guglio_new_meld(st, rv, team, seat, sel)
    if a < 0:
        if level == 0 and uniform(rng) < p[2]:
            return finish_meld(ids, n, -1)
        a = guglio_layoff(st, rv, team, seat, ids, n, level == 2, scratch)
    return note(m, finish_meld(ids, n, a))


@njit(cache=True)
def guglio_easy_chooser(work):
    """``guglio_easy`` (:func:`guglio_chooser` level 0)."""
    return guglio_chooser(work, 0)


@njit(cache=True)
def guglio_medium_chooser(work):
    """``guglio_medium`` (:func:`guglio_chooser` level 1)."""
    return guglio_chooser(work, 1)


@njit(cache=True)
def guglio_hard_chooser(work):
    """``guglio_hard`` (:func:`guglio_chooser` level 2)."""
    return guglio_chooser(work, 2)


# ---------------------------------------------------------------- legends_medium
@njit(cache=True, _nrt=False)
def _suit_keys(hc, s, held):
    """``held[k]`` = 1 when the hand holds a natural of suit ``s`` at rank key
    ``k`` (3..K as 2..12, the ace as 13; 2s left out), 0 else (int64[15])."""
    for k in range(15):
        held[k] = 0
    for r in range(13):
        if r != 1 and hc[13 * s + r] > 0:
            held[_low_rank_key(r)] = 1


@njit(cache=True, _nrt=False)
def _key_face(s, k):
    return 13 * s + (0 if k == 13 else k)


@njit(cache=True, _nrt=False)
def _put(rows, i, a, b, c, d, e, f):
    rows[i, 0] = a
    rows[i, 1] = b
    rows[i, 2] = c
    rows[i, 3] = d
    rows[i, 4] = e
    rows[i, 5] = f


@njit(cache=True)
def legends_new_meld(st, rv, team, seat, wilds_ok, sel):
    """legends' new meld, longest first: runs (maximal stretches of 3+ naturals
    of a suit), sets (every natural of a rank, 3 to 8), and when ``wilds_ok``
    a pair of a rank plus the first wild or a stretch with one gap plus the
    first wild, each only when no candidate so far is as long; skipped when it
    leaves one card and no close is possible, or none after the pozzetto
    without a close.  Returns the create id or -1."""
    hc = st.hcnt[seat]
    hn = st.hn[seat]
    took = st.g[G_TPOZ + team] != 0
    burraco = has_burraco(st, team)
    w = _first_wild(hc)
    held = np.zeros(15, np.int64)
    # candidates: (length, kind, suit or rank, lo key, hi key, gap key) in cand rows, best first
    cands = np.zeros((64, 6), np.int64)
    nc = 0
    longest = 0
    for s in range(4):
        _suit_keys(hc, s, held)
        k = 2
        while k <= 13:
            if held[k] == 0:
                k += 1
                continue
            j = k
            while j + 1 <= 13 and held[j + 1] == 1:
                j += 1
            if j - k + 1 >= 3:
                _put(cands, nc, j - k + 1, 0, s, k, j, -1)
                nc += 1
                longest = max(longest, j - k + 1)
            k = j + 1
    for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        c = 0
        for s in range(4):
            c += hc[13 * s + r]
        if c >= 3:
            _put(cands, nc, min(c, 8), 1, r, 0, 0, -1)
            nc += 1
            longest = max(longest, min(c, 8))
    if wilds_ok and w >= 0:
        if longest < 3:
            for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
                c = 0
                for s in range(4):
                    c += hc[13 * s + r]
                if c == 2:
                    _put(cands, nc, 3, 2, r, 0, 0, -1)
                    nc += 1
                    longest = 3
                    break
        for s in range(4):
            _suit_keys(hc, s, held)
            for g in range(3, 13):
                if held[g] == 1 or held[g - 1] == 0 or held[g + 1] == 0:
                    continue
                lo = g - 1
                while lo - 1 >= 2 and held[lo - 1] == 1:
                    lo -= 1
                hi = g + 1
                while hi + 1 <= 13 and held[hi + 1] == 1:
                    hi += 1
                if hi - lo + 1 > longest and nc < 64:
                    _put(cands, nc, hi - lo + 1, 3, s, lo, hi, g)
                    nc += 1
                    longest = hi - lo + 1
    while True:
        bi = -1
        for i in range(nc):
            if cands[i, 0] > 0 and (bi < 0 or cands[i, 0] > cands[bi, 0]):
                bi = i
        if bi < 0:
            return -1
        ln, kind, key, lo, hi, gap = (cands[bi, 0], cands[bi, 1], cands[bi, 2], cands[bi, 3],
                                      cands[bi, 4], cands[bi, 5])
        cands[bi, 0] = 0
        for f in range(N_COUNT):
            sel[f] = 0
        if kind == 0 or kind == 3:
            for k in range(lo, hi + 1):
                if k != gap:
                    sel[_key_face(key, k)] = 1
            if kind == 3:
                sel[w] += 1
        else:
            left = 8 if kind == 1 else 2
            for s in range(4):
                for _ in range(hc[13 * s + key]):
                    if left > 0:
                        sel[13 * s + key] += 1
                        left -= 1
            if kind == 2:
                sel[w] += 1
        rest = hn - ln
        closes = took and (burraco or ln >= 7)
        if (rest == 1 and not closes) or (rest == 0 and took and not closes):
            continue
        a = create_action(sel)
        if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
            return a


@njit(cache=True, _nrt=False)
def legends_discard(st, rv, team, seat):
    """Never a wild while a natural is held; the natural with the lowest
    10 * usefulness - points, usefulness = 3 per other natural of its rank,
    3 per natural of its suit one rank away, 1 per natural two ranks away
    (ties to hand order)."""
    hc = st.hcnt[seat]
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if hc[c] == 0 or is_wild(c) or not discard_ok(st, rv, team, seat, c):
            continue
        r = c % 13
        s = c // 13
        u = 0
        for t in range(4):
            u += 3 * hc[13 * t + r]
        u -= 3
        kc = _low_rank_key(r)
        for q in range(13):
            if q == 1 or hc[13 * s + q] == 0:
                continue
            dk = abs(_low_rank_key(q) - kc)
            if dk == 1:
                u += 3 * hc[13 * s + q]
            elif dk == 2:
                u += hc[13 * s + q]
        sc = -(10.0 * u - CVALUE[c])
        if sc > bs:
            bs = sc
            best = c
    if best >= 0:
        return A_DISCARD + best
    return first_legal_discard(st, rv, team, seat)


@njit(cache=True)
def legends_medium_chooser(work):
    """``legends_medium``: the pile when it has at most ``pile_max`` cards, its top
    is a natural and makes a natural 3-card meld with the hand; lay-offs first
    (never below ``keep_min`` cards, a wild only when wilds are allowed now:
    two wilds held, the stock under ``wild_stock_below`` or the hand at most
    ``wild_hand_at_most``), then new melds (:func:`legends_new_meld`);
    discard :func:`legends_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    hc = st.hcnt[seat]
    if ph == PH_PICKUP:
        top = pile_top(st)
        return take_if(ids, n, top >= 0 and st.g[G_PN] <= p[0] and not is_wild(top)
                       and forms_trio(hc, top, rv, True))
    if ph == PH_DISCARD:
        return legends_discard(st, rv, team, seat)
    nw = hc[JOKER]
    for s in range(4):
        nw += hc[13 * s + 1]
    wilds_ok = nw >= 2 or stock_left(st) < p[1] or st.hn[seat] <= p[2]
    if m[1] == 0 and st.hn[seat] - 1 >= p[3]:
        for i in range(n):
            a = ids[i]
            if a < A_LAYOFF or a >= A_CREATE:
                continue
            if is_wild((a - A_LAYOFF) % N_COUNT) and not wilds_ok:
                continue
            if single_layoff(st, rv, team, seat, a, scratch):
                return note(m, a)
    return note(m, finish_meld(ids, n, legends_new_meld(st, rv, team, seat, wilds_ok, sel)))


# ---------------------------------------------------------------- valmir_*
@njit(cache=True, _nrt=False)
def valmir_allows(st, rv, team, seat, a, ace_sets_only, sel, scratch):
    """Is create or lay-off ``a`` one of valmir's moves?  Single-card lay-offs;
    new melds: sequences with at most one joker or 2 and sets of aces (any set
    when not ``ace_sets_only``) with at most one wild; never a move that makes
    a meld dirty before the team has a clean burraco, never one that dirties a
    clean burraco (R27, R28)."""
    if a >= A_CREATE:
        action_cards(a, sel)
        if a - A_CREATE < N_SET_MELDS:
            if ace_sets_only and analyze(sel, ANY_RANK)[3] != 0:
                return False
        if wilds_of(sel) > 1:
            return False
    elif not single_layoff(st, rv, team, seat, a, scratch):
        return False
    elif on_clean_burraco(st, team, a) and dirties(st, team, a, sel):
        return False
    if not has_clean_burraco(st, team) and dirties(st, team, a, sel):
        return False
    return True


@njit(cache=True, _nrt=False)
def valmir_pick(st, rv, team, seat, ids, n, want, how, ace_sets_only, rng, sel, scratch):
    """Among valmir's moves of the kind ``want`` (0 lay-offs, 1 new melds, 2
    both): ``how`` 0 a uniform one among the clean ones if any (else among
    all), 1 the first (lowest id: lowest meld, then hand order), 2 the one of
    most cards (ties to the lowest id).  Returns its id or -1."""
    k = 0
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF:
            continue
        is_new = a >= A_CREATE
        if (want == 0 and is_new) or (want == 1 and not is_new):
            continue
        if not valmir_allows(st, rv, team, seat, a, ace_sets_only, sel, scratch):
            continue
        if how == 0:
            s = 0.0 if dirties(st, team, a, sel) else 1.0
            if s > bs:
                bs = s
                k = 0
            if s == bs:
                k += 1
                if bounded(rng, k) == 0:
                    best = a     # reservoir sampling over the best class
            continue
        s = -float(i) if how == 1 else action_cards(a, sel) * 1e6 - i
        if s > bs:
            bs = s
            best = a
    return best


@njit(cache=True)
def valmir_chooser(work, level):
    """The three valmir levels (``level`` 0 easy, 1 medium, 2 hard).

    Pickup: when the top card fits an own meld or makes a 3-card sequence or
    set of aces with two hand cards, easy takes the pile with probability
    ``p_take``, medium and hard always; else the stock.  Meld phase (moves as
    :func:`valmir_allows`): easy a uniform move (clean first); medium a
    uniform lay-off, else a uniform new meld (clean first); hard the first
    lay-off, else the new meld of most cards.  Discard, never a wild while a
    natural may go: easy a uniform card; medium the first 3, 4 or 5, else a
    uniform card; hard by (3, 4, 5 first, then the lowest rank, the ace high).
    """
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    hc = st.hcnt[seat]
    ace_only = p[0] == 0
    if ph == PH_PICKUP:
        top = pile_top(st)
        useful = top >= 0 and (fits_team(st, team, top)
                               or trio_uses(hc, top, rv, 1 if ace_only else 2, False))
        if level == 0 and useful:
            useful = uniform(rng) < p[1]
        return take_if(ids, n, useful)
    if ph == PH_DISCARD:
        if level >= 1:
            best = -1
            bs = NEG
            for c in range(N_COUNT):
                if hc[c] == 0 or is_wild(c) or not discard_ok(st, rv, team, seat, c):
                    continue
                r = c % 13
                low = r == 2 or r == 3 or r == 4
                if level == 1:
                    if low:
                        return A_DISCARD + c
                    continue
                s = low * 100.0 - _low_rank_key(r)
                if s > bs:
                    bs = s
                    best = c
            if best >= 0:
                return A_DISCARD + best
        return random_discard_of(st, rv, team, seat, rng, True)
    if level == 0:
        a = valmir_pick(st, rv, team, seat, ids, n, 2, 0, ace_only, rng, sel, scratch)
    elif level == 1:
        a = valmir_pick(st, rv, team, seat, ids, n, 0, 0, ace_only, rng, sel, scratch)
        if a < 0:
            a = valmir_pick(st, rv, team, seat, ids, n, 1, 0, ace_only, rng, sel, scratch)
    else:
        a = valmir_pick(st, rv, team, seat, ids, n, 0, 1, ace_only, rng, sel, scratch)
        if a < 0:
            a = valmir_pick(st, rv, team, seat, ids, n, 1, 2, ace_only, rng, sel, scratch)
    return finish_meld(ids, n, a)


@njit(cache=True)
def valmir_easy_chooser(work):
    """``valmir_easy`` (:func:`valmir_chooser` level 0)."""
    return valmir_chooser(work, 0)


@njit(cache=True)
def valmir_medium_chooser(work):
    """``valmir_medium`` (:func:`valmir_chooser` level 1)."""
    return valmir_chooser(work, 1)


@njit(cache=True)
def valmir_hard_chooser(work):
    """``valmir_hard`` (:func:`valmir_chooser` level 2)."""
    return valmir_chooser(work, 2)


# ---------------------------------------------------------------- raphael_bot
@njit(cache=True, _nrt=False)
def raphael_dirty_ok(st, team, mi, dirty, closing):
    """raphael's proviso: a move that dirties a clean meld only before the team's
    pozzetto or when trying to close."""
    return not dirty or st.minfo[team, mi, MI_NWILD] > 0 or st.g[G_TPOZ + team] == 0 or closing


@njit(cache=True)
def raphael_pickup(st, rv, team, seat, sel):
    """raphael takes the pile when the top card (a) extends a team sequence,
    else (b) does so with one hand card, (c) makes a clean 3-card sequence with
    two hand cards of its suit; no move that dirties a clean sequence after the
    team's pozzetto.  Jokers are not wilds for this bot (it never melds one)."""
    top = pile_top(st)
    if top < 0 or top == JOKER:
        return False
    hc = st.hcnt[seat]
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_KIND] != KIND_SEQ:
            continue
        v = layoff_fits(st.mcnt, st.minfo, team, mi, top)
        if v > 0 and raphael_dirty_ok(st, team, mi, v > 1, False):
            return True
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_KIND] != KIND_SEQ:
            continue
        for h in range(JOKER):
            if hc[h] == 0:
                continue
            for f in range(N_COUNT):
                sel[f] = st.mcnt[team, mi, f]
            sel[h] += 1
            sel[top] += 1
            kind, nw = analyze(sel, ANY_RANK)[0:2]
            if kind == KIND_SEQ and raphael_dirty_ok(st, team, mi, nw > st.minfo[team, mi, MI_NWILD],
                                                     False):
                return True
    return trio_uses(hc, top, rv, 0, True)


@njit(cache=True)
def raphael_new_meld(st, rv, team, seat, sel):
    """raphael's new meld: per suit in order, the longest run of the suit's
    naturals (distinct ranks, 2s left out, the ace high), then shorter ones;
    else the first two cards of a suit at most two ranks apart with the first
    2 of the hand.  Returns the create id or -1."""
    hc = st.hcnt[seat]
    held = np.zeros(15, np.int64)
    for s in range(4):
        _suit_keys(hc, s, held)
        for ln in range(12, 2, -1):
            for lo in range(2, 14 - ln + 1):
                ok = True
                for k in range(lo, lo + ln):
                    if held[k] == 0:
                        ok = False
                        break
                if not ok:
                    continue
                for f in range(N_COUNT):
                    sel[f] = 0
                for k in range(lo, lo + ln):
                    sel[_key_face(s, k)] = 1
                a = create_action(sel)
                if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                    return a
    two = -1
    for s in range(4):
        if hc[13 * s + 1] > 0:
            two = 13 * s + 1
            break
    if two < 0:
        return -1
    for s in range(4):
        _suit_keys(hc, s, held)
        for k1 in range(2, 14):
            if held[k1] == 0:
                continue
            for k2 in range(k1 + 1, min(k1 + 2, 13) + 1):
                if held[k2] == 0:
                    continue
                for f in range(N_COUNT):
                    sel[f] = 0
                sel[_key_face(s, k1)] = 1
                sel[_key_face(s, k2)] = 1
                sel[two] += 1
                a = create_action(sel)
                if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                    return a
    return -1


@njit(cache=True, _nrt=False)
def raphael_discard(st, rv, team, seat):
    """Over the cards other than 2s (unless only 2s may go), the lowest
    3 * utility + 25 * risk + 40 * [the pile top's face] - points / 20; utility
    (at most 100) = 50 per natural of its suit one rank away, 25 per two ranks
    away, 15 per other card of its rank, +10 past 30 before the pozzetto; risk
    100 when it extends an opposing sequence.  Ties to hand order."""
    hc = st.hcnt[seat]
    opp = opp_team(st, rv, seat)
    top = pile_top(st)
    took = st.g[G_TPOZ + team] != 0
    for pass_ in range(2):
        best = -1
        bs = NEG
        for c in range(N_COUNT):
            if hc[c] == 0 or (pass_ == 0 and c != JOKER and c % 13 == 1) \
                    or not discard_ok(st, rv, team, seat, c):
                continue
            u = 0.0
            if c != JOKER:
                r = c % 13
                s = c // 13
                kc = _low_rank_key(r)
                for q in range(13):
                    if q == 1 or hc[13 * s + q] == 0:
                        continue
                    dk = abs(_low_rank_key(q) - kc)
                    if dk == 1:
                        u += 50 * hc[13 * s + q]
                    elif dk == 2:
                        u += 25 * hc[13 * s + q]
                for t in range(4):
                    u += 15 * hc[13 * t + r]
                u -= 15
                if u > 30 and not took:
                    u += 10
                u = min(u, 100.0)
            risk = 0.0
            for mi in range(st.nm[opp]):
                if st.minfo[opp, mi, MI_KIND] == KIND_SEQ and layoff_fits(st.mcnt, st.minfo, opp, mi, c) > 0:
                    risk = 100.0
            sc = -(3 * u + 25 * risk + 40 * (c == top) - CVALUE[c] / 20.0)
            if sc > bs:
                bs = sc
                best = c
        if best >= 0:
            return A_DISCARD + best
    return first_legal_discard(st, rv, team, seat)


@njit(cache=True)
def raphael_bot_chooser(work):
    """``raphael_bot`` (sequences only, 2s its only wilds): pickup
    :func:`raphael_pickup`; one move per call: a lay-off on the first team
    sequence that takes a hand card (naturals before 2s; a clean sequence made
    dirty only before the pozzetto or when trying to close, two cards or fewer
    left after it), else :func:`raphael_new_meld`, else stop; discard
    :func:`raphael_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, raphael_pickup(st, rv, team, seat, sel))
    if ph == PH_DISCARD:
        return raphael_discard(st, rv, team, seat)
    closing = st.g[G_TPOZ + team] != 0 and st.hn[seat] <= 2
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_KIND] != KIND_SEQ:
            continue
        for pass_ in range(2):
            for c in range(JOKER):
                if (c % 13 == 1) != (pass_ == 1):
                    continue
                a = A_LAYOFF + N_COUNT * mi + c
                if st.hcnt[seat, c] == 0 or not has_action(ids, n, a) \
                        or not single_layoff(st, rv, team, seat, a, scratch):
                    continue
                if raphael_dirty_ok(st, team, mi, dirties(st, team, a, sel), closing):
                    return a
    return finish_meld(ids, n, raphael_new_meld(st, rv, team, seat, sel))


# ---------------------------------------------------------------- thilanguis_bot
#: the parameter slots of thilanguis_bot (sim.peers)
TP_PANIC_STOCK, TP_DESPERATE_LEAD, TP_DESPERATE_STOCK, TP_RUSH_HAND, TP_ENDGAME_STOCK = 0, 1, 2, 3, 4
TP_ENDGAME_HAND, TP_JUICY_PILE, TP_BIG_PILE_REFUSE, TP_DUO_DIRTY_STOCK, TP_DUO_WILD_STOCK = 5, 6, 7, 8, 9
TP_MAX_ACTIONS, TP_W_WILD, TP_W_OPP, TP_W_OWN, TP_W_ACE = 10, 11, 12, 13, 14


@njit(cache=True, _nrt=False)
def thil_modes(st, rv, team, seat, p):
    """thilanguis' modes at this decision: ``(panic, desperate, rushing,
    endgame)`` (docs/peer_bots.md)."""
    np_ = rv[L.RV_NUM_PLAYERS]
    opp = opp_team(st, rv, seat)
    stock = stock_left(st)
    took = st.g[G_TPOZ + team] != 0
    opp_took = st.g[G_TPOZ + opp] != 0
    short = False
    for s in range(np_):
        if st.g[G_TEAM + s] == opp and st.hn[s] <= 3:
            short = True
    panic = (opp_took and has_burraco(st, opp) and short) or \
        stock - rv[L.RV_STOCK_RESERVE] <= p[TP_PANIC_STOCK]
    desperate = (team_points(st, rv, opp) - team_points(st, rv, team) > p[TP_DESPERATE_LEAD]
                 or (opp_took and not took and stock < p[TP_DESPERATE_STOCK]) or panic)
    rushing = not took and st.hn[seat] <= p[TP_RUSH_HAND]
    endgame = stock <= p[TP_ENDGAME_STOCK] or (took and st.hn[seat] <= p[TP_ENDGAME_HAND])
    return panic, desperate, rushing, endgame


@njit(cache=True, _nrt=False)
def thil_safe(st, team, k, panic, clean7):
    """thilanguis' ``safe``: an action leaving ``k`` cards."""
    return (k > 1 or panic or st.g[G_TPOZ + team] == 0 or has_burraco(st, team) or clean7)


@njit(cache=True, _nrt=False)
def thil_trio(st, rv, team, seat, top, want, off2_ok, other_suit_ok, sel):
    """A 3-card sequence of two hand cards (and ``top`` when >= 0): ``want`` 0
    clean (a 2 only as natural), 1 clean or with a 2 of its suit as the only
    wild, 2 exactly one wild (an off-suit 2 only with ``off2_ok``), 3 the only
    wild a 2 of its suit; a second sequence of a suit only with
    ``other_suit_ok``.  Returns the create id (-1 none; with ``top``, 1 when
    one exists)."""
    hc = st.hcnt[seat]
    for f in range(N_COUNT):
        sel[f] = 0
    if top >= 0:
        sel[top] = 1
    for i in range(TRIOS.shape[0]):
        if TRIO_IS_SET[i] == 1:
            continue
        nw = TRIO_NWILD[i]
        same2 = nw == 1 and TRIO_OFF2[i] == 0 and TRIO_JOKER[i] == 0
        if want == 0 and nw > 0:
            continue
        if want == 1 and nw > 0 and not same2:
            continue
        if want == 2 and (nw != 1 or (TRIO_OFF2[i] == 1 and not off2_ok)):
            continue
        if want == 3 and not same2:
            continue
        fit = trio_fit(i, hc, sel)
        if fit == 0 or (top >= 0 and fit != 2) or (top < 0 and fit != 1):
            continue
        suit = -1
        for j in range(3):
            f = TRIOS[i, j]
            if f != JOKER and f % 13 != 1:
                suit = f // 13
        if suit >= 0 and not other_suit_ok and has_seq_of_suit(st, team, suit):
            continue
        if top >= 0:
            return 1
        for f in range(N_COUNT):
            sel[f] = 0
        for j in range(3):
            sel[TRIOS[i, j]] += 1
        a = create_action(sel)
        if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
            return a
        for f in range(N_COUNT):
            sel[f] = 0
    return -1


@njit(cache=True)
def thil_pickup(st, rv, team, seat, p, sel):
    """thilanguis' pickup rules 1-6 (first match wins), under the endgame's
    refusal of a big pile."""
    panic, desperate, rushing, endgame = thil_modes(st, rv, team, seat, p)
    pn = st.g[G_PN]
    top = pile_top(st)
    if top < 0 or (endgame and pn >= p[TP_BIG_PILE_REFUSE] and not panic):
        return False
    hc = st.hcnt[seat]
    # 1. the top card on an own meld without a wild more
    for mi in range(st.nm[team]):
        v = layoff_fits(st.mcnt, st.minfo, team, mi, top)
        if v > 0 and v - 1 == st.minfo[team, mi, MI_NWILD]:
            return True
    # 2. a perfectly clean 3-card sequence
    if thil_trio(st, rv, team, seat, top, 0, False, desperate, sel) > 0:
        return True
    # 3. a juicy pile: a sequence whose only wild is a 2 of its suit
    if pn >= p[TP_JUICY_PILE] and thil_trio(st, rv, team, seat, top, 3, False, desperate, sel) > 0:
        return True
    # 4. dirty plays
    if desperate or (rushing and pn >= p[TP_JUICY_PILE]):
        off2 = desperate or rushing
        for mi in range(st.nm[team]):
            v = layoff_fits(st.mcnt, st.minfo, team, mi, top)
            if v <= 1 or st.minfo[team, mi, MI_NWILD] > 0:
                continue
            if st.minfo[team, mi, MI_LEN] >= 7:
                continue            # never dirty a clean burraco
            if top != JOKER and top % 13 == 1 and not off2:
                continue
            return True
        if thil_trio(st, rv, team, seat, top, 2, off2, desperate, sel) > 0:
            return True
    # 5. the free pile (aberto)
    if stock_left(st) > 0:
        wild = False
        for i in range(pn):
            if is_wild(CIDX[st.pile[i]]):
                wild = True
        if wild and pn <= p[TP_JUICY_PILE]:
            return True
        if pn > 5 and not rushing:
            return False
        if rushing and pn >= 3:
            return True
        if pn >= 4:
            return True
    return False


@njit(cache=True, _nrt=False)
def thil_discard(st, rv, team, seat, p):
    """The discard of least danger (ties to hand order): a joker or 2
    ``w_wild``; else ``w_opp`` when it fits an opposing meld, ``w_own`` an own
    meld, ``w_ace`` for an ace of a suit the team has a sequence of."""
    opp = opp_team(st, rv, seat)
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if st.hcnt[seat, c] == 0 or not discard_ok(st, rv, team, seat, c):
            continue
        if is_wild(c):
            d = p[TP_W_WILD]
        else:
            d = 0.0
            if fits_team(st, opp, c):
                d += p[TP_W_OPP]
            if fits_team(st, team, c):
                d += p[TP_W_OWN]
            if c % 13 == 0 and has_seq_of_suit(st, team, c // 13):
                d += p[TP_W_ACE]
        if -d > bs:
            bs = -d
            best = c
    return A_DISCARD + best


@njit(cache=True)
def thil_meld(st, rv, team, seat, p, ids, n, sel, scratch):
    """thilanguis' meld-phase action: the first applicable of its rules 1-4
    (docs/peer_bots.md), -1 to stop."""
    if st.g[G_ACTIONS] >= p[TP_MAX_ACTIONS]:
        return -1
    panic, desperate, rushing, endgame = thil_modes(st, rv, team, seat, p)
    hn = st.hn[seat]
    stock = stock_left(st)
    # 1. a natural on an own meld, never dirtying a clean one while holding 2+
    # 2. a 2 of the suit onto a clean sequence as its natural 2
    for rule in range(2):
        for i in range(n):
            a = ids[i]
            if a < A_LAYOFF or a >= A_CREATE:
                continue
            c = (a - A_LAYOFF) % N_COUNT
            mi = (a - A_LAYOFF) // N_COUNT
            if (rule == 0 and is_wild(c)) or (rule == 1 and (c == JOKER or c % 13 != 1)):
                continue
            if not single_layoff(st, rv, team, seat, a, scratch):
                continue
            dirty = dirties(st, team, a, sel)
            if rule == 1 and (dirty or st.minfo[team, mi, MI_KIND] != KIND_SEQ):
                continue
            if dirty and hn > 1:
                continue
            clean7 = not dirty and st.minfo[team, mi, MI_NWILD] == 0 and st.minfo[team, mi, MI_LEN] == 6
            if thil_safe(st, team, hn - 1, panic, clean7):
                return a
    # 3. a new 3-card sequence, clean or with a 2 of its suit as its only wild
    if thil_safe(st, team, hn - 3, panic, False):
        a = thil_trio(st, rv, team, seat, -1, 1, False, desperate, sel)
        if a >= 0:
            return a
    # 4. dirty plays
    if (rushing or desperate or endgame) and not (rv[L.RV_NUM_PLAYERS] == 4 and not desperate
                                                   and stock > p[TP_DUO_DIRTY_STOCK]):
        off2 = desperate or rushing or hn <= 2
        if desperate or rv[L.RV_NUM_PLAYERS] != 4 or stock <= p[TP_DUO_WILD_STOCK]:
            for i in range(n):
                a = ids[i]
                if a < A_LAYOFF or a >= A_CREATE:
                    continue
                c = (a - A_LAYOFF) % N_COUNT
                mi = (a - A_LAYOFF) // N_COUNT
                if not is_wild(c) or st.minfo[team, mi, MI_KIND] != KIND_SEQ \
                        or st.minfo[team, mi, MI_NWILD] > 0 or st.minfo[team, mi, MI_LEN] >= 7:
                    continue
                if not single_layoff(st, rv, team, seat, a, scratch):
                    continue
                if c != JOKER:
                    suit = -1
                    for r in range(13):
                        if r != 1 and st.mcnt[team, mi, 13 * (c // 13) + r] > 0:
                            suit = c // 13
                    if suit < 0 and not off2:
                        continue
                if dirties(st, team, a, sel) and hn > 1:
                    continue
                if thil_safe(st, team, hn - 1, panic, False):
                    return a
        if (3 <= hn <= 6 or panic) and thil_safe(st, team, hn - 3, panic, False):
            a = thil_trio(st, rv, team, seat, -1, 2, off2, desperate, sel)
            if a >= 0:
                return a
    return -1


@njit(cache=True)
def thilanguis_bot_chooser(work):
    """``thilanguis_bot`` (sequences only): pickup :func:`thil_pickup`, meld phase
    :func:`thil_meld` (one action per call, at most ``max_actions`` a turn),
    discard :func:`thil_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, thil_pickup(st, rv, team, seat, p, sel))
    if ph == PH_DISCARD:
        return thil_discard(st, rv, team, seat, p)
    return finish_meld(ids, n, thil_meld(st, rv, team, seat, p, ids, n, sel, scratch))


# ---------------------------------------------------------------- goodwin_ismcts
#: the parameter slots of goodwin_ismcts (sim.peers)
GI_ITERATIONS, GI_C_UCT, GI_W_BURRACO, GI_W_POZZETTO, GI_H0 = 0, 1, 2, 3, 4   # GI_H0..+6: H(0..)
GI_STOP_AT_STOCK_END = 11


@njit(cache=True)
def determinize(src, seat, rng, world, places, ids):
    """Copy the work buffer ``src`` into ``world`` and deal the cards ``seat``
    cannot see again (R11: :func:`kernels.table.worlds.unseen_places`), uniformly
    from ``rng``.  The unseen cards are sorted by face (then id) before the
    shuffle, so the world's faces depend on what the seat knows and on ``rng``
    only, never on where the hidden cards really are."""
    for i in range(src.shape[0]):
        world[i] = src[i]
    st = views(world)[0]
    n = unseen_places(world, seat, places)
    for k in range(n):
        cid = _card_at(st, places, k)
        ids[k] = CIDX[cid] * 128 + cid            # by face first (the seat knows faces)
    ids[:n].sort()
    for k in range(n):
        ids[k] = ids[k] % 128
    deal_ids(st, places, ids, n, seat, rng)
    # the world's own random stream (playouts, expansion) from the searcher's
    seed_hand(next_u64(rng), np.int64(0), views(world)[4])
    st.g[G_OPEN_ROW] = 0


@njit(cache=True, _nrt=False)
def ismcts_reward(st, rv, q, p):
    """``s(q)``: ``w_burraco`` when q's team holds a burraco, ``w_pozzetto`` when
    it took its pozzetto, plus ``H`` of q's hand size (``p[GI_H0 + k]`` for a
    hand of k = 0..6 classes: 0, 1, 2, 3-4, 5-6, 7-9, 10+ cards)."""
    team = st.g[G_TEAM + q]
    h = st.hn[q]
    if h == 0:
        k = 0
    elif h == 1:
        k = 1
    elif h == 2:
        k = 2
    elif h <= 4:
        k = 3
    elif h <= 6:
        k = 4
    elif h <= 9:
        k = 5
    else:
        k = 6
    return (p[GI_W_BURRACO] * has_burraco(st, team) + p[GI_W_POZZETTO] * (st.g[G_TPOZ + team] != 0)
            + p[GI_H0 + k])


@njit(cache=True)
def ismcts_search(work, p, iterations):
    """SO-ISMCTS over the seat to move's atomic actions of this turn (Cowling et
    al.; docs/peer_bots.md, goodwin_ismcts): ``iterations`` determinizations,
    UCB selection among the children legal in each (``mean + c_uct *
    sqrt(ln(availability) / visits)``), one random expansion, a uniformly
    random playout for every seat to the end of the hand (or, with
    ``stop_at_stock_end``, until the stock reaches its reserve), the reward of
    :func:`ismcts_reward` for the seat to move at the end (1 - s for a seat of
    the other team); a path that ends with the seat's own discard is scored
    there.  Returns the root child with the most visits (the first created on
    ties)."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    root_team = st.g[G_TEAM + seat]
    turn = st.g[G_TURN]
    ids0, n0 = legal(work)
    if n0 == 1:
        return ids0[0]
    cap = iterations + 2
    act = np.full(cap, -1, np.int64)
    first = np.full(cap, -1, np.int64)
    nxt = np.full(cap, -1, np.int64)
    visits = np.zeros(cap, np.float64)
    total = np.zeros(cap, np.float64)
    avail = np.ones(cap, np.float64)
    path = np.zeros(cap, np.int64)
    nn = 1
    world = np.empty(work.shape[0], np.int64)
    places = np.empty((108, 3), np.int64)
    cards = np.empty(108, np.int64)
    untried = np.empty(16400, np.int64)
    c_uct = p[GI_C_UCT]
    for it in range(iterations):
        determinize(work, seat, rng, world, places, cards)
        ws = views(world)[0]
        wrng = views(world)[4]
        node = 0
        depth = 0
        path[0] = 0
        playout = False
        while True:
            if ws.g[G_PHASE] == PH_OVER or ws.g[G_TURN] != turn:
                playout = False       # the hand is over, or the seat's discard ended the path
                break
            ids, n = legal(world)
            # untried legal moves, and the legal children's availability
            nu = 0
            for i in range(n):
                a = ids[i]
                ch = first[node]
                found = False
                while ch >= 0:
                    if act[ch] == a:
                        found = True
                        break
                    ch = nxt[ch]
                if not found:
                    untried[nu] = a
                    nu += 1
            if nu > 0:
                a = untried[bounded(wrng, nu)]
                child = nn
                nn += 1
                act[child] = a
                nxt[child] = first[node]
                first[node] = child
                apply_action(world, a)
                depth += 1
                path[depth] = child
                # a discard (the turn passed) or the end of the hand: scored here
                playout = ws.g[G_TURN] == turn and ws.g[G_PHASE] != PH_OVER
                break
            best = -1
            bs = NEG
            ch = first[node]
            while ch >= 0:
                if has_action(ids, n, act[ch]):
                    avail[ch] += 1.0
                    u = total[ch] / visits[ch] + c_uct * np.sqrt(np.log(avail[ch]) / visits[ch])
                    if u > bs:
                        bs = u
                        best = ch
                ch = nxt[ch]
            apply_action(world, act[best])
            node = best
            depth += 1
            path[depth] = best
        if playout:
            reserve = rv[L.RV_STOCK_RESERVE]
            while ws.g[G_PHASE] != PH_OVER:
                if p[GI_STOP_AT_STOCK_END] != 0 and stock_left(ws) <= reserve:
                    break
                ids, n = legal(world)
                apply_action(world, ids[bounded(wrng, n)])
        q = ws.g[G_SEAT] if playout else seat
        s = ismcts_reward(ws, rv, q, p)
        r = s if ws.g[G_TEAM + q] == root_team else 1.0 - s
        for d in range(1, depth + 1):
            visits[path[d]] += 1.0
            total[path[d]] += r
    best = -1
    bv = -1.0
    ch = first[0]
    while ch >= 0:
        if visits[ch] >= bv:      # children are listed newest first: >= keeps the first created
            bv = visits[ch]
            best = ch
        ch = nxt[ch]
    return act[best]


@njit(cache=True)
def goodwin_ismcts_chooser(work):
    """``goodwin_ismcts``: every decision (pickup, each meld-phase action, the
    discard) by :func:`ismcts_search` with ``iterations`` determinizations."""
    parts = views(work)
    p = parts[2][parts[0].g[G_SEAT]]
    return ismcts_search(work, p, np.int64(max(1.0, p[GI_ITERATIONS])))
