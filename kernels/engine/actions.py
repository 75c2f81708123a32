"""Decisions as data: the phases of a turn, the action space, and the two
kernels every way of playing runs through, :func:`legal_actions` and
:func:`apply_action` (RULES.md R32-R52).

Phases (``g[G_PHASE]``)
-----------------------
``PH_PICKUP``   draw from the stock or take the discard pile (R33, R34);
``PH_PLACE``    the meld phase right after a pickup under
                ``take_pile_requires_meld`` (R34): at least one create or
                lay-off must come before the meld phase may end;
``PH_MELD``     any number of creates and lay-offs (R35), then "end the meld
                phase";
``PH_DISCARD``  discard one card (R37-R39, R45);
``PH_OVER``     the hand is over (``g[G_END]`` holds the end reason).

The action space (``N_ACTIONS`` ids, fixed for every rule set)
--------------------------------------------------------------
======================  ==========================================  ======
ids                     action                                      phase
======================  ==========================================  ======
``A_DRAW`` (0)          draw the stock's top card (R33a)            pickup
``A_TAKE`` (1)          take the whole discard pile (R33b)          pickup
``A_END_MELD`` (2)      end the meld phase                          meld
``A_DISCARD + f``       discard a card of count face ``f`` (0..52)  discard
``A_LAYOFF + 53*m + f`` lay off a card of face ``f`` on meld ``m``  place, meld
                        (index in the own side's melds, 0..39)
``A_CREATE + k``        create meld ``k`` of :data:`MELD_CNT`       place, meld
======================  ==========================================  ======

A count face ``f`` is ``13*suit + rank`` for naturals and 52 for either joker
(:mod:`kernels.core.cards`).  The engine picks the physical copy: a discard takes
the first copy in hand order that may be discarded (so never the card barred
by R36 when the other copy is held); creates and lay-offs meld the R36-barred
copy first (it could not be discarded anyway).  A chooser may name the copy
of a discard itself with the id ``N_ACTIONS + card id`` (the built-in
``random`` strategy does: it picks a hand position), and a built-in chooser
returns ``A_CREATE_SEL`` (``N_ACTIONS + 108``) for "create the meld counted
in the work buffer's SEL", which it has just tested there (``sim.Game.choose``
turns it into the meld's create id); such ids are never in the legal list.

:data:`MELD_CNT` lists every meld valid under some rule set (R15-R19, every
set rank allowed): 5,352 sets (rank by rank, ace first) then 8,780 sequences
(suit by suit), each as its counts per face.  A new meld of any length is one
create; whether a given rule set allows it (``set_ranks``, R23, R38) is
decided by :func:`kernels.engine.legal.can_create` when it is played.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import CIDX, N_COUNT
from kernels.engine.legal import BAD_LAYOFF, OK, can_create, can_discard, can_layoff
from kernels.engine.placement import can_take_pile, lay_off_opens
from kernels.core.melds import ANY_RANK, KIND_NONE, KIND_SEQ, KIND_SET, analyze
from kernels.table.state import (G_ACTIONS, G_BARRED, G_CLOSER, G_DEALER, G_END, G_ERRORS, G_FIRST,
                                 G_POZZETTO_HIDDEN, G_LAST_TURN, G_EVENT_ROWS, G_OPEN_LAYOFF,
                                 G_OPEN_ROW, G_PILE_CARDS, G_PHASE, G_PILE_SIZE, G_PILE_PICKUPS,
                                 G_SEAT, G_SINGLE, G_STOCK_END, G_STOCK_TOP, G_STALL, G_TEAM,
                                 G_TOOK_PILE, G_TURN, EV_END, I0, MI_KIND, MMAX, NTEAMS)
from kernels.table.moves import (conservation_check, discard_card, draw_stock, give_pozzetto,
                                 log_event, meld_add, meld_add_more, meld_create, pozzetto_to_stock,
                                 take_pile)
from kernels.table.work import N_LEGAL, W_DEBUG, views

# ---------------------------------------------------------------- phases
PH_PICKUP = 0
PH_PLACE = 1
PH_MELD = 2
PH_DISCARD = 3
PH_OVER = 4
PHASES = ("pickup", "place", "meld", "discard", "over")


# ---------------------------------------------------------------- the meld table
@njit(cache=True)
def _enumerate_melds():
    """Every count vector that :func:`kernels.core.melds.analyze` accepts with every
    set rank allowed: ``(int8[K, 53] counts, number of sets)``.

    Sets: rank ``r`` 0..12, 0..2 copies of each suit's card of that rank, and
    no wild or one (a joker or a 2 of any suit).  Sequences: suit 0..3, 0..2
    aces and 2s of the suit, 0..1 of each other rank, and no other wild or one
    (a joker or a 2 of another suit).  Candidates ``analyze`` rejects are
    dropped, so the table holds exactly the valid melds.
    """
    out = np.zeros((16384, N_COUNT), np.int8)
    n = 0
    cnt = np.zeros(N_COUNT, np.int64)
    for r in range(13):
        for code in range(81):
            x = code
            for s in range(4):
                cnt[13 * s + r] = x % 3
                x //= 3
            for w in range(6):
                wf = -1
                if w == 1:
                    wf = 52
                elif w >= 2:
                    if r == 1:
                        continue              # a 2 in a set of 2s is one of its naturals
                    wf = 13 * (w - 2) + 1
                if wf >= 0:
                    cnt[wf] += 1
                if analyze(cnt, ANY_RANK)[0] == KIND_SET:
                    for f in range(N_COUNT):
                        out[n, f] = cnt[f]
                    n += 1
                if wf >= 0:
                    cnt[wf] -= 1
        for s in range(4):
            cnt[13 * s + r] = 0
    n_sets = n
    for s in range(4):
        base = 13 * s
        for code in range(9 * 2048):
            x = code
            cnt[base] = x % 3
            x //= 3
            cnt[base + 1] = x % 3
            x //= 3
            for r in range(2, 13):
                cnt[base + r] = x & 1
                x >>= 1
            for w in range(5):
                wf = -1
                if w == 1:
                    wf = 52
                elif w >= 2:
                    o = w - 2
                    if o >= s:
                        o += 1
                    wf = 13 * o + 1
                if wf >= 0:
                    cnt[wf] += 1
                if analyze(cnt, ANY_RANK)[0] == KIND_SEQ:
                    for f in range(N_COUNT):
                        out[n, f] = cnt[f]
                    n += 1
                if wf >= 0:
                    cnt[wf] -= 1
        for r in range(13):
            cnt[base + r] = 0
    return out[:n].copy(), n_sets


def _build_tables():
    """The meld table and its lookup arrays, vectorised (this runs at every import)."""
    cnt, n_sets = _enumerate_melds()
    k = cnt.shape[0]
    c64 = cnt.astype(np.int64)
    # group: 0..12 sets of rank r (the rank of most naturals; a 2 is a set's wild),
    # 13..16 sequences of suit s (the suit of most cards)
    group = np.empty(k, np.int64)
    group[:n_sets] = c64[:n_sets, :52].reshape(-1, 4, 13).sum(axis=1).argmax(axis=1)
    group[n_sets:] = 13 + c64[n_sets:, :52].reshape(-1, 4, 13).sum(axis=2).argmax(axis=1)
    assert np.all(np.diff(group) >= 0), "meld table rows are grouped by rank, then suit"
    start = np.searchsorted(group, np.arange(18)).astype(np.int64)
    # int8/int32 tables: Numba embeds global arrays under 1 MB in the machine code
    # (cacheable); a bigger one would be referenced by address and stop the caching
    nz = c64 != 0
    nfaces = nz.sum(axis=1)
    assert nfaces.max() <= 15
    order = np.argsort(~nz, axis=1, kind="stable")[:, :15]      # nonzero faces first, ascending
    valid = np.arange(15)[None, :] < nfaces[:, None]
    faces = np.where(valid, order, -1).astype(np.int8)
    counts = np.where(valid, np.take_along_axis(c64, order, axis=1), 0).astype(np.int8)
    nfaces = nfaces.astype(np.int8)
    # the fast fit test of legal_actions: per row, bit masks of the group's faces it
    # needs once and twice (a set: bit s for suit s; a sequence: bit r for rank r) and
    # the one face outside the group (its wild: a joker or another suit's 2), or -1
    rows = np.arange(k)[:, None]
    is_set = group < 13
    grp_faces = np.where(is_set[:, None],
                         13 * np.arange(13)[None, :] + group[:, None],       # suits s (first 4)
                         13 * (group[:, None] - 13) + np.arange(13)[None, :])  # ranks r
    width = np.where(is_set, 4, 13)
    in_use = np.arange(13)[None, :] < width[:, None]
    g_cnt = np.where(in_use, c64[rows, np.minimum(grp_faces, 52)], 0)
    bits = 1 << np.arange(13)
    need1 = ((g_cnt >= 1) * bits).sum(axis=1).astype(np.int32)
    need2 = ((g_cnt >= 2) * bits).sum(axis=1).astype(np.int32)
    in_group = np.zeros((k, N_COUNT), bool)
    in_group[np.repeat(np.arange(k), 13)[in_use.ravel()], grp_faces[in_use]] = True
    outside = nz & ~in_group
    assert outside.sum(axis=1).max() <= 1 and np.all(c64[outside] == 1), "one wild outside"
    wild = np.where(outside.any(axis=1), outside.argmax(axis=1), -1).astype(np.int8)
    rng = np.random.RandomState(20261201)
    zob = rng.randint(1, 2**62, size=N_COUNT, dtype=np.int64).astype(np.uint64) * np.uint64(3)
    with np.errstate(over="ignore"):
        keys = (cnt.astype(np.uint64) * zob[None, :]).sum(axis=1, dtype=np.uint64)
    korder = np.argsort(keys, kind="stable")
    skeys = keys[korder]
    assert len(np.unique(skeys)) == k, "meld table keys collide"
    return (cnt, n_sets, start, faces, counts, nfaces, zob, skeys, korder.astype(np.int32),
            need1, need2, wild)


(MELD_CNT, N_SET_MELDS, MELD_GROUP_START, MELD_FACES, MELD_FACE_COUNTS, MELD_NFACES,
 MELD_ZOBRIST, MELD_KEYS, MELD_KEY_ROW, MELD_NEED1, MELD_NEED2, MELD_WILD) = _build_tables()
N_MELDS = MELD_CNT.shape[0]

# ---------------------------------------------------------------- action ids
A_DRAW = 0
A_TAKE = 1
A_END_MELD = 2
A_DISCARD = 3
A_LAYOFF = A_DISCARD + N_COUNT
A_CREATE = A_LAYOFF + MMAX * N_COUNT
N_ACTIONS = A_CREATE + N_MELDS
assert (N_MELDS, N_SET_MELDS) == (14132, 5352), "the action space is fixed: see the docstring"
assert N_ACTIONS == N_LEGAL
#: a built-in strategy's "create the meld counted in the work buffer's SEL" (it has just
#: tested that meld there): saves the table lookup both ways; never listed, never from Python
A_CREATE_SEL = N_ACTIONS + 108

# apply_action codes beyond kernels.engine.legal's (text in sim.game)
BAD_PHASE = 20          # the action is not one of this phase's
BAD_ACTION_ID = 21      # no such action id
BAD_TAKE = 22           # R34: taking the pile needs a placement that uses it
BAD_MUST_PLACE = 23     # R34: the meld phase may not end before a placement
BAD_EMPTY_PILE = 24     # there is no discard pile to take
BAD_DISCARD_FACE = 25   # no copy of that face in hand may be discarded
BAD_OPEN_LAYOFF = 26    # R24/R38: a lay-off of several cards is under way: it goes on, on its meld

ERR_ILLEGAL_CHOICE = 32  # record error bit: a chooser returned an illegal action


@njit(cache=True, _nrt=False)
def meld_row(sel):
    """The row of :data:`MELD_CNT` equal to the counts ``sel`` (int64[53]), or -1."""
    h = np.uint64(0)
    for f in range(N_COUNT):
        if sel[f] != 0:
            h += np.uint64(sel[f]) * MELD_ZOBRIST[f]
    lo = 0
    hi = MELD_KEYS.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if MELD_KEYS[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    if lo >= MELD_KEYS.shape[0] or MELD_KEYS[lo] != h:
        return -1
    row = MELD_KEY_ROW[lo]
    n = 0
    for j in range(MELD_NFACES[row]):
        f = MELD_FACES[row, j]
        if sel[f] != MELD_FACE_COUNTS[row, j]:
            return -1
        n += sel[f]
    for f in range(N_COUNT):
        n -= sel[f]
    if n != 0:
        return -1                 # sel holds a face the row does not
    return np.int64(row)


@njit(cache=True, _nrt=False)
def create_action(sel):
    """The action id that creates the meld counted in ``sel`` (int64[53]), or -1."""
    row = meld_row(sel)
    if row < 0:
        return -1
    return A_CREATE + row


@njit(cache=True, _nrt=False)
def meld_sel(row, sel):
    """Fill ``sel`` (int64[53], overwritten) with the counts of meld ``row``."""
    for f in range(N_COUNT):
        sel[f] = 0
    for j in range(MELD_NFACES[row]):
        sel[MELD_FACES[row, j]] = MELD_FACE_COUNTS[row, j]


# ---------------------------------------------------------------- the turn machine
@njit(cache=True, _nrt=False)
def debug_check(st, dbg):
    """Debug-mode invariants after an action; sets ``G_ERRORS`` bits.

    ``dbg`` is an int64[108 + 53] work array (overwritten).
    """
    g = st.g
    if not conservation_check(st, dbg[:108], dbg[108:]):
        g[G_ERRORS] |= L.ERR_CONSERVATION
    mcnt, minfo, nm = st.mcnt, st.minfo, st.nm
    for t in range(NTEAMS):
        for mi in range(nm[t]):
            kind = analyze(mcnt[t, mi], ANY_RANK)[0]
            if kind == KIND_NONE or kind != minfo[t, mi, MI_KIND]:
                g[G_ERRORS] |= L.ERR_INVALID_MELD


@njit(cache=True, _nrt=False)
def start_turn(st, seat):
    """Begin ``seat``'s turn (R32): the pickup decision is next."""
    g = st.g
    g[G_SEAT] = seat
    g[G_TURN] += 1
    g[G_POZZETTO_HIDDEN + seat] = 0            # an assigned pozzetto is usable from now (R41)
    g[G_BARRED] = -1
    g[G_TOOK_PILE] = 0
    g[G_ACTIONS] = 0
    g[G_LAST_TURN] = 0
    g[G_SINGLE] = 0
    g[G_OPEN_LAYOFF] = 0
    g[G_OPEN_ROW] = 0
    g[G_PHASE] = PH_PICKUP


@njit(cache=True, _nrt=False)
def begin_hand(st, rv, dealer):
    """Start a dealt hand (R6, R7): the player left of ``dealer`` moves first."""
    g = st.g
    g[G_DEALER] = dealer
    first = (dealer + 1) % rv[L.RV_NUM_PLAYERS]
    g[G_FIRST] = first
    g[G_END] = -1
    start_turn(st, first)


@njit(cache=True, _nrt=False)
def finish_hand(st, seat, end):
    """End the hand with reason ``end`` (``layout.END_*``) on ``seat``'s turn."""
    g = st.g
    g[G_END] = end
    g[G_PHASE] = PH_OVER
    log_event(st, seat, EV_END, end, I0, I0)


@njit(cache=True, _nrt=False)
def _end_turn(st, rv, seat):
    """After a discard that did not close: R50 last turn, R51 stall, turn cap,
    else the next seat's turn."""
    g = st.g
    if g[G_LAST_TURN] != 0:
        finish_hand(st, seat, np.int64(L.END_STOCK_EXHAUSTED))
        return
    if g[G_SINGLE] != 0 and g[G_ACTIONS] == 0:        # R51
        g[G_STALL] += 1
    else:
        g[G_STALL] = 0
    if g[G_STALL] >= rv[L.RV_STALL_TURN_LIMIT]:
        finish_hand(st, seat, np.int64(L.END_STALL))
        return
    if g[G_TURN] >= rv[L.RV_MAX_TURNS_PER_HAND]:
        finish_hand(st, seat, np.int64(L.END_TURN_CAP))
        return
    start_turn(st, (seat + 1) % rv[L.RV_NUM_PLAYERS])


@njit(cache=True, _nrt=False)
def discard_copy(st, rv, seat, f):
    """The copy a discard of count face ``f`` moves: ``(card id, closes)`` of the
    first copy in hand order that may be discarded (``closes`` as
    :func:`kernels.engine.legal.can_discard` gives it, R45), else ``(-1, 0)``."""
    hand, hn = st.hand, st.hn
    team = st.g[G_TEAM + seat]
    for i in range(hn[seat]):
        cid = hand[seat, i]
        if CIDX[cid] == f:
            code, closes = can_discard(st, rv, team, seat, cid)
            if code == OK:
                return cid, closes
    return np.int64(-1), np.int64(0)


@njit(cache=True, _nrt=False)
def apply_action(work, a):
    """Play action ``a`` for the seat to move, if it is legal (R32-R52).

    Parameters
    ----------
    work : numpy.ndarray
        The hand's work buffer (:mod:`kernels.table.work`): the state is mutated
        when ``a`` is legal and unchanged otherwise; the rules vector and the
        debug flag (``W_DEBUG``: check card conservation and the melds after
        the action) are read from it; its work arrays are overwritten.
    a : int
        Action id (module docstring), or ``N_ACTIONS + card id`` for a
        discard of that physical copy.

    Returns
    -------
    int
        ``OK`` (0) when played, else the reason it is illegal: a code of
        :mod:`kernels.engine.legal` or one of this module's ``BAD_*``.
    """
    return _apply(work, a, True)


@njit(cache=True, _nrt=False)
def apply_chosen(work, a):
    """:func:`apply_action` for an action a built-in strategy chose (``heuristic``,
    ``random``): they choose only actions that pass the tests of
    :mod:`kernels.engine.legal` (``can_layoff``, ``can_create``) and
    :mod:`kernels.engine.placement` (``can_take_pile``), so those tests are not run a
    second time for a take, a create, or a lay-off from a hand of 3+ cards (R38 cannot
    bite).  The state changes are
    :func:`apply_action`'s; the batch loop uses this outside debug mode.
    """
    return _apply(work, a, False)


@njit(cache=True, _nrt=False)
def _apply(work, a, check):
    """:func:`apply_action`; ``check`` False skips the tests :func:`apply_chosen` names."""
    wv = views(work)
    st, rv, sel, scratch, need, dbg = wv.state, wv.rules, wv.sel, wv.scratch, wv.need, wv.debug
    debug = work[W_DEBUG]
    g, hn = st.g, st.hn
    ph = g[G_PHASE]
    seat = g[G_SEAT]
    team = g[G_TEAM + seat]
    if a < 0 or a > A_CREATE_SEL:
        return BAD_ACTION_ID
    if ph == PH_OVER:
        return BAD_PHASE
    if a == A_DRAW or a == A_TAKE:
        if ph != PH_PICKUP:
            return BAD_PHASE
        if a == A_TAKE:
            pn = g[G_PILE_SIZE]
            if pn == 0:
                return BAD_EMPTY_PILE
            if check and not can_take_pile(st, rv, team, seat, need, sel, scratch):
                return BAD_TAKE
            if pn == 1 and rv[L.RV_FORBID_REDISCARD_SINGLE_PILE] != 0:
                g[G_BARRED] = st.pile[0]       # R36
            g[G_SINGLE] = 1 if pn == 1 else 0
            take_pile(st, seat)
            g[G_TOOK_PILE] = 1
            g[G_PILE_PICKUPS + team] += 1
            g[G_PILE_CARDS + team] += pn
            g[G_PHASE] = PH_PLACE if rv[L.RV_TAKE_PILE_REQUIRES_MELD] != 0 else PH_MELD
        else:
            draw_stock(st, seat)
            g[G_PHASE] = PH_MELD
            if g[G_STOCK_END] - g[G_STOCK_TOP] <= rv[L.RV_STOCK_RESERVE] and not (
                    rv[L.RV_UNTAKEN_POZZETTO_AS_STOCK] != 0 and pozzetto_to_stock(st, seat)):
                g[G_LAST_TURN] = 1              # R50, finish_turn
                if rv[L.RV_STOCK_END_MODE] == 1:
                    if debug:
                        debug_check(st, dbg)
                    finish_hand(st, seat, np.int64(L.END_STOCK_EXHAUSTED))  # R50, immediate
                    return OK
        if debug:
            debug_check(st, dbg)
        return OK
    open_mi = g[G_OPEN_LAYOFF] - 1
    if open_mi >= 0 and (a < A_LAYOFF or a >= A_CREATE or (a - A_LAYOFF) // N_COUNT != open_mi):
        return BAD_OPEN_LAYOFF
    if a == A_END_MELD:
        if ph == PH_PLACE:
            return BAD_MUST_PLACE
        if ph != PH_MELD:
            return BAD_PHASE
        g[G_PHASE] = PH_DISCARD
        return OK
    if a >= A_LAYOFF and (a < N_ACTIONS or a == A_CREATE_SEL):
        if ph != PH_PLACE and ph != PH_MELD:
            return BAD_PHASE
        if a < A_CREATE:
            mi = (a - A_LAYOFF) // N_COUNT
            c = (a - A_LAYOFF) % N_COUNT
            code = OK
            if check or hn[seat] < 3 or open_mi >= 0:
                code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            opens = False
            if code != OK and code != BAD_LAYOFF:
                # alone a dead end (R38), but the first card of a legal lay-off of several (R24)?
                for f in range(N_COUNT):
                    need[f] = 1
                opens = lay_off_opens(st, rv, team, seat, mi, c, need, sel)
            if code != OK and not opens:
                return code
            if open_mi >= 0:
                meld_add_more(st, team, seat, mi, c)
            else:
                meld_add(st, team, seat, mi, c)
                g[G_ACTIONS] += 1
                g[G_OPEN_ROW] = g[G_EVENT_ROWS] if opens and st.ev.shape[0] > 0 else 0
            g[G_OPEN_LAYOFF] = mi + 1 if opens else 0
            if not opens:
                g[G_OPEN_ROW] = 0
        else:
            if a != A_CREATE_SEL:
                meld_sel(a - A_CREATE, sel)
            if check:
                code, kind, nw = can_create(st, rv, team, seat, sel)
                if code != OK:
                    return code
            meld_create(st, team, seat, sel)
            g[G_ACTIONS] += 1
        g[G_PHASE] = PH_MELD
        if hn[seat] == 0:
            give_pozzetto(st, seat, np.int64(L.POZ_DIRECT))   # al volo (R41)
        if debug:
            debug_check(st, dbg)
        return OK
    # a discard: of a face (the engine picks the copy) or of a named copy
    if ph != PH_DISCARD:
        return BAD_PHASE
    if a >= N_ACTIONS:
        cid = a - N_ACTIONS
        code, closes = can_discard(st, rv, team, seat, cid)
        if code != OK:
            return code
    else:
        cid, closes = discard_copy(st, rv, seat, a - A_DISCARD)
        if cid < 0:
            return BAD_DISCARD_FACE
    discard_card(st, seat, cid, closes)
    if closes == 1:
        g[G_CLOSER] = seat
        if debug:
            debug_check(st, dbg)
        finish_hand(st, seat, np.int64(L.END_CLOSED))        # R47
        return OK
    if hn[seat] == 0:
        give_pozzetto(st, seat, np.int64(L.POZ_DISCARD))      # con lo scarto (R41)
        g[G_POZZETTO_HIDDEN + seat] = 1
    if debug:
        debug_check(st, dbg)
    _end_turn(st, rv, seat)
    return OK


@njit(cache=True, _nrt=False)
def legal_actions(work, out):
    """The legal actions of the seat to move, in increasing id order.

    Uses the checks :func:`apply_action` applies (one implementation of the
    rules): an id is listed exactly when ``apply_action`` would play it.

    Parameters
    ----------
    work : numpy.ndarray
        The hand's work buffer (:mod:`kernels.table.work`); the state is not
        mutated (the R34 test counts the pile into the hand and takes it out
        again), the work arrays are overwritten.
    out : numpy.ndarray
        ``int64[>= N_ACTIONS]``; its first entries receive the ids (mutated).

    Returns
    -------
    int
        The number of legal actions (0 once the hand is over).
    """
    wv = views(work)
    st, rv, sel, scratch, need = wv.state, wv.rules, wv.sel, wv.scratch, wv.need
    g, hcnt, nm = st.g, st.hcnt, st.nm
    ph = g[G_PHASE]
    seat = g[G_SEAT]
    team = g[G_TEAM + seat]
    n = 0
    if ph == PH_OVER:
        return 0
    if ph == PH_PICKUP:
        out[0] = A_DRAW
        n = 1
        if g[G_PILE_SIZE] > 0 and can_take_pile(st, rv, team, seat, need, sel, scratch):
            out[1] = A_TAKE
            n = 2
        return n
    hc = hcnt[seat]
    if ph == PH_DISCARD:
        for f in range(N_COUNT):
            if hc[f] > 0 and discard_copy(st, rv, seat, f)[0] >= 0:
                out[n] = A_DISCARD + f
                n += 1
        return n
    open_mi = g[G_OPEN_LAYOFF] - 1
    if ph == PH_MELD and open_mi < 0:
        out[n] = A_END_MELD
        n += 1
    for f in range(N_COUNT):
        need[f] = 1
    for mi in range(nm[team]):
        if open_mi >= 0 and mi != open_mi:
            continue
        for c in range(N_COUNT):
            if hc[c] == 0:
                continue
            code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK or (code != BAD_LAYOFF and lay_off_opens(st, rv, team, seat, mi, c,
                                                                    need, sel)):
                out[n] = A_LAYOFF + N_COUNT * mi + c
                n += 1
    if open_mi >= 0:
        return n          # the lay-off under way goes on (R24): no new meld, no end
    for grp in range(17):
        # the hand's cards of the group as bit masks (held once, held twice)
        nat = 0
        have1 = 0
        have2 = 0
        for j in range(4 if grp < 13 else 13):
            f = 13 * j + grp if grp < 13 else 13 * (grp - 13) + j
            nat += hc[f]
            if hc[f] >= 1:
                have1 |= 1 << j
            if hc[f] >= 2:
                have2 |= 1 << j
        if nat < 2:
            continue      # every valid meld has two naturals of its rank (set) or suit (sequence)
        for row in range(MELD_GROUP_START[grp], MELD_GROUP_START[grp + 1]):
            if (MELD_NEED1[row] & ~have1) != 0 or (MELD_NEED2[row] & ~have2) != 0:
                continue
            w = MELD_WILD[row]
            if w >= 0 and hc[w] == 0:
                continue
            meld_sel(row, sel)
            code, kind, nw = can_create(st, rv, team, seat, sel)
            if code == OK:
                out[n] = A_CREATE + row
                n += 1
    return n
