"""Rollouts of candidate actions on sampled worlds (issue 14).

:func:`rollouts` evaluates the candidate actions of one decision: for each
world ``w`` it deals the cards the seat to move cannot see again
(:func:`kernels.worlds.resample_unseen`, stream ``(seed, w)``), and for each
candidate it copies that world, applies the candidate
(:func:`kernels.actions.apply_action`), plays the hand to its end with the
rollout strategy (:func:`kernels.game.play_out`) and scores it
(:func:`kernels.game.record`, R55-R59).

Common random numbers: every candidate of a world starts from the same
world, generator state included (the world's generator is reseeded from
``(seed, w)`` by the sampling), so the candidates of a world differ only by
the candidate and what follows from it.  A world depends on its index
alone, never on the thread or the chunk that plays it, so the results are
the same whatever the thread count and however the worlds are split into
calls.

Buffers: the source is a work buffer without an event log
(``kernels.work.work_words(0, 0)`` words, ``W_EV_ROWS = W_EV_CARDS = 0``);
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

from . import layout as L
from .actions import apply_action
from .game import play_out, record
from .legal import OK
from .state import G_LEN, G_TEAM, view_f64, view_i64
from .work import W_CAND, W_DEBUG, W_G, W_KINDS, W_PARAMS, W_RV
from .worlds import resample_unseen

ROLL_WORDS = W_CAND          # words a rollout copies (see the module docstring)
NO_SCORE = -(2**62)          # "no opponent" for the max over opponents


@njit(cache=True, _nrt=False)
def side_result(work, rec, seat):
    """The hand's result for ``seat``'s side, from its record.

    Parameters
    ----------
    work : numpy.ndarray
        int64 work buffer of the finished hand (its counters and rules vector
        are read).
    rec : numpy.ndarray
        int32[N_REC], the hand's record (:func:`kernels.game.record`).
    seat : int
        The seat the result is for (the seat to move at the analysed decision).

    Returns
    -------
    tuple of int
        ``(result, own, closed)``: ``own`` is the hand score (points, R55-R59)
        of the record group of ``seat``; ``result`` is ``own`` minus the
        opponents' score: with 2 or 4 players the other record group's (the
        other player, the other partnership, R5, R61); with 3 players, where
        the record has one group per player holding its side's credited score
        (R62, R63), the highest score among the players on another side than
        ``seat`` at the end of the hand.  ``closed`` is 1 if ``seat``'s side
        closed the hand (R47), else 0.
    """
    g = view_i64(work, W_G, G_LEN)
    n = work[W_RV + L.RV_NUM_PLAYERS]
    if n == 3:
        group = seat
        side = g[G_TEAM + seat]
        opp = NO_SCORE
        for p in range(3):
            if p != seat and g[G_TEAM + p] != side:
                opp = max(opp, np.int64(rec[L.N_HAND_COLS + p * L.N_TEAM_COLS + L.TC_SCORE]))
        if opp == NO_SCORE:
            opp = 0
    else:
        group = g[G_TEAM + seat]
        opp = np.int64(rec[L.N_HAND_COLS + (1 - group) * L.N_TEAM_COLS + L.TC_SCORE])
    o = L.N_HAND_COLS + group * L.N_TEAM_COLS
    own = np.int64(rec[o + L.TC_SCORE])
    return own - opp, own, np.int64(rec[o + L.TC_CLOSED])


@njit(cache=True, parallel=True)
def rollouts(src, seat, actions, seed, first, count, kinds, params, debug, prefix, scratch,
             result, own, closed, error):
    """Roll every candidate out on worlds ``first .. first+count-1``, in parallel.

    Parameters
    ----------
    src : numpy.ndarray
        int64[words], the game's work buffer at the decision without an event
        log (``words >= kernels.work.work_words(0, 0)``, ``W_EV_ROWS`` and
        ``W_EV_CARDS`` 0); not mutated.
    seat : int64
        The seat to move, whose knowledge the worlds keep and whose side the
        results are for (:func:`side_result`).
    actions : numpy.ndarray
        int64[C], the candidate action ids (:mod:`kernels.actions`); C may be 0
        (the worlds are only sampled: for timing the sampling).
    seed : uint64
        The analysis seed; world ``w`` is dealt from the stream ``(seed, w)``.
    first, count : int64
        The first world index and the number of worlds.
    kinds : numpy.ndarray
        int64[4], the rollout strategy's policy kind per seat
        (``kernels.layout.POLICY_*`` or a registered chooser's address).
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
        are then 0); or the record's error bits (``kernels.layout.ERR_*``)
        when the rollout hit one.

    Notes
    -----
    Jit-compiled by Numba (``parallel=True``, ``cache=True``).  A rollout
    allocates nothing but the record row of its chunk.
    """
    nc = actions.shape[0]
    nchunks = min(count, scratch.shape[0])
    for k in prange(nchunks):
        world = scratch[k, 0]
        roll = scratch[k, 1]
        rec = np.zeros(L.N_REC, np.int32)
        for i in range(count * k // nchunks, count * (k + 1) // nchunks):
            for j in range(prefix):
                world[j] = src[j]
            resample_unseen(world, seat, seed, first + i)
            kv = view_i64(world, W_KINDS, 4)
            pv = view_f64(world, W_PARAMS, (4, L.N_PARAMS))
            for s in range(4):
                kv[s] = kinds[s]
                for f in range(L.N_PARAMS):
                    pv[s, f] = params[s, f]
            world[W_DEBUG] = debug
            for c in range(nc):
                for j in range(prefix):
                    roll[j] = world[j]
                code = apply_action(roll, actions[c])
                if code != OK:
                    error[i, c] = -code
                    result[i, c] = 0
                    own[i, c] = 0
                    closed[i, c] = 0
                    continue
                play_out(roll)
                record(roll, rec)
                r, o, cl = side_result(roll, rec, seat)
                result[i, c] = r
                own[i, c] = o
                closed[i, c] = cl
                error[i, c] = rec[L.REC_ERROR]
