"""The turn loop: one hand, and a parallel batch of hands (RULES.md R32-R52).

:func:`simulate_range` is the entry point of the batch runner: it plays hands
``start .. start+count-1`` of the run seeded ``run_seed`` in parallel and
writes one record row per hand (columns in :mod:`kernels.core.layout`).  It and
:func:`simulate_hands` are Python drivers of one compiled loop,
:func:`play_hands_chunk`, on a thread pool.
"""
from kernels.core.cards import N_COUNT
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.deal import deal_offsets, pozzetto_sizes, shuffle_deal
from kernels.engine.actions import (ERR_ILLEGAL_CHOICE, PH_DISCARD, PH_OVER, apply_action,
                                    apply_chosen, begin_hand, debug_check, finish_hand)
from kernels.engine.legal import OK
from kernels.strategies.api import call_chooser
from kernels.strategies.choosers import (heuristic_chooser, open_lay_off_action, random_chooser,
                                         uniform_chooser)
from kernels.core.rng import seed_hand
from kernels.core.threads import run_chunks
from kernels.table.scoring import POZ_TAKEN, POZ_UNPLAYED, POZ_UNTAKEN, score_team
from kernels.table.state import (G_LEN, G_CLOSER, G_DEALER, G_END, G_ERRORS, G_FIRST,
                                 G_POZZETTO_HIDDEN, G_EVENT_ROWS, G_EVENT_CARDS, G_N_POZZETTI,
                                 G_OPEN_LAYOFF, G_PILE_CARDS, G_PHASE, G_POZZETTO_MODE, G_PILE_SIZE,
                                 G_POZZETTO_SIZE, G_PILE_PICKUPS, G_POZZETTO_TURN, G_SEAT,
                                 G_STOCK_END, G_SOLO_SEAT, G_SOLO_18, G_STOCK_TOP, G_TEAM,
                                 G_TOOK_PILE, G_POZZETTO_TAKEN, G_TURN, state_of, state_views,
                                 view_i64)
from kernels.table.moves import (hand_add, set_lock_two_roles)
from kernels.table.work import (EV_AT, W_EV_CARDS, W_EV_ROWS, W_DEBUG, W_G, W_KINDS, views,
                                work_words)

# simulate_range and simulate_hands split their hands into this many chunks (one
# work buffer each, handed out to the threads as they finish)
N_CHUNKS = 256


@njit(cache=True, _nrt=False)
def setup_hand(st, deck, rv):
    """Lay the shuffled ``deck`` out as the deal of R8/R61-R63 (see kernels.core.deal).

    Also sets who plays for which team: ``s % 2`` with 2 or 4 players, each
    player alone with 3 (R62, R63).
    """
    stock, pile, poz, g = st.stock, st.pile, st.poz, st.g
    n = rv[L.RV_NUM_PLAYERS]
    h = rv[L.RV_HAND_SIZE]
    for s in range(n):
        g[G_TEAM + s] = s if n == 3 else s % 2
        for i in range(h):
            hand_add(st, s, deck[h * s + i])
    count, s0, s1, s2 = pozzetto_sizes(rv)
    g[G_N_POZZETTI] = count
    g[G_SOLO_18] = 1 if n == 3 and rv[L.RV_THREE_PLAYER_MODE] == 0 else 0
    g[G_POZZETTO_SIZE] = s0
    g[G_POZZETTO_SIZE + 1] = s1
    g[G_POZZETTO_SIZE + 2] = s2
    at, up, stock_at, stock_size = deal_offsets(rv)
    for k in range(count):
        for i in range(g[G_POZZETTO_SIZE + k]):
            poz[k, i] = deck[at + i]
        at += g[G_POZZETTO_SIZE + k]
    pile[0] = deck[up]
    g[G_PILE_SIZE] = 1
    for i in range(stock_size):
        stock[i] = deck[stock_at + i]
    g[G_STOCK_TOP] = 0
    g[G_STOCK_END] = stock_size
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
def choose(work):
    """The action id that the strategy of the seat to move chooses: its policy
    kind in ``work`` (:mod:`kernels.table.work`) is ``POLICY_HEURISTIC``,
    ``POLICY_RANDOM``, ``POLICY_UNIFORM`` or the address of a registered chooser's callback
    (:mod:`kernels.strategies.api`); its parameter row is in ``work`` too.

    The state is not mutated; the hand's generator may be advanced.
    """
    if work[W_G + G_OPEN_LAYOFF] != 0:
        return open_lay_off_action(work)
    kind = work[W_KINDS + work[W_G + G_SEAT]]
    if kind == L.POLICY_HEURISTIC:
        return heuristic_chooser(work)
    if kind == L.POLICY_RANDOM:
        return random_chooser(work)
    if kind == L.POLICY_UNIFORM:
        return uniform_chooser(work)
    return call_chooser(kind, work.ctypes.data, work.shape[0])


@njit(cache=True, _nrt=False)
def play_turn(work):
    """Play the decisions of the seat to move until the turn passes or the
    hand ends (choose, then apply: R32-R52); returns the end reason or -1.

    Mutates the state and generator in ``work``.  A chooser's illegal action
    ends the hand as ``turn_cap`` with an error bit in the record.
    """
    g = view_i64(work, W_G, G_LEN)
    seat = g[G_SEAT]
    # a built-in strategy's actions passed kernels.engine.legal's tests when it chose them
    trusted = work[W_DEBUG] == 0 and (work[W_KINDS + seat] == L.POLICY_HEURISTIC
                                      or work[W_KINDS + seat] == L.POLICY_RANDOM)
    while g[G_PHASE] != PH_OVER and g[G_SEAT] == seat:
        a = choose(work)
        code = apply_chosen(work, a) if trusted else apply_action(work, a)
        if code != OK:
            g[G_ERRORS] |= L.ERR_NO_DISCARD if g[G_PHASE] == PH_DISCARD else ERR_ILLEGAL_CHOICE
            finish_hand(state_of(work, EV_AT, work[W_EV_ROWS], work[W_EV_CARDS]), seat,
                        np.int64(L.END_TURN_CAP))
    return g[G_END]


@njit(cache=True)
def new_hand(run_seed, hand_index, dealer_in, rv_in, kinds_in, params_in, debug, ev_rows,
             ev_cards, work):
    """Deal hand ``hand_index`` of the run into ``work`` and wait for the first
    player's pickup (R6-R8, R61-R63); nothing is played.

    ``work`` (int64[>= work_words(ev_rows, ev_cards)], overwritten) receives
    the whole hand (layout in :mod:`kernels.table.work`): the state, the hand's
    generator after the deal, the rules vector ``rv_in`` (int64[N_RULES]),
    each seat's policy kind ``kinds_in`` (int64[4]) and parameter row
    ``params_in`` (float64[4, N_PARAMS]), the debug flag and an empty event
    log of ``ev_rows`` rows and ``ev_cards`` card slots.

    ``dealer_in`` (int64) is the dealer seat, or -1 for the dealer drawn from
    the hand's generator (R6).  The generator draws the dealer either way, so
    the cards dealt do not depend on ``dealer_in``; matches pass the rotating
    dealer (R6: the deal passes to the next seat after each hand).

    Raises
    ------
    ValueError
        ``work`` is shorter than ``work_words(ev_rows, ev_cards)``.
    """
    if work.shape[0] < work_words(ev_rows, ev_cards):
        raise ValueError("new_hand: work buffer shorter than work_words(ev_rows, ev_cards)")
    work[W_EV_ROWS] = ev_rows
    work[W_EV_CARDS] = ev_cards
    work[W_DEBUG] = debug
    state_views(work, EV_AT, ev_rows, ev_cards)             # an empty table
    wv = views(work)
    st, rv, params, kinds, rng, deck, dbg = (
        wv.state, wv.rules, wv.params, wv.kinds, wv.rng, wv.deck, wv.debug)
    for f in range(L.N_RULES):
        rv[f] = rv_in[f]
    for s in range(4):
        kinds[s] = kinds_in[s]
        for f in range(L.N_PARAMS):
            params[s, f] = params_in[s, f]
    seed_hand(run_seed, hand_index, rng)
    dealer = shuffle_deal(rng, deck, rv[L.RV_NUM_PLAYERS])
    if dealer_in >= 0:
        dealer = dealer_in
    setup_hand(st, deck, rv)
    if debug:
        debug_check(st, dbg)
    begin_hand(st, rv, dealer)


@njit(cache=True)
def record(work, rec):
    """Score the finished hand in ``work`` into ``rec`` (int32[N_REC], mutated; R55-R59)."""
    wv = views(work)
    st, rv, hc2 = wv.state, wv.rules, wv.side_counts
    score_hand(st, rv, hc2, rec)


@njit(cache=True)
def play_out(work):
    """Play the hand in ``work`` to its end with each seat's strategy (the
    kinds and parameter rows in ``work``); returns the end reason."""
    g = view_i64(work, W_G, G_LEN)
    while g[G_PHASE] != PH_OVER:
        play_turn(work)
    return g[G_END]


@njit(cache=True)
def play_hand(run_seed, hand_index, dealer_in, rv_in, kinds_in, params_in, debug, rec, ev_rows,
              ev_cards, work):
    """Play hand ``hand_index`` of the run and fill ``rec`` (int32[N_REC], mutated).

    The hand is dealt by :func:`new_hand` (same arguments), each seat's
    strategy plays it through :func:`play_turn` (choose, then apply), and it
    is scored by :func:`score_hand`.  With ``ev_rows`` > 0 the event log in
    ``work`` (rows of ``EV_COLS`` words from ``work[EV_AT]``, then
    ``ev_cards`` card slots) is read by the caller after the call.

    Returns
    -------
    tuple of int
        ``(n_ev, n_evc)``: event rows and card slots used.

    Raises
    ------
    ValueError
        ``work`` is shorter than ``work_words(ev_rows, ev_cards)``.
    """
    new_hand(run_seed, hand_index, dealer_in, rv_in, kinds_in, params_in, debug, ev_rows,
             ev_cards, work)
    play_out(work)
    g = view_i64(work, W_G, G_LEN)
    record(work, rec)
    return g[G_EVENT_ROWS], g[G_EVENT_CARDS]


@njit(cache=True, _nrt=False)
def score_hand(st, rv, hc2, rec):
    """Score a finished hand (R55-R59) into ``rec`` (int32[N_REC], mutated).

    ``hc2`` is an int64[2, 53] work array (overwritten).
    """
    hcnt, mcnt, minfo, nm, g = st.hcnt, st.mcnt, st.minfo, st.nm, st.g
    n_seats = rv[L.RV_NUM_PLAYERS]
    end = g[G_END]
    dealer = g[G_DEALER]
    first = g[G_FIRST]
    # ---- scoring (R55-R59)
    for f in range(L.N_REC):
        rec[f] = 0
    rec[L.REC_DEALER] = dealer
    rec[L.REC_FIRST_PLAYER] = first
    rec[L.REC_END_REASON] = end
    rec[L.REC_TURNS] = g[G_TURN]
    rec[L.REC_CLOSING_SEAT] = g[G_CLOSER]
    rec[L.REC_STOCK_LEFT] = g[G_STOCK_END] - g[G_STOCK_TOP]
    rec[L.REC_PILE_LEFT] = g[G_PILE_SIZE]
    # a record group per team, or per player with 3 players (its side, credited score)
    groups = 3 if n_seats == 3 else 2
    for t in range(groups):
        side = g[G_TEAM + t] if n_seats == 3 else t
        k = 0
        hidden = 0
        for s in range(n_seats):
            if g[G_TEAM + s] == side:
                for f in range(N_COUNT):
                    hc2[k, f] = hcnt[s, f]
                hidden += g[G_POZZETTO_HIDDEN + s]
                k += 1
        if g[G_POZZETTO_TAKEN + side] == 0:
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
            g[G_ERRORS] |= L.ERR_SCORE_PARITY
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
        rec[o + L.TC_POZ_TAKEN] = g[G_POZZETTO_TAKEN + side]
        rec[o + L.TC_POZ_TURN] = g[G_POZZETTO_TURN + side]
        rec[o + L.TC_POZ_MODE] = g[G_POZZETTO_MODE + side]
        rec[o + L.TC_PILE_PICKUPS] = g[G_PILE_PICKUPS + side]
        rec[o + L.TC_PILE_CARDS] = g[G_PILE_CARDS + side]
    if n_seats == 3:
        rec[L.REC_SOLO_SEAT] = g[G_SOLO_SEAT]
    else:
        for f in range(L.N_HAND_COLS + 2 * L.N_TEAM_COLS, L.N_REC):
            rec[f] = L.NULL32
    rec[L.REC_ERROR] = g[G_ERRORS]


@njit(cache=True, nogil=True)
def play_hands_chunk(run_seed, hand_index, dealer, lo, hi, rv, kinds, params, debug, out):
    """Play hands ``hand_index[lo:hi]`` of a run on one thread, without the GIL.

    The one compiled loop behind :func:`simulate_range` and :func:`simulate_hands`:
    hand ``i`` (``lo <= i < hi``) is hand ``hand_index[i]`` of the run seeded
    ``run_seed`` with dealer ``dealer[i]`` (-1: the deal's own, R6), and its record
    goes to ``out[i]`` (int32[N_REC], mutated).  One work buffer serves the chunk.
    Arguments as for :func:`simulate_hands`; ``lo``, ``hi`` are int64.
    """
    work = np.empty(work_words(0, 0), np.int64)
    for i in range(lo, hi):
        play_hand(run_seed, hand_index[i], dealer[i], rv, kinds, params, debug, out[i], 0, 0,
                  work)


def _play_chunks(run_seed, hand_index, dealer, rv, kinds, params, debug, out):
    """:func:`play_hands_chunk` over ``N_CHUNKS`` slices of the hands, on the
    threads of :func:`kernels.core.threads.run_chunks`.  Every hand depends on the run
    seed and its index alone, so the records do not depend on the thread count."""
    run_seed, debug = np.uint64(run_seed), np.int64(debug)

    def chunk(k, lo, hi):
        play_hands_chunk(run_seed, hand_index, dealer, np.int64(lo), np.int64(hi), rv, kinds,
                         params, debug, out)

    run_chunks(chunk, hand_index.shape[0], N_CHUNKS)


def simulate_range(run_seed, start, count, rv, kinds, params, debug, out):
    """Play hands ``start .. start+count-1`` of a run, in parallel.

    A Python driver: the hands run in :func:`play_hands_chunk` (one compiled,
    ``nogil`` loop, shared with :func:`simulate_hands`) on ``numba.get_num_threads()``
    threads (set it with ``numba.set_num_threads``).  It replaced a ``prange`` loop,
    which compiled the whole game four more times (the entry, the gufunc body and
    two wrappers; ``benchmarks/compile.md``); the records are the same.

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
    count = int(count)
    _play_chunks(run_seed, np.arange(start, start + count, dtype=np.int64),
                 np.full(count, -1, np.int64), rv, kinds, params, debug, out)


@njit(cache=True)
def simulate_range_serial(run_seed, start, count, rv, kinds, params, debug, out):
    """:func:`simulate_range` on one thread (same records), compiled in one piece
    (``benchmarks/profile.py`` profiles it)."""
    work = np.empty(work_words(0, 0), np.int64)
    for i in range(count):
        play_hand(run_seed, start + i, np.int64(-1), rv, kinds, params, debug, out[i], 0, 0,
                      work)


def simulate_hands(run_seed, hand_index, dealer, rv, kinds, params, debug, out):
    """Play the listed hands of a run in parallel, each with a given dealer.

    The match runner's entry point: hand ``i`` of the call is hand
    ``hand_index[i]`` of the run (its deal) with dealer ``dealer[i]``.  Runs on
    :func:`play_hands_chunk` like :func:`simulate_range`.

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
    _play_chunks(run_seed, np.ascontiguousarray(hand_index, np.int64),
                 np.ascontiguousarray(dealer, np.int64), rv, kinds, params, debug, out)


@njit(cache=True)
def new_hand_deck(run_seed, hand_index, dealer_in, deck_in, rv_in, kinds_in, params_in, debug,
                  ev_rows, ev_cards, work):
    """:func:`new_hand` with the cards of ``deck_in`` instead of the hand's shuffle.

    The hand's generator deals hand ``hand_index`` as :func:`new_hand` does (so the
    dealer and the random stream after the deal are that hand's), then the cards
    are laid out from ``deck_in`` (int64[108], a permutation of the ids 0..107 in
    dealing order, :mod:`kernels.core.deal`): the deal of hand ``hand_index`` with some
    cards moved plays with the same random numbers as the deal itself.  Checking
    that ``deck_in`` is a permutation is the caller's job (``sim.experiments.decks.play_decks``).
    """
    new_hand(run_seed, hand_index, dealer_in, rv_in, kinds_in, params_in, debug, ev_rows,
             ev_cards, work)
    wv = views(work)
    st, rv, deck, dbg = wv.state, wv.rules, wv.deck, wv.debug
    dealer = st.g[G_DEALER]
    st = state_views(work, EV_AT, ev_rows, ev_cards)        # an empty table again
    for i in range(108):
        deck[i] = deck_in[i]
    setup_hand(st, deck, rv)
    if debug:
        debug_check(st, dbg)
    begin_hand(st, rv, dealer)


def simulate_decks(run_seed, hand_index, decks, rv, kinds, params, debug, out):
    """Play the listed hands of a run in parallel, each from a given deck.

    Hand ``i`` of the call is hand ``hand_index[i]`` of the run (its dealer and
    random stream, R6) dealt from ``decks[i]`` (:func:`new_hand_deck`).

    Parameters
    ----------
    run_seed : uint64
    hand_index : numpy.ndarray
        ``int64[n]`` hand indices.
    decks : numpy.ndarray
        ``int64[n, 108]``, each row a permutation of 0..107 in dealing order.
    rv, kinds, params, debug
        As for :func:`simulate_range`.
    out : numpy.ndarray
        ``int32[n, N_REC]``, one record per hand (mutated).
    """
    hand_index = np.ascontiguousarray(hand_index, np.int64)
    run_seed, debug = np.uint64(run_seed), np.int64(debug)

    def chunk(k, lo, hi):
        play_decks_chunk(run_seed, hand_index, decks, np.int64(lo), np.int64(hi), rv, kinds,
                         params, debug, out)

    run_chunks(chunk, hand_index.shape[0], N_CHUNKS)


@njit(cache=True, nogil=True)
def play_decks_chunk(run_seed, hand_index, decks, lo, hi, rv, kinds, params, debug, out):
    """Hands ``lo .. hi-1`` of :func:`simulate_decks` on one thread, without the GIL
    (same arguments; ``lo``, ``hi`` int64; mutates ``out``)."""
    work = np.empty(work_words(0, 0), np.int64)
    for i in range(lo, hi):
        new_hand_deck(run_seed, hand_index[i], np.int64(-1), decks[i], rv, kinds, params,
                      debug, 0, 0, work)
        play_out(work)
        record(work, out[i])
