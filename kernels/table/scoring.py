"""Hand scoring (RULES.md R2, R27-R31, R54-R59)."""
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import CVALUE, N_COUNT
from kernels.core.melds import ANY_RANK, KIND_SET, KIND_SEQ, analyze, burraco_class, burraco_class_roles
from kernels.table.state import MI_KEY, MI_KIND, MI_LOCK, MI_NAT2

POZ_UNTAKEN = 0
POZ_TAKEN = 1
POZ_UNPLAYED = 2


# R31 extra classes (option extra_burraco_classes), points
ROYAL_CLEAN = 300      # a sequence of 13 or more cards, no wild
ROYAL_DIRTY = 250      # the same with one wild
SUPER_CLEAN = 250      # a set of 8 or more naturals, no wild
SUPER_DIRTY = 200      # a set of 8 or more cards with one wild


@njit(cache=True, _nrt=False)
def extra_class_bonus(cnt, clean):
    """R31 bonus of a burraco (int64[53] counts; ``clean`` as scored, R27):
    royal or super burraco, else 0 (points)."""
    n = 0
    for f in range(N_COUNT):
        n += cnt[f]
    if n < 8:
        return 0
    kind, nwild, nat2, key, lo, hi, wslot, why = analyze(cnt, ANY_RANK)
    if kind == KIND_SEQ and n >= 13:
        return ROYAL_CLEAN if clean else ROYAL_DIRTY
    if kind == KIND_SET:
        return SUPER_CLEAN if clean else SUPER_DIRTY
    return 0


@njit(cache=True, _nrt=False)
def burraco_bonus(cnt, cls, rv):
    """Bonus one meld scores (R56, with the R31 classes under ``extra_burraco_classes``).

    The one class-to-bonus table of the project: :func:`score_team` and
    :func:`sim.table.melds.check` both call it.

    Parameters
    ----------
    cnt : numpy.ndarray
        ``int64[53]`` counts of the meld (count index, 52 = joker).
    cls : int
        Its class from :func:`kernels.core.melds.burraco_class` (or
        ``burraco_class_roles``): 0 not a burraco, 1 clean, 2 dirty,
        3 semi-clean (R27-R29).
    rv : numpy.ndarray
        ``int64[N_RULES]`` rules vector.

    Returns
    -------
    int
        Points: ``clean_bonus`` (class 1); ``semi_clean_bonus`` for class 3
        when it is set (> 0), else ``dirty_bonus`` (classes 2 and 3); 0 for
        class 0.  With ``extra_burraco_classes`` a royal or super burraco
        (R31) scores the higher of that and its R31 bonus (the single highest
        class only).

    Notes
    -----
    Jit-compiled by Numba (``_nrt=False``: no allocation).
    """
    if cls == 0:
        return 0
    if cls == 1:
        b = rv[L.RV_CLEAN_BONUS]
    elif cls == 3 and rv[L.RV_SEMI_CLEAN_BONUS] > 0:
        b = rv[L.RV_SEMI_CLEAN_BONUS]
    else:
        b = rv[L.RV_DIRTY_BONUS]
    if rv[L.RV_EXTRA_BURRACO_CLASSES] != 0:
        b = max(b, extra_class_bonus(cnt, cls == 1))   # R31: the highest class only
    return b


@njit(cache=True, _nrt=False)
def score_team(mcnt_team, minfo_team, n_melds, hcnt_team, n_hands, closed, pozzetto, pile_close,
               rv):
    """Score one team at the end of a hand (R55).

    Parameters
    ----------
    mcnt_team : numpy.ndarray
        ``int64[M, 53]`` counts of the team's melds (first ``n_melds`` rows).
    minfo_team : numpy.ndarray
        ``int64[M, MI_COLS]`` their readings (:mod:`kernels.table.state`); a row
        marked ``MI_LOCK`` is classed with its 2s' stored roles
        (``lock_two_roles``, R25: ``MI_NAT2`` of the suit's 2s natural).
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
        for f in range(N_COUNT):
            meld_pts += mcnt_team[mi, f] * CVALUE[f]
        if minfo_team[mi, MI_LOCK] != 0 and minfo_team[mi, MI_KIND] == KIND_SEQ:
            cls = burraco_class_roles(mcnt_team[mi], minfo_team[mi, MI_KEY],
                                      minfo_team[mi, MI_NAT2], rv[L.RV_SEMI_CLEAN_RULE])
        else:
            cls = burraco_class(mcnt_team[mi], ANY_RANK, rv[L.RV_SEMI_CLEAN_RULE])
        if cls == 1:
            clean += 1
        elif cls >= 2:
            dirty += 1
            if cls == 3 and semi_bonus > 0:
                semi += 1
        bonus += burraco_bonus(mcnt_team[mi], cls, rv)
    hand_pts = 0
    for h in range(n_hands):
        for f in range(N_COUNT):
            hand_pts += hcnt_team[h, f] * CVALUE[f]
    close_bonus = 0
    if closed != 0 and not (pile_close != 0 and rv[L.RV_PILE_CLOSE_NO_BONUS] != 0):
        close_bonus = rv[L.RV_CLOSING_BONUS]
    penalty = 0
    if pozzetto == POZ_UNTAKEN:
        penalty = rv[L.RV_POZZETTO_PENALTY]
    total = meld_pts + bonus + close_bonus - hand_pts - penalty
    return total, meld_pts, bonus, close_bonus, hand_pts, penalty, clean, dirty, semi
