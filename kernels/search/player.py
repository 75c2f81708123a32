"""The ``rollout`` strategy: Monte Carlo search at a seat's decisions.

At a searched decision (the pickup and the discard by default, the meld-phase
decisions on request) the seat to move lists its candidates (the legal actions,
:func:`kernels.engine.actions.legal_actions`, that keep the base policy's hard rules,
:func:`keeps_base_rules`: so ``rollout:pile_min_size=3`` never takes a pile of fewer
than 3 cards and ``rollout:close_min_burracos=2`` never goes down to its closing card
with fewer than 2 burracos; at most ``max_candidates`` of them), deals
``worlds`` sampled worlds consistent with what it knows (R11,
:func:`kernels.table.worlds.resample_unseen`; with ``card_model=1`` weighted by what the
other seats discarded, passed on and melded, :mod:`kernels.search.card_model`), applies
each candidate on a copy of each world and plays the hand out with the *base policy* on every seat (the heuristic
with the seat's own parameter slots 0..16, by default ``expert``'s values:
:func:`kernels.search.rollout_steps.roll_candidate`), and plays the candidate whose mean
own-side result (own side's hand score minus the opponents', points, R55-R59) is
the highest.  Common random numbers: every candidate of a world starts from the
same world, generator included.  Elsewhere, and at a decision with one candidate,
it plays as the base policy.  That is the flat allocation (``halving=0``: every
candidate on ``min(worlds, rollouts // candidates)`` worlds); with ``halving=1`` the
budget is spent by sequential halving (:func:`halving_search`: the better half of the
candidates goes on to twice the worlds, round after round, :func:`halving_schedule`).
The pickup's budget is ``rollouts * pickup_share``.  Each searched decision adds the
rollouts it played to the seat's ``RP_ROLLOUTS_PLAYED`` slot (an output, never read
by the play).  :func:`rollout_search` returns the decision with the values behind it
(per candidate the worlds, the sum of its results and of their squares), which
:mod:`kernels.search.label` keeps as labels; :func:`rollout_choose`, the strategy, drops
them.

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
from kernels.engine.actions import (A_CREATE_SEL, A_END_MELD, PH_DISCARD, PH_MELD, PH_PICKUP,
                                    create_action)
from kernels.strategies.api import CHOOSER_SIG, _as_i64_pointer, legal
from kernels.core.cards import CIDX, N_CARDS, N_COUNT
from kernels.engine.legal import OK
from kernels.strategies.hard_rules import keeps_base_rules, pile_barred  # noqa: F401 (users)
from kernels.strategies.choosers import (heuristic_chooser, open_lay_off_action)
from kernels.core.params import ROLLOUT_PARAMS, rp_name
from kernels.core.rng import next_u64
from kernels.search.card_model import card_odds
from kernels.search.rollout_steps import WORLDS_MODEL, WORLDS_SAMPLED, load_world, roll_candidate
from kernels.search.rollouts import ROLL_WORDS
from kernels.table.state import (G_LEN, G_N_POZZETTI, G_OPEN_LAYOFF, G_PHASE,
                                 G_NEXT_POZZETTO, G_POZZETTO_SIZE, G_SEAT, G_STOCK_END, G_STOCK_TOP,
                                 view_f64, view_i64, view_u64)
from kernels.table.work import (W_DEBUG, W_EV_CARDS, W_EV_ROWS, W_G, W_PARAMS, W_RNG, W_SEL,
                   W_VALS, views, work_words)

# the search parameters' slots, from their table (kernels.core.params.ROLLOUT_PARAMS): the
# sampled worlds per searched decision, the rollout budget per decision (worlds = min(worlds,
# rollouts // candidates)), 1 to search the pickup / the discard / every meld-phase decision,
# at most this many candidates (the base policy's choice first), and the margin: leave the base
# policy's choice only when the best candidate beats it by more than this many standard errors
ROLLOUT_SLOTS = {rp_name(p): p.slot for p in ROLLOUT_PARAMS}
# of the paired difference; the allocation (0 flat, 1 sequential halving), the pickup's budget
# relative to the other decisions', the counter of the rollouts played (an output), and 1 to
# deal the worlds by the card-location model (kernels.search.card_model) instead of uniformly
(RP_WORLDS, RP_ROLLOUTS, RP_PICKUP, RP_DISCARD, RP_MELD, RP_MAX_CANDIDATES, RP_MARGIN, RP_HALVING,
 RP_PICKUP_SHARE, RP_ROLLOUTS_PLAYED, RP_CARD_MODEL) = (
    ROLLOUT_SLOTS[n] for n in ("RP_WORLDS", "RP_ROLLOUTS", "RP_PICKUP", "RP_DISCARD", "RP_MELD",
                              "RP_MAX_CANDIDATES", "RP_MARGIN", "RP_HALVING", "RP_PICKUP_SHARE",
                              "RP_ROLLOUTS_PLAYED", "RP_CARD_MODEL"))
MAX_ROUNDS = 64         # more rounds of halving than any candidate list needs (2**64 candidates)

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
    st = views(work).state
    hand, hn, hcnt, stock, poz, known, g = st.hand, st.hn, st.hcnt, st.stock, st.poz, st.known, st.g
    pool = np.zeros(N_CARDS, np.int64)           # 1: unseen by seat and not yet placed
    for s in range(4):
        if s != seat:
            for i in range(hn[s]):
                pool[hand[s, i]] = 1
    for i in range(g[G_STOCK_TOP], g[G_STOCK_END]):
        pool[stock[i]] = 1
    for p in range(g[G_NEXT_POZZETTO], g[G_N_POZZETTI]):
        for i in range(g[G_POZZETTO_SIZE + p]):
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
    for i in range(g[G_STOCK_TOP], g[G_STOCK_END]):
        while pool[nxt] == 0:
            nxt += 1
        stock[i] = nxt
        pool[nxt] = 0
    for p in range(g[G_NEXT_POZZETTO], g[G_N_POZZETTI]):
        for i in range(g[G_POZZETTO_SIZE + p]):
            while pool[nxt] == 0:
                nxt += 1
            poz[p, i] = nxt
            pool[nxt] = 0


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
    st, rv = vw.state, vw.rules
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
def halving_schedule(m, budget, cap, ends):
    """The worlds of each round of sequential halving over ``m`` candidates.

    Round ``k`` rolls its survivors out on worlds ``ends[k - 1] .. ends[k] - 1``
    (``ends[-1]`` = 0): ``m`` survivors in round 0, then the better half, rounded up,
    of each round's (``m`` = 12: 12, 6, 3, 2), until two are left for the last round.
    The worlds double from round to round, ``ends[k] = min(w0 * 2**k, cap)``, from the
    largest ``w0 >= 1`` whose rollouts (each survivor of a round on the round's new
    worlds) fit ``budget``; what the budget has left goes to the last round, still at
    most ``cap`` worlds in all.  ``budget`` 0: no budget (``w0`` from ``cap`` alone).

    Parameters
    ----------
    m : int
        The number of candidates, at least 2.
    budget : int
        Rollouts allowed for the decision (0: no limit).
    cap : int
        At most this many worlds per candidate (the ``worlds`` parameter, at least 1).
    ends : numpy.ndarray
        int64[MAX_ROUNDS], the worlds after each round (written).

    Returns
    -------
    tuple of int
        ``(rounds, rollouts)``: the number of rounds and the rollouts the schedule plays.
    """
    rounds = 0
    s = m
    while s > 1:
        rounds += 1
        s = (s + 1) // 2
    w0 = cap
    if budget > 0:
        w0 = min(cap, max(np.int64(1), budget // m))
    cost = np.int64(0)
    while True:
        cost = 0
        prev = 0
        s = m
        for k in range(rounds):
            e = min(w0 << k, cap) if k < 62 else cap
            e = max(e, prev)
            ends[k] = e
            cost += s * (e - prev)
            prev = e
            s = (s + 1) // 2
        if budget <= 0 or cost <= budget or w0 == 1:
            break
        w0 -= 1
    if budget > cost:
        last = m
        for _k in range(rounds - 1):
            last = (last + 1) // 2
        grown = min(cap, ends[rounds - 1] + (budget - cost) // last)
        if grown > ends[rounds - 1]:
            cost += last * (grown - ends[rounds - 1])
            ends[rounds - 1] = grown
    return rounds, cost


@njit(cache=True)
def halving_search(src, world, roll, rec, seat, seed, kinds, rows, debug, cand, budget, cap,
                   margin, total, count, square, worlds_mode, odds):
    """Sequential halving over the candidates ``cand`` (int64[m], the base policy's
    choice first, then the prior's order) on the worlds of :func:`halving_schedule`,
    with common random numbers: every survivor of a round is rolled out on the same
    worlds (world ``w`` is the same world, generator included, for every candidate),
    so the survivors of a round are compared on the same worlds; the better half of a
    round, ranked by their total result (ties: the prior's order), go on to the next.

    The last round's best total wins (ties: the prior's order).  With ``margin`` > 0
    it leaves the base policy's choice (``cand[0]``) only when its mean gain over it,
    paired world by world over the worlds both were rolled out on (all of the base's,
    which may have been dropped in an earlier round), exceeds ``margin`` standard
    errors of the paired difference (fewer than 2 such worlds: the base's choice).

    ``src``, ``world``, ``roll``: work buffers of :func:`rollout_choose` (the canonical
    source, the world, the rollout); ``rec`` int32[N_REC]; ``kinds``, ``rows`` the
    rollout's seats (:func:`kernels.search.rollout_steps.load_world`).  ``total``,
    ``count``, ``square`` (float64[m], int64[m], float64[m], zeroed by the caller,
    mutated): per candidate the sum of its results, the worlds it was rolled out on
    (the end of the last round it was in) and the sum of its squared results.
    ``worlds_mode`` and ``odds`` (float64[4, 53]): how the worlds are dealt
    (:func:`kernels.search.rollout_steps.load_world`: uniformly, or by the
    card-location model's odds).

    Returns
    -------
    tuple of int
        ``(best, rollouts)``: the index of the chosen candidate in ``cand`` and the
        rollouts played.
    """
    m = cand.shape[0]
    ends = np.zeros(MAX_ROUNDS, np.int64)
    rounds, _cost = halving_schedule(m, budget, cap, ends)
    nw = ends[rounds - 1]
    alive = np.arange(m)
    na = m
    base_res = np.zeros(max(nw, 1), np.float64)
    base_until = 0
    dsum = np.zeros(m, np.float64)
    dsq = np.zeros(m, np.float64)
    dn = np.zeros(m, np.int64)
    played = 0
    start = 0
    for k in range(rounds):
        for w in range(start, ends[k]):
            load_world(src, world, seat, seed, w, kinds, rows, debug, ROLL_WORDS, worlds_mode,
                       odds)
            for i in range(na):                     # in the prior's order: the base first
                c = alive[i]
                code, r, o, cl = roll_candidate(world, roll, cand[c], rec, seat, ROLL_WORDS)
                x = r if code == OK else LOST
                played += 1
                total[c] += x
                square[c] += x * x
                count[c] = w + 1
                if c == 0:
                    base_res[w] = x
                    base_until = w + 1
                elif w < base_until:
                    d = x - base_res[w]
                    dsum[c] += d
                    dsq[c] += d * d
                    dn[c] += 1
        start = ends[k]
        if k < rounds - 1:
            key = np.empty(na, np.float64)
            for i in range(na):
                key[i] = -total[alive[i]]
            order = np.argsort(key, kind="mergesort")  # stable: ties keep the prior's order
            keep = (na + 1) // 2
            kept = np.sort(alive[:na][order[:keep]])
            for i in range(keep):
                alive[i] = kept[i]
            na = keep
    best = alive[0]
    for i in range(1, na):
        if total[alive[i]] > total[best]:
            best = alive[i]
    if best != 0 and margin > 0:
        n = dn[best]
        if n < 2:
            best = 0
        else:
            mean = dsum[best] / n
            var = max((dsq[best] - n * mean * mean) / (n - 1), 0.0)
            if mean <= margin * np.sqrt(var / n):
                best = 0
    return best, played


@njit(cache=True)
def rollout_search(work):
    """The ``rollout`` strategy's decision for the seat to move in ``work``, with the
    values the search found.

    Parameters
    ----------
    work : numpy.ndarray
        The hand's int64 work buffer (:mod:`kernels.table.work`) at a decision of a
        ``rollout`` seat; its state is not mutated, its work arrays are, and the
        hand's generator is advanced by one draw at a searched decision.

    Returns
    -------
    tuple
        ``(action, candidates, worlds, total, square)``.  ``action`` (int) is an
        action id (:mod:`kernels.engine.actions`): the base policy's (possibly
        ``A_CREATE_SEL``) where the decision is not searched or has one candidate,
        else the candidate with the highest mean result over the sampled worlds
        (ties and non-significant gains, see ``RP_MARGIN``: the base policy's); with
        ``RP_HALVING`` the last round's best of :func:`halving_search`.  At a searched
        decision (two candidates or more) ``candidates`` (int64[m], the base
        policy's choice first, :func:`_candidates`) holds the candidates, and per
        candidate ``worlds`` (int64[m]) the worlds it was rolled out on, ``total``
        and ``square`` (float64[m]) the sum of its results and of their squares
        (points: own side's hand score minus the opponents'); elsewhere the four
        arrays are empty.  ``action`` is then one of ``candidates``.  Adds the
        rollouts played to the seat's ``RP_ROLLOUTS_PLAYED`` slot.

    Notes
    -----
    jit-compiled by Numba (with its runtime: the buffers of the search are allocated
    per searched decision).
    """
    none = np.empty(0, np.int64)
    nonef = np.empty(0, np.float64)
    g = view_i64(work, W_G, G_LEN)
    if g[G_OPEN_LAYOFF] != 0:
        return open_lay_off_action(work), none, none, nonef, nonef
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
        return base, none, none, nonef, nonef
    base_id = base
    if base == A_CREATE_SEL:
        base_id = create_action(view_i64(work, W_SEL, N_COUNT))
    keep = view_f64(work, W_VALS, N_COUNT).copy()
    cand = _candidates(work, ph, base_id, keep, max(np.int64(p[RP_MAX_CANDIDATES]), 2),
                       seat, p)
    m = cand.shape[0]
    if m <= 1:
        return base_id, none, none, nonef, nonef
    nw = np.int64(p[RP_WORLDS])
    budget = np.int64(p[RP_ROLLOUTS])
    if ph == PH_PICKUP and p[RP_PICKUP_SHARE] != 1.0:
        budget = max(np.int64(1), np.int64(p[RP_ROLLOUTS] * p[RP_PICKUP_SHARE])) if budget > 0 \
            else budget
    halving = p[RP_HALVING] != 0
    if budget > 0 and not halving:
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
    odds = np.ones((4, N_COUNT), np.float64)
    worlds_mode = WORLDS_SAMPLED
    if p[RP_CARD_MODEL] != 0:                    # the worlds dealt as a player infers them
        worlds_mode = WORLDS_MODEL
        card_odds(src, seat, odds)
    kinds = np.full(4, L.POLICY_HEURISTIC, np.int64)
    rows = np.empty((4, L.N_PARAMS), np.float64)
    for s in range(4):
        for f in range(L.N_PARAMS):
            rows[s, f] = p[f]
    rec = np.zeros(L.N_REC, np.int32)
    total = np.zeros(m, np.float64)
    square = np.zeros(m, np.float64)
    count = np.zeros(m, np.int64)
    if halving:
        best, played = halving_search(src, world, roll, rec, seat, seed, kinds, rows,
                                      work[W_DEBUG], cand, budget, nw, p[RP_MARGIN], total,
                                      count, square, worlds_mode, odds)
        p[RP_ROLLOUTS_PLAYED] += played
        return cand[best], cand, count, total, square
    p[RP_ROLLOUTS_PLAYED] += nw * m
    dsum = np.zeros(m, np.float64)
    dsq = np.zeros(m, np.float64)
    res = np.empty(m, np.float64)
    for w in range(nw):
        load_world(src, world, seat, seed, w, kinds, rows, work[W_DEBUG], ROLL_WORDS,
                   worlds_mode, odds)
        for c in range(m):
            code, r, o, cl = roll_candidate(world, roll, cand[c], rec, seat, ROLL_WORDS)
            res[c] = r if code == OK else LOST
        for c in range(m):
            d = res[c] - res[0]
            total[c] += res[c]
            square[c] += res[c] * res[c]
            dsum[c] += d
            dsq[c] += d * d
    for c in range(m):
        count[c] = nw
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
    return cand[best], cand, count, total, square


@njit(cache=True)
def rollout_choose(work):
    """The ``rollout`` strategy's action id for the seat to move in ``work``: the action
    of :func:`rollout_search` (same argument; its values are dropped)."""
    return rollout_search(work)[0]


@cfunc(CHOOSER_SIG, cache=True)
def rollout_callback(work_addr, words):
    """:func:`rollout_choose` as a C function of the chooser interface
    (:data:`kernels.strategies.api.CHOOSER_SIG`): its ``.address`` is the ``rollout``
    strategy's policy kind in this process."""
    return rollout_choose(carray(_as_i64_pointer(work_addr), words))
