"""Melds (RULES.md R13-R20, R24, R29): every R18 reading of a multiset, the canonical
reading (fewest wilds, R20), why a candidate is not a meld, the semi-clean test and the
lay-off rule (single steps (a) and (b), an action legal iff some order of steps is)."""
from __future__ import annotations

from dataclasses import dataclass

from .cards import (ACE, RANK_TEXT, TWO, card_text, face_of, faces_text, fold, is_joker,
                    is_two, is_wild_card, rank_of, seq_slot, suit_of)


@dataclass(frozen=True)
class Reading:
    """One interpretation of a multiset as a meld (R18)."""

    kind: str                 # "set" | "sequence"
    nwild: int                # wilds in this reading (a natural 2 is not a wild, R13/R14)
    nat2: bool                # a 2 sits as natural in slot 2
    ace_slot: int | None      # 1 or 14 if a natural ace, else None
    wild_state: str           # "none" | "fixed" | "free" (R19); sets: "none"/"set"
    wild_slot: int | None     # slot of a fixed wild
    slots: tuple              # sorted natural slots (sequences)
    rank: int | None = None   # set rank
    suit: int | None = None   # sequence suit


@dataclass(frozen=True)
class MeldInfo:
    valid: bool
    kind: str | None = None
    readings: tuple = ()      # every R18 interpretation
    canonical: tuple = ()     # those with the fewest wilds (R20)
    rule: str = ""            # rule ID when invalid
    reason: str = ""

    @property
    def nwild(self) -> int:
        return self.canonical[0].nwild if self.canonical else 0

    @property
    def clean(self) -> bool:
        return self.valid and self.nwild == 0

    @property
    def nat2(self) -> bool:
        return bool(self.canonical) and self.canonical[0].nat2

    @property
    def suit(self):
        return self.canonical[0].suit if self.canonical else None

    @property
    def rank(self):
        return self.canonical[0].rank if self.canonical else None


ALL_SET_RANKS = frozenset(r for r in range(13) if r != TWO)


def _sequence_readings(faces, max_wild: int = 1) -> list:
    """R18 literally: every interpretation of the multiset as a sequence.

    ``max_wild`` > 1 relaxes R14 (only used to name the rule an invalid meld breaks).
    """
    n = len(faces)
    if not 3 <= n <= 14:
        return []
    jokers = [f for f in faces if is_joker(f)]
    twos = [f for f in faces if is_two(f)]
    others = [f for f in faces if not is_joker(f) and not is_two(f)]
    if not others:
        return []
    suits = {suit_of(f) for f in others}
    if len(suits) != 1:
        return []
    s = suits.pop()
    out = []
    nat2_choices = [None] + [f for f in twos if suit_of(f) == s]
    for nat2 in nat2_choices:
        nwild = len(jokers) + len(twos) - (1 if nat2 is not None else 0)
        if nwild > max_wild:
            continue
        naturals = list(others) + ([nat2] if nat2 is not None else [])
        n_aces = sum(1 for f in naturals if rank_of(f) == ACE)
        if n_aces > 1:
            continue
        for ace_slot in ((1, 14) if n_aces else (None,)):
            slots = []
            for f in naturals:
                r = rank_of(f)
                slots.append(ace_slot if r == ACE else seq_slot(r))
            if len(set(slots)) != len(slots):
                continue
            lo, hi = min(slots), max(slots)
            gaps = (hi - lo + 1) - len(naturals)
            if gaps > nwild:
                continue
            if gaps == 1:
                missing = (set(range(lo, hi + 1)) - set(slots)).pop()
                state, wslot = "fixed", missing
            elif nwild == 1:
                state, wslot = "free", None
            else:
                state, wslot = "none", None
            out.append(Reading("sequence", nwild, nat2 is not None, ace_slot, state, wslot,
                               tuple(sorted(slots)), None, s))
    return out


def _set_reading(faces, set_ranks, max_wild: int = 1) -> list:
    """R16/R18: natural cards of one allowed rank plus at most one wild (every 2 is wild)."""
    n = len(faces)
    if not 3 <= n <= 9:
        return []
    wilds = [f for f in faces if is_wild_card(f)]
    others = [f for f in faces if not is_wild_card(f)]
    if len(wilds) > max_wild or not others:
        return []
    ranks = {rank_of(f) for f in others}
    if len(ranks) != 1:
        return []
    r = ranks.pop()
    if r not in set_ranks:
        return []
    return [Reading("set", len(wilds), False, None, "set" if wilds else "none", None, (), r, None)]


def analyze(faces, set_ranks=ALL_SET_RANKS) -> MeldInfo:
    """Validity, kind, all readings and the canonical reading of a candidate meld.

    ``faces``: card faces (ids are fine too: only ``face_of`` matters).
    """
    faces = [fold(face_of(f)) for f in faces]
    readings = _sequence_readings(faces) + _set_reading(faces, set_ranks)
    if readings:
        kinds = {rd.kind for rd in readings}
        assert len(kinds) == 1, "R18: no multiset is both a set and a sequence"
        best = min(rd.nwild for rd in readings)
        canon = tuple(rd for rd in readings if rd.nwild == best)
        return MeldInfo(True, kinds.pop(), tuple(readings), canon)
    return MeldInfo(False, None, (), (), *_why_invalid(faces, set_ranks))


def _why_invalid(faces, set_ranks) -> tuple:
    """Rule ID and message for an invalid candidate (first matching reason)."""
    n = len(faces)
    jokers = sum(1 for f in faces if is_joker(f))
    twos = [f for f in faces if is_two(f)]
    others = [f for f in faces if not is_wild_card(f)]
    txt = faces_text(faces)
    if n < 3:
        return "R15", f"a meld needs at least 3 cards: {txt}"
    if not others:
        return "R14", f"no natural card besides 2s/jokers, so at least two wilds: {txt}"
    one_rank = len({rank_of(f) for f in others}) == 1
    one_suit = len({suit_of(f) for f in others}) == 1
    # valid if R14 allowed more wilds -> the meld breaks R14
    if _sequence_readings(faces, max_wild=99) or _set_reading(faces, set_ranks, max_wild=99):
        return "R14", f"more than one wild in the meld: {txt}"
    if one_rank and (not one_suit or len(others) >= 2):     # reads as a set attempt
        r = rank_of(others[0])
        if r not in set_ranks:
            return "R16", f"rank {RANK_TEXT[r]} may not form a set (set_ranks): {txt}"
        return "R16", f"a set has 3..9 cards: {txt}"
    if not one_suit:
        return "R17", f"neither one rank (set) nor one suit (sequence): {txt}"
    if n > 14:
        return "R17", f"a sequence has at most 14 cards: {txt}"
    return "R17", f"no R18 interpretation as a sequence (duplicate slot, two aces, " \
                  f"wrap-around or a gap the wild cannot fill): {txt}"


def semi_clean(info: MeldInfo, n_cards: int, rule: str) -> bool:
    """R29 semi-clean test of a dirty burraco (any canonical reading qualifying)."""
    if not info.valid or info.nwild != 1 or n_cards < 7:
        return False
    for rd in info.canonical:
        naturals = n_cards - 1
        if rd.kind == "set":
            if naturals >= 7:
                return True
            continue
        if rd.wild_state == "free":
            if naturals >= 7:
                return True
            continue
        if rd.wild_state == "fixed" and rule == "adjacent_run":
            slots = set(rd.slots)
            g = rd.wild_slot
            up = 0
            while g + up + 1 in slots:
                up += 1
            down = 0
            while g - down - 1 in slots:
                down += 1
            if max(up, down) >= 7:
                return True
    return False


def layoff_step(meld_faces, card, set_ranks=ALL_SET_RANKS, info=None):
    """R24 single step: add ``card`` to the meld.  Returns (legal, reason, new MeldInfo)."""
    meld_faces = [fold(face_of(f)) for f in meld_faces]
    c = fold(face_of(card))
    if info is None:
        info = analyze(meld_faces, set_ranks)
    if not info.valid:
        return False, "the meld on the table is not valid", None
    new = analyze(meld_faces + [c], set_ranks)
    if not new.valid:
        return False, f"R24(a): {faces_text(meld_faces + [c])} is not a valid meld", new
    if new.kind != info.kind:
        return False, f"R24(a): the meld would change kind ({info.kind} -> {new.kind})", new
    if info.nwild >= 1:
        if is_joker(c):
            return False, "R24(b): the meld already has a wild; a joker is refused", new
        if is_two(c):
            if info.kind != "sequence" or suit_of(c) != info.suit:
                return False, "R24(b): the meld already has a wild; a 2 of another suit is " \
                              "refused", new
            if not (new.nat2 and not info.nat2):
                return False, "R24(b): the added 2 does not enter as the natural 2", new
    return True, "", new


def layoff_action(meld_faces, cards, set_ranks=ALL_SET_RANKS):
    """R24: legal iff the cards can be added one at a time in some order.

    Returns (legal, reason).
    """
    meld_faces = tuple(sorted(fold(face_of(f)) for f in meld_faces))
    todo = tuple(sorted(fold(face_of(f)) for f in cards))
    if not todo:
        return False, "R24: a lay-off adds at least one card"
    failed = set()
    first_reason = []

    def dfs(meld, rest):
        if not rest:
            return True
        key = (meld, rest)
        if key in failed:
            return False
        for i, c in enumerate(rest):
            if i and rest[i - 1] == c:
                continue
            ok, why, _ = layoff_step(list(meld), c, set_ranks)
            if not ok:
                if not first_reason:
                    first_reason.append(f"{card_text(c)}: {why}")
                continue
            if dfs(tuple(sorted(meld + (c,))), rest[:i] + rest[i + 1:]):
                return True
        failed.add(key)
        return False

    if dfs(meld_faces, todo):
        return True, ""
    why = first_reason[0] if first_reason else "no legal order"
    return False, (f"R24: no order of single steps adds {faces_text(todo)} to "
                   f"{faces_text(meld_faces)} ({why})")
