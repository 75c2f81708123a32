"""One replayed hand as a self-contained HTML page (issue 19: the hand viewer).

:func:`table_steps` rebuilds the table at every step of a replay document
(:mod:`sim.trace`): step 0 is the deal (or the ``start`` block of a sampled
world), step ``k >= 1`` the table right after event ``k - 1`` of
``doc["events"]``.  Each step holds every hand, each side's melds (the cards in
reading order, :func:`sim.melds.reading_order`, the wilds marked, clean / dirty and the burraco class as
the scoring kernel judges them, R27-R31), the discard pile, the stock count,
the pozzetti (left, taken by whom and when, or turned into the stock, R53), the
running table points of each side (card points of its melds, R2, plus their
burraco bonuses, R56) and the event in words.  The melds are judged with
:func:`sim.melds.check` and :func:`sim.melds.lay_off` (the kernels' own
functions), and a hand that is over is checked against the document's record:
the last step's melds, burracos and cards in hand give the record's
``meld_points``, ``burraco_bonus``, ``melds``, burraco counts and
``hand_points`` of every side, or :class:`ViewerMismatchError` is raised.

:func:`to_html` writes the steps into one HTML file: inline CSS and script,
the data embedded as JSON, no network.  Buttons, a slider and the left/right
arrow keys step through the hand; the last step shows the record's score
breakdown.  With ``seat=K`` the page holds what seat ``K`` sees (R11): its own
hand face up, the other hands face down with their counts, the other seats'
draws and pozzetti unnamed; the hidden cards are not in the file at all.
Analysis rows given for a step (``analyses``, or the document's
``"analyses"`` key) are shown in a side panel at that step.
"""
from __future__ import annotations

import copy
import html
import json
import math
import os
import tempfile

from kernels.core.cards import RANK, SUIT, VALUE

from . import notation
from ._cards import check_int
from ._text import plural
from .rules import Rules

#: Display order of the suits (ids 0 clubs, 1 diamonds, 2 hearts, 3 spades): colours alternate.
_SUIT_ORDER = {3: 0, 2: 1, 0: 2, 1: 3}

_MODE_WORDS = {"direct": "played on at once", "discard": "after the discard, for the next turn"}
_END_WORDS = {"closed": "closed", "stock_exhausted": "the stock ran out",
              "stall": "the stall limit was reached (R51)", "turn_cap": "the turn cap was reached"}


class ViewerMismatchError(RuntimeError):
    """The table rebuilt from a document's events does not give the document's record
    (a bug of the viewer or of the document: it must never happen)."""


def _sort_hand(ids) -> list:
    """Card ids in display order: by suit (spades, hearts, clubs, diamonds), rank, jokers last."""
    def key(c):
        r = int(RANK[c])
        return (1, 0, 0, c) if r < 0 else (0, _SUIT_ORDER[int(SUIT[c])], r, c)
    return sorted((int(c) for c in ids), key=key)


def _remove(cards: list, ids, where: str) -> None:
    """Remove card ids ``ids`` from list ``cards`` (ValueError naming ``where`` if one is
    missing)."""
    for c in ids:
        try:
            cards.remove(int(c))
        except ValueError:
            raise ValueError(f"viewer: {where}: card {notation.format_card(int(c))} (id {c}) "
                             "is not there; the document's events do not follow one another"
                             ) from None


class _Meld:
    """A meld on the table: its :class:`sim.melds.MeldCheck` and its display."""

    __slots__ = ("check", "view")

    def __init__(self, chk, r: Rules):
        from .scoring import score_team
        if not chk.valid:
            raise ValueError(f"viewer: meld {notation.format(chk.cards)} is not valid: "
                             f"{chk.reason}")
        self.check = chk
        ts = score_team([chk], [], False, "taken", r)
        burraco = ("clean" if ts.clean_burracos else "semi-clean" if ts.semi_clean_burracos
                   else "dirty" if ts.dirty_burracos else None)
        order, wild, natural_two = chk.reading(r)        # the one reading order (sim.melds)
        self.view = {"cards": list(order), "wild": list(wild), "natural_two": natural_two,
                     "kind": chk.kind, "clean": bool(chk.clean), "burraco": burraco,
                     "points": ts.meld_points, "bonus": ts.burraco_bonus}


def _sides(n: int) -> int:
    """Tables (sides) of an ``n``-player hand: one per player with 3 (R62, R63), else 2."""
    return 3 if n == 3 else 2


class _Table:
    """The table while the events are applied (card ids throughout)."""

    def __init__(self, doc: dict, r: Rules):
        self.r = r
        n = r.num_players
        self.n = n
        self.solo18 = n == 3 and r.three_player_mode == "solo_18"
        if "start" in doc:
            st = doc["start"]
            self.hands = [list(map(int, h)) for h in st["hand_ids"]]
            self.melds = [[self._start_meld(m) for m in side] for side in st["melds"]]
            self.pile = list(map(int, st["pile_ids"]))
            self.stock = list(map(int, st["stock_ids"]))
            self.pozzetti = []
            for p in st["pozzetti"]:
                if p["state"] == "left":
                    self.pozzetti.append({"state": "left", "ids": list(map(int, p["card_ids"]))})
                elif p["state"] == "taken":
                    self.pozzetti.append({"state": "taken", "team": p["team"], "seat": None,
                                          "turn": p["turn"] or None, "mode": p["mode"]})
                else:
                    self.pozzetti.append({"state": "stock"})
            self.side_of = list(map(int, st["team_of"]))
            self.merged = st["solo_seat"] >= 0
        else:
            d = doc["deal_ids"]
            self.hands = [list(map(int, h)) for h in d["hands"]]
            self.melds = [[] for _ in range(_sides(n))]
            self.pile = [int(d["discard"])]
            self.stock = list(map(int, d["stock"]))
            self.pozzetti = [{"state": "left", "ids": list(map(int, p))} for p in d["pozzetti"]]
            self.side_of = list(range(n)) if n != 4 else [0, 1, 0, 1]
            self.merged = False
        if len(self.hands) != n:
            raise ValueError(f"viewer: the document has {plural(len(self.hands), 'hand')}, but its rules "
                             f"have num_players = {n}")

    def _start_meld(self, m: dict) -> _Meld:
        from .melds import table_meld
        return _Meld(table_meld(m["card_ids"], self.r, m.get("natural_twos")), self.r)

    def apply(self, e: dict) -> dict:
        """Apply event ``e``; returns what the step marks: ``{"ids": [...], "meld": [side, i]}``."""
        from .melds import check, lay_off
        t, s = e["type"], e["seat"]
        where = f"turn {e['turn']}, seat {s}, {t}"
        mark = {"ids": [], "meld": None, "pozzetto": None}
        if t == "draw":
            c = int(e["card_id"])
            if not self.stock or self.stock[0] != c:
                raise ValueError(f"viewer: {where}: {e['card']} is not the top card of the stock")
            self.stock.pop(0)
            self.hands[s].append(c)
            mark["ids"] = [c]
        elif t == "take_pile":
            ids = list(map(int, e["card_ids"]))
            _remove(self.pile, ids, where + " (the discard pile)")
            self.hands[s] += ids
            mark["ids"] = ids
        elif t in ("meld", "lay_off"):
            ids = list(map(int, e["card_ids"]))
            _remove(self.hands[s], ids, where + f" (seat {s}'s hand)")
            side, mi = int(e["team"]), int(e["meld"])
            table = self.melds[side]
            if t == "meld":
                if mi != len(table):
                    raise ValueError(f"viewer: {where}: meld {mi} of side {side}, which has "
                                     f"{plural(len(table), 'meld')}")
                table.append(_Meld(check(ids, self.r), self.r))
            else:
                if mi >= len(table):
                    raise ValueError(f"viewer: {where}: side {side} has no meld {mi}")
                table[mi] = _Meld(lay_off(table[mi].check, ids, self.r), self.r)
            mark.update(ids=ids, meld=[side, mi])
        elif t == "pozzetto":
            ids = list(map(int, e["card_ids"]))
            k = next((k for k, p in enumerate(self.pozzetti) if p["state"] == "left"), None)
            if k is None or sorted(self.pozzetti[k]["ids"]) != sorted(ids):
                raise ValueError(f"viewer: {where}: the cards are not the next pozzetto's")
            self.hands[s] += ids
            self.pozzetti[k] = {"state": "taken", "team": self.side_of[s], "seat": s,
                                "turn": e["turn"], "mode": e["mode"]}
            mark.update(ids=ids, pozzetto=k)
            if self.solo18 and k == 0 and not self.merged:
                self._merge(s)
        elif t == "pozzetto_to_stock":
            k = int(e["pozzetto"])
            ids = list(map(int, e["card_ids"]))
            left = self.pozzetti[k]
            if left["state"] != "left" or sorted(left["ids"]) != sorted(ids):
                raise ValueError(f"viewer: {where}: pozzetto {k} is not left with these cards")
            self.stock = ids + self.stock         # on top of the reserve cards (R53)
            self.pozzetti[k] = {"state": "stock"}
            mark["pozzetto"] = k
        elif t == "discard":
            c = int(e["card_id"])
            _remove(self.hands[s], [c], where + f" (seat {s}'s hand)")
            self.pile.append(c)
            mark["ids"] = [c]
        elif t != "end":
            raise ValueError(f"viewer: {where}: unknown event type {t!r}")
        return mark

    def _merge(self, solo: int) -> None:
        """R62: ``solo`` took pozzetto A; the other two share the lower seat's table."""
        a, b = (x for x in range(3) if x != solo)
        ta, tb = self.side_of[a], self.side_of[b]
        self.melds[ta] += self.melds[tb]
        self.melds[tb] = []
        self.side_of[b] = ta
        self.merged = True

    def side_label(self, side: int) -> str:
        seats = [s for s in range(self.n) if self.side_of[s] == side]
        if self.n == 4:
            return f"team {side} (seats {seats[0]} and {seats[1]})"
        if not seats:
            return f"table {side} (merged)"
        return f"seat {seats[0]}" if len(seats) == 1 else f"seats {seats[0]} and {seats[1]}"

    def snapshot(self) -> dict:
        melds = [[m.view for m in side] for side in self.melds]
        table = []
        for side in melds:
            pts = sum(m["points"] for m in side)
            bonus = sum(m["bonus"] for m in side)
            table.append({"melds": pts, "bonus": bonus, "total": pts + bonus,
                          "count": len(side)})
        return {
            "hands": [_sort_hand(h) for h in self.hands],
            "hand_points": [int(sum(int(VALUE[c]) for c in h)) for h in self.hands],
            "melds": copy.deepcopy(melds),
            "table_points": table,
            "pile": list(self.pile),
            "stock": len(self.stock),
            "pozzetti": [{"state": p["state"], "count": len(p["ids"]), "ids": list(p["ids"])}
                         if p["state"] == "left" else dict(p) for p in self.pozzetti],
            "side_of": list(self.side_of),
            "side_labels": [self.side_label(t) for t in range(len(self.melds))],
        }


def _cards_text(ids) -> str:
    return " ".join(notation.format_card(int(c)) for c in ids)


def _event_text(e: dict, mark: dict, before: dict, seat) -> str:
    """The event in words; ``seat`` the viewing seat (None: every card shown)."""
    t, s = e["type"], e["seat"]
    head = f"Turn {e['turn']}, seat {s}"
    hidden = seat is not None and s != seat
    if t == "draw":
        return f"{head} draws " + ("a card from the stock." if hidden else f"{e['card']}.")
    if t == "take_pile":
        n = len(e["cards"])
        return (f"{head} takes the discard pile ({n} card{'s' if n != 1 else ''}: "
                f"{' '.join(e['cards'])}).")
    if t in ("meld", "lay_off"):
        side, mi = mark["meld"]
        label = before["side_labels"][side]
        if t == "meld":
            return f"{head} melds {' '.join(e['cards'])}: meld {mi} of {label}."
        return f"{head} lays off {' '.join(e['cards'])} on meld {mi} of {label}."
    if t == "pozzetto":
        k = mark["pozzetto"]
        n = len(e["cards"])
        return (f"{head} takes pozzetto {k} ({plural(n, 'card')}; "
                f"{_MODE_WORDS.get(e['mode'], e['mode'])}).")
    if t == "pozzetto_to_stock":
        return (f"{head}: the stock is down to its reserve, so pozzetto {e['pozzetto']} becomes "
                "the stock (R53).")
    if t == "discard":
        return f"{head} discards {e['card']}" + (" and closes the hand." if e["closes"] else ".")
    if t == "end":
        return (f"The hand ends after {plural(e['turn'], 'turn')}: "
                f"{_END_WORDS.get(e['reason'], e['reason'])}.")
    return f"{head}: {t}"


def _start_text(doc: dict) -> str:
    if "start" in doc:
        st = doc["start"]
        return (f"Start: a world sampled for seat {st['sampled_for']}, turn {st['turn']}, "
                f"seat {st['seat']} to {st['phase']}.")
    return (f"Deal: seat {doc['dealer']} deals, seat {doc['first_player']} plays first; "
            f"the up-card is {doc['deal']['discard']}.")


def table_steps(doc: dict) -> list:
    """The table at every step of a replay document, every card shown.

    Parameters
    ----------
    doc : dict
        A replay document (:func:`sim.replay`, ``Game.replay_document()`` or
        ``Game.history_document()``; module docstring of :mod:`sim.trace`).

    Returns
    -------
    list of dict
        ``len(doc["events"]) + 1`` steps; step 0 is the deal (or the start
        block), step ``k`` the table after event ``k - 1``.  Each step has
        ``index``, ``turn`` (0 for the deal), ``seat`` (who acted, None at
        step 0), ``type`` (``"deal"``, ``"start"`` or the event's type),
        ``text`` (the event in words), ``hands`` (card ids per seat, in display
        order), ``hand_points`` (card points in each hand, R2), ``melds`` (per
        side, a list of ``{"cards", "wild", "natural_two", "kind", "clean",
        "burraco", "points", "bonus"}``: card ids in reading order, the wilds'
        ids, the id of the natural 2 or None, ``"set"``/``"sequence"``, no wild,
        ``"clean"``/``"semi-clean"``/``"dirty"`` or None for no burraco, card
        points and burraco bonus), ``table_points`` (per side ``{"melds",
        "bonus", "total", "count"}``, points), ``pile`` (ids, bottom first),
        ``stock`` (cards left), ``pozzetti`` (``{"state": "left", "count",
        "ids"}``, ``{"state": "taken", "team", "seat", "turn", "mode"}`` or
        ``{"state": "stock"}``), ``side_of`` (each seat's side), ``side_labels``
        and ``marked`` (``{"ids", "meld", "pozzetto"}``: what the event moved).

    Raises
    ------
    ValueError
        The document is not a replay document, or its events do not follow
        from its deal (a card taken from where it is not, naming the event).
    ViewerMismatchError
        A finished hand's last step does not give its record (see the module
        docstring; it must never happen).
    """
    if not isinstance(doc, dict) or "events" not in doc or not (
            "deal_ids" in doc or "start" in doc):
        raise ValueError("viewer: doc must be a replay document (sim.replay(...)): a dict with "
                         "'events' and 'deal_ids' or 'start'")
    r = Rules.from_dict(doc["rules"])
    tab = _Table(doc, r)
    first = tab.snapshot()
    first.update(index=0, turn=doc["start"]["turn"] if "start" in doc else 0, seat=None,
                 type="start" if "start" in doc else "deal", text=_start_text(doc),
                 marked={"ids": [], "meld": None, "pozzetto": None})
    steps = [first]
    for i, e in enumerate(doc["events"]):
        before = steps[-1]
        mark = tab.apply(e)
        snap = tab.snapshot()
        snap.update(index=i + 1, turn=e["turn"], seat=e["seat"], type=e["type"],
                    text=_event_text(e, mark, before, None), marked=mark)
        steps.append(snap)
    if "result" in doc:
        check_final(doc, steps[-1])
    return steps


#: Record columns (without the ``_tN`` suffix) and the last step's value they must equal.
_FINAL_CHECKS = ("meld_points", "burraco_bonus", "melds", "clean_burracos", "dirty_burracos",
                 "semi_clean_burracos", "hand_points")


def _side_of_column(n: int, step: dict, t: int) -> int:
    """The side a record column ``_t{t}`` describes (with 3 players the columns are seats)."""
    return step["side_of"][t] if n == 3 else t


def final_values(step: dict, n: int) -> dict:
    """The record values a step's table gives per column ``_t{t}``: ``{column: value}`` for
    the columns of :data:`_FINAL_CHECKS` (``n`` players)."""
    out = {}
    for t in range(_sides(n)):
        side = _side_of_column(n, step, t)
        melds = step["melds"][side]
        hands = [s for s in range(n) if step["side_of"][s] == side]
        out.update({
            f"meld_points_t{t}": sum(m["points"] for m in melds),
            f"burraco_bonus_t{t}": sum(m["bonus"] for m in melds),
            f"melds_t{t}": len(melds),
            f"clean_burracos_t{t}": sum(m["burraco"] == "clean" for m in melds),
            f"dirty_burracos_t{t}": sum(m["burraco"] in ("dirty", "semi-clean") for m in melds),
            f"semi_clean_burracos_t{t}": sum(m["burraco"] == "semi-clean" for m in melds),
            f"hand_points_t{t}": sum(step["hand_points"][s] for s in hands),
        })
    return out


def check_final(doc: dict, step: dict) -> None:
    """Raise :class:`ViewerMismatchError` when the last step's table does not give the
    record of the document (``doc["result"]``)."""
    res = doc["result"]
    got = final_values(step, len(step["hands"]))
    bad = [c for c, v in got.items() if res.get(c) is not None and int(res[c]) != v]
    if bad:
        raise ViewerMismatchError(
            f"viewer: hand {doc['hand_index']} of seed {doc['seed']}: the table rebuilt from "
            f"the events gives {bad[0]} = {got[bad[0]]}, the record {res[bad[0]]} "
            f"({plural(len(bad), 'value')} {'differs' if len(bad) == 1 else 'differ'}: "
            f"{', '.join(bad)}; please report this)")


# ---------------------------------------------------------------------------------- the page

def _json_value(v, where: str):
    """An analysis value as JSON: NumPy scalars as Python ones, NaN/inf as None."""
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict, str)):
        v = v.item()
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    raise ValueError(f"{where}: a value must be a string, number, bool or None, got "
                     f"{type(v).__name__} {v!r}")


def _analyses(doc: dict, analyses, steps: int) -> dict:
    """The analysis rows per step: the document's ``"analyses"`` then ``analyses`` (which
    replaces a step's rows), checked; ``{str(step): [row, ...]}``."""
    out = {}
    for name, mapping in (("doc['analyses']", doc.get("analyses")), ("analyses", analyses)):
        if mapping is None:
            continue
        if not isinstance(mapping, dict):
            raise ValueError(f"{name} must be a mapping from step index to a list of dict rows, "
                             f"got {type(mapping).__name__}")
        for key, rows in mapping.items():
            try:
                k = int(key)
            except (TypeError, ValueError):
                raise ValueError(f"{name}: the step index {key!r} is not an integer") from None
            if isinstance(key, bool) or not 0 <= k < steps:
                raise ValueError(f"{name}: step {key!r} is not a step of the hand (0..{steps - 1})")
            if hasattr(rows, "to_dict") and hasattr(rows, "columns"):     # a DataFrame
                rows = rows.to_dict("records")
            if not isinstance(rows, (list, tuple)) or not all(isinstance(x, dict) for x in rows):
                raise ValueError(f"{name}[{key!r}] must be a list of dict rows")
            out[str(k)] = [{str(c): _json_value(v, f"{name}[{key!r}] column {c!r}")
                            for c, v in row.items()} for row in rows]
    return out


def _final(doc: dict, n: int, last: dict) -> dict | None:
    """The score breakdown of the record (None without one): per column ``_t{t}``."""
    res = doc.get("result")
    if res is None:
        return None
    cols = []
    for t in range(_sides(n)):
        label = (f"seat {t} (credited)" if n == 3 else last["side_labels"][t])
        c = {k: res.get(f"{k}_t{t}") for k in (
            "score", "meld_points", "burraco_bonus", "closing_bonus", "hand_points",
            "pozzetto_penalty", "clean_burracos", "dirty_burracos", "semi_clean_burracos",
            "melds", "closed", "pozzetto_taken")}
        c["label"] = label
        cols.append(c)
    return {"columns": cols, "end_reason": res.get("end_reason"), "turns": res.get("turns")}


def _seat_view(steps: list, doc: dict, seat: int) -> list:
    """The steps as seat ``seat`` sees them: the other hands, the untaken pozzetti's cards
    and the other seats' drawn cards left out (counts kept)."""
    out = []
    events = doc["events"]
    for st in steps:
        v = copy.deepcopy(st)
        v["hands"] = [h if s == seat else None for s, h in enumerate(st["hands"])]
        v["hand_counts"] = [len(h) for h in st["hands"]]
        v["hand_points"] = [p if s == seat else None for s, p in enumerate(st["hand_points"])]
        for p in v["pozzetti"]:
            p.pop("ids", None)
        if st["index"] > 0:
            e = events[st["index"] - 1]
            if e["type"] in ("draw", "pozzetto") and e["seat"] != seat:
                v["marked"]["ids"] = []
            v["text"] = _event_text(e, st["marked"], steps[st["index"] - 1], seat)
        out.append(v)
    return out


def page_data(doc: dict, seat=None, analyses=None) -> dict:
    """The data :func:`to_html` embeds: ``{"meta", "faces", "steps", "final", "analyses"}``
    (``faces``: the text of every card id the page shows)."""
    steps = table_steps(doc)
    r = Rules.from_dict(doc["rules"])
    n = r.num_players
    if seat is not None:
        seat = check_int("seat", seat, 0, n - 1)
        shown = _seat_view(steps, doc, seat)
    else:
        shown = steps
        for st in shown:
            st["hand_counts"] = [len(h) for h in st["hands"]]
    faces = {}
    for st in shown:
        ids = [c for h in st["hands"] if h is not None for c in h] + st["pile"]
        ids += [c for side in st["melds"] for m in side for c in m["cards"]]
        ids += [c for p in st["pozzetti"] for c in p.get("ids", ())]
        for c in ids:
            faces[str(c)] = notation.format_card(c)
    names = doc.get("strategies") or [None] * n
    meta = {
        "title": f"Burraco: hand {doc['hand_index']} of seed {doc['seed']}",
        "players": n, "seat": seat, "dealer": doc.get("dealer"),
        "first_player": doc.get("first_player"), "sides": _sides(n),
        "seats": [{"label": f"seat {s}" + (" (you)" if seat == s else ""),
                   "strategy": names[s] if s < len(names) else None} for s in range(n)],
        "start": "start" in doc,
    }
    return {"meta": meta, "faces": faces, "steps": shown, "final": _final(doc, n, steps[-1]),
            "analyses": _analyses(doc, analyses, len(steps))}


def to_html(doc: dict, seat=None, analyses=None) -> str:
    """The hand of a replay document as one self-contained HTML page.

    Parameters
    ----------
    doc : dict
        A replay document (:func:`sim.replay`; a ``history_document()``
        without ``result`` has no score breakdown).  Its optional
        ``"analyses"`` key is read as ``analyses``.
    seat : int, optional
        Show the hand as this seat (0 .. num_players-1) sees it: its hand face
        up, the others face down with their counts, the other seats' draws and
        the untaken pozzetti unnamed.  The hidden cards are not written to the
        page.  Default: every card face up.
    analyses : mapping, optional
        ``{step index: [row, ...]}``, each row a dict of column -> string,
        number, bool or None (a DataFrame is taken as its records), shown in a
        side panel at that step; step 0 is the deal, step ``k`` the table after
        ``doc["events"][k - 1]``, so the analysis of the decision that made
        event ``j`` belongs at step ``j``.  Replaces the document's rows for
        the same step.

    Returns
    -------
    str
        The HTML text (UTF-8): inline CSS and script, the data as JSON, no
        network access.

    Raises
    ------
    ValueError
        Not a replay document, events that do not follow from its deal, a bad
        ``seat`` or bad analysis rows (naming the step and column).
    ViewerMismatchError
        The rebuilt table does not give the document's record (a bug).
    """
    data = page_data(doc, seat, analyses)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # inside <script>: no "</script>", "<!--" or "&" can end or change it
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = data["meta"]["title"] + (f", as seat {seat} sees it" if seat is not None else "")
    return (_PAGE.replace("@TITLE@", html.escape(title))
                 .replace("@CSS@", _CSS).replace("@SCRIPT@", _SCRIPT)
                 .replace("@DATA@", text))


def write_html(doc: dict, path, seat=None, analyses=None, overwrite: bool = False) -> str:
    """Write :func:`to_html` of ``doc`` to ``path`` atomically.

    The page is written to a temporary file in the same directory and renamed
    into place, so ``path`` is never half written.

    Parameters
    ----------
    doc, seat, analyses
        As :func:`to_html`.
    path : str or os.PathLike
        The HTML file; its directory must exist.
    overwrite : bool
        Replace an existing ``path`` (refused by default).

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        As :func:`to_html`; ``path`` exists and ``overwrite`` is False, is a
        directory, or its directory does not exist or cannot be written.
    """
    path = os.fspath(path)
    name, flag = "path", "overwrite=True"
    _check_out(path, overwrite, name, flag)
    text = to_html(doc, seat, analyses)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.",
                                   suffix=".tmp")
    except OSError as exc:
        raise ValueError(f"{name}: cannot write in {folder!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)             # fails if path appeared meanwhile: never clobbers
            except FileExistsError:
                _check_out(path, False, name, flag)
            except OSError:                    # no hard links here: check, then rename
                _check_out(path, False, name, flag)
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def _check_out(path: str, overwrite: bool, name: str = "path",
               flag: str = "overwrite=True") -> None:
    """ValueError when ``path`` cannot be the output file (see :func:`write_html`);
    ``name`` and ``flag`` are the option names the message gives."""
    if not path:
        raise ValueError(f"{name}: the file name is empty")
    if os.path.isdir(path):
        raise ValueError(f"{name}: {path!r} is a directory; give the HTML file's name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{name}: the directory {folder!r} does not exist")
    if os.path.lexists(path) and not overwrite:
        raise ValueError(f"{name}: {path!r} exists; use another name, or {flag} to replace it")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
@CSS@
</style>
</head>
<body>
<header>
  <h1 id="title">@TITLE@</h1>
  <p id="subtitle"></p>
</header>
<nav id="controls">
  <button id="prev" type="button" title="previous step (left arrow)">&#9664; previous</button>
  <input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
  <button id="next" type="button" title="next step (right arrow)">next &#9654;</button>
  <span id="stepno"></span>
</nav>
<p id="event"></p>
<div id="layout">
  <main>
    <section id="final" hidden>
      <h2>Score of the hand</h2>
      <p id="final-reason"></p>
      <table id="final-table"></table>
    </section>
    <section id="seats"></section>
    <section id="middle">
      <div class="box"><h2>Stock</h2><span id="stock" class="count"></span> cards</div>
      <div class="box wide"><h2>Discard pile <small>(bottom first)</small></h2><div id="pile" class="cards"></div></div>
      <div class="box"><h2>Pozzetti</h2><ul id="pozzetti"></ul></div>
    </section>
    <section id="sides"></section>
  </main>
  <aside id="analysis" hidden>
    <h2>Analysis</h2>
    <table id="analysis-table"></table>
  </aside>
</div>
<details id="logbox"><summary>All events</summary><ol id="log" start="0"></ol></details>
<script type="application/json" id="data">@DATA@</script>
<script>
@SCRIPT@
</script>
</body>
</html>
"""

_CSS = """
:root { --felt: #1f6b45; --ink: #1b1b1b; --red: #c8102e; --gold: #b8860b; }
* { box-sizing: border-box; }
body { margin: 0; padding: 12px 16px; font-family: "DejaVu Sans", system-ui, sans-serif;
       background: #f4f1ea; color: var(--ink); }
h1 { font-size: 1.3em; margin: 0 0 2px; }
h2 { font-size: 1em; margin: 0 0 6px; }
h3 { font-size: .95em; margin: 0 0 4px; }
#subtitle { margin: 0 0 8px; color: #555; font-size: .9em; }
#controls { display: flex; align-items: center; gap: 10px; margin-bottom: 6px; }
#controls button { font-size: 1em; padding: 4px 12px; cursor: pointer; }
#slider { flex: 1; min-width: 200px; }
#stepno { font-variant-numeric: tabular-nums; min-width: 8em; }
#event { background: #fffbe6; border: 1px solid #e0d7a8; padding: 6px 10px; margin: 0 0 10px;
         font-size: 1.05em; min-height: 1.6em; }
#layout { display: flex; gap: 12px; align-items: flex-start; }
main { flex: 1; min-width: 0; }
#seats { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px; }
.seat { background: var(--felt); color: #fff; border-radius: 8px; padding: 6px 8px;
        border: 3px solid transparent; }
.seat.active { border-color: #ffd54a; }
.seat .head { font-size: .9em; margin-bottom: 4px; }
#middle { display: flex; gap: 8px; margin: 8px 0; flex-wrap: wrap; }
.box { background: #fff; border: 1px solid #ccc; border-radius: 8px; padding: 6px 8px; }
.box.wide { flex: 1; min-width: 300px; }
.count { font-size: 1.6em; font-weight: bold; }
#pozzetti { margin: 0; padding-left: 18px; font-size: .9em; }
#sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 8px; }
.side { background: #fff; border: 1px solid #bbb; border-radius: 8px; padding: 6px 8px; }
.side .score { font-weight: normal; color: #333; }
.meld { display: flex; align-items: center; gap: 6px; margin: 3px 0; padding: 2px 4px;
        border-radius: 6px; }
.meld.changed { background: #fff3c4; }
.meld .tag { font-size: .75em; padding: 1px 5px; border-radius: 4px; white-space: nowrap; }
.tag.clean { background: #d8f0dc; color: #145a24; }
.tag.dirty { background: #f6e0c8; color: #7a3e00; }
.tag.burraco { background: #263e8a; color: #fff; font-weight: bold; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; min-height: 50px; align-items: center; }
.card { position: relative; display: inline-flex; flex-direction: column; align-items: center;
        justify-content: center; width: 36px; height: 50px; border-radius: 5px; background: #fff;
        border: 1px solid #888; font-weight: bold; line-height: 1.05; color: var(--ink);
        box-shadow: 1px 1px 0 rgba(0,0,0,.25); }
.card b { font-size: 15px; }
.card i { font-style: normal; font-size: 19px; }
.card.red { color: var(--red); }
.card.black { color: #111; }
.card.joker { background: #efe3ff; border-color: #6a1b9a; color: #6a1b9a; }
.card.joker i { color: var(--gold); }
.card.wild { outline: 2px dashed var(--gold); outline-offset: -1px; }
.card.wild::after { content: "wild"; position: absolute; bottom: -3px; font-size: 8px;
                    background: var(--gold); color: #fff; padding: 0 2px; border-radius: 2px; }
.card.nat2::after { content: "nat."; position: absolute; bottom: -3px; font-size: 8px;
                    background: #2e7d32; color: #fff; padding: 0 2px; border-radius: 2px; }
.card.hl { box-shadow: 0 0 0 3px #ffd54a; }
.card.back { background: repeating-linear-gradient(45deg, #24418f, #24418f 4px, #3a5bb8 4px,
             #3a5bb8 8px); border-color: #fff; margin-right: -22px; }
.card.top { box-shadow: 0 0 0 3px #4a90e2; }
#final { background: #fff; border: 2px solid #263e8a; border-radius: 8px; padding: 8px;
         margin-bottom: 8px; }
table { border-collapse: collapse; font-size: .9em; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
#analysis { width: 380px; background: #fff; border: 2px solid #6a1b9a; border-radius: 8px;
            padding: 8px; overflow-x: auto; }
#logbox { margin-top: 10px; font-size: .85em; }
#log li { cursor: pointer; }
#log li.current { background: #fff3c4; font-weight: bold; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("data").textContent);
  const S = D.steps, N = S.length, M = D.meta;
  const $ = (id) => document.getElementById(id);
  let cur = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function card(id, classes) {
    const f = D.faces[String(id)];
    const c = el("span", "card");
    c.dataset.id = String(id);
    c.dataset.card = f;
    if (f === "JK") {
      c.classList.add("joker");
      c.title = "joker";
      c.append(el("b", null, "JK"), el("i", null, "\u2605"));
    } else {
      const suit = f.slice(-1), rank = f.slice(0, -1);
      c.classList.add(suit === "\u2665" || suit === "\u2666" ? "red" : "black");
      c.title = f;
      c.append(el("b", null, rank), el("i", null, suit));
    }
    for (const x of classes || []) c.classList.add(x);
    return c;
  }

  function back() {
    const c = el("span", "card back");
    c.dataset.card = "back";
    return c;
  }

  function build() {
    document.title = $("title").textContent;
    const names = M.seats.map((s, i) => "seat " + i + ": " + (s.strategy || "-"));
    $("subtitle").textContent = names.join(", ") +
      (M.dealer !== null && M.dealer !== undefined ? "; dealer seat " + M.dealer : "") +
      (M.seat !== null ? "; seen by seat " + M.seat : "");
    const seats = $("seats");
    M.seats.forEach((s, i) => {
      const box = el("div", "seat");
      box.id = "seat-" + i;
      const head = el("div", "head");
      head.id = "seat-head-" + i;
      const hand = el("div", "cards");
      hand.id = "hand-" + i;
      box.append(head, hand);
      seats.append(box);
    });
    const sides = $("sides");
    for (let t = 0; t < M.sides; t++) {
      const box = el("div", "side");
      box.id = "side-" + t;
      const h = el("h3");
      const lab = el("span", "label");
      lab.id = "side-label-" + t;
      const sc = el("span", "score");
      sc.id = "score-" + t;
      h.append(lab, document.createTextNode(": "), sc);
      const melds = el("div", "melds");
      melds.id = "melds-" + t;
      box.append(h, melds);
      sides.append(box);
    }
    const log = $("log");
    S.forEach((s, i) => {
      const li = el("li", null, s.text);
      li.addEventListener("click", () => show(i));
      log.append(li);
    });
    const slider = $("slider");
    slider.max = String(N - 1);
    slider.addEventListener("input", () => show(Number(slider.value)));
    $("prev").addEventListener("click", () => show(cur - 1));
    $("next").addEventListener("click", () => show(cur + 1));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        e.preventDefault();
        show(cur + (e.key === "ArrowRight" ? 1 : -1));
      }
    });
  }

  function pozText(p, k) {
    if (p.state === "left") return "pozzetto " + k + ": " + p.count + " cards, not taken";
    if (p.state === "stock") return "pozzetto " + k + ": became the stock";
    let who = "side " + p.team;
    if (p.seat !== null && p.seat !== undefined) who = "seat " + p.seat;
    return "pozzetto " + k + ": taken by " + who + (p.turn ? " in turn " + p.turn : "") +
      " (" + p.mode + ")";
  }

  function renderMeld(m, changed, marked) {
    const row = el("div", "meld" + (changed ? " changed" : ""));
    row.dataset.cards = m.cards.map((c) => D.faces[String(c)]).join(" ");
    const cards = el("div", "cards");
    for (const c of m.cards) {
      const cls = [];
      if (m.wild.indexOf(c) >= 0) cls.push("wild");
      if (m.natural_two === c) cls.push("nat2");
      if (changed && marked.indexOf(c) >= 0) cls.push("hl");
      cards.append(card(c, cls));
    }
    row.append(cards);
    row.append(el("span", "tag " + (m.clean ? "clean" : "dirty"),
      (m.clean ? "clean " : "dirty ") + m.kind));
    if (m.burraco) {
      row.dataset.burraco = m.burraco;
      row.append(el("span", "tag burraco", m.burraco + " burraco +" + m.bonus));
    }
    row.append(el("span", "pts", m.points + " pts"));
    return row;
  }

  function show(i) {
    i = Math.max(0, Math.min(N - 1, i));
    cur = i;
    const s = S[i];
    const marked = s.marked.ids;
    $("slider").value = String(i);
    $("stepno").textContent = "step " + i + " / " + (N - 1);
    $("stepno").dataset.step = String(i);
    $("prev").disabled = i === 0;
    $("next").disabled = i === N - 1;
    $("event").textContent = s.text;
    for (let k = 0; k < M.players; k++) {
      const box = $("seat-" + k);
      box.classList.toggle("active", s.seat === k);
      const n = s.hand_counts[k];
      const pts = s.hand_points[k];
      const mates = [];
      for (let j = 0; j < M.players; j++) if (j !== k && s.side_of[j] === s.side_of[k]) mates.push(j);
      const team = M.players === 4 ? "team " + s.side_of[k] + ", " :
        mates.length ? "partner of seat " + mates[0] + ", " : "";
      $("seat-head-" + k).textContent = M.seats[k].label + " (" + team +
        (M.seats[k].strategy || "-") + "): " + n + " card" + (n === 1 ? "" : "s") +
        (pts !== null ? ", " + pts + " points in hand" : ", face down");
      const hand = $("hand-" + k);
      hand.dataset.count = String(n);
      hand.replaceChildren();
      if (s.hands[k] === null) {
        for (let j = 0; j < n; j++) hand.append(back());
      } else {
        for (const c of s.hands[k]) hand.append(card(c, s.seat === k && marked.indexOf(c) >= 0 ? ["hl"] : []));
      }
    }
    $("stock").textContent = String(s.stock);
    const pile = $("pile");
    pile.replaceChildren();
    s.pile.forEach((c, j) => pile.append(card(c, j === s.pile.length - 1 ? ["top"] : [])));
    if (!s.pile.length) pile.append(el("span", null, "empty"));
    const pz = $("pozzetti");
    pz.replaceChildren();
    s.pozzetti.forEach((p, k) => {
      const li = el("li", null, pozText(p, k));
      li.dataset.state = p.state;
      pz.append(li);
    });
    for (let t = 0; t < M.sides; t++) {
      const tp = s.table_points[t];
      $("side-" + t).hidden = s.side_of.indexOf(t) < 0;      // a table merged away (R62)
      $("side-label-" + t).textContent = s.side_labels[t];
      const sc = $("score-" + t);
      sc.textContent = "on the table " + tp.total + " (melds " + tp.melds + " + burracos " +
        tp.bonus + "), " + tp.count + " meld" + (tp.count === 1 ? "" : "s");
      sc.dataset.total = String(tp.total);
      const box = $("melds-" + t);
      box.replaceChildren();
      s.melds[t].forEach((m, j) => {
        const ch = s.marked.meld !== null && s.marked.meld[0] === t && s.marked.meld[1] === j;
        box.append(renderMeld(m, ch, marked));
      });
      if (!s.melds[t].length) box.append(el("span", null, "no melds"));
    }
    const fin = $("final");
    if (D.final && i === N - 1) {
      fin.hidden = false;
      $("final-reason").textContent = "Ended: " + D.final.end_reason + " after " +
        D.final.turns + " turns.";
      const tab = $("final-table");
      tab.replaceChildren();
      const cols = D.final.columns;
      const head = el("tr");
      head.append(el("th", null, ""));
      cols.forEach((c) => head.append(el("th", null, c.label)));
      tab.append(head);
      const rows = [["melds (card points)", "meld_points", 1], ["burraco bonus", "burraco_bonus", 1],
        ["closing bonus", "closing_bonus", 1], ["cards left in hand", "hand_points", -1],
        ["pozzetto not taken", "pozzetto_penalty", -1], ["score", "score", 1]];
      for (const [name, key, sign] of rows) {
        const tr = el("tr");
        tr.append(el(key === "score" ? "th" : "td", null, name));
        cols.forEach((c, t) => {
          const td = el(key === "score" ? "th" : "td", null,
            (sign < 0 && c[key] ? "\u2212" : "") + c[key]);
          td.id = "final-" + key + "-" + t;
          td.dataset.value = String(c[key]);
          tr.append(td);
        });
        tab.append(tr);
      }
      const tr = el("tr");
      tr.append(el("td", null, "burracos: clean / dirty (semi-clean)"));
      cols.forEach((c) => tr.append(el("td", null, c.clean_burracos + " / " + c.dirty_burracos +
        " (" + c.semi_clean_burracos + ")")));
      tab.append(tr);
    } else {
      fin.hidden = true;
    }
    const rows = D.analyses[String(i)];
    const aside = $("analysis");
    if (rows && rows.length) {
      aside.hidden = false;
      const tab = $("analysis-table");
      tab.replaceChildren();
      const keys = [];
      rows.forEach((r) => Object.keys(r).forEach((k) => { if (keys.indexOf(k) < 0) keys.push(k); }));
      const head = el("tr");
      keys.forEach((k) => head.append(el("th", null, k)));
      tab.append(head);
      rows.forEach((r) => {
        const tr = el("tr");
        keys.forEach((k) => {
          const v = r[k];
          tr.append(el("td", null, v === null || v === undefined ? "" :
            (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v)));
        });
        tab.append(tr);
      });
    } else {
      aside.hidden = true;
    }
    const items = $("log").children;
    for (let j = 0; j < items.length; j++) items[j].classList.toggle("current", j === i);
  }

  build();
  show(0);
})();
"""
