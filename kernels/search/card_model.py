"""The card-location model: where an unseen card is, as a player infers it (R11).

A seat cannot see the other hands, the stock and the untaken pozzetti (R11), but it
saw what the other seats did.  The model gives each unseen card a weight per other
seat, ``exp(logit)``, relative to the stock and the pozzetti (weight 1): a logistic
(softmax) model whose logit of face ``f`` in seat ``s``'s hand is ``weights . x[s, f]``,
with the :data:`FEATURES` below, all read from the public part of the state (the
discard pile, the melds, ``st.known``, the seat to move), never from a hidden card:

* the relative seat (an intercept each for the next seat, the partner, the previous
  seat) and whether the face is a wild (a joker or a two, R12);
* whether a card of the face lays off on a meld of the seat's own side, or of another
  side (R24; the engine's test on the melds' stored readings);
* the face's relation (:data:`RELATIONS`) to the seat's discards still in the pile
  (its latest one apart), to the pile's top card each time the seat passed on the
  pile (drew from the stock instead), to the other cards of the pile at those passes,
  and to the cards it is known to hold (taken with the pile, ``st.known``).

Who discarded each pile card, and who passed on it, follows from the state alone:
every turn ends with one discard on the pile (R37) and turns go round the table
(R5), so from the bottom of the pile (the up-card, R10, until the pile is first taken;
else the last taker's discard) each card was discarded by the seat after the previous
card's discarder, and the seat after a card's discarder passed on the pile with that
card on top.  The state keeps no record of older piles (a taken pile is public, R11,
but only ``st.known`` remains of it).

:func:`card_features` computes the features, :func:`card_logits` the logits with the
shipped weights (:mod:`kernels.search.card_weights`), and :func:`deal_ids_weighted`
deals the unseen card ids with them, keeping every count and every known card as
:func:`kernels.table.worlds.deal_ids` does; :func:`resample_unseen_weighted` is
:func:`kernels.table.worlds.resample_unseen` with it.  With every logit 0 the weighted
deal is the uniform one in distribution (every assignment of the ids to the unseen
places equally likely), though not draw for draw.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import CIDX, JOKER, N_CARDS, N_COUNT
from kernels.core.rng import bounded, next_u64, seed_hand
from kernels.engine.actions import PH_PICKUP
from kernels.search.card_weights import WEIGHTS
from kernels.strategies.learned_features import _state_side_melds
from kernels.table.state import (G_PHASE, G_PILE_PICKUPS, G_PILE_SIZE, G_SEAT, G_TEAM,
                                 G_TOOK_PILE, NTEAMS)
from kernels.table.work import W_RV, views
from kernels.table.worlds import PLACE_HAND, recount_hands, reseed_world, unseen_places

#: relations of a natural face to another natural face (twos and jokers have none):
#: the other copy of the same face, a neighbour in its suit (ranks one apart, the ace
#: next to the king too, R4), two ranks apart in its suit (the ace and the three too), the
#: same rank in another suit
RELATIONS = ("same", "adj", "near2", "rank")
N_REL = 4
#: the evidence whose relations to a face are counted, in order (see the module docstring)
EVIDENCE = ("last_discard", "discards", "pass_top", "pass_pile", "known")
N_EVIDENCE = 5
#: the features of (seat, face), in order: 6 single ones, then per evidence its 4 relations
FEATURES = (("seat_next", "seat_partner", "seat_prev", "wild", "lays_own", "lays_opp")
            + tuple(f"{e}_{r}" for e in EVIDENCE for r in RELATIONS))
N_FEATURES = len(FEATURES)
F_SEAT = 0              # + relative seat - 1
F_WILD = 3
F_LAYS_OWN = 4
F_LAYS_OPP = 5
F_EVIDENCE = 6          # + N_REL * evidence + relation
CAP = 3.0               # a relation count counts up to this many cards
SWAPS = 10              # Metropolis swaps per unseen place in another seat's hand
assert N_FEATURES == F_EVIDENCE + N_REL * N_EVIDENCE == 26
assert WEIGHTS.shape == (N_FEATURES,)


def _relation_table():
    """int64[53, 53]: :data:`RELATIONS` index of face ``q`` seen from face ``f``, -1 none."""
    rel = np.full((N_COUNT, N_COUNT), -1, np.int64)
    for f in range(52):
        for q in range(52):
            rf, rq = f % 13, q % 13
            if rf == 1 or rq == 1:          # twos are wilds (R12)
                continue
            if f == q:
                rel[f, q] = 0
            elif f // 13 == q // 13:
                d = abs(rf - rq)
                d = min(d, 13 - d)          # the ace is next to the king too (R4)
                if d == 1:
                    rel[f, q] = 1
                elif d == 2:
                    rel[f, q] = 2
            elif rf == rq:
                rel[f, q] = 3
    return rel


REL = _relation_table()


@njit(cache=True)
def pile_history(work, who, passer):
    """Who discarded each card of the discard pile and who passed on it.

    Parameters
    ----------
    work : numpy.ndarray
        int64 work buffer (:mod:`kernels.table.work`); not mutated.
    who : numpy.ndarray
        int64[108], written for the pile's cards ``0 .. k-1`` (bottom first): the seat
        that discarded ``pile[i]``, or -1 for the up-card (R10, the bottom card while
        nobody has taken the pile yet).
    passer : numpy.ndarray
        int64[108], written for ``0 .. k-1``: the seat that passed on the pile with
        ``pile[i]`` on top (drew from the stock, R33), or -1 (the top card while the
        seat to move has not drawn yet, or after it took the pile).

    Returns
    -------
    int
        ``k``, the pile's size (cards).

    Notes
    -----
    Every turn ends with one discard (R37) and the turn passes to the next seat (R5),
    so the card ``j`` places below the top was discarded by the seat ``j + 1`` places
    before the seat to move.  Reads only public facts (R11).
    """
    st = views(work).state
    g = st.g
    n = work[W_RV + L.RV_NUM_PLAYERS]
    k = g[G_PILE_SIZE]
    cur = g[G_SEAT]
    takes = 0
    for t in range(NTEAMS):
        takes += g[G_PILE_PICKUPS + t]
    for i in range(k):
        j = k - 1 - i
        who[i] = ((cur - 1 - j) % n + n) % n
        passer[i] = -1
    if k > 0 and takes == 0:
        who[0] = -1
    for i in range(k - 1):
        passer[i] = who[i + 1]
    if k > 0 and g[G_PHASE] != PH_PICKUP and g[G_TOOK_PILE] == 0:
        passer[k - 1] = cur
    return k


@njit(cache=True)
def card_features(work, seat, x):
    """The model's features of every (other seat, face) seen from ``seat``.

    Parameters
    ----------
    work : numpy.ndarray
        int64 work buffer at a decision (:mod:`kernels.table.work`); not mutated.
        Only public facts are read (R11): the pile, the melds, ``st.known``, the
        counters.
    seat : int
        The seat whose view it is.
    x : numpy.ndarray
        float64[4, 53, N_FEATURES], overwritten: ``x[s, f]`` the features of face ``f``
        in seat ``s``'s hand (:data:`FEATURES`); the row of ``seat`` and of seats not
        in play are 0.
    """
    st = views(work).state
    g = st.g
    n = work[W_RV + L.RV_NUM_PLAYERS]
    x[:, :, :] = 0.0
    who = np.empty(N_CARDS, np.int64)
    passer = np.empty(N_CARDS, np.int64)
    k = pile_history(work, who, passer)
    ev = np.zeros((4, N_EVIDENCE, N_COUNT), np.float64)
    # the discards: the latest of each seat apart
    last = np.full(4, -1, np.int64)
    for i in range(k):
        if who[i] >= 0:
            last[who[i]] = i
    upto = np.full(4, -1, np.int64)      # the highest pile card each seat passed on
    for i in range(k):
        f = CIDX[st.pile[i]]
        d = who[i]
        if d >= 0:
            ev[d, 0 if i == last[d] else 1, f] += 1.0
        p = passer[i]
        if p >= 0:
            ev[p, 2, f] += 1.0
            upto[p] = i
    for s in range(n):
        for i in range(upto[s] + 1):
            if passer[i] != s:
                ev[s, 3, CIDX[st.pile[i]]] += 1.0
        for f in range(N_COUNT):
            ev[s, 4, f] = st.known[s, f]
    lays = np.zeros((NTEAMS, N_COUNT), np.int64)
    flags = np.zeros(3, np.int64)
    for t in range(NTEAMS):
        _state_side_melds(st, t, lays[t], flags)
    for s in range(n):
        if s == seat:
            continue
        r = ((s - seat) % n + n) % n           # 1 .. n-1
        team = g[G_TEAM + s]
        for f in range(N_COUNT):
            row = x[s, f]
            row[F_SEAT + min(r, 3) - 1] = 1.0
            if f == JOKER or f % 13 == 1:
                row[F_WILD] = 1.0
            if lays[team, f] != 0:
                row[F_LAYS_OWN] = 1.0
            for t in range(NTEAMS):             # a side without melds lays nothing off
                if t != team and lays[t, f] != 0:
                    row[F_LAYS_OPP] = 1.0
            for e in range(N_EVIDENCE):
                for q in range(N_COUNT):
                    c = ev[s, e, q]
                    if c != 0.0:
                        rl = REL[f, q]
                        if rl >= 0:
                            row[F_EVIDENCE + N_REL * e + rl] += c
            for j in range(F_EVIDENCE, N_FEATURES):
                if row[j] > CAP:
                    row[j] = CAP


@njit(cache=True)
def card_logits(work, seat, weights, logit):
    """The model's logit of each face in each other seat's hand, seen from ``seat``.

    ``work`` (int64 work buffer, not mutated) and ``seat`` as for
    :func:`card_features`; ``weights`` float64[N_FEATURES]; ``logit`` float64[4, 53]
    overwritten: ``weights . x[s, f]`` for the other seats in play, 0 elsewhere (the
    stock and the pozzetti have logit 0).
    """
    x = np.empty((4, N_COUNT, N_FEATURES), np.float64)
    card_features(work, seat, x)
    for s in range(4):
        for f in range(N_COUNT):
            v = 0.0
            for j in range(N_FEATURES):
                v += weights[j] * x[s, f, j]
            logit[s, f] = v


@njit(cache=True)
def card_odds(work, seat, odds):
    """``exp`` of :func:`card_logits` with the shipped :data:`WEIGHTS` into ``odds``
    (float64[4, 53], overwritten): the weights :func:`deal_ids_weighted` deals with."""
    card_logits(work, seat, WEIGHTS, odds)
    for s in range(4):
        for f in range(N_COUNT):
            odds[s, f] = np.exp(odds[s, f])


@njit(cache=True)
def _uniform(rng):
    """A float64 in [0, 1) from 53 bits of the generator ``rng`` (uint64[4], advanced)."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def deal_ids_weighted(st, places, ids, n, seat, rng, odds):
    """:func:`kernels.table.worlds.deal_ids` with the card-location model's weights.

    The target is the deal whose probability is proportional to the product, over
    the unseen cards, of ``odds[s, face]`` for a card in seat ``s``'s hand (1 in the
    stock or a pozzetto), among the deals that keep every count.  The ids ``ids[:n]``
    (int64, mutated) are shuffled by Fisher-Yates from ``rng``; then, in that order,
    each card goes to one of the unseen places left (``places[:n]``,
    :func:`kernels.table.worlds.unseen_places`): to another seat ``s``'s hand with
    probability proportional to ``r_s * odds[s, face]`` and to the stock and
    pozzetti with probability proportional to ``r_0`` (``r``: the places left in
    each), and there to one of them uniformly.  Dealt that way, a card dealt late may
    find no room left where its odds are high; :data:`SWAPS` Metropolis steps per
    hand place follow (swap the cards of a random hand place and a random place of
    another location with probability ``min(1, ratio of the products)``), which
    move the deal towards the target.  Every count is kept exactly (each place gets
    one card: hand sizes, the stock, the pozzetti) and the seen cards (``seat``'s
    hand, the known cards and the R36 card, which are not among the places) stay
    (R11).  With all odds 1 every assignment is equally likely, as with
    :func:`kernels.table.worlds.deal_ids` (every swap is taken, and swaps keep the
    uniform deal uniform).  The hands of the seats other than ``seat`` are counted
    again (``st.hcnt``).

    Parameters
    ----------
    st : State
        The state (:mod:`kernels.table.state`), mutated at the places.
    places : numpy.ndarray
        int64[108, 3], the unseen places.
    ids : numpy.ndarray
        int64[>= n], the unseen card ids (mutated: shuffled).
    n : int
        The number of unseen places.
    seat : int
        The seat whose view is kept.
    rng : numpy.ndarray
        uint64[4], the generator (advanced).
    odds : numpy.ndarray
        float64[4, 53], per seat and face the weight of a card in that seat's hand
        relative to the stock (:func:`card_odds`); positive.
    """
    for k in range(n - 1, 0, -1):                    # Fisher-Yates: the order of dealing
        j = bounded(rng, np.int64(k + 1))
        t = ids[k]
        ids[k] = ids[j]
        ids[j] = t
    # the places of each location (0: stock and pozzetti, 1 + s: seat s's hand), as lists
    lst = np.empty((5, N_CARDS), np.int64)
    left = np.zeros(5, np.int64)
    for k in range(n):
        loc = 1 + places[k, 1] if places[k, 0] == PLACE_HAND else 0
        lst[loc, left[loc]] = k
        left[loc] += 1
    w = np.empty(5, np.float64)
    card = np.empty(n, np.int64)                     # the card dealt to each place
    loc_of = np.empty(n, np.int64)
    hand_at = np.empty(n, np.int64)
    for k in range(n):
        cid = ids[k]
        f = CIDX[cid]
        total = 0.0
        for loc in range(5):
            if left[loc] == 0:
                w[loc] = 0.0
            elif loc == 0:
                w[loc] = left[loc]
            else:
                w[loc] = left[loc] * odds[loc - 1, f]
            total += w[loc]
        u = _uniform(rng) * total
        pick = -1
        for loc in range(5):
            if w[loc] > 0.0:
                pick = loc                           # the last possible one, if u rounds up
                if u < w[loc]:
                    break
                u -= w[loc]
        j = bounded(rng, left[pick])
        at = lst[pick, j]
        lst[pick, j] = lst[pick, left[pick] - 1]
        left[pick] -= 1
        card[at] = cid
        loc_of[at] = pick
    # Metropolis swaps between two places of different locations, towards the deal whose
    # probability is proportional to the product of the cards' odds where they lie
    hands = 0
    for k in range(n):
        if loc_of[k] != 0:
            hand_at[hands] = k
            hands += 1
    if hands > 0:
        for _ in range(SWAPS * hands):
            k1 = hand_at[bounded(rng, np.int64(hands))]
            k2 = bounded(rng, np.int64(n))
            l1 = loc_of[k1]
            l2 = loc_of[k2]
            if l1 == l2:
                continue
            f1 = CIDX[card[k1]]
            f2 = CIDX[card[k2]]
            o11 = odds[l1 - 1, f1]
            o12 = odds[l1 - 1, f2]
            o21 = odds[l2 - 1, f1] if l2 > 0 else 1.0
            o22 = odds[l2 - 1, f2] if l2 > 0 else 1.0
            ratio = (o12 * o21) / (o11 * o22)
            if ratio >= 1.0 or _uniform(rng) < ratio:
                t = card[k1]
                card[k1] = card[k2]
                card[k2] = t
    for at in range(n):
        cid = card[at]
        where, a, b = places[at, 0], places[at, 1], places[at, 2]
        if where == PLACE_HAND:
            st.hand[a, b] = cid
        elif where == 1:
            st.stock[a] = cid
        else:
            st.poz[a, b] = cid
    recount_hands(st, seat)


@njit(cache=True)
def resample_unseen_weighted(work, seat, seed, index, odds):
    """:func:`kernels.table.worlds.resample_unseen` dealing by :func:`deal_ids_weighted`
    with ``odds`` (float64[4, 53], :func:`card_odds` of the decision): the cards
    ``seat`` cannot see in ``work`` (int64 work buffer, mutated) dealt again from the
    stream ``(seed, index)``, the generator reseeded as there; returns the number of
    unseen places."""
    parts = views(work)
    st, rng = parts.state, parts.rng
    places = np.empty((N_CARDS, 3), np.int64)
    n = unseen_places(work, seat, places)
    ids = np.empty(n, np.int64)
    for k in range(n):
        where, a, b = places[k, 0], places[k, 1], places[k, 2]
        if where == PLACE_HAND:
            ids[k] = st.hand[a, b]
        elif where == 1:
            ids[k] = st.stock[a]
        else:
            ids[k] = st.poz[a, b]
    seed_hand(np.uint64(seed), np.int64(index), rng)
    deal_ids_weighted(st, places, ids, n, seat, rng, odds)
    reseed_world(work, seed, index)
    return n
