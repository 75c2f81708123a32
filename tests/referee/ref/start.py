"""A document that starts from a state (a hand played on from a sampled world,
``Game.sample_world``): the checks of its ``start`` block, a part of :class:`~.core.Referee`."""
from __future__ import annotations

from collections import Counter

from .cards import RANK_TEXT, card_text, face_of, faces_text, fold, is_two, suit_of
from .melds import MeldInfo, analyze
from .options import START_PHASES
from .roles import locked_info
from .state import _Meld, _Turn, not_each_once
from .violations import _Stop


class StartChecks:
    """The ``start`` block (:meth:`load_start`) in place of a deal."""

    def load_start(self) -> None:
        """Load the ``start`` block of a document (a hand played on from a sampled
        world) in place of a deal, and check that the rules can reach it:
        each of the 108 ids in exactly one place (R1); every meld valid (R14-R20), one
        set per rank on a side (R23; a 3-player pair may keep two, R62), roles its 2s
        can hold (R25, ``lock_two_roles``), on a side some seat plays for (R21); the
        pozzetti handed out in order, one per side (R40-R43, R53, R62), the ones left
        whole (R8); no empty hand (R38, R41); a stock, pile, stall counter and turn the
        rules allow (R32, R33, R50-R52); the seat whose turn it is (R5, R6); a phase
        and a turn so far that can be (R34, R36, R50)."""
        s = self.doc.get("start")
        n = self.n_seats
        try:
            turn, seat, phase = int(s["turn"]), int(s["seat"]), s["phase"]
            hands = [[int(c) for c in h] for h in s["hand_ids"]]
            pile = [int(c) for c in s["pile_ids"]]
            stock = [int(c) for c in s["stock_ids"]]
            melds = [[([int(c) for c in m["card_ids"]], m.get("natural_twos")) for m in side]
                     for side in s["melds"]]
            pozzetti = [dict(p) for p in s["pozzetti"]]
            stall = int(s.get("stall", 0))
            counters = [[int(x) for x in s.get(key) or []] for key in ("pile_pickups",
                                                                      "pile_cards")]
            tt = None if s.get("this_turn") is None else dict(s["this_turn"])
        except (KeyError, TypeError, ValueError) as exc:
            self.bad("DOC", f"malformed start: {exc!r}", 0)
            raise _Stop from None
        if len(hands) != n or not 0 <= seat < n or phase not in START_PHASES \
                or len(melds) != (3 if n == 3 else 2) or len(pozzetti) != len(self.poz_sizes) \
                or any(len(c) not in (0, len(melds)) for c in counters):
            self.bad("DOC", f"{len(hands)} hands, {len(melds)} sides of melds, "
                            f"{len(pozzetti)} pozzetti, seat {seat}, phase {phase!r}: not a "
                            f"state of {n} players", 0)
            raise _Stop
        self.start_notation(s, hands, pile, stock, melds, pozzetti, tt)
        melds += [[]] * (3 - len(melds))
        left = [p.get("card_ids") or [] for p in pozzetti if p.get("state") == "left"]
        why = not_each_once([c for h in hands for c in h] + pile + stock
                            + [c for side in melds for m, _ in side for c in m]
                            + [c for p in left for c in p])
        if why:
            self.bad("R1", f"the cards are not the 108 ids once each: {why}", 0)
        self.load_dealer()
        self.start_pozzetti(pozzetti, turn)
        self.start_melds(melds)
        for k, h in enumerate(hands):
            if not h:
                self.bad("R38", f"seat {k} holds no card (a hand in play is never empty: "
                                "R38, R41)", 0)
        self.hands, self.pile, self.stock = hands, pile, stock
        self.stall = stall
        sides = 3 if n == 3 else 2
        self.pile_pickups, self.pile_cards = [(c or [0] * sides) + [0] * (3 - sides)
                                              for c in counters]
        self.start_counts(turn, seat, phase, tt)
        self.turn0, self.first = turn, seat

    def start_notation(self, s, hands, pile, stock, melds, pozzetti, tt) -> None:
        """DOC: the start's card texts are those of its ids."""
        try:
            parts = ([(f"hands[{k}]", h, s["hands"][k]) for k, h in enumerate(hands)]
                     + [("pile", pile, s["pile"]), ("stock", stock, s["stock"])]
                     + [(f"melds[{t}][{i}]", m, s["melds"][t][i]["cards"])
                        for t, side in enumerate(melds) for i, (m, _) in enumerate(side)]
                     + [(f"pozzetti[{k}]", p["card_ids"], p["cards"])
                        for k, p in enumerate(pozzetti) if p.get("state") == "left"])
            if tt is not None and tt.get("barred_id") is not None:
                parts.append(("this_turn.barred", [tt["barred_id"]], [tt["barred"]]))
        except (KeyError, TypeError, IndexError) as exc:
            self.bad("DOC", f"card texts missing ({exc!r})", 0)
            return
        for what, ids, text in parts:
            want = [card_text(c) for c in ids]
            if list(text) != want:
                self.bad("DOC", f"{what} is written {list(text)}, its ids are {want}", 0)

    def start_pozzetti(self, pozzetti: list, turn: int) -> None:
        """R40-R43, R53, R62, R8: the start's pozzetti; sets the sides of a
        3-player pair (``solo_18``) and who took which."""
        states = [p.get("state") for p in pozzetti]
        order = [("taken", "left", "stock").index(x) if x in ("taken", "left", "stock")
                 else None for x in states]
        if None in order:
            self.bad("DOC", f"pozzetto states {states} (taken, left or stock)", 0)
            raise _Stop
        if order != sorted(order):
            self.bad("R40", f"pozzetti {states}: they are taken in deal order, and only "
                            "the last ones left become the stock (R53)", 0)
        if "stock" in states and not self.rules["untaken_pozzetto_as_stock"]:
            self.bad("R53", "a pozzetto became the stock although "
                            "untaken_pozzetto_as_stock is off", 0)
        if self.solo18 and states[0] == "taken" and pozzetti[0].get("team") in range(3):
            self.solo = pozzetti[0]["team"]             # R62: A's taker plays alone
            a, b = [x for x in range(3) if x != self.solo]
            self.team[b] = self.team[a]
        live = set(self.team)
        self.poz_team = [None, None, None]
        self.pozzetti = [list(p.get("card_ids") or []) for p in pozzetti]
        self.poz_left = [x == "left" for x in states]
        last = 0
        for k, p in enumerate(pozzetti):
            if p["state"] == "left" and len(self.pozzetti[k]) != self.poz_sizes[k]:
                self.bad("R8" if self.n_seats != 3 else "R62",
                         f"pozzetto {k} is left with {len(self.pozzetti[k])} cards, the "
                         f"deal gives it {self.poz_sizes[k]}", 0)
            if p["state"] != "taken":
                continue
            team, mode, when = p.get("team"), p.get("mode"), p.get("turn")
            if team not in live or mode not in ("direct", "discard") \
                    or not isinstance(when, int) or not 0 <= when <= turn:
                self.bad("R42", f"pozzetto {k} taken by side {team!r} ({mode!r}) in turn "
                                f"{when!r}: no such side, way or turn before turn {turn} "
                                f"(sides {sorted(live)})", 0)
                continue
            if self.poz_team[team] is not None:
                self.bad("R43", f"side {team} took pozzetti "
                                f"{self.poz_team[team][2]} and {k} (one per side)", 0)
            if when and when < last:
                self.bad("R40", f"pozzetto {k} taken in turn {when}, before pozzetto "
                                f"{k - 1} (turn {last}): they are handed out in order", 0)
            if k == 1 and self.solo >= 0 and team == self.solo:
                self.bad("R62", f"seat {team} took pozzetto A and B", 0)
            last = when or last
            self.poz_team[team] = (when, mode, k)
        team_of, solo = self.doc["start"].get("team_of"), self.doc["start"].get("solo_seat", -1)
        if team_of is not None and list(team_of) != self.team[:self.n_seats] \
                or solo != self.solo and self.n_seats == 3:
            self.bad({2: "R61", 3: "R62"}.get(self.n_seats, "R5"),
                     f"team_of {team_of}, solo seat {solo}, but the pozzetti taken make "
                     f"the sides {self.team[:self.n_seats]}, solo seat {self.solo}", 0)

    def start_melds(self, melds: list) -> None:
        """R14-R21, R23, R25, R62: the start's tables."""
        live = set(self.team)
        self.tables = [[], [], []]
        for t, side in enumerate(melds):
            sets = Counter()
            for i, (ids, nat) in enumerate(side):
                where = f"team {t} meld {i} ({faces_text(fold(face_of(c)) for c in ids)})"
                if t not in live:
                    self.bad("R21", f"{where} lies on a side no seat plays for", 0)
                info = analyze(ids, self.set_ranks)
                if not info.valid:
                    self.bad(info.rule, f"{where} is not a valid meld: {info.reason}", 0)
                elif info.kind == "set":
                    sets[info.rank] += 1
                    pair = self.solo >= 0 and t != self.solo        # R62: two tables merged
                    if sets[info.rank] > (2 if pair else 1) and \
                            not self.rules["allow_duplicate_set_rank"]:
                        self.bad("R23", f"{where}: another set of {RANK_TEXT[info.rank]} on the "
                                        "side's table (one set per rank)", 0)
                roles = self.start_roles(ids, nat, info, where) if self.lock else None
                self.tables[t].append(_Meld(list(ids), info.kind, info.valid, roles))

    def start_roles(self, ids: list, nat, info: MeldInfo, where: str) -> dict:
        """R25 (``lock_two_roles``): the stored roles of a start meld's 2s.  ``nat``
        (its ``natural_twos``) of the 2s of the sequence's suit are natural (the first
        in meld order; the copies are interchangeable, R1), every other 2 is wild;
        without ``nat`` the meld's canonical reading gives them."""
        if nat is None:
            return locked_info(ids, {}, self.set_ranks)[1]
        twos = [c for c in ids if is_two(fold(face_of(c)))]
        own = [c for c in twos if info.valid and info.kind == "sequence"
               and suit_of(face_of(c)) == info.suit]
        if not isinstance(nat, int) or not 0 <= nat <= len(own):
            self.bad("R25", f"{where}: natural_twos {nat!r}, but it holds {len(own)} 2s that "
                            "could be natural", 0)
            nat = 0
        roles = {c: "natural" if c in own[:nat] else "wild" for c in twos}
        if info.valid and not locked_info(ids, roles, self.set_ranks)[0].valid:
            self.bad("R25", f"{where}: no reading keeps {nat} natural 2s", 0)
        return roles

    def start_counts(self, turn: int, seat: int, phase: str, tt) -> None:
        """R5, R32-R36, R50-R53, R34: the start's turn, seat, stock, pile, counters
        and its turn so far; sets the turn to go on with (``self.resume``)."""
        n, reserve, r = self.n_seats, self.reserve, self.rules
        if not 1 <= turn <= int(r["max_turns_per_hand"]):
            self.bad("R52", f"turn {turn} (1 .. max_turns_per_hand)", 0)
        if seat != (self.first_player + turn - 1) % n:
            self.bad("R5", f"seat {seat} to move in turn {turn}, but that turn is seat "
                           f"{(self.first_player + turn - 1) % n}'s (first player "
                           f"{self.first_player}, clockwise)", 0)
        if not 0 <= self.stall < int(r["stall_turn_limit"]) or self.stall >= turn:
            self.bad("R51", f"stall counter {self.stall} in turn {turn} (stall_turn_limit "
                            f"{r['stall_turn_limit']})", 0)
        team = self.team_of(seat)
        for t in range(3):
            pp, pc = self.pile_pickups[t], self.pile_cards[t]
            if not 0 <= pp <= min(pc, turn) or (pp or pc) and t not in self.team:
                self.bad("REC", f"side {t} took the pile {pp} times, {pc} cards, by turn "
                                f"{turn}", 0)
        stock, pile = len(self.stock), len(self.pile)
        if phase == "pickup":
            if tt is not None:
                self.bad("DOC", "this_turn at a pickup (the turn has done nothing yet)", 0)
            if stock <= reserve:
                self.bad("R50", f"a turn starts with {stock} cards in the stock "
                                f"(stock_reserve {reserve})", 0)
            if not pile:
                self.bad("R32", "an empty discard pile at a pickup (the deal turns up a "
                                "card and every turn ends with a discard)", 0)
            return
        if tt is None or tt.get("pickup") not in ("draw", "take_pile") \
                or not isinstance(tt.get("actions"), int) or tt["actions"] < 0 \
                or not isinstance(tt.get("one_card_pile"), bool) \
                or not isinstance(tt.get("last_turn"), bool) \
                or not isinstance(tt.get("pile_size"), (int, type(None))) \
                or not isinstance(tt.get("barred_id"), (int, type(None))):
            self.bad("DOC", f"this_turn {tt!r} (pickup draw or take_pile, actions, "
                            "one_card_pile, last_turn, pile_size, barred_id)", 0)
            raise _Stop
        took, one, size = tt["pickup"] == "take_pile", tt["one_card_pile"], tt["pile_size"]
        actions, barred = tt["actions"], tt["barred_id"]
        if took:
            if pile:
                self.bad("R33", f"{pile} cards on the pile, which seat {seat} took this "
                                "turn and has not discarded on yet", 0)
            if stock <= reserve:
                self.bad("R50", f"a turn started with {stock} cards in the stock", 0)
            if size is not None and (size < 1 or (size == 1) != one):
                self.bad("R33", f"a pile of {size} cards (one card: {one}) taken this turn", 0)
        else:
            if one or not pile or stock < reserve:
                self.bad("R33", f"after a draw, one_card_pile {one}, {pile} cards on the "
                                f"pile, {stock} in the stock (stock_reserve {reserve})", 0)
            if stock == reserve and r["stock_end_mode"] == "immediate":
                self.bad("R50", "the draw left the stock at its reserve: under "
                                "stock_end_mode immediate the hand is over", 0)
            if stock == reserve and r["untaken_pozzetto_as_stock"] and any(self.poz_left):
                self.bad("R53", "the stock is at its reserve with a pozzetto left: it "
                                "would have become the stock", 0)
        if tt["last_turn"] != (not took and stock == reserve):
            self.bad("R50", f"last_turn {tt['last_turn']} with {stock} cards in the stock "
                            f"after {'taking the pile' if took else 'a draw'}", 0)
        if phase == "place" and not (r["take_pile_requires_meld"] and took and actions == 0):
            self.bad("R34", "phase 'place' is the meld phase right after taking the "
                            "pile under take_pile_requires_meld, before any meld or lay-off", 0)
        if phase != "place" and r["take_pile_requires_meld"] and took and actions == 0:
            self.bad("R34", f"phase {phase!r} after taking the pile with no meld or "
                            "lay-off yet (take_pile_requires_meld: phase 'place')", 0)
        barring = took and one and bool(r["forbid_rediscard_single_pile"])
        own = [c for m in self.tables[team] for c in m.ids]
        if barring and barred is None or barred is not None and (
                not barring or barred not in self.hands[seat] + own):
            self.bad("R36", f"barred card {barred!r} after "
                            f"{'a one-card pile' if one else 'a pile of several cards' if took else 'a draw'}"
                            f"; it must be the card of a one-card pile taken this turn, in seat "
                            f"{seat}'s hand or on its side's table", 0)
        self.resume = _Turn(turn, seat, pickup=tt["pickup"],
                            pile_size=size if size is not None else (1 if one else 0),
                            barred=barred, actions=actions, placed=actions)
        self.resume_phase = "discard" if phase == "discard" else "meld"
