"""The primitive moves on a hand's state (:class:`kernels.table.state.State`).

The event log (:func:`log_event`, :func:`log_card`), a seat's hand (add, remove, pick,
take a face), the melds and their readings (create, add, the meld-info rows, R13-R33,
R25), the stock, the discard pile and the pozzetti (draw, take the pile, discard, give a
pozzetto, an untaken pozzetto as the stock R53, the three-player pair R62), and the
debug check of card conservation (RULES.md section 19).  Every move keeps each card id
in exactly one place.

Imports only :mod:`kernels.core` and :mod:`kernels.table.state`.
"""
import numpy as np
from numba import njit

from kernels.core.cards import CIDX, N_COUNT
from kernels.core.melds import ANY_RANK, analyze, move_twos
from kernels.table.state import (EVC_A, EVC_B, EVC_C, EVC_FIRST, EVC_N, EVC_SEAT, EVC_TURN,
                                 EVC_TYPE, EV_DISCARD, EV_DRAW, EV_LAYOFF, EV_MELD, EV_POZZETTO,
                                 EV_POZ_STOCK, EV_TAKE_PILE, G_BARRED, G_ERRORS, G_EVENT_CARDS,
                                 G_EVENT_ROWS, G_NEXT_POZZETTO, G_N_POZZETTI, G_OPEN_ROW,
                                 G_PILE_CARDS, G_PILE_PICKUPS, G_PILE_SIZE, G_POZZETTO_MODE,
                                 G_POZZETTO_SIZE, G_POZZETTO_TAKEN, G_POZZETTO_TURN, G_SOLO_18,
                                 G_SOLO_SEAT, G_STOCK_END, G_STOCK_TOP, G_TEAM, G_TURN, I0, MCARDS,
                                 MI_HI, MI_KEY, MI_KIND, MI_LEN, MI_LO, MI_LOCK, MI_NAT2, MI_NWILD,
                                 MI_WSLOT, NTEAMS)


@njit(cache=True, _nrt=False)
def log_event(st, seat, etype, a, b, c):
    """Append an event row (no cards yet); returns its row or -1 when off/full."""
    g, ev = st.g, st.ev
    i = g[G_EVENT_ROWS]
    if i >= ev.shape[0]:
        if ev.shape[0] > 0:
            g[G_ERRORS] |= 16          # layout.ERR_LOG_OVERFLOW
        return -1
    g[G_EVENT_ROWS] = i + 1
    ev[i, EVC_TURN] = g[G_TURN]
    ev[i, EVC_SEAT] = seat
    ev[i, EVC_TYPE] = etype
    ev[i, EVC_A] = a
    ev[i, EVC_B] = b
    ev[i, EVC_C] = c
    ev[i, EVC_FIRST] = g[G_EVENT_CARDS]
    ev[i, EVC_N] = 0
    return i


@njit(cache=True, _nrt=False)
def log_card(st, row, cid):
    """Attach card ``cid`` to event ``row`` (no-op when ``row`` < 0)."""
    if row < 0:
        return
    g, ev, evc = st.g, st.ev, st.evc
    k = g[G_EVENT_CARDS]
    if k >= evc.shape[0]:
        g[G_ERRORS] |= 16
        return
    evc[k] = cid
    g[G_EVENT_CARDS] = k + 1
    ev[row, EVC_N] += 1


@njit(cache=True, _nrt=False)
def hand_add(st, seat, cid):
    """Put card ``cid`` into ``seat``'s hand (mutates ``st``)."""
    hand, hn, hcnt = st.hand, st.hn, st.hcnt
    hand[seat, hn[seat]] = cid
    hn[seat] += 1
    hcnt[seat, CIDX[cid]] += 1


@njit(cache=True, _nrt=False)
def hand_remove_id(st, seat, cid):
    """Remove card id ``cid`` from ``seat``'s hand; returns 1 if it was there."""
    hand, hn, hcnt = st.hand, st.hn, st.hcnt
    n = hn[seat]
    for i in range(n):
        if hand[seat, i] == cid:
            hand[seat, i] = hand[seat, n - 1]
            hand[seat, n - 1] = -1
            hn[seat] = n - 1
            c = CIDX[cid]
            hcnt[seat, c] -= 1
            if st.known[seat, c] > 0:
                st.known[seat, c] -= 1    # R11: others can no longer be sure this copy stays
            return 1
    return 0


@njit(cache=True, _nrt=False)
def hand_pick_id(st, seat, c, prefer_barred):
    """An id of count index ``c`` in ``seat``'s hand (-1 if none).

    With two candidates, the R36-barred id is preferred when
    ``prefer_barred`` (melding it keeps the other copy discardable) and
    avoided otherwise.
    """
    hand, hn = st.hand, st.hn
    barred = st.g[G_BARRED]
    found = -1
    for i in range(hn[seat]):
        cid = hand[seat, i]
        if CIDX[cid] == c:
            if found < 0:
                found = cid
            elif (cid == barred) == prefer_barred:
                found = cid
    return found


@njit(cache=True, _nrt=False)
def hand_take_face(st, seat, c):
    """:func:`hand_pick_id` (``prefer_barred``) then :func:`hand_remove_id` of
    that id, in one scan of the hand: the id taken out of ``seat``'s hand for
    count index ``c``, or -1 (nothing removed) if it holds none."""
    hand, hn, hcnt = st.hand, st.hn, st.hcnt
    barred = st.g[G_BARRED]
    n = hn[seat]
    found = -1
    pos = -1
    for i in range(n):
        cid = hand[seat, i]
        if CIDX[cid] == c and (found < 0 or cid == barred):
            found = cid
            pos = i
    if pos < 0:
        return found
    hand[seat, pos] = hand[seat, n - 1]
    hand[seat, n - 1] = -1
    hn[seat] = n - 1
    hcnt[seat, c] -= 1
    if st.known[seat, c] > 0:
        st.known[seat, c] -= 1        # R11, as hand_remove_id
    return found


@njit(cache=True, _nrt=False)
def meld_info_full(mcnt, minfo, team, mi):
    """Recompute ``minfo[team, mi]`` from ``mcnt[team, mi]`` (R18, R20)."""
    kind, nwild, nat2, key, lo, hi, wslot, why = analyze(mcnt[team, mi], ANY_RANK)
    n = 0
    for f in range(N_COUNT):
        n += mcnt[team, mi, f]
    minfo[team, mi, MI_LEN] = n
    minfo[team, mi, MI_KIND] = kind
    minfo[team, mi, MI_NWILD] = nwild
    minfo[team, mi, MI_NAT2] = nat2
    minfo[team, mi, MI_KEY] = key
    minfo[team, mi, MI_LO] = lo
    minfo[team, mi, MI_HI] = hi
    minfo[team, mi, MI_WSLOT] = wslot


@njit(cache=True, _nrt=False)
def set_meld_info(st, team, mi):
    """Recompute ``minfo[team, mi]`` from ``mcnt[team, mi]`` (R18, R20)."""
    meld_info_full(st.mcnt, st.minfo, team, mi)


@njit(cache=True, _nrt=False)
def meld_info_after_add(mcnt, minfo, team, mi, c):
    """Update ``minfo[team, mi]`` after one card of count index ``c`` was added
    to ``mcnt[team, mi]`` by a legal lay-off (R24).

    Sets, and sequences without an ace or a 2 of their suit that stay with at
    most one wild, are updated from the old reading (R18, R20); anything else
    is re-analysed (:func:`meld_info_full`).  Both give the same ``minfo``
    (tested exhaustively).  With ``minfo[..., MI_LOCK]`` set, a sequence that
    holds a 2 of its suit gets the reading that keeps its 2s' roles
    (:func:`meld_info_roles`, R25).
    """
    kind = minfo[team, mi, MI_KIND]
    wild = c == 52 or c % 13 == 1
    if kind == 1:                                     # KIND_SET
        minfo[team, mi, MI_LEN] += 1
        if wild:
            minfo[team, mi, MI_NWILD] = 1
            minfo[team, mi, MI_WSLOT] = -1            # WILD_FREE
        return
    key = minfo[team, mi, MI_KEY]
    base = 13 * key
    if (kind == 2 and minfo[team, mi, MI_NAT2] == 0 and mcnt[team, mi, base] == 0
            and mcnt[team, mi, base + 1] == 0):
        if wild:
            if minfo[team, mi, MI_NWILD] == 0:        # a first wild on a gapless run
                minfo[team, mi, MI_LEN] += 1
                minfo[team, mi, MI_NWILD] = 1
                minfo[team, mi, MI_WSLOT] = -1
                return
        elif c // 13 == key:                          # a natural 3..K of the suit
            sl = c % 13 + 1
            n = minfo[team, mi, MI_LEN] + 1
            lo = min(minfo[team, mi, MI_LO], sl)
            hi = max(minfo[team, mi, MI_HI], sl)
            minfo[team, mi, MI_LEN] = n
            minfo[team, mi, MI_LO] = lo
            minfo[team, mi, MI_HI] = hi
            if minfo[team, mi, MI_NWILD] == 0:
                return
            if (hi - lo + 1) - (n - 1) == 0:
                minfo[team, mi, MI_WSLOT] = -1        # the wild is free again
                return
            for x in range(lo + 1, hi):               # the one gap holds the wild (R19)
                if mcnt[team, mi, base + x - 1] == 0:
                    minfo[team, mi, MI_WSLOT] = x
                    return
    if minfo[team, mi, MI_LOCK] != 0 and mcnt[team, mi, base + 1] > 0:
        free = 0
        if c == base + 1:
            free = 1                                  # the added 2 takes its role now (R25)
        meld_info_roles(mcnt, minfo, team, mi, minfo[team, mi, MI_NAT2], free)
        return
    meld_info_full(mcnt, minfo, team, mi)


@njit(cache=True, _nrt=False)
def meld_info_roles(mcnt, minfo, team, mi, nat, free):
    """Set ``minfo[team, mi]`` to the reading of sequence ``mcnt[team, mi]`` that
    keeps its 2s' stored roles (option ``lock_two_roles``, R25): ``nat`` (0/1)
    of the suit's 2s natural, ``free`` (0/1) just added without a role, the
    rest wild (:func:`kernels.core.melds.analyze_roles`)."""
    key = minfo[team, mi, MI_KEY]
    w = mcnt[team, mi, 13 * key + 1] - nat - free
    move_twos(mcnt[team, mi], key, w)
    meld_info_full(mcnt, minfo, team, mi)
    move_twos(mcnt[team, mi], key, -w)


@njit(cache=True, _nrt=False)
def set_lock_two_roles(st, on):
    """Mark every meld row of the table with option ``lock_two_roles`` (0/1, R25)."""
    minfo = st.minfo
    for t in range(minfo.shape[0]):
        for mi in range(minfo.shape[1]):
            minfo[t, mi, MI_LOCK] = on


@njit(cache=True, _nrt=False)
def meld_create(st, team, seat, sel):
    """Move the cards counted in ``sel`` (int64[53]) from hand to a new meld.

    The caller has checked legality.  Returns the new meld's index.
    """
    mcnt, mids, nm = st.mcnt, st.mids, st.nm
    mi = nm[team]
    nm[team] = mi + 1
    for f in range(N_COUNT):
        mcnt[team, mi, f] = 0
    for k in range(MCARDS):
        mids[team, mi, k] = -1
    row = log_event(st, seat, EV_MELD, team, mi, I0)
    k = 0
    for c in range(N_COUNT):
        for _ in range(sel[c]):
            cid = hand_take_face(st, seat, c)
            log_card(st, row, cid)
            mids[team, mi, k] = cid
            k += 1
            mcnt[team, mi, c] += 1
    set_meld_info(st, team, mi)
    return mi


@njit(cache=True, _nrt=False)
def meld_add(st, team, seat, mi, c):
    """Lay off one card of count index ``c`` from hand onto meld ``mi``."""
    mcnt, mids, minfo = st.mcnt, st.mids, st.minfo
    cid = hand_take_face(st, seat, c)
    log_card(st, log_event(st, seat, EV_LAYOFF, team, mi, I0), cid)
    n = minfo[team, mi, MI_LEN]
    mids[team, mi, n] = cid
    mcnt[team, mi, c] += 1
    meld_info_after_add(mcnt, minfo, team, mi, c)


@njit(cache=True, _nrt=False)
def meld_add_more(st, team, seat, mi, c):
    """Lay off one more card of count index ``c`` on meld ``mi`` as part of the
    lay-off just made there (R24: one action of several cards): the card joins
    that lay-off's event row (``G_OPEN_ROW``) instead of a row of its own."""
    mcnt, mids, minfo, g, ev = st.mcnt, st.mids, st.minfo, st.g, st.ev
    cid = hand_take_face(st, seat, c)
    row = g[G_OPEN_ROW] - 1
    if (row >= 0 and row == g[G_EVENT_ROWS] - 1 and ev[row, EVC_TYPE] == EV_LAYOFF
            and ev[row, EVC_B] == mi):
        log_card(st, row, cid)
    else:       # no log, or the lay-off's first cards are not in this log (a sampled world)
        log_card(st, log_event(st, seat, EV_LAYOFF, team, mi, I0), cid)
    n = minfo[team, mi, MI_LEN]
    mids[team, mi, n] = cid
    mcnt[team, mi, c] += 1
    meld_info_after_add(mcnt, minfo, team, mi, c)


@njit(cache=True, _nrt=False)
def draw_stock(st, seat):
    """Draw the stock's top card into ``seat``'s hand (R33a); returns its id."""
    stock, g = st.stock, st.g
    cid = stock[g[G_STOCK_TOP]]
    stock[g[G_STOCK_TOP]] = -1
    g[G_STOCK_TOP] += 1
    hand_add(st, seat, cid)
    log_card(st, log_event(st, seat, EV_DRAW, I0, I0, I0), cid)
    return cid


@njit(cache=True, _nrt=False)
def take_pile(st, seat):
    """Take the whole discard pile into ``seat``'s hand (R33b); returns its size."""
    pile, g = st.pile, st.g
    n = g[G_PILE_SIZE]
    row = log_event(st, seat, EV_TAKE_PILE, I0, I0, I0)
    for i in range(n):
        hand_add(st, seat, pile[i])
        st.known[seat, CIDX[pile[i]]] += 1      # R11: everyone saw the pile go to this hand
        log_card(st, row, pile[i])
        pile[i] = -1
    g[G_PILE_SIZE] = 0
    return n


@njit(cache=True, _nrt=False)
def discard_card(st, seat, cid, closes):
    """Move ``cid`` from ``seat``'s hand to the top of the discard pile.

    ``closes`` (0/1) is only recorded in the event log.
    """
    pile, g = st.pile, st.g
    hand_remove_id(st, seat, cid)
    log_card(st, log_event(st, seat, EV_DISCARD, closes, I0, I0), cid)
    pile[g[G_PILE_SIZE]] = cid
    g[G_PILE_SIZE] += 1


@njit(cache=True, _nrt=False)
def give_pozzetto(st, seat, mode):
    """Hand the next pozzetto to ``seat`` (R40, R41); mutates ``st``."""
    poz, g = st.poz, st.g
    team = g[G_TEAM + seat]
    p = g[G_NEXT_POZZETTO]
    g[G_NEXT_POZZETTO] = p + 1
    row = log_event(st, seat, EV_POZZETTO, mode, p, I0)
    for i in range(g[G_POZZETTO_SIZE + p]):
        hand_add(st, seat, poz[p, i])
        log_card(st, row, poz[p, i])
        poz[p, i] = -1
    g[G_POZZETTO_TAKEN + team] = 1
    g[G_POZZETTO_TURN + team] = g[G_TURN]
    g[G_POZZETTO_MODE + team] = mode
    if p == 0 and g[G_SOLO_18] != 0:
        merge_pair(st, seat)


@njit(cache=True, _nrt=False)
def no_pozzetto_left(g, team):
    """The team has not taken a pozzetto and none is left to take (R53)."""
    return g[G_POZZETTO_TAKEN + team] == 0 and g[G_NEXT_POZZETTO] >= g[G_N_POZZETTI]


@njit(cache=True, _nrt=False)
def pozzetto_to_stock(st, seat):
    """R53, ``untaken_pozzetto_as_stock``: the last untaken pozzetto becomes the stock.

    Its cards go on top of the stock (the reserve cards of R50 stay at the
    bottom), in their order, and it can no longer be taken (``G_N_POZZETTI`` drops
    by one).  Returns False, changing nothing, if every pozzetto has been
    taken.  Mutates ``st``.
    """
    stock, poz, g = st.stock, st.poz, st.g
    if g[G_NEXT_POZZETTO] >= g[G_N_POZZETTI]:
        return False
    k = g[G_N_POZZETTI] - 1
    n = g[G_POZZETTO_SIZE + k]
    left = g[G_STOCK_END] - g[G_STOCK_TOP]
    if g[G_STOCK_TOP] < n:                       # make room: the reserve cards move down
        for i in range(left - 1, -1, -1):
            stock[n + i] = stock[g[G_STOCK_TOP] + i]
        g[G_STOCK_TOP] = n
        g[G_STOCK_END] = n + left
    row = log_event(st, seat, EV_POZ_STOCK, k, I0, I0)
    for i in range(n):
        stock[g[G_STOCK_TOP] - n + i] = poz[k, i]
        log_card(st, row, poz[k, i])
        poz[k, i] = -1
    g[G_STOCK_TOP] -= n
    g[G_N_POZZETTI] = k
    return True


@njit(cache=True, _nrt=False)
def merge_pair(st, solo):
    """3 players, ``solo_18`` (R62): ``solo`` took pozzetto A; the other two
    become partners and share one table.

    The pair plays on the team slot of the lower of the two seats: the melds
    of the other seat's slot are appended to it in their order (two sets of
    one rank both stay, R62), its pile counters are added, and that seat
    plays for the pair from now on.  Mutates ``st``.
    """
    mcnt, mids, minfo, nm, g = st.mcnt, st.mids, st.minfo, st.nm, st.g
    a = np.int64(-1)
    b = np.int64(-1)
    for s in range(3):
        if s != solo:
            if a < 0:
                a = s
            else:
                b = s
    ta = g[G_TEAM + a]
    tb = g[G_TEAM + b]
    for mi in range(nm[tb]):
        k = nm[ta]
        for c in range(N_COUNT):
            mcnt[ta, k, c] = mcnt[tb, mi, c]
            mcnt[tb, mi, c] = 0
        for j in range(mids.shape[2]):
            mids[ta, k, j] = mids[tb, mi, j]
            mids[tb, mi, j] = -1
        for j in range(minfo.shape[2]):
            minfo[ta, k, j] = minfo[tb, mi, j]
            minfo[tb, mi, j] = 0
        nm[ta] += 1
    nm[tb] = 0
    g[G_PILE_PICKUPS + ta] += g[G_PILE_PICKUPS + tb]
    g[G_PILE_PICKUPS + tb] = 0
    g[G_PILE_CARDS + ta] += g[G_PILE_CARDS + tb]
    g[G_PILE_CARDS + tb] = 0
    g[G_TEAM + b] = ta
    g[G_SOLO_SEAT] = solo


@njit(cache=True, _nrt=False)
def conservation_check(st, seen, cnt):
    """True when each of the 108 ids is in exactly one place (RULES.md section 19),
    the count arrays match the id lists and no seat is known to hold more
    cards of a face than it holds.

    ``seen`` (int64[108]) and ``cnt`` (int64[53]) are work arrays
    (overwritten), so that the check allocates nothing.
    """
    hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc, known = st
    for i in range(108):
        seen[i] = 0
    for s in range(4):
        for c in range(N_COUNT):
            cnt[c] = 0
        for i in range(hn[s]):
            seen[hand[s, i]] += 1
            cnt[CIDX[hand[s, i]]] += 1
        for c in range(N_COUNT):
            if cnt[c] != hcnt[s, c] or known[s, c] > cnt[c]:
                return False
    for i in range(g[G_STOCK_TOP], g[G_STOCK_END]):
        seen[stock[i]] += 1
    for i in range(g[G_PILE_SIZE]):
        seen[pile[i]] += 1
    for p in range(g[G_NEXT_POZZETTO], g[G_N_POZZETTI]):
        for i in range(g[G_POZZETTO_SIZE + p]):
            seen[poz[p, i]] += 1
    for t in range(NTEAMS):
        for mi in range(nm[t]):
            for c in range(N_COUNT):
                cnt[c] = 0
            for k in range(minfo[t, mi, MI_LEN]):
                seen[mids[t, mi, k]] += 1
                cnt[CIDX[mids[t, mi, k]]] += 1
            for c in range(N_COUNT):
                if cnt[c] != mcnt[t, mi, c]:
                    return False
    for i in range(108):
        if seen[i] != 1:
            return False
    return True


@njit(cache=True)
def conservation_ok(st):
    """:func:`conservation_check` with its own work arrays."""
    return conservation_check(st, np.zeros(108, np.int64), np.zeros(N_COUNT, np.int64))
