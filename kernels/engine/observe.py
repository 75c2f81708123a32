"""The observation tensor of one seat: what R11 lets it know, as fixed-size floats.

:func:`observation_tensor` fills ``float32[TENSOR_SIZE]`` from a hand's work
buffer (:mod:`kernels.table.work`) for ``sim.Game.observation_tensor`` and the
reinforcement-learning environments built on it (``sim.envs``).  It reads only
what the seat may know: its own hand, the cards known to be in the other hands
(``st.known``), hand sizes, the discard pile, the R36-barred card, every meld
and the counters; the layout is :data:`TENSOR_FIELDS` (documented in
docs/step_api.md).  Seats are taken relative to the observer (0 = itself, 1 =
the next seat to play, ...).
"""
from numba import njit

from kernels.engine.actions import PHASES
from kernels.core.cards import CIDX, N_COUNT
from kernels.table.state import (G_BARRED, G_NPOZ, G_PHASE, G_PN, G_POZ_NEXT, G_SEAT, G_SLEN, G_SP,
                    G_TEAM, G_TPOZ, G_TURN, MMAX)
from kernels.table.work import views

#: the tensor's layout: (name, length), in order
TENSOR_FIELDS = (
    ("phase", len(PHASES)),            # one-hot
    ("seat_to_move", 4),               # one-hot, relative to the observer (0 = itself)
    ("hand", N_COUNT),                 # own hand: copies of each face / 2
    ("known", 3 * N_COUNT),            # the next, partner, previous seat: known copies / 2
    ("hand_sizes", 4),                 # relative seats, cards / 30 (capped at 1)
    ("pile", N_COUNT),                 # discard pile: copies of each face / 2
    ("pile_top", N_COUNT),             # one-hot of the top card's face
    ("pile_size", 1),                  # cards / 30 (capped at 1)
    ("barred", N_COUNT),               # one-hot of the R36-barred face
    ("melds_own", MMAX * N_COUNT),     # own side's meld slots: copies of each face / 2
    ("melds_opp", MMAX * N_COUNT),     # the next opponent's side's meld slots
    ("melds_third", MMAX * N_COUNT),   # 3 players: the other opponent's, while a side of its own
    ("stock_size", 1),                 # cards / 108
    ("pozzetti_left", 1),              # / 3
    ("pozzetto_taken", 3),             # own, next opponent's side, third side
    ("turn", 1),                       # turns / 200 (capped at 1)
)
TENSOR_SIZE = sum(n for _, n in TENSOR_FIELDS)


def _offsets():
    at, k = {}, 0
    for name, size in TENSOR_FIELDS:
        at[name] = k
        k += size
    return at


_AT = _offsets()
T_PHASE = _AT["phase"]
T_SEAT = _AT["seat_to_move"]
T_HAND = _AT["hand"]
T_KNOWN = _AT["known"]
T_HAND_SIZES = _AT["hand_sizes"]
T_PILE = _AT["pile"]
T_PILE_TOP = _AT["pile_top"]
T_PILE_SIZE = _AT["pile_size"]
T_BARRED = _AT["barred"]
T_MELDS_OWN = _AT["melds_own"]
T_MELDS_OPP = _AT["melds_opp"]
T_MELDS_THIRD = _AT["melds_third"]
T_STOCK_SIZE = _AT["stock_size"]
T_POZ_LEFT = _AT["pozzetti_left"]
T_POZ_TAKEN = _AT["pozzetto_taken"]
T_TURN = _AT["turn"]


@njit(cache=True)
def _melds(out, at, mcnt, nm, t):
    """Side ``t``'s meld slots (``nm[t]`` of them) into ``out[at:]``, copies / 2."""
    k = at
    for mi in range(nm[t]):
        for f in range(N_COUNT):
            out[k + f] = mcnt[t, mi, f] * 0.5
        k += N_COUNT


@njit(cache=True)
def observation_tensor(work, seat, n, out):
    """Fill ``out`` (``float32[TENSOR_SIZE]``, overwritten) with ``seat``'s observation
    tensor in a hand of ``n`` players (2, 3 or 4), layout :data:`TENSOR_FIELDS`.

    Reads only what ``seat`` may know (R11): its hand, ``st.known`` of the other
    seats, hand sizes, the pile, the R36-barred card, the melds and the counters.
    """
    st = views(work)[0]
    g, hcnt, known, hn, pile, mcnt, nm = st.g, st.hcnt, st.known, st.hn, st.pile, st.mcnt, st.nm
    out[:] = 0.0
    out[T_PHASE + g[G_PHASE]] = 1.0
    out[T_SEAT + (g[G_SEAT] - seat) % n] = 1.0
    for f in range(N_COUNT):
        out[T_HAND + f] = hcnt[seat, f] * 0.5
    # the next seat, the partner (4 players) and the previous seat (3 or 4 players)
    for j in range(3):
        if j == 0 and n > 1:
            s = (seat + 1) % n
        elif j == 1 and n == 4:
            s = (seat + 2) % n
        elif j == 2 and n >= 3:
            s = (seat + n - 1) % n
        else:
            continue
        for f in range(N_COUNT):
            out[T_KNOWN + j * N_COUNT + f] = known[s, f] * 0.5
    for j in range(n):
        v = hn[(seat + j) % n] / 30.0
        out[T_HAND_SIZES + j] = v if v < 1.0 else 1.0
    pn = g[G_PN]
    for i in range(pn):
        out[T_PILE + CIDX[pile[i]]] += 0.5
    if pn > 0:
        out[T_PILE_TOP + CIDX[pile[pn - 1]]] = 1.0
    v = pn / 30.0
    out[T_PILE_SIZE] = v if v < 1.0 else 1.0
    if g[G_BARRED] >= 0:
        out[T_BARRED + CIDX[g[G_BARRED]]] = 1.0
    # the sides by play order: the first later seat not on the own side, then (3 players)
    # the other one's side when it is a third side (none once the other two are partners, R62)
    own = g[G_TEAM + seat]
    opp = -1
    third = -1
    for d in range(1, n):
        t = g[G_TEAM + (seat + d) % n]
        if t == own or t == opp:
            continue
        if opp < 0:
            opp = t
        else:
            third = t
    _melds(out, T_MELDS_OWN, mcnt, nm, own)
    if opp >= 0:
        _melds(out, T_MELDS_OPP, mcnt, nm, opp)
    if third >= 0:
        _melds(out, T_MELDS_THIRD, mcnt, nm, third)
    out[T_STOCK_SIZE] = (g[G_SLEN] - g[G_SP]) / 108.0
    out[T_POZ_LEFT] = (g[G_NPOZ] - g[G_POZ_NEXT]) / 3.0
    out[T_POZ_TAKEN] = g[G_TPOZ + own]
    if opp >= 0:
        out[T_POZ_TAKEN + 1] = g[G_TPOZ + opp]
    if third >= 0:
        out[T_POZ_TAKEN + 2] = g[G_TPOZ + third]
    v = g[G_TURN] / 200.0
    out[T_TURN] = v if v < 1.0 else 1.0
