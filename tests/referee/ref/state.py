"""The referee's bookkeeping of a hand in play: a meld on the table, a turn so far,
and two helpers for messages about where the cards are."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cards import N_IDS

if TYPE_CHECKING:
    from .core import Referee


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
