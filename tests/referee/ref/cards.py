"""Cards (RULES.md R1, R2, R4): ids and faces, points, notation, sequence slots."""
from __future__ import annotations


RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_TEXT = ("♣", "♦", "♥", "♠")
JOKER_TEXT = "JK"
N_IDS = 108
JOKER = 52          # faces 52 and 53 are jokers; this module folds them to 52
ACE, TWO = 0, 1


def face_of(cid: int) -> int:
    """Face 0..53 of a card id (id = 54*copy + face, docs/output.md#card-ids)."""
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
