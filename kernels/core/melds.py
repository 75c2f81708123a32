"""Meld validity, canonical reading and lay-off steps (RULES.md R12-R20, R24-R29).

Melds are judged on *counts*: ``cnt`` is ``int64[53]`` with ``cnt[f]`` the
number of cards of natural face ``f`` (0..51, ``13*suit + rank``) and
``cnt[52]`` the number of jokers.  Ids never matter for validity (R1).

:func:`analyze` implements the interpretation search of R18 and returns the
canonical reading of R20 (fewest wilds) as a tuple of ints::

    (kind, nwild, nat2, key, lo, hi, wslot, reason)

``kind``
    ``KIND_NONE`` (0, invalid), ``KIND_SET`` (1) or ``KIND_SEQ`` (2).
``nwild``
    wilds in the canonical reading (0 clean, 1 dirty; R14, R27).
``nat2``
    1 if a same-suit 2 is read as the natural 2 in slot 2 (R13), else 0.
``key``
    the set's rank (0..12) or the sequence's suit (0..3).
``lo``, ``hi``
    sequence: lowest and highest slot held by a natural (R4); set: 0, 0.
``wslot``
    sequence: the fixed wild's slot (R19), ``WILD_FREE`` (-1) for a free
    wild, ``WILD_NONE`` (-2) without a wild; set: ``WILD_NONE`` or
    ``WILD_FREE``.
``reason``
    0 when valid, else one of the ``WHY_*`` codes (text in
    :data:`REASONS`).

Option ``lock_two_roles`` (R25): a 2 of a sequence's own suit keeps the role
(natural or wild) it entered the meld with.  A meld's stored roles are the
number of its own-suit 2s that are natural (0 or 1, ``nat2`` of its reading);
the others are stored wilds.  A stored wild reads exactly like a 2 of another
suit, which is a wild in every reading (R13), so :func:`analyze_roles`,
:func:`layoff_step_roles` and :func:`burraco_class_roles` count the stored
wilds as 2s of the next suit (:func:`move_twos`) and apply the ordinary
functions: the readings that remain are those that keep the stored roles.
"""
import numpy as np
from numba import njit

from kernels.core.bits import high_bit, low_bit, popcount
from kernels.core.cards import BURRACO_LEN, JOKER

KIND_NONE = 0
KIND_SET = 1
KIND_SEQ = 2

WILD_FREE = -1
WILD_NONE = -2

WHY_OK = 0
WHY_TOO_FEW = 1
WHY_ONLY_WILDS = 2
WHY_MIXED = 3
WHY_SET_TOO_LONG = 4
WHY_TWO_WILDS = 5
WHY_SET_RANK = 6
WHY_SEQ_TOO_LONG = 7
WHY_DUP_SLOT = 8
WHY_TWO_ACES = 9
WHY_GAPS = 10
WHY_WRAP = 11
WHY_ROLES = 12

REASONS = (
    "",
    "R15: a meld needs at least 3 cards",
    "R14: a meld needs at least two natural cards (at most one wild)",
    "R16/R17: the natural cards are neither all one rank (set) nor all one suit (sequence)",
    "R16: a set has at most 9 cards",
    "R14: more than one wild (jokers and 2s not in their natural slot)",
    "R16: sets of this rank are not allowed by the rules (set_ranks)",
    "R17: a sequence has at most 14 cards",
    "R17: two natural cards of a sequence would hold the same slot",
    "R17: a sequence holds at most one natural ace (low or high, not both)",
    "R18: the natural cards leave more gaps than there are wilds",
    "R17: no wrap-around (K-A-2) and at most one natural ace",
    "R25: lock_two_roles: no reading of the meld keeps the role (natural or wild) each of its "
    "2s entered with",
)

ALL_SET_RANKS = 0x1FFD    # every rank except the 2 (bit 1)
# every rank, as an int64 (a plain int literal would make Numba compile callees twice)
ANY_RANK = np.int64(0x1FFF)


@njit(cache=True, _nrt=False)
def _span(cnt, base, nat2, ace, ao):
    """Lowest slot, highest slot and number of naturals of one reading (R4, R18).

    ``nat2`` 1 puts a same-suit 2 in slot 2; with ``ace`` 1 the ace sits in
    slot 1 (``ao`` 0) or 14 (``ao`` 1).
    """
    lo = 99
    hi = -1
    nnat = 0
    for r in range(2, 13):
        if cnt[base + r] == 1:
            sl = r + 1
            nnat += 1
            if sl < lo:
                lo = sl
            if sl > hi:
                hi = sl
    if nat2 == 1:
        nnat += 1
        if 2 < lo:
            lo = 2
        if 2 > hi:
            hi = 2
    if ace == 1:
        sl = 1
        if ao == 1:
            sl = 14
        nnat += 1
        if sl < lo:
            lo = sl
        if sl > hi:
            hi = sl
    return lo, hi, nnat


@njit(cache=True, _nrt=False)
def _gap_slot(cnt, base, nat2, ace, ao, lo, hi):
    """The one empty slot strictly inside ``lo..hi`` of a reading (a fixed wild's slot)."""
    for sl in range(lo + 1, hi):
        if sl == 1 or sl == 14:
            present = ace == 1 and ((sl == 1 and ao == 0) or (sl == 14 and ao == 1))
        elif sl == 2:
            present = nat2 == 1
        else:
            present = cnt[base + sl - 1] == 1
        if not present:
            return sl
    return -3


@njit(cache=True, inline="always", _nrt=False)
def _shape_verdict(n, jok, twos, same_rank, same_suit, r0, set_mask):
    """What the naturals' shape alone decides (R14-R17), before any sequence reading.

    ``n`` cards, ``jok`` jokers, ``twos`` 2s; the naturals other than 2s all of
    one rank (``same_rank``, the rank ``r0``) and/or all of one suit.  Returns
    ``(done, kind, nwild, nat2, key, lo, hi, wslot, reason)``: ``done`` 1 with
    the reading (a set, or an invalid meld), or 0 when the cards must be read
    as a sequence (the rest then unused).
    """
    if n < 3:
        return 1, KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_TOO_FEW
    others = n - jok - twos
    if others == 0:
        return 1, KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_ONLY_WILDS
    if not same_rank and not same_suit:
        return 1, KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_MIXED
    reason = WHY_OK
    if same_rank:
        wild = jok + twos
        if n > 9:
            reason = WHY_SET_TOO_LONG
        elif wild > 1:
            reason = WHY_TWO_WILDS
        elif (set_mask >> r0) & 1 == 0:
            reason = WHY_SET_RANK
        else:
            ws = WILD_NONE
            if wild == 1:
                ws = WILD_FREE
            return 1, KIND_SET, wild, 0, r0, 0, 0, ws, WHY_OK
        if not same_suit or others >= 2:
            return 1, KIND_NONE, 0, 0, r0, 0, 0, WILD_NONE, reason
    # ---- sequence (R17, R18): naturals of one suit plus at most one wild
    if n > 14:
        return 1, KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_SEQ_TOO_LONG
    return 0, KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_OK


@njit(cache=True, _nrt=False)
def analyze(cnt, set_mask):
    """Canonical reading of the multiset ``cnt`` (R16-R20).

    Parameters
    ----------
    cnt : numpy.ndarray
        ``int64[53]`` card counts (not mutated).
    set_mask : int
        Bit ``r`` set when rank ``r`` may form a set (option ``set_ranks``).

    Returns
    -------
    tuple of int
        ``(kind, nwild, nat2, key, lo, hi, wslot, reason)``, see the module
        docstring.  Equal to :func:`analyze_reference` for every ``cnt``
        (tested); this form reads each suit's naturals as a rank mask and a
        sequence reading's slots as a 14-bit mask (:mod:`kernels.core.bits`).
    """
    # one pass: card count, 2s, and the ranks other than 2 held in each suit
    jok = cnt[JOKER]
    n = jok
    twos = np.int64(0)
    s0 = -1
    m0 = np.int64(0)          # rank mask of the first suit holding a natural other than a 2
    nsuits = 0
    ranks = np.int64(0)       # every rank other than 2 held, over the suits
    for s in range(4):
        base = 13 * s
        m = np.int64(0)
        for r in range(13):
            c = cnt[base + r]
            n += c
            if c > 0:
                m |= np.int64(1) << r
        twos += cnt[base + 1]
        m &= ~np.int64(2)
        if m != 0:
            if s0 < 0:
                s0 = s
                m0 = m
            nsuits += 1
            ranks |= m
    same_rank = (ranks & (ranks - 1)) == 0
    same_suit = nsuits == 1
    r0 = low_bit(m0) if m0 != 0 else np.int64(-1)
    done, kind, nwild, nat2, key, lo, hi, wslot, why = _shape_verdict(
        n, jok, twos, same_rank, same_suit, r0, set_mask)
    if done == 1:
        return kind, nwild, nat2, key, lo, hi, wslot, why
    base = 13 * s0
    ace = cnt[base]
    if ace > 1:
        return KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_TWO_ACES
    for r in range(2, 13):
        if cnt[base + r] > 1:
            return KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_DUP_SLOT
    c2 = cnt[base + 1]
    mid = m0 & ~np.int64(1)   # ranks 3..K: bit r is slot r + 1, i.e. bit (slot - 1)
    best_w = 99
    b_nat2 = 0
    b_lo = 0
    b_hi = 0
    b_ws = WILD_NONE
    why = WHY_GAPS
    for nat2 in range(2):
        if nat2 == 1 and c2 == 0:
            break
        wilds = jok + twos - nat2
        if wilds > 1:
            why = WHY_TWO_WILDS
            continue
        n_ace_opts = 1
        if ace == 1:
            n_ace_opts = 2
        for ao in range(n_ace_opts):
            slots = mid | (np.int64(nat2) << 1)          # the natural 2 in slot 2
            if ace == 1:
                slots |= np.int64(1) << (13 * ao)        # the ace in slot 1 or 14
            lo = low_bit(slots) + 1
            hi = high_bit(slots) + 1
            gaps = (hi - lo + 1) - popcount(slots)
            if gaps > wilds:
                if why != WHY_TWO_WILDS:
                    why = WHY_GAPS
                continue
            if wilds < best_w:
                best_w = wilds
                b_nat2 = nat2
                b_lo = lo
                b_hi = hi
                if gaps == 1:        # the one empty slot strictly inside lo..hi
                    inside = ((np.int64(1) << (hi - 1)) - 1) & ~((np.int64(1) << lo) - 1)
                    b_ws = low_bit(inside & ~slots) + 1
                elif wilds == 1:
                    b_ws = WILD_FREE
                else:
                    b_ws = WILD_NONE
    if best_w == 99:
        if ace == 1 and c2 > 0 and why == WHY_GAPS:
            why = WHY_WRAP
        return KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, why
    return KIND_SEQ, best_w, b_nat2, s0, b_lo, b_hi, b_ws, WHY_OK


@njit(cache=True, _nrt=False)
def analyze_reference(cnt, set_mask):
    """:func:`analyze` by a face-by-face scan and a slot-by-slot span of each
    reading: the literal form of R16-R20 that :func:`analyze` is tested
    against (``tests/test_kernel_fastpaths.py``); not used in play.

    Parameters
    ----------
    cnt : numpy.ndarray
        ``int64[53]`` card counts (not mutated).
    set_mask : int
        Bit ``r`` set when rank ``r`` may form a set (option ``set_ranks``).

    Returns
    -------
    tuple of int
        ``(kind, nwild, nat2, key, lo, hi, wslot, reason)``, see the module
        docstring.
    """
    # one pass over the naturals: card count, 2s, and whether the cards other
    # than 2s share a rank and/or a suit
    jok = cnt[JOKER]
    n = jok
    twos = 0
    r0 = -1
    s0 = -1
    same_rank = True
    same_suit = True
    f = 0
    for s in range(4):
        for r in range(13):
            c = cnt[f]
            f += 1
            if c == 0:
                continue
            n += c
            if r == 1:
                twos += c
                continue
            if r0 < 0:
                r0 = r
                s0 = s
            else:
                if r != r0:
                    same_rank = False
                if s != s0:
                    same_suit = False
    done, kind, nwild, nat2, key, lo, hi, wslot, why = _shape_verdict(
        n, jok, twos, same_rank, same_suit, r0, set_mask)
    if done == 1:
        return kind, nwild, nat2, key, lo, hi, wslot, why
    base = 13 * s0
    for r in range(13):
        if r != 1 and cnt[base + r] > 1:
            if r == 0:
                return KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_TWO_ACES
            return KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, WHY_DUP_SLOT
    c2 = cnt[base + 1]
    ace = cnt[base]
    best_w = 99
    b_nat2 = 0
    b_lo = 0
    b_hi = 0
    b_ws = WILD_NONE
    why = WHY_GAPS
    for nat2 in range(2):
        if nat2 == 1 and c2 == 0:
            break
        wilds = jok + twos - nat2
        if wilds > 1:
            why = WHY_TWO_WILDS
            continue
        n_ace_opts = 1
        if ace == 1:
            n_ace_opts = 2
        for ao in range(n_ace_opts):
            lo, hi, nnat = _span(cnt, base, nat2, ace, ao)
            gaps = (hi - lo + 1) - nnat
            if gaps > wilds:
                if why != WHY_TWO_WILDS:
                    why = WHY_GAPS
                continue
            if wilds < best_w:
                best_w = wilds
                b_nat2 = nat2
                b_lo = lo
                b_hi = hi
                if gaps == 1:
                    b_ws = _gap_slot(cnt, base, nat2, ace, ao, lo, hi)
                elif wilds == 1:
                    b_ws = WILD_FREE
                else:
                    b_ws = WILD_NONE
    if best_w == 99:
        if ace == 1 and c2 > 0 and why == WHY_GAPS:
            why = WHY_WRAP
        return KIND_NONE, 0, 0, -1, 0, 0, WILD_NONE, why
    return KIND_SEQ, best_w, b_nat2, s0, b_lo, b_hi, b_ws, WHY_OK


@njit(cache=True, _nrt=False)
def meld_points(cnt, values):
    """Sum of card values (R2) of the multiset ``cnt`` (points)."""
    p = 0
    for f in range(53):
        p += cnt[f] * values[f]
    return p


@njit(cache=True, _nrt=False)
def burraco_class(cnt, set_mask, semi_rule):
    """Class of a meld for scoring (R27-R29, R56).

    Returns
    -------
    int
        0 not a burraco (fewer than 7 cards or invalid), 1 clean, 2 dirty,
        3 dirty that qualifies as semi-clean under ``semi_rule`` (0 =
        ``adjacent_run``, 1 = ``wild_at_end``); the caller decides whether
        semi-clean scores as such (option ``semi_clean_bonus``).
    """
    n = 0
    for f in range(53):
        n += cnt[f]
    if n < BURRACO_LEN:
        return 0
    kind, nwild, nat2, key, lo, hi, wslot, why = analyze(cnt, set_mask)
    if kind == KIND_NONE:
        return 0
    if nwild == 0:
        return 1
    nnat = n - nwild
    if kind == KIND_SET:
        if nnat >= BURRACO_LEN:
            return 3
        return 2
    # a sequence with a natural ace and a natural 2 can have two fewest-wild
    # readings (ace low, or ace high with the 2 alone in slot 2); the meld is
    # semi-clean if either reading is (the arrangement a player would show)
    base = 13 * key
    n_ace_opts = 1
    if cnt[base] == 1:
        n_ace_opts = 2
    for ao in range(n_ace_opts):
        lo2, hi2, nn = _span(cnt, base, nat2, cnt[base], ao)
        gaps = (hi2 - lo2 + 1) - nn
        if gaps > 1:
            continue
        if gaps == 0:
            if nn >= BURRACO_LEN:
                return 3
        elif semi_rule == 0:
            ws = _gap_slot(cnt, base, nat2, cnt[base], ao, lo2, hi2)
            if ws - lo2 >= BURRACO_LEN or hi2 - ws >= BURRACO_LEN:
                return 3
    return 2


@njit(cache=True, _nrt=False)
def layoff_step(mcnt, mkind, mnwild, mnat2, mkey, c, set_mask):
    """Is adding the card with count index ``c`` to a meld one legal step (R24)?

    Parameters
    ----------
    mcnt : numpy.ndarray
        ``int64[53]`` counts of the meld (temporarily mutated, restored).
    mkind, mnwild, mnat2, mkey : int
        The meld's kind and canonical reading (from :func:`analyze`).
    c : int
        Count index of the added card (0..52).
    set_mask : int
        Option ``set_ranks`` as a bit mask.

    Returns
    -------
    tuple of int
        ``(ok, kind, nwild, nat2, key, lo, hi, wslot, reason)``; ``ok`` is 1
        when legal, and the rest is the canonical reading of the new meld.
        ``reason`` 0 when legal; ``WHY_TWO_WILDS`` for a refused wild (R24b).
    """
    is_joker = c == JOKER
    is_two = (not is_joker) and (c % 13 == 1)
    if mnwild > 0:
        if is_joker:
            return 0, 0, 0, 0, -1, 0, 0, WILD_NONE, WHY_TWO_WILDS
        if is_two and (mkind != KIND_SEQ or c // 13 != mkey):
            return 0, 0, 0, 0, -1, 0, 0, WILD_NONE, WHY_TWO_WILDS
    mcnt[c] += 1
    kind, nwild, nat2, key, lo, hi, wslot, why = analyze(mcnt, set_mask)
    mcnt[c] -= 1
    if kind == KIND_NONE:
        return 0, kind, nwild, nat2, key, lo, hi, wslot, why
    if kind != mkind:
        return 0, kind, nwild, nat2, key, lo, hi, wslot, WHY_MIXED
    if mnwild > 0 and is_two and nat2 != mnat2 + 1:
        return 0, kind, nwild, nat2, key, lo, hi, wslot, WHY_TWO_WILDS
    return 1, kind, nwild, nat2, key, lo, hi, wslot, WHY_OK


# ---------------------------------------------------------------- lock_two_roles (R25)
@njit(cache=True, _nrt=False)
def move_twos(cnt, key, k):
    """Count ``k`` 2s of suit ``key`` as 2s of the next suit (``k`` < 0 moves them back).

    In a sequence of suit ``key`` a moved 2 is a wild in every reading (R13),
    like the same-suit 2 it stands for when that 2's stored role is wild
    (option ``lock_two_roles``, R25).  Mutates ``cnt``; card values are
    unchanged (every 2 is worth 20, R2).
    """
    cnt[13 * key + 1] -= k
    cnt[13 * ((key + 1) % 4) + 1] += k


@njit(cache=True, _nrt=False)
def analyze_roles(cnt, set_mask, key, nat, free):
    """:func:`analyze` of a sequence of suit ``key`` whose 2s keep stored roles (R25).

    ``nat`` (0/1) of the suit's 2s in ``cnt`` are stored as natural, ``free``
    (0/1) has no role yet (the 2 being added, which takes its role from this
    reading) and the rest are stored wilds.  The result is the fewest-wild
    reading among those that keep the stored wilds wild (R20); the caller
    checks that ``nat2 >= nat`` (the stored natural stays natural).
    ``cnt`` is restored before returning.
    """
    w = cnt[13 * key + 1] - nat - free
    move_twos(cnt, key, w)
    kind, nwild, nat2, k2, lo, hi, wslot, why = analyze(cnt, set_mask)
    move_twos(cnt, key, -w)
    return kind, nwild, nat2, k2, lo, hi, wslot, why


@njit(cache=True, _nrt=False)
def layoff_step_roles(mcnt, mkind, mnwild, mnat2, mkey, c, set_mask):
    """:func:`layoff_step` under ``lock_two_roles`` (R24, R25).

    ``mnwild``/``mnat2`` are the meld's reading with its stored roles
    (``mnat2`` of its own-suit 2s natural, the others wild).  The step is
    legal iff :func:`layoff_step` allows it with the stored wilds counted as
    wilds of another suit and the stored natural 2 stays natural; an added
    2 of the suit takes the role of the fewest-wild such reading, which the
    returned reading gives (``nat2`` is the new stored count).  Sets have no
    roles (every 2 in a set is a wild): plain :func:`layoff_step`.
    """
    if mkind != KIND_SEQ:
        return layoff_step(mcnt, mkind, mnwild, mnat2, mkey, c, set_mask)
    w = mcnt[13 * mkey + 1] - mnat2
    move_twos(mcnt, mkey, w)
    ok, kind, nwild, nat2, key, lo, hi, wslot, why = layoff_step(
        mcnt, mkind, mnwild, mnat2, mkey, c, set_mask)
    move_twos(mcnt, mkey, -w)
    if ok == 1 and nat2 < mnat2:
        ok = 0
        why = WHY_ROLES              # the natural 2 would have to become a wild
    elif ok == 0 and layoff_step(mcnt, mkind, mnwild, mnat2, mkey, c, set_mask)[0] == 1:
        why = WHY_ROLES              # legal only if a stored wild 2 turned natural
    return ok, kind, nwild, nat2, key, lo, hi, wslot, why


@njit(cache=True, _nrt=False)
def burraco_class_roles(cnt, key, nat, semi_rule):
    """:func:`burraco_class` of a sequence of suit ``key`` whose 2s keep stored
    roles, ``nat`` (0/1) of them natural (R25, R27-R29).  ``cnt`` is restored."""
    w = cnt[13 * key + 1] - nat
    move_twos(cnt, key, w)
    cls = burraco_class(cnt, ANY_RANK, semi_rule)
    move_twos(cnt, key, -w)
    return cls
