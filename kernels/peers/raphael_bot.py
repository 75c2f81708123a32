"""raphaelmmachado/buraco-online's bot ``raphael_bot``.

With the conventions of :mod:`kernels.peers.common`.  It keeps its
"sequences only" play under our rules, where every set is legal: it simply
never makes a set.
"""
import numpy as np
from numba import carray, njit

from kernels.core.cards import CVALUE, JOKER, N_COUNT
from kernels.core.melds import ANY_RANK, KIND_SEQ, analyze
from kernels.engine.actions import A_DISCARD, A_LAYOFF, PH_DISCARD, PH_PICKUP, create_action
from kernels.engine.legal import OK, can_create, layoff_fits
from kernels.peers.common import (NEG, _key_face, _low_rank_key, _suit_keys, dirties,
                                  discard_ok, finish_meld, first_legal_discard, has_action,
                                  opp_team, pile_top, single_layoff, take_if, trio_uses)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_SEAT, G_TEAM, G_POZZETTO_TAKEN, MI_KIND, MI_NWILD
from kernels.table.work import views


# ---------------------------------------------------------------- raphael_bot
@njit(cache=True, _nrt=False)
def raphael_dirty_ok(st, team, mi, dirty, closing):
    """raphael's proviso: a move that dirties a clean meld only before the team's
    pozzetto or when trying to close."""
    return not dirty or st.minfo[team, mi, MI_NWILD] > 0 or st.g[G_POZZETTO_TAKEN + team] == 0 or closing


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
    took = st.g[G_POZZETTO_TAKEN + team] != 0
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
    closing = st.g[G_POZZETTO_TAKEN + team] != 0 and st.hn[seat] <= 2
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


def raphael_bot_callback(work_addr, words):
    """:func:`raphael_bot_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return raphael_bot_chooser(carray(_as_i64_pointer(work_addr), words))
