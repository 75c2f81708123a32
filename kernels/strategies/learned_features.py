"""The ``learned`` player's features: what its network reads of a position.

:func:`features` turns a seat's observation tensor
(:func:`kernels.engine.observe.observation_tensor`, R11: what the seat may know) into
:data:`N_FEATURES` binary features (about 40-70 of them active, their indices written
in increasing order), the function the training applies to the labels' stored
observations (:func:`features_rows`, ``sim.strategies.train``).  When playing,
:func:`state_features` computes the same features from the state without building the
tensor (a fast twin, equal to it on every tested position; the lay-offs come from the
engine's test on the melds' stored readings, which the tensor's counts give back under
every rule set but ``lock_two_roles``).  :data:`FEATURE_FIELDS` names the blocks and
:data:`FEATURES_VERSION` numbers the layout: a weights file trained on another version
is refused.  :func:`candidate_features` gives the features of one candidate action
(a discard, taking the pile) from a position's features, in training and in play alike.
"""
import numpy as np
from numba import njit

from kernels.core.cards import CIDX, JOKER, N_COUNT
from kernels.core.melds import ANY_RANK, KIND_NONE, KIND_SET, WILD_FREE, analyze, layoff_step
from kernels.engine.actions import PH_DISCARD, PH_PICKUP
from kernels.engine.observe import (T_BARRED, T_HAND, T_HAND_SIZES, T_KNOWN, T_MELDS_OPP,
                                    T_MELDS_OWN, T_PHASE, T_PILE, T_PILE_SIZE, T_PILE_TOP,
                                    T_POZ_LEFT, T_POZ_TAKEN, T_STOCK_SIZE, T_TURN, TENSOR_SIZE)
from kernels.engine.legal import layoff_fits
from kernels.table.state import (G_BARRED, G_N_POZZETTI, G_NEXT_POZZETTO, G_PHASE, G_PILE_SIZE,
                                 G_POZZETTO_TAKEN, G_STOCK_END, G_STOCK_TOP, G_TEAM, G_TURN, MI_HI,
                                 MI_KEY, MI_KIND, MI_LEN, MI_LO, MI_NWILD, MI_WSLOT, MMAX)
from kernels.table.work import views

#: the features' version: a weights file records it, and a file of another version is refused.
#: Version 1: :data:`FEATURE_FIELDS`; version 2 adds each candidate's
#: :data:`CANDIDATE_FIELDS` (the network's candidate term)
FEATURES_VERSION = 2
#: the versions a weights file may have (version 1: no candidate term)
READS_FEATURES_VERSIONS = (1, 2)

# ---------------------------------------------------------------- the features' layout
#: (name, length) of each block of features, in order
FEATURE_FIELDS = (
    ("hand_1", N_COUNT),        # own hand holds at least 1 card of the face
    ("hand_2", N_COUNT),        # ... at least 2
    ("pile_1", N_COUNT),        # the discard pile holds at least 1 card of the face
    ("pile_2", N_COUNT),        # ... at least 2
    ("pile_top", N_COUNT),      # the face on top of the pile
    ("known_next", N_COUNT),    # known (taken with the pile, R11) in the next seat's hand
    ("known_partner", N_COUNT),  # ... the partner's (4 players)
    ("known_prev", N_COUNT),    # ... the previous seat's
    ("lays_own", N_COUNT),      # a card of the face lays off on one of the own side's melds
    ("lays_opp", N_COUNT),      # ... of the next opponent's side's melds
    ("barred", N_COUNT),        # the R36-barred face
    ("pile_size", 8),           # 0, 1, 2, 3, 4-5, 6-8, 9-12, 13+ cards
    ("stock_size", 7),          # 0-2, 3-5, 6-10, 11-15, 16-20, 21-30, 31+ cards
    ("hand_sizes", 4 * 6),      # per relative seat: 0-1, 2, 3-4, 5-7, 8-11, 12+ cards
    ("pozzetto_taken", 2),      # own side, next opponent's side
    ("pozzetti_left", 3),       # 0, 1, 2+
    ("burracos_own", 4),        # 0, 1, 2+ melds of 7+ cards; 1 if one of them is clean
    ("burracos_opp", 4),
    ("melds_own", 4),           # 0, 1-2, 3-4, 5+ melds
    ("melds_opp", 4),
    ("phase", 2),               # pickup, discard
    ("turn", 4),                # turns 0-8, 9-20, 21-40, 41+
)
N_FEATURES = sum(n for _, n in FEATURE_FIELDS)
MAX_ACTIVE = 256                # more than the active features of any observation


def _offsets(fields):
    """Each block's first index in a layout of ``(name, length)`` blocks."""
    at, k = {}, 0
    for name, size in fields:
        at[name] = k
        k += size
    return at


_F = _offsets(FEATURE_FIELDS)
F_HAND1, F_HAND2, F_PILE1, F_PILE2, F_TOP = (_F[k] for k in ("hand_1", "hand_2", "pile_1",
                                                              "pile_2", "pile_top"))
F_KNOWN, F_LAYS_OWN, F_LAYS_OPP, F_BARRED = (_F[k] for k in ("known_next", "lays_own",
                                                             "lays_opp", "barred"))
F_PILE_SIZE, F_STOCK_SIZE, F_HAND_SIZES = _F["pile_size"], _F["stock_size"], _F["hand_sizes"]
F_POZ_TAKEN, F_POZ_LEFT = _F["pozzetto_taken"], _F["pozzetti_left"]
F_BURRACOS_OWN, F_BURRACOS_OPP = _F["burracos_own"], _F["burracos_opp"]
F_MELDS_OWN, F_MELDS_OPP, F_PHASE, F_TURN = (_F[k] for k in ("melds_own", "melds_opp", "phase",
                                                             "turn"))

# ---------------------------------------------------------------- features
@njit(cache=True, inline="always")
def _count(v):
    """A tensor entry of copies / 2 as the number of copies."""
    return np.int64(v * 2.0 + 0.5)


@njit(cache=True, inline="always")
def _bucket(x, e0, e1, e2, e3, e4, e5, e6):
    """The index of the first upper edge ``e*`` that ``x`` does not pass (7 edges: 8
    buckets, the last one open)."""
    if x <= e0:
        return 0
    if x <= e1:
        return 1
    if x <= e2:
        return 2
    if x <= e3:
        return 3
    if x <= e4:
        return 4
    if x <= e5:
        return 5
    if x <= e6:
        return 6
    return 7


@njit(cache=True, inline="always")
def _push(out, n, f):
    out[n] = f
    return n + 1


@njit(cache=True)
def _slot_face(key, sl):
    """The face of slot ``sl`` (1..14, R4) in suit ``key``."""
    return 13 * key + (0 if sl == 14 else sl - 1)


@njit(cache=True)
def _seq_slot(d, lo, hi, wslot):
    """The ``d``-th slot (0..4) a natural card may lay off at on a sequence of naturals
    ``lo..hi`` with wild slot ``wslot`` (R4, R24): next to either end, one further when
    the wild is free (it takes the slot between, R19), and the fixed wild's slot; 0 for
    none.  (The natural 2's slot, R13, is one of these whenever a 2 can go there.)"""
    sl = 0
    if d == 0:
        sl = lo - 1
    elif d == 1 and wslot == WILD_FREE:
        sl = lo - 2
    elif d == 2:
        sl = hi + 1
    elif d == 3 and wslot == WILD_FREE:
        sl = hi + 2
    elif d == 4 and wslot >= 1:
        sl = wslot
    return sl if 1 <= sl <= 14 else 0


@njit(cache=True)
def _mark_set(lays, key, n, nwild):
    """A set of rank ``key`` (``n`` cards, ``nwild`` wilds) takes a natural of its rank
    below 9 cards (R16) and a wild while it has none (R14)."""
    if n < 9:
        for s in range(4):
            lays[13 * s + key] = 1
    if nwild == 0:
        for s in range(4):
            lays[13 * s + 1] = 1
        lays[JOKER] = 1


@njit(cache=True)
def _mark_wild(lays, key):
    """A wild fits a sequence of suit ``key`` without one (R14, R17: at most 13 naturals,
    so there is always a slot for it): every other suit's 2 and the joker."""
    for s in range(4):
        if s != key:
            lays[13 * s + 1] = 1
    lays[JOKER] = 1


@njit(cache=True)
def _side_melds(obs, at, lays, cnt, flags):
    """Read one side's meld slots at ``obs[at:]`` (copies / 2 per face): mark in
    ``lays`` (int64[53], set to 1) the faces a card of which lays off on one of them
    (R24, by :func:`kernels.core.melds.layoff_step` on the meld's counts and their
    canonical reading :func:`kernels.core.melds.analyze`: the 2s' locked roles of option
    ``lock_two_roles`` are not in the tensor, so such a meld is read as unlocked;
    :func:`_state_side_melds` is the twin on the state); ``cnt`` (int64[53]) is a work
    array.  Writes ``(melds, burracos, clean burracos)`` into ``flags``."""
    melds = 0
    burr = 0
    clean = 0
    for mi in range(MMAX):
        k = at + mi * N_COUNT
        n = 0
        for f in range(N_COUNT):
            c = _count(obs[k + f])
            cnt[f] = c
            n += c
        if n == 0:
            break
        melds += 1
        kind, nwild, nat2, key, lo, hi, wslot, why = analyze(cnt, ANY_RANK)
        if kind == KIND_NONE:
            continue
        if n >= 7:
            burr += 1
            if nwild == 0:
                clean += 1
        if kind == KIND_SET:
            _mark_set(lays, key, n, nwild)
            continue
        for d in range(5):
            sl = _seq_slot(d, lo, hi, wslot)
            if sl > 0:
                f = _slot_face(key, sl)
                if lays[f] == 0 and layoff_step(cnt, kind, nwild, nat2, key, f,
                                                 ANY_RANK)[0] == 1:
                    lays[f] = 1
        if nwild == 0:
            _mark_wild(lays, key)
    flags[0] = melds
    flags[1] = burr
    flags[2] = clean


@njit(cache=True)
def _state_side_melds(st, team, lays, flags):
    """:func:`_side_melds` of side ``team`` read from the state: the melds' stored
    readings (``minfo``) and the engine's lay-off test
    (:func:`kernels.engine.legal.layoff_fits`).  Equal to the tensor's under every rule
    set but ``lock_two_roles`` (tested on real positions)."""
    burr = 0
    clean = 0
    mcnt, minfo = st.mcnt, st.minfo
    for mi in range(st.nm[team]):
        n = minfo[team, mi, MI_LEN]
        kind = minfo[team, mi, MI_KIND]
        nwild = minfo[team, mi, MI_NWILD]
        key = minfo[team, mi, MI_KEY]
        if n >= 7:
            burr += 1
            if nwild == 0:
                clean += 1
        if kind == KIND_SET:
            _mark_set(lays, key, n, nwild)
            continue
        for d in range(5):
            sl = _seq_slot(d, minfo[team, mi, MI_LO], minfo[team, mi, MI_HI],
                           minfo[team, mi, MI_WSLOT])
            if sl > 0:
                f = _slot_face(key, sl)
                if lays[f] == 0 and layoff_fits(mcnt, minfo, team, mi, f) > 0:
                    lays[f] = 1
        if nwild == 0:
            _mark_wild(lays, key)
    flags[0] = st.nm[team]
    flags[1] = burr
    flags[2] = clean


@njit(cache=True)
def _tail(out, n, lays_own, lays_opp, barred, pn, sn, hns, poz_own, poz_opp, left, fo, fp, ph,
          tn):
    """The features after the known cards, shared by :func:`features` and
    :func:`state_features`: lay-offs, the barred face (-1: none), the counters' buckets
    (``hns``: int64[4], the relative seats' hand sizes), pozzetti, burracos and melds
    (``fo``, ``fp``: the sides' ``(melds, burracos, clean)``), the phase and the turn."""
    for f in range(N_COUNT):
        if lays_own[f] != 0:
            n = _push(out, n, F_LAYS_OWN + f)
    for f in range(N_COUNT):
        if lays_opp[f] != 0:
            n = _push(out, n, F_LAYS_OPP + f)
    if barred >= 0:
        n = _push(out, n, F_BARRED + barred)
    n = _push(out, n, F_PILE_SIZE + _bucket(pn, 0, 1, 2, 3, 5, 8, 12))
    n = _push(out, n, F_STOCK_SIZE + min(_bucket(sn, 2, 5, 10, 15, 20, 30, 10 ** 6), 6))
    for j in range(4):
        n = _push(out, n, F_HAND_SIZES + 6 * j + min(_bucket(hns[j], 1, 2, 4, 7, 11, 10 ** 6,
                                                               10 ** 6), 5))
    if poz_own:
        n = _push(out, n, F_POZ_TAKEN)
    if poz_opp:
        n = _push(out, n, F_POZ_TAKEN + 1)
    n = _push(out, n, F_POZ_LEFT + min(left, 2))
    n = _push(out, n, F_BURRACOS_OWN + min(fo[1], 2))
    if fo[2] > 0:
        n = _push(out, n, F_BURRACOS_OWN + 3)
    n = _push(out, n, F_BURRACOS_OPP + min(fp[1], 2))
    if fp[2] > 0:
        n = _push(out, n, F_BURRACOS_OPP + 3)
    n = _push(out, n, F_MELDS_OWN + min(_bucket(fo[0], 0, 2, 4, 10 ** 6, 10 ** 6, 10 ** 6,
                                                10 ** 6), 3))
    n = _push(out, n, F_MELDS_OPP + min(_bucket(fp[0], 0, 2, 4, 10 ** 6, 10 ** 6, 10 ** 6,
                                                10 ** 6), 3))
    if ph == PH_PICKUP:
        n = _push(out, n, F_PHASE)
    elif ph == PH_DISCARD:
        n = _push(out, n, F_PHASE + 1)
    n = _push(out, n, F_TURN + min(_bucket(tn, 8, 20, 40, 10 ** 6, 10 ** 6, 10 ** 6, 10 ** 6),
                                   3))
    return n


@njit(cache=True)
def features(obs, out):
    """The active features of an observation tensor, in increasing order.

    Parameters
    ----------
    obs : numpy.ndarray
        ``float32[TENSOR_SIZE]``, one seat's observation tensor
        (:func:`kernels.engine.observe.observation_tensor`; a label's stored
        observation rebuilt by a scatter is the same array).  Read only.
    out : numpy.ndarray
        ``int64[>= MAX_ACTIVE]``: the indices (``0 .. N_FEATURES - 1``) of the
        active features are written to its first entries.

    Returns
    -------
    int
        The number of active features.

    Notes
    -----
    jit-compiled by Numba; allocates small work arrays.  The layout is
    :data:`FEATURE_FIELDS`; :data:`FEATURES_VERSION` names it.  The player computes the
    same features from the state (:func:`state_features`, its fast twin).
    """
    cnt = np.empty(N_COUNT, np.int64)
    lays_own = np.zeros(N_COUNT, np.int64)
    lays_opp = np.zeros(N_COUNT, np.int64)
    fo = np.zeros(3, np.int64)
    fp = np.zeros(3, np.int64)
    hns = np.zeros(4, np.int64)
    n = 0
    for f in range(N_COUNT):
        if _count(obs[T_HAND + f]) >= 1:
            n = _push(out, n, F_HAND1 + f)
    for f in range(N_COUNT):
        if _count(obs[T_HAND + f]) >= 2:
            n = _push(out, n, F_HAND2 + f)
    for f in range(N_COUNT):
        if _count(obs[T_PILE + f]) >= 1:
            n = _push(out, n, F_PILE1 + f)
    for f in range(N_COUNT):
        if _count(obs[T_PILE + f]) >= 2:
            n = _push(out, n, F_PILE2 + f)
    for f in range(N_COUNT):
        if obs[T_PILE_TOP + f] > 0.5:
            n = _push(out, n, F_TOP + f)
    for j in range(3):
        for f in range(N_COUNT):
            if _count(obs[T_KNOWN + j * N_COUNT + f]) >= 1:
                n = _push(out, n, F_KNOWN + j * N_COUNT + f)
    _side_melds(obs, T_MELDS_OWN, lays_own, cnt, fo)
    _side_melds(obs, T_MELDS_OPP, lays_opp, cnt, fp)
    barred = -1
    for f in range(N_COUNT):
        if obs[T_BARRED + f] > 0.5:
            barred = f
    for j in range(4):
        hns[j] = np.int64(obs[T_HAND_SIZES + j] * 30.0 + 0.5)
    ph = -1
    if obs[T_PHASE + PH_PICKUP] > 0.5:
        ph = PH_PICKUP
    elif obs[T_PHASE + PH_DISCARD] > 0.5:
        ph = PH_DISCARD
    return _tail(out, n, lays_own, lays_opp, barred, np.int64(obs[T_PILE_SIZE] * 30.0 + 0.5),
                 np.int64(obs[T_STOCK_SIZE] * 108.0 + 0.5), hns, obs[T_POZ_TAKEN] > 0.5,
                 obs[T_POZ_TAKEN + 1] > 0.5, np.int64(obs[T_POZ_LEFT] * 3.0 + 0.5), fo, fp, ph,
                 np.int64(obs[T_TURN] * 200.0 + 0.5))


@njit(cache=True)
def state_features(work, seat, np_, out, scratch):
    """:func:`features` of ``seat``'s observation tensor in a hand of ``np_`` players,
    computed from the state in ``work`` without building the tensor (the player's fast
    twin; equal to ``features(observation_tensor(...))``, tested on real positions).
    Reads only what ``observation_tensor`` reads (R11).  ``scratch`` is an int64 work
    array of at least ``2 * N_COUNT + 10`` words (overwritten); returns the number of
    active features written to ``out``."""
    st = views(work).state
    g, hcnt, known, hn, pile = st.g, st.hcnt, st.known, st.hn, st.pile
    lays_own = scratch[0:N_COUNT]
    lays_opp = scratch[N_COUNT:2 * N_COUNT]
    fo = scratch[2 * N_COUNT:2 * N_COUNT + 3]
    fp = scratch[2 * N_COUNT + 3:2 * N_COUNT + 6]
    hns = scratch[2 * N_COUNT + 6:2 * N_COUNT + 10]
    for f in range(2 * N_COUNT + 6):
        scratch[f] = 0
    hc = hcnt[seat]
    n = 0
    for f in range(N_COUNT):
        if hc[f] >= 1:
            n = _push(out, n, F_HAND1 + f)
    for f in range(N_COUNT):
        if hc[f] >= 2:
            n = _push(out, n, F_HAND2 + f)
    pn = g[G_PILE_SIZE]
    pc = lays_opp                              # the pile's counts, before the lay-offs
    for i in range(pn):
        pc[CIDX[pile[i]]] += 1
    for f in range(N_COUNT):
        if pc[f] >= 1:
            n = _push(out, n, F_PILE1 + f)
    for f in range(N_COUNT):
        if pc[f] >= 2:
            n = _push(out, n, F_PILE2 + f)
    for f in range(N_COUNT):
        pc[f] = 0
    if pn > 0:
        n = _push(out, n, F_TOP + CIDX[pile[pn - 1]])
    for j in range(3):
        if j == 0 and np_ > 1:
            s = (seat + 1) % np_
        elif j == 1 and np_ == 4:
            s = (seat + 2) % np_
        elif j == 2 and np_ >= 3:
            s = (seat + np_ - 1) % np_
        else:
            continue
        for f in range(N_COUNT):
            if known[s, f] >= 1:
                n = _push(out, n, F_KNOWN + j * N_COUNT + f)
    own = g[G_TEAM + seat]
    opp = -1
    for d in range(1, np_):
        t = g[G_TEAM + (seat + d) % np_]
        if t != own and opp < 0:
            opp = t
    _state_side_melds(st, own, lays_own, fo)
    if opp >= 0:
        _state_side_melds(st, opp, lays_opp, fp)
    for j in range(4):
        hns[j] = min(hn[(seat + j) % np_], 30) if j < np_ else 0
    barred = CIDX[g[G_BARRED]] if g[G_BARRED] >= 0 else -1
    return _tail(out, n, lays_own, lays_opp, barred, min(pn, 30),
                 g[G_STOCK_END] - g[G_STOCK_TOP], hns, g[G_POZZETTO_TAKEN + own] > 0,
                 opp >= 0 and g[G_POZZETTO_TAKEN + opp] > 0, g[G_N_POZZETTI] - g[G_NEXT_POZZETTO],
                 fo, fp, g[G_PHASE], min(g[G_TURN], 200))


@njit(cache=True)
def features_rows(obs_index, obs_value, row_at, fidx, fat):
    """:func:`features` of many stored observations (the labels' ``obs_index`` and
    ``obs_value`` lists, concatenated: row ``r``'s entries are ``row_at[r] ..
    row_at[r + 1] - 1``), each rebuilt by a scatter into a zeroed tensor.

    ``fidx`` (int64[>= rows * MAX_ACTIVE]) receives the active features, row after
    row, and ``fat`` (int64[rows + 1]) where each row's begin; returns the total."""
    obs = np.zeros(TENSOR_SIZE, np.float32)
    buf = np.empty(MAX_ACTIVE, np.int64)
    rows = row_at.shape[0] - 1
    k = 0
    for r in range(rows):
        for i in range(row_at[r], row_at[r + 1]):
            obs[obs_index[i]] = obs_value[i]
        nf = features(obs, buf)
        fat[r] = k
        for i in range(nf):
            fidx[k + i] = buf[i]
        k += nf
        for i in range(row_at[r], row_at[r + 1]):
            obs[obs_index[i]] = 0.0
    fat[rows] = k
    return k


# ---------------------------------------------------------------- a candidate's features
#: (name, length) of each block of a candidate action's features, in order: what the
#: network's candidate term (:mod:`kernels.strategies.learned`) reads of the discard of a
#: face ``f``, of taking the pile, and of any candidate being the base policy's choice.
#: All are functions of the position's active features (:data:`FEATURE_FIELDS`), so
#: training and play compute them by the same function, :func:`candidate_features`.
#: Neighbours are faces of the same suit one (``±1``) or two (``±2``) ranks away, the ace
#: next to both the two and the king (R4).
CANDIDATE_FIELDS = (
    ("discard_rank", 5),           # f is a joker, a two, an ace, a 3-7, an 8-king
    ("discard_pair", 1),           # the hand holds f at least twice
    ("discard_same_rank", 4),      # the hand holds 0, 1, 2, 3 other suits of f's rank
    ("discard_adjacent", 3),       # the hand holds 0, 1, 2 of f's ±1 neighbours
    ("discard_gap", 1),            # the hand holds one of f's ±2 neighbours
    ("discard_lays_own", 1),       # f lays off on the own side's melds
    ("discard_lays_opp", 1),       # ... on the next opponent's side's melds
    ("discard_known_next", 3),     # the next seat is known to hold f, a neighbour, f's rank
    ("discard_known_partner", 1),  # the partner is known to hold f or a ±1 neighbour
    ("discard_known_prev", 1),     # the previous seat ...
    ("discard_pile", 4),           # the pile holds f, f twice, a ±1 neighbour, f's rank
    ("discard_top", 3),            # the pile's top is f, a neighbour, f's rank
    ("discard_barred", 1),         # f is the R36-barred face
    ("take_pairs", 4),             # 0, 1, 2, 3+ faces both in the pile and in the hand
    ("take_adjacent", 4),          # 0, 1, 2, 3+ pile faces with a ±1 neighbour in the hand
    ("take_lays_own", 3),          # 0, 1, 2+ pile faces that lay off on the own melds
    ("take_wilds", 3),             # 0, 1, 2+ wild faces (joker, twos) in the pile
    ("take_top", 4),               # the top is in the hand, has a ±1 neighbour in it,
                                   # has its rank in another suit in it, lays off own
    ("take_triples", 1),           # a pile face the hand holds twice
    ("take_pile_pairs", 3),        # 0, 1, 2+ faces the pile holds twice
    ("base_choice", 1),            # the candidate is the base policy's choice
)
N_CANDIDATE_FEATURES = sum(n for _, n in CANDIDATE_FIELDS)
MAX_CANDIDATE_ACTIVE = 32       # more than the active features of any candidate


_C = _offsets(CANDIDATE_FIELDS)
C_DISCARD, C_TAKE, C_BASE = _C["discard_rank"], _C["take_pairs"], _C["base_choice"]


def _neighbour_tables():
    nb = -np.ones((N_COUNT, 4), np.int64)           # -2, -1, +1, +2 in the same suit
    same = -np.ones((N_COUNT, 3), np.int64)         # the rank in the other three suits
    for f in range(52):
        s, r = divmod(f, 13)
        for k, d in enumerate((-2, -1, 1, 2)):
            q = r + d
            if r == 0 and q < 0:                    # the ace below the two, above the king
                q = 13 + d
            elif q == 13:                           # the king's +1 and the queen's +2: the ace
                q = 0
            if 0 <= q <= 12:
                nb[f, k] = 13 * s + q
        same[f] = [13 * t + r for t in range(4) if t != s]
    return nb, same


NEIGHBOURS, SAME_RANK = _neighbour_tables()
_TWOS = np.array([1, 14, 27, 40], np.int64)


@njit(cache=True)
def feature_bits(fidx, nf, bits):
    """Set ``bits`` (uint8[N_FEATURES], written whole) to 1 at the active features
    ``fidx[:nf]`` and 0 elsewhere."""
    bits[:] = 0
    for i in range(nf):
        bits[fidx[i]] = 1


@njit(cache=True, inline="always")
def _has(bits, at, f):
    return f >= 0 and bits[at + f] != 0


@njit(cache=True, inline="always")
def _flag(out, n, cond, f):
    """Push feature ``f`` when ``cond`` holds; the new count."""
    if cond:
        out[n] = f
        return n + 1
    return n


@njit(cache=True)
def _any_of(bits, at, faces, k0, k1):
    for k in range(k0, k1):
        if _has(bits, at, faces[k]):
            return True
    return False


@njit(cache=True)
def _count_of(bits, at, faces, k0, k1):
    c = 0
    for k in range(k0, k1):
        if _has(bits, at, faces[k]):
            c += 1
    return c


@njit(cache=True)
def candidate_features(bits, o, is_base, out):
    """The active features (:data:`CANDIDATE_FIELDS`) of the candidate whose network
    output is ``o`` (0 draw, 1 take the pile, ``2 + f`` the discard of face ``f``) in the
    position whose active features are set in ``bits`` (:func:`feature_bits`).

    Parameters
    ----------
    bits : numpy.ndarray
        ``uint8[N_FEATURES]``, read only.
    o : int
        The candidate's output index (:func:`kernels.strategies.learned.out_index`).
    is_base : bool
        The candidate is the base policy's choice.
    out : numpy.ndarray
        ``int64[>= MAX_CANDIDATE_ACTIVE]``: the active indices (``0 ..
        N_CANDIDATE_FEATURES - 1``) are written to its first entries.

    Returns
    -------
    int
        The number of active features written.
    """
    n = 0
    if o >= 2:
        f = o - 2
        r = f % 13
        if f == 52:
            n = _push(out, n, C_DISCARD + 0)
        elif r == 1:
            n = _push(out, n, C_DISCARD + 1)
        elif r == 0:
            n = _push(out, n, C_DISCARD + 2)
        elif r <= 6:
            n = _push(out, n, C_DISCARD + 3)
        else:
            n = _push(out, n, C_DISCARD + 4)
        n = _flag(out, n, bits[F_HAND2 + f], C_DISCARD + 5)
        nb = NEIGHBOURS[f]
        sr = SAME_RANK[f]
        n = _push(out, n, C_DISCARD + 6 + _count_of(bits, F_HAND1, sr, 0, 3))
        n = _push(out, n, C_DISCARD + 10 + _count_of(bits, F_HAND1, nb, 1, 3))
        n = _flag(out, n, _has(bits, F_HAND1, nb[0]) or _has(bits, F_HAND1, nb[3]),
                  C_DISCARD + 13)
        n = _flag(out, n, bits[F_LAYS_OWN + f], C_DISCARD + 14)
        n = _flag(out, n, bits[F_LAYS_OPP + f], C_DISCARD + 15)
        n = _flag(out, n, bits[F_KNOWN + f], C_DISCARD + 16)
        n = _flag(out, n, _any_of(bits, F_KNOWN, nb, 0, 4), C_DISCARD + 17)
        n = _flag(out, n, _any_of(bits, F_KNOWN, sr, 0, 3), C_DISCARD + 18)
        for j in (1, 2):                             # the partner, the previous seat
            at = F_KNOWN + j * N_COUNT
            n = _flag(out, n, bits[at + f] or _any_of(bits, at, nb, 1, 3), C_DISCARD + 18 + j)
        n = _flag(out, n, bits[F_PILE1 + f], C_DISCARD + 21)
        n = _flag(out, n, bits[F_PILE2 + f], C_DISCARD + 22)
        n = _flag(out, n, _any_of(bits, F_PILE1, nb, 1, 3), C_DISCARD + 23)
        n = _flag(out, n, _any_of(bits, F_PILE1, sr, 0, 3), C_DISCARD + 24)
        n = _flag(out, n, bits[F_TOP + f], C_DISCARD + 25)
        n = _flag(out, n, _any_of(bits, F_TOP, nb, 0, 4), C_DISCARD + 26)
        n = _flag(out, n, _any_of(bits, F_TOP, sr, 0, 3), C_DISCARD + 27)
        n = _flag(out, n, bits[F_BARRED + f], C_DISCARD + 28)
    elif o == 1:
        pairs = adjacent = lays = wilds = pile_pairs = 0
        triples = False
        top = -1
        for f in range(N_COUNT):
            if bits[F_TOP + f]:
                top = f
            if bits[F_PILE2 + f]:
                pile_pairs += 1
            if not bits[F_PILE1 + f]:
                continue
            if bits[F_HAND1 + f]:
                pairs += 1
            if bits[F_HAND2 + f]:
                triples = True
            if _any_of(bits, F_HAND1, NEIGHBOURS[f], 1, 3):
                adjacent += 1
            if bits[F_LAYS_OWN + f]:
                lays += 1
            if f == 52 or f % 13 == 1:
                wilds += 1
        n = _push(out, n, C_TAKE + min(pairs, 3))
        n = _push(out, n, C_TAKE + 4 + min(adjacent, 3))
        n = _push(out, n, C_TAKE + 8 + min(lays, 2))
        n = _push(out, n, C_TAKE + 11 + min(wilds, 2))
        if top >= 0:
            if bits[F_HAND1 + top]:
                n = _push(out, n, C_TAKE + 14)
            if _any_of(bits, F_HAND1, NEIGHBOURS[top], 1, 3):
                n = _push(out, n, C_TAKE + 15)
            if _any_of(bits, F_HAND1, SAME_RANK[top], 0, 3):
                n = _push(out, n, C_TAKE + 16)
            if bits[F_LAYS_OWN + top]:
                n = _push(out, n, C_TAKE + 17)
        if triples:
            n = _push(out, n, C_TAKE + 18)
        n = _push(out, n, C_TAKE + 19 + min(pile_pairs, 2))
    if is_base:
        n = _push(out, n, C_BASE)
    return n


@njit(cache=True)
def candidate_rows(fat, fidx, cat, outs, phi):
    """:func:`candidate_features` of every candidate of many decisions (the training's
    form: decision ``d``'s active features are ``fidx[fat[d]:fat[d + 1]]``, its candidates
    ``cat[d] .. cat[d + 1] - 1`` with output indices ``outs``, the first being the base
    policy's choice) into ``phi`` (uint8[C, N_CANDIDATE_FEATURES], written whole)."""
    bits = np.zeros(N_FEATURES, np.uint8)
    buf = np.empty(MAX_CANDIDATE_ACTIVE, np.int64)
    phi[:, :] = 0
    for d in range(fat.shape[0] - 1):
        feature_bits(fidx[fat[d]:fat[d + 1]], fat[d + 1] - fat[d], bits)
        for c in range(cat[d], cat[d + 1]):
            k = candidate_features(bits, outs[c], c == cat[d], buf)
            for i in range(k):
                phi[c, buf[i]] = 1
