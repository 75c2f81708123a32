"""Hand scoring (RULES.md R2, R27-R29, R54-R59)."""
from numba import njit

from . import layout as L
from .cards import CVALUE
from .melds import ANY_RANK, burraco_class

POZ_UNTAKEN = 0
POZ_TAKEN = 1
POZ_UNPLAYED = 2


@njit(cache=True, _nrt=False)
def score_team(mcnt_team, n_melds, hcnt_team, n_hands, closed, pozzetto, pile_close, rv):
    """Score one team at the end of a hand (R55).

    Parameters
    ----------
    mcnt_team : numpy.ndarray
        ``int64[M, 53]`` counts of the team's melds (first ``n_melds`` rows).
    n_melds : int
    hcnt_team : numpy.ndarray
        ``int64[H, 53]`` counts of the cards left in each player's hand
        (first ``n_hands`` rows; an unplayed pozzetto is part of its holder's
        hand, R57).
    n_hands : int
    closed : int
        1 if the team closed (R45, R47).
    pozzetto : int
        ``POZ_UNTAKEN`` (0), ``POZ_TAKEN`` (1) or ``POZ_UNPLAYED`` (2, R57).
    pile_close : int
        1 if the close came in a turn that took the discard pile (only
        matters with option ``pile_close_no_bonus``).
    rv : numpy.ndarray
        ``int64[N_RULES]`` rules vector.

    Returns
    -------
    tuple of int
        ``(total, meld_points, burraco_bonus, closing_bonus, hand_points,
        pozzetto_penalty, clean, dirty, semi_clean)`` in points (bonus and
        penalty components are positive; ``total`` adds the first four and
        subtracts hand points and penalty) and burraco counts.
    """
    meld_pts = 0
    bonus = 0
    clean = 0
    dirty = 0
    semi = 0
    semi_bonus = rv[L.RV_SEMI_CLEAN_BONUS]
    for mi in range(n_melds):
        for f in range(53):
            meld_pts += mcnt_team[mi, f] * CVALUE[f]
        cls = burraco_class(mcnt_team[mi], ANY_RANK, rv[L.RV_SEMI_CLEAN_RULE])
        if cls == 1:
            clean += 1
            bonus += rv[L.RV_CLEAN_BONUS]
        elif cls == 3 and semi_bonus > 0:
            dirty += 1
            semi += 1
            bonus += semi_bonus
        elif cls >= 2:
            dirty += 1
            bonus += rv[L.RV_DIRTY_BONUS]
    hand_pts = 0
    for h in range(n_hands):
        for f in range(53):
            hand_pts += hcnt_team[h, f] * CVALUE[f]
    close_bonus = 0
    if closed != 0 and not (pile_close != 0 and rv[L.RV_PILE_CLOSE_NO_BONUS] != 0):
        close_bonus = rv[L.RV_CLOSING_BONUS]
    penalty = 0
    if pozzetto == POZ_UNTAKEN:
        penalty = rv[L.RV_POZZETTO_PENALTY]
    total = meld_pts + bonus + close_bonus - hand_pts - penalty
    return total, meld_pts, bonus, close_bonus, hand_pts, penalty, clean, dirty, semi
