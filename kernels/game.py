"""The turn loop: one hand, and a parallel batch of hands (RULES.md R32-R52).

:func:`simulate_range` is the entry point of the batch runner: it plays hands
``start .. start+count-1`` of the run seeded ``run_seed`` in parallel and
writes one record row per hand (columns in :mod:`kernels.layout`).
"""
import numpy as np
from numba import njit, prange

from . import layout as L
from .deal import deal_offsets, pozzetto_sizes, shuffle_deal
from .legal import OK, can_discard, can_take_pile, find_placement, trio_sel
from .melds import ANY_RANK, KIND_NONE, analyze
from .policies import (heur_discard, heur_meld_step, heur_pickup, rand_discard,
                       rand_meld_step, rand_pickup)
from .rng import seed_hand
from .scoring import POZ_TAKEN, POZ_UNPLAYED, POZ_UNTAKEN, score_team
from .state import (G_ACTIONS, G_BARRED, G_CLOSER, G_ERR, G_HIDDEN, G_PC,
                    G_PMODE, G_PN, G_POZ_SIZE, G_PP, G_PTURN, G_SLEN, G_SP,
                    G_NPOZ, G_SOLO, G_SOLO18, G_STALL, G_TEAM, G_TOOK_PILE, G_TPOZ, G_TURN, MI_KIND, MI_LEN, NTEAMS,
                    EV_END, G_NEV, G_NEVC, I0, log_event,
                    conservation_check, discard_card, draw_stock, give_pozzetto,
                    hand_add, meld_add, meld_create, pozzetto_to_stock, take_pile, STATE_WORDS, EV_COLS, state_views, view_f64,
                    view_i64, view_u64, set_lock_two_roles)

CAND_ROWS = 2048
# a hand's work buffer (int64 words): the state, then the per-hand arrays
# below, then the event log (EV_AT on)
W_RNG = STATE_WORDS
W_DECK = W_RNG + 4
W_SEL = W_DECK + 108
W_SCRATCH = W_SEL + 53
W_VALS = W_SCRATCH + 53
W_HC2 = W_VALS + 53
W_RV = W_HC2 + 2 * 53
W_PARAMS = W_RV + L.N_RULES
W_CAND = W_PARAMS + 4 * L.N_PARAMS
W_DBG = W_CAND + CAND_ROWS * 4
W_NEED = W_DBG + 108 + 53
EV_AT = W_NEED + 53
# simulate_range splits its hands into this many chunks (one work buffer each);
# a constant, because numba.get_num_threads() would make the function uncacheable
N_CHUNKS = 256


@njit(cache=True, _nrt=False)
def work_words(ev_rows, ev_cards):
    """Length (int64 words) of the work buffer :func:`play_hand` needs."""
    return EV_AT + ev_rows * EV_COLS + ev_cards


@njit(cache=True, _nrt=False)
def _debug_check(st, dbg):
    """Debug-mode invariants after an action; sets ``G_ERR`` bits.

    ``dbg`` is an int64[108 + 53] work array (overwritten).
    """
    g = st[10]
    if not conservation_check(st, dbg[:108], dbg[108:]):
        g[G_ERR] |= L.ERR_CONSERVATION
    mcnt, minfo, nm = st[6], st[8], st[9]
    for t in range(NTEAMS):
        for mi in range(nm[t]):
            kind, nw, n2, key, lo, hi, ws, why = analyze(mcnt[t, mi], ANY_RANK)
            if kind == KIND_NONE or kind != minfo[t, mi, MI_KIND]:
                g[G_ERR] |= L.ERR_INVALID_MELD


@njit(cache=True, _nrt=False)
def setup_hand(st, deck, rv):
    """Lay the shuffled ``deck`` out as the deal of R8/R61-R63 (see kernels.deal).

    Also sets who plays for which team: ``s % 2`` with 2 or 4 players, each
    player alone with 3 (R62, R63).
    """
    stock, pile, poz, g = st[3], st[4], st[5], st[10]
    n = rv[L.RV_NUM_PLAYERS]
    h = rv[L.RV_HAND_SIZE]
    for s in range(n):
        g[G_TEAM + s] = s if n == 3 else s % 2
        for i in range(h):
            hand_add(st, s, deck[h * s + i])
    count, s0, s1, s2 = pozzetto_sizes(rv)
    g[G_NPOZ] = count
    g[G_SOLO18] = 1 if n == 3 and rv[L.RV_THREE_PLAYER_MODE] == 0 else 0
    g[G_POZ_SIZE] = s0
    g[G_POZ_SIZE + 1] = s1
    g[G_POZ_SIZE + 2] = s2
    at, up, stock_at, stock_size = deal_offsets(rv)
    for k in range(count):
        for i in range(g[G_POZ_SIZE + k]):
            poz[k, i] = deck[at + i]
        at += g[G_POZ_SIZE + k]
    pile[0] = deck[up]
    g[G_PN] = 1
    for i in range(stock_size):
        stock[i] = deck[stock_at + i]
    g[G_SP] = 0
    g[G_SLEN] = stock_size
    set_lock_two_roles(st, rv[L.RV_LOCK_TWO_ROLES])     # R25: 2s keep their roles


@njit(cache=True, _nrt=False)
def _half_round_up(points):
    """Half of a pair's side score, rounded up to a multiple of 5 (R62 ``half_round_up``)."""
    h = points / 2.0
    q = np.int64(h // 5)
    if q * 5 < h:
        q += 1
    return q * 5


@njit(cache=True, _nrt=False)
def _place_any(st, rv, team, seat, need, sel, scratch):
    """Make the first placement :func:`find_placement` finds (any card); False if none."""
    for f in range(53):
        need[f] = 1
    what, a, b, c = find_placement(st, rv, team, seat, need, sel, scratch)
    if what == 1:
        meld_add(st, team, seat, a, b)
    elif what == 2:
        trio_sel(st[2][seat], a, b, c, sel)
        meld_create(st, team, seat, sel)
    return what != 0


@njit(cache=True, _nrt=False)
def play_turn(st, rv, seat, kind, p, rng, sel, scratch, vals, cand, dbg, need, debug):
    """Play one turn of ``seat`` (R32-R52); returns an end reason or -1.

    Mutates ``st`` and the generator ``rng`` (uint64[4]).
    """
    hn, g = st[1], st[10]
    team = g[G_TEAM + seat]
    g[G_TURN] += 1
    g[G_HIDDEN + seat] = 0            # an assigned pozzetto is usable from now (R41)
    g[G_BARRED] = -1
    g[G_TOOK_PILE] = 0
    g[G_ACTIONS] = 0
    # ---- PICKUP (R33, R34)
    if kind == L.POLICY_RANDOM:
        take = rand_pickup(st, rng)
    else:
        take = heur_pickup(st, rv, seat, p)
    if take and not can_take_pile(st, rv, team, seat, need, sel, scratch):
        take = False                     # R34, take_pile_requires_meld: draw instead
    must_place = take and rv[L.RV_TAKE_PILE_REQUIRES_MELD] != 0
    last_turn = False
    single = False
    if take:
        pn = g[G_PN]
        if pn == 1 and rv[L.RV_FORBID_REDISCARD_SINGLE_PILE] != 0:
            g[G_BARRED] = st[4][0]       # R36
        single = pn == 1
        take_pile(st, seat)
        g[G_TOOK_PILE] = 1
        g[G_PP + team] += 1
        g[G_PC + team] += pn
    else:
        draw_stock(st, seat)
        if g[G_SLEN] - g[G_SP] <= rv[L.RV_STOCK_RESERVE] and not (
                rv[L.RV_UNTAKEN_POZZETTO_AS_STOCK] != 0 and pozzetto_to_stock(st, seat)):
            last_turn = True              # R50, finish_turn
            if rv[L.RV_STOCK_END_MODE] == 1:
                if debug:
                    _debug_check(st, dbg)
                return L.END_STOCK_EXHAUSTED     # R50, immediate: no meld, no discard
    if debug:
        _debug_check(st, dbg)
    # ---- MELD (R35)
    while True:
        if kind == L.POLICY_RANDOM:
            acted = rand_meld_step(st, rv, seat, rng, sel, scratch, cand)
        else:
            acted = heur_meld_step(st, rv, seat, p, sel, scratch)
        if not acted and must_place and g[G_ACTIONS] == 0:
            acted = _place_any(st, rv, team, seat, need, sel, scratch)   # R34 obligation
        if not acted:
            break
        g[G_ACTIONS] += 1
        if hn[seat] == 0:
            give_pozzetto(st, seat, np.int64(L.POZ_DIRECT))   # al volo (R41)
        if debug:
            _debug_check(st, dbg)
    # ---- DISCARD (R37-R39, R45)
    if kind == L.POLICY_RANDOM:
        cid = rand_discard(st, rv, seat, rng)
    else:
        cid = heur_discard(st, rv, seat, p, vals, scratch)
    if cid < 0:
        g[G_ERR] |= L.ERR_NO_DISCARD
        return L.END_TURN_CAP
    code, closes = can_discard(st, rv, team, seat, cid)
    if code != OK:
        g[G_ERR] |= L.ERR_NO_DISCARD
    discard_card(st, seat, cid, closes)
    if closes == 1:
        g[G_CLOSER] = seat
        if debug:
            _debug_check(st, dbg)
        return L.END_CLOSED               # R47
    if hn[seat] == 0:
        give_pozzetto(st, seat, np.int64(L.POZ_DISCARD))     # con lo scarto (R41)
        g[G_HIDDEN + seat] = 1
    if debug:
        _debug_check(st, dbg)
    if last_turn:
        return L.END_STOCK_EXHAUSTED
    # ---- stall counter (R51)
    if single and g[G_ACTIONS] == 0:
        g[G_STALL] += 1
    else:
        g[G_STALL] = 0
    if g[G_STALL] >= rv[L.RV_STALL_TURN_LIMIT]:
        return L.END_STALL
    if g[G_TURN] >= rv[L.RV_MAX_TURNS_PER_HAND]:
        return L.END_TURN_CAP
    return -1


@njit(cache=True)
def play_hand(run_seed, hand_index, dealer_in, rv_in, kinds, params_in, debug, rec, ev_rows,
              ev_cards, work):
    """Play hand ``hand_index`` of the run and fill ``rec`` (int32[N_REC], mutated).

    ``dealer_in`` (int64) is the dealer seat, or -1 for the dealer drawn from
    the hand's generator (R6).  The generator draws the dealer either way, so
    the cards dealt do not depend on ``dealer_in``; matches pass the rotating
    dealer (R6: the deal passes to the next seat after each hand).

    ``work`` (int64[>= work_words(ev_rows, ev_cards)], overwritten) holds the
    whole hand: the state, scratch arrays and, with ``ev_rows`` > 0, the
    event log (``ev_rows`` rows of ``EV_COLS`` words from ``work[EV_AT]``,
    then ``ev_cards`` card slots), which the caller reads after the call.

    Returns
    -------
    tuple of int
        ``(n_ev, n_evc)``: event rows and card slots used.

    Raises
    ------
    ValueError
        ``work`` is shorter than ``work_words(ev_rows, ev_cards)``.
    """
    if work.shape[0] < work_words(ev_rows, ev_cards):
        raise ValueError("play_hand: work buffer shorter than work_words(ev_rows, ev_cards)")
    st = state_views(work, EV_AT, ev_rows, ev_cards)
    hand, hn, hcnt, stock, pile, poz, mcnt, mids, minfo, nm, g, ev, evc = st
    rng = view_u64(work, W_RNG, 4)
    deck = view_i64(work, W_DECK, 108)
    sel = view_i64(work, W_SEL, 53)
    scratch = view_i64(work, W_SCRATCH, 53)
    vals = view_f64(work, W_VALS, 53)
    hc2 = view_i64(work, W_HC2, (2, 53))
    rv = view_i64(work, W_RV, L.N_RULES)
    params = view_f64(work, W_PARAMS, (4, L.N_PARAMS))
    cand = view_i64(work, W_CAND, (CAND_ROWS, 4))
    dbg = view_i64(work, W_DBG, 108 + 53)
    need = view_i64(work, W_NEED, 53)
    for f in range(L.N_RULES):
        rv[f] = rv_in[f]
    for s in range(4):
        for f in range(L.N_PARAMS):
            params[s, f] = params_in[s, f]
    seed_hand(run_seed, hand_index, rng)
    n_seats = rv[L.RV_NUM_PLAYERS]
    dealer = shuffle_deal(rng, deck, n_seats)
    if dealer_in >= 0:
        dealer = dealer_in
    setup_hand(st, deck, rv)
    if debug:
        _debug_check(st, dbg)
    first = (dealer + 1) % n_seats
    seat = first
    end = -1
    while end < 0:
        end = play_turn(st, rv, seat, kinds[seat], params[seat], rng, sel, scratch, vals,
                        cand, dbg, need, debug)
        if end < 0:
            seat = (seat + 1) % n_seats
    log_event(st, seat, EV_END, end, I0, I0)
    # ---- scoring (R55-R59)
    for f in range(L.N_REC):
        rec[f] = 0
    rec[L.REC_DEALER] = dealer
    rec[L.REC_FIRST_PLAYER] = first
    rec[L.REC_END_REASON] = end
    rec[L.REC_TURNS] = g[G_TURN]
    rec[L.REC_CLOSING_SEAT] = g[G_CLOSER]
    rec[L.REC_STOCK_LEFT] = g[G_SLEN] - g[G_SP]
    rec[L.REC_PILE_LEFT] = g[G_PN]
    # a record group per team, or per player with 3 players (its side, credited score)
    groups = 3 if n_seats == 3 else 2
    for t in range(groups):
        side = g[G_TEAM + t] if n_seats == 3 else t
        k = 0
        hidden = 0
        for s in range(n_seats):
            if g[G_TEAM + s] == side:
                for f in range(53):
                    hc2[k, f] = hcnt[s, f]
                hidden += g[G_HIDDEN + s]
                k += 1
        if g[G_TPOZ + side] == 0:
            pz = POZ_UNTAKEN
        elif hidden != 0:
            pz = POZ_UNPLAYED
        else:
            pz = POZ_TAKEN
        closed = 0
        if end == L.END_CLOSED and g[G_TEAM + g[G_CLOSER]] == side:
            closed = 1
        total, mp, bb, cb, hp, pen, cl, di, se = score_team(
            mcnt[side], minfo[side], nm[side], hc2, k, closed, pz, g[G_TOOK_PILE], rv)
        if total % 5 != 0:
            g[G_ERR] |= L.ERR_SCORE_PARITY
        if n_seats == 3 and k == 2 and rv[L.RV_THREE_PLAYER_PAIR_SHARE] == 1:
            total = _half_round_up(total)
        o = L.N_HAND_COLS + t * L.N_TEAM_COLS
        rec[o + L.TC_SCORE] = total
        rec[o + L.TC_MELD_POINTS] = mp
        rec[o + L.TC_BURRACO_BONUS] = bb
        rec[o + L.TC_CLOSING_BONUS] = cb
        rec[o + L.TC_HAND_POINTS] = hp
        rec[o + L.TC_POZZETTO_PENALTY] = pen
        rec[o + L.TC_CLEAN] = cl
        rec[o + L.TC_DIRTY] = di
        rec[o + L.TC_SEMI_CLEAN] = se
        rec[o + L.TC_MELDS] = nm[side]
        rec[o + L.TC_CLOSED] = closed
        rec[o + L.TC_POZ_TAKEN] = g[G_TPOZ + side]
        rec[o + L.TC_POZ_TURN] = g[G_PTURN + side]
        rec[o + L.TC_POZ_MODE] = g[G_PMODE + side]
        rec[o + L.TC_PILE_PICKUPS] = g[G_PP + side]
        rec[o + L.TC_PILE_CARDS] = g[G_PC + side]
    if n_seats == 3:
        rec[L.REC_SOLO_SEAT] = g[G_SOLO]
    else:
        for f in range(L.N_HAND_COLS + 2 * L.N_TEAM_COLS, L.N_REC):
            rec[f] = L.NULL32
    rec[L.REC_ERROR] = g[G_ERR]
    return g[G_NEV], g[G_NEVC]


@njit(cache=True, parallel=True)
def simulate_range(run_seed, start, count, rv, kinds, params, debug, out):
    """Play hands ``start .. start+count-1`` of a run, in parallel.

    Parameters
    ----------
    run_seed : uint64
        The run's seed.
    start, count : int64
        First hand index and number of hands.
    rv : numpy.ndarray
        ``int64[N_RULES]`` rules vector (``sim.Rules.to_vector``).
    kinds : numpy.ndarray
        ``int64[4]`` policy kind per seat.
    params : numpy.ndarray
        ``float64[4, N_PARAMS]`` strategy parameters per seat.
    debug : int64
        1 to check card conservation and meld validity after every action
        (sets the record's ``error`` column on failure).
    out : numpy.ndarray
        ``int32[count, N_REC]``, filled with one record per hand (mutated).
    """
    nchunks = min(count, N_CHUNKS)
    words = work_words(0, 0)
    for k in prange(nchunks):
        work = np.empty(words, np.int64)       # one buffer per chunk, reused by its hands
        for i in range(count * k // nchunks, count * (k + 1) // nchunks):
            play_hand(run_seed, start + i, np.int64(-1), rv, kinds, params, debug, out[i], 0, 0,
                      work)


@njit(cache=True)
def simulate_range_serial(run_seed, start, count, rv, kinds, params, debug, out):
    """:func:`simulate_range` on one thread (same records)."""
    work = np.empty(work_words(0, 0), np.int64)
    for i in range(count):
        play_hand(run_seed, start + i, np.int64(-1), rv, kinds, params, debug, out[i], 0, 0,
                      work)


@njit(cache=True, parallel=True)
def simulate_hands(run_seed, hand_index, dealer, rv, kinds, params, debug, out):
    """Play the listed hands of a run in parallel, each with a given dealer.

    The match runner's entry point: hand ``i`` of the call is hand
    ``hand_index[i]`` of the run (its deal) with dealer ``dealer[i]``.

    Parameters
    ----------
    run_seed : uint64
        The run's seed.
    hand_index : numpy.ndarray
        ``int64[n]`` hand indices (deals).
    dealer : numpy.ndarray
        ``int64[n]`` dealer seats, -1 for the deal's own random dealer (R6).
    rv, kinds, params, debug
        As for :func:`simulate_range`.
    out : numpy.ndarray
        ``int32[n, N_REC]``, one record per hand (mutated).
    """
    count = hand_index.shape[0]
    nchunks = min(count, N_CHUNKS)
    words = work_words(0, 0)
    for k in prange(nchunks):
        work = np.empty(words, np.int64)
        for i in range(count * k // nchunks, count * (k + 1) // nchunks):
            play_hand(run_seed, hand_index[i], dealer[i], rv, kinds, params, debug, out[i], 0, 0,
                      work)
