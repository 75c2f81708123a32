"""Array layout of a hand in progress (the primitive moves on it: :mod:`kernels.table.moves`).

A hand's state is a :class:`State` named tuple of int64 arrays (``st``)::

    State(hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc)

``hand``  int64[4, 108]   card ids held by each seat (first ``hn[s]`` valid)
``hn``    int64[4]        hand sizes (cards)
``hcnt``  int64[4, 53]    the same hands as counts per count index
``stock`` int64[108]      stock, top card at ``g[G_STOCK_TOP]``, ends at ``g[G_STOCK_END]``
``pile``  int64[108]      discard pile, bottom first, ``g[G_PILE_SIZE]`` cards
``poz``   int64[3, 18]    the pozzetti (``g[G_POZZETTO_SIZE + k]`` cards in pozzetto k)
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

The event log records every action of the hand (for replays and the referee): a
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
from numba import config, njit, types
from numba.extending import intrinsic

from kernels.core.cards import N_COUNT
from kernels.core.slots import check_block, check_family, write_block

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
check_family("MI", {k: v for k, v in globals().items() if k.startswith("MI_") and k != "MI_COLS"},
             MI_COLS)

# The state's scalar fields g[...]: (name, words, meaning), laid out one after another from
# word 0 (a field of several words has one per team, seat or pozzetto, the first at the
# name's index).  G_LEN is their total; check_family refuses overlaps at import.
G_FIELDS = (
    ("G_STOCK_TOP", 1, "index of the stock's top card"),
    ("G_STOCK_END", 1, "stock length at the deal"),
    ("G_PILE_SIZE", 1, "cards in the discard pile"),
    ("G_NEXT_POZZETTO", 1, "next pozzetto to hand out (0, 1, 2; G_N_POZZETTI = none left)"),
    ("G_TURN", 1, "player turns started so far"),
    ("G_STALL", 1, "stall counter (R51)"),
    ("G_BARRED", 1, "id barred from this turn's discard (R36), -1 none"),
    ("G_POZZETTO_TAKEN", 3, "1 once the team has taken its pozzetto (R42)"),
    ("G_POZZETTO_TURN", 3, "turn the pozzetto was taken (-1)"),
    ("G_POZZETTO_MODE", 3, "POZ_DIRECT / POZ_DISCARD"),
    ("G_POZZETTO_HIDDEN", 4, "1 while an assigned pozzetto is unplayed (R41, R57)"),
    ("G_PILE_PICKUPS", 3, "discard-pile pickups"),
    ("G_PILE_CARDS", 3, "cards picked up from the pile"),
    ("G_ERRORS", 1, "debug error bits"),
    ("G_TOOK_PILE", 1, "1 if this turn's pickup took the pile"),
    ("G_ACTIONS", 1, "meld-phase actions this turn"),
    ("G_POZZETTO_SIZE", 3, "cards in deal pozzetto k"),
    ("G_CLOSER", 1, "seat that closed, -1"),
    ("G_EVENT_ROWS", 1, "event rows used"),
    ("G_EVENT_CARDS", 1, "event card slots used"),
    ("G_TEAM", 4, "the team (table) the seat plays for (R5, R61-R63)"),
    ("G_N_POZZETTI", 1, "pozzetti in the deal (2, or 3 in individual_3x11)"),
    ("G_SOLO_SEAT", 1, "3 players, solo_18: the seat that took pozzetto A and plays alone, -1"),
    ("G_SOLO_18", 1, "1 in a 3-player solo_18 hand (R62): pozzetto A makes the other two "
                     "partners"),
    ("G_PHASE", 1, "the decision the hand waits for (kernels.engine.actions.PH_*)"),
    ("G_SEAT", 1, "the seat to move"),
    ("G_END", 1, "end reason (layout.END_*) once the hand is over, -1 before"),
    ("G_LAST_TURN", 1, "1 when this turn's draw left the stock at its reserve (R50, finish_turn)"),
    ("G_SINGLE", 1, "1 when this turn's pickup took a one-card pile (R51 stall count)"),
    ("G_DEALER", 1, "the dealer seat (R6)"),
    ("G_FIRST", 1, "the first player, left of the dealer (R7)"),
    ("G_OPEN_LAYOFF", 1, "1 + the meld index of a lay-off of several cards under way (R24, R38), "
                         "0 none"),
    ("G_OPEN_ROW", 1, "1 + the event row of that lay-off (its later cards join it), 0 none"),
)
G_LEN = sum(words for _, words, _ in G_FIELDS)
_G_AT = np.cumsum([0] + [words for _, words, _ in G_FIELDS])
#: the fields' first words, written out below (the block is checked against G_FIELDS at import)
G_SLOTS = {name: int(at) for (name, _, _), at in zip(G_FIELDS, _G_AT)}
# -- G: generated from its table; check or write it again with python -m kernels.table.state
G_STOCK_TOP = 0
G_STOCK_END = 1
G_PILE_SIZE = 2
G_NEXT_POZZETTO = 3
G_TURN = 4
G_STALL = 5
G_BARRED = 6
G_POZZETTO_TAKEN = 7
G_POZZETTO_TURN = 10
G_POZZETTO_MODE = 13
G_POZZETTO_HIDDEN = 16
G_PILE_PICKUPS = 20
G_PILE_CARDS = 23
G_ERRORS = 26
G_TOOK_PILE = 27
G_ACTIONS = 28
G_POZZETTO_SIZE = 29
G_CLOSER = 32
G_EVENT_ROWS = 33
G_EVENT_CARDS = 34
G_TEAM = 35
G_N_POZZETTI = 39
G_SOLO_SEAT = 40
G_SOLO_18 = 41
G_PHASE = 42
G_SEAT = 43
G_END = 44
G_LAST_TURN = 45
G_SINGLE = 46
G_DEALER = 47
G_FIRST = 48
G_OPEN_LAYOFF = 49
G_OPEN_ROW = 50
# -- end of G
G_COMMAND = "python -m kernels.table.state"
if __name__ == "__main__":          # write the block again from G_FIELDS
    print(__file__, "G", "written" if write_block(__file__, "G", G_SLOTS, G_COMMAND) else "unchanged")
else:
    check_block(__file__, "G", G_SLOTS, G_COMMAND)
check_family("G", {name: (int(at), words) for (name, words, _), at in zip(G_FIELDS, _G_AT)},
             G_LEN)
assert (G_LEN, G_OPEN_ROW, G_TEAM) == (51, 50, 35)   # the layout of saved positions


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
check_family("EVC", {k: v for k, v in globals().items() if k.startswith("EVC_")}, EV_COLS)


@njit(cache=True, _nrt=False)
def reset_g(g):
    """Clear the game counters ``g`` (int64[G_LEN], mutated) for a new hand of
    four players: seat ``s`` plays for team ``s % 2``, two pozzetti of 11."""
    for i in range(G_LEN):
        g[i] = 0
    g[G_BARRED] = -1
    for t in range(NTEAMS):
        g[G_POZZETTO_TURN + t] = -1
    g[G_CLOSER] = -1
    g[G_SOLO_SEAT] = -1
    g[G_END] = -1
    g[G_DEALER] = -1
    g[G_FIRST] = -1
    for s in range(4):
        g[G_TEAM + s] = s % 2
    g[G_N_POZZETTI] = 2
    for k in range(NTEAMS):
        g[G_POZZETTO_SIZE + k] = 11


@njit(cache=True)
def new_state(ev_rows, ev_cards):
    """Empty state tuple (all hands, melds, piles empty).

    ``ev_rows``/``ev_cards`` size the event log (0, 0: logging off).
    """
    hand = np.full((4, HMAX), -1, np.int64)
    hn = np.zeros(4, np.int64)
    hcnt = np.zeros((4, N_COUNT), np.int64)
    stock = np.full(HMAX, -1, np.int64)
    pile = np.full(HMAX, -1, np.int64)
    poz = np.full((NTEAMS, PMAX), -1, np.int64)
    mcnt = np.zeros((NTEAMS, MMAX, N_COUNT), np.int64)
    mids = np.full((NTEAMS, MMAX, MCARDS), -1, np.int64)
    minfo = np.zeros((NTEAMS, MMAX, MI_COLS), np.int64)
    nm = np.zeros(NTEAMS, np.int64)
    g = np.zeros(G_LEN, np.int64)
    reset_g(g)
    ev = np.zeros((ev_rows, EV_COLS), np.int64)
    evc = np.full(ev_cards, -1, np.int64)
    known = np.zeros((4, N_COUNT), np.int64)
    return State(hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc, known)


# The state's arrays in a work buffer: name, shape; laid out one after the other
# from word 0 (the event log, ev and evc, lives elsewhere: kernels.table.work).
STATE_FIELDS = (
    ("hand", (4, HMAX)), ("hn", (4,)), ("hcnt", (4, N_COUNT)), ("stock", (HMAX,)),
    ("pile", (HMAX,)), ("poz", (NTEAMS, PMAX)), ("mcnt", (NTEAMS, MMAX, N_COUNT)),
    ("mids", (NTEAMS, MMAX, MCARDS)), ("minfo", (NTEAMS, MMAX, MI_COLS)), ("nm", (NTEAMS,)),
    ("g", (G_LEN,)), ("known", (4, N_COUNT)),
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
assert S_KNOWN + 4 * N_COUNT == STATE_WORDS and State._fields.index("g") == 10


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
                 view_i64(work, S_HCNT, (4, N_COUNT)), view_i64(work, S_STOCK, HMAX),
                 view_i64(work, S_PILE, HMAX), view_i64(work, S_POZ, (NTEAMS, PMAX)),
                 view_i64(work, S_MCNT, (NTEAMS, MMAX, N_COUNT)),
                 view_i64(work, S_MIDS, (NTEAMS, MMAX, MCARDS)),
                 view_i64(work, S_MINFO, (NTEAMS, MMAX, MI_COLS)), view_i64(work, S_NM, NTEAMS),
                 view_i64(work, S_G, G_LEN), view_i64(work, ev_at, (ev_rows, EV_COLS)),
                 view_i64(work, ev_at + ev_rows * EV_COLS, ev_cards),
                 view_i64(work, S_KNOWN, (4, N_COUNT)))


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
