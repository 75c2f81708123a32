"""A small Burraco strategy in Python: the one of notebooks/own_strategy.ipynb.

    burraco compare docs/examples/pile_taker.py:PileTaker expert --hands 500 --seed 1

``PileTaker`` takes the discard pile whenever a card of it fits a meld (one of
its side's melds, or a new meld with two cards of its hand), otherwise draws;
it lays down every meld it may (the longest first, clean ones before those
with a wild), lays off its natural cards (a wild only to reach a burraco), and
discards the card it needs least (no pair, no neighbour in its suit, not a
wild), avoiding cards the next opponent could lay off.  It reads only its
observation (docs/strategies.md).
"""
from sim.game import A_DRAW, A_END_MELD, A_TAKE, action_faces, action_kind, action_meld

JOKER = 52
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def rank(face):
    return face % 13


def suit(face):
    return face // 13


def is_wild(face):
    return face == JOKER or rank(face) == 1


def fits_meld(face, meld):
    """Whether the card extends a meld of the table (a dict of Observation.melds)."""
    if is_wild(face):
        return meld["wilds"] == 0
    naturals = [f for f in meld["faces"] if not is_wild(f)]
    if meld["kind"] == "set":
        return rank(naturals[0]) == rank(face)
    if suit(naturals[0]) != suit(face):
        return False
    ranks = sorted(rank(f) for f in naturals)
    if ranks[0] == 0 and ranks[-1] >= 11:          # the ace above the king
        ranks = sorted(13 if r == 0 else r for r in ranks)
    r = rank(face)
    return any(x in (ranks[0] - 1, ranks[-1] + 1) for x in ((r, 13) if r == 0 else (r,)))


def fits_hand(face, hand, set_ranks):
    """Whether the card and two cards of the hand make a new meld."""
    if is_wild(face):
        return False
    if rank(face) in set_ranks and sum(f != JOKER and rank(f) == rank(face) for f in hand) >= 2:
        return True
    have = {rank(f) for f in hand if not is_wild(f) and suit(f) == suit(face)}
    have |= {13} if 0 in have else set()
    for x in ((rank(face), 13) if rank(face) == 0 else (rank(face),)):
        if any(x + a in have and x + b in have for a, b in ((-2, -1), (-1, 1), (1, 2))):
            return True
    return False


class PileTaker:
    """Takes the pile when a card of it fits a meld; melds and lays off what it can."""

    def reset(self, seat, rules):
        self.set_ranks = {RANKS.index(r) for r in rules.set_ranks}

    def choose(self, obs, legal):
        if obs.phase == "pickup":
            own = [m for m in obs.melds if m["team"] == obs.team]
            fits = any(any(fits_meld(f, m) for m in own) or fits_hand(f, obs.hand_faces, self.set_ranks)
                       for f in obs.pile_faces)
            return A_TAKE if fits and A_TAKE in legal else A_DRAW
        if obs.phase in ("meld", "place"):
            creates = [a for a in legal if action_kind(a) == "meld"]
            if creates:
                return max(creates, key=lambda a: (not any(map(is_wild, action_faces(a))),
                                                   len(action_faces(a)), -a))
            sizes = {m["index"]: len(m["faces"]) for m in obs.melds if m["team"] == obs.team}
            for a in legal:
                if action_kind(a) == "lay_off":
                    face = action_faces(a)[0]
                    if not is_wild(face) or sizes[action_meld(a)] >= 6:
                        return a
            return A_END_MELD if A_END_MELD in legal else legal[0]
        return min(legal, key=lambda a: self.keep(action_faces(a)[0], obs))   # discard

    def keep(self, face, obs):
        """How much the hand needs the card: pairs, neighbours in its suit, wilds."""
        if is_wild(face):
            return 100
        hand = list(obs.hand_faces)
        hand.remove(face)
        value = 3 * sum(not is_wild(f) and rank(f) == rank(face) for f in hand)
        value += 2 * sum(not is_wild(f) and suit(f) == suit(face) and 0 < abs(rank(f) - rank(face)) <= 2
                         for f in hand)
        nxt = obs.team_of[(obs.seat + 1) % obs.num_players]
        value += 4 * any(fits_meld(face, m) for m in obs.melds if m["team"] == nxt)
        return value + rank(face) / 100
