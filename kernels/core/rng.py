"""Counter-based per-hand random generator (DESIGN.md section 3).

Hand ``i`` of a run with seed ``s`` draws every random number from a
xoshiro256** stream whose 256-bit state is derived by splitmix64 from
``(s, i)`` alone.  A hand's result therefore does not depend on thread count,
shard size or order, and any hand can be replayed from its index.
"""
import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_HAND_MULT = np.uint64(0xD1B54A32D192ED03)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)


@njit(cache=True, inline="always", _nrt=False)
def _mix(z):
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@njit(cache=True, inline="always", _nrt=False)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, _nrt=False)
def seed_hand(run_seed, hand_index, state):
    """Fill ``state`` (uint64[4], mutated) for hand ``hand_index`` of a run.

    Parameters
    ----------
    run_seed : uint64
        The run's seed.
    hand_index : int64
        Index of the hand in the run (0-based).
    state : numpy.ndarray
        ``uint64[4]``, overwritten with the xoshiro256** state.
    """
    x = _mix(np.uint64(run_seed) + _GOLDEN) ^ (np.uint64(hand_index) * _HAND_MULT)
    for k in range(4):
        x = x + _GOLDEN
        state[k] = _mix(x)
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = _GOLDEN      # all-zero state is the one forbidden state


@njit(cache=True, _nrt=False)
def next_u64(state):
    """Next 64-bit output of xoshiro256** (``state`` uint64[4] is advanced)."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@njit(cache=True, _nrt=False)
def bounded(state, n):
    """Uniform integer in ``0..n-1`` (int64), exact by rejection; n >= 1."""
    nn = np.uint64(n)
    bits = np.uint64(53)
    span = np.uint64(1) << bits
    limit = span - (span % nn)
    while True:
        r = next_u64(state) >> np.uint64(11)
        if r < limit:
            return np.int64(r % nn)
