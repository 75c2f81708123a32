"""Rollouts of candidate actions played on to the end of the match (``--objective match``, R60).

:func:`match_rollouts` does what :func:`kernels.search.rollouts.rollouts` does for
every world and candidate (the same world from the stream ``(seed, w)``, the
candidate applied, the hand played out by the rollout strategy and scored:
the same ``result``, ``own`` and ``closed``), then adds the hand's scores to
the match totals before the hand and, while no side has won by R60 (R63 with
3 players), plays the match on with the rollout strategy on every seat.

The later hands.  Hand ``k`` (1, 2, ...) after the analysed one, in world
``w``, is the deal :func:`kernels.play.game.play_hand` makes for run seed
``seed ^ LATER_SALT`` and hand index ``w * LATER_STRIDE + k``, dealt by seat
``(dealer + k) % num_players`` (R6: the deal passes to the next seat after each
hand), ``dealer`` being the analysed hand's.  They depend on the world and on
``k`` alone, not on the candidate: every candidate of a world meets the same
later deals (common random numbers), and as the play of a hand does not
depend on the totals either, a later hand is played once per world (and rules
mode) and its scores are reused by every candidate that needs it.  Only the
number of later hands needed differs between candidates.

3 players (R63): each player keeps a total; a ``solo_18`` match switches to
``individual_3x11`` hands from the hand after any total reaches
``three_player_switch_at``.  The rules of the later hands are the analysed
hand's (its rules vector), switched to ``individual_3x11`` that way.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import N_COUNT
from kernels.play.game import play_hand
from kernels.engine.legal import OK
from kernels.search.rollout_steps import WORLDS_SAMPLED, load_world, roll_candidate
from kernels.table.state import G_DEALER, G_LEN, G_TEAM, view_i64
from kernels.core.threads import run_chunks
from kernels.table.work import W_G, W_RV

LATER_SALT = np.uint64(0x6D617463685F6F6E)     # "match_on": the later hands' run seed
LATER_STRIDE = 65536                           # hand k after the analysed one: w * 65536 + k
WIN, LOSS, UNDECIDED = 1, 0, -1                # ``win`` values


@njit(cache=True, _nrt=False)
def match_outcome(totals, nsides, target, own):
    """R60 (R63 with 3 players) after a hand.

    Parameters
    ----------
    totals : numpy.ndarray
        int64[>= nsides], the match totals after the hand (points).
    nsides : int
        Totals kept: 2 (teams, or the players of a 2-player game) or 3
        (players, R63).
    target : int
        ``target_score`` (``three_player_target`` with 3 players), points.
    own : int
        The index of the side the outcome is for.

    Returns
    -------
    int
        :data:`WIN` when ``own`` has the highest total, that total reached
        ``target`` and no other side has it; :data:`LOSS` when another side
        does; :data:`UNDECIDED` when the match goes on (no total at the target,
        or the highest totals equal).
    """
    top = totals[0]
    for s in range(1, nsides):
        top = max(top, totals[s])
    if top < target:
        return UNDECIDED
    n = 0
    for s in range(nsides):
        if totals[s] == top:
            n += 1
    if n != 1:
        return UNDECIDED
    return WIN if totals[own] == top else LOSS


def match_rollouts(src, seat, actions, seed, first, count, kinds, params, debug, prefix, scratch,
                   totals0, max_hands, result, own, closed, error, win, later):
    """Roll every candidate out on worlds ``first .. first+count-1`` and play the match on.

    Parameters
    ----------
    src, seat, actions, seed, first, count, kinds, params, debug, prefix, scratch
        As for :func:`kernels.search.rollouts.rollouts` (``scratch``: int64[K, 2,
        words], ``words >= kernels.table.work.work_words(0, 0)``).
    totals0 : numpy.ndarray
        int64[3], the match totals before the analysed hand (points): of team 0
        and team 1 (or of the two players), or of players 0, 1 and 2 with 3
        players; the unused entry 0.
    max_hands : int64
        Later hands after which a match still going counts as
        :data:`UNDECIDED` (1 .. LATER_STRIDE - 1).
    result, own, closed, error : numpy.ndarray
        int64[count, C] (mutated): the analysed hand, exactly as
        :func:`kernels.search.rollouts.rollouts` writes them; ``error`` also gets the
        error bits of the later hands' records.
    win : numpy.ndarray
        int64[count, C] (mutated): :data:`WIN`, :data:`LOSS` or
        :data:`UNDECIDED` (still going after ``max_hands`` later hands) for the
        side of ``seat`` (:func:`match_outcome`); 0 where the candidate was
        illegal.
    later : numpy.ndarray
        int64[count, C] (mutated): later hands the match needed (0 when the
        analysed hand decided it).

    Notes
    -----
    A Python driver: chunk ``k`` of the worlds runs in
    :func:`match_rollouts_chunk` (jit-compiled, ``nogil``, ``cache=True``) with the
    buffers ``scratch[k]``, on the threads of :func:`kernels.core.threads.run_chunks`.
    Each chunk allocates the later hands' score cache, ``(max_hands + 1) x 2 x 3``
    words.
    """
    seat, first, debug, prefix, max_hands = (np.int64(seat), np.int64(first), np.int64(debug),
                                             np.int64(prefix), np.int64(max_hands))
    seed = np.uint64(seed)

    def chunk(k, lo, hi):
        match_rollouts_chunk(src, seat, actions, seed, first, np.int64(lo), np.int64(hi), kinds,
                             params, debug, prefix, scratch[k], totals0, max_hands, result, own,
                             closed, error, win, later)

    run_chunks(chunk, int(count), scratch.shape[0])


@njit(cache=True, nogil=True)
def match_rollouts_chunk(src, seat, actions, seed, first, lo, hi, kinds, params, debug, prefix,
                         buffers, totals0, max_hands, result, own, closed, error, win, later):
    """Worlds ``first+lo .. first+hi-1`` of :func:`match_rollouts` (rows ``lo .. hi-1``)
    on one thread, with ``buffers`` (int64[2, words]: a world and a rollout buffer,
    overwritten); the other arguments as for :func:`match_rollouts` (mutates the
    outputs)."""
    nc = actions.shape[0]
    world = buffers[0]
    roll = buffers[1]
    rec = np.zeros(L.N_REC, np.int32)
    cache = np.zeros((max_hands + 1, 2, 3), np.int64)
    known = np.zeros((max_hands + 1, 2), np.int64)
    totals = np.zeros(3, np.int64)
    no_odds = np.ones((4, N_COUNT), np.float64)      # uniform worlds: not read
    for i in range(lo, hi):
        load_world(src, world, seat, seed, first + i, kinds, params, debug, prefix,
                   WORLDS_SAMPLED, no_odds)
        rv = view_i64(world, W_RV, L.N_RULES).copy()
        n = rv[L.RV_NUM_PLAYERS]
        nsides = 3 if n == 3 else 2
        ownside = seat if n == 3 else view_i64(world, W_G, G_LEN)[G_TEAM + seat]
        target = rv[L.RV_THREE_PLAYER_TARGET] if n == 3 else rv[L.RV_TARGET_SCORE]
        dealer = view_i64(world, W_G, G_LEN)[G_DEALER]
        solo18 = n == 3 and rv[L.RV_THREE_PLAYER_MODE] == 0
        rv_ind = rv.copy()
        rv_ind[L.RV_THREE_PLAYER_MODE] = 1
        for h in range(max_hands + 1):
            known[h, 0] = 0
            known[h, 1] = 0
        for c in range(nc):
            code, r, o, cl = roll_candidate(world, roll, actions[c], rec, seat, prefix)
            result[i, c] = r
            own[i, c] = o
            closed[i, c] = cl
            if code != OK:
                error[i, c] = -code
                win[i, c] = 0
                later[i, c] = 0
                continue
            err = np.int64(rec[L.REC_ERROR])
            for s in range(3):
                totals[s] = totals0[s]
            for s in range(nsides):
                totals[s] += rec[L.N_HAND_COLS + s * L.N_TEAM_COLS + L.TC_SCORE]
            individual = not solo18
            outcome = match_outcome(totals, nsides, target, ownside)
            h = 0
            while outcome == UNDECIDED and h < max_hands:
                h += 1
                if solo18 and not individual:
                    top = totals[0]
                    for s in range(1, 3):
                        top = max(top, totals[s])
                    individual = top >= rv[L.RV_THREE_PLAYER_SWITCH_AT]
                mode = 1 if (individual and solo18) else 0
                if known[h, mode] == 0:
                    play_hand(seed ^ LATER_SALT, (first + i) * LATER_STRIDE + h,
                              (dealer + h) % n, rv_ind if mode == 1 else rv, kinds, params,
                              debug, rec, 0, 0, roll)
                    for s in range(nsides):
                        cache[h, mode, s] = rec[L.N_HAND_COLS + s * L.N_TEAM_COLS
                                                + L.TC_SCORE]
                    known[h, mode] = 1 + np.int64(rec[L.REC_ERROR])
                err |= known[h, mode] - 1
                for s in range(nsides):
                    totals[s] += cache[h, mode, s]
                outcome = match_outcome(totals, nsides, target, ownside)
            win[i, c] = outcome
            later[i, c] = h
            error[i, c] = err
