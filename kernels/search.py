"""The ``rollout`` strategy: flat Monte Carlo search at a seat's decisions (issue 15).

At a searched decision (the pickup and the discard by default, the meld-phase
decisions on request) the seat to move lists its candidates (the legal actions,
:func:`kernels.actions.legal_actions`, at most ``max_candidates`` of them), deals
``worlds`` sampled worlds consistent with what it knows (R11,
:func:`kernels.worlds.resample_unseen`), applies each candidate on a copy of each
world and plays the hand out with the *base policy* on every seat (the heuristic
with the seat's own parameter slots 0..16, by default ``expert``'s values:
:func:`kernels.rollout_steps.roll_candidate`), and plays the candidate whose mean
own-side result (own side's hand score minus the opponents', points, R55-R59) is
the highest.  Common random numbers: every candidate of a world starts from the
same world, generator included.  Elsewhere, and at a decision with one candidate,
it plays as the base policy.

It reads no hidden card: before the worlds are dealt, the cards the seat cannot
see are laid out canonically (:func:`canonical_hidden`: each other seat's known
cards first, then the unseen card ids in increasing order over the unseen places),
so the worlds, and hence the choice, are a function of the seat's knowledge, the
seed and nothing else.  The worlds' seed is one draw of the hand's own generator
(advanced once per searched decision): a hand's play depends on the run seed and
the hand index alone, whatever the thread count.

Why a C callback: the search plays hands out (:func:`kernels.game.play_out` ->
``play_turn`` -> ``choose``) from inside ``choose``, a cycle Numba cannot compile
as direct calls.  :data:`rollout_callback` is compiled (and cached) as a C
function of the chooser interface (:mod:`kernels.api`), and ``choose`` reaches it
through its address like any registered chooser; inside the rollouts every seat
plays the base policy, so the search never nests.  The callback also runs with
Numba's runtime (``choose`` and ``play_turn`` are compiled without it), so it
allocates its buffers: three work buffers without event log (the canonical
source, the world, the rollout; ``3 * work_words(0, 0)`` words = 853 KB) and a few
candidate-sized arrays, per searched decision, freed when it returns.  Nothing is
added to the work buffer of the hand.

Parameter slots of a ``rollout`` seat's row (``float64[N_PARAMS]``): 0..16 the base
policy's heuristic parameters (``kernels.layout.HP_*``), then the ``RP_*`` slots
below (names, defaults and limits in :mod:`sim.strategies`).
"""
import numpy as np
from numba import carray, cfunc, njit

from . import layout as L
from .actions import A_CREATE_SEL, A_END_MELD, PH_DISCARD, PH_MELD, PH_PICKUP, create_action
from .api import CHOOSER_SIG, _as_i64_pointer, legal
from .cards import CIDX, N_CARDS, N_COUNT
from .legal import OK
from .policies import heuristic_chooser, open_lay_off_action
from .rng import next_u64
from .rollout_steps import load_world, roll_candidate
from .rollouts import ROLL_WORDS
from .state import (G_LEN, G_NPOZ, G_OPEN_LAYOFF, G_PHASE, G_POZ_NEXT, G_POZ_SIZE, G_SEAT,
                    G_SLEN, G_SP, view_f64, view_i64, view_u64)
from .work import (W_DEBUG, W_EV_CARDS, W_EV_ROWS, W_G, W_PARAMS, W_RNG, W_SEL,
                   W_VALS, views, work_words)

RP_WORLDS = 17          # sampled worlds per searched decision
RP_ROLLOUTS = 18        # rollout budget per decision: worlds = min(worlds, rollouts // candidates)
RP_PICKUP = 19          # 1: search the pickup (draw or take the pile)
RP_DISCARD = 20         # 1: search the discard
RP_MELD = 21            # 1: search every meld-phase decision (each meld, lay-off, or end)
RP_MAX_CANDIDATES = 22  # at most this many candidates (the base policy's choice first)
RP_MARGIN = 23          # leave the base policy's choice only when the best candidate beats it
                        # by more than this many standard errors of the paired difference

LOST = -(10 ** 9)       # the result of a candidate that is illegal in a world (never, by R11)


@njit(cache=True)
def canonical_hidden(work, seat):
    """Lay the cards ``seat`` cannot see in ``work`` out canonically (mutated).

    The unseen cards are the other seats' hands, the stock from its top and the
    untaken pozzetti (R11).  Afterwards each other seat holds first its known
    cards (``st.known``, the cards it took with the pile and still holds: face by
    face, the lowest unseen ids of that face), then unseen ids in increasing
    order; the stock and the pozzetti get the ids left, in increasing order.
    Every count (hand sizes, stock size, pozzetto sizes, known faces) is kept, so
    the result depends only on what ``seat`` knows: two games that differ only by
    where the unseen cards are give the same buffer.

    Parameters
    ----------
    work : numpy.ndarray
        int64 work buffer (:mod:`kernels.work`); its hands, ``hcnt``, stock and
        pozzetti are rewritten.
    seat : int
        The seat whose knowledge is kept.
    """
    st = views(work)[0]
    hand, hn, hcnt, stock, poz, known, g = st.hand, st.hn, st.hcnt, st.stock, st.poz, st.known, st.g
    pool = np.zeros(N_CARDS, np.int64)           # 1: unseen by seat and not yet placed
    for s in range(4):
        if s != seat:
            for i in range(hn[s]):
                pool[hand[s, i]] = 1
    for i in range(g[G_SP], g[G_SLEN]):
        pool[stock[i]] = 1
    for p in range(g[G_POZ_NEXT], g[G_NPOZ]):
        for i in range(g[G_POZ_SIZE + p]):
            pool[poz[p, i]] = 1
    first = np.zeros(4, np.int64)                # first hand position after the known cards
    for s in range(4):
        if s == seat:
            continue
        pos = 0
        for f in range(N_COUNT):
            for _k in range(known[s, f]):
                for cid in range(N_CARDS):
                    if pool[cid] == 1 and CIDX[cid] == f:
                        pool[cid] = 0
                        hand[s, pos] = cid
                        pos += 1
                        break
        first[s] = pos
    nxt = 0
    for s in range(4):
        if s == seat:
            continue
        for i in range(first[s], hn[s]):
            while pool[nxt] == 0:
                nxt += 1
            hand[s, i] = nxt
            pool[nxt] = 0
        for f in range(N_COUNT):
            hcnt[s, f] = 0
        for i in range(hn[s]):
            hcnt[s, CIDX[hand[s, i]]] += 1
    for i in range(g[G_SP], g[G_SLEN]):
        while pool[nxt] == 0:
            nxt += 1
        stock[i] = nxt
        pool[nxt] = 0
    for p in range(g[G_POZ_NEXT], g[G_NPOZ]):
        for i in range(g[G_POZ_SIZE + p]):
            while pool[nxt] == 0:
                nxt += 1
            poz[p, i] = nxt
            pool[nxt] = 0


@njit(cache=True)
def _candidates(work, ph, base_id, keep, cap):
    """The candidates of the decision, the base policy's choice ``base_id`` first:
    an int64 array of at most ``cap`` legal action ids.  The discards follow in
    increasing keep-value ``keep`` (float64[53], the heuristic's, per face: the
    likeliest discards first); in the meld phase "end the meld phase" comes
    second; the rest in increasing id order."""
    ids, n = legal(work)
    out = np.empty(max(n, 1), np.int64)
    out[0] = base_id
    m = 1
    found = False
    if ph == PH_MELD and base_id != A_END_MELD:
        for i in range(n):
            if ids[i] == A_END_MELD:
                out[m] = A_END_MELD
                m += 1
    for i in range(n):
        a = ids[i]
        if a == base_id:
            found = True
        elif not (ph == PH_MELD and a == A_END_MELD):
            out[m] = a
            m += 1
    if not found:
        return out[:0]                           # the base policy's choice is not listed
    if ph == PH_DISCARD and m > 2:
        key = np.empty(m - 1, np.float64)
        for i in range(1, m):
            key[i - 1] = keep[out[i] - 3]        # A_DISCARD + face
        order = np.argsort(key, kind="mergesort")
        rest = out[1:m].copy()
        for i in range(m - 1):
            out[1 + i] = rest[order[i]]
    return out[:min(m, cap)]


@njit(cache=True)
def rollout_choose(work):
    """The ``rollout`` strategy's action id for the seat to move in ``work``.

    Parameters
    ----------
    work : numpy.ndarray
        The hand's int64 work buffer (:mod:`kernels.work`) at a decision of a
        ``rollout`` seat; its state is not mutated, its work arrays are, and the
        hand's generator is advanced by one draw at a searched decision.

    Returns
    -------
    int
        An action id (:mod:`kernels.actions`): the base policy's (possibly
        ``A_CREATE_SEL``) where the decision is not searched or has one
        candidate, else the candidate with the highest mean result over the
        sampled worlds (ties and non-significant gains, see ``RP_MARGIN``: the
        base policy's).
    """
    g = view_i64(work, W_G, G_LEN)
    if g[G_OPEN_LAYOFF] != 0:
        return open_lay_off_action(work)
    seat = g[G_SEAT]
    ph = g[G_PHASE]
    params = view_f64(work, W_PARAMS, (4, L.N_PARAMS))
    p = params[seat]
    base = heuristic_chooser(work)
    if ph == PH_PICKUP:
        on = p[RP_PICKUP] != 0
    elif ph == PH_DISCARD:
        on = p[RP_DISCARD] != 0
    elif ph == PH_MELD:
        on = p[RP_MELD] != 0
    else:
        on = False
    if not on or base < 0:
        return base
    base_id = base
    if base == A_CREATE_SEL:
        base_id = create_action(view_i64(work, W_SEL, N_COUNT))
    keep = view_f64(work, W_VALS, N_COUNT).copy()
    cand = _candidates(work, ph, base_id, keep, max(np.int64(p[RP_MAX_CANDIDATES]), 2))
    m = cand.shape[0]
    if m <= 1:
        return base_id
    nw = np.int64(p[RP_WORLDS])
    budget = np.int64(p[RP_ROLLOUTS])
    if budget > 0:
        nw = min(nw, max(np.int64(1), budget // m))
    seed = next_u64(view_u64(work, W_RNG, 4))
    words = work_words(0, 0)
    buf = np.empty((3, words), np.int64)
    src = buf[0]
    world = buf[1]
    roll = buf[2]
    for j in range(ROLL_WORDS):
        src[j] = work[j]
    src[W_EV_ROWS] = 0
    src[W_EV_CARDS] = 0
    canonical_hidden(src, seat)
    kinds = np.full(4, L.POLICY_HEURISTIC, np.int64)
    rows = np.empty((4, L.N_PARAMS), np.float64)
    for s in range(4):
        for f in range(L.N_PARAMS):
            rows[s, f] = p[f]
    rec = np.zeros(L.N_REC, np.int32)
    total = np.zeros(m, np.float64)
    dsum = np.zeros(m, np.float64)
    dsq = np.zeros(m, np.float64)
    res = np.empty(m, np.float64)
    for w in range(nw):
        load_world(src, world, seat, seed, w, kinds, rows, work[W_DEBUG], ROLL_WORDS)
        for c in range(m):
            code, r, o, cl = roll_candidate(world, roll, cand[c], rec, seat, ROLL_WORDS)
            res[c] = r if code == OK else LOST
        for c in range(m):
            d = res[c] - res[0]
            total[c] += res[c]
            dsum[c] += d
            dsq[c] += d * d
    best = 0
    for c in range(1, m):
        if total[c] > total[best]:
            best = c
    if best != 0 and p[RP_MARGIN] > 0:
        if nw < 2:
            best = 0
        else:
            mean = dsum[best] / nw
            var = max((dsq[best] - nw * mean * mean) / (nw - 1), 0.0)
            if mean <= p[RP_MARGIN] * np.sqrt(var / nw):
                best = 0
    if best == 0:
        return base_id
    return cand[best]


@cfunc(CHOOSER_SIG, cache=True)
def rollout_callback(work_addr, words):
    """:func:`rollout_choose` as a C function of the chooser interface
    (:data:`kernels.api.CHOOSER_SIG`): its ``.address`` is the ``rollout``
    strategy's policy kind in this process."""
    return rollout_choose(carray(_as_i64_pointer(work_addr), words))
