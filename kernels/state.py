"""Array layout of a hand in progress, and the primitive moves on it.

A hand's state is a tuple of int64 arrays (``st``)::

    (hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g)

``hand``  int64[4, 108]   card ids held by each seat (first ``hn[s]`` valid)
``hn``    int64[4]        hand sizes (cards)
``hcnt``  int64[4, 53]    the same hands as counts per count index
``stock`` int64[108]      stock, top card at ``g[G_SP]``, ends at ``g[G_SLEN]``
``pile``  int64[108]      discard pile, bottom first, ``g[G_PN]`` cards
``poz``   int64[2, 18]    the two pozzetti (``g[G_POZ_SIZE]`` cards each)
``mcnt``  int64[2, 40, 53] each team's melds as counts
``mids``  int64[2, 40, 14] the melds' card ids (first ``minfo[..., MI_LEN]``)
``minfo`` int64[2, 40, 8] length, kind and canonical reading of each meld
``nm``    int64[2]        number of melds per team
``g``     int64[G_LEN]    scalars (``G_*`` slots)

Seat ``s`` plays for team ``s % 2`` (R5).  Moves keep every card id in
exactly one place (card conservation, RULES.md section 19).
"""
import numpy as np
from numba import njit

from .cards import CIDX
from .melds import analyze

HMAX = 108
MMAX = 40
MCARDS = 14
PMAX = 18

MI_LEN = 0
MI_KIND = 1
MI_NWILD = 2
MI_NAT2 = 3
MI_KEY = 4
MI_LO = 5
MI_HI = 6
MI_WSLOT = 7

G_SP = 0            # index of the stock's top card
G_SLEN = 1          # stock length at the deal
G_PN = 2            # cards in the discard pile
G_POZ_NEXT = 3      # next pozzetto to hand out (0, 1; 2 = none left)
G_TURN = 4          # player turns started so far
G_STALL = 5         # stall counter (R51)
G_BARRED = 6        # id barred from this turn's discard (R36), -1 none
G_TPOZ = 7          # +team: 1 once the team has taken its pozzetto (R42)
G_PTURN = 9         # +team: turn the pozzetto was taken (-1)
G_PMODE = 11        # +team: POZ_DIRECT / POZ_DISCARD
G_HIDDEN = 13       # +seat: 1 while an assigned pozzetto is unplayed (R41, R57)
G_PP = 17           # +team: discard-pile pickups
G_PC = 19           # +team: cards picked up from the pile
G_ERR = 21          # debug error bits
G_TOOK_PILE = 22    # 1 if this turn's pickup took the pile
G_ACTIONS = 23      # meld-phase actions this turn
G_POZ_SIZE = 24     # cards per pozzetto
G_CLOSER = 25       # seat that closed, -1
G_LEN = 26


@njit(cache=True)
def new_state():
    """Empty state tuple (all hands, melds, piles empty)."""
    hand = np.full((4, HMAX), -1, np.int64)
    hn = np.zeros(4, np.int64)
    hcnt = np.zeros((4, 53), np.int64)
    stock = np.full(HMAX, -1, np.int64)
    pile = np.full(HMAX, -1, np.int64)
    poz = np.full((2, PMAX), -1, np.int64)
    mcnt = np.zeros((2, MMAX, 53), np.int64)
    mids = np.full((2, MMAX, MCARDS), -1, np.int64)
    minfo = np.zeros((2, MMAX, 8), np.int64)
    nm = np.zeros(2, np.int64)
    g = np.zeros(G_LEN, np.int64)
    g[G_BARRED] = -1
    g[G_PTURN] = -1
    g[G_PTURN + 1] = -1
    g[G_CLOSER] = -1
    return (hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g)


@njit(cache=True)
def hand_add(st, seat, cid):
    """Put card ``cid`` into ``seat``'s hand (mutates ``st``)."""
    hand, hn, hcnt = st[0], st[1], st[2]
    hand[seat, hn[seat]] = cid
    hn[seat] += 1
    hcnt[seat, CIDX[cid]] += 1


@njit(cache=True)
def hand_remove_id(st, seat, cid):
    """Remove card id ``cid`` from ``seat``'s hand; returns 1 if it was there."""
    hand, hn, hcnt = st[0], st[1], st[2]
    n = hn[seat]
    for i in range(n):
        if hand[seat, i] == cid:
            hand[seat, i] = hand[seat, n - 1]
            hand[seat, n - 1] = -1
            hn[seat] = n - 1
            hcnt[seat, CIDX[cid]] -= 1
            return 1
    return 0


@njit(cache=True)
def hand_pick_id(st, seat, c, prefer_barred):
    """An id of count index ``c`` in ``seat``'s hand (-1 if none).

    With two candidates, the R36-barred id is preferred when
    ``prefer_barred`` (melding it keeps the other copy discardable) and
    avoided otherwise.
    """
    hand, hn = st[0], st[1]
    barred = st[10][G_BARRED]
    found = -1
    for i in range(hn[seat]):
        cid = hand[seat, i]
        if CIDX[cid] == c:
            if found < 0:
                found = cid
            elif (cid == barred) == prefer_barred:
                found = cid
    return found


@njit(cache=True)
def set_meld_info(st, team, mi):
    """Recompute ``minfo[team, mi]`` from ``mcnt[team, mi]`` (R18, R20)."""
    mcnt, minfo = st[6], st[8]
    kind, nwild, nat2, key, lo, hi, wslot, why = analyze(mcnt[team, mi], 0x1FFF)
    n = 0
    for f in range(53):
        n += mcnt[team, mi, f]
    minfo[team, mi, MI_LEN] = n
    minfo[team, mi, MI_KIND] = kind
    minfo[team, mi, MI_NWILD] = nwild
    minfo[team, mi, MI_NAT2] = nat2
    minfo[team, mi, MI_KEY] = key
    minfo[team, mi, MI_LO] = lo
    minfo[team, mi, MI_HI] = hi
    minfo[team, mi, MI_WSLOT] = wslot


@njit(cache=True)
def meld_create(st, team, seat, sel):
    """Move the cards counted in ``sel`` (int64[53]) from hand to a new meld.

    The caller has checked legality.  Returns the new meld's index.
    """
    mcnt, mids, nm = st[6], st[7], st[9]
    mi = nm[team]
    nm[team] = mi + 1
    k = 0
    for c in range(53):
        for _ in range(sel[c]):
            cid = hand_pick_id(st, seat, c, True)
            hand_remove_id(st, seat, cid)
            mids[team, mi, k] = cid
            k += 1
            mcnt[team, mi, c] += 1
    set_meld_info(st, team, mi)
    return mi


@njit(cache=True)
def meld_add(st, team, seat, mi, c):
    """Lay off one card of count index ``c`` from hand onto meld ``mi``."""
    mcnt, mids, minfo = st[6], st[7], st[8]
    cid = hand_pick_id(st, seat, c, True)
    hand_remove_id(st, seat, cid)
    n = minfo[team, mi, MI_LEN]
    mids[team, mi, n] = cid
    mcnt[team, mi, c] += 1
    set_meld_info(st, team, mi)


@njit(cache=True)
def draw_stock(st, seat):
    """Draw the stock's top card into ``seat``'s hand (R33a); returns its id."""
    stock, g = st[3], st[10]
    cid = stock[g[G_SP]]
    stock[g[G_SP]] = -1
    g[G_SP] += 1
    hand_add(st, seat, cid)
    return cid


@njit(cache=True)
def take_pile(st, seat):
    """Take the whole discard pile into ``seat``'s hand (R33b); returns its size."""
    pile, g = st[4], st[10]
    n = g[G_PN]
    for i in range(n):
        hand_add(st, seat, pile[i])
        pile[i] = -1
    g[G_PN] = 0
    return n


@njit(cache=True)
def discard_card(st, seat, cid):
    """Move ``cid`` from ``seat``'s hand to the top of the discard pile."""
    pile, g = st[4], st[10]
    hand_remove_id(st, seat, cid)
    pile[g[G_PN]] = cid
    g[G_PN] += 1


@njit(cache=True)
def give_pozzetto(st, seat, mode):
    """Hand the next pozzetto to ``seat`` (R40, R41); mutates ``st``."""
    poz, g = st[5], st[10]
    team = seat % 2
    p = g[G_POZ_NEXT]
    g[G_POZ_NEXT] = p + 1
    for i in range(g[G_POZ_SIZE]):
        hand_add(st, seat, poz[p, i])
        poz[p, i] = -1
    g[G_TPOZ + team] = 1
    g[G_PTURN + team] = g[G_TURN]
    g[G_PMODE + team] = mode


@njit(cache=True)
def conservation_ok(st):
    """True when each of the 108 ids is in exactly one place (RULES.md section 19)."""
    hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g = st
    seen = np.zeros(108, np.int64)
    for s in range(4):
        cnt = np.zeros(53, np.int64)
        for i in range(hn[s]):
            seen[hand[s, i]] += 1
            cnt[CIDX[hand[s, i]]] += 1
        for c in range(53):
            if cnt[c] != hcnt[s, c]:
                return False
    for i in range(g[G_SP], g[G_SLEN]):
        seen[stock[i]] += 1
    for i in range(g[G_PN]):
        seen[pile[i]] += 1
    for p in range(g[G_POZ_NEXT], 2):
        for i in range(g[G_POZ_SIZE]):
            seen[poz[p, i]] += 1
    for t in range(2):
        for mi in range(nm[t]):
            cnt = np.zeros(53, np.int64)
            for k in range(minfo[t, mi, MI_LEN]):
                seen[mids[t, mi, k]] += 1
                cnt[CIDX[mids[t, mi, k]]] += 1
            for c in range(53):
                if cnt[c] != mcnt[t, mi, c]:
                    return False
    for i in range(108):
        if seen[i] != 1:
            return False
    return True
