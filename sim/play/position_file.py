"""Position files: one seat's view of a hand at a decision, as a plain dict, read
(:func:`load`, which checks every field and gives the canonical form) and written
(:func:`dump`, TOML or JSON).  The format is in docs/positions.md; the game of a
position is built by :mod:`sim.play.position_build`, the public module is
:mod:`sim.play.positions`.
"""
from __future__ import annotations

import json
import os
import pathlib
import tomllib

import numpy as np

from kernels.core import layout as L
from kernels.table import state as KS
from kernels.core.cards import CIDX, N_CARDS, N_COUNT

from sim.core import notation
from sim.core.rules import PRESETS, Rules

__all__ = ["FORMAT", "PHASES", "load", "dump", "normalize", "rules_table"]

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
        :func:`sim.core.notation.format` writes them.

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


