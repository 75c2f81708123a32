"""What a :class:`sim.play.game.Game` writes and reads back: its JSON snapshot
(``to_json``, ``from_json``), its record row (``result``) and its replay documents
(``replay_document``, ``history_document``, :mod:`sim.play.trace`); a sampled world's
:class:`Start`, the state its documents begin from.
"""
from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass

import numpy as np

from kernels.engine import actions as KA
from kernels.table import state as KS
from kernels.table import work as KW

from sim.core import dataset
from sim.core.cards import rules_or_default
from sim.play import trace


EV_ROWS = 4096              # event log of a game (rows, card slots): a hand uses a few hundred
EV_CARDS = 16384
FORMAT = 1                  # to_json's format number


@dataclass(frozen=True, eq=False)
class Start:
    """Where a sampled world's own history begins (:meth:`Game.sample_world`): its
    documents write this state as their ``start`` block (:func:`sim.batch.replay.history`).

    ``state``: the state words (``kernels.table.state.STATE_WORDS``, int64, read only) as
    the world was dealt; ``events``: the events logged before (they belong to the
    game it was sampled from); ``viewer``: the seat whose knowledge it keeps.
    """
    state: np.ndarray
    events: int
    viewer: int

    def __eq__(self, other) -> bool:
        return (isinstance(other, Start) and self.events == other.events
                and self.viewer == other.viewer and np.array_equal(self.state, other.state))

    __hash__ = None


def _packed(words: np.ndarray) -> str:
    """int64 words, compressed and base64-encoded (:meth:`Game.to_json`)."""
    return base64.b64encode(zlib.compress(words.tobytes(), 6)).decode("ascii")


def _unpacked(text, what: str) -> np.ndarray:
    """The words :func:`_packed` wrote (a writable copy)."""
    try:
        raw = zlib.decompress(base64.b64decode(text))
    except (TypeError, ValueError, zlib.error) as e:
        raise ValueError(f"game: {what} is damaged ({e})") from None
    return np.frombuffer(raw, np.int64).copy()


class GameRecords:
    """The snapshot, record and documents of a :class:`sim.play.game.Game` (a base class of
    ``Game``)."""

    def to_json(self) -> str:
        """The game as JSON text; :meth:`from_json` gives an equal game back.

        The kernel buffer (state, the hand's generator, rules vector, event
        log) is stored compressed and base64-encoded beside the readable
        settings, so the round trip is exact.
        """
        d = {
            "format": FORMAT, "kind": "burraco_game", "seed": self.seed,
            "hand_index": self.hand_index, "rules": self.rules.to_dict(),
            "strategies": self.strategies, "words": int(self._work.shape[0]),
            "match_totals": None if self.match_totals is None else list(self.match_totals),
            "phase": self.phase, "current_seat": self.current_seat,
            "buffer": _packed(KW.canonical(self._work)),
        }
        if self.deck is not None:                # dealt from given cards (Game.from_deck)
            d["deck"] = [int(c) for c in self.deck]
        if self.sampled_for is not None:         # a sampled world: where its history starts
            d["sampled_for"] = self.sampled_for
            if self._start is not None:
                d["start"] = {"events": self._start.events, "state": _packed(self._start.state)}
        return json.dumps(d, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "GameRecords":
        """The game :meth:`to_json` wrote.

        Raises
        ------
        ValueError
            Not a game document, another format, or a damaged buffer.
        """
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"game: not JSON ({e.msg} at line {e.lineno})") from None
        if not isinstance(d, dict) or d.get("kind") != "burraco_game":
            raise ValueError("game: not a burraco game document (kind must be 'burraco_game')")
        if d.get("format") != FORMAT:
            raise ValueError(f"game: format {d.get('format')!r} is not supported (only {FORMAT})")
        work = _unpacked(d.get("buffer"), "buffer")
        n = work.shape[0]
        expected = KW.work_words(int(work[KW.W_EV_ROWS]), int(work[KW.W_EV_CARDS])) \
            if n > KW.W_EV_CARDS else -1
        if n != int(d["words"]) or n != expected:
            raise ValueError(f"game: buffer has {n} words, expected "
                             f"{expected if expected > 0 else KW.work_words(EV_ROWS, EV_CARDS)} "
                             "(another version?)")
        r = rules_or_default(d["rules"])
        game = cls(work, int(d["seed"]), int(d["hand_index"]), r, list(d["strategies"]))
        if d.get("match_totals") is not None:
            game.match_totals = tuple(int(x) for x in d["match_totals"])
        if d.get("deck") is not None:
            deck = np.asarray(d["deck"], np.int64)
            if deck.shape != (108,) or not np.array_equal(np.sort(deck), np.arange(108)):
                raise ValueError("game: deck is not the 108 card ids 0..107, each once")
            game.deck = deck
        if d.get("sampled_for") is not None:
            game.sampled_for = int(d["sampled_for"])
            start = d.get("start")
            if isinstance(start, dict):
                state = _unpacked(start.get("state"), "start.state")
                if state.shape[0] != KS.STATE_WORDS:
                    raise ValueError(f"game: start.state has {state.shape[0]} words, expected "
                                     f"{KS.STATE_WORDS} (another version?)")
                state.flags.writeable = False
                game._start = Start(state, int(start["events"]), game.sampled_for)
        return game

    def result(self) -> dict:
        """The record row ``simulate`` writes for this hand (once it is over).

        Raises
        ------
        ValueError
            The hand is not over.
        """
        return dataset.record_to_dict(self._record(), self.hand_index, self.strategies)

    def replay_document(self) -> dict:
        """The hand as a ``sim.replay`` document (same schema), for the referee.

        A sampled world's document (:meth:`sample_world`, :meth:`from_position`)
        has a ``start`` block, the state the world was dealt in, instead of the
        deal, and the events since (docs/step_api.md).

        Raises
        ------
        ValueError
            The hand is not over, or a sampled world has no start to document it from.
        """
        rec = self._record()
        return trace.document(self.seed, self.hand_index, self.rules, self.strategies,
                              self._work, rec, self._start_of("replay_document"), self.deck)

    def history_document(self) -> dict:
        """The hand so far as a replay-document prefix: :meth:`replay_document`'s
        fields without ``result``, the events up to now (no ``end`` event while
        the hand goes on).  ``tests/referee.py`` lists the legal actions from it.

        Raises
        ------
        ValueError
            A sampled world has no start to document it from.
        """
        start = self._start_of("history_document")
        g = self._g
        return trace.history(self.seed, self.hand_index, self.rules, self.strategies,
                             self._work, int(g[KS.G_DEALER]), int(g[KS.G_FIRST]), start,
                             self.deck)

    def _start_of(self, what: str):
        """The start of a sampled world's documents (None for a dealt game)."""
        if self.sampled_for is None:
            return None
        if self._start is None:
            raise ValueError(f"{what}: this sampled world does not know the state it was dealt "
                             "in (its past draws are not the cards it holds), so it has no "
                             "history to document")
        if int(self._start.state[KW.W_G + KS.G_PHASE]) == KA.PH_OVER:
            raise ValueError(f"{what}: this world was sampled after the hand was over, so it "
                             "has no play of its own to document")
        return self._start
