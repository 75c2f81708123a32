"""One hand as a replay document, and the document as a readable trace, JSON or an HTML page.

:func:`replay` plays hand ``hand_index`` of a run again, with the kernels'
event log switched on, and returns the replay document: the deal, every event
and the hand's record.  The record is the one the simulation writes for that
hand (same kernels, same per-hand random stream).  ``replay(run=DIR,
hand_index=I)`` takes the run's settings from its directory and checks the
record against the hand's row; ``replay(seed, I, strategies, rules, dealer)``
needs them all given.  :func:`format_text` writes a document as a readable trace,
:func:`to_json` as JSON and :func:`to_html` as a page stepping through the hand
(:mod:`sim.play.viewer`).

Document schema (all cards in the project notation, e.g. ``"10♥"``, ``"JK"``;
every card field has an ``*_id``/``*_ids`` twin with the card ids, which
tell the two copies of a card apart)::

    {"seed", "hand_index", "rules": {option: value}, "strategies": [4 specs, null if empty],
     "dealer", "first_player",
     "deal": {"hands": [[card, ...] x4], "pozzetti": [[...], [...]],
              "discard": card, "stock": [card, ... top first]},
     "deal_ids": the same with ids,
     "events": [{"turn", "seat", "type", ...}, ...],
     "result": {"end_reason", "score_t0", "score_t1", ... every record column}}

A hand played on from a sampled world (``Game.sample_world``, ``Game.from_position``)
has no deal of its own: its document has a ``start`` block instead of ``deal`` and
``deal_ids``, the complete state when the world was made, and its events are the ones
after that moment (:func:`start_block`)::

    "start": {"turn", "seat", "phase": "pickup" | "place" | "meld" | "discard",
              "sampled_for": the seat the world was dealt for,
              "hands": [[card, ...] per seat, in hand order], "hand_ids",
              "melds": [[{"cards", "card_ids"[, "natural_twos"]}, ...] per side],
              "pile": [card, ... bottom first], "pile_ids",
              "stock": [card, ... top first], "stock_ids",
              "pozzetti": [per deal pozzetto: {"state": "left", "cards", "card_ids"}
                           | {"state": "taken", "team", "turn", "mode"} | {"state": "stock"}],
              "team_of": [side of each seat], "solo_seat", "stall",
              "pile_pickups": [per side], "pile_cards": [per side],
              "this_turn": {"pickup": "draw" | "take_pile", "pile_size", "one_card_pile",
                            "barred", "barred_id", "actions", "last_turn"}}

``natural_twos`` (under ``lock_two_roles``: how many 2s of the meld hold the natural
role, R25), ``this_turn`` only once the turn's pickup is made (``pile_size`` null when
it is not known: a game built from a position), a taken pozzetto's ``turn`` 0 when not
known.

Event types: ``draw`` (``card``), ``take_pile`` (``cards``, bottom first),
``meld`` (``team``, ``meld``, ``cards``), ``lay_off`` (``team``, ``meld``,
``cards``), ``pozzetto`` (``mode``: ``direct`` or ``discard``, ``cards``),
``discard`` (``card``, ``closes``), ``end`` (``reason``).  ``turn`` counts
player turns from 1; ``meld`` is the meld's index on its team's table, in
creation order.
"""
from __future__ import annotations

import json

import numpy as np

from kernels.core import layout as L
from kernels.table import state as KS
from kernels.engine.actions import PHASES

from sim._util.text import plural
from sim.core import dataset, notation
from sim.core.cards import rules_or_default
from sim.core.deal import deal as _deal
from sim.core.deal import split as _split
from sim.play.viewer import to_html as page
from sim.table.melds import check, lay_off, table_meld

EV_ROWS = 8192
EV_CARDS = 65536

_TYPES = {KS.EV_DRAW: "draw", KS.EV_TAKE_PILE: "take_pile", KS.EV_MELD: "meld",
          KS.EV_LAYOFF: "lay_off", KS.EV_POZZETTO: "pozzetto", KS.EV_DISCARD: "discard",
          KS.EV_END: "end", KS.EV_POZ_STOCK: "pozzetto_to_stock"}


def _cards(ids) -> list:
    return [notation.format_card(int(i)) for i in ids]


def events_of(work, first: int = 0) -> list:
    """The events logged in a work buffer (:mod:`kernels.table.work`), as document events
    (from event ``first`` on)."""
    from kernels.table.work import EV_AT, W_EV_CARDS, W_EV_ROWS
    st = KS.state_numpy(work, EV_AT, int(work[W_EV_ROWS]), int(work[W_EV_CARDS]))
    ev, evc, g = st.ev, st.evc, st.g
    events = []
    for i in range(first, int(g[KS.G_EVENT_ROWS])):
        turn, seat, etype, a, b, _c, first, n = (int(x) for x in ev[i])
        ids = [int(x) for x in evc[first:first + n]]
        e = {"turn": turn, "seat": seat, "type": _TYPES[etype]}
        if etype in (KS.EV_DRAW, KS.EV_DISCARD):
            e["card"] = notation.format_card(ids[0])
            e["card_id"] = ids[0]
            if etype == KS.EV_DISCARD:
                e["closes"] = bool(a)
        elif etype == KS.EV_END:
            e["reason"] = L.END_REASONS[a]
        else:
            if etype in (KS.EV_MELD, KS.EV_LAYOFF):
                e["team"] = a
                e["meld"] = b
            elif etype == KS.EV_POZZETTO:
                e["mode"] = L.POZZETTO_MODES[a]
            elif etype == KS.EV_POZ_STOCK:
                e["pozzetto"] = a
            e["cards"] = _cards(ids)
            e["card_ids"] = ids
        events.append(e)
    return events


def document(seed, hand_index, r, specs, work, rec, start=None, deck=None) -> dict:
    """The replay document of a hand played in ``work`` (int64, :mod:`kernels.table.work`,
    with its event log) whose record is ``rec`` (int32[N_REC]); ``start``: the
    ``sim.play.records.Start`` of a sampled world, ``deck``: the deck of a hand dealt
    from given cards (see :func:`history`).

    Raises
    ------
    RuntimeError
        The event log overflowed (the document would be incomplete).
    """
    if rec[L.REC_ERROR] & L.ERR_LOG_OVERFLOW:
        raise RuntimeError("replay: the event log overflowed; raise sim.trace.EV_ROWS/EV_CARDS")
    doc = history(seed, hand_index, r, specs, work, int(rec[L.REC_DEALER]),
                  int(rec[L.REC_FIRST_PLAYER]), start, deck)
    doc["result"] = dataset.record_to_dict(rec, hand_index, specs)
    return doc


def history(seed, hand_index, r, specs, work, dealer, first_player, start=None,
            deck=None) -> dict:
    """The replay document without its ``result``: the deal and the events logged
    in ``work`` so far (for a hand still being played, no ``end`` event).

    With ``start`` (a sampled world's ``sim.play.records.Start``) the ``start`` block of
    its state replaces the deal, and only the events logged since are written.  With
    ``deck`` (int[108], the card ids in dealing order of a hand dealt from given cards,
    ``Game.deck``) the deal is that deck's, not the seed's.
    """
    head = {"seed": seed, "hand_index": hand_index, "rules": r.to_dict(),
            "strategies": list(specs), "dealer": dealer, "first_player": first_player}
    if start is not None:
        head["start"] = start_block(start.state, r, start.viewer,
                                    _pile_taken(work, start.events, start.state))
        head["events"] = events_of(work, start.events)
        return head
    d = _deal(seed, hand_index, r) if deck is None else _split(deck, r, dealer)
    deal_ids = {"hands": [h.astype(int).tolist() for h in d.hands],
                "pozzetti": [p.astype(int).tolist() for p in d.pozzetti],
                "discard": int(d.discard), "stock": d.stock.astype(int).tolist()}
    return {
        **head,
        "deal": {"hands": [_cards(h) for h in deal_ids["hands"]],
                 "pozzetti": [_cards(p) for p in deal_ids["pozzetti"]],
                 "discard": notation.format_card(deal_ids["discard"]),
                 "stock": _cards(deal_ids["stock"])},
        "deal_ids": deal_ids,
        "events": events_of(work),
    }


def _pile_taken(work, events: int, state) -> int | None:
    """Cards taken with the pile in the start's turn, from the take_pile event among
    the first ``events`` logged in ``work``; None when the log does not hold it."""
    from kernels.table.work import EV_AT, W_EV_CARDS, W_EV_ROWS
    g = KS.state_numpy(state, KS.STATE_WORDS, 0, 0).g
    if not g[KS.G_TOOK_PILE]:
        return None
    ev = KS.state_numpy(work, EV_AT, int(work[W_EV_ROWS]), int(work[W_EV_CARDS])).ev[:events]
    rows = np.flatnonzero((ev[:, KS.EVC_TYPE] == KS.EV_TAKE_PILE)
                          & (ev[:, KS.EVC_TURN] == g[KS.G_TURN]))
    return int(ev[rows[-1], KS.EVC_N]) if rows.size else None


def _pozzetti_count(r) -> int:
    """Pozzetti of the deal (R8, R61-R63)."""
    return 3 if r.num_players == 3 and r.three_player_mode == "individual_3x11" else 2


def start_block(state, r, viewer, pile_size=None) -> dict:
    """The ``start`` block (module docstring) of a state: ``state`` holds the state
    words of a work buffer (:mod:`kernels.table.state`), ``r`` the rules, ``viewer`` the seat
    a world was dealt for, ``pile_size`` the cards taken with the pile this turn."""
    st = KS.state_numpy(state, KS.STATE_WORDS, 0, 0)
    g = [int(x) for x in st.g]
    n = r.num_players
    sides = 3 if n == 3 else 2

    def ids_and_text(out, key, ids_key, ids):
        out[key] = _cards(ids)
        out[ids_key] = [int(c) for c in ids]

    melds = []
    for t in range(sides):
        side = []
        for mi in range(int(st.nm[t])):
            m = {}
            ids_and_text(m, "cards", "card_ids", st.mids[t, mi, :st.minfo[t, mi, KS.MI_LEN]])
            if r.lock_two_roles:
                m["natural_twos"] = int(st.minfo[t, mi, KS.MI_NAT2])
            side.append(m)
        melds.append(side)
    takers = sorted((t for t in range(KS.NTEAMS) if g[KS.G_POZZETTO_TAKEN + t]),
                    key=lambda t: (g[KS.G_POZZETTO_TURN + t], t != g[KS.G_SOLO_SEAT], t))
    pozzetti = []
    for k in range(_pozzetti_count(r)):
        if k < g[KS.G_NEXT_POZZETTO]:
            t = takers[k]
            pozzetti.append({"state": "taken", "team": t, "turn": g[KS.G_POZZETTO_TURN + t],
                             "mode": L.POZZETTO_MODES[g[KS.G_POZZETTO_MODE + t]]})
        elif k < g[KS.G_N_POZZETTI]:
            p = {"state": "left"}
            ids_and_text(p, "cards", "card_ids", st.poz[k, :g[KS.G_POZZETTO_SIZE + k]])
            pozzetti.append(p)
        else:
            pozzetti.append({"state": "stock"})
    out = {"turn": g[KS.G_TURN], "seat": g[KS.G_SEAT], "phase": PHASES[g[KS.G_PHASE]],
           "sampled_for": viewer,
           "hands": [_cards(st.hand[s, :st.hn[s]]) for s in range(n)],
           "hand_ids": [st.hand[s, :st.hn[s]].tolist() for s in range(n)],
           "melds": melds}
    ids_and_text(out, "pile", "pile_ids", st.pile[:g[KS.G_PILE_SIZE]])
    ids_and_text(out, "stock", "stock_ids", st.stock[g[KS.G_STOCK_TOP]:g[KS.G_STOCK_END]])
    out.update({
        "pozzetti": pozzetti, "team_of": g[KS.G_TEAM:KS.G_TEAM + n], "solo_seat": g[KS.G_SOLO_SEAT],
        "stall": g[KS.G_STALL],
        "pile_pickups": g[KS.G_PILE_PICKUPS:KS.G_PILE_PICKUPS + sides],
        "pile_cards": g[KS.G_PILE_CARDS:KS.G_PILE_CARDS + sides],
    })
    if g[KS.G_PHASE] != PHASES.index("pickup"):
        barred = g[KS.G_BARRED]
        took = bool(g[KS.G_TOOK_PILE])
        out["this_turn"] = {
            "pickup": "take_pile" if took else "draw",
            "pile_size": pile_size if took else None,
            "one_card_pile": bool(g[KS.G_SINGLE]),
            "barred": notation.format_card(barred) if barred >= 0 else None,
            "barred_id": barred if barred >= 0 else None,
            "actions": g[KS.G_ACTIONS], "last_turn": bool(g[KS.G_LAST_TURN])}
    return out


def to_json(doc: dict) -> str:
    """The replay document as JSON text: one top-level key, and one event, per line
    (UTF-8 suit symbols kept)."""
    def dump(v):
        return json.dumps(v, ensure_ascii=False)
    parts = []
    for key, value in doc.items():
        if key == "events":
            body = ",\n".join("  " + dump(e) for e in value)
            parts.append(f'"events": [\n{body}\n ]')
        else:
            parts.append(f"{dump(key)}: {dump(value)}")
    return "{\n " + ",\n ".join(parts) + "\n}"


def to_html(doc: dict, seat=None, analyses=None) -> str:
    """The replay document as one self-contained HTML page that steps through the hand
    (:func:`sim.play.viewer.to_html`: the parameters, the page and the errors).

    Parameters
    ----------
    doc : dict
        A replay document (:func:`replay`).
    seat : int, optional
        Show only this seat's hand face up, the others face down with their counts.
    analyses : mapping, optional
        ``{step index: [dict row, ...]}``, shown in a side panel at that step.

    Returns
    -------
    str
        The HTML text.
    """
    return page(doc, seat=seat, analyses=analyses)


def _hands(doc: dict) -> list:
    """The hands a document begins with: its deal's, or its start's."""
    return (doc["start"] if "start" in doc else doc["deal"])["hands"]


def _start_lines(start: dict, r) -> list:
    """The trace lines of a ``start`` block (a sampled world), its melds in reading order."""
    out = [f"start (a world sampled for seat {start['sampled_for']}): turn {start['turn']}, "
           f"seat {start['seat']} to {start['phase']}, stall {start['stall']}"]
    for s, h in enumerate(start["hands"]):
        out.append(f"  seat {s}: {' '.join(h)}")
    for t, side in enumerate(start["melds"]):
        for i, m in enumerate(side):
            chk = table_meld(m["card_ids"], r, m.get("natural_twos"))
            out.append(f"  team {t} meld {i}: {' '.join(_cards(chk.reading(r).cards))}")
    for k, p in enumerate(start["pozzetti"]):
        if p["state"] == "left":
            what = " ".join(p["cards"])
        elif p["state"] == "taken":
            what = f"taken by team {p['team']} in turn {p['turn']} ({p['mode']})"
        else:
            what = "became the stock"
        out.append(f"  pozzetto {k}: {what}")
    out.append(f"  pile: {' '.join(start['pile'])}   stock: {plural(len(start['stock']), 'card')}")
    tt = start.get("this_turn")
    if tt is not None:
        out.append(f"  this turn: {tt['pickup'].replace('_', ' ')}"
                   + (f" ({plural(tt['pile_size'], 'card')})" if tt["pile_size"] is not None
                      else "")
                   + f", {plural(tt['actions'], 'meld or lay-off', 'melds and lay-offs')}"
                   + (f", {tt['barred']} may not be discarded" if tt["barred"] else ""))
    return out


def _sentence(line: str) -> str:
    """A turn's line as a sentence: its last clause ends with a full stop."""
    return line.rstrip(";") + "."


def format_text(doc: dict) -> str:
    """A readable trace of a replay document: deal (or start), turns, final tables, scores."""
    out = []
    res = doc["result"]
    hands = _hands(doc)
    out.append(f"hand {doc['hand_index']} of seed {doc['seed']}   strategies: "
               + ", ".join(f"seat {i}: {s}" for i, s in enumerate(doc["strategies"]) if s))
    out.append(f"dealer: seat {doc['dealer']}   first player: seat {doc['first_player']}   "
               + {4: "(team 0 = seats 0, 2; team 1 = seats 1, 3)",
                  2: "(two players: team 0 = seat 0, team 1 = seat 1)",
                  3: ("(three players, each alone until pozzetto A is taken, R62)"
                      if doc["rules"].get("three_player_mode") == "solo_18"
                      else "(three players, each alone, R63)")}[len(hands)])
    n_hands = len(hands)
    hand_size = [len(h) for h in hands]
    tables = {0: {}, 1: {}, 2: {}}
    solo18 = n_hands == 3 and doc["rules"].get("three_player_mode") == "solo_18"
    team_of = list(range(3)) if n_hands == 3 else [0, 1, 0, 1]
    r = rules_or_default(doc["rules"])

    def read(chk) -> str:
        """A meld's cards in reading order (the viewer's and Game.observation's)."""
        return " ".join(_cards(chk.reading(r).cards))

    if "start" in doc:
        out += _start_lines(doc["start"], r)
        tables.update({t: {i: table_meld(m["card_ids"], r, m.get("natural_twos"))
                           for i, m in enumerate(side)}
                       for t, side in enumerate(doc["start"]["melds"])})
        team_of = list(doc["start"]["team_of"]) + (["pair"] if doc["start"]["solo_seat"] >= 0
                                                   else [])
    else:
        out.append("deal:")
        for s, h in enumerate(hands):
            out.append(f"  seat {s}: {' '.join(h)}")
        for k, pz in enumerate(doc["deal"]["pozzetti"]):
            out.append(f"  pozzetto {k}: {' '.join(pz)}")
        out.append(f"  up-card: {doc['deal']['discard']}   stock: "
                   f"{plural(len(doc['deal']['stock']), 'card')}")
    line = None
    turn = 0
    for e in doc["events"]:
        t = e["type"]
        s = e["seat"]
        if t in ("draw", "take_pile") or line is None:
            if line:
                out.append(_sentence(line))
            turn = e["turn"]
            line = f"turn {turn:3d}  seat {s}:"
        if t == "draw":
            hand_size[s] += 1
            line += f" draws {e['card']};"
        elif t == "take_pile":
            hand_size[s] += len(e["cards"])
            line += f" takes the pile ({len(e['cards'])}: {' '.join(e['cards'])});"
        elif t == "meld":
            hand_size[s] -= len(e["cards"])
            tables[e["team"]][e["meld"]] = chk = check(e["card_ids"], r)
            line += f" melds [{read(chk)}];"
        elif t == "lay_off":
            hand_size[s] -= len(e["cards"])
            mi = e["meld"]
            tables[e["team"]][mi] = lay_off(tables[e["team"]][mi], e["card_ids"], r)
            line += f" lays off {' '.join(e['cards'])} on meld {mi};"
        elif t == "pozzetto":
            hand_size[s] += len(e["cards"])
            line += (" and takes the pozzetto;" if e["mode"] == "discard" else  # R41
                     " takes the pozzetto (al volo);")
            if solo18 and not any(x == "pair" for x in team_of):
                # R62: the other two become partners on the lower seat's table
                a, b = [x for x in range(3) if x != s]
                ta, tb = team_of[a], team_of[b]
                base = len(tables[ta])
                for mi in sorted(tables[tb]):
                    tables[ta][base + mi] = tables[tb][mi]
                tables[tb] = {}
                team_of[b] = ta
                team_of.append("pair")
                line += f" seats {a} and {b} are now partners on table {ta};"
        elif t == "pozzetto_to_stock":
            line += f" the stock is down to its reserve: pozzetto {e['pozzetto']} becomes the stock;"
        elif t == "discard":
            hand_size[s] -= 1
            line += f" discards {e['card']}" + (" and CLOSES" if e["closes"] else "")
            line += f" (hand {hand_size[s]})"
        elif t == "end":
            out.append(_sentence(line))
            line = None
            out.append(f"end: {e['reason']} after {plural(e['turn'], 'turn')}")
    if line:
        out.append(_sentence(line))
    groups = (0, 1, 2) if n_hands == 3 else (0, 1)
    for team in groups:
        if tables[team] or n_hands != 3:
            out.append(f"team {team} table:")
        for mi in sorted(tables[team]):
            out.append(f"  meld {mi}: {read(tables[team][mi])}")
    for team in groups:
        who = f"seat {team} (credited)" if n_hands == 3 else f"team {team}"
        out.append(
            f"{who}: score {res[f'score_t{team}']} = melds {res[f'meld_points_t{team}']}"
            f" + burraco bonus {res[f'burraco_bonus_t{team}']}"
            f" + closing {res[f'closing_bonus_t{team}']}"
            f" - hands {res[f'hand_points_t{team}']}"
            f" - pozzetto penalty {res[f'pozzetto_penalty_t{team}']}")
    return "\n".join(out)
