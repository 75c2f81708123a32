"""Independent referee of a simulated Burraco hand.

Re-checks every action of one hand from its replay document against RULES.md,
sharing NO code with the engine: this package imports only the standard
library (a test enforces it).  The meld rules are implemented literally from
RULES.md R13-R20 (the R18 search over all interpretations, canonical reading =
fewest wilds), the lay-off rule from R24 (single steps (a) and (b), an action
is legal iff some order of single steps is), and the turn, pozzetto, closing,
end and scoring rules from R32-R59.  Under option ``lock_two_roles``
(R25) it keeps the role of every 2 on the table per card id and accepts a
lay-off only if some R18 reading keeps every stored role (violation rule
``R25``); classes (scoring, R45 clean burraco) are judged with those roles.

Usage
-----
``check(doc)`` returns a list of :class:`Violation` (empty = clean);
``check_strict(doc)`` raises AssertionError listing all of them.
``legal_moves(prefix, phase, seat)`` lists the legal moves at a decision, judged
by the referee's rules after replaying a document prefix (the deal and the events
so far); ``legal_actions(prefix, phase, seat, space)`` writes them as action ids
of a layout the caller gives (:class:`ActionSpace`: the engine's ids, read by the
test, so that the referee still imports no engine code).
``python -m tests.referee --hands N [--seed S] [--strategy NAME]`` referees
simulated hands (the driver lives in ``tests/referee/referee_cli.py`` and is the only
part that imports ``sim``).

Layout
------
``tests/referee/referee.py`` is the entry point: ``import referee`` (tests/ on ``sys.path``, as
under pytest), ``python tests/referee/referee.py ...`` and ``python -m tests.referee ...``; it
re-exports this package's public names.  The package, one module per part of the rules:

- :mod:`.cards`: ids, faces, points and notation (R1, R2, R4);
- :mod:`.melds`: readings, the canonical reading, lay-off steps (R13-R20, R24, R29);
- :mod:`.roles`: ``lock_two_roles`` (R25);
- :mod:`.options`: the rules options and their defaults, the end reasons;
- :mod:`.violations`: :class:`Violation`;
- :mod:`.state`: a meld on the table and a turn so far (the referee's bookkeeping);
- :mod:`.core`: :class:`Referee`, the replay of a document, with its parts in
  :mod:`.start` (a document's ``start`` block), :mod:`.events` (each event of a turn,
  R33-R53), :mod:`.moves` (the legal moves at a decision, R34, R38) and
  :mod:`.scoring` (R55-R59, :func:`team_score`);
- :mod:`.api`: :func:`check`, :func:`check_strict`, :func:`check_json`;
- :mod:`.legal`: :func:`legal_moves`, :func:`legal_actions`, :class:`ActionSpace`;
- :mod:`.matches`: :func:`check_match` (R6, R60, R63).

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
``CONS`` (card conservation, R1: a card not where the event
says, or not exactly one place for every id), ``DOC`` (malformed document:
missing field, card text not matching its id, wrong meld index),
``OPT`` (an option the engine does not support is set) and
``REC`` (a record column other than the scores disagrees).
"""
from __future__ import annotations

from .api import check, check_json, check_strict, computed_result
from .cards import (ACE, JOKER, JOKER_TEXT, N_IDS, RANK_TEXT, SUIT_TEXT, TWO, Deck, card_text,
                    face_of, faces_text, fold, is_joker, is_two, is_wild_card, parse_face,
                    rank_of, seq_slot, suit_of, value)
from .core import Referee
from .legal import ActionSpace, legal_actions, legal_moves, move_text
from .matches import check_match
from .melds import (ALL_SET_RANKS, MeldInfo, Reading, analyze, layoff_action, layoff_step,
                    semi_clean)
from .moves import copy_choices, meld_candidates
from .options import (DEFAULT_RULES, END_PREFERENCE, END_RULE, START_PHASES, TEAM_KEYS,
                      UNSUPPORTED)
from .roles import layoff_action_locked, layoff_step_locked, locked_info, role_readings
from .scoring import team_score
from .state import not_each_once, where_text
from .violations import Violation

__all__ = [
    # checking documents and matches
    "Referee", "Violation", "check", "check_strict", "check_json", "computed_result",
    "check_match", "team_score",
    # legal moves and actions at a decision
    "legal_moves", "legal_actions", "ActionSpace", "move_text", "copy_choices",
    "meld_candidates",
    # melds and lay-offs (R13-R25)
    "ALL_SET_RANKS", "MeldInfo", "Reading", "analyze", "layoff_action", "layoff_step",
    "semi_clean", "layoff_action_locked", "layoff_step_locked", "locked_info",
    "role_readings",
    # cards (R1, R2, R4)
    "ACE", "JOKER", "JOKER_TEXT", "N_IDS", "RANK_TEXT", "SUIT_TEXT", "TWO", "Deck",
    "card_text", "face_of", "faces_text", "fold", "is_joker", "is_two", "is_wild_card",
    "parse_face", "rank_of", "seq_slot", "suit_of", "value",
    # rules options and messages
    "DEFAULT_RULES", "END_PREFERENCE", "END_RULE", "START_PHASES", "TEAM_KEYS", "UNSUPPORTED",
    "not_each_once", "where_text",
]
