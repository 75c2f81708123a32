"""The two steps of a rollout on a sampled world (issue 14), as inlined helpers.

:func:`load_world` deals world ``index`` for the seat to move into a buffer and gives
every seat the rollout strategy; :func:`roll_candidate` plays one candidate on a copy
of it to the end of the hand and scores it.  :func:`kernels.match_rollouts.match_rollouts`
is built from them; they are the loop body of :func:`kernels.rollouts.rollouts` (same
worlds, same results), which can call them too.
"""
from numba import njit

from . import layout as L
from .actions import apply_action
from .game import play_out, record
from .legal import OK
from .rollouts import side_result
from .state import view_f64, view_i64
from .work import W_DEBUG, W_KINDS, W_PARAMS
from .worlds import resample_unseen


@njit(cache=True, inline="always")
def load_world(src, world, seat, seed, index, kinds, params, debug, prefix):
    """World ``index`` into ``world`` (int64 buffer, its first ``prefix`` words
    overwritten): ``src``'s words, the cards ``seat`` cannot see dealt again from the
    stream ``(seed, index)`` (:func:`kernels.worlds.resample_unseen`), every seat's
    policy kind ``kinds`` (int64[4]) and parameter row ``params`` (float64[4,
    N_PARAMS]), and the debug flag ``debug``."""
    for j in range(prefix):
        world[j] = src[j]
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
        :func:`kernels.rollouts.side_result` for ``seat``.
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
