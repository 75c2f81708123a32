"""The events of a turn, one method each, and the end of a turn: a part of
:class:`~.core.Referee` (RULES.md R33-R53)."""
from __future__ import annotations

from .cards import RANK_TEXT, card_text, faces_text
from .melds import analyze, layoff_action
from .options import END_PREFERENCE, END_RULE
from .roles import layoff_action_locked, locked_info
from .state import _Meld, _Turn, where_text


class TurnEvents:
    """Pickup, meld and lay-off, pozzetto, discard, and the end of a turn."""

    # ---- pickup (R33, R34, R36, R50)
    def pickup(self, turn: _Turn, ev: dict, typ: str) -> None:
        seat = turn.seat
        if typ == "draw":
            ids = self.event_ids(ev, many=False)
            if not ids:
                return
            c = ids[0]
            if len(self.stock) <= self.reserve:
                self.bad("R50", f"draw from a stock of {len(self.stock)} cards: the last "
                                f"{self.reserve} cards are never drawn")
            if not self.stock or self.stock[0] != c:
                top = card_text(self.stock[0]) + f" (id {self.stock[0]})" if self.stock else \
                    "nothing"
                self.bad("R33", f"drew {card_text(c)} (id {c}) but the top of the stock is {top}")
            if c in self.stock:
                self.stock.remove(c)
                self.hands[seat].append(c)
            else:
                self.bad("CONS", f"drawn card {card_text(c)} (id {c}) is not in the stock "
                                 f"({where_text(self, c)})")
            if turn.pickup is None:
                turn.pickup = "draw"
        else:
            ids = self.event_ids(ev, many=True)
            if not self.pile:
                self.bad("R33", "took an empty discard pile")
            if self.rules["take_pile_requires_meld"] and turn.pickup is None and self.pile:
                barred = self.pile[0] if (len(self.pile) == 1 and
                                          self.rules["forbid_rediscard_single_pile"]) else None
                if not self.placement_exists(seat, list(self.pile), barred):
                    self.bad("R34", f"took the discard pile {faces_text(self.pile)} although no "
                                    "legal meld or lay-off could then place "
                                    + ("one of its cards" if self.rules["pile_meld_source"]
                                       == "from_pile" else "a card")
                                    + " (take_pile_requires_meld)")
            if ids != self.pile:
                self.bad("R33", f"take_pile must take the whole pile (bottom first) "
                                f"{faces_text(self.pile)}, got {faces_text(ids)}")
            for c in ids:
                if c in self.pile:
                    self.pile.remove(c)
                    self.hands[seat].append(c)
                else:
                    self.bad("CONS", f"{card_text(c)} (id {c}) is not in the pile "
                                     f"({where_text(self, c)})")
            if turn.pickup is None:
                turn.pickup = "take_pile"
                turn.pile_size = len(ids)
                team = self.team_of(seat)
                self.pile_pickups[team] += 1
                self.pile_cards[team] += len(ids)
                if len(ids) == 1 and self.rules["forbid_rediscard_single_pile"]:
                    turn.barred = ids[0]
        self.conservation(typ)

    # ---- meld / lay-off (R15-R24, R21, R23, R38)
    def meld_action(self, turn: _Turn, ev: dict, typ: str):
        seat, team = turn.seat, self.team_of(turn.seat)
        ev_team = ev.get("team")
        if ev_team not in range(3):
            self.bad("DOC", f"{typ} with bad team {ev_team!r}")
            ev_team = team
        if ev_team != team:
            self.bad("R21", f"seat {seat} (team {team}) {'creates a meld' if typ == 'meld' else 'lays off'}"
                            f" on team {ev_team}'s table: only the own team's melds are allowed")
        ids = self.event_ids(ev, many=True)
        table = self.tables[ev_team]
        idx = ev.get("meld")
        got = self.take_from_hand(seat, ids, typ)
        if typ == "meld":
            if idx != len(table):
                self.bad("DOC", f"new meld index {idx!r}, expected {len(table)} (creation order)")
            info = analyze(got, self.set_ranks)
            if not info.valid:
                self.bad(info.rule, f"invalid new meld: {info.reason}")
            elif info.kind == "set" and not self.rules["allow_duplicate_set_rank"] \
                    and self.has_set_of(ev_team, info.rank):
                self.bad("R23", f"a second set of {RANK_TEXT[info.rank]} on team {ev_team}'s "
                                "table (one set per rank)")
            roles = locked_info(got, {}, self.set_ranks)[1] if self.lock else None
            table.append(_Meld(list(got), info.kind, info.valid, roles))
        else:
            if not isinstance(idx, int) or not 0 <= idx < len(table):
                self.bad("DOC", f"lay_off on meld {idx!r}, team {ev_team} has {len(table)} melds")
                self.hands[seat].extend(got)     # keep the cards somewhere sane
                self.conservation(typ)
                return None
            m = table[idx]
            roles = None
            if got and self.lock:
                ok, rule, why, roles = layoff_action_locked(m.ids, m.roles or {}, got,
                                                            self.set_ranks)
                if not ok:
                    self.bad(rule, f"illegal lay-off on team {ev_team} meld {idx} "
                                   f"({faces_text(m.ids)}): {why}")
                    roles = None
            elif got:
                ok, why = layoff_action(m.ids, got, self.set_ranks)
                if not ok:
                    self.bad("R24", f"illegal lay-off on team {ev_team} meld {idx} "
                                    f"({faces_text(m.ids)}): {why}")
            m.ids.extend(got)
            info = analyze(m.ids, self.set_ranks)
            m.valid = info.valid and m.valid
            if self.lock:       # after an illegal action: the roles of a fresh reading
                m.roles = roles if roles is not None else locked_info(m.ids, {},
                                                                      self.set_ranks)[1]
        turn.actions += 1
        turn.placed += 1
        self.conservation(typ)
        return self.dead_end_check(turn)

    # ---- pozzetto (R40-R44)
    def pozzetto(self, turn: _Turn, ev: dict, prev: dict | None, phase: str) -> None:
        seat, team = turn.seat, self.team_of(turn.seat)
        mode = ev.get("mode")
        ids = self.event_ids(ev, many=True)
        if mode not in ("direct", "discard"):
            self.bad("DOC", f"pozzetto mode {mode!r}")
        if self.poz_team[team] is not None:
            self.bad("R43", f"team {team} takes a second pozzetto (already taken in turn "
                            f"{self.poz_team[team][0]}): one pozzetto per team (R40, R43)")
        if self.hands[seat]:
            self.bad("R41", f"pozzetto taken while seat {seat} still holds "
                            f"{len(self.hands[seat])} card(s): only an empty hand takes it")
        if mode == "direct":
            if phase != "meld" or prev is None or prev.get("type") not in ("meld", "lay_off"):
                self.bad("R41", "al-volo pozzetto must come right after the meld-phase action "
                                "that emptied the hand")
        elif mode == "discard":
            if prev is None or prev.get("type") != "discard":
                self.bad("R41", "pozzetto con lo scarto must come right after the discard that "
                                "emptied the hand")
        # R40: the first team to take one gets deal pozzetto 0, the next pozzetto 1 (and 2)
        k = next((j for j, left in enumerate(self.poz_left) if left), None)
        if k is None:
            self.bad("R40", "no pozzetto left to take")
        if k is not None and sorted(ids) != sorted(self.pozzetti[k]):
            self.bad("R40", f"the team should receive deal pozzetto {k} "
                            f"(number {k + 1} to be taken), got other cards")
        if k is not None:
            # move the cards of pozzetto k (what the rules say is taken); report id mismatches
            self.poz_left[k] = False
            self.hands[seat].extend(self.pozzetti[k])
            if self.poz_team[team] is None:
                self.poz_team[team] = (turn.number, mode, k)
            if k == 0 and self.solo18:
                self.form_pair(seat)
        if mode == "direct":
            turn.actions += 1
        self.conservation("pozzetto")

    def pozzetto_to_stock(self, turn: _Turn, ev: dict, prev) -> None:
        """R53: the draw left the stock at its reserve; the last untaken pozzetto
        becomes the stock (on top of the reserve cards) and can no longer be taken."""
        ids = self.event_ids(ev, many=True)
        if not self.rules["untaken_pozzetto_as_stock"]:
            self.bad("R53", "a pozzetto became the stock although untaken_pozzetto_as_stock is "
                            "off")
        if prev is None or prev.get("type") != "draw" or len(self.stock) != self.reserve:
            self.bad("R53", "a pozzetto becomes the stock only right after the draw that leaves "
                            f"{self.reserve} cards in the stock")
        left = [k for k, on in enumerate(self.poz_left) if on]
        if not left:
            self.bad("R53", "no pozzetto is left to become the stock")
            return
        k = left[-1]
        if ev.get("pozzetto") != k or ids != self.pozzetti[k]:
            self.bad("R53", f"the last untaken pozzetto ({k}) becomes the stock, in its order; "
                            f"got pozzetto {ev.get('pozzetto')!r}")
        self.poz_left[k] = False
        self.stock = list(self.pozzetti[k]) + self.stock
        self.conservation("pozzetto_to_stock")

    def form_pair(self, solo: int) -> None:
        """R62: ``solo`` took pozzetto A; the other two become partners on one table.

        The engine's convention (docs/RULES.md): the pair plays on the table of
        the lower seat, the other seat's melds follow its own, in their order.
        """
        a, b = [s for s in range(3) if s != solo]
        ta, tb = self.team[a], self.team[b]
        self.tables[ta].extend(self.tables[tb])
        self.tables[tb] = []
        self.pile_pickups[ta] += self.pile_pickups[tb]
        self.pile_cards[ta] += self.pile_cards[tb]
        self.pile_pickups[tb] = self.pile_cards[tb] = 0
        self.team[b] = ta
        self.solo = solo

    # ---- discard (R36, R37, R39, R45, R46)
    def discard(self, turn: _Turn, ev: dict):
        seat, team = turn.seat, self.team_of(turn.seat)
        ids = self.event_ids(ev, many=False)
        closes = ev.get("closes")
        if not isinstance(closes, bool):
            self.bad("DOC", f"discard without a boolean 'closes' ({closes!r})")
            closes = bool(closes)
        turn.discarded = True
        if not ids:
            return None
        c = ids[0]
        if self.rules["take_pile_requires_meld"] and turn.pickup == "take_pile" and \
                turn.placed == 0:
            self.bad("R34", "discard without a meld or lay-off after taking the discard pile "
                            "(take_pile_requires_meld)")
        if turn.barred is not None and c == turn.barred:
            self.bad("R36", f"discarded {card_text(c)} (id {c}), the very card of the one-card "
                            "pile taken this turn")
        got = self.take_from_hand(seat, [c], "discard")
        self.pile.extend(got)
        turn.hand_after_discard = len(self.hands[seat])
        need = None
        if not self.hands[seat]:
            if self.poz_team[team] is not None:
                turn.closed = True
                ok, rule, why = self.can_close_with(team, c, turn.barred)
                if not ok and rule != "R36":
                    self.bad(rule, f"illegal close by seat {seat} discarding {card_text(c)}: "
                                   f"{why} (R45, R37(b))")
                if not closes:
                    self.bad("R45", "the discard emptied the hand with the team's pozzetto taken:"
                                    " that is a close, but closes is false")
            else:
                turn.going_to_pozzetto = True
                need = "discard"
                if not any(self.poz_left):
                    self.bad("R53", "the discard emptied the hand with no pozzetto left to take")
                if closes:
                    self.bad("R45", f"closes is true but team {team} has not taken its pozzetto "
                                    "(R45(a)): emptying the hand goes to the pozzetto")
        elif closes:
            self.bad("R45", f"closes is true but seat {seat} still holds "
                            f"{len(self.hands[seat])} card(s): only a discard that empties the "
                            "hand closes")
        self.conservation("discard")
        return need

    # ---- end of a turn (R47, R50, R51, R52)
    def end_of_turn(self, turn: _Turn, team: int) -> None:
        if self.end_required is not None:
            return          # already reported: the hand should be over
        reasons = set()
        if turn.closed:
            reasons.add("closed")
        else:
            if turn.pickup == "draw" and len(self.stock) == self.reserve and \
                    self.rules["untaken_pozzetto_as_stock"] and any(self.poz_left):
                self.bad("R53", "the stock is down to its reserve with a pozzetto untaken: "
                                "under untaken_pozzetto_as_stock that pozzetto becomes the "
                                "stock and the hand goes on")
            if turn.pickup == "draw" and len(self.stock) == self.reserve:
                reasons.add("stock_exhausted")
            else:
                if turn.pickup == "take_pile" and turn.pile_size == 1 and turn.actions == 0:
                    self.stall += 1
                else:
                    self.stall = 0
                if self.stall >= int(self.rules["stall_turn_limit"]):
                    reasons.add("stall")
            if turn.number >= int(self.rules["max_turns_per_hand"]):
                reasons.add("turn_cap")
        ev = turn.end_event
        if reasons:
            self.end_required = reasons
            if ev is None:
                pass            # reported by the next turn, or at the end of the document
            elif ev.get("reason") not in reasons:
                reason = min(reasons, key=END_PREFERENCE.index)
                self.bad(END_RULE[reason], f"end reason {ev.get('reason')!r}, expected "
                                           f"{' or '.join(sorted(reasons))}")
                self.end_reported = True
            else:
                self.end_reported = True
        elif ev is not None:
            claimed = ev.get("reason")
            self.bad(END_RULE.get(claimed, "R49"),
                     f"the hand ends ({claimed!r}) although no end condition holds "
                     f"(closed: {turn.closed}, stock {len(self.stock)}, stall {self.stall}, "
                     f"turn {turn.number})")
            self.end_required = {claimed}
            self.end_reported = True
