"""What the peer bots share: 3-card meld tables, readers of the state, turn memory.

Each engine's bots (:mod:`.goodwin`, :mod:`.babbo_coded`, :mod:`.blofroth`,
:mod:`.masu`, :mod:`.guglio`, :mod:`.legends_medium`, :mod:`.valmir`,
:mod:`.raphael_bot`, :mod:`.thilanguis_bot`) follow the behaviour of one bot of
a public Burraco engine, re-implemented under our rules (docs/peer_bots.md):
each ``*_chooser(work) -> int64`` lists the engine's legal actions
(:func:`kernels.strategies.api.legal`) and picks one of them by that bot's
preferences, so it never plays an illegal action; when the bot's first choice
is refused by our rules it takes the next one in the bot's own order.
Randomness comes only from the hand's generator
(:func:`kernels.core.rng.bounded`).  They read only what the seat may know
(R11): its hand, the melds, the discard pile, hand sizes, the stock size, the
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
  ``cand`` (free for choosers, :mod:`kernels.strategies.api`; :func:`mem`),
  stamped with the turn and reset at every pickup; a game started in the meld
  phase starts with an empty memory.
* Where a peer's description leaves the ace undetermined (legends, raphael,
  valmir), the ports count it high only (after the king; 2s are wilds for
  these peers, so A-2-3 is never one of their runs).

One variant function per peer (``guglio_chooser(work, level)``, ...) so that
the levels of a peer share one compilation.  Parameter rows: each chooser
reads its seat's ``params[seat]`` in the order listed by ``sim.peers``.
"""
import numpy as np
from numba import cfunc, njit

from kernels.core import layout as L
from kernels.core.cards import CIDX, CVALUE, JOKER, N_COUNT
from kernels.core.melds import ANY_RANK, KIND_SEQ, KIND_SET, analyze, burraco_class
from kernels.core.rng import bounded
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_DRAW, A_END_MELD, A_LAYOFF, A_TAKE,
                                    MELD_CNT, N_SET_MELDS, PH_PICKUP, meld_sel)
from kernels.engine.legal import OK, can_discard, can_layoff, layoff_fits
from kernels.strategies.api import CHOOSER_SIG
from kernels.table.scoring import burraco_bonus
from kernels.table.state import (G_PHASE, G_PILE_SIZE, G_SEAT, G_STOCK_END, G_STOCK_TOP, G_TEAM, G_TURN, MI_KIND,
                                 MI_LEN, MI_NWILD, MI_WSLOT)
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


def _trio_tables():
    """Per 3-card meld of :data:`TRIOS`: wilds of its canonical
    reading (0 clean, R20), whether it holds a 2 of another suit than the
    sequence's (an off-suit 2), whether it holds a joker, and its rank (sets)."""
    k = TRIOS.shape[0]
    nwild = np.zeros(k, np.int64)
    off2 = np.zeros(k, np.int64)
    joker = np.zeros(k, np.int64)
    rank = np.full(k, -1, np.int64)
    cnt = np.zeros(N_COUNT, np.int64)
    for i in range(k):
        cnt[:] = 0
        for f in TRIOS[i]:
            cnt[f] += 1
        kind, nw, nat2, key, lo, hi, wslot, why = analyze(cnt, ANY_RANK)
        nwild[i] = nw
        joker[i] = 1 if cnt[JOKER] > 0 else 0
        if kind == KIND_SET:
            rank[i] = key
        else:
            for s in range(4):
                if s != key and cnt[13 * s + 1] > 0:
                    off2[i] = 1
    return nwild, off2, joker, rank


TRIO_NWILD, TRIO_OFF2, TRIO_JOKER, TRIO_RANK = _trio_tables()


# ---------------------------------------------------------------- more readers
@njit(cache=True, _nrt=False)
def stock_left(st):
    """Cards in the stock."""
    return st.g[G_STOCK_END] - st.g[G_STOCK_TOP]


@njit(cache=True, _nrt=False)
def pile_top(st):
    """Count face of the discard pile's top card, -1 for an empty pile."""
    if st.g[G_PILE_SIZE] == 0:
        return -1
    return CIDX[st.pile[st.g[G_PILE_SIZE] - 1]]


@njit(cache=True, _nrt=False)
def team_points(st, rv, team):
    """Points of ``team``'s melds: cards (R2) and burraco bonuses (R56)."""
    v = 0
    for mi in range(st.nm[team]):
        v += meld_value(st.mcnt[team, mi], rv)
    return v


@njit(cache=True, _nrt=False)
def has_clean_burraco(st, team):
    """Does ``team`` hold a clean meld of 7 or more cards (R27, R28)?"""
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_LEN] >= 7 and st.minfo[team, mi, MI_NWILD] == 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def has_seq_of_suit(st, team, s):
    """Does ``team`` hold a sequence of suit ``s``?"""
    for mi in range(st.nm[team]):
        if st.minfo[team, mi, MI_KIND] == KIND_SEQ:
            # the meld's suit: its naturals other than 2s are of suit s
            for r in range(13):
                if r != 1 and st.mcnt[team, mi, 13 * s + r] > 0:
                    return True
    return False


@njit(cache=True, _nrt=False)
def dirties(st, team, a, sel):
    """Does create or lay-off ``a`` leave a dirty meld (canonical reading, R20)
    where there was a clean one or none?  ``sel`` is overwritten."""
    if a >= A_CREATE:
        meld_sel(a - A_CREATE, sel)
        return analyze(sel, ANY_RANK)[1] > 0
    mi = (a - A_LAYOFF) // N_COUNT
    c = (a - A_LAYOFF) % N_COUNT
    if st.minfo[team, mi, MI_NWILD] > 0:
        return False
    return layoff_fits(st.mcnt, st.minfo, team, mi, c) > 1


@njit(cache=True, _nrt=False)
def on_clean_burraco(st, team, a):
    """Is ``a`` a lay-off on a clean meld of 7 or more cards?"""
    if a >= A_CREATE:
        return False
    mi = (a - A_LAYOFF) // N_COUNT
    return st.minfo[team, mi, MI_LEN] >= 7 and st.minfo[team, mi, MI_NWILD] == 0


@njit(cache=True, _nrt=False)
def uniform(rng):
    """A uniform draw in [0, 1) at a resolution of 1e-6 from the hand's generator."""
    return bounded(rng, 1000000) * 1e-6


@njit(cache=True, _nrt=False)
def random_discard_of(st, rv, team, seat, rng, nonwild):
    """A uniformly drawn face among the hand's faces that may be discarded, with
    ``nonwild`` only among the naturals when one may be discarded (a face once
    however many copies); its discard id, -1 when none."""
    for pass_ in range(2):
        k = 0
        for c in range(N_COUNT):
            if st.hcnt[seat, c] > 0 and not (nonwild and pass_ == 0 and is_wild(c)) \
                    and discard_ok(st, rv, team, seat, c):
                k += 1
        if k == 0:
            continue
        j = bounded(rng, k)
        for c in range(N_COUNT):
            if st.hcnt[seat, c] > 0 and not (nonwild and pass_ == 0 and is_wild(c)) \
                    and discard_ok(st, rv, team, seat, c):
                if j == 0:
                    return A_DISCARD + c
                j -= 1
    return -1


@njit(cache=True, _nrt=False)
def first_legal_discard(st, rv, team, seat):
    """The first face in hand order (the canonical face order) that may be discarded."""
    for c in range(N_COUNT):
        if st.hcnt[seat, c] > 0 and discard_ok(st, rv, team, seat, c):
            return A_DISCARD + c
    return -1


@njit(cache=True, _nrt=False)
def trio_uses(hc, top, rv, kinds, clean_only):
    """Does the card ``top`` (not counted in ``hc``) make a valid 3-card meld with
    two cards of ``hc``?  ``kinds``: 0 sequences only, 1 sequences and sets of
    aces, 2 any kind the rules allow; ``clean_only``: a clean meld (R27, a
    same-suit 2 only as natural) without a joker."""
    for i in range(TRIOS.shape[0]):
        if TRIO_IS_SET[i] == 1 and (kinds == 0 or (kinds == 1 and TRIO_RANK[i] != 0)):
            continue
        if not trio_allowed(i, rv) or (clean_only and (TRIO_NWILD[i] > 0 or TRIO_JOKER[i] > 0)):
            continue
        inside = False
        for j in range(3):
            if TRIOS[i, j] == top:
                inside = True
        if not inside:
            continue
        ok = True
        for j in range(3):
            f = TRIOS[i, j]
            need = 0
            for k in range(3):
                if TRIOS[i, k] == f:
                    need += 1
            if f == top:
                need -= 1
            if need > hc[f]:
                ok = False
        if ok:
            return True
    return False


# ---------------------------------------------------------------- low ranks and wilds
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


# ---------------------------------------------------------------- suit keys
@njit(cache=True, _nrt=False)
def _suit_keys(hc, s, held):
    """``held[k]`` = 1 when the hand holds a natural of suit ``s`` at rank key
    ``k`` (3..K as 2..12, the ace as 13; 2s left out), 0 else (int64[15])."""
    for k in range(15):
        held[k] = 0
    for r in range(13):
        if r != 1 and hc[13 * s + r] > 0:
            held[_low_rank_key(r)] = 1


@njit(cache=True, _nrt=False)
def _key_face(s, k):
    return 13 * s + (0 if k == 13 else k)


# ---------------------------------------------------------------- C callbacks
def callback(body):
    """A peer bot's C callback, compiled or loaded from Numba's on-disk cache.

    ``body`` is the ``<name>_callback(work_addr, words)`` of the bot's module, which
    calls its chooser; it is compiled as a C function of
    :data:`kernels.strategies.api.CHOOSER_SIG` with ``cache=True`` (``sim.strategies.peers``
    registers its ``.address`` as the bot's policy kind in this process), so a process
    loads what another compiled instead of compiling the callback again.  Its cache lies
    in the directory of this layer, refreshed with it (:mod:`kernels.build.cachestamp`).
    """
    return cfunc(CHOOSER_SIG, cache=True)(body)
