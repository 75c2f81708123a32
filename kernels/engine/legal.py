"""Turn-level legality (RULES.md R21-R24, R36-R39, R41, R43, R45-R46).

Every check returns a reason code: 0 (``OK``) when legal, else one of the
``BAD_*`` codes (text in :data:`LEGAL_REASONS`) or, for an invalid meld, the
meld code of :mod:`kernels.core.melds` offset by ``MELD_REASON_BASE``.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import BURRACO_LEN, CIDX, JOKER, N_COUNT
from kernels.core.melds import (ANY_RANK, KIND_NONE, KIND_SET, analyze, layoff_step,
                                layoff_step_roles)
from kernels.table.state import (I0, I1, G_BARRED, G_POZZETTO_TAKEN, MI_HI, MI_KIND,
                                 MI_KEY, MI_LEN, MI_LO, MI_LOCK, MI_NAT2, MI_NWILD, MMAX)
from kernels.table.moves import no_pozzetto_left

# int64 arguments (plain literals would make Numba compile the callees again)
NO_MELD = np.int64(-2)
NEW_MELD = np.int64(-1)

OK = 0
BAD_NOT_IN_HAND = 1
BAD_DUP_SET_RANK = 2
BAD_EMPTY_AFTER_POZZETTO = 3
BAD_LAST_CARD_BARRED = 4
BAD_LAST_CARD_NO_CLOSE = 5
BAD_BARRED_DISCARD = 6
BAD_CLOSE_WILD = 7
BAD_CLOSE_NO_BURRACO = 8
BAD_OPPONENT_MELD = 9
BAD_NO_MELD = 10
BAD_TOO_MANY_MELDS = 11
BAD_LAYOFF = 12
BAD_NO_POZZETTO_LEFT = 13
MELD_REASON_BASE = 100

LEGAL_REASONS = (
    "",
    "the cards are not all in the player's hand",
    "R23: the team already has a set of this rank (add to it instead)",
    "R38/R43/R46: the hand would be empty with the team's pozzetto already taken "
    "(a close needs a discard)",
    "R38/R36: the one card left could not be discarded (it is the card taken as a one-card pile)",
    "R38/R45: the one card left could not be discarded (a close needs the pozzetto, "
    "a burraco and a natural card)",
    "R36: the card taken as a one-card discard pile cannot be discarded this turn",
    "R45: the closing discard cannot be a wild (joker or 2)",
    "R45: closing needs a burraco on the team's table (a clean one under "
    "require_clean_burraco_to_close)",
    "R21: cards may be added only to the player's own team's melds",
    "no such meld",
    "the team's table is full",
    "R24: the card cannot be laid off on that meld",
    "R53: the team has no pozzetto and none is left (one became the stock), so the hand "
    "cannot be emptied",
)


@njit(cache=True, _nrt=False)
def team_has_burraco(st, rv, team, extra_mi, extra_len, extra_nwild):
    """Does ``team`` hold a burraco that allows a close (R45b)?

    ``extra_mi`` (-2 none, -1 a new meld, else a meld index) with
    ``extra_len``/``extra_nwild`` describes a meld as it will be after a
    pending action.
    """
    minfo, nm = st.minfo, st.nm
    need_clean = rv[L.RV_REQUIRE_CLEAN_BURRACO_TO_CLOSE] != 0
    if extra_mi != -2 and extra_len >= BURRACO_LEN and (not need_clean or extra_nwild == 0):
        return True
    for mi in range(nm[team]):
        if mi == extra_mi:
            continue
        if minfo[team, mi, MI_LEN] >= BURRACO_LEN and (not need_clean or minfo[team, mi, MI_NWILD] == 0):
            return True
    return False


@njit(cache=True, _nrt=False)
def after_action_ok(st, rv, team, seat, sel, nsel, extra_mi, extra_len, extra_nwild):
    """R38 (no dead ends) for a meld-phase action removing ``sel`` from hand.

    Parameters
    ----------
    sel : numpy.ndarray
        ``int64[53]`` counts leaving the hand (not mutated).
    nsel : int
        Number of cards in ``sel``.
    extra_mi, extra_len, extra_nwild : int
        The meld the action creates or extends, as after the action.

    Returns
    -------
    int
        ``OK`` or a ``BAD_*`` code.
    """
    hn, hcnt, g = st.hn, st.hcnt, st.g
    left = hn[seat] - nsel
    if left == 0:
        if g[G_POZZETTO_TAKEN + team] != 0:
            return BAD_EMPTY_AFTER_POZZETTO
        if no_pozzetto_left(g, team):
            return BAD_NO_POZZETTO_LEFT
        return OK              # al volo pozzetto (R41)
    if left == 1:
        rc = -1
        for c in range(N_COUNT):
            if hcnt[seat, c] - sel[c] > 0:
                rc = c
                break
        # the id that stays: the barred copy only if it is the only copy held
        barred = g[G_BARRED]
        stays_barred = False
        if barred >= 0:
            if CIDX[barred] == rc and hcnt[seat, rc] == 1:
                stays_barred = True
        if stays_barred:
            return BAD_LAST_CARD_BARRED
        if g[G_POZZETTO_TAKEN + team] == 0:
            if no_pozzetto_left(g, team):
                return BAD_NO_POZZETTO_LEFT
            return OK          # its discard goes to the pozzetto (R37b, R41)
        if rc == JOKER or rc % 13 == 1:
            return BAD_LAST_CARD_NO_CLOSE
        if not team_has_burraco(st, rv, team, extra_mi, extra_len, extra_nwild):
            return BAD_LAST_CARD_NO_CLOSE
    return OK


@njit(cache=True, _nrt=False)
def can_create(st, rv, team, seat, sel):
    """Legality of a new meld made of the hand cards counted in ``sel``.

    Implements R15-R18 (validity, option ``set_ranks``), R23 (one set per
    rank unless ``allow_duplicate_set_rank``) and R38.

    Returns
    -------
    tuple of int
        ``(code, kind, nwild)``; ``code`` is ``OK`` when legal.
    """
    hcnt, minfo, nm = st.hcnt, st.minfo, st.nm
    nsel = np.int64(0)
    for c in range(N_COUNT):
        if sel[c] > hcnt[seat, c]:
            return BAD_NOT_IN_HAND, 0, 0
        nsel += sel[c]
    kind, nwild, nat2, key, lo, hi, wslot, why = analyze(sel, rv[L.RV_SET_RANKS_MASK])
    if kind == KIND_NONE:
        return MELD_REASON_BASE + why, 0, 0
    if kind == KIND_SET and rv[L.RV_ALLOW_DUPLICATE_SET_RANK] == 0:
        for mi in range(nm[team]):
            if minfo[team, mi, MI_KIND] == KIND_SET and minfo[team, mi, MI_KEY] == key:
                return BAD_DUP_SET_RANK, kind, nwild
    if nm[team] >= MMAX:
        return BAD_TOO_MANY_MELDS, kind, nwild
    if st.hn[seat] - nsel >= 2:
        return OK, kind, nwild           # two or more cards stay: R38 cannot bite
    code = after_action_ok(st, rv, team, seat, sel, nsel, NEW_MELD, nsel, nwild)
    return code, kind, nwild


@njit(cache=True, _nrt=False)
def layoff_fits_full(mcnt, minfo, team, mi, c):
    """:func:`layoff_fits` by a full re-analysis of the meld plus the card
    (:func:`kernels.core.melds.layoff_step`); the reference for the fast paths.
    A meld marked ``MI_LOCK`` keeps its 2s' roles (``layoff_step_roles``, R25)."""
    if minfo[team, mi, MI_LOCK] != 0:
        ok, kind, nwild, nat2, key, lo, hi, wslot, why = layoff_step_roles(
            mcnt[team, mi], minfo[team, mi, MI_KIND], minfo[team, mi, MI_NWILD],
            minfo[team, mi, MI_NAT2], minfo[team, mi, MI_KEY], c, ANY_RANK)
    else:
        ok, kind, nwild, nat2, key, lo, hi, wslot, why = layoff_step(
            mcnt[team, mi], minfo[team, mi, MI_KIND], minfo[team, mi, MI_NWILD],
            minfo[team, mi, MI_NAT2], minfo[team, mi, MI_KEY], c, ANY_RANK)
    if ok == 1:
        return 1 + nwild
    return 0


@njit(cache=True, _nrt=False)
def layoff_fits(mcnt, minfo, team, mi, c):
    """R24 step test on meld ``mi`` of ``team`` (``mcnt``/``minfo`` of the state):
    0 when one card of count index ``c`` cannot be laid off, else 1 + the wilds
    of the meld after it.

    Sets, natural cards of another suit, and natural cards on a sequence
    without wilds or 2s are decided from the meld's reading alone (R16, R17,
    R24); other cases go to :func:`layoff_fits_full`.  Both give the same
    answer (tested exhaustively).  Option ``lock_two_roles`` (R25) only
    matters for a sequence holding a 2 of its suit; the fast paths decide
    such a meld only where roles cannot matter (a natural of another suit, a
    second wild), reading ``MI_NWILD`` as stored with the roles.
    """
    kind = minfo[team, mi, MI_KIND]
    nw = minfo[team, mi, MI_NWILD]
    key = minfo[team, mi, MI_KEY]
    wild = c == JOKER or c % 13 == 1
    if kind == KIND_SET:
        if minfo[team, mi, MI_LEN] >= 9:
            return 0                              # R16: at most 9 cards
        if wild:
            if nw == 0:
                return 2                          # R14: one wild at most
            return 0
        if c % 13 == key:
            return 1 + nw
        return 0
    if not wild:
        if c // 13 != key:
            return 0                              # R17: one suit
        base = 13 * key
        if (nw == 1 and c % 13 != 0 and mcnt[team, mi, base] == 0
                and mcnt[team, mi, base + 1] == 0):
            # one wild (a joker or another suit's 2), no ace and no 2 of the suit:
            # one reading only; the naturals with the card may leave one gap (R18)
            if mcnt[team, mi, c] > 0:
                return 0
            sl = c % 13 + 1
            lo = min(minfo[team, mi, MI_LO], sl)
            hi = max(minfo[team, mi, MI_HI], sl)
            if (hi - lo + 1) - minfo[team, mi, MI_LEN] <= 1:   # LEN - 1 naturals + the card
                return 2
            return 0
        if nw == 0 and minfo[team, mi, MI_NAT2] == 0:
            # naturals only, no 2: the meld holds slots lo..hi without gaps
            if mcnt[team, mi, c] > 0:
                return 0                          # slot taken / second ace
            if c % 13 == 0:
                if minfo[team, mi, MI_HI] == 13:
                    return 1                      # ace high after the king
                return 0
            sl = c % 13 + 1
            if sl == minfo[team, mi, MI_LO] - 1 or sl == minfo[team, mi, MI_HI] + 1:
                return 1
            return 0
    elif nw > 0:
        if c == JOKER or c // 13 != key:
            return 0                              # R24(b): no second wild
    elif minfo[team, mi, MI_NAT2] == 0 and (c == JOKER or c // 13 != key):
        return 2          # a first wild on a clean sequence without a 2 (at most 13 cards)
    return layoff_fits_full(mcnt, minfo, team, mi, c)


@njit(cache=True, _nrt=False)
def can_layoff(st, rv, team, seat, mi, c, scratch):
    """Legality of laying off one card (count index ``c``) on meld ``mi`` (R24, R38).

    ``scratch`` is an ``int64[53]`` work array (overwritten).

    Returns
    -------
    tuple of int
        ``(code, new_len, new_nwild)``.
    """
    hn, hcnt, minfo, nm = st.hn, st.hcnt, st.minfo, st.nm
    if mi < 0 or mi >= nm[team]:
        return BAD_NO_MELD, 0, 0
    if hcnt[seat, c] < 1:
        return BAD_NOT_IN_HAND, 0, 0
    v = layoff_fits(st.mcnt, minfo, team, mi, c)
    if v == 0:
        return BAD_LAYOFF, 0, 0
    nwild = v - 1
    nlen = minfo[team, mi, MI_LEN] + 1
    if hn[seat] >= 3:
        return OK, nlen, nwild           # two or more cards stay: R38 cannot bite
    for f in range(N_COUNT):
        scratch[f] = 0
    scratch[c] = 1
    code = after_action_ok(st, rv, team, seat, scratch, I1, mi, nlen, nwild)
    return code, nlen, nwild


@njit(cache=True, _nrt=False)
def can_discard(st, rv, team, seat, cid):
    """Legality of discarding card id ``cid`` (R36, R37, R39, R45).

    Returns
    -------
    tuple of int
        ``(code, closes)``; ``closes`` is 1 when the discard is a close (R45).
    """
    hand, hn, g = st.hand, st.hn, st.g
    held = False
    for i in range(hn[seat]):
        if hand[seat, i] == cid:
            held = True
            break
    if not held:
        return BAD_NOT_IN_HAND, 0
    if cid == g[G_BARRED]:
        return BAD_BARRED_DISCARD, 0
    if hn[seat] >= 2:
        return OK, 0
    # last card: going to the pozzetto, or a close
    if g[G_POZZETTO_TAKEN + team] == 0:
        if no_pozzetto_left(g, team):
            return BAD_NO_POZZETTO_LEFT, 0
        return OK, 0
    f = cid % 54
    if f >= 52 or f % 13 == 1:
        return BAD_CLOSE_WILD, 0
    if not team_has_burraco(st, rv, team, NO_MELD, I0, I0):
        return BAD_CLOSE_NO_BURRACO, 0
    return OK, 1

