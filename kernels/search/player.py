"""The ``rollout`` strategy: flat Monte Carlo search at a seat's decisions.

At a searched decision (the pickup and the discard by default, the meld-phase
decisions on request) the seat to move lists its candidates (the legal actions,
:func:`kernels.engine.actions.legal_actions`, that keep the base policy's hard rules,
:func:`keeps_base_rules`: so ``rollout:pile_min_size=3`` never takes a pile of fewer
than 3 cards and ``rollout:close_min_burracos=2`` never goes down to its closing card
with fewer than 2 burracos; at most ``max_candidates`` of them), deals
``worlds`` sampled worlds consistent with what it knows (R11,
:func:`kernels.table.worlds.resample_unseen`), applies each candidate on a copy of each
world and plays the hand out with the *base policy* on every seat (the heuristic
with the seat's own parameter slots 0..16, by default ``expert``'s values:
:func:`kernels.search.rollout_steps.roll_candidate`), and plays the candidate whose mean
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

Why a C callback: the search plays hands out (:func:`kernels.play.game.play_out` ->
``play_turn`` -> ``choose``) from inside ``choose``, a cycle Numba cannot compile
as direct calls.  :data:`rollout_callback` is compiled (and cached) as a C
function of the chooser interface (:mod:`kernels.strategies.api`), and ``choose`` reaches it
through its address like any registered chooser; inside the rollouts every seat
plays the base policy, so the search never nests.  The callback also runs with
Numba's runtime (``choose`` and ``play_turn`` are compiled without it), so it
allocates its buffers: three work buffers without event log (the canonical
source, the world, the rollout; ``3 * work_words(0, 0)`` words = 853 KB) and a few
candidate-sized arrays, per searched decision, freed when it returns.  Nothing is
added to the work buffer of the hand.

Parameter slots of a ``rollout`` seat's row (``float64[N_PARAMS]``): 0..16 the base
policy's heuristic parameters (``kernels.core.layout.HP_*``), then the ``RP_*`` slots
below (names, defaults and limits in :mod:`sim.strategies`).
"""
import numpy as np
from numba import carray, cfunc, njit

from kernels.core import layout as L
from kernels.engine.actions import (A_CREATE, A_CREATE_SEL, A_END_MELD, A_LAYOFF, A_TAKE, N_ACTIONS,
                      PH_DISCARD, PH_MELD, PH_PICKUP, create_action, meld_sel)
from kernels.strategies.api import CHOOSER_SIG, _as_i64_pointer, legal
from kernels.core.cards import CIDX, N_CARDS, N_COUNT
from kernels.core.layout import (HP_MELD_DELAY_ROUNDS, HP_PILE_AVOID_OPP_2_OR_5, HP_PILE_MIN_SIZE,
                     HP_PILE_MIN_STOCK, HP_USE_WILD_TO_MELD, HP_WILD_LAYOFF_MIN_LEN)
from kernels.engine.legal import OK, can_create, layoff_fits
from kernels.strategies.policies import _hold_for_burracos, _is_wild_c, heuristic_chooser, open_lay_off_action
from kernels.core.rng import next_u64
from kernels.search.rollout_steps import load_world, roll_candidate
from kernels.search.rollouts import ROLL_WORDS
from kernels.table.state import (G_LEN, G_NPOZ, G_OPEN_LAYOFF, G_PHASE, G_PN, G_POZ_NEXT, G_POZ_SIZE,
                    G_SEAT, G_SLEN, G_SP, G_TEAM, G_TURN, MI_LEN, MI_NWILD, view_f64,
                    view_i64, view_u64)
from kernels.table.work import (W_DEBUG, W_EV_CARDS, W_EV_ROWS, W_G, W_PARAMS, W_RNG, W_SEL,
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
        int64 work buffer (:mod:`kernels.table.work`); its hands, ``hcnt``, stock and
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
def pile_barred(st, rv, seat, p):
    """The heuristic's hard gates on the discard pile (:func:`kernels.strategies.policies.heur_pickup`
    returns False whenever they hold): a pile of fewer than ``pile_min_size`` cards, a
    stock of fewer than ``pile_min_stock`` cards, or, with ``pile_avoid_opp_2_or_5``, an
    opponent holding 2 or 5 cards."""
    g = st.g
    if g[G_PN] < p[HP_PILE_MIN_SIZE] or g[G_SLEN] - g[G_SP] < p[HP_PILE_MIN_STOCK]:
        return True
    if p[HP_PILE_AVOID_OPP_2_OR_5] >= 0.5:
        team = g[G_TEAM + seat]
        for o in range(rv[L.RV_NUM_PLAYERS]):
            if g[G_TEAM + o] != team and (st.hn[o] == 2 or st.hn[o] == 5):
                return True
    return False


@njit(cache=True)
def keeps_base_rules(st, rv, seat, p, a, sel):
    """Does the legal action ``a`` of ``seat`` keep the base policy's hard rules, the
    heuristic's parameters that say "never" (the heuristic itself never breaks them)?

    * taking the pile: not barred by ``pile_min_size``, ``pile_min_stock`` or
      ``pile_avoid_opp_2_or_5`` (:func:`pile_barred`);
    * a new meld or a lay-off: it does not leave the closing card before the team
      has ``close_min_burracos`` burracos (the heuristic's ``_hold_for_burracos``);
      a new meld not in the first ``meld_delay_rounds`` rounds, and with a wild only
      if ``use_wild_to_meld`` or the hand is small (4 cards or fewer); a wild laid off
      as a wild only on a clean meld of at least ``wild_layoff_min_len`` cards, or
      from a small hand.

    Every other action (drawing, ending the meld phase, any discard: a discard that
    closes is the only one of its decision) keeps them.  ``sel`` (int64[53]) is a work
    array (overwritten).
    """
    g = st.g
    if a == A_TAKE:
        return not pile_barred(st, rv, seat, p)
    team = g[G_TEAM + seat]
    hn = st.hn[seat]
    small = hn <= 4
    if A_LAYOFF <= a < A_CREATE:
        mi = (a - A_LAYOFF) // N_COUNT
        c = (a - A_LAYOFF) % N_COUNT
        ln = st.minfo[team, mi, MI_LEN]
        nw = st.minfo[team, mi, MI_NWILD]
        v = layoff_fits(st.mcnt, st.minfo, team, mi, c)
        if v - 1 > nw and _is_wild_c(c):                 # the card goes on as a wild
            if nw > 0 or not (ln >= p[HP_WILD_LAYOFF_MIN_LEN] or small):
                return False
        return not _hold_for_burracos(st.minfo, st.nm, g, team, hn - 1, mi, ln + 1, p)
    if A_CREATE <= a < N_ACTIONS:
        delay = p[HP_MELD_DELAY_ROUNDS]
        if not (delay <= 0.0 or (g[G_TURN] - 1) // 4 + 1 > delay):
            return False
        meld_sel(a - A_CREATE, sel)
        nsel = 0
        for f in range(N_COUNT):
            nsel += sel[f]
        code, kind, nwild = can_create(st, rv, team, seat, sel)
        if nwild > 0 and p[HP_USE_WILD_TO_MELD] < 0.5 and not small:
            return False
        return not _hold_for_burracos(st.minfo, st.nm, g, team, hn - nsel, np.int64(-1),
                                      nsel, p)
    return True


@njit(cache=True)
def _candidates(work, ph, base_id, keep, cap, seat, p):
    """The candidates of the decision, the base policy's choice ``base_id`` first:
    an int64 array of at most ``cap`` legal action ids that keep the base policy's
    hard rules (:func:`keeps_base_rules`, with ``seat``'s parameter row ``p``).  The
    discards follow in increasing keep-value ``keep`` (float64[53], the heuristic's,
    per face: the likeliest discards first); in the meld phase "end the meld phase"
    comes second; the rest in increasing id order."""
    ids, n = legal(work)
    vw = views(work)
    st = vw[0]
    rv = vw[1]
    sel = np.empty(N_COUNT, np.int64)
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
        elif not (ph == PH_MELD and a == A_END_MELD) and keeps_base_rules(st, rv, seat, p, a,
                                                                           sel):
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
        The hand's int64 work buffer (:mod:`kernels.table.work`) at a decision of a
        ``rollout`` seat; its state is not mutated, its work arrays are, and the
        hand's generator is advanced by one draw at a searched decision.

    Returns
    -------
    int
        An action id (:mod:`kernels.engine.actions`): the base policy's (possibly
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
    cand = _candidates(work, ph, base_id, keep, max(np.int64(p[RP_MAX_CANDIDATES]), 2),
                       seat, p)
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
    (:data:`kernels.strategies.api.CHOOSER_SIG`): its ``.address`` is the ``rollout``
    strategy's policy kind in this process."""
    return rollout_choose(carray(_as_i64_pointer(work_addr), words))
