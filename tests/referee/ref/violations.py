"""What the referee reports: one :class:`Violation` per broken rule."""
from __future__ import annotations

from dataclasses import dataclass


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
