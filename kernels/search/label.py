"""Labelled hands: the ``rollout`` search on every seat, its values kept per searched decision.

:func:`label_hand` deals one hand (:func:`kernels.play.game.new_hand`, as ``simulate`` deals
it) and plays it to its end as :func:`kernels.play.game.play_turn` plays a ``rollout`` seat:
the strategy's action (:func:`kernels.search.player.rollout_search`, the function the
``rollout`` chooser calls), then :func:`kernels.engine.actions.apply_action`.  At every
*searched* decision (two candidates or more: the search ran) it keeps a row: the turn, the
seat, the phase, the seat's observation tensor before the action
(:func:`kernels.engine.observe.observation_tensor`, what R11 lets the seat know) as its
nonzero entries, the candidates with the worlds, the sum and the sum of squares of each
one's results, and the action played.  The hand's record
(:func:`kernels.play.game.record`) is the one ``simulate`` writes for that deal with the same
strategy on every seat: the same kernels play it.

The search is called directly, not through the chooser's C callback, so nothing here
depends on an address of this process (a Dask worker labels with its own compiled copy).

Imports :mod:`kernels.play` and below.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.engine.actions import (ERR_ILLEGAL_CHOICE, PH_DISCARD, PH_OVER, apply_action,
                                    finish_hand)
from kernels.engine.legal import OK
from kernels.engine.observe import TENSOR_SIZE, observation_tensor
from kernels.play.game import new_hand, record
from kernels.search.player import rollout_search
from kernels.table.state import G_ERRORS, G_LEN, G_PHASE, G_SEAT, G_TURN, state_of, view_i64
from kernels.table.work import EV_AT, W_EV_CARDS, W_EV_ROWS, W_G, work_words

#: columns of the ``rows`` array of :func:`label_hand` (one row per searched decision)
R_TURN, R_SEAT, R_PHASE, R_CHOSEN, R_CANDIDATES, R_NONZERO = range(6)
N_ROW = 6


@njit(cache=True, inline="always")
def _room(a, need):
    """``a`` itself when it holds ``need`` entries, else a copy at least twice as long."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def label_hand(run_seed, hand_index, rv, kinds, params, work, rec):
    """Play hand ``hand_index`` of the run seeded ``run_seed`` with the ``rollout`` search
    on every seat and keep its searched decisions.

    Parameters
    ----------
    run_seed : uint64
        The run seed of the deal (:func:`kernels.core.rng.seed_hand`).
    hand_index : int64
        The deal's hand index.
    rv : numpy.ndarray
        int64[N_RULES], the rules vector.
    kinds : numpy.ndarray
        int64[4], written into the work buffer (read by nothing here: every seat plays
        :func:`kernels.search.player.rollout_search`).
    params : numpy.ndarray
        float64[4, N_PARAMS], each seat's ``rollout`` parameter row.
    work : numpy.ndarray
        int64[>= work_words(0, 0)], overwritten with the hand.
    rec : numpy.ndarray
        int32[N_REC], the hand's record (mutated).

    Returns
    -------
    tuple of numpy.ndarray
        ``(rows, cand, worlds, total, square, obs_index, obs_value)``: ``rows``
        int64[R, N_ROW], per searched decision its turn (``g[G_TURN]``), seat, phase,
        action played, number of candidates and number of nonzero observation entries
        (columns ``R_*``); the decisions' candidates one after the other (int64), with
        each one's worlds (int64), sum of results and sum of squared results (float64,
        points); the observations' nonzero entries one after the other, their indices
        (int64, increasing within a decision) and values (float32).

    Notes
    -----
    jit-compiled by Numba, ``nogil`` (hands run on threads at once).
    """
    new_hand(run_seed, hand_index, np.int64(-1), rv, kinds, params, np.int64(0), np.int64(0),
             np.int64(0), work)
    g = view_i64(work, W_G, G_LEN)
    n = rv[L.RV_NUM_PLAYERS]
    obs = np.zeros(TENSOR_SIZE, np.float32)
    rows = np.zeros((64, N_ROW), np.int64)
    cand = np.zeros(512, np.int64)
    worlds = np.zeros(512, np.int64)
    total = np.zeros(512, np.float64)
    square = np.zeros(512, np.float64)
    oi = np.zeros(4096, np.int64)
    ov = np.zeros(4096, np.float32)
    nr = 0
    nc = 0
    no = 0
    while g[G_PHASE] != PH_OVER:
        seat = g[G_SEAT]
        turn = g[G_TURN]
        ph = g[G_PHASE]
        a, cs, ws, ts, ss = rollout_search(work)
        m = cs.shape[0]
        if m >= 2:
            observation_tensor(work, seat, n, obs)     # the state before the action
            nz = 0
            for k in range(TENSOR_SIZE):
                if obs[k] != 0.0:
                    nz += 1
            if nr == rows.shape[0]:
                bigger = np.zeros((2 * nr, N_ROW), np.int64)
                bigger[:nr] = rows
                rows = bigger
            rows[nr, R_TURN] = turn
            rows[nr, R_SEAT] = seat
            rows[nr, R_PHASE] = ph
            rows[nr, R_CHOSEN] = a
            rows[nr, R_CANDIDATES] = m
            rows[nr, R_NONZERO] = nz
            nr += 1
            cand = _room(cand, nc + m)
            worlds = _room(worlds, nc + m)
            total = _room(total, nc + m)
            square = _room(square, nc + m)
            for c in range(m):
                cand[nc + c] = cs[c]
                worlds[nc + c] = ws[c]
                total[nc + c] = ts[c]
                square[nc + c] = ss[c]
            nc += m
            oi = _room(oi, no + nz)
            ov = _room(ov, no + nz)
            for k in range(TENSOR_SIZE):
                if obs[k] != 0.0:
                    oi[no] = k
                    ov[no] = obs[k]
                    no += 1
        code = apply_action(work, a)
        if code != OK:                                  # as play_turn: never, for the search
            g[G_ERRORS] |= L.ERR_NO_DISCARD if g[G_PHASE] == PH_DISCARD else ERR_ILLEGAL_CHOICE
            finish_hand(state_of(work, EV_AT, work[W_EV_ROWS], work[W_EV_CARDS]), seat,
                        np.int64(L.END_TURN_CAP))
    record(work, rec)
    return (rows[:nr].copy(), cand[:nc].copy(), worlds[:nc].copy(), total[:nc].copy(),
            square[:nc].copy(), oi[:no].copy(), ov[:no].copy())


def new_work():
    """A work buffer for :func:`label_hand` (int64, no event log)."""
    return np.zeros(work_words(0, 0), np.int64)
