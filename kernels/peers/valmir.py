"""ValmirBP/card_game_buraco's AIs ``valmir_easy/medium/hard``.

With the conventions of :mod:`kernels.peers.common`.  They keep their
"sequences and sets of aces" play under our rules, where every set is legal:
they simply never make another set.
"""
from numba import carray, njit

from kernels.core.cards import N_COUNT
from kernels.core.melds import ANY_RANK, analyze
from kernels.core.rng import bounded
from kernels.engine.actions import (A_CREATE, A_DISCARD, A_LAYOFF, N_SET_MELDS, PH_DISCARD,
                                    PH_PICKUP)
from kernels.peers.common import (NEG, _low_rank_key, action_cards, dirties, discard_ok,
                                  finish_meld, fits_team, has_clean_burraco, is_wild,
                                  on_clean_burraco, pile_top, random_discard_of, single_layoff,
                                  take_if, trio_uses, uniform, wilds_of)
from kernels.strategies.api import _as_i64_pointer, legal
from kernels.table.state import G_PHASE, G_SEAT, G_TEAM
from kernels.table.work import views


# ---------------------------------------------------------------- valmir_*
@njit(cache=True, _nrt=False)
def valmir_allows(st, rv, team, seat, a, ace_sets_only, sel, scratch):
    """Is create or lay-off ``a`` one of valmir's moves?  Single-card lay-offs;
    new melds: sequences with at most one joker or 2 and sets of aces (any set
    when not ``ace_sets_only``) with at most one wild; never a move that makes
    a meld dirty before the team has a clean burraco, never one that dirties a
    clean burraco (R27, R28)."""
    if a >= A_CREATE:
        action_cards(a, sel)
        if a - A_CREATE < N_SET_MELDS:
            if ace_sets_only and analyze(sel, ANY_RANK)[3] != 0:
                return False
        if wilds_of(sel) > 1:
            return False
    elif not single_layoff(st, rv, team, seat, a, scratch):
        return False
    elif on_clean_burraco(st, team, a) and dirties(st, team, a, sel):
        return False
    if not has_clean_burraco(st, team) and dirties(st, team, a, sel):
        return False
    return True


@njit(cache=True, _nrt=False)
def valmir_pick(st, rv, team, seat, ids, n, want, how, ace_sets_only, rng, sel, scratch):
    """Among valmir's moves of the kind ``want`` (0 lay-offs, 1 new melds, 2
    both): ``how`` 0 a uniform one among the clean ones if any (else among
    all), 1 the first (lowest id: lowest meld, then hand order), 2 the one of
    most cards (ties to the lowest id).  Returns its id or -1."""
    k = 0
    best = -1
    bs = NEG
    for i in range(n):
        a = ids[i]
        if a < A_LAYOFF:
            continue
        is_new = a >= A_CREATE
        if (want == 0 and is_new) or (want == 1 and not is_new):
            continue
        if not valmir_allows(st, rv, team, seat, a, ace_sets_only, sel, scratch):
            continue
        if how == 0:
            s = 0.0 if dirties(st, team, a, sel) else 1.0
            if s > bs:
                bs = s
                k = 0
            if s == bs:
                k += 1
                if bounded(rng, k) == 0:
                    best = a     # reservoir sampling over the best class
            continue
        s = -float(i) if how == 1 else action_cards(a, sel) * 1e6 - i
        if s > bs:
            bs = s
            best = a
    return best


@njit(cache=True)
def valmir_chooser(work, level):
    """The three valmir levels (``level`` 0 easy, 1 medium, 2 hard).

    Pickup: when the top card fits an own meld or makes a 3-card sequence or
    set of aces with two hand cards, easy takes the pile with probability
    ``p_take``, medium and hard always; else the stock.  Meld phase (moves as
    :func:`valmir_allows`): easy a uniform move (clean first); medium a
    uniform lay-off, else a uniform new meld (clean first); hard the first
    lay-off, else the new meld of most cards.  Discard, never a wild while a
    natural may go: easy a uniform card; medium the first 3, 4 or 5, else a
    uniform card; hard by (3, 4, 5 first, then the lowest rank, the ace high).
    """
    st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg = views(work)
    seat = st.g[G_SEAT]
    team = st.g[G_TEAM + seat]
    p = params[seat]
    ph = st.g[G_PHASE]
    ids, n = legal(work)
    hc = st.hcnt[seat]
    ace_only = p[0] == 0
    if ph == PH_PICKUP:
        top = pile_top(st)
        useful = top >= 0 and (fits_team(st, team, top)
                               or trio_uses(hc, top, rv, 1 if ace_only else 2, False))
        if level == 0 and useful:
            useful = uniform(rng) < p[1]
        return take_if(ids, n, useful)
    if ph == PH_DISCARD:
        if level >= 1:
            best = -1
            bs = NEG
            for c in range(N_COUNT):
                if hc[c] == 0 or is_wild(c) or not discard_ok(st, rv, team, seat, c):
                    continue
                r = c % 13
                low = r == 2 or r == 3 or r == 4
                if level == 1:
                    if low:
                        return A_DISCARD + c
                    continue
                s = low * 100.0 - _low_rank_key(r)
                if s > bs:
                    bs = s
                    best = c
            if best >= 0:
                return A_DISCARD + best
        return random_discard_of(st, rv, team, seat, rng, True)
    if level == 0:
        a = valmir_pick(st, rv, team, seat, ids, n, 2, 0, ace_only, rng, sel, scratch)
    elif level == 1:
        a = valmir_pick(st, rv, team, seat, ids, n, 0, 0, ace_only, rng, sel, scratch)
        if a < 0:
            a = valmir_pick(st, rv, team, seat, ids, n, 1, 0, ace_only, rng, sel, scratch)
    else:
        a = valmir_pick(st, rv, team, seat, ids, n, 0, 1, ace_only, rng, sel, scratch)
        if a < 0:
            a = valmir_pick(st, rv, team, seat, ids, n, 1, 2, ace_only, rng, sel, scratch)
    return finish_meld(ids, n, a)


@njit(cache=True)
def valmir_easy_chooser(work):
    """``valmir_easy`` (:func:`valmir_chooser` level 0)."""
    return valmir_chooser(work, 0)


def valmir_easy_callback(work_addr, words):
    """:func:`valmir_easy_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return valmir_easy_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def valmir_medium_chooser(work):
    """``valmir_medium`` (:func:`valmir_chooser` level 1)."""
    return valmir_chooser(work, 1)


def valmir_medium_callback(work_addr, words):
    """:func:`valmir_medium_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return valmir_medium_chooser(carray(_as_i64_pointer(work_addr), words))


@njit(cache=True)
def valmir_hard_chooser(work):
    """``valmir_hard`` (:func:`valmir_chooser` level 2)."""
    return valmir_chooser(work, 2)


def valmir_hard_callback(work_addr, words):
    """:func:`valmir_hard_chooser`'s C callback (:func:`.common.callback` compiles it)."""
    return valmir_hard_chooser(carray(_as_i64_pointer(work_addr), words))
