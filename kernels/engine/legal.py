"""Turn-level legality (RULES.md R21-R24, R36-R39, R41, R43, R45-R46).

Every check returns a reason code: 0 (``OK``) when legal, else one of the
``BAD_*`` codes (text in :data:`LEGAL_REASONS`) or, for an invalid meld, the
meld code of :mod:`kernels.core.melds` offset by ``MELD_REASON_BASE``.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.bits import low_bit
from kernels.core.cards import BURRACO_LEN, CIDX, JOKER
from kernels.core.melds import ANY_RANK, KIND_NONE, KIND_SET, analyze, layoff_step, layoff_step_roles
from kernels.table.state import (I0, I1, G_BARRED, G_PN, G_TPOZ, MI_HI, MI_KIND, MI_KEY, MI_LEN, MI_LO, MI_LOCK,
                    MI_NAT2, MI_NWILD, MI_WSLOT, MMAX, meld_info_after_add, no_pozzetto_left)

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
        if g[G_TPOZ + team] != 0:
            return BAD_EMPTY_AFTER_POZZETTO
        if no_pozzetto_left(g, team):
            return BAD_NO_POZZETTO_LEFT
        return OK              # al volo pozzetto (R41)
    if left == 1:
        rc = -1
        for c in range(53):
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
        if g[G_TPOZ + team] == 0:
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
    for c in range(53):
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
    for f in range(53):
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
    if g[G_TPOZ + team] == 0:
        if no_pozzetto_left(g, team):
            return BAD_NO_POZZETTO_LEFT, 0
        return OK, 0
    f = cid % 54
    if f >= 52 or f % 13 == 1:
        return BAD_CLOSE_WILD, 0
    if not team_has_burraco(st, rv, team, NO_MELD, I0, I0):
        return BAD_CLOSE_NO_BURRACO, 0
    return OK, 1


@njit(cache=True, inline="always", _nrt=False)
def trio_may_meld(a, b, c, set_mask):
    """False when count indices ``a, b, c`` can form no meld of three cards, by
    their shape alone (R14-R17): the cards that cannot be wild (neither a joker nor
    a two) must share a rank that ``set_mask`` (bit r: rank r may form a set) lets
    form a set, or a suit within three consecutive positions, the ace low or high
    (a sequence).  True does not mean they meld: :func:`can_create` decides.
    Tested against :func:`kernels.core.melds.analyze` for every trio and several masks
    (tests/test_kernel_fastpaths.py)."""
    n = 0
    rank0 = -1
    suit0 = -1
    same_rank = True
    same_suit = True
    lo = 99
    hi = -1
    lo_ace_high = 99
    hi_ace_high = -1
    for k in range(3):
        x = a if k == 0 else (b if k == 1 else c)
        if x >= 52 or x % 13 == 1:
            continue
        r = x % 13
        s = x // 13
        if n == 0:
            rank0, suit0 = r, s
        else:
            same_rank = same_rank and r == rank0
            same_suit = same_suit and s == suit0
        n += 1
        lo = min(lo, r)
        hi = max(hi, r)
        rh = 13 if r == 0 else r
        lo_ace_high = min(lo_ace_high, rh)
        hi_ace_high = max(hi_ace_high, rh)
    if n < 2:
        return True
    if same_rank:               # two naturals of one rank are in no sequence together
        return (set_mask >> rank0) & 1 != 0
    return same_suit and (hi - lo <= 2 or hi_ace_high - lo_ace_high <= 2)


@njit(cache=True, _nrt=False)
def trio_sel(hc, a, b, c, sel):
    """Fill ``sel`` (int64[53], overwritten) with one card of each of the count
    indices ``a <= b <= c``; False if the hand counts ``hc`` do not hold them."""
    k = 1
    if c == b:
        k += 1
    if c == a:
        k += 1
    if hc[c] < k:
        return False
    for f in range(53):
        sel[f] = 0
    sel[a] += 1
    sel[b] += 1
    sel[c] += 1
    return True


#: the longest lay-off :func:`lay_off_goes_on` looks for (a sequence holds at most 14 cards)
CHAIN_MAX = 14


@njit(cache=True, _nrt=False)
def _meld_row(minfo, team, mi):
    """The reading ``minfo[team, mi]`` as a tuple (to restore it after a trial step)."""
    return (minfo[team, mi, MI_LEN], minfo[team, mi, MI_KIND], minfo[team, mi, MI_NWILD],
            minfo[team, mi, MI_NAT2], minfo[team, mi, MI_KEY], minfo[team, mi, MI_LO],
            minfo[team, mi, MI_HI], minfo[team, mi, MI_WSLOT], minfo[team, mi, MI_LOCK])


@njit(cache=True, _nrt=False)
def _set_meld_row(minfo, team, mi, row):
    minfo[team, mi, MI_LEN] = row[0]
    minfo[team, mi, MI_KIND] = row[1]
    minfo[team, mi, MI_NWILD] = row[2]
    minfo[team, mi, MI_NAT2] = row[3]
    minfo[team, mi, MI_KEY] = row[4]
    minfo[team, mi, MI_LO] = row[5]
    minfo[team, mi, MI_HI] = row[6]
    minfo[team, mi, MI_WSLOT] = row[7]
    minfo[team, mi, MI_LOCK] = row[8]


@njit(cache=True, _nrt=False)
def lay_off_goes_on(st, rv, team, seat, mi, need, sel, nsel, placed, depth):
    """Can the lay-off of the cards counted in ``sel`` on meld ``mi`` be one
    legal action, as it is or with more cards (R24 with R38)?

    R24 makes a lay-off of several cards one action, legal when its cards can
    be added one at a time, in some order, each step a legal R24 step; R38
    judges the hand after the whole action, not after each step.  The meld
    ``mi`` already holds ``sel``'s cards (its ``mcnt``/``minfo`` are the trial
    state of the caller); the hand counts ``hcnt`` do not lose them.  True
    when the action so far, once it holds a card with ``need[c] > 0``
    (``placed``), leaves no dead end (:func:`after_action_ok`), or when some
    hand card fits the meld next and the longer lay-off is legal (searched
    depth first, at most :data:`CHAIN_MAX` cards).

    Parameters
    ----------
    need : numpy.ndarray
        ``int64[53]``: which count indices count as placing (all ones for any
        card; the pile's faces for R34's ``pile_meld_source = "from_pile"``).
    sel : numpy.ndarray
        ``int64[53]`` counts of the cards laid off so far; restored on return.
    nsel, placed, depth : int
        Cards in ``sel``; 1 once one of them is needed; the search depth.

    Notes
    -----
    The meld's counts and reading are changed for each trial step and
    restored; ``st`` is as before on return.
    """
    mcnt, minfo, hc = st.mcnt, st.minfo, st.hcnt[seat]
    if placed != 0 and nsel > 0:
        if after_action_ok(st, rv, team, seat, sel, nsel, mi, minfo[team, mi, MI_LEN],
                           minfo[team, mi, MI_NWILD]) == OK:
            return True
    if depth >= CHAIN_MAX or nsel >= st.hn[seat]:
        return False
    for c in range(53):
        if hc[c] - sel[c] <= 0 or layoff_fits(mcnt, minfo, team, mi, c) == 0:
            continue
        saved = _meld_row(minfo, team, mi)
        mcnt[team, mi, c] += 1
        meld_info_after_add(mcnt, minfo, team, mi, c)
        sel[c] += 1
        ok = lay_off_goes_on(st, rv, team, seat, mi, need, sel, nsel + 1,
                             1 if (placed != 0 or need[c] > 0) else 0, depth + 1)
        sel[c] -= 1
        mcnt[team, mi, c] -= 1
        _set_meld_row(minfo, team, mi, saved)
        if ok:
            return True
    return False


@njit(cache=True, _nrt=False)
def lay_off_opens(st, rv, team, seat, mi, c, need, sel):
    """May one card of count index ``c`` begin a lay-off of several cards on
    meld ``mi`` that is legal as one action (R24 with R38), where ``c`` alone
    is not?  (It fits, and the lay-off can go on to a hand that is no dead
    end: after laying off 7♠ from 7♠ 5♠ on 2♣ 8♠ 9♠ 10♠ J♠ with 5♠ the card
    of a one-card pile, 5♠ follows and the hand empties for the pozzetto.)

    ``need``: as in :func:`lay_off_goes_on`; ``sel``: an ``int64[53]`` work
    array (overwritten).  ``st`` is unchanged on return.
    """
    mcnt, minfo = st.mcnt, st.minfo
    if mi < 0 or mi >= st.nm[team] or st.hcnt[seat, c] < 1 \
            or layoff_fits(mcnt, minfo, team, mi, c) == 0:
        return False
    for f in range(53):
        sel[f] = 0
    saved = _meld_row(minfo, team, mi)
    mcnt[team, mi, c] += 1
    meld_info_after_add(mcnt, minfo, team, mi, c)
    sel[c] = 1
    ok = lay_off_goes_on(st, rv, team, seat, mi, need, sel, I1, 1 if need[c] > 0 else 0, I1)
    mcnt[team, mi, c] -= 1
    _set_meld_row(minfo, team, mi, saved)
    return ok


@njit(cache=True, inline="always", _nrt=False)
def trio_melds(st, rv, team, seat, a, b, c, set_mask, sel):
    """May one card of each of the count indices ``a <= b <= c`` of ``seat``'s hand
    form a new meld now (R14-R18, R23, R38)?  :func:`trio_may_meld` first, then
    :func:`can_create` on them counted in ``sel`` (overwritten when the hand holds them)."""
    if not trio_may_meld(a, b, c, set_mask):
        return False
    if not trio_sel(st.hcnt[seat], a, b, c, sel):
        return False
    code, kind, nw = can_create(st, rv, team, seat, sel)
    return code == OK


#: bit ``c`` for the count indices that are wild (the 2s and the joker, R14)
WILD_MASK = np.int64((1 << 1) | (1 << 14) | (1 << 27) | (1 << 40) | (1 << JOKER))
#: bit ``c`` for the 13 count indices of suit 0; shifted by ``13 * s`` for suit ``s``
SUIT_MASK0 = np.int64((1 << 13) - 1)
#: bit ``c`` for count index ``c`` of rank 0 in each suit; shifted by ``r`` for rank ``r``
RANK_MASK0 = np.int64(1 | (1 << 13) | (1 << 26) | (1 << 39))


@njit(cache=True, inline="always", _nrt=False)
def count_mask(cnt):
    """Bit ``c`` set for the count indices ``c`` with ``cnt[c] > 0`` (53 bits)."""
    m = np.int64(0)
    for c in range(53):
        if cnt[c] > 0:
            m |= np.int64(1) << c
    return m


@njit(cache=True, inline="always", _nrt=False)
def layoff_candidates(minfo, team, mi):
    """Bit ``c`` set for every count index that :func:`layoff_fits` may accept on
    meld ``mi``: the wilds, and the naturals of the set's rank (R16) or of the
    sequence's suit (R17).  Every other card gets 0 from :func:`layoff_fits`
    (tested in tests/test_kernel_fastpaths.py)."""
    key = minfo[team, mi, MI_KEY]
    if minfo[team, mi, MI_KIND] == KIND_SET:
        return WILD_MASK | (RANK_MASK0 << key)
    return WILD_MASK | (SUIT_MASK0 << (13 * key))


@njit(cache=True, _nrt=False)
def find_placement(st, rv, team, seat, need, sel, scratch):
    """A legal meld-phase action that places at least one card (R34).

    Looks for a one-card lay-off, then for a new meld of three cards, then
    for a lay-off of several cards (R24).  Every legal new meld of 4+ cards
    holds a legal one of three with the needed card, and a lay-off of several
    cards is found by :func:`lay_off_goes_on`: "none found" means "no
    placement exists".  The lay-off search is needed when R38 bites only
    after some of its cards (a hand of two cards, one of them the R36 card),
    or under ``pile_meld_source = "from_pile"`` when cards from the hand must
    go first (7♥ from the hand, then the pile's 4♥, on 2♣(=7♥) 6♥ 8♥: the 7♥
    frees the 2♣ to stand for 5♥).

    The loops visit the held count indices in increasing order through 53-bit
    masks, skipping only cards that cannot succeed: those
    :func:`layoff_candidates` rules out of a meld, and in the search of
    several cards, a first card that is needed when the hand holds three
    cards or more (R38 cannot bite after one card, so the one-card loop
    already refused it).  The action found is the one the plain scan of all
    53 indices finds (tested in tests/test_kernel_fastpaths.py against
    :func:`find_placement_full`).

    Parameters
    ----------
    need : numpy.ndarray
        ``int64[53]``: the action must use a card of a count index with
        ``need[c] > 0`` (all ones for "any card").  Not mutated.
    sel, scratch : numpy.ndarray
        ``int64[53]`` work arrays (overwritten).

    Returns
    -------
    tuple of int
        ``(what, a, b, c)``: ``what`` 0 = none; 1 = lay off count index ``b``
        on meld ``a`` (the first card of the lay-off); 2 = create a meld of
        count indices ``a, b, c``.
    """
    hcnt, nm, minfo = st.hcnt, st.nm, st.minfo
    hc = hcnt[seat]
    set_mask = rv[L.RV_SET_RANKS_MASK]
    held = count_mask(hc)
    needed = held & count_mask(need)
    for mi in range(nm[team]):
        m = needed & layoff_candidates(minfo, team, mi)
        while m != 0:
            c = low_bit(m)
            m &= m - 1
            code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK:
                return 1, mi, c, -1
    ma = held
    while ma != 0:
        a = low_bit(ma)
        ma &= ma - 1
        mb = held & ~((np.int64(1) << a) - 1)           # b >= a
        while mb != 0:
            b = low_bit(mb)
            mb &= mb - 1
            if b == a and hc[a] < 2:
                continue
            if not trio_may_meld(a, b, JOKER, set_mask):     # a and b fit no meld, whatever the third card
                continue
            mc = held & ~((np.int64(1) << b) - 1)       # c >= b
            if need[a] == 0 and need[b] == 0:
                mc &= needed
            while mc != 0:
                c = low_bit(mc)
                mc &= mc - 1
                if trio_melds(st, rv, team, seat, a, b, c, set_mask, sel):
                    return 2, a, b, c
    # a lay-off of several cards: only on a sequence (a set takes a card alone or never);
    # with 3+ cards in hand, two or more stay after one, so R38 cannot bite and the
    # one-card loop above already refused every needed first card
    first = held & ~needed if st.hn[seat] >= 3 else held
    for mi in range(nm[team]):
        if minfo[team, mi, MI_KIND] == KIND_SET:
            continue
        m = first & layoff_candidates(minfo, team, mi)
        while m != 0:
            c = low_bit(m)
            m &= m - 1
            if lay_off_opens(st, rv, team, seat, mi, c, need, sel):
                return 1, mi, c, -1
    return 0, -1, -1, -1


@njit(cache=True, _nrt=False)
def find_placement_full(st, rv, team, seat, need, sel, scratch):
    """:func:`find_placement` by the plain scan of all 53 count indices in each
    loop; the reference its masks are tested against (R24, R34)."""
    hcnt, nm, minfo = st.hcnt, st.nm, st.minfo
    hc = hcnt[seat]
    set_mask = rv[L.RV_SET_RANKS_MASK]
    for mi in range(nm[team]):
        for c in range(53):
            if hc[c] == 0 or need[c] == 0:
                continue
            code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK:
                return 1, mi, c, -1
    for a in range(53):
        if hc[a] == 0:
            continue
        for b in range(a, 53):
            if hc[b] == 0 or (b == a and hc[a] < 2):
                continue
            if not trio_may_meld(a, b, JOKER, set_mask):
                continue
            for c in range(b, 53):
                if hc[c] == 0:
                    continue
                if need[a] == 0 and need[b] == 0 and need[c] == 0:
                    continue
                if trio_melds(st, rv, team, seat, a, b, c, set_mask, sel):
                    return 2, a, b, c
    for mi in range(nm[team]):
        if minfo[team, mi, MI_KIND] == KIND_SET:
            continue
        for c in range(53):
            if hc[c] > 0 and lay_off_opens(st, rv, team, seat, mi, c, need, sel):
                return 1, mi, c, -1
    return 0, -1, -1, -1


@njit(cache=True, _nrt=False)
def can_take_pile(st, rv, team, seat, need, sel, scratch):
    """May ``seat`` take the discard pile under ``take_pile_requires_meld`` (R34)?

    True when the option is off.  Otherwise the pile's cards are counted into
    the hand for the test (and taken out again: ``st`` is unchanged on
    return) and :func:`find_placement` must find an action that uses any card
    (``pile_meld_source = "any"``) or a card of the pile (``"from_pile"``).

    ``need``, ``sel``, ``scratch``: ``int64[53]`` work arrays (overwritten).
    """
    if rv[L.RV_TAKE_PILE_REQUIRES_MELD] == 0:
        return True
    hn, hcnt, pile, g = st.hn, st.hcnt, st.pile, st.g
    pn = g[G_PN]
    from_pile = rv[L.RV_PILE_MELD_SOURCE] == 1
    for f in range(53):
        need[f] = 0 if from_pile else 1
    for i in range(pn):
        c = CIDX[pile[i]]
        hcnt[seat, c] += 1
        if from_pile:
            need[c] = 1
    hn[seat] += pn
    barred = g[G_BARRED]
    if pn == 1 and rv[L.RV_FORBID_REDISCARD_SINGLE_PILE] != 0:
        g[G_BARRED] = pile[0]
    what, a, b, c = find_placement(st, rv, team, seat, need, sel, scratch)
    g[G_BARRED] = barred
    hn[seat] -= pn
    for i in range(pn):
        hcnt[seat, CIDX[pile[i]]] -= 1
    return what != 0
