"""Sampled worlds: a hand dealt again where one seat cannot see.

A seat knows, by R11: its own hand, every meld, the whole discard pile, every
hand size, the stock size, which pozzetti are taken, and the cards each other
seat took with the pile and still holds (``st.known``).  Everything else (the
other hands apart from their known cards, the stock order and the untaken
pozzetti) is unseen.  :func:`sample_world` deals the unseen card ids again,
uniformly (a Fisher-Yates shuffle of the ids over the unseen places), and
keeps every known fact and every count.
"""
import numpy as np
from numba import njit

from kernels.core.cards import CIDX, N_CARDS, N_COUNT
from kernels.core.rng import bounded, seed_hand
from kernels.table.state import (G_BARRED, G_N_POZZETTI, G_OPEN_ROW, G_NEXT_POZZETTO,
                                 G_POZZETTO_SIZE, G_SEAT, G_STOCK_END, G_STOCK_TOP)
from kernels.table.work import views

# unseen places: where (0 a hand, 1 the stock, 2 a pozzetto), first index, second index
PLACE_HAND = 0
PLACE_STOCK = 1
PLACE_POZ = 2


@njit(cache=True)
def unseen_places(work, seat, places):
    """Fill ``places`` (int64[108, 3], overwritten) with the places whose card
    ``seat`` cannot see, in a fixed order (other hands seat by seat, then the
    stock top first, then the untaken pozzetti); returns their number.

    In another seat's hand, the first cards of each face in hand order stand
    for its known copies (``st.known``) and stay seen; the card the seat to
    move took as a one-card pile (R36, ``G_BARRED``) stands for itself.
    """
    st = views(work).state
    hand, hn, known, g = st.hand, st.hn, st.known, st.g
    keep = np.zeros(N_COUNT, np.int64)
    n = 0
    for s in range(4):
        if s == seat:
            continue
        for f in range(N_COUNT):
            keep[f] = known[s, f]
        # the card taken as a one-card pile (R36) is known by its own id, not only its face
        kept = -1
        if s == g[G_SEAT] and g[G_BARRED] >= 0 and keep[CIDX[g[G_BARRED]]] > 0:
            for i in range(hn[s]):
                if hand[s, i] == g[G_BARRED]:
                    kept = i
                    keep[CIDX[g[G_BARRED]]] -= 1
                    break
        for i in range(hn[s]):
            if i == kept:
                continue
            c = CIDX[hand[s, i]]
            if keep[c] > 0:
                keep[c] -= 1
                continue
            places[n, 0] = PLACE_HAND
            places[n, 1] = s
            places[n, 2] = i
            n += 1
    for i in range(g[G_STOCK_TOP], g[G_STOCK_END]):
        places[n, 0] = PLACE_STOCK
        places[n, 1] = i
        places[n, 2] = 0
        n += 1
    for p in range(g[G_NEXT_POZZETTO], g[G_N_POZZETTI]):
        for i in range(g[G_POZZETTO_SIZE + p]):
            places[n, 0] = PLACE_POZ
            places[n, 1] = p
            places[n, 2] = i
            n += 1
    return n


@njit(cache=True)
def _card_at(st, places, k):
    where, a, b = places[k, 0], places[k, 1], places[k, 2]
    if where == PLACE_HAND:
        return st.hand[a, b]
    if where == PLACE_STOCK:
        return st.stock[a]
    return st.poz[a, b]


@njit(cache=True)
def _put(st, places, k, cid):
    where, a, b = places[k, 0], places[k, 1], places[k, 2]
    if where == PLACE_HAND:
        st.hand[a, b] = cid
    elif where == PLACE_STOCK:
        st.stock[a] = cid
    else:
        st.poz[a, b] = cid


@njit(cache=True)
def sample_world(src, seat, seed, index, dst):
    """Deal the cards ``seat`` cannot see in ``src`` again, into ``dst``.

    Parameters
    ----------
    src : numpy.ndarray
        A work buffer (int64, :mod:`kernels.table.work`); not mutated.
    seat : int
        The seat whose knowledge is kept.
    seed, index : int
        The sample's random stream: ``(seed, index)`` picks the permutation
        (uint64 seed, int64 index, as a hand's stream: kernels.core.rng).  The
        hand's own generator in ``dst`` is reseeded from the same stream, so
        random strategies played on in different worlds differ too.
    dst : numpy.ndarray
        int64 buffer of ``src``'s length; overwritten with the world.

    Returns
    -------
    int
        The number of unseen places (cards) dealt again.
    """
    for i in range(src.shape[0]):
        dst[i] = src[i]
    return resample_unseen(dst, seat, seed, index)


@njit(cache=True)
def resample_unseen(work, seat, seed, index):
    """:func:`sample_world` in place: deal the cards ``seat`` cannot see in
    ``work`` (int64 work buffer, mutated) again from the stream ``(seed, index)``
    and reseed its generator; returns the number of unseen places.

    ``sample_world(src, seat, seed, index, dst)`` is a copy of ``src`` into
    ``dst`` followed by this call, so the worlds are the same; only the
    state and the generator words of ``work`` are read and written (the
    batch of rollouts in :mod:`kernels.search.rollouts` copies just those).
    """
    parts = views(work)
    st, rng = parts.state, parts.rng
    places = np.empty((N_CARDS, 3), np.int64)
    n = unseen_places(work, seat, places)
    ids = np.empty(n, np.int64)
    for k in range(n):
        ids[k] = _card_at(st, places, k)
    seed_hand(np.uint64(seed), np.int64(index), rng)
    deal_ids(st, places, ids, n, seat, rng)
    reseed_world(work, seed, index)
    return n


@njit(cache=True)
def deal_ids(st, places, ids, n, seat, rng):
    """Shuffle the card ids ``ids[:n]`` (int64, mutated) by Fisher-Yates from the
    generator ``rng`` (mutated), put the ``k``-th at place ``places[k]``
    (:func:`unseen_places`) of the state ``st`` (mutated) and count the hands
    of the seats other than ``seat`` again."""
    for k in range(n - 1, 0, -1):                    # Fisher-Yates
        j = bounded(rng, np.int64(k + 1))
        t = ids[k]
        ids[k] = ids[j]
        ids[j] = t
    for k in range(n):
        _put(st, places, k, ids[k])
    recount_hands(st, seat)


@njit(cache=True)
def recount_hands(st, seat):
    """Count again the hands (``st.hcnt``, mutated) of the seats other than ``seat``, after
    their cards were dealt again."""
    for s in range(4):
        if s == seat:
            continue
        for f in range(N_COUNT):
            st.hcnt[s, f] = 0
        for i in range(st.hn[s]):
            st.hcnt[s, CIDX[st.hand[s, i]]] += 1


@njit(cache=True)
def reseed_world(work, seed, index):
    """The part of :func:`resample_unseen` that does not deal: reseed the
    generator of ``work`` (int64 work buffer, mutated) from the stream
    ``(seed, index)`` for the world's future random choices, and start a
    lay-off of several cards under way in a row of the world's own log.

    :func:`resample_unseen` ends with it; alone it makes the "true" world of
    index ``index`` (the hidden cards as they are: ``kernels.search.rollouts``,
    ``worlds_mode`` 1), whose random stream is the sampled world's.
    """
    parts = views(work)
    st, rng = parts.state, parts.rng
    # a lay-off of several cards under way goes on in a row of the world's own log
    st.g[G_OPEN_ROW] = 0
    # the world's future random choices come from the sample's stream as well
    seed_hand(np.uint64(seed), np.int64(index) ^ np.int64(0x5DEECE66D), rng)
