"""Decision functions of the strategies (policy kinds in :mod:`kernels.core.layout`).

A policy sees only what its player may see (R11): its own hand, both teams'
melds, the whole discard pile, hand sizes and the stock size.  It never reads
other hands, the stock order or untaken pozzetti.  Legality always comes from
:mod:`kernels.engine.legal`; a policy only chooses among legal moves.

Parameter slots of the ``heuristic`` policy (``float64[N_PARAMS]`` row) are
the ``HP_*`` constants of :mod:`kernels.core.layout`; names, defaults and
meanings are in ``sim.strategies``.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import BURRACO_LEN, CIDX, CVALUE, JOKER, N_COUNT
from kernels.core.layout import (HP_CLOSE_MIN_BURRACOS, HP_DISCARD_W_DANGER, HP_DISCARD_W_MIDDLE,
                     HP_DISCARD_W_NEIGHBOR, HP_DISCARD_W_PAIR, HP_DISCARD_W_POINTS,
                     HP_DISCARD_W_WILD, HP_MELD_DELAY_ROUNDS, HP_PILE_AVOID_OPP_2_OR_5,
                     HP_PILE_MIN_SIZE, HP_PILE_MIN_STOCK, HP_PILE_SIZE_WEIGHT, HP_PILE_THRESHOLD, HP_PILE_W_WILD,
                     HP_SET_BIAS, HP_USE_WILD_TO_MELD, HP_WILD_LAYOFF_MIN_LEN)
from kernels.engine.actions import (A_CREATE, A_CREATE_SEL, A_DISCARD, A_DRAW, A_END_MELD, A_LAYOFF, A_TAKE, N_ACTIONS,
                      legal_actions,
                      PH_DISCARD, PH_MELD, PH_PICKUP, PH_PLACE, meld_sel)
from kernels.engine.legal import (OK, can_create, can_discard, can_layoff, can_take_pile, find_placement,
                    layoff_fits, trio_sel)
from kernels.core.melds import KIND_SEQ, KIND_SET
from kernels.core.rng import bounded
from kernels.table.work import W_LEGAL, views
from kernels.table.state import (view_i64, G_BARRED, G_PHASE, G_PN, G_SEAT, G_SLEN, G_SP, G_TEAM, G_TPOZ, G_TURN, MI_KEY, MI_KIND,
                    MI_LEN, MI_NWILD, NTEAMS, meld_add, meld_create, reset_g)


@njit(cache=True, inline="always", _nrt=False)
def _is_wild_c(c):
    return c == JOKER or c % 13 == 1


@njit(cache=True, _nrt=False)
def _slot_present(cnt, base, sl):
    """Is slot ``sl`` (1..14) of the suit at ``base`` held by a natural in ``cnt``?"""
    if sl == 1 or sl == 14:
        return cnt[base] > 0
    return cnt[base + sl - 1] > 0


@njit(cache=True, _nrt=False)
def _slot_c(base, sl):
    if sl == 1 or sl == 14:
        return base
    return base + sl - 1


#: :func:`kernels.engine.legal.layoff_fits` itself (the same Python function), compiled to be
#: inlined at the heuristic's calls: it runs once per candidate card and meld, and
#: its arguments cost as much to pass as its fast paths cost to run (with
#: NUMBA_DISABLE_JIT=1 ``layoff_fits`` is the plain function, without ``py_func``)
_layoff_fits = njit(cache=True, inline="always", _nrt=False)(getattr(layoff_fits, "py_func", layoff_fits))


@njit(cache=True, inline="always", _nrt=False)
def _rank_mask(hc, base):
    """Bit ``r`` set when the hand counts ``hc`` hold rank ``r`` of the suit at ``base``."""
    m = np.int64(0)
    for r in range(13):
        if hc[base + r] > 0:
            m |= np.int64(1) << r
    return m


@njit(cache=True, inline="always", _nrt=False)
def _slot_mask(rm):
    """The 14-slot mask (bit ``sl - 1`` for slot ``sl``) of a suit's rank mask
    ``rm``: rank ``r`` >= 1 holds slot ``r + 1`` (the 2 slot 2), the ace slots 1
    and 14.  ``(m >> (sl - 1)) & 1`` is :func:`_slot_present`."""
    return rm | ((rm & 1) << 13)


@njit(cache=True, inline="always", _nrt=False)
def _hand_slot_masks(hc):
    """The four suits' slot masks (:func:`_slot_mask`) of the hand counts ``hc``."""
    return (_slot_mask(_rank_mask(hc, 0)), _slot_mask(_rank_mask(hc, 13)),
            _slot_mask(_rank_mask(hc, 26)), _slot_mask(_rank_mask(hc, 39)))


# ---------------------------------------------------------------- heuristic
@njit(cache=True, inline="always", _nrt=False)
def _fits_meld(mcnt, minfo, nm, team, c):
    """Could card ``c`` be laid off on one of ``team``'s melds (one step, R24)?

    Takes the state's meld arrays rather than the state tuple: passing the
    tuple costs more than this function's work.
    """
    wild = _is_wild_c(c)
    for mi in range(nm[team]):
        if not wild:
            kind = minfo[team, mi, MI_KIND]
            key = minfo[team, mi, MI_KEY]
            if kind == KIND_SET and c % 13 != key:
                continue
            if kind == KIND_SEQ and c // 13 != key:
                continue
        if _layoff_fits(mcnt, minfo, team, mi, c) > 0:
            return True
    return False


@njit(cache=True, inline="always", _nrt=False)
def _forms_natural_meld(cnt, sm, c):
    """Would natural ``c`` make a 3-card natural meld with the counts ``cnt``
    (``sm``: their slot masks, :func:`_hand_slot_masks`)?  A set needs two more
    of the rank; a sequence three slots in a row held with ``c``'s own (the
    ace's slot 1 or 14, a 2 of the suit in slot 2)."""
    r = c % 13
    s = c // 13
    same_rank = cnt[r] + cnt[13 + r] + cnt[26 + r] + cnt[39 + r]
    if same_rank >= 2:
        return True
    m = sm[s]
    if r == 0:
        slots = (1, 14)
    else:
        slots = (r + 1, r + 1)
    for k in range(2):
        sl = slots[k]
        mm = m | (np.int64(1) << (sl - 1))
        for a in range(sl - 2, sl + 1):
            if a < 1 or a + 2 > 14:
                continue
            if ((mm >> (a - 1)) & 7) == 7:
                return True
    return False


@njit(cache=True, _nrt=False)
def heur_pickup(st, rv, seat, p):
    """Take the discard pile (True) or draw from the stock (False)."""
    hn, hcnt, pile, g = st.hn, st.hcnt, st.pile, st.g
    mcnt, minfo, nm = st.mcnt, st.minfo, st.nm
    team = g[G_TEAM + seat]
    pn = g[G_PN]
    # gates: pile too small, hand too far on (stock), an opponent on 2 or 5 cards
    if pn < p[HP_PILE_MIN_SIZE] or g[G_SLEN] - g[G_SP] < p[HP_PILE_MIN_STOCK]:
        return False
    if p[HP_PILE_AVOID_OPP_2_OR_5] >= 0.5:
        for o in range(rv[L.RV_NUM_PLAYERS]):
            if g[G_TEAM + o] != team and (hn[o] == 2 or hn[o] == 5):
                return False
    useful = 0.0
    sm = _hand_slot_masks(hcnt[seat])
    # every card adds 0, 1 or w_wild: with w_wild >= 0 the score only grows, so the
    # answer is known as soon as it reaches the threshold with some use found
    monotone = p[HP_PILE_W_WILD] >= 0.0
    size_part = p[HP_PILE_SIZE_WEIGHT] * pn
    for i in range(pn):
        c = pile[i] % 54
        if c >= 52:
            c = JOKER
        if _is_wild_c(c):
            useful += p[HP_PILE_W_WILD]
        elif _forms_natural_meld(hcnt[seat], sm, c) or _fits_meld(mcnt, minfo, nm, team, c):
            useful += 1.0
        else:
            continue
        if monotone and useful != 0.0 and useful + size_part >= p[HP_PILE_THRESHOLD]:
            return True
    if useful == 0.0:
        return False
    score = useful + size_part
    return score >= p[HP_PILE_THRESHOLD]


@njit(cache=True, _nrt=False)
def _hold_for_burracos(minfo, nm, g, team, left, extra_mi, extra_len, p):
    """``close_min_burracos``: would an action that leaves ``left`` cards make the
    next discard a close (pozzetto taken, one card left) while the team has
    fewer burracos than wanted?  ``extra_mi`` (-1 a new meld) / ``extra_len``:
    the meld the action makes or extends, as after it."""
    need = p[HP_CLOSE_MIN_BURRACOS]
    if need <= 0.0 or left != 1 or g[G_TPOZ + team] == 0:
        return False
    n = 0
    if extra_len >= BURRACO_LEN:
        n += 1
    for mi in range(nm[team]):
        if mi != extra_mi and minfo[team, mi, MI_LEN] >= BURRACO_LEN:
            n += 1
    return n < need


@njit(cache=True, _nrt=False)
def _create_ok(st, rv, team, seat, sel, p):
    """Is the new meld counted in ``sel`` legal and not held back by ``close_min_burracos``?"""
    if p[HP_CLOSE_MIN_BURRACOS] > 0.0:
        nsel = 0
        for f in range(53):
            nsel += sel[f]
        if _hold_for_burracos(st.minfo, st.nm, st.g, team, st.hn[seat] - nsel,
                              np.int64(-1), nsel, p):
            return False
    code, kind, nwild = can_create(st, rv, team, seat, sel)
    return code == OK


def _run_table():
    """RUN_TABLE[m]: longest run of held slots in the 14-slot mask ``m`` (bit
    ``sl - 1`` for slot ``sl``; an ace sets slots 1 and 14), capped at 13, and
    its first slot, as ``16 * length + first``; the first longest run wins."""
    t = np.zeros(1 << 14, np.int16)
    for m in range(1 << 14):
        best_len = best_a = run = 0
        for sl in range(1, 15):
            if (m >> (sl - 1)) & 1:
                run += 1
                if best_len < run <= 13:
                    best_len = run
                    best_a = sl - run + 1
            else:
                run = 0
        t[m] = 16 * best_len + best_a
    return t


RUN_TABLE = _run_table()
# slot bits of each rank in a suit mask (rank 0, the ace, holds slots 1 and 14)
RANK_SLOT_BITS = np.array([1 | (1 << 13)] + [1 << r for r in range(1, 13)], np.int64)


@njit(cache=True, _nrt=False)
def _best_run(hc, base):
    """Longest run of natural slots in one suit: (length, first slot).

    Slot 2 counts the suit's 2 as held.  The suit's cards give a 14-bit slot
    mask, looked up in :data:`RUN_TABLE`.
    """
    m = 0
    for r in range(13):
        if hc[base + r] > 0:
            m |= RANK_SLOT_BITS[r]
    v = RUN_TABLE[m]
    return np.int64(v >> 4), np.int64(v & 15)


@njit(cache=True, _nrt=False)
def heur_meld_choice(st, rv, seat, p, sel, scratch):
    """The heuristic's next meld-phase action id, or -1 when it stops.

    Order: natural lay-offs, natural sets and sequences (largest first), then
    plays that use a wild.  Every action is checked by :mod:`kernels.engine.legal`
    (R38 included) before it is chosen; ``st`` is not mutated (``sel`` and
    ``scratch``, int64[53] work arrays, are).  Candidate sets of a rank that
    option ``set_ranks`` keeps from forming sets (R15) are refused without
    asking :func:`kernels.engine.legal.can_create`, which would refuse them too.
    """
    hn, hcnt, mcnt, minfo, nm, g = st.hn, st.hcnt, st.mcnt, st.minfo, st.nm, st.g
    team = st.g[G_TEAM + seat]
    hc = hcnt[seat]
    small = hn[seat] <= 4
    sm = _hand_slot_masks(hc)           # the hand's slots per suit, read by every part below
    set_mask = rv[L.RV_SET_RANKS_MASK]  # bit r: rank r may form a set (R15)
    # A. lay off naturals (and same-suit 2s entering as natural 2s); remember the
    #    first natural lay-off that would make a meld dirty, for D1
    d1_mi = np.int64(-1)       # np.int64: a literal would make Numba compile a
    d1_c = np.int64(-1)        # second, unused version of meld_add
    for mi in range(nm[team]):
        kind = minfo[team, mi, MI_KIND]
        key = minfo[team, mi, MI_KEY]
        nw = minfo[team, mi, MI_NWILD]
        d1_ok = small or minfo[team, mi, MI_LEN] + 1 >= BURRACO_LEN
        if kind == KIND_SET:
            first, step, count = key, 13, 4
            held = np.int64(0)
            for k in range(4):
                if (sm[k] >> key) & 1:
                    held |= np.int64(1) << k
        else:
            first, step, count = 13 * key, 1, 13
            held = sm[key] & 0x1FFF             # bit r: rank r of the suit is held
        for k in range(count):
            if held >> k == 0:
                break
            if ((held >> k) & 1) == 0:
                continue
            c = first + k * step
            # can_layoff, without handing it the state unless R38 may bite
            v = _layoff_fits(mcnt, minfo, team, mi, c)
            if v == 0:
                continue
            nnw = v - 1
            code = OK
            if hn[seat] < 3:
                code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK and not _hold_for_burracos(minfo, nm, g, team, hn[seat] - 1, mi,
                                                      minfo[team, mi, MI_LEN] + 1, p):
                if nnw <= nw:
                    return A_LAYOFF + N_COUNT * mi + c
                if d1_mi < 0 and d1_ok and c % 13 != 1:
                    d1_mi = mi
                    d1_c = c
    # keeping cards back: no new meld in the first meld_delay_rounds rounds
    delay = p[HP_MELD_DELAY_ROUNDS]
    opening = delay <= 0.0 or (g[G_TURN] - 1) // 4 + 1 > delay
    # B/C. natural sets and runs
    best_set = 0
    best_r = -1
    for r in range(13):
        if r == 1:
            continue
        nn = hc[r] + hc[13 + r] + hc[26 + r] + hc[39 + r]
        if nn >= 3 and nn > best_set and opening:
            best_set = nn
            best_r = r
    best_run = 0
    best_s = -1
    best_a = 0
    for s in range(4):
        v = RUN_TABLE[sm[s]]
        ln = np.int64(v >> 4)
        a = np.int64(v & 15)
        if ln >= 3 and ln > best_run and opening:
            best_run = ln
            best_s = s
            best_a = a
    for attempt in range(2):
        do_set = best_set >= 3 and (best_set + p[HP_SET_BIAS] >= best_run)
        if attempt == 1:
            do_set = not do_set
        if do_set and best_set >= 3:
            settable = (set_mask >> best_r) & 1 != 0
            for k in range(best_set, 2, -1):
                for f in range(53):
                    sel[f] = 0
                left = k
                for s in range(4):
                    c = 13 * s + best_r
                    take = min(hc[c], left)
                    sel[c] = take
                    left -= take
                # naturals of one rank meld only as a set: none unless set_ranks lets the
                # rank form one (R15), so can_create is not asked (sel is still filled)
                if settable and _create_ok(st, rv, team, seat, sel, p):
                    return A_CREATE_SEL
        if (not do_set) and best_run >= 3:
            base = 13 * best_s
            for ln in range(best_run, 2, -1):
                for shift in range(best_run - ln + 1):
                    for f in range(53):
                        sel[f] = 0
                    for sl in range(best_a + shift, best_a + shift + ln):
                        if sl == 2:
                            sel[base + 1] = 1
                        else:
                            sel[_slot_c(base, sl)] = 1
                    if _create_ok(st, rv, team, seat, sel, p):
                        return A_CREATE_SEL
    # D. plays that use a wild
    wc = -1
    if hc[JOKER] > 0:
        wc = JOKER
    else:
        for s in range(4):
            if hc[13 * s + 1] > 0:
                wc = 13 * s + 1
                break
    min_len = p[HP_WILD_LAYOFF_MIN_LEN]
    # D1. natural lay-offs that turn a clean meld dirty (R25.2), for a burraco or to go out
    if d1_mi >= 0:
        return A_LAYOFF + N_COUNT * d1_mi + d1_c
    if wc < 0:
        return -1
    # D2. a wild on a clean meld long enough (a burraco), or to go out
    for mi in range(nm[team]):
        if minfo[team, mi, MI_NWILD] > 0:
            continue
        ln = minfo[team, mi, MI_LEN]
        if ln >= min_len or small:
            if _layoff_fits(mcnt, minfo, team, mi, wc) == 0:
                continue
            code = OK
            if hn[seat] < 3:
                code, nlen, nnw = can_layoff(st, rv, team, seat, mi, wc, scratch)
            if code == OK and not _hold_for_burracos(minfo, nm, g, team, hn[seat] - 1, mi,
                                                      ln + 1, p):
                return A_LAYOFF + N_COUNT * mi + wc
    if (p[HP_USE_WILD_TO_MELD] < 0.5 and not small) or not opening:
        return -1
    # D3. open a meld from two naturals and the wild
    for r in range(13):
        if r == 1:
            continue
        nn = hc[r] + hc[13 + r] + hc[26 + r] + hc[39 + r]
        if nn == 2:
            for f in range(53):
                sel[f] = 0
            for s in range(4):
                sel[13 * s + r] = hc[13 * s + r]
            sel[wc] += 1
            if (set_mask >> r) & 1 != 0 and _create_ok(st, rv, team, seat, sel, p):   # as above
                return A_CREATE_SEL
    for s in range(4):
        base = 13 * s
        m = sm[s] & ~np.int64(2)            # slot 2 never takes part (below)
        if (m & (m - 1)) == 0:
            continue                        # fewer than two slots held
        for a in range(1, 13):
            if ((m >> (a - 1)) & 1) == 0:
                continue
            for gap in range(1, 3):
                b = a + gap
                if b > 14:
                    continue
                if a == 2 or b == 2:
                    continue
                if ((m >> (b - 1)) & 1) == 0:
                    continue
                if a == 1 and b == 14:
                    continue
                for f in range(53):
                    sel[f] = 0
                sel[_slot_c(base, a)] = 1
                sel[_slot_c(base, b)] = 1
                sel[wc] += 1
                if sel[wc] > hc[wc]:
                    continue
                if _create_ok(st, rv, team, seat, sel, p):
                    return A_CREATE_SEL
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _keep_value(hc, sm, mcnt, minfo, nm, opp, c, p):
    """How much the heuristic wants to keep a card of count index ``c`` (``hc``:
    the player's hand counts, ``sm`` their slot masks, :func:`_hand_slot_masks`;
    ``mcnt``/``minfo``/``nm``: the melds)."""
    v = 0.0
    if _is_wild_c(c):
        v += p[HP_DISCARD_W_WILD]
    else:
        r = c % 13
        s = c // 13
        same = 0
        for t in range(4):
            same += hc[13 * t + r]
        v += p[HP_DISCARD_W_PAIR] * (same - 1)
        if 4 <= r <= 8:
            v += p[HP_DISCARD_W_MIDDLE]          # ranks 5..9
        sl = r + 1
        if r == 0:
            sl = 1
        m = sm[s]
        nb = 0
        for d in range(-2, 3):
            if d == 0:
                continue
            x = sl + d
            if x < 1 or x > 14:
                continue
            nb += (m >> (x - 1)) & 1        # slot 2 is the suit's 2
        if r == 0:
            nb += ((m >> 11) & 1) + ((m >> 12) & 1)     # the queen and the king
        v += p[HP_DISCARD_W_NEIGHBOR] * nb
    if _fits_meld(mcnt, minfo, nm, opp, c):
        v += p[HP_DISCARD_W_DANGER]
    v -= p[HP_DISCARD_W_POINTS] * CVALUE[c]
    return v


@njit(cache=True, _nrt=False)
def heur_discard(st, rv, seat, p, vals, known):
    """The id the heuristic discards: the least useful legal card (R37).

    Keep-value of a card: wild bonus, same-rank and near same-suit cards in
    hand, danger of feeding the next opponent's melds, minus a small share of
    its points; the first card (in hand order) with the lowest value goes.
    ``vals`` (float64[53]) and ``known`` (int64[53]) are work arrays
    (overwritten).
    """
    hand, hn, g = st.hand, st.hn, st.g
    hc, mcnt, minfo, nm = st.hcnt[seat], st.mcnt, st.minfo, st.nm
    team = g[G_TEAM + seat]
    opp = g[G_TEAM + (seat + 1) % rv[L.RV_NUM_PLAYERS]]     # who may take this discard
    if hn[seat] == 1:
        cid = hand[seat, 0]
        code, closes = can_discard(st, rv, team, seat, cid)
        if code == OK:
            return cid
        return -1
    barred = g[G_BARRED]
    sm = _hand_slot_masks(hc)
    for c in range(53):
        known[c] = 0
    best = -1
    best_v = 1e300
    for i in range(hn[seat]):
        cid = hand[seat, i]
        if cid == barred:
            continue                  # R36; any other card is a legal discard (R37, R39)
        c = CIDX[cid]
        if known[c] == 0:
            vals[c] = _keep_value(hc, sm, mcnt, minfo, nm, opp, c, p)
            known[c] = 1
        if vals[c] < best_v:
            best_v = vals[c]
            best = cid
    return best


# ---------------------------------------------------------------- random
@njit(cache=True, _nrt=False)
def rand_pickup(st, rng):
    """Uniform choice between the stock and the pile."""
    return bounded(rng, np.int64(2)) == 1


@njit(cache=True, _nrt=False)
def rand_meld_choice(st, rv, seat, rng, sel, scratch, cand):
    """One uniform choice among stopping and the random strategy's candidate
    meld-phase actions: an action id, or -1 for "stop".

    Candidates: every legal single-card lay-off, and every legal new 3-card
    meld (3 naturals, or 2 naturals and a wild), in that order.  ``cand`` is
    an ``int64[K, 4]`` work array; ``sel`` and ``scratch`` int64[53] ones.
    Draws one number from ``rng`` (uint64[4], mutated).
    """
    hcnt, nm = st.hcnt, st.nm
    team = st.g[G_TEAM + seat]
    hc = hcnt[seat]
    k = 0
    kmax = cand.shape[0]
    for mi in range(nm[team]):
        for c in range(53):
            if hc[c] == 0 or k >= kmax:
                continue
            code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK:
                cand[k, 0] = 1
                cand[k, 1] = mi
                cand[k, 2] = c
                k += 1
    # new 3-card melds: enumerate distinct multisets of three count indices
    for a in range(53):
        if hc[a] == 0:
            continue
        for b in range(a, 53):
            if hc[b] == 0 or (b == a and hc[a] < 2):
                continue
            for c in range(b, 53):
                if hc[c] == 0 or k >= kmax:
                    continue
                if not trio_sel(hc, a, b, c, sel):
                    continue
                code, kind, nw = can_create(st, rv, team, seat, sel)
                if code == OK:
                    cand[k, 0] = 2
                    cand[k, 1] = a
                    cand[k, 2] = b
                    cand[k, 3] = c
                    k += 1
    pick = bounded(rng, k + 1)
    if pick == k:
        return -1
    if cand[pick, 0] == 1:
        return A_LAYOFF + N_COUNT * cand[pick, 1] + cand[pick, 2]
    trio_sel(hc, cand[pick, 1], cand[pick, 2], cand[pick, 3], sel)
    return A_CREATE_SEL


@njit(cache=True, _nrt=False)
def rand_discard(st, rv, seat, rng):
    """A uniformly chosen legal discard (by card id)."""
    hand, hn = st.hand, st.hn
    team = st.g[G_TEAM + seat]
    n = np.int64(0)
    for i in range(hn[seat]):
        code, closes = can_discard(st, rv, team, seat, hand[seat, i])
        if code == OK:
            n += 1
    if n == 0:
        return -1
    pick = bounded(rng, n)
    for i in range(hn[seat]):
        code, closes = can_discard(st, rv, team, seat, hand[seat, i])
        if code == OK:
            if pick == 0:
                return hand[seat, i]
            pick -= 1
    return -1


# ---------------------------------------------------------------- meld search
@njit(cache=True, _nrt=False)
def meld_search(hand_ids, rv, p, st, sel, scratch):
    """The heuristic's meld search on one hand against an empty table.

    Puts ``hand_ids`` (int64[k]) into seat 0 of the scratch state ``st``
    (a :func:`kernels.table.state.new_state` tuple, reset here) and applies
    :func:`heur_meld_choice`'s actions until it stops (pozzetto taken: no, so the hand
    may be melded out entirely).  Used by the benchmarks.

    Returns
    -------
    tuple of int
        ``(melds, cards_melded)``.
    """
    hand, hn, hcnt, mcnt, minfo, nm, g = st.hand, st.hn, st.hcnt, st.mcnt, st.minfo, st.nm, st.g
    for s in range(4):
        hn[s] = 0
        for c in range(53):
            hcnt[s, c] = 0
    for t in range(NTEAMS):
        for mi in range(nm[t]):
            for c in range(53):
                mcnt[t, mi, c] = 0
            minfo[t, mi, 0] = 0
        nm[t] = 0
    reset_g(g)
    for t in range(NTEAMS):
        g[G_TPOZ + t] = 1    # no al-volo refill: search the hand alone
    k = hand_ids.shape[0]
    for i in range(k):
        cid = hand_ids[i]
        hand[0, hn[0]] = cid
        hn[0] += 1
        f = cid % 54
        if f >= 52:
            f = JOKER
        hcnt[0, f] += 1
    a = heur_meld_choice(st, rv, 0, p, sel, scratch)
    while a >= 0:
        if a < A_CREATE:
            meld_add(st, 0, 0, (a - A_LAYOFF) // N_COUNT, (a - A_LAYOFF) % N_COUNT)
        else:
            if a != A_CREATE_SEL:
                meld_sel(a - A_CREATE, sel)
            meld_create(st, 0, 0, sel)
        a = heur_meld_choice(st, rv, 0, p, sel, scratch)
    return nm[0], k - hn[0]


# ---------------------------------------------------------------- choosers
@njit(cache=True, _nrt=False)
def placement_action(st, rv, seat, need, sel, scratch):
    """The first placement :func:`kernels.engine.legal.find_placement` finds for the
    R34 obligation (any card): an action id, or -1 if none exists."""
    team = st.g[G_TEAM + seat]
    for f in range(53):
        need[f] = 1
    what, a, b, c = find_placement(st, rv, team, seat, need, sel, scratch)
    if what == 1:
        return A_LAYOFF + N_COUNT * a + b
    if what == 2:
        trio_sel(st.hcnt[seat], a, b, c, sel)
        return A_CREATE_SEL
    return -1


@njit(cache=True, _nrt=False)
def meld_or_end(a, st, rv, seat, need, sel, scratch):
    """A chooser's meld-phase action ``a``, or when it stops (-1): "end the meld
    phase", or right after an R34 pickup with no placement yet (phase
    ``place``) the first placement found (the R34 obligation)."""
    if a >= 0:
        return a
    if st.g[G_PHASE] == PH_PLACE:
        return placement_action(st, rv, seat, need, sel, scratch)
    return A_END_MELD


@njit(cache=True, inline="always", _nrt=False)
def heur_choose(st, rv, seat, p, sel, scratch, vals, need):
    """The ``heuristic`` strategy's action id at the decision ``st`` waits for.

    Reads only what ``seat`` may know (R11); ``st`` is not mutated.  Pickup:
    :func:`heur_pickup`, drawing when R34 forbids the pile.  Meld phase:
    :func:`heur_meld_choice`, or "end"; right after an R34 pickup that made no
    placement yet, the first placement found instead of "end".  Discard: the
    face of :func:`heur_discard`'s card (the engine discards the same copy).
    ``sel``, ``scratch``, ``need`` (int64[53]) and ``vals`` (float64[53]) are
    work arrays.
    """
    g = st.g
    ph = g[G_PHASE]
    if ph == PH_PICKUP:
        team = g[G_TEAM + seat]
        if heur_pickup(st, rv, seat, p) and can_take_pile(st, rv, team, seat, need, sel,
                                                          scratch):
            return A_TAKE
        return A_DRAW
    if ph == PH_MELD or ph == PH_PLACE:
        return meld_or_end(heur_meld_choice(st, rv, seat, p, sel, scratch), st, rv, seat, need, sel,
                           scratch)
    if ph == PH_DISCARD:
        cid = heur_discard(st, rv, seat, p, vals, scratch)
        if cid < 0:
            return -1
        return A_DISCARD + CIDX[cid]
    return -1


@njit(cache=True, inline="always", _nrt=False)
def rand_choose(st, rv, seat, rng, sel, scratch, cand, need):
    """The ``random`` strategy's action id (``rng``, uint64[4], is advanced).

    Pickup: the pile or the stock with even odds, drawing when R34 forbids
    the pile.  Meld phase: :func:`rand_meld_choice`; a "stop" right after an
    R34 pickup with no placement yet plays the first placement found.
    Discard: a uniformly chosen hand position among the legal discards, as
    the copy-naming id ``N_ACTIONS + card id``.
    """
    g = st.g
    ph = g[G_PHASE]
    if ph == PH_PICKUP:
        team = g[G_TEAM + seat]
        if rand_pickup(st, rng) and can_take_pile(st, rv, team, seat, need, sel, scratch):
            return A_TAKE
        return A_DRAW
    if ph == PH_MELD or ph == PH_PLACE:
        return meld_or_end(rand_meld_choice(st, rv, seat, rng, sel, scratch, cand), st, rv, seat, need, sel,
                           scratch)
    if ph == PH_DISCARD:
        cid = rand_discard(st, rv, seat, rng)
        if cid < 0:
            return -1
        return N_ACTIONS + cid
    return -1


@njit(cache=True, inline="always")
def heuristic_chooser(work):
    """The ``heuristic`` strategy as a chooser (:mod:`kernels.strategies.api`): its action
    id for the seat to move in the work buffer ``work``, with that seat's
    parameter row."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    return heur_choose(st, rv, seat, params[seat], sel, scratch, vals, need)


@njit(cache=True, inline="always")
def random_chooser(work):
    """The ``random`` strategy as a chooser (:mod:`kernels.strategies.api`); advances the
    hand's generator."""
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    return rand_choose(st, rv, st.g[G_SEAT], rng, sel, scratch, cand, need)


@njit(cache=True)
def open_lay_off_action(work):
    """The action that continues the lay-off of several cards under way
    (``G_OPEN_LAYOFF``, R24 with R38): the one legal action there, whatever the
    strategy (the built-in ones never begin such a lay-off themselves)."""
    out = view_i64(work, W_LEGAL, N_ACTIONS)
    legal_actions(work, out)
    return out[0]


@njit(cache=True)
def uniform_chooser(work):
    """The ``uniform`` strategy: one of the legal actions of the seat to move
    (:func:`kernels.engine.actions.legal_actions`), each as likely, drawn from the
    hand's generator."""
    out = view_i64(work, W_LEGAL, N_ACTIONS)
    n = legal_actions(work, out)
    rng = views(work)[4]
    return out[bounded(rng, n)]
