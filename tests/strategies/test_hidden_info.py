"""Strategies see only what their player may see (R11).

From real mid-hand positions, the cards a player cannot see (the other three
hands, the stock order, the untaken pozzetti) are dealt again at random among
those places, sizes kept.  Every decision of the strategy (take the pile or
draw, each meld-phase action, the discard) must come out the same.
"""
import numpy as np
import pytest

import sim
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.core.cards import CIDX
from sim.play.game import Game


def reshuffle_hidden(game, seat, gen):
    """Deal the cards ``seat`` cannot see again among their places (mutates ``game``):
    the other hands (except the cards known to be there, R11), the stock and the
    untaken pozzetti; every count is kept."""
    st = game.state
    hand, hn, hcnt, stock, poz, known, g = st.hand, st.hn, st.hcnt, st.stock, st.poz, st.known, st.g
    places = []
    for s in range(4):
        if s == seat:
            continue
        keep = known[s].copy()
        for i in range(hn[s]):
            c = CIDX[hand[s, i]]
            if keep[c] > 0:
                keep[c] -= 1              # a card everyone saw it take with the pile
            else:
                places.append((hand, (s, i)))
    places += [(stock, (i,)) for i in range(g[KS.G_STOCK_TOP], g[KS.G_STOCK_END])]
    for p in range(g[KS.G_NEXT_POZZETTO], g[KS.G_N_POZZETTI]):
        places += [(poz, (p, i)) for i in range(g[KS.G_POZZETTO_SIZE + p])]
    ids = [arr[ix] for arr, ix in places]
    gen.shuffle(ids)
    for (arr, ix), cid in zip(places, ids):
        arr[ix] = cid
    for s in range(4):
        if s != seat:
            hcnt[s] = 0
            for i in range(hn[s]):
                hcnt[s, CIDX[hand[s, i]]] += 1
    assert KSM.conservation_ok(st)


def play_checked(spec, seed, hand_index, gen, rules=None):
    """Play one hand with ``spec`` on every seat; before every decision, compare the
    choice with the one made after the hidden cards were dealt again. Returns the
    number of decisions compared."""
    game = Game.new(seed, hand_index, rules=rules, strategies=spec)
    n = 0
    while not game.is_over:
        other = game.clone()
        reshuffle_hidden(other, game.current_seat, gen)
        a = game.choose()
        assert other.choose() == a, f"decision {n} of hand {hand_index} depends on hidden cards"
        game.apply(a)
        n += 1
    return n


@pytest.mark.parametrize("spec", ["heuristic"] + [
    pytest.param(s, marks=pytest.mark.slow)
    for s in ("random", "heuristic:pile_threshold=3,use_wild_to_meld=0", "expert")])
def test_decisions_do_not_depend_on_hidden_cards(spec):
    gen = np.random.default_rng(20261129)
    compared = sum(play_checked(spec, 77, i, gen) for i in range(40 if spec == "random" else 120))
    assert compared > 2_000


@pytest.mark.slow
@pytest.mark.parametrize("model", [0, 1])
def test_the_search_player_reads_no_hidden_card(model):
    """``rollout`` samples its worlds from what its seat knows (kernels.search.player lays the
    unseen cards out canonically first; with ``card_model=1`` the card-location model's
    weights read only the pile, the melds and the known cards), so its every decision,
    searched or not, is the same after the hidden cards are dealt again; few worlds keep
    the test short."""
    gen = np.random.default_rng(20261201)
    spec = f"rollout:worlds=3,rollouts=24,card_model={model}"
    compared = sum(play_checked(spec, 79, i, gen) for i in range(20))
    assert compared > 1_000


def test_the_learned_player_reads_no_hidden_card(tmp_path):
    """``learned`` reads its seat's observation tensor only (kernels.strategies.learned): an
    untrained network (random weights, so the pile is taken often and every discard face
    plays) decides the same after the hidden cards are dealt again."""
    from sim.strategies.train import untrained
    path = untrained(tmp_path / "w.npz", seed=11)
    gen = np.random.default_rng(20261203)
    compared = sum(play_checked(f"learned:model={path},pickup_margin=0,discard_margin=0", 80, i, gen) for i in range(60))
    assert compared > 1_000


@pytest.mark.parametrize("rules", ["fibur_italian"] + [
    pytest.param(r, marks=pytest.mark.slow)
    for r in ("fibur_international", {"num_players": 2}, {"num_players": 3})])
def test_under_other_rules(rules):
    gen = np.random.default_rng(5)
    assert sum(play_checked("heuristic", 78, i, gen, sim.Rules.preset(rules) if isinstance(
        rules, str) else sim.Rules(**rules)) for i in range(30)) > 500


def test_the_check_notices_a_peeking_decision():
    """The reshuffle does change what a peeking player would see: the next opponent's
    hand and the stock's top card differ after it (so the test above can fail)."""
    gen = np.random.default_rng(1)
    changed = 0
    for hand_index in range(20):
        game = Game.new(5, hand_index)
        seat = game.current_seat
        other = game.clone()
        reshuffle_hidden(other, seat, gen)
        nxt = (seat + 1) % 4
        a, b = game.state, other.state
        changed += a.hcnt[nxt].tolist() != b.hcnt[nxt].tolist()
        changed += a.stock[a.g[KS.G_STOCK_TOP]] != b.stock[b.g[KS.G_STOCK_TOP]]
        assert game.observation(seat) == other.observation(seat)
        assert np.array_equal(game.observation_tensor(seat), other.observation_tensor(seat))
    assert changed >= 30
