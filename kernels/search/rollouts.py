"""Rollouts of candidate actions on sampled worlds.

:func:`rollouts` evaluates the candidate actions of one decision: for each
world ``w`` it deals the cards the seat to move cannot see again
(:func:`kernels.table.worlds.resample_unseen`, stream ``(seed, w)``), and for each
candidate it copies that world, applies the candidate
(:func:`kernels.engine.actions.apply_action`), plays the hand to its end with the
rollout strategy (:func:`kernels.play.game.play_out`) and scores it
(:func:`kernels.play.game.record`, R55-R59).

Common random numbers: every candidate of a world starts from the same
world, generator state included (the world's generator is reseeded from
``(seed, w)`` by the sampling), so the candidates of a world differ only by
the candidate and what follows from it.  A world depends on its index
alone, never on the thread or the chunk that plays it, so the results are
the same whatever the thread count and however the worlds are split into
calls.

Buffers: the source is a work buffer without an event log
(``kernels.table.work.work_words(0, 0)`` words, ``W_EV_ROWS = W_EV_CARDS = 0``);
each parallel chunk owns two such buffers (the world, the rollout) in
``scratch``.  Only the first :data:`ROLL_WORDS` words (the state, the
generator, the deck, the work arrays, the rules vector, the parameters and
policy kinds, the debug flag and the log size) are copied per world and per
rollout: the words after them (the random strategy's candidate list, the
debug work array and the legal-action list) are work arrays that every
decision writes before it reads them.
"""
import numpy as np
from numba import njit, prange

from kernels.core import layout as L
from kernels.core.cards import CIDX, JOKER, N_CARDS, N_COUNT, RANK, TWO, VALUE
from kernels.engine.legal import OK
from kernels.search.card_model import card_odds
from kernels.core.threads import run_chunks
from kernels.search.rollout_steps import (  # noqa: F401  (side_result and the modes are this module's API too)
    WORLDS_MODEL,
    WORLDS_SAMPLED,
    WORLDS_TRUE,
    load_world,
    roll_candidate,
    side_result,
)
from kernels.table.state import (
    G_N_POZZETTI,
    G_NEXT_POZZETTO,
    G_POZZETTO_SIZE,
    G_STOCK_END,
    G_STOCK_TOP,
)
from kernels.table.work import W_CAND, W_RV, views
from kernels.table.worlds import (
    PLACE_HAND,
    PLACE_STOCK,
    resample_unseen,
    unseen_places,
)

ROLL_WORDS = W_CAND          # words a rollout copies (see the module docstring)

# deal features of a world (world_features): per group, the wilds (jokers and twos) and
# the card points (R2) it holds; groups: the other seats in playing order after the seat
# to move (hands, known cards included), the next round of stock draws, the pozzetti
FEATURE_GROUPS = ("seat+1", "seat+2", "seat+3", "stock_round", "pozzetti")
N_GROUPS = 5
N_FEATURES = 2 * N_GROUPS    # column 2*g: wilds of group g (cards); 2*g+1: its points


def rollouts(src, seat, actions, seed, first, count, kinds, params, debug, prefix, scratch,
             result, own, closed, error, worlds_mode=0):
    """Roll every candidate out on worlds ``first .. first+count-1``, in parallel.

    Parameters
    ----------
    src : numpy.ndarray
        int64[words], the game's work buffer at the decision without an event
        log (``words >= kernels.table.work.work_words(0, 0)``, ``W_EV_ROWS`` and
        ``W_EV_CARDS`` 0); not mutated.
    seat : int64
        The seat to move, whose knowledge the worlds keep and whose side the
        results are for (:func:`side_result`).
    actions : numpy.ndarray
        int64[C], the candidate action ids (:mod:`kernels.engine.actions`); C may be 0
        (the worlds are only sampled: for timing the sampling).
    seed : uint64
        The analysis seed; world ``w`` is dealt from the stream ``(seed, w)``.
    first, count : int64
        The first world index and the number of worlds.
    kinds : numpy.ndarray
        int64[4], the rollout strategy's policy kind per seat
        (``kernels.core.layout.POLICY_*`` or a registered chooser's address).
    params : numpy.ndarray
        float64[4, N_PARAMS], its parameter row per seat.
    debug : int64
        1 to run the debug checks (card conservation, melds) after every
        action of the rollouts (a failure sets error bits in the record).
    prefix : int64
        Words copied per world and per rollout: :data:`ROLL_WORDS` (the
        words a rollout needs); more only to measure the cost of copying.
    scratch : numpy.ndarray
        int64[K, 2, words]: a world and a rollout buffer for each of the K
        parallel chunks (overwritten; K >= 1, the worlds are split into K
        chunks, which does not change any result).
    result, own, closed : numpy.ndarray
        int64[count, C] each (mutated): per world ``first + i`` (row ``i``)
        and candidate, the hand result for ``seat``'s side (own side's score
        minus the opponents', points), the own side's score (points) and 1 if
        the own side closed (:func:`side_result`).
    error : numpy.ndarray
        int64[count, C] (mutated): 0; or the negated ``apply_action`` code
        when the candidate is illegal in that world (the row's other outputs
        are then 0); or the record's error bits (``kernels.core.layout.ERR_*``)
        when the rollout hit one.
    worlds_mode : int64, optional
        :data:`WORLDS_SAMPLED` (0, the default): world ``w`` deals the cards
        ``seat`` cannot see again (:func:`kernels.table.worlds.resample_unseen`).
        :data:`WORLDS_TRUE` (1): the "oracle" world keeps the hidden cards of
        ``src`` as they are and only reseeds the generator from ``(seed, w)``
        (:func:`kernels.table.worlds.reseed_world`, the stream a sampled world gets
        too), so the two modes differ only by the hidden cards.
        :data:`WORLDS_MODEL` (2): world ``w`` deals the unseen cards again with the
        card-location model's weights, computed once from ``src``
        (:func:`kernels.search.card_model.card_odds`,
        :func:`kernels.search.card_model.resample_unseen_weighted`; R11 kept).

    Notes
    -----
    A Python driver: chunk ``k`` of the worlds runs in :func:`rollouts_chunk`
    (jit-compiled, ``nogil``, ``cache=True``) with the buffers ``scratch[k]``, on
    the threads of :func:`kernels.core.threads.run_chunks`.  A rollout allocates
    nothing but the record row of its chunk.
    """
    seat, first, debug, prefix, worlds_mode = (np.int64(seat), np.int64(first),
                                               np.int64(debug), np.int64(prefix),
                                               np.int64(worlds_mode))
    seed = np.uint64(seed)
    odds = np.ones((4, N_COUNT), np.float64)
    if worlds_mode == WORLDS_MODEL:
        card_odds(src, seat, odds)

    def chunk(k, lo, hi):
        rollouts_chunk(src, seat, actions, seed, first, np.int64(lo), np.int64(hi), kinds,
                       params, debug, prefix, scratch[k], result, own, closed, error,
                       worlds_mode, odds)

    run_chunks(chunk, int(count), scratch.shape[0])


@njit(cache=True, nogil=True)
def rollouts_chunk(src, seat, actions, seed, first, lo, hi, kinds, params, debug, prefix,
                   buffers, result, own, closed, error, worlds_mode, odds):
    """Worlds ``first+lo .. first+hi-1`` of :func:`rollouts` (rows ``lo .. hi-1``) on
    one thread, with ``buffers`` (int64[2, words]: a world and a rollout buffer,
    overwritten); ``odds`` (float64[4, 53]) the card-location model's odds of the
    decision, read with ``worlds_mode`` :data:`WORLDS_MODEL` only; the other arguments
    as for :func:`rollouts` (mutates ``result``, ``own``, ``closed``, ``error``)."""
    nc = actions.shape[0]
    world = buffers[0]
    roll = buffers[1]
    rec = np.zeros(L.N_REC, np.int32)
    for i in range(lo, hi):
        load_world(src, world, seat, seed, first + i, kinds, params, debug, prefix,
                   worlds_mode, odds)
        for c in range(nc):
            code, r, o, cl = roll_candidate(world, roll, actions[c], rec, seat, prefix)
            result[i, c] = r
            own[i, c] = o
            closed[i, c] = cl
            error[i, c] = -code if code != OK else rec[L.REC_ERROR]



@njit(cache=True)
def _is_wild(cid):
    """1 if card ``cid`` is a joker or a two (a wild, R4), else 0."""
    return 1 if CIDX[cid] == JOKER or RANK[cid] == TWO else 0


@njit(cache=True)
def _add_card(out, group, cid):
    if group >= 0:
        out[2 * group] += _is_wild(cid)
        out[2 * group + 1] += VALUE[cid]


@njit(cache=True)
def _place_group(g, n, seat, where, a):
    """The feature group (0 .. N_GROUPS-1) of an unseen place, or -1 (FEATURE_GROUPS)."""
    if where == PLACE_HAND:
        return (a - seat + n) % n - 1
    if where == PLACE_STOCK:
        return 3 if a < g[G_STOCK_TOP] + n else -1
    return 4


@njit(cache=True)
def deal_features(work, seat, out):
    """The deal features of a world, into ``out`` (float64[N_FEATURES], overwritten).

    Column ``2*g`` counts the wilds (jokers and twos, cards) and ``2*g + 1``
    sums the card points (R2) of group ``g`` of :data:`FEATURE_GROUPS`: the
    whole hand of each other seat in playing order after ``seat`` (known cards
    included; with fewer players the missing seats stay 0), the next round of
    stock draws (the top ``num_players`` stock cards) and the untaken pozzetti.
    ``work`` (int64 work buffer) is not mutated.
    """
    st = views(work).state
    g = st.g
    n = work[W_RV + L.RV_NUM_PLAYERS]
    for f in range(N_FEATURES):
        out[f] = 0.0
    for s in range(n):
        if s != seat:
            for i in range(st.hn[s]):
                _add_card(out, (s - seat + n) % n - 1, st.hand[s, i])
    for i in range(g[G_STOCK_TOP], min(g[G_STOCK_TOP] + n, g[G_STOCK_END])):
        _add_card(out, 3, st.stock[i])
    for p in range(g[G_NEXT_POZZETTO], g[G_N_POZZETTI]):
        for i in range(g[G_POZZETTO_SIZE + p]):
            _add_card(out, 4, st.poz[p, i])


@njit(cache=True)
def feature_means(work, seat, out):
    """The exact means of :func:`deal_features` over the sampled worlds of
    ``work`` for ``seat``, into ``out`` (float64[N_FEATURES], overwritten).

    A sampled world deals the unseen cards uniformly over the unseen places
    (:func:`kernels.table.worlds.resample_unseen`), so an unseen place holds on
    average the mean wild count and the mean points of the unseen cards: a
    group's mean is its seen cards' figure plus its unseen places times that
    mean (the hypergeometric mean).  ``work`` is not mutated.
    """
    st = views(work).state
    g = st.g
    n = work[W_RV + L.RV_NUM_PLAYERS]
    deal_features(work, seat, out)
    places = np.empty((N_CARDS, 3), np.int64)
    m = unseen_places(work, seat, places)
    if m == 0:
        return
    wilds = 0.0
    points = 0.0
    size = np.zeros(N_GROUPS, np.int64)
    for k in range(m):
        where, a, b = places[k, 0], places[k, 1], places[k, 2]
        if where == PLACE_HAND:
            cid = st.hand[a, b]
        elif where == PLACE_STOCK:
            cid = st.stock[a]
        else:
            cid = st.poz[a, b]
        wilds += _is_wild(cid)
        points += VALUE[cid]
        grp = _place_group(g, n, seat, where, a)
        if grp >= 0:
            out[2 * grp] -= _is_wild(cid)
            out[2 * grp + 1] -= VALUE[cid]
            size[grp] += 1
    for grp in range(N_GROUPS):
        out[2 * grp] += size[grp] * wilds / m
        out[2 * grp + 1] += size[grp] * points / m


@njit(cache=True, parallel=True)
def world_features(src, seat, seed, first, count, prefix, scratch, feats):
    """:func:`deal_features` of the sampled worlds ``first .. first+count-1``.

    World ``w`` is the world :func:`rollouts` plays (``worlds_mode``
    :data:`WORLDS_SAMPLED`, stream ``(seed, w)``); ``src``, ``seat``,
    ``prefix`` and ``scratch`` (int64[K, 2, words], overwritten) as there.
    ``feats`` (float64[count, N_FEATURES], mutated): row ``i`` is world
    ``first + i``'s features.  The results do not depend on the thread count.
    """
    nchunks = min(count, scratch.shape[0])
    for k in prange(nchunks):
        world = scratch[k, 0]
        for i in range(count * k // nchunks, count * (k + 1) // nchunks):
            for j in range(prefix):
                world[j] = src[j]
            resample_unseen(world, seat, seed, first + i)
            deal_features(world, seat, feats[i])
