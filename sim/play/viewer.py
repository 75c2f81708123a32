"""The hand viewer: one replayed hand as a self-contained HTML page.

:func:`table_steps` rebuilds the table at every step of a replay document
(:mod:`sim.play.trace`): step 0 is the deal (or the ``start`` block of a sampled
world), step ``k >= 1`` the table right after event ``k - 1`` of
``doc["events"]``.  Each step holds every hand, each side's melds (the cards in
reading order, :func:`sim.table.melds.reading_order`, the wilds marked, clean / dirty and the burraco class as
the scoring kernel judges them, R27-R31), the discard pile, the stock count,
the pozzetti (left, taken by whom and when, or turned into the stock, R53), the
running table points of each side (card points of its melds, R2, plus their
burraco bonuses, R56) and the event in words.  The melds are judged with
:func:`sim.table.melds.check` and :func:`sim.table.melds.lay_off` (the kernels' own
functions), and a hand that is over is checked against the document's record:
the last step's melds, burracos and cards in hand give the record's
``meld_points``, ``burraco_bonus``, ``melds``, burraco counts and
``hand_points`` of every side, or :class:`ViewerMismatchError` is raised.

:func:`to_html` writes the steps into one HTML file: inline CSS and script,
the data embedded as JSON, no network; the page, its style sheet and its script are
the package's files ``sim/play/assets/viewer.html``, ``viewer.css`` and ``viewer.js``.  Buttons, a slider and the left/right
arrow keys step through the hand; the last step shows the record's score
breakdown.  With ``seat=K`` the page holds what seat ``K`` sees (R11): its own
hand face up, the other hands face down with their counts, the other seats'
draws and pozzetti unnamed; the hidden cards are not in the file at all.
Analysis rows given for a step (``analyses``, or the document's
``"analyses"`` key) are shown in a side panel at that step; a review of the hand
(``review``: :func:`sim.analysis.review.Review.write_html` builds it) adds the verdict
lines of each rated decision beside its step, its marks on the step slider and a summary
table.
"""
from __future__ import annotations

import copy
import functools
import html
import importlib.resources
import json
import math
import os

from kernels.core.cards import RANK, SUIT, VALUE

from sim._util import outfile
from sim._util.text import plural
from sim.core import notation
from sim.core.cards import check_int
from sim.core.rules import Rules
from sim.table.melds import check, lay_off, table_meld
from sim.table.scoring import score_team

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
    """A meld on the table: its :class:`sim.table.melds.MeldCheck` and its display."""

    __slots__ = ("check", "view")

    def __init__(self, chk, r: Rules):
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
        return _Meld(table_meld(m["card_ids"], self.r, m.get("natural_twos")), self.r)

    def apply(self, e: dict) -> dict:
        """Apply event ``e``; returns what the step marks: ``{"ids": [...], "meld": [side, i]}``."""
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
        ``Game.history_document()``; module docstring of :mod:`sim.batch.replay`).

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


#: the marks a review may set on the step slider (mildest first)
REVIEW_MARKS = ("doubtful", "blunder")


def _review(review, steps: int) -> dict | None:
    """The review block of the page, checked: ``{"title", "marks", "verdicts", "summary"}``
    (see :func:`to_html`); None without one."""
    if review is None:
        return None
    if not isinstance(review, dict):
        raise ValueError(f"review must be a dict, got {type(review).__name__}")
    unknown = sorted(set(review) - {"title", "marks", "verdicts", "summary"})
    if unknown:
        raise ValueError(f"review: unknown key {unknown[0]!r}; allowed: title, marks, verdicts, "
                         "summary")

    def step_of(value, where):
        try:
            k = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: the step {value!r} is not an integer") from None
        if isinstance(value, bool) or not 0 <= k < steps:
            raise ValueError(f"{where}: step {value!r} is not a step of the hand (0..{steps - 1})")
        return k

    marks = []
    for j, m in enumerate(review.get("marks") or []):
        where = f"review['marks'][{j}]"
        if not isinstance(m, dict) or m.get("mark") not in REVIEW_MARKS:
            raise ValueError(f"{where} must be a dict with a step, a mark ({', '.join(REVIEW_MARKS)}) "
                             "and a text")
        marks.append({"step": step_of(m.get("step"), where), "mark": m["mark"],
                      "text": str(m.get("text", ""))})
    verdicts = {}
    for key, lines in (review.get("verdicts") or {}).items():
        where = f"review['verdicts'][{key!r}]"
        if not isinstance(lines, (list, tuple)) or not all(isinstance(x, str) for x in lines):
            raise ValueError(f"{where} must be a list of strings")
        verdicts[str(step_of(key, where))] = list(lines)
    summary = review.get("summary") or {"columns": [], "rows": []}
    cols, rows = summary.get("columns", []), summary.get("rows", [])
    if not all(isinstance(r, (list, tuple)) and len(r) == len(cols) for r in rows):
        raise ValueError("review['summary']: each row must have one value per column")
    return {"title": str(review.get("title", "")), "marks": marks, "verdicts": verdicts,
            "summary": {"columns": [str(c) for c in cols],
                        "rows": [[_json_value(v, "review['summary']") for v in r] for r in rows]}}


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


def page_data(doc: dict, seat=None, analyses=None, review=None) -> dict:
    """The data :func:`to_html` embeds: ``{"meta", "faces", "steps", "final", "analyses",
    "review"}``
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
        "title": doc.get("title") or f"Burraco: hand {doc['hand_index']} of seed {doc['seed']}",
        "players": n, "seat": seat, "dealer": doc.get("dealer"),
        "first_player": doc.get("first_player"), "sides": _sides(n),
        "seats": [{"label": f"seat {s}" + (" (you)" if seat == s else ""),
                   "strategy": names[s] if s < len(names) else None} for s in range(n)],
        "start": "start" in doc,
    }
    return {"meta": meta, "faces": faces, "steps": shown, "final": _final(doc, n, steps[-1]),
            "analyses": _analyses(doc, analyses, len(steps)),
            "review": _review(review, len(steps))}


def to_html(doc: dict, seat=None, analyses=None, review=None) -> str:
    """The hand of a replay document as one self-contained HTML page.

    Parameters
    ----------
    doc : dict
        A replay document (:func:`sim.replay`; a ``history_document()``
        without ``result`` has no score breakdown).  Its optional
        ``"analyses"`` key is read as ``analyses``, and its optional ``"title"``
        (a hand file's review sets it) is the page's title instead of "Burraco:
        hand I of seed S".
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
    review : dict, optional
        A review of the hand: ``"title"`` (a line above the summary), ``"marks"``
        (``[{"step", "mark", "text"}]``, ``mark`` one of :data:`REVIEW_MARKS`: drawn on
        the step slider, clickable), ``"verdicts"`` (``{step: [line, ...]}``, shown
        above that step's analysis rows) and ``"summary"`` (``{"columns": [...],
        "rows": [[...], ...]}``, a table at the top of the page).

    Returns
    -------
    str
        The HTML text (UTF-8): inline CSS and script, the data as JSON, no
        network access.

    Raises
    ------
    ValueError
        Not a replay document, events that do not follow from its deal, a bad
        ``seat``, bad analysis rows (naming the step and column) or a bad review.
    ViewerMismatchError
        The rebuilt table does not give the document's record (a bug).
    """
    data = page_data(doc, seat, analyses, review)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # inside <script>: no "</script>", "<!--" or "&" can end or change it
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = data["meta"]["title"] + (f", as seat {seat} sees it" if seat is not None else "")
    return (_asset("viewer.html").replace("@TITLE@", html.escape(title))
            .replace("@CSS@", _asset("viewer.css")).replace("@SCRIPT@", _asset("viewer.js"))
            .replace("@DATA@", text))


@functools.cache
def _asset(name: str) -> str:
    """The text of a file of the page (``sim/play/assets/``: the HTML around the data, its
    style sheet and its script), read once from the package's data."""
    return importlib.resources.files("sim.play").joinpath("assets", name).read_text(
        encoding="utf-8")


def write_html(doc: dict, path, seat=None, analyses=None, overwrite: bool = False,
               review=None) -> str:
    """Write :func:`to_html` of ``doc`` to ``path`` atomically.

    The page is written to a temporary file in the same directory and renamed
    into place, so ``path`` is never half written.

    Parameters
    ----------
    doc, seat, analyses, review
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
    text = to_html(doc, seat, analyses, review)
    return outfile.write_text(path, text, overwrite, name, flag, "HTML file")


def _check_out(path: str, overwrite: bool, name: str = "path",
               flag: str = "overwrite=True") -> None:
    """ValueError when ``path`` cannot be the HTML file (:func:`sim._util.outfile.check_out`)."""
    outfile.check_out(path, overwrite, name, flag, "HTML file")
