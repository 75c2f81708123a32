"""The other engines' computer players as Numba choosers.

Each ``*_chooser(work) -> int64`` follows the behaviour of one bot of a public
Burraco engine, re-implemented under our rules (docs/peer_bots.md): it lists
the engine's legal actions (:func:`kernels.strategies.api.legal`) and picks one of them by
that bot's preferences, so it never plays an illegal action; when the bot's
first choice is refused by our rules it takes the next one in the bot's own
order.  Randomness comes only from the hand's generator
(:func:`kernels.core.rng.bounded`).  They read only what the seat may know (R11):
its hand, the melds, the discard pile, hand sizes, the stock size, the
pozzetti taken and the counters.

Conventions shared by the ports
-------------------------------
* "Own melds" are the team's melds, "has a burraco" is a team meld of 7+ cards
  (R28), "pozzetto taken" is the team's (R42); "the opponents" are the other
  team.
* A *wild card in hand* is a joker or any 2 (physical); the clean or dirty
  state of a meld is the engine's canonical reading (R13, R20).
* A single-card lay-off is one whose card is accepted alone (R24); the ports
  never begin a lay-off of several cards.
* Ties among equal choices go to the lowest action id (faces in the
  canonical order, clubs ace..king, diamonds, hearts, spades, then the
  joker), unless a bot says otherwise.
* Memory within a turn (how many new melds this turn, the lay-off pass
  position) is kept in the last row of the work buffer's candidate array
  ``cand`` (free for choosers, :mod:`kernels.strategies.api`), stamped with the turn and
  reset at every pickup; a game started in the meld phase starts with an
  empty memory.

Parameter rows: each chooser reads its seat's ``params[seat]`` in the order
listed by ``sim.peers``.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_DRAW, A_END_MELD, A_LAYOFF, A_TAKE, N_SET_MELDS, PH_DISCARD, PH_PICKUP,
                      meld_sel, create_action, MELD_CNT)
from kernels.strategies.api import legal
from kernels.core.cards import CIDX, CVALUE, JOKER, N_COUNT
from kernels.engine.legal import OK, can_create, can_discard, can_layoff, layoff_fits
from kernels.core.melds import ANY_RANK, KIND_SEQ, analyze, burraco_class
from kernels.core.rng import bounded
from kernels.table.scoring import burraco_bonus
from kernels.table.state import (G_PHASE, G_PN, G_SEAT, G_TEAM, G_TPOZ, G_TURN,
                    MI_KIND, MI_LEN, MI_WSLOT)
from kernels.table.work import CAND_ROWS, views

NEG = -1e300

# ---------------------------------------------------------------- 3-card melds
def _trio_table():
    """Every valid 3-card meld of the meld table as three count faces (repeats
    allowed), ``int64[K, 3]``, and whether it is a set, ``int64[K]``."""
    rows = np.nonzero(MELD_CNT.sum(axis=1) == 3)[0]
    out = np.zeros((rows.shape[0], 3), np.int64)
    is_set = np.zeros(rows.shape[0], np.int64)
    for i, r in enumerate(rows):
        faces = np.repeat(np.arange(N_COUNT), MELD_CNT[r].astype(np.int64))
        out[i] = faces
        is_set[i] = 1 if r < N_SET_MELDS else 0
    return out, is_set


TRIOS, TRIO_IS_SET = _trio_table()


@njit(cache=True, _nrt=False)
def trio_allowed(i, rv):
    """Is 3-card meld ``i`` of :data:`TRIOS` of a kind the rules allow (sets of
    ``set_ranks`` only, R15)?"""
    if TRIO_IS_SET[i] == 0:
        return True
    for j in range(3):
        f = TRIOS[i, j]
        if f != JOKER and f % 13 != 1:
            return (rv[L.RV_SET_RANKS_MASK] >> (f % 13)) & 1 == 1
    return False


@njit(cache=True, _nrt=False)
def trio_fit(i, hc, extra):
    """Can 3-card meld ``i`` be made from the counts ``hc`` plus ``extra``
    (int64[53] each)?  Returns 0 no, 1 from ``hc`` alone, 2 only with a card
    of ``extra``."""
    uses = 1
    for j in range(3):
        f = TRIOS[i, j]
        need = 0
        for k in range(3):
            if TRIOS[i, k] == f:
                need += 1
        if need > hc[f] + extra[f]:
            return 0
        if need > hc[f]:
            uses = 2
    return uses


@njit(cache=True, _nrt=False)
def forms_trio(hc, c, rv, natural_only):
    """Does card ``c`` make a valid 3-card meld with two cards counted in ``hc``
    (the card itself not in ``hc``)?  ``natural_only``: no wild in the meld."""
    for i in range(TRIOS.shape[0]):
        inside = False
        wild = False
        for j in range(3):
            f = TRIOS[i, j]
            if f == c:
                inside = True
            if f == JOKER or f % 13 == 1:
                wild = True
        if not inside or (natural_only and wild) or not trio_allowed(i, rv):
            continue
        ok = True
        skip = True
        for j in range(3):
            f = TRIOS[i, j]
            need = 0
            for k in range(3):
                if TRIOS[i, k] == f:
                    need += 1
            if f == c and skip:
                need -= 1
            if need > hc[f]:
                ok = False
        if ok:
            return True
    return False


@njit(cache=True, _nrt=False)
def trio_count_with(hc, c, rv):
    """Number of valid 3-card melds (faces, not copies) of card ``c`` with two
    other cards of ``hc`` (``hc`` counts ``c`` itself; one copy is left out)."""
    n = 0
    for i in range(TRIOS.shape[0]):
        inside = False
        for j in range(3):
            if TRIOS[i, j] == c:
                inside = True
        if not inside or not trio_allowed(i, rv):
            continue
        ok = True
        for j in range(3):
            f = TRIOS[i, j]
            need = 0
            for k in range(3):
                if TRIOS[i, k] == f:
                    need += 1
            if need > hc[f]:
                ok = False
        if ok:
            n += 1
    return n


# ---------------------------------------------------------------- small readers
@njit(cache=True, inline="always", _nrt=False)
def is_wild(c):
    """A joker or any 2 (count face ``c``)."""
    return c == JOKER or c % 13 == 1


@njit(cache=True, _nrt=False)
def has_burraco(st, team):
    """Does ``team`` hold a meld of 7 or more cards (R28)?"""
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_LEN] >= 7:
            return True
    return False


@njit(cache=True, _nrt=False)
def opp_team(st, rv, seat):
    """The team of the next seat (the opponents, R5)."""
    return st.g[G_TEAM + (seat + 1) % rv[L.RV_NUM_PLAYERS]]


@njit(cache=True, _nrt=False)
def fits_team(st, team, c):
    """Could card ``c`` be laid off alone on one of ``team``'s melds (R24)?"""
    for mi in range(st.nm[team]):
        if layoff_fits(st.mcnt, st.minfo, team, mi, c) > 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def meld_value(cnt, rv):
    """Points of a meld: its cards (R2) and its burraco bonus (R56)."""
    v = 0
    for f in range(N_COUNT):
        v += cnt[f] * CVALUE[f]
    cls = burraco_class(cnt, rv[L.RV_SET_RANKS_MASK] | ANY_RANK, rv[L.RV_SEMI_CLEAN_RULE])
    return v + burraco_bonus(cnt, cls, rv)


@njit(cache=True, _nrt=False)
def class_rank(cnt, rv):
    """Burraco class of a meld as a rank: 0 none, 1 dirty, 2 semi-clean (only
    with a semi-clean bonus), 3 clean (R27-R29)."""
    cls = burraco_class(cnt, ANY_RANK, rv[L.RV_SEMI_CLEAN_RULE])
    if cls == 1:
        return 3
    if cls == 3 and rv[L.RV_SEMI_CLEAN_BONUS] > 0:
        return 2
    if cls == 0:
        return 0
    return 1


@njit(cache=True)
def mem(work):
    """This turn's memory of the seat to move, ``int64[4]`` view: ``[stamp, new
    melds this turn, lay-offs this turn, face of the last lay-off or -1]``;
    reset at the pickup and whenever the stamp is not this turn's."""
    st = views(work)[0]
    m = views(work)[11][CAND_ROWS - 1]
    stamp = st.g[G_TURN] * 8 + st.g[G_SEAT] + 1
    if m[0] != stamp or st.g[G_PHASE] == PH_PICKUP:
        m[0] = stamp
        m[1] = 0
        m[2] = 0
        m[3] = -1
    return m


@njit(cache=True, _nrt=False)
def note(m, a):
    """Record action ``a`` in the turn memory ``m`` (:func:`mem`); returns ``a``."""
    if a >= A_CREATE:
        m[1] += 1
    elif a >= A_LAYOFF:
        m[2] += 1
        m[3] = (a - A_LAYOFF) % N_COUNT
    return a


@njit(cache=True, _nrt=False)
def action_cards(a, cnt):
    """Fill ``cnt`` (int64[53], overwritten) with the cards a create or lay-off
    moves; returns their number."""
    if a >= A_CREATE:
        meld_sel(a - A_CREATE, cnt)
    else:
        for f in range(N_COUNT):
            cnt[f] = 0
        cnt[(a - A_LAYOFF) % N_COUNT] = 1
    n = 0
    for f in range(N_COUNT):
        n += cnt[f]
    return n


@njit(cache=True, _nrt=False)
def result_meld(st, team, a, cnt):
    """Fill ``cnt`` with the meld a create or lay-off leaves on the table;
    returns the meld index it goes on (-1 for a new meld)."""
    if a >= A_CREATE:
        meld_sel(a - A_CREATE, cnt)
        return -1
    mi = (a - A_LAYOFF) // N_COUNT
    for f in range(N_COUNT):
        cnt[f] = st.mcnt[team, mi, f]
    cnt[(a - A_LAYOFF) % N_COUNT] += 1
    return mi


@njit(cache=True, _nrt=False)
def wilds_of(cnt):
    """Jokers and 2s counted in ``cnt`` (physical wilds)."""
    n = cnt[JOKER]
    for s in range(4):
        n += cnt[13 * s + 1]
    return n


@njit(cache=True, _nrt=False)
def points_of(cnt):
    v = 0
    for f in range(N_COUNT):
        v += cnt[f] * CVALUE[f]
    return v


@njit(cache=True, _nrt=False)
def single_layoff(st, rv, team, seat, a, scratch):
    """Is lay-off ``a`` a single card the meld accepts alone (R24)?"""
    mi = (a - A_LAYOFF) // N_COUNT
    c = (a - A_LAYOFF) % N_COUNT
    return can_layoff(st, rv, team, seat, mi, c, scratch)[0] == OK


@njit(cache=True, _nrt=False)
def is_replacement(st, team, a):
    """Is lay-off ``a`` a natural card that takes the slot of the meld's fixed
    wild (R19, the wild then moves)?"""
    mi = (a - A_LAYOFF) // N_COUNT
    c = (a - A_LAYOFF) % N_COUNT
    if is_wild(c) or st.minfo[team, mi, MI_KIND] != KIND_SEQ:
        return False
    ws = st.minfo[team, mi, MI_WSLOT]
    if ws < 1:
        return False
    r = c % 13
    return ws == r + 1 or (r == 0 and ws == 14)


@njit(cache=True, _nrt=False)
def has_action(ids, n, a):
    for i in range(n):
        if ids[i] == a:
            return True
    return False


@njit(cache=True, _nrt=False)
def discard_ok(st, rv, team, seat, c):
    """Can a card of count face ``c`` be discarded now (some copy, R36-R45)?"""
    for i in range(st.hn[seat]):
        cid = st.hand[seat, i]
        if CIDX[cid] == c and can_discard(st, rv, team, seat, cid)[0] == OK:
            return True
    return False


@njit(cache=True, _nrt=False)
def random_discard(st, rv, team, seat, rng):
    """A uniformly drawn hand card among those that may be discarded (a copy
    counts once each): its discard id."""
    k = 0
    for i in range(st.hn[seat]):
        if can_discard(st, rv, team, seat, st.hand[seat, i])[0] == OK:
            k += 1
    j = bounded(rng, k)
    for i in range(st.hn[seat]):
        cid = st.hand[seat, i]
        if can_discard(st, rv, team, seat, cid)[0] == OK:
            if j == 0:
                return A_DISCARD + CIDX[cid]
            j -= 1
    return -1


@njit(cache=True, _nrt=False)
def first_discard(ids, n):
    """The first legal discard in the canonical face order."""
    for i in range(n):
        if ids[i] >= A_DISCARD and ids[i] < A_LAYOFF:
            return ids[i]
    return ids[0]


@njit(cache=True, _nrt=False)
def best_meld_action(ids, n, scores, prefer_last):
    """The id of the highest score among ``scores[:n]`` (``NEG`` = never); ties
    to the first (or the last with ``prefer_last``); -1 when none."""
    best = -1
    bs = NEG
    for i in range(n):
        s = scores[i]
        if s == NEG:
            continue
        if best < 0 or s > bs or (prefer_last and s == bs):
            best = i
            bs = s
    if best < 0:
        return -1
    return ids[best]


@njit(cache=True, _nrt=False)
def finish_meld(ids, n, a):
    """The meld-phase answer: ``a``, or when the bot stops (-1) "end the meld
    phase" if legal, else (phase ``place``, R34) the first placement."""
    if a >= 0:
        return a
    if has_action(ids, n, A_END_MELD):
        return A_END_MELD
    for i in range(n):
        if ids[i] != A_END_MELD:
            return ids[i]
    return ids[0]


@njit(cache=True, _nrt=False)
def take_if(ids, n, want):
    """Pickup answer: the pile when ``want`` and legal (R34), else the stock."""
    if want and has_action(ids, n, A_TAKE):
        return A_TAKE
    return A_DRAW


# ---------------------------------------------------------------- goodwin_random
@njit(cache=True)
def goodwin_random_chooser(work):
    """``goodwin_random``: coin-flip pickup; melds everything in the order new
    sequence (most naturals, natural-only first) > lay-off on a sequence > new
    set (most naturals, natural-only first) > lay-off on a set; a uniformly
    drawn discard."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, bounded(rng, 2) == 1)
    if ph == PH_DISCARD:
        return random_discard(st, rv, team, seat, rng)
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF:
            continue
        if a < A_CREATE:
            if not single_layoff(st, rv, team, seat, a, scratch):
                continue
            mi = (a - A_LAYOFF) // N_COUNT
            s = 3e6 if st.minfo[team, mi, MI_KIND] == KIND_SEQ else 1e6
        else:
            k = action_cards(a, sel)
            nw = analyze(sel, ANY_RANK)[1]
            s = (4e6 if a - A_CREATE >= N_SET_MELDS else 2e6) + 10.0 * (k - nw) + (nw == 0)
        if s > bs:
            bs = s
            best = a
    return finish_meld(ids, n, best)


# ---------------------------------------------------------------- goodwin_low
@njit(cache=True, _nrt=False)
def _low_rank_key(r):
    """Rank order with aces high: 3..K as 2..12, the ace as 13."""
    return 13 if r == 0 else r


@njit(cache=True, _nrt=False)
def _first_wild(hc):
    for s in range(4):
        if hc[13 * s + 1] > 0:
            return 13 * s + 1
    if hc[JOKER] > 0:
        return JOKER
    return -1


@njit(cache=True)
def goodwin_low_candidate(st, rv, team, seat, skip_invalid, sel):
    """``goodwin_low``'s new meld: its candidate list (per suit, sliding windows of
    the suit's distinct naturals, aces high, longest first, a one-rank gap filled
    with the first wild; then groups of a rank) and the first of it; an invalid
    first candidate (2 cards) melds nothing unless ``skip_invalid``.  Returns
    the create id or -1."""
    hc = st.hcnt[seat]
    w = _first_wild(hc)
    minlen = 2 if w >= 0 else 3
    keys = np.zeros(13, np.int64)
    for s in range(4):
        m = 0
        for k in range(2, 14):
            r = 0 if k == 13 else k
            if hc[13 * s + r] > 0:
                keys[m] = k
                m += 1
        for length in range(m, minlen - 1, -1):
            for lo in range(0, m - length + 1):
                span = keys[lo + length - 1] - keys[lo] + 1
                if span != length and not (span == length + 1 and w >= 0):
                    continue
                for f in range(N_COUNT):
                    sel[f] = 0
                for j in range(lo, lo + length):
                    r = 0 if keys[j] == 13 else keys[j]
                    sel[13 * s + r] = 1
                if span == length + 1:
                    sel[w] += 1
                a = create_action(sel)
                if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                    return a
                if a < 0 and not skip_invalid and span < 3:
                    return -1
    for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        k = 0
        for s in range(4):
            k += hc[13 * s + r]
        if k >= 3 or (k >= 2 and w >= 0):
            for f in range(N_COUNT):
                sel[f] = 0
            for s in range(4):
                sel[13 * s + r] = hc[13 * s + r]
            a = create_action(sel)
            if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                return a
            if a < 0 and not skip_invalid:
                return -1
    return -1


@njit(cache=True)
def goodwin_low_chooser(work):
    """``goodwin_low``: the pile when it has more than ``pile_min - 1`` cards;
    at most one new meld per turn (:func:`goodwin_low_candidate`), never a
    lay-off; discards the first card in the canonical order."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    if ph == PH_PICKUP:
        return take_if(ids, n, st.g[G_PN] >= p[0])
    if ph == PH_DISCARD:
        return first_discard(ids, n)
    a = -1
    if m[1] == 0:
        a = goodwin_low_candidate(st, rv, team, seat, p[1] != 0, sel)
    return note(m, finish_meld(ids, n, a))


# ---------------------------------------------------------------- babbo_coded
@njit(cache=True)
def babbo_candidate(st, rv, team, seat, keep, ace_in_runs, sel, best_sel):
    """``babbo_coded``'s new meld: the longest of its candidates (runs per suit
    with one gap bridged by the first wild, sets of all naturals of a rank plus
    the first wild when one is held) that leaves ``keep`` cards; sequences win
    ties, then suits and ranks in order.  Returns the create id or -1."""
    hc = st.hcnt[seat]
    w = _first_wild(hc)
    hn = st.hn[seat]
    best = -1
    blen = 0
    for s in range(4):
        # the suit's naturals sorted (2s out; aces high when allowed)
        seq = np.zeros(28, np.int64)
        m = 0
        for k in range(2, 14 if ace_in_runs else 13):
            r = 0 if k == 13 else k
            for _ in range(hc[13 * s + r]):
                seq[m] = k
                m += 1
        used_gap = False
        start = 0
        while start < m:
            end = start
            wild_in = False
            while end + 1 < m:
                d = seq[end + 1] - seq[end]
                if d == 1:
                    end += 1
                elif d == 2 and not used_gap and w >= 0:
                    used_gap = True
                    wild_in = True
                    end += 1
                else:
                    if d == 2:
                        used_gap = True
                    break
            length = end - start + 1 + (1 if wild_in else 0)
            if length >= 3 and hn - length >= keep and length > blen:
                for f in range(N_COUNT):
                    sel[f] = 0
                for j in range(start, end + 1):
                    r = 0 if seq[j] == 13 else seq[j]
                    sel[13 * s + r] += 1
                if wild_in:
                    sel[w] += 1
                a = create_action(sel)
                if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
                    best = a
                    blen = length
            start = end + 1
    for r in (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        k = 0
        for s in range(4):
            k += hc[13 * s + r]
        length = k + (1 if w >= 0 else 0)
        if k == 0 or length < 3 or hn - length < keep or length <= blen:
            continue
        for f in range(N_COUNT):
            sel[f] = 0
        for s in range(4):
            sel[13 * s + r] = hc[13 * s + r]
        if w >= 0:
            sel[w] += 1
        a = create_action(sel)
        if a >= 0 and can_create(st, rv, team, seat, sel)[0] == OK:
            best = a
            blen = length
    return best


@njit(cache=True)
def babbo_coded_chooser(work):
    """``babbo_coded``: the pile by hand and pile size; one pass of single-card
    lay-offs in hand order, each on the first meld taking it, keeping cards
    back; then at most one new meld, the longest (:func:`babbo_candidate`);
    a uniformly drawn discard."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    m = mem(work)
    h = st.hn[seat]
    B = has_burraco(st, team)
    Z = st.g[G_TPOZ + team] != 0
    if ph == PH_PICKUP:
        pn = st.g[G_PN]
        if B:
            return take_if(ids, n, h == 2 and pn >= p[1])
        return take_if(ids, n, h == 1 or pn >= p[0])
    if ph == PH_DISCARD:
        return random_discard(st, rv, team, seat, rng)
    if m[1] > 0:
        return finish_meld(ids, n, -1)
    # lay-offs: one pass in hand order, a card never retried
    rem = h - 1
    if rem >= 2 and not (rem == 2 and Z and not B) and (h > 2 or (h == 2 and (not Z or B))):
        for c in range(max(m[3], 0), N_COUNT):
            if st.hcnt[seat, c] == 0:
                continue
            for mi in range(st.nm[team]):
                a = A_LAYOFF + N_COUNT * mi + c
                if has_action(ids, n, a) and single_layoff(st, rv, team, seat, a, scratch):
                    return note(m, a)
    m[3] = N_COUNT          # the pass is over
    keep = p[3] if B else p[2]
    a = babbo_candidate(st, rv, team, seat, keep, p[4] != 0, sel, need)
    return note(m, finish_meld(ids, n, a))


# ---------------------------------------------------------------- blofroth_*
@njit(cache=True, inline="always", _nrt=False)
def peer_order(c):
    """blofroth's hand order: jokers first, then clubs, diamonds, hearts,
    spades, each 2 < 3 < ... < K < A."""
    if c == JOKER:
        return -1
    r = c % 13
    return 13 * (c // 13) + (12 if r == 0 else r - 1)


@njit(cache=True, _nrt=False)
def peer_first_discard(st, rv, team, seat, avoid_team):
    """The first card in blofroth's hand order that may be discarded and, with
    ``avoid_team`` >= 0, gives that team no lay-off; else the first that may be
    discarded.  Returns its discard id."""
    for pass_ in range(2):
        best = -1
        bo = 99
        for c in range(N_COUNT):
            if st.hcnt[seat, c] == 0 or not discard_ok(st, rv, team, seat, c):
                continue
            if pass_ == 0 and avoid_team >= 0 and fits_team(st, avoid_team, c):
                continue
            if peer_order(c) < bo:
                bo = peer_order(c)
                best = c
        if best >= 0:
            return A_DISCARD + best
        if avoid_team < 0:
            break
    return -1


@njit(cache=True, _nrt=False)
def blofroth_class(st, rv, team, seat, a, three_only, scratch, sel):
    """The blofroth action class of a meld-phase id: 1 new sequence, 2 new set
    (3 cards when ``three_only``), 3 append (a single-card lay-off), 4 wild
    replacement; 0 not one of its actions."""
    if a < A_LAYOFF:
        return 0
    if a >= A_CREATE:
        if three_only and action_cards(a, sel) != 3:
            return 0
        return 1 if a - A_CREATE >= N_SET_MELDS else 2
    if not single_layoff(st, rv, team, seat, a, scratch):
        return 0
    return 4 if is_replacement(st, team, a) else 3


@njit(cache=True, _nrt=False)
def blofroth_delta(st, rv, team, a, sel):
    """Change of the team's meld points (cards R2 and bonus R56) by a create
    or lay-off."""
    mi = result_meld(st, team, a, sel)
    after = meld_value(sel, rv)
    if mi < 0:
        return after
    sel[(a - A_LAYOFF) % N_COUNT] -= 1
    return after - meld_value(sel, rv)


@njit(cache=True, _nrt=False)
def blofroth_tie(a):
    """Enumeration position of a lay-off: per hand card in blofroth's hand
    order, then per meld; creates 0."""
    if a >= A_CREATE or a < A_LAYOFF:
        return 0
    c = (a - A_LAYOFF) % N_COUNT
    return (peer_order(c) + 2) * 64 + (a - A_LAYOFF) // N_COUNT


@njit(cache=True)
def blofroth_chooser(work, variant):
    """The four blofroth agents (``variant`` 0 dumb, 1 random, 2 smart, 3 max).

    Pickup: dumb, smart's fallback and max alternate by round (stock on even
    rounds, the pile on odd ones); random flips a coin; smart takes the pile
    when one of its cards gives a new action (a lay-off or a 3-card meld with
    two hand cards).  Meld phase over the peer's action classes (3-card new
    melds, single-card appends, wild replacements): dumb the last listed
    (replacement > append > set > sequence), random a uniform one, smart the
    lowest (class weight, point gain), max the largest point gain.  Discard:
    the first card in the peer's hand order (jokers first); smart the first
    that gives the opponents no lay-off; random a uniform card.
    """
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        odd = ((st.g[G_TURN] - 1) // rv[L.RV_NUM_PLAYERS]) % 2 == 1 and p[0] != 0
        if variant == 1:
            return take_if(ids, n, bounded(rng, 2) == 1)
        if variant == 2:
            hc = st.hcnt[seat]
            for i in range(st.g[G_PN]):
                c = CIDX[st.pile[i]]
                if fits_team(st, team, c) or forms_trio(hc, c, rv, False):
                    return take_if(ids, n, True)
        return take_if(ids, n, odd)
    if ph == PH_DISCARD:
        if variant == 1:
            return random_discard(st, rv, team, seat, rng)
        if variant == 2:
            return peer_first_discard(st, rv, team, seat, opp_team(st, rv, seat))
        return peer_first_discard(st, rv, team, seat, -1)
    three = p[1] != 0
    w = p[2:7]      # smart's class weights: replacement, sequence, sequence with a wild, set, append
    k = 0
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        cl = blofroth_class(st, rv, team, seat, a, three, scratch, sel)
        if cl == 0:
            continue
        k += 1
        if variant == 1:
            if bounded(rng, k) == 0:
                best = a        # reservoir sampling: uniform over the class actions
            continue
        if variant == 0:
            s = cl * 1e6 + blofroth_tie(a) + (a - A_CREATE if a >= A_CREATE else 0) * 1e-5
            better = s >= bs
        elif variant == 2:
            if cl == 4:
                cw = w[0]
            elif cl == 1:
                action_cards(a, sel)
                cw = w[1] if analyze(sel, ANY_RANK)[1] == 0 else w[2]
            elif cl == 2:
                cw = w[3]
            else:
                cw = w[4]
            if cw >= p[7]:
                continue        # "end the meld phase" sorts first
            s = -(cw * 1e8 + blofroth_delta(st, rv, team, a, sel) * 1e4 + blofroth_tie(a))
            better = s > bs
        else:
            d = blofroth_delta(st, rv, team, a, sel)
            if d <= 0:
                continue
            s = d * 1e8 + cl * 1e6 + blofroth_tie(a)
            better = s >= bs
        if better:
            bs = s
            best = a
    return finish_meld(ids, n, best)


@njit(cache=True)
def blofroth_dumb_chooser(work):
    """``blofroth_dumb`` (:func:`blofroth_chooser` variant 0)."""
    return blofroth_chooser(work, 0)


@njit(cache=True)
def blofroth_random_chooser(work):
    """``blofroth_random`` (:func:`blofroth_chooser` variant 1)."""
    return blofroth_chooser(work, 1)


@njit(cache=True)
def blofroth_smart_chooser(work):
    """``blofroth_smart`` (:func:`blofroth_chooser` variant 2)."""
    return blofroth_chooser(work, 2)


@njit(cache=True)
def blofroth_max_chooser(work):
    """``blofroth_max`` (:func:`blofroth_chooser` variant 3)."""
    return blofroth_chooser(work, 3)


# ---------------------------------------------------------------- masu_*
@njit(cache=True)
def masu_meld_score(st, rv, team, seat, a, normal, sel, scratch):
    """Lexicographic rank of a create or lay-off (higher is better), or ``NEG``
    for a lay-off of several cards.  ``normal``: closure this turn, pozzetto
    al volo, class gain, class after; then (both profiles) more cards, fewer
    wilds, more points."""
    if a < A_CREATE and not single_layoff(st, rv, team, seat, a, scratch):
        return NEG
    k = action_cards(a, sel)
    nw = wilds_of(sel)
    pts = points_of(sel)
    s = k * 1e7 + (20 - nw) * 1e5 + pts
    if not normal:
        return s
    left = st.hn[seat] - k
    # the card left in hand after the action (when one is left)
    last = -1
    if left == 1:
        for c in range(N_COUNT):
            if st.hcnt[seat, c] - sel[c] > 0:
                last = c
    mi = result_meld(st, team, a, sel)
    after = class_rank(sel, rv)
    before = 0
    if mi >= 0:
        sel[(a - A_LAYOFF) % N_COUNT] -= 1
        before = class_rank(sel, rv)
        sel[(a - A_LAYOFF) % N_COUNT] += 1
    took = st.g[G_TPOZ + team] != 0
    poz = left == 0 and not took
    burraco = has_burraco(st, team) or k + (0 if mi < 0 else st.minfo[team, mi, MI_LEN]) >= 7
    closure = (not poz) and took and left == 1 and last >= 0 and not is_wild(last) and burraco
    return (closure * 1e14 + poz * 1e13 + (after - before + 3) * 1e11 + after * 1e10 + s)


@njit(cache=True)
def masu_discard(st, rv, team, seat, normal, hc):
    """The discard of ``masu_normal`` (closes, not a wild, fits no own meld, fewer
    future 3-card melds, fits no opposing meld, more points) or ``masu_easy``
    (not a wild, more points); ties to the lowest face.  ``hc`` is a work
    array."""
    opp = opp_team(st, rv, seat)
    for f in range(N_COUNT):
        hc[f] = st.hcnt[seat, f]
    best = -1
    bs = NEG
    for c in range(N_COUNT):
        if hc[c] == 0 or not discard_ok(st, rv, team, seat, c):
            continue
        s = (not is_wild(c)) * 1e9 + CVALUE[c]
        if normal:
            closes = st.hn[seat] == 1 and st.g[G_TPOZ + team] != 0
            hc[c] -= 1
            fut = trio_count_with(hc, c, rv) if hc[c] >= 0 else 0
            hc[c] += 1
            s += (closes * 1e12 + (not fits_team(st, team, c)) * 1e8
                  + (999 - min(fut, 999)) * 1e4 + (not fits_team(st, opp, c)) * 1e3)
        if s > bs:
            bs = s
            best = c
    return A_DISCARD + best


@njit(cache=True)
def masu_chooser(work, normal):
    """``masu_normal`` (``normal`` true) or ``masu_easy``.  Pickup: normal takes
    the pile when one of its cards is used by a 3-card meld with the hand and
    the rest of the pile, or fits an own meld; easy always draws.  Meld phase:
    the best of every create and single-card lay-off by :func:`masu_meld_score`
    until none is left.  Discard: :func:`masu_discard`."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    if ph == PH_PICKUP:
        if not normal:
            return A_DRAW
        for f in range(N_COUNT):
            need[f] = 0
        for i in range(st.g[G_PN]):
            need[CIDX[st.pile[i]]] += 1
        want = False
        for f in range(N_COUNT):
            if need[f] > 0 and fits_team(st, team, f):
                want = True
        if not want:
            for i in range(TRIOS.shape[0]):
                if trio_allowed(i, rv) and trio_fit(i, st.hcnt[seat], need) == 2:
                    want = True
                    break
        return take_if(ids, n, want)
    if ph == PH_DISCARD:
        return masu_discard(st, rv, team, seat, normal, need)
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF:
            continue
        s = masu_meld_score(st, rv, team, seat, a, normal, sel, scratch)
        if s > bs:
            bs = s
            best = a
    return finish_meld(ids, n, best)


@njit(cache=True)
def masu_normal_chooser(work):
    """``masu_normal`` (:func:`masu_chooser`)."""
    return masu_chooser(work, True)


@njit(cache=True)
def masu_easy_chooser(work):
    """``masu_easy`` (:func:`masu_chooser`)."""
    return masu_chooser(work, False)
