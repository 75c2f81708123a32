"""Array layout of a hand in progress, and the primitive moves on it.

A hand's state is a :class:`State` named tuple of int64 arrays (``st``)::

    State(hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc)

``hand``  int64[4, 108]   card ids held by each seat (first ``hn[s]`` valid)
``hn``    int64[4]        hand sizes (cards)
``hcnt``  int64[4, 53]    the same hands as counts per count index
``stock`` int64[108]      stock, top card at ``g[G_SP]``, ends at ``g[G_SLEN]``
``pile``  int64[108]      discard pile, bottom first, ``g[G_PN]`` cards
``poz``   int64[3, 18]    the pozzetti (``g[G_POZ_SIZE + k]`` cards in pozzetto k)
``mcnt``  int64[3, 40, 53] each team's melds as counts
``mids``  int64[3, 40, 14] the melds' card ids (first ``minfo[..., MI_LEN]``)
``minfo`` int64[3, 40, 9] length, kind and reading of each meld (``MI_*`` columns)
``nm``    int64[3]        number of melds per team
``g``     int64[G_LEN]    scalars (``G_*`` slots)
``ev``    int64[E, 8]     event log rows (``EV_*`` columns), E = 0 when off
``evc``   int64[C]        card ids referred to by the event rows
``known`` int64[4, 53]    per seat and count face, the cards every player knows the
                          seat holds (R11): taken with the discard pile and not
                          melded or discarded since (each card of the face that
                          leaves the hand lowers the count by one, down to 0)

The event log records every action of the hand (issue: replay/referee): a
row is ``(turn, seat, type, a, b, c, first, n)`` where ``type`` is one of
``EV_*``, ``a``/``b``/``c`` depend on the type (team, meld index, mode,
closes flag, end reason) and ``evc[first:first+n]`` are the cards involved.
With a zero-row ``ev`` nothing is logged.

:func:`new_state` allocates the arrays (for use from Python);
:func:`state_views` lays them out as borrowed views of one work buffer, which
is what the batch loop uses (no reference counting on the hot path).

Seat ``s`` plays for team ``g[G_TEAM + s]``: ``s % 2`` with 4 players (R5)
and 2 players (R61); its own seat with 3 players, until the two players left
without pozzetto A become partners in ``solo_18`` (R62).  Team slot 2 is used
only with 3 players.  Moves keep every card id in exactly one place (card
conservation, RULES.md section 19).
"""
from collections import namedtuple

import numpy as np
from numba import carray, config, njit, types
from numba.extending import intrinsic

from kernels.core.cards import CIDX
from kernels.core.melds import ANY_RANK, analyze, move_twos

HMAX = 108
MMAX = 40
MCARDS = 14
PMAX = 18
NTEAMS = 3          # team (table) slots: 2, or 3 with three players (R62, R63)

MI_LEN = 0
MI_KIND = 1
MI_NWILD = 2
MI_NAT2 = 3
MI_KEY = 4
MI_LO = 5
MI_HI = 6
MI_WSLOT = 7
# 1 when the meld's 2s keep the role they entered with (option lock_two_roles, R25);
# columns 2..7 are then the reading that keeps them: MI_NAT2 of the suit's 2s are
# natural, the others are wilds.  Set for every row at the deal (set_lock_two_roles).
MI_LOCK = 8
MI_COLS = 9

G_SP = 0            # index of the stock's top card
G_SLEN = 1          # stock length at the deal
G_PN = 2            # cards in the discard pile
G_POZ_NEXT = 3      # next pozzetto to hand out (0, 1, 2; G_NPOZ = none left)
G_TURN = 4          # player turns started so far
G_STALL = 5         # stall counter (R51)
G_BARRED = 6        # id barred from this turn's discard (R36), -1 none
G_TPOZ = 7          # +team: 1 once the team has taken its pozzetto (R42)
G_PTURN = 10        # +team: turn the pozzetto was taken (-1)
G_PMODE = 13        # +team: POZ_DIRECT / POZ_DISCARD
G_HIDDEN = 16       # +seat: 1 while an assigned pozzetto is unplayed (R41, R57)
G_PP = 20           # +team: discard-pile pickups
G_PC = 23           # +team: cards picked up from the pile
G_ERR = 26          # debug error bits
G_TOOK_PILE = 27    # 1 if this turn's pickup took the pile
G_ACTIONS = 28      # meld-phase actions this turn
G_POZ_SIZE = 29     # +pozzetto: cards in deal pozzetto k
G_CLOSER = 32       # seat that closed, -1
G_NEV = 33          # event rows used
G_NEVC = 34         # event card slots used
G_TEAM = 35         # +seat: the team (table) the seat plays for (R5, R61-R63)
G_NPOZ = 39         # pozzetti in the deal (2, or 3 in individual_3x11)
G_SOLO = 40         # 3 players, solo_18: the seat that took pozzetto A and plays alone, -1
G_SOLO18 = 41       # 1 in a 3-player solo_18 hand (R62): pozzetto A makes the other two partners
G_PHASE = 42        # the decision the hand waits for (kernels.engine.actions.PH_*)
G_SEAT = 43         # the seat to move
G_END = 44          # end reason (layout.END_*) once the hand is over, -1 before
G_LAST_TURN = 45    # 1 when this turn's draw left the stock at its reserve (R50, finish_turn)
G_SINGLE = 46       # 1 when this turn's pickup took a one-card pile (R51 stall count)
G_DEALER = 47       # the dealer seat (R6)
G_FIRST = 48        # the first player, left of the dealer (R7)
G_OPEN_LAYOFF = 49  # 1 + the meld index of a lay-off of several cards under way (R24, R38), 0 none
G_OPEN_ROW = 50     # 1 + the event row of that lay-off (its later cards join it), 0 none
G_LEN = 51

# event types (ev[:, EVC_TYPE]); np.int64 so that Numba compiles log_event
# once, not once per literal
EV_DRAW = np.int64(1)       # cards: the drawn card
EV_TAKE_PILE = np.int64(2)  # cards: the whole pile, bottom first
EV_MELD = np.int64(3)       # a: team, b: meld index; cards: the new meld
EV_LAYOFF = np.int64(4)     # a: team, b: meld index; cards: the cards laid off
EV_POZZETTO = np.int64(5)   # a: mode (layout.POZ_DIRECT / POZ_DISCARD); cards: the pozzetto
EV_DISCARD = np.int64(6)    # a: 1 if the discard closes; cards: the discard
EV_END = np.int64(7)        # a: end reason (layout.END_*)
EV_POZ_STOCK = np.int64(8)  # a: the pozzetto (deal index) that became the stock (R53); cards: it
I0 = np.int64(0)            # int64 0 and 1 as call arguments (see above)
I1 = np.int64(1)
EVC_TURN = 0
EVC_SEAT = 1
EVC_TYPE = 2
EVC_A = 3
EVC_B = 4
EVC_C = 5
EVC_FIRST = 6
EVC_N = 7
EV_COLS = 8


@njit(cache=True, _nrt=False)
def reset_g(g):
    """Clear the game counters ``g`` (int64[G_LEN], mutated) for a new hand of
    four players: seat ``s`` plays for team ``s % 2``, two pozzetti of 11."""
    for i in range(G_LEN):
        g[i] = 0
    g[G_BARRED] = -1
    for t in range(NTEAMS):
        g[G_PTURN + t] = -1
    g[G_CLOSER] = -1
    g[G_SOLO] = -1
    g[G_END] = -1
    g[G_DEALER] = -1
    g[G_FIRST] = -1
    for s in range(4):
        g[G_TEAM + s] = s % 2
    g[G_NPOZ] = 2
    for k in range(NTEAMS):
        g[G_POZ_SIZE + k] = 11


@njit(cache=True)
def new_state(ev_rows, ev_cards):
    """Empty state tuple (all hands, melds, piles empty).

    ``ev_rows``/``ev_cards`` size the event log (0, 0: logging off).
    """
    hand = np.full((4, HMAX), -1, np.int64)
    hn = np.zeros(4, np.int64)
    hcnt = np.zeros((4, 53), np.int64)
    stock = np.full(HMAX, -1, np.int64)
    pile = np.full(HMAX, -1, np.int64)
    poz = np.full((NTEAMS, PMAX), -1, np.int64)
    mcnt = np.zeros((NTEAMS, MMAX, 53), np.int64)
    mids = np.full((NTEAMS, MMAX, MCARDS), -1, np.int64)
    minfo = np.zeros((NTEAMS, MMAX, MI_COLS), np.int64)
    nm = np.zeros(NTEAMS, np.int64)
    g = np.zeros(G_LEN, np.int64)
    reset_g(g)
    ev = np.zeros((ev_rows, EV_COLS), np.int64)
    evc = np.full(ev_cards, -1, np.int64)
    known = np.zeros((4, 53), np.int64)
    return State(hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc, known)


# The state's arrays in a work buffer: name, shape; laid out one after the other
# from word 0 (the event log, ev and evc, lives elsewhere: kernels.table.work).
STATE_FIELDS = (
    ("hand", (4, HMAX)), ("hn", (4,)), ("hcnt", (4, 53)), ("stock", (HMAX,)),
    ("pile", (HMAX,)), ("poz", (NTEAMS, PMAX)), ("mcnt", (NTEAMS, MMAX, 53)),
    ("mids", (NTEAMS, MMAX, MCARDS)), ("minfo", (NTEAMS, MMAX, MI_COLS)), ("nm", (NTEAMS,)),
    ("g", (G_LEN,)), ("known", (4, 53)),
)
State = namedtuple("State", [name for name, _ in STATE_FIELDS[:-1]] + ["ev", "evc", "known"])
State.__doc__ = "A hand's state: the arrays of the module docstring, by name (``st.g`` is ``st[10]``)."


def _field_offsets():
    at = 0
    out = {}
    for name, shape in STATE_FIELDS:
        out[name] = at
        at += int(np.prod(shape))
    return out, at


_AT, STATE_WORDS = _field_offsets()
S_HAND, S_HN, S_HCNT, S_STOCK, S_PILE, S_POZ, S_MCNT, S_MIDS, S_MINFO, S_NM, S_G, S_KNOWN = (
    _AT[name] for name, _ in STATE_FIELDS)
assert S_KNOWN + 4 * 53 == STATE_WORDS and State._fields.index("g") == 10


def state_numpy(work, ev_at, ev_rows, ev_cards):
    """:func:`state_of` for Python code: the same :class:`State`, as numpy views of ``work``."""
    arrays = {name: work[_AT[name]:_AT[name] + int(np.prod(shape))].reshape(shape)
              for name, shape in STATE_FIELDS}
    arrays["ev"] = work[ev_at:ev_at + ev_rows * EV_COLS].reshape(ev_rows, EV_COLS)
    arrays["evc"] = work[ev_at + ev_rows * EV_COLS:ev_at + ev_rows * EV_COLS + ev_cards]
    return State(**arrays)


def _pointer_intrinsic(nbtype):
    @intrinsic
    def as_pointer(typingctx, addr):
        if not isinstance(addr, types.Integer):
            return None
        sig = types.CPointer(nbtype)(addr)

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))
        return sig, codegen
    return as_pointer


if config.DISABLE_JIT:          # pure Python (NUMBA_DISABLE_JIT=1): ordinary numpy views
    def _view(work, at, shape, dtype):
        return work[at:at + int(np.prod(shape))].view(dtype).reshape(shape)

    def view_i64(work, at, shape):
        """``work[at:]`` (int64 words) seen as an int64 array of ``shape``."""
        return _view(work, at, shape, np.int64)

    def view_u64(work, at, shape):
        """``work[at:]`` (int64 words) seen as a uint64 array of ``shape``."""
        return _view(work, at, shape, np.uint64)

    def view_f64(work, at, shape):
        """``work[at:]`` (int64 words) seen as a float64 array of ``shape``."""
        return _view(work, at, shape, np.float64)
else:
    def _view_intrinsic(dtype):
        """An intrinsic ``view(work, at, shape)``: ``work[at:]`` (an int64 array)
        seen as a C-contiguous array of ``dtype`` and ``shape`` (an int or a
        tuple of ints), built in place: no meminfo, no reference count, no call
        (so functions compiled without Numba's runtime may make views too)."""
        @intrinsic
        def view(typingctx, work, at, shape):
            if isinstance(shape, types.Integer):
                ndim = 1
            elif isinstance(shape, types.BaseTuple) and all(
                    isinstance(t, types.Integer) for t in shape):
                ndim = len(shape)
            else:
                return None
            arrty = types.Array(dtype, ndim, "C")
            sig = arrty(work, at, shape)

            def codegen(context, builder, signature, args):
                from numba.core import cgutils
                src = context.make_array(signature.args[0])(context, builder, value=args[0])
                at_v = context.cast(builder, args[1], signature.args[1], types.intp)
                base = builder.gep(src.data, [at_v])
                data = builder.bitcast(base, context.get_value_type(types.CPointer(dtype)))
                if ndim == 1:
                    dims = [context.cast(builder, args[2], signature.args[2], types.intp)]
                else:
                    dims = [context.cast(builder, builder.extract_value(args[2], i),
                                         signature.args[2][i], types.intp) for i in range(ndim)]
                itemsize = context.get_constant(types.intp, context.get_abi_sizeof(
                    context.get_data_type(dtype)))
                strides = []
                acc = itemsize
                for d in reversed(dims):
                    strides.append(acc)
                    acc = builder.mul(acc, d)
                strides.reverse()
                out = context.make_array(arrty)(context, builder)
                context.populate_array(out, data=data, shape=cgutils.pack_array(builder, dims),
                                       strides=cgutils.pack_array(builder, strides),
                                       itemsize=itemsize, meminfo=None)
                return out._getvalue()
            return sig, codegen
        return view

    _view_i64 = _view_intrinsic(types.int64)
    _view_u64 = _view_intrinsic(types.uint64)
    _view_f64 = _view_intrinsic(types.float64)

    @njit(cache=True, inline="always")
    def view_i64(work, at, shape):
        """``work[at:]`` (int64 words) seen as an int64 array of ``shape``.

        The view is *borrowed* (no reference count): ``work`` must outlive it.
        """
        return _view_i64(work, at, shape)

    @njit(cache=True, inline="always")
    def view_u64(work, at, shape):
        """``work[at:]`` seen as a uint64 array of ``shape`` (borrowed view)."""
        return _view_u64(work, at, shape)

    @njit(cache=True, inline="always")
    def view_f64(work, at, shape):
        """``work[at:]`` seen as a float64 array of ``shape`` (borrowed view)."""
        return _view_f64(work, at, shape)


@njit(cache=True, inline="always")
def state_of(work, ev_at, ev_rows, ev_cards):
    """The :class:`State` held in ``work`` (int64) as *borrowed* views, unchanged:
    the state in ``work[:STATE_WORDS]``, the event log (``ev_rows`` rows, then
    ``ev_cards`` card slots) from ``work[ev_at]``.

    The views carry no reference count: ``work`` must outlive them (the batch
    loop and ``sim.Game`` own it).  Numba reference-counts every array handed
    to a function, with an atomic operation; the state is handed around
    millions of times per second, and with owned arrays that bookkeeping took
    three quarters of the run time (profiled).
    """
    return State(view_i64(work, S_HAND, (4, HMAX)), view_i64(work, S_HN, 4),
                 view_i64(work, S_HCNT, (4, 53)), view_i64(work, S_STOCK, HMAX),
                 view_i64(work, S_PILE, HMAX), view_i64(work, S_POZ, (NTEAMS, PMAX)),
                 view_i64(work, S_MCNT, (NTEAMS, MMAX, 53)),
                 view_i64(work, S_MIDS, (NTEAMS, MMAX, MCARDS)),
                 view_i64(work, S_MINFO, (NTEAMS, MMAX, MI_COLS)), view_i64(work, S_NM, NTEAMS),
                 view_i64(work, S_G, G_LEN), view_i64(work, ev_at, (ev_rows, EV_COLS)),
                 view_i64(work, ev_at + ev_rows * EV_COLS, ev_cards),
                 view_i64(work, S_KNOWN, (4, 53)))


@njit(cache=True)
def state_views(work, ev_at, ev_rows, ev_cards):
    """:func:`state_of`, reset to an empty table (like :func:`new_state`)."""
    st = state_of(work, ev_at, ev_rows, ev_cards)
    hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc, known = st
    known[:, :] = 0
    hand[:, :] = -1
    hn[:] = 0
    hcnt[:, :] = 0
    stock[:] = -1
    pile[:] = -1
    poz[:, :] = -1
    nm[:] = 0        # mcnt, mids and minfo rows are cleared when a meld is created
    reset_g(g)
    ev[:, :] = 0
    evc[:] = -1
    return st


@njit(cache=True, _nrt=False)
def log_event(st, seat, etype, a, b, c):
    """Append an event row (no cards yet); returns its row or -1 when off/full."""
    g, ev = st.g, st.ev
    i = g[G_NEV]
    if i >= ev.shape[0]:
        if ev.shape[0] > 0:
            g[G_ERR] |= 16          # layout.ERR_LOG_OVERFLOW
        return -1
    g[G_NEV] = i + 1
    ev[i, EVC_TURN] = g[G_TURN]
    ev[i, EVC_SEAT] = seat
    ev[i, EVC_TYPE] = etype
    ev[i, EVC_A] = a
    ev[i, EVC_B] = b
    ev[i, EVC_C] = c
    ev[i, EVC_FIRST] = g[G_NEVC]
    ev[i, EVC_N] = 0
    return i


@njit(cache=True, _nrt=False)
def log_card(st, row, cid):
    """Attach card ``cid`` to event ``row`` (no-op when ``row`` < 0)."""
    if row < 0:
        return
    g, ev, evc = st.g, st.ev, st.evc
    k = g[G_NEVC]
    if k >= evc.shape[0]:
        g[G_ERR] |= 16
        return
    evc[k] = cid
    g[G_NEVC] = k + 1
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
    for f in range(53):
        mcnt[team, mi, f] = 0
    for k in range(MCARDS):
        mids[team, mi, k] = -1
    row = log_event(st, seat, EV_MELD, team, mi, I0)
    k = 0
    for c in range(53):
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
    if row >= 0 and row == g[G_NEV] - 1 and ev[row, EVC_TYPE] == EV_LAYOFF and ev[row, EVC_B] == mi:
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
    cid = stock[g[G_SP]]
    stock[g[G_SP]] = -1
    g[G_SP] += 1
    hand_add(st, seat, cid)
    log_card(st, log_event(st, seat, EV_DRAW, I0, I0, I0), cid)
    return cid


@njit(cache=True, _nrt=False)
def take_pile(st, seat):
    """Take the whole discard pile into ``seat``'s hand (R33b); returns its size."""
    pile, g = st.pile, st.g
    n = g[G_PN]
    row = log_event(st, seat, EV_TAKE_PILE, I0, I0, I0)
    for i in range(n):
        hand_add(st, seat, pile[i])
        st.known[seat, CIDX[pile[i]]] += 1      # R11: everyone saw the pile go to this hand
        log_card(st, row, pile[i])
        pile[i] = -1
    g[G_PN] = 0
    return n


@njit(cache=True, _nrt=False)
def discard_card(st, seat, cid, closes):
    """Move ``cid`` from ``seat``'s hand to the top of the discard pile.

    ``closes`` (0/1) is only recorded in the event log.
    """
    pile, g = st.pile, st.g
    hand_remove_id(st, seat, cid)
    log_card(st, log_event(st, seat, EV_DISCARD, closes, I0, I0), cid)
    pile[g[G_PN]] = cid
    g[G_PN] += 1


@njit(cache=True, _nrt=False)
def give_pozzetto(st, seat, mode):
    """Hand the next pozzetto to ``seat`` (R40, R41); mutates ``st``."""
    poz, g = st.poz, st.g
    team = g[G_TEAM + seat]
    p = g[G_POZ_NEXT]
    g[G_POZ_NEXT] = p + 1
    row = log_event(st, seat, EV_POZZETTO, mode, p, I0)
    for i in range(g[G_POZ_SIZE + p]):
        hand_add(st, seat, poz[p, i])
        log_card(st, row, poz[p, i])
        poz[p, i] = -1
    g[G_TPOZ + team] = 1
    g[G_PTURN + team] = g[G_TURN]
    g[G_PMODE + team] = mode
    if p == 0 and g[G_SOLO18] != 0:
        merge_pair(st, seat)


@njit(cache=True, _nrt=False)
def no_pozzetto_left(g, team):
    """The team has not taken a pozzetto and none is left to take (R53)."""
    return g[G_TPOZ + team] == 0 and g[G_POZ_NEXT] >= g[G_NPOZ]


@njit(cache=True, _nrt=False)
def pozzetto_to_stock(st, seat):
    """R53, ``untaken_pozzetto_as_stock``: the last untaken pozzetto becomes the stock.

    Its cards go on top of the stock (the reserve cards of R50 stay at the
    bottom), in their order, and it can no longer be taken (``G_NPOZ`` drops
    by one).  Returns False, changing nothing, if every pozzetto has been
    taken.  Mutates ``st``.
    """
    stock, poz, g = st.stock, st.poz, st.g
    if g[G_POZ_NEXT] >= g[G_NPOZ]:
        return False
    k = g[G_NPOZ] - 1
    n = g[G_POZ_SIZE + k]
    left = g[G_SLEN] - g[G_SP]
    if g[G_SP] < n:                       # make room: the reserve cards move down
        for i in range(left - 1, -1, -1):
            stock[n + i] = stock[g[G_SP] + i]
        g[G_SP] = n
        g[G_SLEN] = n + left
    row = log_event(st, seat, EV_POZ_STOCK, k, I0, I0)
    for i in range(n):
        stock[g[G_SP] - n + i] = poz[k, i]
        log_card(st, row, poz[k, i])
        poz[k, i] = -1
    g[G_SP] -= n
    g[G_NPOZ] = k
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
        for c in range(53):
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
    g[G_PP + ta] += g[G_PP + tb]
    g[G_PP + tb] = 0
    g[G_PC + ta] += g[G_PC + tb]
    g[G_PC + tb] = 0
    g[G_TEAM + b] = ta
    g[G_SOLO] = solo


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
        for c in range(53):
            cnt[c] = 0
        for i in range(hn[s]):
            seen[hand[s, i]] += 1
            cnt[CIDX[hand[s, i]]] += 1
        for c in range(53):
            if cnt[c] != hcnt[s, c] or known[s, c] > cnt[c]:
                return False
    for i in range(g[G_SP], g[G_SLEN]):
        seen[stock[i]] += 1
    for i in range(g[G_PN]):
        seen[pile[i]] += 1
    for p in range(g[G_POZ_NEXT], g[G_NPOZ]):
        for i in range(g[G_POZ_SIZE + p]):
            seen[poz[p, i]] += 1
    for t in range(NTEAMS):
        for mi in range(nm[t]):
            for c in range(53):
                cnt[c] = 0
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


@njit(cache=True)
def conservation_ok(st):
    """:func:`conservation_check` with its own work arrays."""
    return conservation_check(st, np.zeros(108, np.int64), np.zeros(53, np.int64))
