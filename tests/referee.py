"""Independent referee of a simulated Burraco hand (issue 3).

Re-checks every action of one hand from its replay document against RULES.md,
sharing NO code with the engine: this module imports only the standard
library (a test enforces it).  The meld rules are implemented literally from
RULES.md R13-R20 (the R18 search over all interpretations, canonical reading =
fewest wilds), the lay-off rule from R24 (single steps (a) and (b), an action
is legal iff some order of single steps is), and the turn, pozzetto, closing,
end and scoring rules from sections 8-12.  Under option ``lock_two_roles``
(R25) it keeps the role of every 2 on the table per card id and accepts a
lay-off only if some R18 reading keeps every stored role (violation rule
``R25``); classes (scoring, R45 clean burraco) are judged with those roles.

Usage
-----
``check(doc)`` returns a list of :class:`Violation` (empty = clean);
``check_strict(doc)`` raises AssertionError listing all of them.
``legal_moves(prefix, phase, seat)`` lists the legal moves at a decision, judged
by this module's rules after replaying a document prefix (the deal and the events
so far); ``legal_actions(prefix, phase, seat, space)`` writes them as action ids
of a layout the caller gives (:class:`ActionSpace`: the engine's ids, read by the
test, so that this module still imports no engine code).
``python -m tests.referee --hands N [--seed S] [--strategy NAME]`` referees
simulated hands (the driver lives in ``tests/referee_cli.py`` and is the only
part that imports ``sim``).

Replay document (produced by ``sim.replay``)::

    {"seed", "hand_index", "rules": {option: value}, "strategies": [...x4],
     "dealer", "first_player",
     "deal": {"hands", "pozzetti", "discard", "stock" (top first)}  (notation),
     "deal_ids": same with card ids,
     "events": [{"turn", "seat", "type", ...}],
     "result": {"end_reason", "score_t0", ... every per-hand record column}}

A hand played on from a sampled world (``sim.Game.sample_world``) has a ``start``
block instead of ``deal``/``deal_ids``: the complete state at that moment (hands,
melds, pile, stock, pozzetti, turn, seat and phase, this turn's pickup; schema in
``sim/trace.py``), and the events after it.  The referee checks the start itself
(:meth:`Referee.load_start`: the 108 ids once each, valid melds, counts and a
decision the rules allow), then the events and the result as for a dealt hand.

Rule IDs used in violations: the RULES.md IDs (R5 ... R59), plus
``CONS`` (card conservation, RULES.md section 19: a card not where the event
says, or not exactly one place for every id), ``DOC`` (malformed document:
missing field, card text not matching its id, wrong meld index),
``OPT`` (an option the engine does not support is set) and
``REC`` (a record column other than the scores disagrees).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from itertools import product

# =============================================================================== cards (R1, R2, R4)
RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_TEXT = ("♣", "♦", "♥", "♠")
JOKER_TEXT = "JK"
N_IDS = 108
JOKER = 52          # faces 52 and 53 are jokers; this module folds them to 52
ACE, TWO = 0, 1


def face_of(cid: int) -> int:
    """Face 0..53 of a card id (id = 54*copy + face, DESIGN.md section 3)."""
    return cid % 54


def fold(face: int) -> int:
    """Face with both joker faces folded to 52 (jokers are interchangeable)."""
    return JOKER if face >= 52 else face


def is_joker(f: int) -> bool:
    return f >= 52


def rank_of(f: int) -> int:
    return f % 13


def suit_of(f: int) -> int:
    return f // 13


def is_two(f: int) -> bool:
    return f < 52 and f % 13 == TWO


def is_wild_card(f: int) -> bool:
    """Jokers and 2s (R12); whether a 2 acts as a wild depends on the meld (R13)."""
    return is_joker(f) or is_two(f)


def value(f: int) -> int:
    """Point value of a card face (R2)."""
    if is_joker(f):
        return 30
    r = rank_of(f)
    if r == TWO:
        return 20
    if r == ACE:
        return 15
    if r >= 7:      # 8, 9, 10, J, Q, K
        return 10
    return 5        # 3..7


def card_text(cid: int) -> str:
    """Notation of a card id: rank + suit symbol, or JK."""
    f = face_of(cid)
    if is_joker(f):
        return JOKER_TEXT
    return RANK_TEXT[rank_of(f)] + SUIT_TEXT[suit_of(f)]


def faces_text(faces) -> str:
    return " ".join(card_text(f) for f in faces)


_RANK_IN = {t: i for i, t in enumerate(RANK_TEXT)}
_RANK_IN["T"] = 9
_SUIT_IN = {"♣": 0, "C": 0, "♦": 1, "D": 1, "♥": 2, "H": 2, "♠": 3, "S": 3}


def parse_face(token: str) -> int:
    """Face of one notation token (``10♥``, ``Th``, ``JK``)."""
    t = token.strip().upper()
    if t == JOKER_TEXT:
        return JOKER
    r, s = _RANK_IN.get(t[:-1]), _SUIT_IN.get(t[-1:])
    if r is None or s is None:
        raise ValueError(f"bad card {token!r}")
    return 13 * s + r


class Deck:
    """Hands out distinct physical ids for notation (lowest free copy first)."""

    def __init__(self):
        self.used: set = set()

    def take(self, token: str) -> int:
        f = parse_face(token)
        cands = ([52, 53, 106, 107] if f == JOKER else [f, 54 + f])
        for cid in cands:
            if cid not in self.used:
                self.used.add(cid)
                return cid
        raise ValueError(f"no copy of {token!r} left (R1)")

    def ids(self, text: str) -> list:
        return [self.take(t) for t in text.replace(",", " ").split()]


def seq_slot(r: int) -> int:
    """Sequence slot of a rank (R4); the ace's slot (1 or 14) is chosen by the caller."""
    return r + 1        # 2 -> 2, ..., K -> 13 (ace handled separately)


# =============================================================================== melds (R13-R20)
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


# ========================================================================== lock_two_roles (R25)
# With the option, every 2 in a meld has a stored role, "natural" or "wild", given when it
# entered (the canonical reading of the meld right after that step, R20) and kept for the
# rest of the hand.  Roles are tracked per card id (the two copies of a 2 may differ: one
# natural, one wild); jokers are always wild and not tracked.
def role_readings(ids, roles, set_ranks=ALL_SET_RANKS) -> list:
    """R18 readings of the meld ``ids`` that keep every stored role in ``roles``
    (``{id: "natural" | "wild"}``; a 2 missing from it may take either role).

    Returns a list of ``(Reading, {id of every 2: its role in that reading})``: one entry
    per reading and choice of which copy of the suit's 2 is the natural one.
    """
    ids = list(ids)
    twos = [c for c in ids if is_two(fold(face_of(c)))]
    out = []
    for rd in analyze(ids, set_ranks).readings:
        if rd.kind == "sequence" and rd.nat2:
            natural = [c for c in twos if suit_of(face_of(c)) == rd.suit]
        else:
            natural = [None]
        for nat_id in natural:
            role = {c: "natural" if c == nat_id else "wild" for c in twos}
            if all(roles.get(c, role[c]) == role[c] for c in twos):
                out.append((rd, role))
    return out


def locked_info(ids, roles, set_ranks=ALL_SET_RANKS) -> tuple:
    """The meld read with its stored roles: ``(MeldInfo, roles)``.

    The MeldInfo's readings are those keeping the roles and its canonical readings the
    fewest-wild ones among them (R20 applied to what the roles allow); the roles returned
    are those of the first canonical reading, so a 2 without a stored role gets the role
    it takes on entering (R25).  Invalid (rule R25) when no reading keeps the roles.
    """
    kept = role_readings(ids, roles, set_ranks)
    if not kept:
        info = analyze(ids, set_ranks)
        if not info.valid:
            return info, dict(roles)
        return MeldInfo(False, None, (), (), "R25", "lock_two_roles: no reading of "
                        f"{faces_text(fold(face_of(c)) for c in ids)} keeps the roles its 2s "
                        "entered with"), dict(roles)
    best = min(rd.nwild for rd, _ in kept)
    canon = [(rd, role) for rd, role in kept if rd.nwild == best]
    info = MeldInfo(True, canon[0][0].kind, tuple(rd for rd, _ in kept),
                    tuple(rd for rd, _ in canon))
    return info, dict(canon[0][1])


def layoff_step_locked(meld_ids, roles, card, set_ranks=ALL_SET_RANKS):
    """R24 single step under ``lock_two_roles`` (R25).

    Returns ``(legal, rule, reason, new roles)``.  (a) the new multiset is a valid meld of
    the same kind; (b) judged on the meld read with its stored roles: with a wild, no joker,
    and a 2 only of the sequence's suit entering as the natural 2; (R25) some reading of
    the new multiset keeps every stored role.  The added 2 takes its role from the
    fewest-wild reading that keeps them.
    """
    meld_ids = list(meld_ids)
    old, _ = locked_info(meld_ids, roles, set_ranks)
    if not old.valid:
        return False, old.rule or "R24", "the meld on the table is not valid", dict(roles)
    new_ids = meld_ids + [card]
    plain = analyze(new_ids, set_ranks)
    c = fold(face_of(card))
    text = faces_text(fold(face_of(x)) for x in new_ids)
    if not plain.valid:
        return False, "R24", f"R24(a): {text} is not a valid meld", dict(roles)
    if plain.kind != old.kind:
        return False, "R24", f"R24(a): the meld would change kind ({old.kind} -> " \
                             f"{plain.kind})", dict(roles)
    kept = role_readings(new_ids, roles, set_ranks)
    if old.nwild >= 1:
        if is_joker(c):
            return False, "R24", "R24(b): the meld already has a wild; a joker is refused", \
                dict(roles)
        if is_two(c):
            if old.kind != "sequence" or suit_of(c) != old.suit:
                return False, "R24", "R24(b): the meld already has a wild; a 2 of another " \
                                     "suit is refused", dict(roles)
            kept = [(rd, role) for rd, role in kept if role[card] == "natural"]
            if not kept:
                return False, "R24", "R24(b): the added 2 cannot enter as the natural 2 " \
                                     "without changing a stored role", dict(roles)
    if not kept:
        return False, "R25", f"lock_two_roles: no reading of {text} keeps the role each 2 " \
                             "entered with (a natural 2 stays natural, a wild 2 stays wild)", \
            dict(roles)
    best = min(rd.nwild for rd, _ in kept)
    role = next(role for rd, role in kept if rd.nwild == best)
    return True, "", "", role


def layoff_action_locked(meld_ids, roles, cards, set_ranks=ALL_SET_RANKS):
    """R24 + R25: a lay-off of ``cards`` (ids) under ``lock_two_roles``.

    Legal iff the cards can be added one at a time in some order, each step legal
    (:func:`layoff_step_locked`).  When several orders are legal their roles may differ
    (a 2 laid before or after the card that lets it sit in slot 2); the action then keeps
    the order that leaves the most natural 2s (the 2 goes where it is natural when some
    order lets it).  Returns ``(legal, rule, reason, new roles)``.
    """
    cards = list(cards)
    if not cards:
        return False, "R24", "R24: a lay-off adds at least one card", dict(roles)
    memo = {}
    first = []

    def dfs(ids, role, rest):
        if not rest:
            return role
        key = (tuple(sorted(ids)), tuple(sorted(role.items())), tuple(sorted(rest)))
        if key in memo:
            return memo[key]
        best = None
        for c in rest:
            ok, rule, why, new_role = layoff_step_locked(ids, role, c, set_ranks)
            if not ok:
                if not first:
                    first.append((rule, f"{card_text(c)}: {why}"))
                continue
            got = dfs(ids + [c], new_role, [x for x in rest if x != c])
            if got is not None and (best is None or _naturals(got) > _naturals(best)):
                best = got
        memo[key] = best
        return best

    got = dfs(list(meld_ids), dict(roles), cards)
    if got is not None:
        return True, "", "", got
    rule, why = first[0] if first else ("R24", "no legal order")
    added = faces_text(fold(face_of(c)) for c in cards)
    meld = faces_text(fold(face_of(c)) for c in meld_ids)
    return False, rule, f"no order of single steps adds {added} to {meld} ({why})", dict(roles)


def _naturals(role: dict) -> int:
    return sum(1 for r in role.values() if r == "natural")


# =============================================================================== rules options
DEFAULT_RULES = {
    "num_players": 4, "hand_size": 11, "pozzetto_size": 11, "three_player_mode": "solo_18",
    "set_ranks": [t for t in RANK_TEXT if t != "2"], "allow_duplicate_set_rank": False,
    "lock_two_roles": False, "semi_clean_bonus": None, "semi_clean_rule": "adjacent_run",
    "extra_burraco_classes": False, "take_pile_requires_meld": False,
    "forbid_rediscard_single_pile": True, "require_clean_burraco_to_close": False,
    "stock_reserve": 2, "stock_end_mode": "finish_turn", "stall_turn_limit": 12,
    "max_turns_per_hand": 400, "untaken_pozzetto_as_stock": False, "clean_bonus": 200,
    "dirty_bonus": 100, "closing_bonus": 100, "pozzetto_penalty": 100, "target_score": 2005,
    "pile_close_no_bonus": False, "pile_meld_source": "any",
    "three_player_pozzetto_a_size": 18, "three_player_pair_share": "full",
    "three_player_switch_at": 1000, "three_player_target": 2005,
}

#: options this referee (and the engine) does not implement: a doc setting one is reported
UNSUPPORTED = {
    "num_players": lambda v: v not in (2, 3, 4),
}

#: the per-team result keys (suffix _t0, _t1, _t2)
TEAM_KEYS = ("score", "meld_points", "burraco_bonus", "closing_bonus", "hand_points",
             "pozzetto_penalty", "clean_burracos", "dirty_burracos", "semi_clean_burracos",
             "melds", "closed", "pozzetto_taken", "pozzetto_turn", "pozzetto_mode",
             "pile_pickups", "pile_cards")

#: the decisions a ``start`` block may stop at (the engine's phases but "over")
START_PHASES = ("pickup", "place", "meld", "discard")

END_RULE = {"closed": "R47", "stock_exhausted": "R50", "stall": "R51", "turn_cap": "R52"}
END_PREFERENCE = ("closed", "stock_exhausted", "stall", "turn_cap")


# =============================================================================== violations
@dataclass(frozen=True)
class Violation:
    rule: str
    seed: object
    hand_index: object
    turn: int | None        # None: the deal; 0: a document's start; -1: the end
    message: str

    def __str__(self) -> str:
        t = "deal" if self.turn is None else ("end" if self.turn == -1 else
                                              "start" if self.turn == 0 else f"turn {self.turn}")
        return f"[{self.rule}] seed={self.seed} hand={self.hand_index} {t}: {self.message}"


class _Stop(Exception):
    """The document is too broken to go on."""


# =============================================================================== the referee
@dataclass
class _Meld:
    ids: list
    kind: str | None
    valid: bool
    roles: dict | None = None      # lock_two_roles: {id of each 2: "natural" | "wild"} (R25)


@dataclass
class _Turn:
    number: int
    seat: int
    pickup: str | None = None          # "draw" | "take_pile"
    pile_size: int = 0                 # cards taken with the pile
    barred: int | None = None          # R36 card id
    actions: int = 0                   # meld-phase actions (meld, lay-off, al-volo pozzetto)
    placed: int = 0                    # meld and lay-off events (cards placed on the table)
    discarded: bool = False
    hand_after_discard: int = -1
    closed: bool = False               # the discard emptied the hand with the pozzetto taken
    going_to_pozzetto: bool = False    # the discard emptied the hand, pozzetto not taken
    end_event: dict | None = None


class Referee:
    """Replays one document and collects violations.  Use :func:`check`."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.v: list = []
        self.seed = doc.get("seed")
        self.hand_index = doc.get("hand_index")
        self.turn_no: int | None = None
        self.turn0 = 1              # the first turn replayed: 1, or a start's turn
        self.resume = None          # a start in the middle of a turn: that turn (_Turn)
        self.resume_phase = None    # and where it stands: "meld", or "discard" (meld phase over)

    # ----------------------------------------------------------------- helpers
    def bad(self, rule: str, msg: str, turn="current") -> None:
        t = self.turn_no if turn == "current" else turn
        self.v.append(Violation(rule, self.seed, self.hand_index, t, msg))

    def team_of(self, seat: int) -> int:
        """R5: partners sit opposite (team 0 = seats 0, 2); with 2 players (R61) a
        team is one player, seat 0 or 1; with 3 (R62, R63) each player starts on a
        table of their own (see :meth:`form_pair`)."""
        return self.team[seat]

    def seats_of(self, team: int) -> tuple:
        return tuple(s for s in range(self.n_seats) if self.team[s] == team)

    # ----------------------------------------------------------------- rules
    def load_rules(self) -> None:
        given = self.doc.get("rules") or {}
        if not isinstance(given, dict):
            self.bad("DOC", "rules is not a mapping", None)
            given = {}
        r = dict(DEFAULT_RULES)
        for k, val in given.items():
            if k not in DEFAULT_RULES:
                self.bad("DOC", f"unknown rules option {k!r}", None)
            r[k] = val
        for k, unsupported in UNSUPPORTED.items():
            try:
                if unsupported(r[k]):
                    self.bad("OPT", f"unsupported option: {k}={r[k]!r} (the referee checks "
                                    "the default behaviour instead)", None)
            except Exception:           # noqa: BLE001 - odd value type
                self.bad("OPT", f"unsupported option value: {k}={r[k]!r}", None)
        try:
            self.set_ranks = frozenset(_RANK_IN[str(x).upper()] for x in r["set_ranks"])
        except (KeyError, TypeError):
            self.bad("DOC", f"bad set_ranks {r['set_ranks']!r}", None)
            self.set_ranks = ALL_SET_RANKS
        if TWO in self.set_ranks:
            self.bad("R16", "set_ranks contains 2 (a set of twos is impossible)", None)
        self.rules = r
        self.lock = bool(r["lock_two_roles"])
        self.reserve = int(r["stock_reserve"])
        self.n_seats = r["num_players"] if r["num_players"] in (2, 3, 4) else 4
        self.team = [s if self.n_seats == 3 else s % 2 for s in range(self.n_seats)]
        self.solo18 = self.n_seats == 3 and r["three_player_mode"] == "solo_18"
        ps = r["pozzetto_size"]
        if self.n_seats != 3:
            self.poz_sizes = [ps, ps]
        elif self.solo18:
            self.poz_sizes = [r["three_player_pozzetto_a_size"], ps]      # R62: A, then B
        else:
            self.poz_sizes = [ps, ps, ps]                                  # R63
        self.solo = -1

    # ----------------------------------------------------------------- deal (R8, R6)
    def load_deal(self) -> None:
        if "start" in self.doc:
            self.load_start()
            return
        d = self.doc.get("deal_ids")
        if not isinstance(d, dict):
            self.bad("DOC", "no deal_ids", None)
            raise _Stop
        try:
            hands = [list(map(int, h)) for h in d["hands"]]
            pozzetti = [list(map(int, p)) for p in d["pozzetti"]]
            disc = int(d["discard"])
            stock = list(map(int, d["stock"]))
        except (KeyError, TypeError, ValueError) as exc:
            self.bad("DOC", f"malformed deal_ids: {exc!r}", None)
            raise _Stop from None
        hs, ps = self.rules["hand_size"], self.rules["pozzetto_size"]
        n = self.n_seats
        if len(hands) != n or any(len(h) != hs for h in hands):
            self.bad("R8" if n == 4 else "R61",
                     f"hands must be {n} x {hs} cards, got {[len(h) for h in hands]}", None)
        if [len(p) for p in pozzetti] != self.poz_sizes:
            self.bad("R8" if n != 3 else "R62", f"pozzetti must hold {self.poz_sizes} cards, "
                                                f"got {[len(p) for p in pozzetti]}", None)
        expect_stock = N_IDS - n * hs - sum(self.poz_sizes) - 1
        if len(stock) != expect_stock:
            self.bad("R8", f"stock must hold {expect_stock} cards, got {len(stock)}", None)
        every = [c for h in hands for c in h] + [c for p in pozzetti for c in p] + [disc] + stock
        why = not_each_once(every)
        if why:
            self.bad("R8", f"the deal is not a permutation of the 108 ids (R1): {why}", None)
        # notation of the deal
        dn = self.doc.get("deal")
        if isinstance(dn, dict):
            try:
                pairs = ([(a, b) for h, hn in zip(hands, dn["hands"]) for a, b in zip(h, hn)]
                         + [(a, b) for p, pn in zip(pozzetti, dn["pozzetti"])
                            for a, b in zip(p, pn)]
                         + [(disc, dn["discard"])] + list(zip(stock, dn["stock"])))
                wrong = [(a, b) for a, b in pairs if card_text(a) != b]
                if wrong:
                    self.bad("DOC", f"deal notation does not match deal_ids, e.g. id {wrong[0][0]}"
                                    f" is {card_text(wrong[0][0])}, written {wrong[0][1]!r}", None)
            except (KeyError, TypeError):
                self.bad("DOC", "malformed deal notation", None)
        else:
            self.bad("DOC", "no deal (notation)", None)
        self.hands = [list(h) for h in hands]
        self.pozzetti = [list(p) for p in pozzetti]
        self.poz_left = [True] * len(pozzetti)  # pozzetto k still on the table
        self.pile = [disc]
        self.stock = list(stock)                # top first
        self.tables = [[], [], []]              # per team slot: list of _Meld
        self.poz_team = [None, None, None]      # per team slot: (turn, mode, index k)
        self.stall = 0
        self.pile_pickups = [0, 0, 0]
        self.pile_cards = [0, 0, 0]
        self.load_dealer()

    def load_dealer(self) -> None:
        """R6: the dealer, and the first player after it."""
        n = self.n_seats
        dealer, first = self.doc.get("dealer"), self.doc.get("first_player")
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            self.bad("DOC", f"bad dealer {dealer!r}", None)
            dealer = 0
        if first != (dealer + 1) % n:
            self.bad("R6", f"first_player {first!r} is not the player after dealer {dealer}",
                     None)
        self.dealer = dealer
        self.first = first if isinstance(first, int) and 0 <= first < n else (dealer + 1) % n
        self.first_player = self.first          # self.first: the seat of turn self.turn0

    # ----------------------------------------------------------------- start (a sampled world)
    def load_start(self) -> None:
        """Load the ``start`` block of a document (a hand played on from a sampled
        world, issue 13) in place of a deal, and check that the rules can reach it:
        each of the 108 ids in exactly one place (R1); every meld valid (R14-R20), one
        set per rank on a side (R23; a 3-player pair may keep two, R62), roles its 2s
        can hold (R25, ``lock_two_roles``), on a side some seat plays for (R21); the
        pozzetti handed out in order, one per side (R40-R43, R53, R62), the ones left
        whole (R8); no empty hand (R38, R41); a stock, pile, stall counter and turn the
        rules allow (R32, R33, R50-R52); the seat whose turn it is (R5, R6); a phase
        and a turn so far that can be (R34, R36, R50)."""
        s = self.doc.get("start")
        n = self.n_seats
        try:
            turn, seat, phase = int(s["turn"]), int(s["seat"]), s["phase"]
            hands = [[int(c) for c in h] for h in s["hand_ids"]]
            pile = [int(c) for c in s["pile_ids"]]
            stock = [int(c) for c in s["stock_ids"]]
            melds = [[([int(c) for c in m["card_ids"]], m.get("natural_twos")) for m in side]
                     for side in s["melds"]]
            pozzetti = [dict(p) for p in s["pozzetti"]]
            stall = int(s.get("stall", 0))
            counters = [[int(x) for x in s.get(key) or []] for key in ("pile_pickups",
                                                                      "pile_cards")]
            tt = None if s.get("this_turn") is None else dict(s["this_turn"])
        except (KeyError, TypeError, ValueError) as exc:
            self.bad("DOC", f"malformed start: {exc!r}", 0)
            raise _Stop from None
        if len(hands) != n or not 0 <= seat < n or phase not in START_PHASES \
                or len(melds) != (3 if n == 3 else 2) or len(pozzetti) != len(self.poz_sizes) \
                or any(len(c) not in (0, len(melds)) for c in counters):
            self.bad("DOC", f"{len(hands)} hands, {len(melds)} sides of melds, "
                            f"{len(pozzetti)} pozzetti, seat {seat}, phase {phase!r}: not a "
                            f"state of {n} players", 0)
            raise _Stop
        self.start_notation(s, hands, pile, stock, melds, pozzetti, tt)
        melds += [[]] * (3 - len(melds))
        left = [p.get("card_ids") or [] for p in pozzetti if p.get("state") == "left"]
        why = not_each_once([c for h in hands for c in h] + pile + stock
                            + [c for side in melds for m, _ in side for c in m]
                            + [c for p in left for c in p])
        if why:
            self.bad("R1", f"the cards are not the 108 ids once each: {why}", 0)
        self.load_dealer()
        self.start_pozzetti(pozzetti, turn)
        self.start_melds(melds)
        for k, h in enumerate(hands):
            if not h:
                self.bad("R38", f"seat {k} holds no card (a hand in play is never empty: "
                                "R38, R41)", 0)
        self.hands, self.pile, self.stock = hands, pile, stock
        self.stall = stall
        sides = 3 if n == 3 else 2
        self.pile_pickups, self.pile_cards = [(c or [0] * sides) + [0] * (3 - sides)
                                              for c in counters]
        self.start_counts(turn, seat, phase, tt)
        self.turn0, self.first = turn, seat

    def start_notation(self, s, hands, pile, stock, melds, pozzetti, tt) -> None:
        """DOC: the start's card texts are those of its ids."""
        try:
            parts = ([(f"hands[{k}]", h, s["hands"][k]) for k, h in enumerate(hands)]
                     + [("pile", pile, s["pile"]), ("stock", stock, s["stock"])]
                     + [(f"melds[{t}][{i}]", m, s["melds"][t][i]["cards"])
                        for t, side in enumerate(melds) for i, (m, _) in enumerate(side)]
                     + [(f"pozzetti[{k}]", p["card_ids"], p["cards"])
                        for k, p in enumerate(pozzetti) if p.get("state") == "left"])
            if tt is not None and tt.get("barred_id") is not None:
                parts.append(("this_turn.barred", [tt["barred_id"]], [tt["barred"]]))
        except (KeyError, TypeError, IndexError) as exc:
            self.bad("DOC", f"card texts missing ({exc!r})", 0)
            return
        for what, ids, text in parts:
            want = [card_text(c) for c in ids]
            if list(text) != want:
                self.bad("DOC", f"{what} is written {list(text)}, its ids are {want}", 0)

    def start_pozzetti(self, pozzetti: list, turn: int) -> None:
        """R40-R43, R53, R62, R8: the start's pozzetti; sets the sides of a
        3-player pair (``solo_18``) and who took which."""
        states = [p.get("state") for p in pozzetti]
        order = [("taken", "left", "stock").index(x) if x in ("taken", "left", "stock")
                 else None for x in states]
        if None in order:
            self.bad("DOC", f"pozzetto states {states} (taken, left or stock)", 0)
            raise _Stop
        if order != sorted(order):
            self.bad("R40", f"pozzetti {states}: they are taken in deal order, and only "
                            "the last ones left become the stock (R53)", 0)
        if "stock" in states and not self.rules["untaken_pozzetto_as_stock"]:
            self.bad("R53", "a pozzetto became the stock although "
                            "untaken_pozzetto_as_stock is off", 0)
        if self.solo18 and states[0] == "taken" and pozzetti[0].get("team") in range(3):
            self.solo = pozzetti[0]["team"]             # R62: A's taker plays alone
            a, b = [x for x in range(3) if x != self.solo]
            self.team[b] = self.team[a]
        live = set(self.team)
        self.poz_team = [None, None, None]
        self.pozzetti = [list(p.get("card_ids") or []) for p in pozzetti]
        self.poz_left = [x == "left" for x in states]
        last = 0
        for k, p in enumerate(pozzetti):
            if p["state"] == "left" and len(self.pozzetti[k]) != self.poz_sizes[k]:
                self.bad("R8" if self.n_seats != 3 else "R62",
                         f"pozzetto {k} is left with {len(self.pozzetti[k])} cards, the "
                         f"deal gives it {self.poz_sizes[k]}", 0)
            if p["state"] != "taken":
                continue
            team, mode, when = p.get("team"), p.get("mode"), p.get("turn")
            if team not in live or mode not in ("direct", "discard") \
                    or not isinstance(when, int) or not 0 <= when <= turn:
                self.bad("R42", f"pozzetto {k} taken by side {team!r} ({mode!r}) in turn "
                                f"{when!r}: no such side, way or turn before turn {turn} "
                                f"(sides {sorted(live)})", 0)
                continue
            if self.poz_team[team] is not None:
                self.bad("R43", f"side {team} took pozzetti "
                                f"{self.poz_team[team][2]} and {k} (one per side)", 0)
            if when and when < last:
                self.bad("R40", f"pozzetto {k} taken in turn {when}, before pozzetto "
                                f"{k - 1} (turn {last}): they are handed out in order", 0)
            if k == 1 and self.solo >= 0 and team == self.solo:
                self.bad("R62", f"seat {team} took pozzetto A and B", 0)
            last = when or last
            self.poz_team[team] = (when, mode, k)
        team_of, solo = self.doc["start"].get("team_of"), self.doc["start"].get("solo_seat", -1)
        if team_of is not None and list(team_of) != self.team[:self.n_seats] \
                or solo != self.solo and self.n_seats == 3:
            self.bad({2: "R61", 3: "R62"}.get(self.n_seats, "R5"),
                     f"team_of {team_of}, solo seat {solo}, but the pozzetti taken make "
                     f"the sides {self.team[:self.n_seats]}, solo seat {self.solo}", 0)

    def start_melds(self, melds: list) -> None:
        """R14-R21, R23, R25, R62: the start's tables."""
        live = set(self.team)
        self.tables = [[], [], []]
        for t, side in enumerate(melds):
            sets = Counter()
            for i, (ids, nat) in enumerate(side):
                where = f"team {t} meld {i} ({faces_text(fold(face_of(c)) for c in ids)})"
                if t not in live:
                    self.bad("R21", f"{where} lies on a side no seat plays for", 0)
                info = analyze(ids, self.set_ranks)
                if not info.valid:
                    self.bad(info.rule, f"{where} is not a valid meld: {info.reason}", 0)
                elif info.kind == "set":
                    sets[info.rank] += 1
                    pair = self.solo >= 0 and t != self.solo        # R62: two tables merged
                    if sets[info.rank] > (2 if pair else 1) and \
                            not self.rules["allow_duplicate_set_rank"]:
                        self.bad("R23", f"{where}: another set of {RANK_TEXT[info.rank]} on the "
                                        "side's table (one set per rank)", 0)
                roles = self.start_roles(ids, nat, info, where) if self.lock else None
                self.tables[t].append(_Meld(list(ids), info.kind, info.valid, roles))

    def start_roles(self, ids: list, nat, info: MeldInfo, where: str) -> dict:
        """R25 (``lock_two_roles``): the stored roles of a start meld's 2s.  ``nat``
        (its ``natural_twos``) of the 2s of the sequence's suit are natural (the first
        in meld order; the copies are interchangeable, R1), every other 2 is wild;
        without ``nat`` the meld's canonical reading gives them."""
        if nat is None:
            return locked_info(ids, {}, self.set_ranks)[1]
        twos = [c for c in ids if is_two(fold(face_of(c)))]
        own = [c for c in twos if info.valid and info.kind == "sequence"
               and suit_of(face_of(c)) == info.suit]
        if not isinstance(nat, int) or not 0 <= nat <= len(own):
            self.bad("R25", f"{where}: natural_twos {nat!r}, but it holds {len(own)} 2s that "
                            "could be natural", 0)
            nat = 0
        roles = {c: "natural" if c in own[:nat] else "wild" for c in twos}
        if info.valid and not locked_info(ids, roles, self.set_ranks)[0].valid:
            self.bad("R25", f"{where}: no reading keeps {nat} natural 2s", 0)
        return roles

    def start_counts(self, turn: int, seat: int, phase: str, tt) -> None:
        """R5, R32-R36, R50-R53, R34: the start's turn, seat, stock, pile, counters
        and its turn so far; sets the turn to go on with (``self.resume``)."""
        n, reserve, r = self.n_seats, self.reserve, self.rules
        if not 1 <= turn <= int(r["max_turns_per_hand"]):
            self.bad("R52", f"turn {turn} (1 .. max_turns_per_hand)", 0)
        if seat != (self.first_player + turn - 1) % n:
            self.bad("R5", f"seat {seat} to move in turn {turn}, but that turn is seat "
                           f"{(self.first_player + turn - 1) % n}'s (first player "
                           f"{self.first_player}, clockwise)", 0)
        if not 0 <= self.stall < int(r["stall_turn_limit"]) or self.stall >= turn:
            self.bad("R51", f"stall counter {self.stall} in turn {turn} (stall_turn_limit "
                            f"{r['stall_turn_limit']})", 0)
        team = self.team_of(seat)
        for t in range(3):
            pp, pc = self.pile_pickups[t], self.pile_cards[t]
            if not 0 <= pp <= min(pc, turn) or (pp or pc) and t not in self.team:
                self.bad("REC", f"side {t} took the pile {pp} times, {pc} cards, by turn "
                                f"{turn}", 0)
        stock, pile = len(self.stock), len(self.pile)
        if phase == "pickup":
            if tt is not None:
                self.bad("DOC", "this_turn at a pickup (the turn has done nothing yet)", 0)
            if stock <= reserve:
                self.bad("R50", f"a turn starts with {stock} cards in the stock "
                                f"(stock_reserve {reserve})", 0)
            if not pile:
                self.bad("R32", "an empty discard pile at a pickup (the deal turns up a "
                                "card and every turn ends with a discard)", 0)
            return
        if tt is None or tt.get("pickup") not in ("draw", "take_pile") \
                or not isinstance(tt.get("actions"), int) or tt["actions"] < 0 \
                or not isinstance(tt.get("one_card_pile"), bool) \
                or not isinstance(tt.get("last_turn"), bool) \
                or not isinstance(tt.get("pile_size"), (int, type(None))) \
                or not isinstance(tt.get("barred_id"), (int, type(None))):
            self.bad("DOC", f"this_turn {tt!r} (pickup draw or take_pile, actions, "
                            "one_card_pile, last_turn, pile_size, barred_id)", 0)
            raise _Stop
        took, one, size = tt["pickup"] == "take_pile", tt["one_card_pile"], tt["pile_size"]
        actions, barred = tt["actions"], tt["barred_id"]
        if took:
            if pile:
                self.bad("R33", f"{pile} cards on the pile, which seat {seat} took this "
                                "turn and has not discarded on yet", 0)
            if stock <= reserve:
                self.bad("R50", f"a turn started with {stock} cards in the stock", 0)
            if size is not None and (size < 1 or (size == 1) != one):
                self.bad("R33", f"a pile of {size} cards (one card: {one}) taken this turn", 0)
        else:
            if one or not pile or stock < reserve:
                self.bad("R33", f"after a draw, one_card_pile {one}, {pile} cards on the "
                                f"pile, {stock} in the stock (stock_reserve {reserve})", 0)
            if stock == reserve and r["stock_end_mode"] == "immediate":
                self.bad("R50", "the draw left the stock at its reserve: under "
                                "stock_end_mode immediate the hand is over", 0)
            if stock == reserve and r["untaken_pozzetto_as_stock"] and any(self.poz_left):
                self.bad("R53", "the stock is at its reserve with a pozzetto left: it "
                                "would have become the stock", 0)
        if tt["last_turn"] != (not took and stock == reserve):
            self.bad("R50", f"last_turn {tt['last_turn']} with {stock} cards in the stock "
                            f"after {'taking the pile' if took else 'a draw'}", 0)
        if phase == "place" and not (r["take_pile_requires_meld"] and took and actions == 0):
            self.bad("R34", "phase 'place' is the meld phase right after taking the "
                            "pile under take_pile_requires_meld, before any meld or lay-off", 0)
        if phase != "place" and r["take_pile_requires_meld"] and took and actions == 0:
            self.bad("R34", f"phase {phase!r} after taking the pile with no meld or "
                            "lay-off yet (take_pile_requires_meld: phase 'place')", 0)
        barring = took and one and bool(r["forbid_rediscard_single_pile"])
        own = [c for m in self.tables[team] for c in m.ids]
        if barring and barred is None or barred is not None and (
                not barring or barred not in self.hands[seat] + own):
            self.bad("R36", f"barred card {barred!r} after "
                            f"{'a one-card pile' if one else 'a pile of several cards' if took else 'a draw'}"
                            f"; it must be the card of a one-card pile taken this turn, in seat "
                            f"{seat}'s hand or on its side's table", 0)
        self.resume = _Turn(turn, seat, pickup=tt["pickup"],
                            pile_size=size if size is not None else (1 if one else 0),
                            barred=barred, actions=actions, placed=actions)
        self.resume_phase = "discard" if phase == "discard" else "meld"

    # ----------------------------------------------------------------- conservation
    def conservation(self, what: str) -> None:
        places = [c for h in self.hands for c in h] + self.pile + self.stock
        places += [c for k, p in enumerate(self.pozzetti) if self.poz_left[k] for c in p]
        places += [c for t in self.tables for m in t for c in m.ids]
        cnt = Counter(places)
        if len(places) != N_IDS or len(cnt) != N_IDS:
            dup = sorted(c for c, k in cnt.items() if k > 1)
            miss = sorted(set(range(N_IDS)) - set(cnt))
            self.bad("CONS", f"after {what}: {len(places)} cards in play, duplicated {dup[:6]}, "
                             f"missing {miss[:6]}")

    def text_matches(self, ev: dict, ids: list) -> None:
        if "card" in ev and len(ids) == 1:
            if ev["card"] != card_text(ids[0]):
                self.bad("DOC", f"{ev.get('type')}: card {ev['card']!r} does not match id "
                                f"{ids[0]} ({card_text(ids[0])})")
        if "cards" in ev:
            want = [card_text(c) for c in ids]
            if list(ev["cards"]) != want:
                self.bad("DOC", f"{ev.get('type')}: cards {ev['cards']} do not match ids {want}")

    def event_ids(self, ev: dict, many: bool) -> list:
        key = "card_ids" if many else "card_id"
        if key not in ev:
            self.bad("DOC", f"{ev.get('type')} event without {key}")
            return []
        try:
            ids = [int(c) for c in ev[key]] if many else [int(ev[key])]
        except (TypeError, ValueError):
            self.bad("DOC", f"{ev.get('type')}: bad {key} {ev[key]!r}")
            return []
        bad_ids = [c for c in ids if not 0 <= c < N_IDS]
        if bad_ids:
            self.bad("DOC", f"{ev.get('type')}: ids out of range {bad_ids}")
            ids = [c for c in ids if 0 <= c < N_IDS]
        if len(set(ids)) != len(ids):
            self.bad("CONS", f"{ev.get('type')}: the same card id twice in one event {ids}")
            ids = list(dict.fromkeys(ids))
        self.text_matches(ev, ids)
        return ids

    def take_from_hand(self, seat: int, ids: list, what: str) -> list:
        """Remove ids from the seat's hand; ids not there are reported and skipped."""
        hand = self.hands[seat]
        got = []
        for c in ids:
            if c in hand:
                hand.remove(c)
                got.append(c)
            else:
                self.bad("CONS", f"{what}: {card_text(c)} (id {c}) is not in seat {seat}'s hand "
                                 f"({where_text(self, c)})")
        return got

    # ----------------------------------------------------------------- table helpers
    def meld_info(self, m: _Meld) -> MeldInfo:
        """The meld's reading: canonical (R20), or under lock_two_roles the fewest-wild
        reading that keeps its 2s' stored roles (R25)."""
        if self.lock:
            return locked_info(m.ids, m.roles or {}, self.set_ranks)[0]
        return analyze(m.ids, self.set_ranks)

    def step_ok(self, m: _Meld, card: int, info: MeldInfo) -> bool:
        """Is laying ``card`` off on ``m`` one legal step (R24; R25 under the option)?"""
        if self.lock:
            return layoff_step_locked(m.ids, m.roles or {}, card, self.set_ranks)[0]
        return layoff_step(m.ids, card, self.set_ranks, info)[0]

    def has_burraco(self, team: int, clean_only: bool) -> bool:
        for m in self.tables[team]:
            if len(m.ids) >= 7:
                info = self.meld_info(m)
                if info.valid and (info.clean or not clean_only):
                    return True
        return False

    def can_close_with(self, team: int, card: int, barred) -> tuple:
        """R45 (b)(c)(d) for a last card (the caller checks (a)).  (ok, why)."""
        if barred is not None and card == barred:
            return False, "R36", f"{card_text(card)} is the card of the one-card pile taken " \
                                 "this turn"
        if is_wild_card(fold(face_of(card))):
            return False, "R45", f"a close must discard a natural card, not {card_text(card)}"
        need_clean = bool(self.rules["require_clean_burraco_to_close"])
        if not self.has_burraco(team, need_clean):
            return False, "R45", ("no clean burraco on the team's table" if need_clean
                                  else "no burraco on the team's table")
        return True, "", ""

    # ----------------------------------------------------------------- events
    def run(self) -> None:
        self.load_rules()
        self.load_deal()
        self.conservation("the deal")
        events = self.doc.get("events")
        if not isinstance(events, list) or not events:
            self.bad("DOC", "no events", None)
            raise _Stop
        self.play_turns(self.groups(events))
        self.turn_no = -1
        if self.end_event is None:
            if self.end_required is not None:
                reason = min(self.end_required, key=END_PREFERENCE.index)
                self.bad(END_RULE[reason], f"the hand had to end ({reason}) but the document "
                                           "has no 'end' event")
            else:
                self.bad("R49", "the events stop but no end condition holds and there is no "
                                "'end' event")
        self.score()

    def groups(self, events: list) -> list:
        """The events grouped by turn; the 'end' event joins the turn it follows.
        After a start in the middle of a turn the first group is that turn's rest
        (maybe empty)."""
        groups = [[]] if self.resume is not None else []
        for ev in events:
            if not isinstance(ev, dict) or "type" not in ev:
                self.bad("DOC", f"malformed event {ev!r}", None)
                continue
            if ev["type"] == "end" and groups:
                groups[-1].append(ev)
                continue
            cur = groups[-1] if groups else None
            if cur == [] and ev.get("turn") == self.turn0:
                cur.append(ev)                  # the first event after a start mid-turn
            elif not cur or ev.get("turn") != cur[0].get("turn") or cur[-1]["type"] == "end":
                groups.append([ev])
            else:
                cur.append(ev)
        return groups

    def play_turns(self, groups: list, last_complete: bool = True):
        """Replay the turns; with ``last_complete`` false the last group is a turn
        still being played (no end-of-turn checks).  Returns the last turn."""
        self.turns = []
        self.end_required = None         # set of acceptable end reasons once the hand must end
        self.end_event = None
        self.end_reported = False
        turn = None
        for k, group in enumerate(groups):
            expected_no = self.turn0 + k
            self.turn_no = expected_no
            got_no = group[0].get("turn") if group else expected_no
            if got_no != expected_no:
                self.bad("R5", f"turn numbers must run {self.turn0}, {self.turn0 + 1}, "
                               f"{self.turn0 + 2}...: expected {expected_no}, got {got_no!r}")
            turn = self.play_turn(expected_no, group,
                                  complete=last_complete or k < len(groups) - 1,
                                  resume=self.resume if k == 0 else None)
        return turn

    def play_turn(self, t: int, group: list, complete: bool = True, resume=None) -> _Turn:
        """Replay turn ``t``; ``resume``: the turn a start stopped in (it goes on from
        ``self.resume_phase``)."""
        seat = (self.first + t - self.turn0) % self.n_seats
        team = self.team_of(seat)
        turn = resume if resume is not None else _Turn(t, seat)
        self.turns.append(turn)
        if resume is None and self.end_required is not None and not self.end_reported:
            reason = min(self.end_required, key=END_PREFERENCE.index)
            self.bad(END_RULE[reason], f"turn {t} was played although the hand had to end "
                                       f"({' or '.join(sorted(self.end_required))}) after the "
                                       "previous turn")
            self.end_reported = True
        if resume is None and len(self.stock) <= self.reserve and self.end_required is None:
            self.bad("R50", f"a turn starts with {len(self.stock)} cards in the stock "
                            f"(stock_reserve {self.reserve})")
        for ev in group:
            if ev.get("seat") != seat and ev["type"] != "end":
                self.bad("R5", f"{ev['type']} by seat {ev.get('seat')!r}, but turn {t} is seat "
                               f"{seat}'s (first player {self.first_player}, clockwise)")
                break
        phase = "pickup" if resume is None else self.resume_phase
        need_poz = None                 # "direct" / "discard": the next event must be that pozzetto
        for i, ev in enumerate(group):
            typ = ev["type"]
            if need_poz is not None and not (typ == "pozzetto" and ev.get("mode") == need_poz):
                self.bad("R41", f"seat {seat}'s hand became empty "
                                f"({'during the meld phase' if need_poz == 'direct' else 'with the discard'})"
                                f" and the team had no pozzetto: the next event must be the "
                                f"pozzetto taken {'al volo' if need_poz == 'direct' else 'con lo scarto'}"
                                f", got {typ}")
                need_poz = None
            if typ in ("draw", "take_pile"):
                if phase != "pickup":
                    self.bad("R33", f"a second pickup ({typ}) in one turn" if turn.pickup
                             else f"{typ} after the discard")
                self.pickup(turn, ev, typ)
                if phase == "pickup":
                    phase = "meld"
            elif typ in ("meld", "lay_off"):
                if self.immediate_end(turn):
                    self.bad("R50", f"{typ} after the draw that left {self.reserve} cards in the "
                                    "stock (stock_end_mode immediate: the hand ends at once)")
                if phase == "pickup":
                    self.bad("R32", f"{typ} before the pickup (a turn starts with exactly one "
                                    "pickup)")
                elif phase == "discard":
                    self.bad("R32", f"{typ} after the meld phase was ended (the start is at "
                                    "the discard)")
                elif phase != "meld":
                    self.bad("R32", f"{typ} after the discard")
                need_poz = self.meld_action(turn, ev, typ)
            elif typ == "pozzetto":
                self.pozzetto(turn, ev, group[i - 1] if i else None, phase)
                need_poz = None
            elif typ == "pozzetto_to_stock":
                self.pozzetto_to_stock(turn, ev, group[i - 1] if i else None)
            elif typ == "discard":
                if phase == "pickup":
                    self.bad("R32", "discard without a pickup")
                elif phase not in ("meld", "discard"):
                    self.bad("R32", "a second discard in one turn")
                need_poz = self.discard(turn, ev)
                phase = "post"
            elif typ == "end":
                if i != len(group) - 1:
                    self.bad("R32", "events after the 'end' event")
                if phase != "post" and not self.immediate_end(turn):
                    self.bad("R32", "the hand ends before the turn's discard")
                if ev.get("turn") != t or ev.get("seat") != seat:
                    self.bad("DOC", f"end event has turn/seat {ev.get('turn')!r}/"
                                    f"{ev.get('seat')!r}, the last turn is {t}/seat {seat}")
                if self.end_event is not None:
                    self.bad("R49", "a second 'end' event")
                self.end_event = ev
                turn.end_event = ev
            else:
                self.bad("DOC", f"unknown event type {typ!r}")
        if not complete:
            return turn
        if need_poz is not None:
            self.bad("R41", f"seat {seat}'s hand became empty and the team had no pozzetto, "
                            f"but no pozzetto ({need_poz}) event follows")
        if turn.pickup is None:
            self.bad("R33", "the turn has no pickup (draw or take_pile)")
        if not turn.discarded and not self.immediate_end(turn):
            self.bad("R32", "the turn has no discard (every turn ends with exactly one)")
        if turn.discarded and self.immediate_end(turn):
            self.bad("R50", "a discard after the draw that left the stock at its reserve "
                            "(stock_end_mode immediate: the hand ends at once)")
        self.end_of_turn(turn, team)
        return turn

    def immediate_end(self, turn: _Turn) -> bool:
        """R50 immediate: this turn's draw left the stock at its reserve."""
        return (self.rules["stock_end_mode"] == "immediate" and turn.pickup == "draw"
                and len(self.stock) <= self.reserve)

    # ---- pickup (R33, R34, R36, R50)
    def pickup(self, turn: _Turn, ev: dict, typ: str) -> None:
        seat = turn.seat
        if typ == "draw":
            ids = self.event_ids(ev, many=False)
            if not ids:
                return
            c = ids[0]
            if len(self.stock) <= self.reserve:
                self.bad("R50", f"draw from a stock of {len(self.stock)} cards: the last "
                                f"{self.reserve} cards are never drawn")
            if not self.stock or self.stock[0] != c:
                top = card_text(self.stock[0]) + f" (id {self.stock[0]})" if self.stock else \
                    "nothing"
                self.bad("R33", f"drew {card_text(c)} (id {c}) but the top of the stock is {top}")
            if c in self.stock:
                self.stock.remove(c)
                self.hands[seat].append(c)
            else:
                self.bad("CONS", f"drawn card {card_text(c)} (id {c}) is not in the stock "
                                 f"({where_text(self, c)})")
            if turn.pickup is None:
                turn.pickup = "draw"
        else:
            ids = self.event_ids(ev, many=True)
            if not self.pile:
                self.bad("R33", "took an empty discard pile")
            if self.rules["take_pile_requires_meld"] and turn.pickup is None and self.pile:
                barred = self.pile[0] if (len(self.pile) == 1 and
                                          self.rules["forbid_rediscard_single_pile"]) else None
                if not self.placement_exists(seat, list(self.pile), barred):
                    self.bad("R34", f"took the discard pile {faces_text(self.pile)} although no "
                                    "legal meld or lay-off could then place "
                                    + ("one of its cards" if self.rules["pile_meld_source"]
                                       == "from_pile" else "a card")
                                    + " (take_pile_requires_meld)")
            if ids != self.pile:
                self.bad("R33", f"take_pile must take the whole pile (bottom first) "
                                f"{faces_text(self.pile)}, got {faces_text(ids)}")
            for c in ids:
                if c in self.pile:
                    self.pile.remove(c)
                    self.hands[seat].append(c)
                else:
                    self.bad("CONS", f"{card_text(c)} (id {c}) is not in the pile "
                                     f"({where_text(self, c)})")
            if turn.pickup is None:
                turn.pickup = "take_pile"
                turn.pile_size = len(ids)
                team = self.team_of(seat)
                self.pile_pickups[team] += 1
                self.pile_cards[team] += len(ids)
                if len(ids) == 1 and self.rules["forbid_rediscard_single_pile"]:
                    turn.barred = ids[0]
        self.conservation(typ)

    # ---- meld / lay-off (R15-R24, R21, R23, R38)
    def meld_action(self, turn: _Turn, ev: dict, typ: str):
        seat, team = turn.seat, self.team_of(turn.seat)
        ev_team = ev.get("team")
        if ev_team not in range(3):
            self.bad("DOC", f"{typ} with bad team {ev_team!r}")
            ev_team = team
        if ev_team != team:
            self.bad("R21", f"seat {seat} (team {team}) {'creates a meld' if typ == 'meld' else 'lays off'}"
                            f" on team {ev_team}'s table: only the own team's melds are allowed")
        ids = self.event_ids(ev, many=True)
        table = self.tables[ev_team]
        idx = ev.get("meld")
        got = self.take_from_hand(seat, ids, typ)
        if typ == "meld":
            if idx != len(table):
                self.bad("DOC", f"new meld index {idx!r}, expected {len(table)} (creation order)")
            info = analyze(got, self.set_ranks)
            if not info.valid:
                self.bad(info.rule, f"invalid new meld: {info.reason}")
            elif info.kind == "set" and not self.rules["allow_duplicate_set_rank"] \
                    and self.has_set_of(ev_team, info.rank):
                self.bad("R23", f"a second set of {RANK_TEXT[info.rank]} on team {ev_team}'s "
                                "table (one set per rank)")
            roles = locked_info(got, {}, self.set_ranks)[1] if self.lock else None
            table.append(_Meld(list(got), info.kind, info.valid, roles))
        else:
            if not isinstance(idx, int) or not 0 <= idx < len(table):
                self.bad("DOC", f"lay_off on meld {idx!r}, team {ev_team} has {len(table)} melds")
                self.hands[seat].extend(got)     # keep the cards somewhere sane
                self.conservation(typ)
                return None
            m = table[idx]
            roles = None
            if got and self.lock:
                ok, rule, why, roles = layoff_action_locked(m.ids, m.roles or {}, got,
                                                            self.set_ranks)
                if not ok:
                    self.bad(rule, f"illegal lay-off on team {ev_team} meld {idx} "
                                   f"({faces_text(m.ids)}): {why}")
                    roles = None
            elif got:
                ok, why = layoff_action(m.ids, got, self.set_ranks)
                if not ok:
                    self.bad("R24", f"illegal lay-off on team {ev_team} meld {idx} "
                                    f"({faces_text(m.ids)}): {why}")
            m.ids.extend(got)
            info = analyze(m.ids, self.set_ranks)
            m.valid = info.valid and m.valid
            if self.lock:       # after an illegal action: the roles of a fresh reading
                m.roles = roles if roles is not None else locked_info(m.ids, {},
                                                                      self.set_ranks)[1]
        turn.actions += 1
        turn.placed += 1
        self.conservation(typ)
        return self.dead_end_check(turn)

    # ---- R34 under take_pile_requires_meld
    def placement_exists(self, seat: int, pile_ids: list, barred) -> bool:
        """Is there a legal meld-phase action placing a card after taking the pile?

        Any legal new meld or lay-off of one or more cards (R24, so a lay-off
        whose first card is not from the pile counts; R23 and R38 apply as to any
        meld-phase action, :meth:`placements`) of the hand with the pile in it;
        with ``pile_meld_source = "from_pile"`` it must place a card of a face the
        pile holds (the two copies of a card are interchangeable, R1).  A longer
        sequence of actions needs no look of its own: its first action placing a
        pile card, merged with the earlier actions on that meld (its creation, or
        the lay-offs before), is one legal action already; it leaves more cards in
        hand, and when it leaves one or none no other action came before it.
        """
        cards = self.hands[seat] + pile_ids
        from_pile = self.rules["pile_meld_source"] == "from_pile"
        pile_faces = {fold(face_of(c)) for c in pile_ids}
        return any(not from_pile or pile_faces.intersection(faces)
                   for _, faces in self.placements(self.team_of(seat), cards, barred,
                                                   many=True))

    # ---- the legal meld-phase actions (R15-R26, R38), one by one
    def has_set_of(self, team: int, rank: int) -> bool:
        """R23: the team's table holds a set of ``rank``."""
        return any(m.kind == "set" and m.valid and self.meld_info(m).rank == rank
                   for m in self.tables[team])

    def placements(self, team: int, hand: list, barred, many: bool = False):
        """Every legal meld-phase action of a player holding ``hand`` (ids) on team
        ``team``'s table, lazily: lay-offs first, then new melds.

        Yields ``(move, faces)``: ``("lay_off", meld index, faces)`` or ``("create",
        faces)`` (sorted folded faces), and the faces the action places.  A lay-off
        adds one card (one R24 step; R25 under ``lock_two_roles``), or with ``many``
        one or more (R24: some order of legal single steps).  A new meld is any
        multiset of the hand that :func:`analyze` reads as a meld (R15-R18,
        ``set_ranks``), not a second set of a rank (R23).  Either must leave no dead
        end (R38, R53) for some choice of the copies it places (:func:`copy_choices`).
        """
        table = self.tables[team]
        counts = Counter(fold(face_of(c)) for c in hand)
        for mi, m in enumerate(table):
            info = self.meld_info(m)
            if not m.valid or not info.valid:
                continue
            # a natural card joins a set of its rank or a run of its suit
            fit = sorted(f for f in counts if is_wild_card(f) or (
                rank_of(f) == info.rank if info.kind == "set" else suit_of(f) == info.suit))
            dead = []
            for faces, ids, roles in self._extensions(m, info, fit, counts, hand, many):
                if any(self.leaves_ok(team, rest, barred, self._lay(m, ids, roles))
                       for _, rest in copy_choices(hand, faces, barred)):
                    yield ("lay_off", mi, faces), faces
                elif not many:
                    dead.append(faces)
            # one card that alone would leave a dead end (R38) but begins a lay-off of
            # several cards that is legal as one action (R24: R38 judges the hand after
            # the whole action): the step API plays it card by card
            if dead:
                starts = self._first_cards(team, mi, m, info, fit, counts, hand, barred)
                for faces in dead:
                    if faces[0] in starts:
                        yield ("lay_off", mi, faces), faces
        for faces in meld_candidates(counts):
            info = analyze(faces, self.set_ranks)
            if not info.valid:
                continue
            if info.kind == "set" and not self.rules["allow_duplicate_set_rank"] \
                    and self.has_set_of(team, info.rank):
                continue
            if any(self.leaves_ok(team, rest, barred, self._new(team, ids, info.kind))
                   for ids, rest in copy_choices(hand, faces, barred)):
                yield ("create", faces), faces

    def _extensions(self, m: _Meld, info: MeldInfo, fit: list, counts, hand: list,
                    many: bool):
        """The lay-offs on ``m`` that R24 allows (R25 under ``lock_two_roles``):
        ``(faces added, the ids added, the meld's roles after)`` for every multiset of
        the ``fit`` faces held that some order of legal single steps adds (one card
        unless ``many``; under the option once per distinct set of roles).  The
        copies of a card are interchangeable in a step (R1)."""
        seen = set()
        todo = [((), list(m.ids), m.roles or {})]
        while todo:
            added, ids, roles = todo.pop()
            left = counts - Counter(added)
            step_info = info if not added else None
            for f in fit:
                if left[f] <= 0:
                    continue
                key = tuple(sorted(added + (f,)))
                card = next(c for c in hand if fold(face_of(c)) == f and c not in ids)
                if self.lock:
                    ok, _, _, new_roles = layoff_step_locked(ids, roles, card, self.set_ranks)
                else:
                    ok, new_roles = layoff_step(ids, card, self.set_ranks, step_info)[0], None
                state = (key, tuple(sorted(new_roles.items())) if self.lock else None)
                if not ok or state in seen:
                    continue
                seen.add(state)
                yield key, ids[len(m.ids):] + [card], new_roles
                if many:
                    todo.append((key, ids + [card], new_roles))

    def _first_cards(self, team: int, mi: int, m: _Meld, info: MeldInfo, fit: list, counts,
                     hand: list, barred) -> set:
        """The faces that can be the first card of a legal lay-off of two or more
        cards on ``m`` (R24 with R38)."""
        out = set()
        todo = [((), list(m.ids), m.roles or {})]
        while todo:
            added, ids, roles = todo.pop()
            left = counts - Counter(added)
            for f in fit:
                if left[f] <= 0:
                    continue
                card = next(c for c in hand if fold(face_of(c)) == f and c not in ids)
                if self.lock:
                    ok, _, _, new_roles = layoff_step_locked(ids, roles, card, self.set_ranks)
                else:
                    ok, new_roles = layoff_step(ids, card, self.set_ranks,
                                                info if not added else None)[0], None
                if not ok:
                    continue
                path = added + (f,)
                if len(path) >= 2 and path[0] not in out:
                    laid = ids[len(m.ids):] + [card]
                    if any(self.leaves_ok(team, rest, barred, self._lay(m, laid, new_roles))
                           for _, rest in copy_choices(hand, tuple(sorted(path)), barred)):
                        out.add(path[0])
                todo.append((path, ids + [card], new_roles))
        return out

    def leaves_ok(self, team: int, rest: list, barred, table_change) -> bool:
        """R38/R53 for an action leaving ``rest`` in hand; ``table_change()`` makes
        the action's change to the table and returns its undo (the close conditions
        of a last card see the melds as after the action)."""
        if len(rest) >= 2:
            return True
        undo = table_change()
        try:
            return self.dead_end(team, rest, barred) is None
        finally:
            undo()

    def _lay(self, m: _Meld, ids: list, roles):
        def change():
            before = m.roles
            m.ids.extend(ids)
            if self.lock:
                m.roles = roles

            def undo():
                del m.ids[len(m.ids) - len(ids):]
                m.roles = before
            return undo
        return change

    def _new(self, team: int, ids: list, kind: str):
        def change():
            roles = locked_info(ids, {}, self.set_ranks)[1] if self.lock else None
            self.tables[team].append(_Meld(list(ids), kind, True, roles))
            return self.tables[team].pop
        return change

    def discard_ok(self, team: int, hand: list, card: int, barred) -> bool:
        """R36, R37, R45, R53: may ``card`` of ``hand`` be discarded?"""
        if barred is not None and card == barred:
            return False
        if len(hand) > 1:
            return True
        if self.poz_team[team] is None:
            return any(self.poz_left)       # going to the pozzetto (R41), any card
        return self.can_close_with(team, card, barred)[0]

    def moves_at(self, phase: str, seat: int) -> list:
        """Replay the document (a prefix: deal and events so far) and list the legal
        moves of ``seat`` at the decision ``phase``; see :func:`legal_moves`."""
        self.load_rules()
        self.load_deal()
        self.conservation("the deal")
        events = self.doc.get("events") or []
        if any(isinstance(ev, dict) and ev.get("type") == "end" for ev in events):
            raise ValueError("legal_moves: the document has an 'end' event: the hand is over")
        groups = self.groups(events)
        in_turn = bool(groups) and not any(ev.get("type") == "discard" for ev in groups[-1])
        turn = self.play_turns(groups, last_complete=not in_turn)
        if not in_turn:
            if self.end_required is not None:
                self.bad(END_RULE[min(self.end_required, key=END_PREFERENCE.index)],
                         f"the hand had to end ({' or '.join(sorted(self.end_required))}): "
                         "no decision follows")
            t = len(groups) + 1
            turn = _Turn(t, (self.first + t - 1) % self.n_seats)
            expect = {"pickup"}
        elif self.rules["take_pile_requires_meld"] and turn.pickup == "take_pile" \
                and turn.placed == 0:
            expect = {"place"}
        else:
            expect = {"meld", "discard"}
        if self.v:
            raise ValueError("legal_moves: the history breaks the rules:\n"
                             + "\n".join(map(str, self.v)))
        if seat != turn.seat or phase not in expect:
            raise ValueError(f"legal_moves: the decision is seat {turn.seat}'s, phase "
                             f"{' or '.join(sorted(expect))}; asked for seat {seat}, {phase!r}")
        team, hand = self.team_of(seat), self.hands[seat]
        if phase == "pickup":
            moves = [("draw",)] if len(self.stock) > self.reserve else []
            if self.pile:
                barred = self.pile[0] if (len(self.pile) == 1 and
                                          self.rules["forbid_rediscard_single_pile"]) else None
                if not self.rules["take_pile_requires_meld"] or \
                        self.placement_exists(seat, list(self.pile), barred):
                    moves.append(("take",))
            return moves
        if phase == "discard":
            return [("discard", f) for f in sorted({fold(face_of(c)) for c in hand})
                    if any(self.discard_ok(team, hand, c, turn.barred)
                           for c in hand if fold(face_of(c)) == f)]
        moves = [("end",)] if phase == "meld" else []
        return moves + [mv for mv, _ in self.placements(team, hand, turn.barred)]

    def dead_end_check(self, turn: _Turn):
        """R38 after a meld-phase action; returns "direct" if the pozzetto must follow."""
        hand = self.hands[turn.seat]
        why = self.dead_end(self.team_of(turn.seat), hand, turn.barred)
        if why is not None:
            self.bad(*why)
            return None
        return None if hand else "direct"

    def dead_end(self, team: int, hand: list, barred):
        """R38 (no dead ends) and R53 for a hand left by a meld-phase action, judged on
        the table as it is: None when the turn can go on, else ``(rule, message)``."""
        if not hand:
            if self.poz_team[team] is not None:
                return "R38", ("dead end: the hand became empty in the meld phase after the "
                               "team had already taken its pozzetto (R38(i), R46)")
            if not any(self.poz_left):
                return "R53", ("the hand became empty with no pozzetto left to take (one "
                               "became the stock)")
            return None
        if len(hand) == 1:
            c = hand[0]
            if self.poz_team[team] is None and not any(self.poz_left):
                return "R53", (f"dead end: one card left ({card_text(c)}) whose discard would "
                               "empty the hand with no pozzetto left to take")
            if barred is not None and c == barred:
                return "R38", (f"dead end: the only card left, {card_text(c)}, is the R36 card "
                               "(R38(ii))")
            if self.poz_team[team] is not None:
                ok, _, why = self.can_close_with(team, c, barred)
                if not ok:
                    return "R38", (f"dead end: one card left ({card_text(c)}) that cannot be "
                                   f"discarded: pozzetto taken and it cannot close ({why}) "
                                   "(R38(ii))")
        return None

    # ---- pozzetto (R40-R44)
    def pozzetto(self, turn: _Turn, ev: dict, prev: dict | None, phase: str) -> None:
        seat, team = turn.seat, self.team_of(turn.seat)
        mode = ev.get("mode")
        ids = self.event_ids(ev, many=True)
        if mode not in ("direct", "discard"):
            self.bad("DOC", f"pozzetto mode {mode!r}")
        if self.poz_team[team] is not None:
            self.bad("R43", f"team {team} takes a second pozzetto (already taken in turn "
                            f"{self.poz_team[team][0]}): one pozzetto per team (R40, R43)")
        if self.hands[seat]:
            self.bad("R41", f"pozzetto taken while seat {seat} still holds "
                            f"{len(self.hands[seat])} card(s): only an empty hand takes it")
        if mode == "direct":
            if phase != "meld" or prev is None or prev.get("type") not in ("meld", "lay_off"):
                self.bad("R41", "al-volo pozzetto must come right after the meld-phase action "
                                "that emptied the hand")
        elif mode == "discard":
            if prev is None or prev.get("type") != "discard":
                self.bad("R41", "pozzetto con lo scarto must come right after the discard that "
                                "emptied the hand")
        # R40: the first team to take one gets deal pozzetto 0, the next pozzetto 1 (and 2)
        k = next((j for j, left in enumerate(self.poz_left) if left), None)
        if k is None:
            self.bad("R40", "no pozzetto left to take")
        if k is not None and sorted(ids) != sorted(self.pozzetti[k]):
            self.bad("R40", f"the team should receive deal pozzetto {k} "
                            f"(number {k + 1} to be taken), got other cards")
        if k is not None:
            # move the cards of pozzetto k (what the rules say is taken); report id mismatches
            self.poz_left[k] = False
            self.hands[seat].extend(self.pozzetti[k])
            if self.poz_team[team] is None:
                self.poz_team[team] = (turn.number, mode, k)
            if k == 0 and self.solo18:
                self.form_pair(seat)
        if mode == "direct":
            turn.actions += 1
        self.conservation("pozzetto")

    def pozzetto_to_stock(self, turn: _Turn, ev: dict, prev) -> None:
        """R53: the draw left the stock at its reserve; the last untaken pozzetto
        becomes the stock (on top of the reserve cards) and can no longer be taken."""
        ids = self.event_ids(ev, many=True)
        if not self.rules["untaken_pozzetto_as_stock"]:
            self.bad("R53", "a pozzetto became the stock although untaken_pozzetto_as_stock is "
                            "off")
        if prev is None or prev.get("type") != "draw" or len(self.stock) != self.reserve:
            self.bad("R53", "a pozzetto becomes the stock only right after the draw that leaves "
                            f"{self.reserve} cards in the stock")
        left = [k for k, on in enumerate(self.poz_left) if on]
        if not left:
            self.bad("R53", "no pozzetto is left to become the stock")
            return
        k = left[-1]
        if ev.get("pozzetto") != k or ids != self.pozzetti[k]:
            self.bad("R53", f"the last untaken pozzetto ({k}) becomes the stock, in its order; "
                            f"got pozzetto {ev.get('pozzetto')!r}")
        self.poz_left[k] = False
        self.stock = list(self.pozzetti[k]) + self.stock
        self.conservation("pozzetto_to_stock")

    def form_pair(self, solo: int) -> None:
        """R62: ``solo`` took pozzetto A; the other two become partners on one table.

        The engine's convention (docs/RULES.md): the pair plays on the table of
        the lower seat, the other seat's melds follow its own, in their order.
        """
        a, b = [s for s in range(3) if s != solo]
        ta, tb = self.team[a], self.team[b]
        self.tables[ta].extend(self.tables[tb])
        self.tables[tb] = []
        self.pile_pickups[ta] += self.pile_pickups[tb]
        self.pile_cards[ta] += self.pile_cards[tb]
        self.pile_pickups[tb] = self.pile_cards[tb] = 0
        self.team[b] = ta
        self.solo = solo

    # ---- discard (R36, R37, R39, R45, R46)
    def discard(self, turn: _Turn, ev: dict):
        seat, team = turn.seat, self.team_of(turn.seat)
        ids = self.event_ids(ev, many=False)
        closes = ev.get("closes")
        if not isinstance(closes, bool):
            self.bad("DOC", f"discard without a boolean 'closes' ({closes!r})")
            closes = bool(closes)
        turn.discarded = True
        if not ids:
            return None
        c = ids[0]
        if self.rules["take_pile_requires_meld"] and turn.pickup == "take_pile" and \
                turn.placed == 0:
            self.bad("R34", "discard without a meld or lay-off after taking the discard pile "
                            "(take_pile_requires_meld)")
        if turn.barred is not None and c == turn.barred:
            self.bad("R36", f"discarded {card_text(c)} (id {c}), the very card of the one-card "
                            "pile taken this turn")
        got = self.take_from_hand(seat, [c], "discard")
        self.pile.extend(got)
        turn.hand_after_discard = len(self.hands[seat])
        need = None
        if not self.hands[seat]:
            if self.poz_team[team] is not None:
                turn.closed = True
                ok, rule, why = self.can_close_with(team, c, turn.barred)
                if not ok and rule != "R36":
                    self.bad(rule, f"illegal close by seat {seat} discarding {card_text(c)}: "
                                   f"{why} (R45, R37(b))")
                if not closes:
                    self.bad("R45", "the discard emptied the hand with the team's pozzetto taken:"
                                    " that is a close, but closes is false")
            else:
                turn.going_to_pozzetto = True
                need = "discard"
                if not any(self.poz_left):
                    self.bad("R53", "the discard emptied the hand with no pozzetto left to take")
                if closes:
                    self.bad("R45", f"closes is true but team {team} has not taken its pozzetto "
                                    "(R45(a)): emptying the hand goes to the pozzetto")
        elif closes:
            self.bad("R45", f"closes is true but seat {seat} still holds "
                            f"{len(self.hands[seat])} card(s): only a discard that empties the "
                            "hand closes")
        self.conservation("discard")
        return need

    # ---- end of a turn (R47, R50, R51, R52)
    def end_of_turn(self, turn: _Turn, team: int) -> None:
        if self.end_required is not None:
            return          # already reported: the hand should be over
        reasons = set()
        if turn.closed:
            reasons.add("closed")
        else:
            if turn.pickup == "draw" and len(self.stock) == self.reserve and \
                    self.rules["untaken_pozzetto_as_stock"] and any(self.poz_left):
                self.bad("R53", "the stock is down to its reserve with a pozzetto untaken: "
                                "under untaken_pozzetto_as_stock that pozzetto becomes the "
                                "stock and the hand goes on")
            if turn.pickup == "draw" and len(self.stock) == self.reserve:
                reasons.add("stock_exhausted")
            else:
                if turn.pickup == "take_pile" and turn.pile_size == 1 and turn.actions == 0:
                    self.stall += 1
                else:
                    self.stall = 0
                if self.stall >= int(self.rules["stall_turn_limit"]):
                    reasons.add("stall")
            if turn.number >= int(self.rules["max_turns_per_hand"]):
                reasons.add("turn_cap")
        ev = turn.end_event
        if reasons:
            self.end_required = reasons
            if ev is None:
                pass            # reported by the next turn, or at the end of the document
            elif ev.get("reason") not in reasons:
                reason = min(reasons, key=END_PREFERENCE.index)
                self.bad(END_RULE[reason], f"end reason {ev.get('reason')!r}, expected "
                                           f"{' or '.join(sorted(reasons))}")
                self.end_reported = True
            else:
                self.end_reported = True
        elif ev is not None:
            claimed = ev.get("reason")
            self.bad(END_RULE.get(claimed, "R49"),
                     f"the hand ends ({claimed!r}) although no end condition holds "
                     f"(closed: {turn.closed}, stock {len(self.stock)}, stall {self.stall}, "
                     f"turn {turn.number})")
            self.end_required = {claimed}
            self.end_reported = True

    # ----------------------------------------------------------------- scoring (R55-R58)
    def score(self) -> None:
        r = self.rules
        end_reason = None
        if self.end_event is not None:
            end_reason = self.end_event.get("reason")
        if self.end_required is not None and end_reason not in self.end_required:
            end_reason = min(self.end_required, key=END_PREFERENCE.index)
        closing_turn = next((t for t in self.turns if t.closed), None)
        calc = {
            "dealer": self.dealer, "first_player": self.first_player,
            "end_reason": end_reason, "turns": self.turn0 - 1 + len(self.turns),
            "closing_seat": closing_turn.seat if closing_turn else -1,
            "stock_left": len(self.stock), "pile_left": len(self.pile), "error": 0,
        }
        def credit(points, partners):
            # R62: the pair's side score goes in full to each partner, or half rounded up
            # to a multiple of 5 under three_player_pair_share = "half_round_up"
            if self.n_seats == 3 and partners == 2 and r["three_player_pair_share"] != "full":
                return -(-points // 10) * 5
            return points

        groups = (0, 1, 2) if self.n_seats == 3 else (0, 1)
        for g in groups:
            # a group per team; with 3 players per player: their side, credited score
            team = self.team[g] if self.n_seats == 3 else g
            closed = closing_turn is not None and self.team_of(closing_turn.seat) == team
            bonus_close = closed and not (r["pile_close_no_bonus"]
                                          and closing_turn.pickup == "take_pile")
            poz = self.poz_team[team]
            parts = team_score([m.ids for m in self.tables[team]],
                               [c for s in self.seats_of(team) for c in self.hands[s]],
                               closed=bonus_close, pozzetto_taken=poz is not None, rules=r,
                               set_ranks=self.set_ranks,
                               roles=[m.roles or {} for m in self.tables[team]])
            meld_points, bonus = parts["meld_points"], parts["burraco_bonus"]
            closing_bonus, hand_points = parts["closing_bonus"], parts["hand_points"]
            penalty = parts["pozzetto_penalty"]
            clean_n, dirty_n, semi_n = parts["clean"], parts["dirty"], parts["semi_clean"]
            calc.update({
                f"score_t{g}": credit(meld_points + bonus + closing_bonus - hand_points - penalty,
                                      len(self.seats_of(team))),
                f"meld_points_t{g}": meld_points,
                f"burraco_bonus_t{g}": bonus,
                f"closing_bonus_t{g}": closing_bonus,
                f"hand_points_t{g}": hand_points,
                f"pozzetto_penalty_t{g}": penalty,
                f"clean_burracos_t{g}": clean_n,
                f"dirty_burracos_t{g}": dirty_n,
                f"semi_clean_burracos_t{g}": semi_n,
                f"melds_t{g}": len(self.tables[team]),
                f"closed_t{g}": closed,
                f"pozzetto_taken_t{g}": poz is not None,
                f"pozzetto_turn_t{g}": poz[0] if poz else -1,
                f"pozzetto_mode_t{g}": poz[1] if poz else "none",
                f"pile_pickups_t{g}": self.pile_pickups[team],
                f"pile_cards_t{g}": self.pile_cards[team],
            })
            if (calc[f"score_t{g}"]) % 5:
                self.bad("R59", f"group {g} score {calc[f'score_t{g}']} is not a multiple "
                                "of 5")
        if self.n_seats == 3:
            calc["solo_seat"] = self.solo
        else:
            calc.update({f"{k}_t2": None for k in TEAM_KEYS})
            calc["solo_seat"] = None
        self.computed = calc
        res = self.doc.get("result")
        if not isinstance(res, dict):
            self.bad("DOC", "no result")
            return
        for key, want in calc.items():
            if key not in res:
                if want is None:
                    continue        # a 2- or 4-player document may leave out the 3-player columns
                self.bad("DOC", f"result lacks column {key!r}")
                continue
            got = res[key]
            if want is None or got is None:
                same = want is None and got is None
            elif isinstance(want, bool) or isinstance(got, bool):
                same = bool(got) == bool(want) and got in (0, 1, True, False)
            elif isinstance(want, int):
                same = isinstance(got, (int, float)) and int(got) == want and got == int(got)
            else:
                same = got == want
            if not same:
                self.bad(_result_rule(key), f"result {key} = {got!r}, the referee computes "
                                            f"{want!r}")


def team_score(melds, hand_cards, *, closed, pozzetto_taken, rules=None,
               set_ranks=ALL_SET_RANKS, roles=None) -> dict:
    """One team's hand score and its parts (R55, R56, R29, R57).

    ``melds``: list of card-id lists on the team's table; ``hand_cards``: ids left in the
    team's hands (an assigned unplayed pozzetto included, R57); ``closed``: the team earns
    the closing bonus; ``rules``: options mapping (defaults for missing keys); ``roles``:
    under ``lock_two_roles``, the stored roles of each meld's 2s (``{id: "natural" |
    "wild"}``, R25; a 2 without one takes its canonical role), which decide the classes.
    """
    r = dict(DEFAULT_RULES)
    r.update(rules or {})
    meld_points = sum(value(face_of(c)) for m in melds for c in m)
    bonus = clean_n = dirty_n = semi_n = 0
    for k, m in enumerate(melds):
        if len(m) < 7:
            continue
        if r["lock_two_roles"]:
            info = locked_info(m, (roles[k] if roles else None) or {}, set_ranks)[0]
        else:
            info = analyze(m, set_ranks)
        if not info.valid:
            continue            # reported when it became invalid
        if info.clean:
            clean_n += 1
            b = r["clean_bonus"]
        else:
            dirty_n += 1
            if r["semi_clean_bonus"] is not None and semi_clean(info, len(m),
                                                                r["semi_clean_rule"]):
                semi_n += 1
                b = r["semi_clean_bonus"]
            else:
                b = r["dirty_bonus"]
        if r["extra_burraco_classes"]:
            # R31: royal = a sequence of 13+ cards (300 clean, 250 with a wild), super = a
            # set of 8+ cards (250 clean, 200 with a wild); only the highest class counts
            if info.kind == "sequence" and len(m) >= 13:
                b = max(b, 300 if info.clean else 250)
            elif info.kind == "set" and len(m) >= 8:
                b = max(b, 250 if info.clean else 200)
        bonus += b
    closing_bonus = r["closing_bonus"] if closed else 0
    hand_points = sum(value(face_of(c)) for c in hand_cards)
    penalty = 0 if pozzetto_taken else r["pozzetto_penalty"]
    return {"score": meld_points + bonus + closing_bonus - hand_points - penalty,
            "meld_points": meld_points, "burraco_bonus": bonus, "closing_bonus": closing_bonus,
            "hand_points": hand_points, "pozzetto_penalty": penalty, "clean": clean_n,
            "dirty": dirty_n, "semi_clean": semi_n}


def _result_rule(key: str) -> str:
    base = key[:-3] if key.endswith(("_t0", "_t1")) else key
    return {
        "score": "R55", "meld_points": "R55", "hand_points": "R55", "pozzetto_penalty": "R55",
        "burraco_bonus": "R56", "clean_burracos": "R56", "dirty_burracos": "R56",
        "semi_clean_burracos": "R56",
        "closing_bonus": "R47", "closed": "R47", "closing_seat": "R47",
        "pozzetto_taken": "R42", "pozzetto_turn": "R42", "pozzetto_mode": "R41",
        "end_reason": "R49", "dealer": "R6", "first_player": "R6",
    }.get(base, "REC")


def where_text(ref: Referee, cid: int) -> str:
    """Where a card currently is (for messages)."""
    for s, h in enumerate(ref.hands):
        if cid in h:
            return f"it is in seat {s}'s hand"
    if cid in ref.stock:
        return f"it is in the stock at depth {ref.stock.index(cid)}"
    if cid in ref.pile:
        return "it is in the discard pile"
    for k, p in enumerate(ref.pozzetti):
        if ref.poz_left[k] and cid in p:
            return f"it is in untaken pozzetto {k}"
    for team in range(3):
        for i, m in enumerate(ref.tables[team]):
            if cid in m.ids:
                return f"it is in team {team}'s meld {i}"
    return "it is nowhere"


def not_each_once(ids: list) -> str:
    """"" when ``ids`` are the 108 card ids once each (R1), else what is wrong."""
    cnt = Counter(ids)
    dup = sorted(c for c, k in cnt.items() if k > 1)
    missing = sorted(set(range(N_IDS)) - set(cnt))
    outside = sorted(c for c in cnt if not 0 <= c < N_IDS)
    if dup or missing or outside:
        return f"duplicated {dup[:8]}, missing {missing[:8]}, out of range {outside[:8]}"
    return ""


# =============================================================================== public API
def check(doc: dict) -> list:
    """Referee one replay document.

    Returns
    -------
    list of Violation
        Empty when every action and the result agree with RULES.md.
    """
    ref = Referee(doc)
    try:
        ref.run()
    except _Stop:
        pass
    except Exception as exc:            # noqa: BLE001 - a referee crash is a finding too
        ref.bad("DOC", f"referee could not process the document: {type(exc).__name__}: {exc}",
                None)
    return ref.v


def computed_result(doc: dict) -> dict:
    """The record the referee computes for a document (for debugging)."""
    ref = Referee(doc)
    ref.run()
    return ref.computed


def check_strict(doc: dict) -> None:
    """Raise AssertionError listing every violation of ``doc``."""
    v = check(doc)
    if v:
        raise AssertionError(f"{len(v)} rule violation(s):\n" + "\n".join(str(x) for x in v))


def check_json(text: str) -> list:
    """:func:`check` on a JSON text."""
    return check(json.loads(text))


# =============================================================================== legal actions
# The legal actions at a decision, judged by this module's rules (issue 13: the engine's
# mask must be exactly this set).  Cards are folded faces: 13*suit + rank (suits ♣ ♦ ♥ ♠,
# ranks A..K = 0..12), 52 a joker.  A move names faces, not copies: it is legal when some
# choice of the copies in hand makes it legal (R1: the copies differ only for R36).
def copy_choices(hand: list, faces, barred) -> list:
    """The distinct ways to take ``faces`` (folded) out of ``hand`` (ids):
    ``[(ids taken, ids left)]``.  Only the R36 card makes two copies differ, so
    there are at most two: with the barred card left in hand, and with it taken."""
    need = Counter(faces)
    chosen = []
    for f, k in need.items():
        ids = sorted((c for c in hand if fold(face_of(c)) == f), key=lambda c: c == barred)
        if len(ids) < k:
            return []
        chosen += ids[:k]
    choices = [chosen]
    if barred in hand and barred not in chosen and fold(face_of(barred)) in need:
        f = fold(face_of(barred))
        alt = list(chosen)
        alt.remove(next(c for c in alt if fold(face_of(c)) == f))
        choices.append(alt + [barred])
    return [(ids, [c for c in hand if c not in ids]) for ids in choices]


def meld_candidates(counts) -> list:
    """Every multiset of the counted faces (``{folded face: copies}``) shaped like a
    meld, as sorted face tuples; :func:`analyze` gives the verdict on each.

    The shapes follow from R14-R18, so no valid meld is left out: a set is two or
    more naturals of one rank (never 2) and at most one wild; a sequence's naturals
    (a natural 2 in slot 2 included) fill a block of slots lo..hi (R4) but for at
    most one hole, with at most one wild, which the hole requires.
    """
    wilds = sorted(f for f in counts if is_wild_card(f))
    out = {}

    def emit(faces):
        key = tuple(sorted(faces))
        if key not in out and all(k <= counts.get(f, 0) for f, k in Counter(key).items()):
            out[key] = None

    for r in range(13):
        held = [min(2, counts.get(13 * s + r, 0)) for s in range(4)]
        if r == TWO or sum(held) < 2:
            continue
        for k in product(*(range(h + 1) for h in held)):
            nat = [13 * s + r for s in range(4) for _ in range(k[s])]
            if len(nat) >= 2:
                for w in [None] + wilds:
                    emit(nat + ([w] if w is not None else []))
    for s in range(4):
        def face(slot, s=s):
            return 13 * s + (0 if slot in (1, 14) else slot - 1)
        have = {x: counts.get(face(x), 0) > 0 for x in range(1, 15)}
        for lo in range(1, 14):
            if not have[lo]:
                continue
            for hi in range(lo + 1, 15):
                missing = [x for x in range(lo + 1, hi) if not have[x]]
                if len(missing) > 1:
                    break               # a longer block only misses more slots
                if not have[hi]:
                    continue
                for hole in (missing or [None] + list(range(lo + 1, hi))):
                    nat = [face(x) for x in range(lo, hi + 1) if x != hole]
                    for w in ([] if hole is not None else [None]) + wilds:
                        emit(nat + ([w] if w is not None else []))
    return list(out)


def legal_moves(prefix: dict, phase: str, seat: int) -> list:
    """The legal moves of ``seat`` at decision ``phase`` after ``prefix``.

    ``prefix``: a replay document without ``result`` whose events stop at the
    decision (``sim.Game.history_document()``); ``phase``: ``"pickup"``,
    ``"place"`` (the meld phase after taking the pile under
    ``take_pile_requires_meld``, before the first placement, R34), ``"meld"`` or
    ``"discard"`` (the events cannot tell a meld phase that was ended from one
    still open).  Returns moves: ``("draw",)``, ``("take",)``, ``("end",)`` (end
    the meld phase), ``("discard", face)``, ``("lay_off", meld index on the own
    team's table, (face,))`` (one card: one R24 step) and ``("create", faces)``.

    Raises
    ------
    ValueError
        The prefix breaks a rule (the violations are listed), or the decision is
        another seat's or another phase's.
    """
    return Referee(prefix).moves_at(phase, seat)


def move_text(move) -> str:
    """A move in words (for messages)."""
    kind = move[0]
    if kind == "draw":
        return "draw from the stock"
    if kind == "take":
        return "take the pile"
    if kind == "end":
        return "end the meld phase"
    if kind == "discard":
        return f"discard {card_text(move[1])}"
    if kind == "lay_off":
        return f"lay off {faces_text(move[2])} on meld {move[1]}"
    return "meld " + faces_text(move[1])


@dataclass(frozen=True)
class ActionSpace:
    """How moves are written as action ids: the layout of an action space
    (docs/step_api.md) given by the caller, so that this module encodes its
    verdicts without importing the engine.  ``meld_rows``: the create table, one
    sequence of per-face counts (53) per row."""

    draw: int
    take: int
    end_meld: int
    discard: int
    lay_off: int
    create: int
    faces: int
    max_melds: int
    meld_rows: tuple

    def __post_init__(self):
        object.__setattr__(self, "_row", {tuple(int(x) for x in r): k
                                          for k, r in enumerate(self.meld_rows)})

    def encode(self, moves) -> tuple:
        """``(set of action ids, [moves with no id])``."""
        ids, lost = set(), []
        for mv in moves:
            kind = mv[0]
            if kind in ("draw", "take", "end"):
                ids.add({"draw": self.draw, "take": self.take, "end": self.end_meld}[kind])
            elif kind == "discard":
                ids.add(self.discard + mv[1])
            elif kind == "lay_off":
                if mv[1] < self.max_melds and len(mv[2]) == 1:
                    ids.add(self.lay_off + self.faces * mv[1] + mv[2][0])
                else:
                    lost.append(mv)
            else:
                cnt = Counter(mv[1])
                k = self._row.get(tuple(cnt.get(f, 0) for f in range(self.faces)))
                if k is None:
                    lost.append(mv)
                else:
                    ids.add(self.create + k)
        return ids, lost


def legal_actions(prefix: dict, phase: str, seat: int, space: ActionSpace) -> set:
    """:func:`legal_moves` as action ids of ``space``.

    Raises
    ------
    ValueError
        As :func:`legal_moves`, or a legal move has no id in ``space``.
    """
    ids, lost = space.encode(legal_moves(prefix, phase, seat))
    if lost:
        raise ValueError("legal_actions: legal moves with no action id: "
                         + "; ".join(map(move_text, lost)))
    return ids


if __name__ == "__main__":      # driver: the only place that imports sim (tests/referee_cli.py)
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import referee_cli
    raise SystemExit(referee_cli.main())


# =============================================================================== matches (R6, R60)
def check_match(match: dict, hands: list, rules: dict | None = None,
                max_hands: int = 200) -> list:
    """Re-check one match of a match run; returns a list of violation texts.

    ``match``: the match-table row (``match``, ``winner`` (None if capped),
    ``hands``, ``final_t0``, ``final_t1``, ``first_dealer``, ``reason``);
    ``hands``: its hand rows in order (``hand_in_match``, ``hand_index``,
    ``dealer``, ``first_player``, ``score_t0``, ``score_t1``, ``total_t0``,
    ``total_t1``; with 3 players also ``score_t2``, ``total_t2``, ``final_t2``
    and the hand's ``individual`` flag).  Checks the deals (hand k is deal
    ``m * 65536 + k``), the rotating deal (R6), the running totals and the end
    of the match (R60: it ends after the first hand where a total reaches
    ``target_score`` and no other total equals it; the highest total wins;
    ``max_hands`` hands end it without a winner).  With 3 players (R63) the
    target is ``three_player_target``, and a ``solo_18`` match plays its hands
    ``individual_3x11`` from the hand after a total reached
    ``three_player_switch_at``.
    """
    r = dict(DEFAULT_RULES)
    r.update(rules or {})
    n = int(r["num_players"])
    target = int(r["three_player_target"] if n == 3 else r["target_score"])
    sides = 3 if n == 3 else 2
    out = []
    m = match["match"]
    if len(hands) != match["hands"]:
        out.append(f"[R60] match {m}: {len(hands)} hand rows, the match table says "
                   f"{match['hands']}")
    t = [0] * sides
    ended_at = None
    for k, h in enumerate(hands):
        if n == 3:
            want_ind = (r["three_player_mode"] == "individual_3x11"
                        or max(t) >= int(r["three_player_switch_at"]))
            if bool(h["individual"]) != want_ind:
                out.append(f"[R63] match {m} hand {k}: individual {h['individual']!r}, expected "
                           f"{want_ind} (totals before the hand {t})")
        if h["hand_in_match"] != k or h["hand_index"] != m * 65536 + k:
            out.append(f"[DOC] match {m}: row {k} is hand_in_match {h['hand_in_match']}, deal "
                       f"{h['hand_index']}; expected {k}, {m * 65536 + k}")
        want_dealer = (match["first_dealer"] + k) % n
        if h["dealer"] != want_dealer or h["first_player"] != (want_dealer + 1) % n:
            out.append(f"[R6] match {m} hand {k}: dealer {h['dealer']} / first player "
                       f"{h['first_player']}, the deal rotates to dealer {want_dealer}")
        if ended_at is not None:
            out.append(f"[R60] match {m}: hand {k} was played although the match ended after "
                       f"hand {ended_at}")
        for j in range(sides):
            t[j] += h[f"score_t{j}"]
        got = [h[f"total_t{j}"] for j in range(sides)]
        if got != t:
            out.append(f"[R60] match {m} hand {k}: totals {got}, the sum of the hand scores is "
                       f"{t}")
        if ended_at is None and max(t) >= target and t.count(max(t)) == 1:
            ended_at = k
    if hands and hands[0]["dealer"] != match["first_dealer"]:
        out.append(f"[R6] match {m}: first_dealer {match['first_dealer']}, hand 0 was dealt by "
                   f"{hands[0]['dealer']}")
    if ended_at is not None:
        want = {"winner": t.index(max(t)), "reason": "target"}
    elif len(hands) >= max_hands:
        want = {"winner": None, "reason": "cap"}
    else:
        want = {"winner": None, "reason": None}
        out.append(f"[R60] match {m}: the hands stop after {len(hands)} with totals "
                   f"{t[0]}/{t[1]}: neither at the target {target} with different totals, "
                   f"nor at the cap {max_hands}")
    want.update({f"final_t{j}": t[j] for j in range(sides)})
    for key, val in want.items():
        got = match[key]
        if key == "winner" and got is not None:
            got = int(got)
        if got != val:
            out.append(f"[R60] match {m}: {key} {got!r}, the referee computes {val!r}")
    return out
