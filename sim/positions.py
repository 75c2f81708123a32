"""Position files: one seat's view of a hand at a decision (issue 13, item 3).

A *position* is what one seat may know at a decision of a hand (R11): the
rules, the seat to move and the phase, the seat's own hand, every meld with
its side, the discard pile bottom first, every hand size, the stock size, the
pozzetti taken and left, the card barred by R36, the cards known to be in the
other hands (taken with the pile), the turn, the dealer and optional match
totals.  It is a plain dict, written as TOML or JSON (format in
``docs/positions.md``, example in ``examples/position.toml``)::

    >>> from sim import positions
    >>> pos = positions.load("examples/position.toml")
    >>> g = Game.from_position(pos, seed=3)      # the unseen cards dealt at random
    >>> positions.dump(g.to_position(pos["seat"])) == positions.dump(pos)
    True

:func:`load` reads a file, a text or a dict and returns the position in its
canonical form (every field present, cards as ``"10♥"``, ``"JK"``);
:func:`dump` writes it (TOML or JSON), so ``dump(load(dump(p))) == dump(p)``.
:func:`to_game` (``Game.from_position``) builds a complete game consistent
with the view, the unseen cards dealt uniformly among the unseen places (the
other hands beyond their known cards, the stock and the untaken pozzetti,
:func:`kernels.table.worlds.sample_world`); :func:`from_game` (``Game.to_position``)
writes the view of a game.  An impossible position raises a one-line
``ValueError`` that names the field.
"""
from __future__ import annotations

import json
import os
import pathlib
import tomllib

import numpy as np

from kernels.engine import actions as KA
from kernels.core import layout as L
from kernels.engine import legal as KL
from kernels.core import melds as KM
from kernels.table import state as KS
from kernels.core.cards import CIDX, N_CARDS, N_COUNT

from . import notation
from .rules import PRESETS, Rules

__all__ = ["FORMAT", "PHASES", "load", "dump", "normalize", "to_game", "from_game"]

FORMAT = 1
PHASES = ("pickup", "place", "meld", "discard")      # the decisions a position may wait for
PICKUPS = ("stock", "pile")
MODES = L.POZZETTO_MODES[1:]                          # "direct" (al volo), "discard" (R41)
WORLD_TRIES = 200        # sampled worlds tried when the seat to move is not the viewer

_TOP = ("format", "seat", "to_move", "phase", "turn", "dealer", "hand", "hand_sizes", "known",
        "pile", "stock", "stall", "rules", "this_turn", "pozzetti", "melds", "match")
_THIS_TURN = ("pickup", "one_card_pile", "actions", "barred", "barred_in_hand", "open_lay_off")
_POZZETTI = ("left", "taken")
_TAKEN = ("side", "turn", "mode", "unplayed_seat")
_MELD = ("side", "cards", "natural_twos")
_MATCH = ("totals",)


def _fail(field: str, msg: str):
    if field == "position":                  # the position itself: no field to name twice
        raise ValueError(f"position: {msg}")
    raise ValueError(f"position: {field}: {msg}")


# ---------------------------------------------------------------- reading and writing
def _read(src):
    """The raw mapping of a path, a TOML/JSON text or a mapping."""
    if isinstance(src, dict):
        return src
    if isinstance(src, (pathlib.Path, os.PathLike)):
        path = pathlib.Path(src)
    elif isinstance(src, str):
        looks_like_path = "\n" not in src and src.strip().lower().endswith((".toml", ".json"))
        path = pathlib.Path(src) if looks_like_path or (
            "\n" not in src and len(src) < 4096 and os.path.isfile(src)) else None
    else:
        raise ValueError(f"position: expected a file path, a TOML or JSON text or a dict, "
                         f"got {type(src).__name__}")
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ValueError(f"position: cannot read {str(path)!r} ({e.strerror})") from None
        except UnicodeDecodeError:
            raise ValueError(f"position: {str(path)!r} is not UTF-8 text") from None
        as_json = path.suffix.lower() == ".json" or (
            path.suffix.lower() != ".toml" and text.lstrip().startswith("{"))
        where = str(path)
    else:
        text = src
        as_json = text.lstrip().startswith("{")
        where = "text"
    if as_json:
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"position: {where} is not JSON ({e.msg} at line {e.lineno})") \
                from None
        if not isinstance(d, dict):
            raise ValueError(f"position: {where} is not a JSON object")
        return d
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"position: {where} is not TOML ({e})") from None


def load(src) -> dict:
    """A position in canonical form, from a path, a TOML or JSON text, or a dict.

    Parameters
    ----------
    src : str, os.PathLike or dict
        A ``.toml``/``.json`` file (the format is told by the suffix, else by
        the content), the text of one, or a position dict.

    Returns
    -------
    dict
        :func:`normalize` of it: every field present, cards written as
        :func:`sim.notation.format` writes them.

    Raises
    ------
    ValueError
        An unreadable file or text, or a field of the wrong type or out of
        range (the message names it).  Whether the position is possible (the
        deck adds up, the melds are valid ...) is checked by :func:`to_game`.
    """
    return normalize(_read(src))


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)     # a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise ValueError(f"position: cannot write {v!r} as TOML")


def _toml_table(d: dict) -> list:
    return [f"{k} = {_toml_value(v)}" for k, v in d.items()]


def _rules_out(rules: dict, json_null: bool) -> dict:
    out = dict(rules)
    if "semi_clean_bonus" in out and out["semi_clean_bonus"] is None and not json_null:
        out["semi_clean_bonus"] = "off"              # TOML has no null
    return out


def dump(position, path=None, fmt: str | None = None) -> str:
    """The position's text (canonical: :func:`normalize` first), optionally written.

    Parameters
    ----------
    position : dict, str or os.PathLike
        A position (anything :func:`load` reads).
    path : str or os.PathLike, optional
        Write the text there too (UTF-8).
    fmt : {"toml", "json"}, optional
        The format; default from ``path``'s suffix, else TOML.

    Returns
    -------
    str
        The text; ``dump(load(dump(p))) == dump(p)``.

    Raises
    ------
    ValueError
        As :func:`load`, or an unknown ``fmt``.
    """
    p = load(position)
    if fmt is None:
        fmt = "json" if path is not None and str(path).lower().endswith(".json") else "toml"
    if fmt not in ("toml", "json"):
        raise ValueError(f"position: fmt must be 'toml' or 'json', got {fmt!r}")
    if fmt == "json":
        p["rules"] = _rules_out(p["rules"], json_null=True)
        text = json.dumps(p, ensure_ascii=False, indent=2) + "\n"
    else:
        lines = ["# A Burraco position: one seat's view at a decision (docs/positions.md)"]
        tables = []
        for k, v in p.items():
            if k == "melds":
                for m in v:
                    tables += ["", "[[melds]]"] + _toml_table(m)
            elif isinstance(v, dict):
                if k == "rules":
                    v = _rules_out(v, json_null=False)
                tables += ["", f"[{k}]"] + _toml_table(v)
            else:
                lines.append(f"{k} = {_toml_value(v)}")
        text = "\n".join(lines + tables) + "\n"
    if path is not None:
        pathlib.Path(path).write_text(text, encoding="utf-8")
    return text


# ---------------------------------------------------------------- canonical form
def _int(field, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        _fail(field, f"expected an integer in {lo}..{hi}, got {v!r}")
    return int(v)


def _bool(field, v):
    if not isinstance(v, (bool, np.bool_)):
        _fail(field, f"expected true or false, got {v!r}")
    return bool(v)


def _choice(field, v, allowed):
    if v not in allowed:
        _fail(field, f"expected one of {', '.join(map(repr, allowed))}, got {v!r}")
    return v


def _cards(field, v) -> str:
    """Card text in output notation ("10♥ JK"); a list of card texts is joined."""
    if isinstance(v, (list, tuple)):
        if not all(isinstance(x, str) for x in v):
            _fail(field, f"expected card texts, got {v!r}")
        v = " ".join(v)
    if not isinstance(v, str):
        _fail(field, f"expected a card list such as \"7♥ 8♥ JK\", got {v!r}")
    out = []
    for token in notation._SEP.split(v):
        if token:
            try:
                out.append(notation.format_card(int(notation.parse(token)[0])))
            except ValueError as e:
                _fail(field, str(e).removeprefix("notation: "))
    return " ".join(out)


def _table(field, v, keys) -> dict:
    if not isinstance(v, dict):
        _fail(field, f"expected a table, got {v!r}")
    for k in v:
        if k not in keys:
            _fail(field, f"unknown field {k!r}; allowed: {', '.join(keys)}")
    return v


def _entries(field, v, keys, required):
    """``(field[i], table)`` of a list of tables, each checked by :func:`_table`."""
    if not isinstance(v, list):
        _fail(field, f"expected a list of tables, got {v!r}")
    for i, e in enumerate(v):
        f = f"{field}[{i}]"
        e = _table(f, e, keys)
        for key in required:
            if key not in e:
                _fail(f"{f}.{key}", "missing (required)")
        yield f, e


def _rules_of(d) -> tuple:
    """The rules table in canonical form and the :class:`Rules` it names."""
    raw = d.get("rules", {})
    if isinstance(raw, str):
        raw = {"preset": raw}
    if not isinstance(raw, dict):
        _fail("rules", f"expected a table (preset and/or options), got {raw!r}")
    raw = dict(raw)
    preset = raw.pop("preset", "default")
    if preset not in PRESETS:
        _fail("rules.preset", f"unknown preset {preset!r}; allowed: {', '.join(PRESETS)}")
    if "semi_clean_bonus" in raw and (raw["semi_clean_bonus"] is False or
                                      raw["semi_clean_bonus"] in ("off", "none")):
        raw["semi_clean_bonus"] = None
    try:
        rules = Rules.preset(preset).replace(**raw)
    except (ValueError, TypeError) as e:
        _fail("rules", str(e).removeprefix("rules: "))
    return rules_table(rules), rules


def rules_table(rules: Rules) -> dict:
    """``rules`` as a position's rules table: the preset nearest to it and the
    options that differ from that preset (fewest differences; the default
    preset on a tie)."""
    mine = rules.to_dict()
    best = None
    for name in PRESETS:
        base = Rules.preset(name).to_dict()
        diff = {k: v for k, v in mine.items() if base[k] != v}
        if best is None or len(diff) < len(best[1]):
            best = (name, diff)
    return {"preset": best[0], **best[1]}


def _sides(rules: Rules) -> int:
    return 3 if rules.num_players == 3 else 2


def normalize(position: dict) -> dict:
    """A position in canonical form (the fields of docs/positions.md, in order).

    Fills the defaults (``to_move`` the viewer, ``dealer`` from the turn,
    ``stall`` 0, ``this_turn.actions`` 0 ...), writes every
    card list in output notation and checks each field's type and range.

    Raises
    ------
    ValueError
        An unknown field, a missing one, or a value of the wrong type or out
        of range: ``position: <field>: <why>``.
    """
    d = _table("position", position, _TOP)
    fmt = d.get("format", FORMAT)
    if fmt != FORMAT:
        _fail("format", f"format {fmt!r} is not supported (only {FORMAT})")
    rules_d, rules = _rules_of(d)
    n = rules.num_players
    for key in ("seat", "phase", "hand", "hand_sizes", "stock"):
        if key not in d:
            _fail(key, "missing (required)")
    seat = _int("seat", d["seat"], 0, n - 1)
    to_move = _int("to_move", d.get("to_move", seat), 0, n - 1)
    phase = _choice("phase", d["phase"], PHASES)
    turn = _int("turn", d.get("turn", 1), 1, rules.max_turns_per_hand)
    dealer = _int("dealer", d.get("dealer", (to_move - turn) % n), 0, n - 1)
    hand_sizes = d["hand_sizes"]
    if not isinstance(hand_sizes, list) or len(hand_sizes) != n:
        _fail("hand_sizes", f"expected a list of {n} hand sizes (one per seat), got {hand_sizes!r}")
    hand_sizes = [_int(f"hand_sizes[{s}]", x, 0, N_CARDS) for s, x in enumerate(hand_sizes)]
    known = d.get("known", [""] * n)
    if not isinstance(known, list) or len(known) != n:
        _fail("known", f"expected a list of {n} card lists (one per seat), got {known!r}")
    out = {
        "format": FORMAT, "seat": seat, "to_move": to_move, "phase": phase, "turn": turn,
        "dealer": dealer, "hand": _cards("hand", d["hand"]), "hand_sizes": hand_sizes,
        "known": [_cards(f"known[{s}]", k) for s, k in enumerate(known)],
        "pile": _cards("pile", d.get("pile", "")),
        "stock": _int("stock", d["stock"], 0, N_CARDS),
        "stall": _int("stall", d.get("stall", 0), 0, rules.stall_turn_limit - 1),
        "rules": rules_d,
    }
    tt = d.get("this_turn")
    if phase == "pickup":
        if tt:
            _fail("this_turn", "a position at the pickup has no this_turn (nothing is done yet)")
    else:
        # what the turn did so far decides what is legal now (R34, R36, R51): never assumed
        if tt is None:
            _fail("this_turn", f"missing (required in the {phase!r} phase: what the seat to "
                  "move did this turn, at least pickup = 'stock' or 'pile')")
        tt = _table("this_turn", tt, _THIS_TURN)
        if "pickup" not in tt:
            _fail("this_turn.pickup", "missing (required: 'stock' if the seat drew from the "
                  "stock, 'pile' if it took the discard pile)")
        t = {"pickup": _choice("this_turn.pickup", tt["pickup"], PICKUPS)}
        t["one_card_pile"] = _bool("this_turn.one_card_pile", tt.get("one_card_pile", False))
        t["actions"] = _int("this_turn.actions", tt.get("actions", 0), 0, 10 * N_CARDS)
        if tt.get("barred") not in (None, ""):
            t["barred"] = _cards("this_turn.barred", tt["barred"])
            if len(t["barred"].split()) != 1:
                _fail("this_turn.barred", f"expected one card, got {tt['barred']!r}")
            t["barred_in_hand"] = _bool("this_turn.barred_in_hand",
                                        tt.get("barred_in_hand", True))
        elif "barred_in_hand" in tt:
            _fail("this_turn.barred_in_hand", "given without this_turn.barred")
        if tt.get("open_lay_off") is not None:
            if phase != "meld":
                _fail("this_turn.open_lay_off", "a lay-off under way is in the 'meld' phase")
            t["open_lay_off"] = _int("this_turn.open_lay_off", tt["open_lay_off"], 0,
                                     KS.MMAX - 1)
        out["this_turn"] = t
    pz = _table("pozzetti", d.get("pozzetti", {}), _POZZETTI)
    taken = []
    for f, e in _entries("pozzetti.taken", pz.get("taken", []), _TAKEN, ("side",)):
        item = {"side": _int(f + ".side", e["side"], 0, _sides(rules) - 1),
                "turn": _int(f + ".turn", e.get("turn", 0), 0, turn),
                "mode": _choice(f + ".mode", e.get("mode", "direct"), MODES)}
        if e.get("unplayed_seat") is not None:
            item["unplayed_seat"] = _int(f + ".unplayed_seat", e["unplayed_seat"], 0, n - 1)
        taken.append(item)
    count = _pozzetto_sizes(rules)[0]
    left_default = count - len(taken)
    out["pozzetti"] = {"left": _int("pozzetti.left", pz.get("left", left_default), 0, count),
                       "taken": taken}
    melds = []
    for f, m in _entries("melds", d.get("melds", []), _MELD, ("side", "cards")):
        item = {"side": _int(f + ".side", m["side"], 0, _sides(rules) - 1),
                "cards": _cards(f + ".cards", m["cards"])}
        if m.get("natural_twos") is not None:
            item["natural_twos"] = _int(f + ".natural_twos", m["natural_twos"], 0, 1)
        melds.append(item)
    out["melds"] = melds
    if d.get("match") is not None:
        mt = _table("match", d["match"], _MATCH)
        totals = mt.get("totals")
        if not isinstance(totals, list) or len(totals) != _sides(rules):
            _fail("match.totals", f"expected a list of {_sides(rules)} match totals (one per "
                  f"side), got {totals!r}")
        out["match"] = {"totals": [_int(f"match.totals[{k}]", x, -10**7, 10**7)
                                   for k, x in enumerate(totals)]}
    return out


def _pozzetto_sizes(rules: Rules) -> tuple:
    """``(count, sizes)`` of the deal's pozzetti (R8, R61-R63; as kernels.core.deal)."""
    p = rules.pozzetto_size
    if rules.num_players == 3:
        if rules.three_player_mode == "solo_18":
            return 2, (rules.three_player_pozzetto_a_size, p, 0)
        return 3, (p, p, p)
    return 2, (p, p, 0)


# ---------------------------------------------------------------- the view -> a game
def _face_text(f) -> str:
    return "JK" if f == 52 else notation.format_card(int(f))


def _faces_text(faces) -> str:
    """Count faces (0..52) as card text, in the given order."""
    return " ".join(_face_text(f) for f in faces)


def _face_ids(text: str) -> list:
    """One card id per token of a canonical card text (copies do not matter)."""
    return [int(notation.parse(t)[0]) for t in text.split()]


def _counts(ids) -> np.ndarray:
    c = np.zeros(N_COUNT, np.int64)
    for cid in ids:
        c[CIDX[int(cid)]] += 1
    return c


def _team_of(rules: Rules, taken: list) -> tuple:
    """Each seat's side (4 entries, as the kernels' ``G_TEAM``) and the solo seat (-1).

    With 3 players in ``solo_18``, once pozzetto A is taken (the first taken)
    the other two seats play for the lower one's side (R62)."""
    n = rules.num_players
    team = [s % 2 for s in range(4)]
    for s in range(n):
        team[s] = s if n == 3 else s % 2
    solo = -1
    if n == 3 and rules.three_player_mode == "solo_18" and taken:
        solo = taken[0]["side"]
        pair = [s for s in range(3) if s != solo]
        team[pair[1]] = pair[0]
    return team, solo


def to_game(position, seed: int = 0, strategies="heuristic"):
    """A complete game consistent with the position (``Game.from_position``).

    The given cards are where the position puts them; every other card (the
    other hands beyond their known cards, the stock, the untaken pozzetti) is
    dealt uniformly at random among those places, from ``seed``
    (:func:`kernels.table.worlds.sample_world`).  When the seat to move is not the
    viewer, worlds in which it has no legal action are drawn again.

    Parameters
    ----------
    position : dict, str or os.PathLike
        Anything :func:`load` reads.
    seed : int
        The deal of the unseen cards (and the game's later random choices).
    strategies : str, sequence or dict
        Each seat's built-in strategy, as in ``Game.new``.

    Returns
    -------
    sim.Game
        Waiting for the position's decision; ``seed`` is ``seed``,
        ``hand_index`` 0, ``sampled_for`` the viewer (it has no replay
        document), ``match_totals`` the position's totals or None.

    Raises
    ------
    ValueError
        The position is impossible: a third copy of a card (or a fifth
        joker), counts that do not add up to the 108-card deck, an invalid
        meld, a phase that cannot follow, a seat out of range, pozzetti that
        do not fit the rules ...; the one-line message names the field.
    """
    from ._cards import check_int
    from .game import Game
    p = load(position)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    _, rules = _rules_of(p)
    g = Game.new(0, 0, rules=rules, strategies=strategies)
    b = _Builder(p, rules, g)
    b.check_and_fill()
    viewer, mover = p["seat"], p["to_move"]
    totals = list(p["match"]["totals"]) if "match" in p else None
    why = None
    for k in range(WORLD_TRIES if viewer != mover else 1):
        world = g.sample_world(viewer, seed, k)
        world.seed = seed
        world.match_totals = totals
        why = _no_decision(world)
        if why is None:
            return world
    if viewer == mover:
        _fail(*why)
    _fail("to_move", f"no world dealt for seat {viewer} lets seat {mover} play this decision "
          f"({WORLD_TRIES} tried; {why[1]})")


def _no_decision(world):
    """None when the decision exists: the seat to move has a legal action and, in
    the meld phase, a legal discard once it ends (R38); else ``(field, why)``."""
    if not world.legal_actions():
        return ("phase", f"seat {world.current_seat} has no legal action in the "
                f"{world.phase!r} phase of this position")
    if world.phase == "meld" and world.open_lay_off is None:
        after = world.clone()
        after.apply(KA.A_END_MELD)
        if not after.legal_actions():
            return ("hand", "no card of the hand could be discarded at the end of the meld phase "
                    "(R38: the last card must go to the pozzetto or close)")
    return None


class _Builder:
    """Checks a canonical position against the rules and writes it into a game's buffer."""

    def __init__(self, p: dict, rules: Rules, game):
        self.p, self.rules, self.game = p, rules, game
        self.n = rules.num_players
        self.st = game.state

    def check_and_fill(self):
        p, rules, n = self.p, self.rules, self.n
        seat, mover, phase, turn = p["seat"], p["to_move"], p["phase"], p["turn"]
        if (p["dealer"] + turn) % n != mover:
            _fail("dealer", f"with dealer {p['dealer']} seat {(p['dealer'] + turn) % n} plays "
                  f"turn {turn}, not seat {mover} (to_move): turns go round from the seat "
                  "left of the dealer (R7)")
        hs = p["hand_sizes"]
        hand_n = len(p["hand"].split())
        if hand_n == 0:
            _fail("hand", "a hand in play is never empty (R38, R41, R43)")
        for s in range(n):
            if hs[s] < 1:
                _fail(f"hand_sizes[{s}]", "a hand in play is never empty (R38, R41, R43)")
        if hs[seat] != hand_n:
            _fail(f"hand_sizes[{seat}]", f"seat {seat} holds the {hand_n} cards of hand, "
                  f"not {hs[seat]}")
        self._teams()
        self._cards()
        self._pozzetti()
        self._phase()
        self._deck_adds_up()
        self._fill()

    # -- the sides
    def _teams(self):
        taken = self.p["pozzetti"]["taken"]
        self.team, self.solo = _team_of(self.rules, taken)
        self.live_sides = sorted(set(self.team[:self.n]))

    # -- the cards: one deck over every field (R1)
    def _cards(self):
        p, n = self.p, self.n
        deck = notation._Deck()

        def parse(text, where):
            try:
                return [int(c) for c in deck.parse(text, where)]
            except ValueError as e:
                raise ValueError(f"position: {e}") from None

        self.hand = parse(p["hand"], "hand")
        self.pile = parse(p["pile"], "pile")
        self.melds = [parse(m["cards"], f"melds[{i}]") for i, m in enumerate(p["melds"])]
        self.known = [[] for _ in range(4)]
        for s in range(n):
            if s != p["seat"]:
                self.known[s] = parse(p["known"][s], f"known[{s}]")
                if len(self.known[s]) > p["hand_sizes"][s]:
                    _fail(f"known[{s}]", f"{len(self.known[s])} known cards in a hand of "
                          f"{p['hand_sizes'][s]}")
        own = _counts(self.hand)
        self.own_known = _counts(_face_ids(p["known"][p["seat"]]))
        for f in np.flatnonzero(self.own_known > own):
            _fail(f"known[{p['seat']}]", f"{self.own_known[f]} × {_face_text(f)} known in seat "
                  f"{p['seat']}'s hand, which holds {own[f]}")
        self.unseen = [cid for cid in range(N_CARDS) if deck.owner[cid] is None]
        self._check_melds()

    def _check_melds(self):
        p, rules = self.p, self.rules
        mask = int(rules.to_vector()[L.RV_SET_RANKS_MASK])
        per_side = {}
        self.readings = []
        for i, (m, ids) in enumerate(zip(p["melds"], self.melds)):
            f = f"melds[{i}]"
            side = m["side"]
            if side not in self.live_sides:
                _fail(f + ".side", f"side {side} has no seat (sides of the seats: "
                      f"{self.team[:self.n]})" + (" since pozzetto A made the pair (R62)"
                                                    if self.solo >= 0 else ""))
            cnt = _counts(ids)
            kind, nwild, nat2, key, lo, hi, wslot, why = KM.analyze(cnt, np.int64(mask))
            if kind == KM.KIND_NONE:
                _fail(f + ".cards", f"{m['cards']!r} is not a valid meld: {KM.REASONS[why]}")
            nat = None
            if "natural_twos" in m or (rules.lock_two_roles and kind == KM.KIND_SEQ
                                       and cnt[13 * key + 1] > 0):
                if not rules.lock_two_roles:
                    _fail(f + ".natural_twos", "only with the option lock_two_roles (R25)")
                if kind != KM.KIND_SEQ or cnt[13 * key + 1] == 0:
                    _fail(f + ".natural_twos", "only for a sequence holding a 2 of its suit (R25)")
                nat = m.get("natural_twos", nat2)
                k2, nw2, n2, *_rest, why2 = KM.analyze_roles(cnt.copy(), np.int64(mask), key,
                                                            np.int64(nat), np.int64(0))
                if k2 != KM.KIND_SEQ or n2 < nat:
                    _fail(f + ".natural_twos", f"{nat} natural 2s in {m['cards']!r}: "
                          f"{KM.REASONS[why2 or KM.WHY_ROLES]}")
            self.readings.append(nat)
            same = per_side.setdefault(side, [])
            if kind == KM.KIND_SET and not rules.allow_duplicate_set_rank and \
                    not (self.solo >= 0 and side != self.solo) and \
                    any(k == KM.KIND_SET and r == key for k, r in same):
                _fail(f + ".cards", f"{m['cards']!r}: "
                      f"{KL.LEGAL_REASONS[KL.BAD_DUP_SET_RANK]}")
            same.append((kind, key))
            if len(same) > KS.MMAX:
                _fail(f + ".side", f"side {side} has more than {KS.MMAX} melds (the kernels' "
                      "table holds 40)")

    # -- pozzetti (R40-R43, R53, R57, R62, R63)
    def _pozzetti(self):
        p, rules, n = self.p, self.rules, self.n
        count, sizes = _pozzetto_sizes(rules)
        taken = p["pozzetti"]["taken"]
        left = p["pozzetti"]["left"]
        if len(taken) > count:
            _fail("pozzetti.taken", f"{len(taken)} pozzetti taken, the deal has {count}")
        if len(taken) + left > count:
            _fail("pozzetti.left", f"{len(taken)} taken + {left} left is more than the "
                  f"{count} pozzetti of the deal")
        if len(taken) + left < count and not rules.untaken_pozzetto_as_stock:
            _fail("pozzetti.left", f"{len(taken)} taken + {left} left: the deal has {count} "
                  "(only untaken_pozzetto_as_stock turns one into the stock, R53)")
        seen = set()
        for i, e in enumerate(taken):
            f = f"pozzetti.taken[{i}]"
            side = e["side"]
            if side in seen:
                _fail(f + ".side", f"side {side} took a pozzetto already (R40, R43)")
            seen.add(side)
            if side not in self.live_sides:
                _fail(f + ".side", f"side {side} has no seat (sides of the seats: "
                      f"{self.team[:self.n]})")
            if i > 0 and e["turn"] and taken[i - 1]["turn"] and e["turn"] < taken[i - 1]["turn"]:
                _fail(f + ".turn", "pozzetti are listed in the order they were taken")
            if "unplayed_seat" in e:
                s = e["unplayed_seat"]
                if e["mode"] != "discard":
                    _fail(f + ".unplayed_seat", "only a pozzetto taken with the discard is "
                          "held unplayed (R41, R57)")
                if self.team[s] != side:
                    _fail(f + ".unplayed_seat", f"seat {s} does not play for side {side}")
                if s == p["to_move"]:
                    _fail(f + ".unplayed_seat", f"seat {s} is to move, so it has picked up its "
                          "pozzetto already (R41)")
                if p["hand_sizes"][s] != sizes[i]:
                    _fail(f + ".unplayed_seat", f"seat {s} holds {p['hand_sizes'][s]} cards, "
                          f"an unplayed pozzetto is its {sizes[i]} cards (R41)")
                if p["known"][s]:
                    _fail(f"known[{s}]", f"seat {s} holds only its unplayed pozzetto, which "
                          "nobody has seen (R41)")
                if e["turn"] and (p["dealer"] + e["turn"]) % n != s:
                    _fail(f + ".turn", f"seat {s} did not play turn {e['turn']}")
                if e["turn"] and p["turn"] >= e["turn"] + n:
                    _fail(f + ".unplayed_seat", f"seat {s} has played a turn since turn "
                          f"{e['turn']}, so the pozzetto is in play (R41)")
        self.poz_count, self.poz_sizes = count, sizes
        self.untaken = list(range(len(taken), len(taken) + left))
        if rules.num_players == 3 and rules.three_player_mode == "solo_18" and len(taken) > 1:
            pair_side = min(s for s in range(3) if s != self.solo)
            if taken[1]["side"] != pair_side:
                _fail("pozzetti.taken[1].side", f"after pozzetto A (side {self.solo}) the pair "
                      f"plays on side {pair_side} (R62)")

    # -- the phase and what this turn did (R32-R36, R50, R51)
    def _phase(self):
        p, rules = self.p, self.rules
        phase, stock, reserve = p["phase"], p["stock"], rules.stock_reserve
        pile_n = len(self.pile)
        hs_mover = p["hand_sizes"][p["to_move"]]
        if phase == "pickup":
            if pile_n == 0:
                _fail("pile", "at a pickup the discard pile holds at least the last discard "
                      "(or the up-card)")
            if stock <= reserve:
                _fail("stock", f"a turn never starts with {stock} cards in the stock "
                      f"(stock_reserve={reserve}, R50)")
            return
        t = p["this_turn"]
        if phase == "place":
            if not rules.take_pile_requires_meld:
                _fail("phase", "'place' follows only a pile pickup under take_pile_requires_meld "
                      "(R34)")
            if t["pickup"] != "pile" or t["actions"] != 0:
                _fail("phase", "'place' is the meld phase right after taking the pile, before "
                      "any meld or lay-off (this_turn.pickup = 'pile', actions = 0)")
            if hs_mover < 2:
                _fail(f"hand_sizes[{p['to_move']}]", "after taking the pile a hand holds at "
                      "least 2 cards")
        if t["pickup"] == "pile":
            if pile_n:
                _fail("pile", "the seat took the pile this turn and has not discarded yet, so "
                      "the pile is empty")
            if stock <= reserve:
                _fail("stock", f"a turn never starts with {stock} cards in the stock "
                      f"(stock_reserve={reserve}, R50)")
        else:
            if t["one_card_pile"]:
                _fail("this_turn.one_card_pile", "only after taking the pile (pickup = 'pile')")
            if pile_n == 0:
                _fail("pile", "after a stock draw the pile holds at least the last discard")
            if stock < reserve:
                _fail("stock", f"the stock never falls below stock_reserve={reserve} (R50)")
            if stock == reserve and rules.stock_end_mode == "immediate":
                _fail("stock", "the draw that leaves stock_reserve cards ends the hand at once "
                      "(stock_end_mode = 'immediate', R50)")
            if stock == reserve and rules.untaken_pozzetto_as_stock and self.untaken:
                _fail("stock", "an untaken pozzetto becomes the stock when the stock reaches "
                      "stock_reserve (R53)")
        if "barred" in t:
            if not rules.forbid_rediscard_single_pile:
                _fail("this_turn.barred", "only with forbid_rediscard_single_pile (R36)")
            if not t["one_card_pile"]:
                _fail("this_turn.barred", "only after taking a one-card pile "
                      "(this_turn.one_card_pile = true, R36)")

    def _deck_adds_up(self):
        p = self.p
        hands = sum(p["hand_sizes"])
        melds = sum(len(m) for m in self.melds)
        poz = sum(self.poz_sizes[k] for k in self.untaken)
        total = hands + melds + len(self.pile) + p["stock"] + poz
        if total != N_CARDS:
            raise ValueError(
                f"position: the counts do not add up to the {N_CARDS}-card deck: hand_sizes "
                f"{hands} + melds {melds} + pile {len(self.pile)} + stock {p['stock']} + untaken "
                f"pozzetti {poz} = {total}")

    # -- the state
    def _barred_id(self):
        p = self.p
        t = p.get("this_turn", {})
        if "barred" not in t:
            return -1
        face = CIDX[_face_ids(t["barred"])[0]]
        mover, seat = p["to_move"], p["seat"]
        if t["barred_in_hand"]:
            pool = self.hand if mover == seat else self.known[mover]
            ids = [c for c in pool if CIDX[c] == face]
            if not ids:
                where = "hand" if mover == seat else f"known[{mover}] (it was taken with the pile)"
                _fail("this_turn.barred", f"{t['barred']} is not in {where}; "
                      "barred_in_hand = false if it has been melded")
            return ids[-1]
        side = self.team[mover]
        for m, ids in zip(p["melds"], self.melds):
            if m["side"] == side:
                for c in ids:
                    if CIDX[c] == face:
                        return c
        _fail("this_turn.barred", f"{t['barred']} is not in hand (barred_in_hand = false), so it "
              f"was melded, but no meld of side {side} holds it")

    def _fill(self):
        p, rules, st, n = self.p, self.rules, self.st, self.n
        barred = self._barred_id()
        st.hand[:] = -1
        st.hn[:] = 0
        st.hcnt[:] = 0
        st.known[:] = 0
        st.stock[:] = -1
        st.pile[:] = -1
        st.poz[:] = -1
        st.mcnt[:] = 0
        st.mids[:] = -1
        st.minfo[..., :KS.MI_LOCK] = 0
        st.nm[:] = 0
        unseen = list(self.unseen)
        for s in range(n):
            if s == p["seat"]:
                ids = list(self.hand)
                st.known[s] = self.own_known
            else:
                ids = list(self.known[s])
                for c in ids:
                    st.known[s, CIDX[c]] += 1
                while len(ids) < p["hand_sizes"][s]:
                    ids.append(unseen.pop())
            st.hand[s, :len(ids)] = ids
            st.hn[s] = len(ids)
            st.hcnt[s] = _counts(ids)
        st.pile[:len(self.pile)] = self.pile
        for i in range(p["stock"]):
            st.stock[i] = unseen.pop()
        g = st.g
        g[:] = 0
        for k in range(p["pozzetti"]["left"] + len(p["pozzetti"]["taken"])):
            if k in self.untaken:
                for i in range(self.poz_sizes[k]):
                    st.poz[k, i] = unseen.pop()
        assert not unseen
        for m, ids, nat in zip(p["melds"], self.melds, self.readings):
            t = m["side"]
            mi = int(st.nm[t])
            st.nm[t] = mi + 1
            st.mids[t, mi, :len(ids)] = ids
            st.mcnt[t, mi] = _counts(ids)
            KS.meld_info_full(st.mcnt, st.minfo, np.int64(t), np.int64(mi))
            if nat is not None:
                KS.meld_info_roles(st.mcnt, st.minfo, np.int64(t), np.int64(mi), np.int64(nat),
                                   np.int64(0))
        # the counters (kernels.table.state G_*), as the deal and the turns leave them
        g[KS.G_SP] = 0
        g[KS.G_SLEN] = p["stock"]
        g[KS.G_PN] = len(self.pile)
        taken = p["pozzetti"]["taken"]
        g[KS.G_POZ_NEXT] = len(taken)
        g[KS.G_NPOZ] = len(taken) + p["pozzetti"]["left"]
        g[KS.G_TURN] = p["turn"]
        g[KS.G_STALL] = p["stall"]
        g[KS.G_BARRED] = barred
        for t in range(KS.NTEAMS):
            g[KS.G_PTURN + t] = -1
        for e in taken:
            t = e["side"]
            g[KS.G_TPOZ + t] = 1
            g[KS.G_PTURN + t] = e["turn"]
            g[KS.G_PMODE + t] = MODES.index(e["mode"]) + 1
            if "unplayed_seat" in e:
                g[KS.G_HIDDEN + e["unplayed_seat"]] = 1
        tt = p.get("this_turn")
        if tt is not None:
            g[KS.G_TOOK_PILE] = tt["pickup"] == "pile"
            g[KS.G_ACTIONS] = tt["actions"]
            g[KS.G_SINGLE] = tt["one_card_pile"]
            g[KS.G_OPEN_LAYOFF] = tt.get("open_lay_off", -1) + 1
            g[KS.G_LAST_TURN] = tt["pickup"] == "stock" and p["stock"] <= rules.stock_reserve
        for k in range(3):
            g[KS.G_POZ_SIZE + k] = self.poz_sizes[k]
        g[KS.G_CLOSER] = -1
        for s in range(4):
            g[KS.G_TEAM + s] = self.team[s]
        g[KS.G_SOLO] = self.solo
        g[KS.G_SOLO18] = int(n == 3 and rules.three_player_mode == "solo_18")
        g[KS.G_PHASE] = PHASES.index(p["phase"])
        g[KS.G_SEAT] = p["to_move"]
        g[KS.G_END] = -1
        g[KS.G_DEALER] = p["dealer"]
        g[KS.G_FIRST] = (p["dealer"] + 1) % n
        if not KS.conservation_ok(st):
            raise AssertionError("position: the built state does not conserve the cards")


# ---------------------------------------------------------------- a game -> the view
def from_game(game, seat: int | None = None) -> dict:
    """``seat``'s view of ``game`` at its current decision (``Game.to_position``).

    Only what the seat may know (R11): its own hand in hand order, the table,
    the pile, every count, the cards known in the other hands (``st.known``)
    and what the seat to move did this turn.  ``to_game`` of the result gives
    the same legal actions (when ``seat`` is the seat to move) and the same
    ``observation(seat)`` and ``observation_tensor(seat)``.

    Parameters
    ----------
    game : sim.Game
    seat : int, optional
        The viewer; default the seat to move.

    Raises
    ------
    ValueError
        The hand is over, or ``seat`` is not a seat of the game.
    """
    from ._cards import check_int
    if game.is_over:
        raise ValueError("to_position: the hand is over (a position is a decision)")
    rules = game.rules
    n = rules.num_players
    seat = game.current_seat if seat is None else check_int("seat", seat, 0, n - 1)
    st = game.state
    g = st.g
    mover = int(g[KS.G_SEAT])

    def text(ids):
        return notation.format([int(c) for c in ids])

    def faces_text(counts):
        return _faces_text(f for f in range(N_COUNT) for _ in range(int(counts[f])))

    p = {
        "format": FORMAT, "seat": seat, "to_move": mover, "phase": game.phase,
        "turn": int(g[KS.G_TURN]), "dealer": int(g[KS.G_DEALER]),
        "hand": text(st.hand[seat, :st.hn[seat]]),
        "hand_sizes": [int(st.hn[s]) for s in range(n)],
        "known": [faces_text(st.known[s]) for s in range(n)],
        "pile": text(st.pile[:g[KS.G_PN]]),
        "stock": int(g[KS.G_SLEN] - g[KS.G_SP]),
        "stall": int(g[KS.G_STALL]),
        "rules": rules_table(rules),
    }
    if game.phase != "pickup":
        t = {"pickup": "pile" if g[KS.G_TOOK_PILE] else "stock",
             "one_card_pile": bool(g[KS.G_SINGLE]), "actions": int(g[KS.G_ACTIONS])}
        if game.open_lay_off is not None:
            t["open_lay_off"] = game.open_lay_off
        barred = int(g[KS.G_BARRED])
        if barred >= 0:
            t["barred"] = notation.format_card(barred)
            t["barred_in_hand"] = barred in st.hand[mover, :st.hn[mover]].tolist()
        p["this_turn"] = t
    from .game import _meld_faces
    sides = [t for t in range(KS.NTEAMS) if g[KS.G_TPOZ + t]]
    solo = int(g[KS.G_SOLO])
    sides.sort(key=lambda t: (int(g[KS.G_PTURN + t]), t != solo))
    taken = []
    for t in sides:
        e = {"side": t, "turn": int(g[KS.G_PTURN + t]),
             "mode": L.POZZETTO_MODES[int(g[KS.G_PMODE + t])]}
        for s in range(n):
            if g[KS.G_HIDDEN + s] and g[KS.G_TEAM + s] == t:
                e["unplayed_seat"] = s
        taken.append(e)
    p["pozzetti"] = {"left": int(g[KS.G_NPOZ] - g[KS.G_POZ_NEXT]), "taken": taken}
    melds = []
    for t in range(KS.NTEAMS):
        for mi in range(int(st.nm[t])):
            cnt = st.mcnt[t, mi]
            nat = int(st.minfo[t, mi, KS.MI_NAT2]) if rules.lock_two_roles else None
            m = {"side": t, "cards": _faces_text(_meld_faces(cnt, nat))}
            key = int(st.minfo[t, mi, KS.MI_KEY])
            if rules.lock_two_roles and st.minfo[t, mi, KS.MI_KIND] == KM.KIND_SEQ \
                    and cnt[13 * key + 1] > 0:
                m["natural_twos"] = int(st.minfo[t, mi, KS.MI_NAT2])
            melds.append(m)
    p["melds"] = melds
    totals = getattr(game, "match_totals", None)
    if totals is not None:
        p["match"] = {"totals": [int(x) for x in totals]}
    return normalize(p)
