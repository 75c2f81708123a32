"""The two steps of a rollout on a sampled world, as inlined helpers.

:func:`load_world` deals world ``index`` for the seat to move into a buffer and gives
every seat the rollout strategy; :func:`roll_candidate` plays one candidate on a copy
of it to the end of the hand and scores it.  :func:`kernels.search.match_rollouts.match_rollouts`
and :func:`kernels.search.rollouts.rollouts` are built from them (one rollout, whatever the
objective).
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.engine.actions import apply_action
from kernels.play.game import play_out, record
from kernels.engine.legal import OK
from kernels.table.state import G_LEN, G_TEAM, view_f64, view_i64
from kernels.table.work import W_DEBUG, W_G, W_KINDS, W_PARAMS, W_RV
from kernels.search.card_model import resample_unseen_weighted
from kernels.table.worlds import resample_unseen, reseed_world

NO_SCORE = -(2**62)          # "no opponent" for the max over opponents
WORLDS_SAMPLED = 0           # worlds_mode: the unseen cards dealt again per world
WORLDS_TRUE = 1              # worlds_mode: the hidden cards as they are (oracle)
WORLDS_MODEL = 2             # worlds_mode: dealt again by the card-location model's odds


@njit(cache=True, _nrt=False)
def side_result(work, rec, seat):
    """The hand's result for ``seat``'s side, from its record.

    Parameters
    ----------
    work : numpy.ndarray
        int64 work buffer of the finished hand (its counters and rules vector
        are read).
    rec : numpy.ndarray
        int32[N_REC], the hand's record (:func:`kernels.play.game.record`).
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


@njit(cache=True, inline="always")
def load_world(src, world, seat, seed, index, kinds, params, debug, prefix, worlds_mode,
               odds):
    """World ``index`` into ``world`` (int64 buffer, its first ``prefix`` words
    overwritten): ``src``'s words, the cards ``seat`` cannot see dealt again from the
    stream ``(seed, index)`` (``worlds_mode`` :data:`WORLDS_SAMPLED`: uniformly,
    :func:`kernels.table.worlds.resample_unseen`; :data:`WORLDS_MODEL`: by the
    card-location model's ``odds``, float64[4, 53],
    :func:`kernels.search.card_model.resample_unseen_weighted`, R11 either way; with
    :data:`WORLDS_TRUE` they stay as they are and only the generator is reseeded from
    that stream, :func:`kernels.table.worlds.reseed_world`; ``odds`` is read only with
    :data:`WORLDS_MODEL`), every seat's policy kind ``kinds`` (int64[4]) and parameter
    row ``params`` (float64[4, N_PARAMS]), and the debug flag ``debug``."""
    for j in range(prefix):
        world[j] = src[j]
    if worlds_mode == WORLDS_TRUE:
        reseed_world(world, seed, index)
    elif worlds_mode == WORLDS_MODEL:
        resample_unseen_weighted(world, seat, seed, index, odds)
    else:
        resample_unseen(world, seat, seed, index)
    kv = view_i64(world, W_KINDS, 4)
    pv = view_f64(world, W_PARAMS, (4, L.N_PARAMS))
    for s in range(4):
        kv[s] = kinds[s]
        for f in range(L.N_PARAMS):
            pv[s, f] = params[s, f]
    world[W_DEBUG] = debug


@njit(cache=True, inline="always")
def roll_candidate(world, roll, action, rec, seat, prefix):
    """Copy ``world``'s first ``prefix`` words into ``roll``, apply ``action`` and play
    the hand to its end with the seats' strategies; ``rec`` (int32[N_REC], mutated)
    gets its record.

    Returns
    -------
    tuple of int
        ``(code, result, own, closed)``: ``code`` the ``apply_action`` code (the
        others 0 when it is not ``OK``: ``rec`` is then not written), else
        :func:`side_result` for ``seat``.
    """
    for j in range(prefix):
        roll[j] = world[j]
    code = apply_action(roll, action)
    if code != OK:
        return code, 0, 0, 0
    play_out(roll)
    record(roll, rec)
    r, o, cl = side_result(roll, rec, seat)
    return code, r, o, cl
