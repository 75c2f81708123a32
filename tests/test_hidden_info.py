"""Strategies see only what their player may see (R11, issue 5).

From real mid-hand positions, the cards a player cannot see (the other three
hands, the stock order, the untaken pozzetti) are dealt again at random among
those places, sizes kept.  Every decision of the strategy (take the pile or
draw, each meld-phase action, the discard) must come out the same.
"""
import numpy as np
import pytest

import sim
from kernels import game as KG
from kernels import layout as L
from kernels import policies as KP
from kernels import state as KS
from kernels.cards import CIDX
from kernels.deal import shuffle_deal
from kernels.rng import seed_hand
from sim import strategies

RV = sim.Rules().to_vector()


def start(seed, hand_index):
    rng = np.empty(4, np.uint64)
    seed_hand(np.uint64(seed), np.int64(hand_index), rng)
    deck = np.empty(108, np.int64)
    dealer = shuffle_deal(rng, deck, np.int64(4))
    st = KS.new_state(0, 0)
    KG.setup_hand(st, deck, RV)
    return st, rng, (dealer + 1) % 4


def copy_state(st):
    return tuple(a.copy() for a in st)


def reshuffle_hidden(st, seat, gen):
    """Deal the cards ``seat`` cannot see again among their places (mutates ``st``)."""
    hand, hn, hcnt, stock, _pile, poz, *_rest = st
    g = st[10]
    places = []
    for s in range(4):
        if s != seat:
            places += [(hand, (s, i)) for i in range(hn[s])]
    places += [(stock, (i,)) for i in range(g[KS.G_SP], g[KS.G_SLEN])]
    for p in range(g[KS.G_POZ_NEXT], 2):
        places += [(poz, (p, i)) for i in range(g[KS.G_POZ_SIZE])]
    ids = [arr[ix] for arr, ix in places]
    gen.shuffle(ids)
    for (arr, ix), cid in zip(places, ids):
        arr[ix] = cid
    for s in range(4):
        if s != seat:
            hcnt[s] = 0
            for i in range(hn[s]):
                hcnt[s, CIDX[hand[s, i]]] += 1


def own_view(st, seat):
    """What the decisions produce, as far as the player can see: own hand, tables, pile."""
    hand, hn, hcnt, _stock, pile, _poz, mcnt, _mids, minfo, nm, g, *_ = st
    return (hcnt[seat].tolist(), sorted(hand[seat, :hn[seat]].tolist()), mcnt.tolist(),
            minfo.tolist(), nm.tolist(), pile[:g[KS.G_PN]].tolist())


def decisions_agree(st, seat, kind, p, rng, gen):
    """Check pickup, meld steps and discard of one turn against a hidden-card reshuffle;
    then play the turn on ``st`` for real. Returns the number of decisions compared."""
    sel = np.zeros(53, np.int64)
    scratch = np.zeros(53, np.int64)
    vals = np.zeros(53, np.float64)
    cand = np.zeros((KG.CAND_ROWS, 4), np.int64)
    other = copy_state(st)
    reshuffle_hidden(other, seat, gen)
    r1, r2 = rng.copy(), rng.copy()
    if kind == L.POLICY_RANDOM:
        t1, t2 = KP.rand_pickup(st, r1), KP.rand_pickup(other, r2)
    else:
        t1, t2 = KP.heur_pickup(st, RV, seat, p), KP.heur_pickup(other, RV, seat, p)
    assert t1 == t2, "pickup decision depends on hidden cards"
    n = 1
    # the rest of the turn on a copy: take the pile or draw, then meld step by step
    a = copy_state(st)
    if t1:
        KS.take_pile(a, seat)
    else:
        KS.draw_stock(a, seat)            # the drawn card is now the player's
    b = copy_state(a)
    reshuffle_hidden(b, seat, gen)
    while True:
        if kind == L.POLICY_RANDOM:
            acted_a = KP.rand_meld_step(a, RV, seat, r1, sel, scratch, cand)
            acted_b = KP.rand_meld_step(b, RV, seat, r2, sel, scratch, cand)
        else:
            acted_a = KP.heur_meld_step(a, RV, seat, p, sel, scratch)
            acted_b = KP.heur_meld_step(b, RV, seat, p, sel, scratch)
        n += 1
        assert acted_a == acted_b and own_view(a, seat) == own_view(b, seat), \
            "meld-phase action depends on hidden cards"
        if not acted_a or a[1][seat] == 0:
            break
        reshuffle_hidden(b, seat, gen)
    if a[1][seat] > 0:
        if kind == L.POLICY_RANDOM:
            d1, d2 = KP.rand_discard(a, RV, seat, r1), KP.rand_discard(b, RV, seat, r2)
        else:
            d1 = KP.heur_discard(a, RV, seat, p, vals, scratch)
            d2 = KP.heur_discard(b, RV, seat, p, vals, scratch)
        n += 1
        assert d1 == d2, "discard depends on hidden cards"
    end = KG.play_turn(st, RV, seat, kind, p, rng, sel, scratch, vals, cand,
                       np.zeros(108 + 53, np.int64), np.zeros(53, np.int64), 0)
    return n, end


@pytest.mark.parametrize("spec", ["heuristic", "random",
                                  "heuristic:pile_threshold=3,use_wild_to_meld=0"])
def test_decisions_do_not_depend_on_hidden_cards(spec):
    _, kind, p = strategies.resolve(spec)
    gen = np.random.default_rng(20261129)
    compared = 0
    for hand_index in range(40 if kind == L.POLICY_RANDOM else 120):
        st, rng, seat = start(77, hand_index)
        end = -1
        while end < 0:
            n, end = decisions_agree(st, seat, kind, p, rng, gen)
            compared += n
            seat = (seat + 1) % 4
    assert compared > 2_000


def test_the_check_notices_a_peeking_decision():
    """The reshuffle does change what a peeking player would see: the next opponent's
    hand and the stock's top card differ after it (so the test above can fail)."""
    gen = np.random.default_rng(1)
    changed = 0
    for hand_index in range(20):
        st, _rng, seat = start(5, hand_index)
        other = copy_state(st)
        reshuffle_hidden(other, seat, gen)
        nxt = (seat + 1) % 4
        changed += st[2][nxt].tolist() != other[2][nxt].tolist()
        changed += st[3][st[10][KS.G_SP]] != other[3][other[10][KS.G_SP]]
        assert own_view(st, seat) == own_view(other, seat)
    assert changed >= 30
