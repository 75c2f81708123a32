"""Can a seat place a card in the meld phase, and how (RULES.md R24, R34, R38).

Under ``take_pile_requires_meld`` (R34) a seat may take the discard pile only when,
with the pile's cards in its hand, some legal meld-phase action places a card
(``pile_meld_source`` says whether it must be a card of the pile).
:func:`can_take_pile` asks :func:`find_placement`, which looks for a one-card
lay-off, a new meld of three cards (screened by :func:`trio_may_meld`) and a lay-off
of several cards (:func:`lay_off_goes_on`, R24 with R38).  Every move it tries is
judged by the single-move checks of :mod:`kernels.engine.legal`;
:func:`find_placement_full` is the plain scan the fast one is tested against.
"""
import numpy as np
from numba import njit

from kernels.core import layout as L
from kernels.core.bits import low_bit
from kernels.core.cards import CIDX, JOKER, N_COUNT
from kernels.core.melds import KIND_SET
from kernels.table.state import (I1, G_BARRED, G_PILE_SIZE, MI_HI, MI_KIND, MI_KEY, MI_LEN, MI_LO,
                                 MI_LOCK, MI_NAT2, MI_NWILD, MI_WSLOT)
from kernels.table.moves import meld_info_after_add
from kernels.engine.legal import OK, after_action_ok, can_create, can_layoff, layoff_fits


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
    for f in range(N_COUNT):
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
    for c in range(N_COUNT):
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
    for f in range(N_COUNT):
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
    for c in range(N_COUNT):
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
        for c in range(N_COUNT):
            if hc[c] == 0 or need[c] == 0:
                continue
            code, nlen, nnw = can_layoff(st, rv, team, seat, mi, c, scratch)
            if code == OK:
                return 1, mi, c, -1
    for a in range(N_COUNT):
        if hc[a] == 0:
            continue
        for b in range(a, N_COUNT):
            if hc[b] == 0 or (b == a and hc[a] < 2):
                continue
            if not trio_may_meld(a, b, JOKER, set_mask):
                continue
            for c in range(b, N_COUNT):
                if hc[c] == 0:
                    continue
                if need[a] == 0 and need[b] == 0 and need[c] == 0:
                    continue
                if trio_melds(st, rv, team, seat, a, b, c, set_mask, sel):
                    return 2, a, b, c
    for mi in range(nm[team]):
        if minfo[team, mi, MI_KIND] == KIND_SET:
            continue
        for c in range(N_COUNT):
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
    pn = g[G_PILE_SIZE]
    from_pile = rv[L.RV_PILE_MELD_SOURCE] == 1
    for f in range(N_COUNT):
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
