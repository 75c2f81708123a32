"""Hand files: a hand as people played it, the deal and every action, checked by the engine
action by action (docs/review.md, "Hands played by people").

A hand file is TOML or JSON (:data:`FORMAT`)::

    format = "burraco-hand/1"
    seat = 0                      # the recording seat (reviewed by default); optional
    dealer = 3                    # R6: seat 0 plays first
    players = ["Anna", "Bruno", "Carla", "Dario"]      # optional names
    [rules]                       # optional, as in a position file (docs/positions.md)
    preset = "default"
    [deal]
    hands = ["...", "...", "...", "..."]               # seat 0 first, 11 cards each (R8)
    pozzetti = ["...", "..."]
    discard = "6♣"                # the up-card
    stock = "..."                 # top card first
    [[turns]]
    seat = 0
    actions = ["draw 4♦", "meld 7♦ 7♦ 2♥", "discard Q♥"]

Actions are written as ``Game.action_text`` writes them and ``Game.action_from_text``
reads them (``draw``, ``take``, ``meld 7♥ 8♥ 9♥``, ``lay off 10♥ on meld 2``,
``discard K♣``); ``draw X`` also checks the card drawn, and the end of the meld phase may
be left out before the discard.  A replay document (``burraco replay --format json``:
its ``deal_ids`` and ``events``) is read as a hand file too.

Cards are checked as the deal is read (each card twice, four jokers, R1; the parts'
sizes, R8), then the hand is dealt with :meth:`sim.Game.from_deck` and every action is
played through :meth:`sim.Game.apply`: the engine is the only judge of legality, and an
illegal action is a one-line ``ValueError`` naming the turn, the seat, the action and
the rule it breaks.  The file must play the hand to its end.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from kernels.core import deal as KD
from kernels.core.cards import CIDX
from kernels.engine import actions as KA
from kernels.table import state as KS

from sim.core import notation
from sim.play import position_file
from sim.play.actions import action_kind
from sim.play.game import Game

__all__ = ["FORMAT", "HandFile", "dump", "from_replay", "load"]

#: the ``format`` of a hand file
FORMAT = "burraco-hand/1"
_TOP = ("format", "title", "seat", "dealer", "players", "rules", "deal", "turns")
_DEAL = ("hands", "pozzetti", "discard", "stock")
_TURN = ("seat", "actions")


def _fail(msg: str):
    raise ValueError(f"hand file: {msg}")


@dataclasses.dataclass
class HandFile:
    """A hand file read and checked (:func:`load`).

    Attributes
    ----------
    game : sim.Game
        The hand as dealt, waiting for the first pickup (:meth:`sim.Game.from_deck`).
    actions : list of int
        Every action of the hand in order, as :meth:`sim.Game.apply` takes them (the
        ends of the meld phase included).
    labels : list of str
        Per action, where the file has it (``"turn 3, seat 2, 'discard 7♥'"``).
    seat : int or None
        The recording seat (``seat``), or None.
    players : list of str
        The seats' names (``players``, default ``"seat S"``).
    title : str or None
    end : sim.Game
        The hand played to its end.
    """

    game: Game
    actions: list
    labels: list
    seat: int | None
    players: list
    title: str | None
    end: Game


def _read(src) -> dict:
    try:
        return position_file._read(src)
    except ValueError as e:
        raise ValueError(str(e).replace("position: ", "hand file: ", 1)) from None


def _int(field, v, lo, hi) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        _fail(f"{field}: expected an integer in {lo}..{hi}, got {v!r}")
    return v


def _deck_of_text(deal: dict, rules, n: int) -> np.ndarray:
    """The deck in dealing order of a ``[deal]`` table in card notation."""
    deal = _table("deal", deal, _DEAL)
    for k in _DEAL:
        if k not in deal:
            _fail(f"deal.{k}: missing (required)")
    d = notation._Deck()
    count, sizes = _pozzetti(rules)

    def parse(field, v, size=None):
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = " ".join(v)
        if not isinstance(v, str):
            _fail(f"{field}: expected cards such as \"7♥ 8♥ JK\", got {v!r}")
        try:
            ids = [int(c) for c in d.parse(v, field)]
        except ValueError as e:
            msg = str(e).removeprefix("notation: ")
            _fail(msg if msg.startswith(field + ":") else f"{field}: {msg}")
        if size is not None and len(ids) != size:
            _fail(f"{field}: {len(ids)} cards, expected {size} (R8)")
        return ids

    parts = []
    for name, want, sizes_ in (("hands", n, [rules.hand_size] * n), ("pozzetti", count, sizes)):
        v = deal[name]
        if not isinstance(v, list) or len(v) != want:
            _fail(f"deal.{name}: expected a list of {want} card lists, got {v!r}"[:200])
        for i, (x, size) in enumerate(zip(v, sizes_)):
            parts += parse(f"deal.{name}[{i}]", x, size)
    parts += parse("deal.discard", deal["discard"], 1)
    stock = parse("deal.stock", deal["stock"])
    parts += stock
    if len(parts) != 108:
        free = [cid for cid in range(108) if d.owner[cid] is None]
        faces = notation.format(sorted(free, key=lambda c: (CIDX[c], c)))
        _fail(f"deal: the cards do not add up to the 108-card deck (R1, R8): {len(parts)} "
              f"given; missing {faces[:120]}{' ...' if len(faces) > 120 else ''}")
    return np.asarray(parts, np.int64)


def _pozzetti(rules) -> tuple:
    count, *sizes = (int(x) for x in KD.pozzetto_sizes(rules.to_vector()))
    return count, sizes[:count]


def _table(field, v, keys) -> dict:
    if not isinstance(v, dict):
        _fail(f"{field}: expected a table, got {v!r}"[:200])
    for k in v:
        if k not in keys:
            _fail(f"{field}: unknown field {k!r}; allowed: {', '.join(keys)}")
    return v


def _deck_of_ids(deal_ids: dict) -> np.ndarray:
    """The deck in dealing order of a replay document's ``deal_ids``."""
    try:
        ids = (sum(deal_ids["hands"], []) + sum(deal_ids["pozzetti"], [])
               + [deal_ids["discard"]] + list(deal_ids["stock"]))
        deck = np.asarray(ids, np.int64)
    except (KeyError, TypeError, ValueError):
        _fail("deal_ids: expected the replay document's hands, pozzetti, discard and stock "
              "(card ids)")
    if deck.shape != (108,) or not np.array_equal(np.sort(deck), np.arange(108)):
        _fail("deal_ids: not the 108 card ids 0..107, each once (R1)")
    return deck


def _turns_of_events(events) -> list:
    """The ``turns`` of a replay document's events: one per turn, its actions in words."""
    if not isinstance(events, list):
        _fail("events: expected a list of the replay document's events")
    turns = []
    for i, e in enumerate(events):
        if not isinstance(e, dict) or "type" not in e or "seat" not in e:
            _fail(f"events[{i}]: expected an event with its type and seat, got {e!r}"[:200])
        kind = e["type"]
        if kind in ("draw", "take_pile"):
            turns.append({"seat": e["seat"], "actions": []})
        if kind in ("end", "pozzetto", "pozzetto_to_stock"):
            continue
        if not turns:
            _fail(f"events[{i}]: a {kind!r} event before the first pickup")
        acts = turns[-1]["actions"]
        if kind == "draw":
            acts.append(f"draw {e['card']}")
        elif kind == "take_pile":
            acts.append("take")
        elif kind == "meld":
            acts.append("meld " + " ".join(e["cards"]))
        elif kind == "lay_off":
            acts += [f"lay off {c} on meld {e['meld']}" for c in e["cards"]]
        elif kind == "discard":
            acts.append(f"discard {e['card']}")
        else:
            _fail(f"events[{i}]: unknown event type {kind!r}")
    return turns


def load(src, strategies="heuristic") -> HandFile:
    """Read a hand file and play it through the engine, action by action.

    Parameters
    ----------
    src : str, os.PathLike or dict
        A ``.toml``/``.json`` file, its text, or the dict (module docstring), or a
        replay document (``sim.replay``'s).
    strategies : str, sequence or dict
        The game's strategies (:meth:`sim.Game.new`): they choose nothing here (every
        action is the file's); the rollouts of a review use their own.

    Returns
    -------
    HandFile

    Raises
    ------
    ValueError
        One line starting ``hand file:``: an unreadable or truncated file, an unknown
        field, a card that does not exist or is given too often (R1), a deal that does
        not add up (R8), an action out of turn, a text naming no action, an illegal
        action (the turn, the seat, the action and the rule the engine names), or a file
        that ends before the hand does.
    """
    d = _read(src)
    replay_doc = "events" in d and ("deal_ids" in d or "deal" in d) and "turns" not in d
    if replay_doc:
        if "deal_ids" not in d:
            _fail("deal_ids: a replay document needs its deal_ids (burraco replay --format json)")
        _, rules = _rules(d)
        deck = _deck_of_ids(d["deal_ids"])
        dealer = _int("dealer", d.get("dealer"), 0, rules.num_players - 1)
        turns = _turns_of_events(d["events"])
        seat, players, title = None, None, None
    else:
        for k in d:
            if k not in _TOP:
                _fail(f"unknown field {k!r}; allowed: {', '.join(_TOP)}")
        if "format" in d and d["format"] != FORMAT:
            _fail(f"format: expected {FORMAT!r}, got {d['format']!r}")
        _, rules = _rules(d)
        n = rules.num_players
        if "dealer" not in d:
            _fail("dealer: missing (required: the dealer seat, R6; the next seat plays first)")
        dealer = _int("dealer", d["dealer"], 0, n - 1)
        seat = None if d.get("seat") is None else _int("seat", d["seat"], 0, n - 1)
        players = d.get("players")
        if players is not None and (not isinstance(players, list) or len(players) != n
                                    or not all(isinstance(x, str) for x in players)):
            _fail(f"players: expected {n} names, got {players!r}")
        title = d.get("title")
        if "deal" not in d:
            _fail("deal: missing (required: the hands, pozzetti, up-card and stock)")
        deck = _deck_of_text(d["deal"], rules, n)
        turns = d.get("turns")
        if not isinstance(turns, list) or not turns:
            _fail("turns: missing or empty (required: every turn's seat and actions)")
    n = rules.num_players
    players = players or [f"seat {s}" for s in range(n)]
    game = Game.from_deck(deck, dealer, rules=rules, strategies=strategies)
    play = game.clone()
    actions, labels = [], []
    for t, turn in enumerate(turns, 1):
        if not replay_doc:
            turn = _table(f"turns[{t - 1}]", turn, _TURN)
            for k in _TURN:
                if k not in turn:
                    _fail(f"turns[{t - 1}].{k}: missing (required)")
        seat_t = _int(f"turns[{t - 1}].seat", turn["seat"], 0, n - 1)
        texts = turn["actions"]
        if not isinstance(texts, list) or not all(isinstance(x, str) for x in texts):
            _fail(f"turn {t}, seat {seat_t}: actions: expected a list of action texts such as "
                  "\"draw\", \"meld 7♥ 8♥ 9♥\", \"discard K♣\"")
        if play.is_over:
            _fail(f"turn {t}, seat {seat_t}: the hand is already over (it ended in turn "
                  f"{play.turn}, {play.result()['end_reason']}); nothing more is played")
        if play.current_seat != seat_t:
            _fail(f"turn {t}, seat {seat_t}: out of turn: seat {play.current_seat} plays turn "
                  f"{t} (R6, R32: play goes round, the seat after the dealer first)")
        if not texts:
            _fail(f"turn {t}, seat {seat_t}: no actions (a turn is a pickup, melds and a "
                  "discard, R32)")
        for text in texts:
            where = f"turn {t}, seat {seat_t}, {text!r}"
            if play.is_over or play.current_seat != seat_t or play.turn != t:
                _fail(f"{where}: the turn is over (after the discard play passes on, R32)")
            a = _action(play, text, where)
            if action_kind(a) == "discard" and play.phase in ("place", "meld"):
                end = KA.A_END_MELD
                _apply(play, end, where + " (ending the meld phase)")
                actions.append(end)
                labels.append(where)
            _apply(play, a, where)
            actions.append(a)
            labels.append(where)
        if not play.is_over and play.current_seat == seat_t and play.turn == t:
            _fail(f"turn {t}, seat {seat_t}: the turn ends without its discard (R32: pick up, "
                  f"meld, discard); the seat is in the {play.phase} phase")
    if not play.is_over:
        _fail(f"the file ends in turn {play.turn} before the hand does (seat "
              f"{play.current_seat} to {play.phase}): truncated? A hand file holds the whole "
              "hand, to its close or the end of the stock (R47-R52)")
    return HandFile(game, actions, labels, seat, list(players), title, play)


def _rules(d):
    try:
        return position_file._rules_of(d)
    except ValueError as e:
        raise ValueError(str(e).replace("position: ", "hand file: ", 1)) from None


def _action(game: Game, text: str, where: str) -> int:
    """The action id of ``text`` at ``game``'s decision; ``draw X`` checks the card."""
    words = text.split()
    if len(words) == 2 and words[0].lower() == "draw":
        try:
            face = int(notation.parse(words[1])[0])
        except ValueError as e:
            _fail(f"{where}: {str(e).removeprefix('notation: ')}")
        top_card = _stock_top(game)
        if top_card is not None and CIDX[top_card] != CIDX[face]:
            _fail(f"{where}: the stock's top card is {notation.format_card(top_card)}, not "
                  f"{notation.format_card(face)} (the deal's stock, top card first)")
        return KA.A_DRAW
    try:
        return game.action_from_text(text)
    except ValueError as e:
        _fail(f"{where}: {str(e).removeprefix('action text: ')}")


def _stock_top(game: Game):
    g = game._g
    top, end = int(g[KS.G_STOCK_TOP]), int(g[KS.G_STOCK_END])
    return int(game.state.stock[top]) if top < end else None


def _apply(game: Game, a: int, where: str) -> None:
    try:
        game.apply(a)
    except ValueError as e:
        msg = str(e)
        reason = msg.split(" is illegal: ", 1)[1] if " is illegal: " in msg else msg
        _fail(f"{where}: illegal in the {game.phase} phase: {reason}")


# ---------------------------------------------------------------- writing one
def from_replay(doc: dict, seat: int | None = None, players=None, title: str | None = None
                ) -> dict:
    """A hand file (dict) of a replay document (``sim.replay``'s, a dealt hand): its
    rules, dealer, deal in card notation and every turn's actions in words.

    Parameters
    ----------
    doc : dict
        The replay document.
    seat : int, optional
        The recording seat to write.
    players : list of str, optional
        The seats' names (default: each seat's strategy spec).
    title : str, optional

    Raises
    ------
    ValueError
        The document has no deal (a hand played on from a sampled world).
    """
    if "deal" not in doc:
        _fail("from_replay: the document has no deal (a hand played on from a sampled world)")
    rules = position_file._rules_out(position_file.rules_table(
        position_file._rules_of({"rules": doc["rules"]})[1]), json_null=False)
    deal = doc["deal"]
    out = {"format": FORMAT}
    if title is not None:
        out["title"] = title
    if seat is not None:
        out["seat"] = int(seat)
    out["dealer"] = int(doc["dealer"])
    out["players"] = list(players) if players is not None else [
        str(s) for s in doc["strategies"][:len(deal["hands"])]]
    out["rules"] = rules
    out["deal"] = {"hands": [" ".join(h) for h in deal["hands"]],
                   "pozzetti": [" ".join(p) for p in deal["pozzetti"]],
                   "discard": deal["discard"], "stock": " ".join(deal["stock"])}
    out["turns"] = _turns_of_events(doc["events"])
    return out


def dump(hand: dict, path=None) -> str:
    """A hand file's TOML text (one ``[[turns]]`` table per turn), optionally written to
    ``path`` (UTF-8; not atomically: a helper for examples and tests)."""
    lines = ["# A Burraco hand as it was played: the deal and every action "
             "(docs/review.md, hand files)"]
    for k in ("format", "title", "seat", "dealer", "players"):
        if k in hand:
            lines.append(f"{k} = {position_file._toml_value(hand[k])}")
    lines += ["", "[rules]"] + position_file._toml_table(hand.get("rules", {}))
    deal = hand["deal"]
    lines += ["", "[deal]", "hands = ["]
    lines += [f"  {position_file._toml_value(h)}," for h in deal["hands"]]
    lines += ["]", "pozzetti = ["]
    lines += [f"  {position_file._toml_value(p)}," for p in deal["pozzetti"]]
    lines += ["]", f"discard = {position_file._toml_value(deal['discard'])}",
              f"stock = {position_file._toml_value(deal['stock'])}"]
    for t, turn in enumerate(hand["turns"], 1):
        lines += ["", f"[[turns]]   # turn {t}", f"seat = {turn['seat']}",
                  f"actions = {position_file._toml_value(turn['actions'])}"]
    text = "\n".join(lines) + "\n"
    if path is not None:
        import pathlib
        pathlib.Path(path).write_text(text, encoding="utf-8")
    return text
