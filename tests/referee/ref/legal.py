"""The legal actions at a decision (the engine's mask, ``sim.Game.legal_actions``, must be
exactly this set): :func:`legal_moves` as moves in faces, :func:`legal_actions` as the action ids of a
layout the caller gives (:class:`ActionSpace`), so that the referee imports no engine code.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .cards import card_text, faces_text
from .core import Referee


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
