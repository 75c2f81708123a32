"""The referee: :class:`Referee` replays one document and collects violations.

This module holds the replay itself (the rules options, the deal or the start, the turns
and the order of their events, card conservation); the class gathers the other parts from
mixins, one module each:

- :mod:`.start`: a document that starts from a state (:meth:`Referee.load_start`);
- :mod:`.events`: each event of a turn (pickup, meld and lay-off, pozzetto, discard) and
  the end of a turn (R33-R53);
- :mod:`.moves`: the legal moves at a decision, the dead-end (R38) and R34 checks;
- :mod:`.scoring`: the hand's score and every record column (R55-R59).
"""
from __future__ import annotations

from collections import Counter

from .cards import N_IDS, TWO, _RANK_IN, card_text, face_of, fold, is_wild_card
from .events import TurnEvents
from .melds import ALL_SET_RANKS, MeldInfo, analyze, layoff_step
from .moves import Moves
from .options import DEFAULT_RULES, END_PREFERENCE, END_RULE, UNSUPPORTED
from .roles import layoff_step_locked, locked_info
from .scoring import Scoring
from .start import StartChecks
from .state import _Meld, _Turn, not_each_once, where_text
from .violations import Violation, _Stop


class Referee(StartChecks, TurnEvents, Moves, Scoring):
    """Replays one document and collects violations.  Use :func:`check`."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.v: list = []
        self.seed = doc.get("seed")
        self.hand_index = doc.get("hand_index")
        self.turn_no: int | None = None
        self.turn0 = 1              # the first turn replayed: 1, or a start's turn
        self.resume = None          # a start in the middle of a turn: that turn (_Turn)
        self.resume_phase = None    # and where it stands: "meld", or "discard" (meld phase over)

    # ----------------------------------------------------------------- helpers
    def bad(self, rule: str, msg: str, turn="current") -> None:
        t = self.turn_no if turn == "current" else turn
        self.v.append(Violation(rule, self.seed, self.hand_index, t, msg))

    def team_of(self, seat: int) -> int:
        """R5: partners sit opposite (team 0 = seats 0, 2); with 2 players (R61) a
        team is one player, seat 0 or 1; with 3 (R62, R63) each player starts on a
        table of their own (see :meth:`form_pair`)."""
        return self.team[seat]

    def seats_of(self, team: int) -> tuple:
        return tuple(s for s in range(self.n_seats) if self.team[s] == team)

    # ----------------------------------------------------------------- rules
    def load_rules(self) -> None:
        given = self.doc.get("rules") or {}
        if not isinstance(given, dict):
            self.bad("DOC", "rules is not a mapping", None)
            given = {}
        r = dict(DEFAULT_RULES)
        for k, val in given.items():
            if k not in DEFAULT_RULES:
                self.bad("DOC", f"unknown rules option {k!r}", None)
            r[k] = val
        for k, unsupported in UNSUPPORTED.items():
            try:
                if unsupported(r[k]):
                    self.bad("OPT", f"unsupported option: {k}={r[k]!r} (the referee checks "
                                    "the default behaviour instead)", None)
            except Exception:           # noqa: BLE001 - odd value type
                self.bad("OPT", f"unsupported option value: {k}={r[k]!r}", None)
        try:
            self.set_ranks = frozenset(_RANK_IN[str(x).upper()] for x in r["set_ranks"])
        except (KeyError, TypeError):
            self.bad("DOC", f"bad set_ranks {r['set_ranks']!r}", None)
            self.set_ranks = ALL_SET_RANKS
        if TWO in self.set_ranks:
            self.bad("R16", "set_ranks contains 2 (a set of twos is impossible)", None)
        self.rules = r
        self.lock = bool(r["lock_two_roles"])
        self.reserve = int(r["stock_reserve"])
        self.n_seats = r["num_players"] if r["num_players"] in (2, 3, 4) else 4
        self.team = [s if self.n_seats == 3 else s % 2 for s in range(self.n_seats)]
        self.solo18 = self.n_seats == 3 and r["three_player_mode"] == "solo_18"
        ps = r["pozzetto_size"]
        if self.n_seats != 3:
            self.poz_sizes = [ps, ps]
        elif self.solo18:
            self.poz_sizes = [r["three_player_pozzetto_a_size"], ps]      # R62: A, then B
        else:
            self.poz_sizes = [ps, ps, ps]                                  # R63
        self.solo = -1

    # ----------------------------------------------------------------- deal (R8, R6)
    def load_deal(self) -> None:
        if "start" in self.doc:
            self.load_start()
            return
        d = self.doc.get("deal_ids")
        if not isinstance(d, dict):
            self.bad("DOC", "no deal_ids", None)
            raise _Stop
        try:
            hands = [list(map(int, h)) for h in d["hands"]]
            pozzetti = [list(map(int, p)) for p in d["pozzetti"]]
            disc = int(d["discard"])
            stock = list(map(int, d["stock"]))
        except (KeyError, TypeError, ValueError) as exc:
            self.bad("DOC", f"malformed deal_ids: {exc!r}", None)
            raise _Stop from None
        hs, ps = self.rules["hand_size"], self.rules["pozzetto_size"]
        n = self.n_seats
        if len(hands) != n or any(len(h) != hs for h in hands):
            self.bad("R8" if n == 4 else "R61",
                     f"hands must be {n} x {hs} cards, got {[len(h) for h in hands]}", None)
        if [len(p) for p in pozzetti] != self.poz_sizes:
            self.bad("R8" if n != 3 else "R62", f"pozzetti must hold {self.poz_sizes} cards, "
                                                f"got {[len(p) for p in pozzetti]}", None)
        expect_stock = N_IDS - n * hs - sum(self.poz_sizes) - 1
        if len(stock) != expect_stock:
            self.bad("R8", f"stock must hold {expect_stock} cards, got {len(stock)}", None)
        every = [c for h in hands for c in h] + [c for p in pozzetti for c in p] + [disc] + stock
        why = not_each_once(every)
        if why:
            self.bad("R8", f"the deal is not a permutation of the 108 ids (R1): {why}", None)
        # notation of the deal
        dn = self.doc.get("deal")
        if isinstance(dn, dict):
            try:
                pairs = ([(a, b) for h, hn in zip(hands, dn["hands"]) for a, b in zip(h, hn)]
                         + [(a, b) for p, pn in zip(pozzetti, dn["pozzetti"])
                            for a, b in zip(p, pn)]
                         + [(disc, dn["discard"])] + list(zip(stock, dn["stock"])))
                wrong = [(a, b) for a, b in pairs if card_text(a) != b]
                if wrong:
                    self.bad("DOC", f"deal notation does not match deal_ids, e.g. id {wrong[0][0]}"
                                    f" is {card_text(wrong[0][0])}, written {wrong[0][1]!r}", None)
            except (KeyError, TypeError):
                self.bad("DOC", "malformed deal notation", None)
        else:
            self.bad("DOC", "no deal (notation)", None)
        self.hands = [list(h) for h in hands]
        self.pozzetti = [list(p) for p in pozzetti]
        self.poz_left = [True] * len(pozzetti)  # pozzetto k still on the table
        self.pile = [disc]
        self.stock = list(stock)                # top first
        self.tables = [[], [], []]              # per team slot: list of _Meld
        self.poz_team = [None, None, None]      # per team slot: (turn, mode, index k)
        self.stall = 0
        self.pile_pickups = [0, 0, 0]
        self.pile_cards = [0, 0, 0]
        self.load_dealer()

    def load_dealer(self) -> None:
        """R6: the dealer, and the first player after it."""
        n = self.n_seats
        dealer, first = self.doc.get("dealer"), self.doc.get("first_player")
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            self.bad("DOC", f"bad dealer {dealer!r}", None)
            dealer = 0
        if first != (dealer + 1) % n:
            self.bad("R6", f"first_player {first!r} is not the player after dealer {dealer}",
                     None)
        self.dealer = dealer
        self.first = first if isinstance(first, int) and 0 <= first < n else (dealer + 1) % n
        self.first_player = self.first          # self.first: the seat of turn self.turn0

    # ----------------------------------------------------------------- conservation
    def conservation(self, what: str) -> None:
        places = [c for h in self.hands for c in h] + self.pile + self.stock
        places += [c for k, p in enumerate(self.pozzetti) if self.poz_left[k] for c in p]
        places += [c for t in self.tables for m in t for c in m.ids]
        cnt = Counter(places)
        if len(places) != N_IDS or len(cnt) != N_IDS:
            dup = sorted(c for c, k in cnt.items() if k > 1)
            miss = sorted(set(range(N_IDS)) - set(cnt))
            self.bad("CONS", f"after {what}: {len(places)} cards in play, duplicated {dup[:6]}, "
                             f"missing {miss[:6]}")

    def text_matches(self, ev: dict, ids: list) -> None:
        if "card" in ev and len(ids) == 1:
            if ev["card"] != card_text(ids[0]):
                self.bad("DOC", f"{ev.get('type')}: card {ev['card']!r} does not match id "
                                f"{ids[0]} ({card_text(ids[0])})")
        if "cards" in ev:
            want = [card_text(c) for c in ids]
            if list(ev["cards"]) != want:
                self.bad("DOC", f"{ev.get('type')}: cards {ev['cards']} do not match ids {want}")

    def event_ids(self, ev: dict, many: bool) -> list:
        key = "card_ids" if many else "card_id"
        if key not in ev:
            self.bad("DOC", f"{ev.get('type')} event without {key}")
            return []
        try:
            ids = [int(c) for c in ev[key]] if many else [int(ev[key])]
        except (TypeError, ValueError):
            self.bad("DOC", f"{ev.get('type')}: bad {key} {ev[key]!r}")
            return []
        bad_ids = [c for c in ids if not 0 <= c < N_IDS]
        if bad_ids:
            self.bad("DOC", f"{ev.get('type')}: ids out of range {bad_ids}")
            ids = [c for c in ids if 0 <= c < N_IDS]
        if len(set(ids)) != len(ids):
            self.bad("CONS", f"{ev.get('type')}: the same card id twice in one event {ids}")
            ids = list(dict.fromkeys(ids))
        self.text_matches(ev, ids)
        return ids

    def take_from_hand(self, seat: int, ids: list, what: str) -> list:
        """Remove ids from the seat's hand; ids not there are reported and skipped."""
        hand = self.hands[seat]
        got = []
        for c in ids:
            if c in hand:
                hand.remove(c)
                got.append(c)
            else:
                self.bad("CONS", f"{what}: {card_text(c)} (id {c}) is not in seat {seat}'s hand "
                                 f"({where_text(self, c)})")
        return got

    # ----------------------------------------------------------------- table helpers
    def meld_info(self, m: _Meld) -> MeldInfo:
        """The meld's reading: canonical (R20), or under lock_two_roles the fewest-wild
        reading that keeps its 2s' stored roles (R25)."""
        if self.lock:
            return locked_info(m.ids, m.roles or {}, self.set_ranks)[0]
        return analyze(m.ids, self.set_ranks)

    def step_ok(self, m: _Meld, card: int, info: MeldInfo) -> bool:
        """Is laying ``card`` off on ``m`` one legal step (R24; R25 under the option)?"""
        if self.lock:
            return layoff_step_locked(m.ids, m.roles or {}, card, self.set_ranks)[0]
        return layoff_step(m.ids, card, self.set_ranks, info)[0]

    def has_burraco(self, team: int, clean_only: bool) -> bool:
        for m in self.tables[team]:
            if len(m.ids) >= 7:
                info = self.meld_info(m)
                if info.valid and (info.clean or not clean_only):
                    return True
        return False

    def can_close_with(self, team: int, card: int, barred) -> tuple:
        """R45 (b)(c)(d) for a last card (the caller checks (a)).  (ok, why)."""
        if barred is not None and card == barred:
            return False, "R36", f"{card_text(card)} is the card of the one-card pile taken " \
                                 "this turn"
        if is_wild_card(fold(face_of(card))):
            return False, "R45", f"a close must discard a natural card, not {card_text(card)}"
        need_clean = bool(self.rules["require_clean_burraco_to_close"])
        if not self.has_burraco(team, need_clean):
            return False, "R45", ("no clean burraco on the team's table" if need_clean
                                  else "no burraco on the team's table")
        return True, "", ""

    # ----------------------------------------------------------------- events
    def run(self) -> None:
        self.load_rules()
        self.load_deal()
        self.conservation("the deal")
        events = self.doc.get("events")
        if not isinstance(events, list) or not events:
            self.bad("DOC", "no events", None)
            raise _Stop
        self.play_turns(self.groups(events))
        self.turn_no = -1
        if self.end_event is None:
            if self.end_required is not None:
                reason = min(self.end_required, key=END_PREFERENCE.index)
                self.bad(END_RULE[reason], f"the hand had to end ({reason}) but the document "
                                           "has no 'end' event")
            else:
                self.bad("R49", "the events stop but no end condition holds and there is no "
                                "'end' event")
        self.score()

    def groups(self, events: list) -> list:
        """The events grouped by turn; the 'end' event joins the turn it follows.
        After a start in the middle of a turn the first group is that turn's rest
        (maybe empty)."""
        groups = [[]] if self.resume is not None else []
        for ev in events:
            if not isinstance(ev, dict) or "type" not in ev:
                self.bad("DOC", f"malformed event {ev!r}", None)
                continue
            if ev["type"] == "end" and groups:
                groups[-1].append(ev)
                continue
            cur = groups[-1] if groups else None
            if cur == [] and ev.get("turn") == self.turn0:
                cur.append(ev)                  # the first event after a start mid-turn
            elif not cur or ev.get("turn") != cur[0].get("turn") or cur[-1]["type"] == "end":
                groups.append([ev])
            else:
                cur.append(ev)
        return groups

    def play_turns(self, groups: list, last_complete: bool = True):
        """Replay the turns; with ``last_complete`` false the last group is a turn
        still being played (no end-of-turn checks).  Returns the last turn."""
        self.turns = []
        self.end_required = None         # set of acceptable end reasons once the hand must end
        self.end_event = None
        self.end_reported = False
        turn = None
        for k, group in enumerate(groups):
            expected_no = self.turn0 + k
            self.turn_no = expected_no
            got_no = group[0].get("turn") if group else expected_no
            if got_no != expected_no:
                self.bad("R5", f"turn numbers must run {self.turn0}, {self.turn0 + 1}, "
                               f"{self.turn0 + 2}...: expected {expected_no}, got {got_no!r}")
            turn = self.play_turn(expected_no, group,
                                  complete=last_complete or k < len(groups) - 1,
                                  resume=self.resume if k == 0 else None)
        return turn

    def play_turn(self, t: int, group: list, complete: bool = True, resume=None) -> _Turn:
        """Replay turn ``t``; ``resume``: the turn a start stopped in (it goes on from
        ``self.resume_phase``)."""
        seat = (self.first + t - self.turn0) % self.n_seats
        team = self.team_of(seat)
        turn = resume if resume is not None else _Turn(t, seat)
        self.turns.append(turn)
        if resume is None and self.end_required is not None and not self.end_reported:
            reason = min(self.end_required, key=END_PREFERENCE.index)
            self.bad(END_RULE[reason], f"turn {t} was played although the hand had to end "
                                       f"({' or '.join(sorted(self.end_required))}) after the "
                                       "previous turn")
            self.end_reported = True
        if resume is None and len(self.stock) <= self.reserve and self.end_required is None:
            self.bad("R50", f"a turn starts with {len(self.stock)} cards in the stock "
                            f"(stock_reserve {self.reserve})")
        for ev in group:
            if ev.get("seat") != seat and ev["type"] != "end":
                self.bad("R5", f"{ev['type']} by seat {ev.get('seat')!r}, but turn {t} is seat "
                               f"{seat}'s (first player {self.first_player}, clockwise)")
                break
        phase = "pickup" if resume is None else self.resume_phase
        need_poz = None                 # "direct" / "discard": the next event must be that pozzetto
        for i, ev in enumerate(group):
            typ = ev["type"]
            if need_poz is not None and not (typ == "pozzetto" and ev.get("mode") == need_poz):
                self.bad("R41", f"seat {seat}'s hand became empty "
                                f"({'during the meld phase' if need_poz == 'direct' else 'with the discard'})"
                                f" and the team had no pozzetto: the next event must be the "
                                f"pozzetto taken {'al volo' if need_poz == 'direct' else 'con lo scarto'}"
                                f", got {typ}")
                need_poz = None
            if typ in ("draw", "take_pile"):
                if phase != "pickup":
                    self.bad("R33", f"a second pickup ({typ}) in one turn" if turn.pickup
                             else f"{typ} after the discard")
                self.pickup(turn, ev, typ)
                if phase == "pickup":
                    phase = "meld"
            elif typ in ("meld", "lay_off"):
                if self.immediate_end(turn):
                    self.bad("R50", f"{typ} after the draw that left {self.reserve} cards in the "
                                    "stock (stock_end_mode immediate: the hand ends at once)")
                if phase == "pickup":
                    self.bad("R32", f"{typ} before the pickup (a turn starts with exactly one "
                                    "pickup)")
                elif phase == "discard":
                    self.bad("R32", f"{typ} after the meld phase was ended (the start is at "
                                    "the discard)")
                elif phase != "meld":
                    self.bad("R32", f"{typ} after the discard")
                need_poz = self.meld_action(turn, ev, typ)
            elif typ == "pozzetto":
                self.pozzetto(turn, ev, group[i - 1] if i else None, phase)
                need_poz = None
            elif typ == "pozzetto_to_stock":
                self.pozzetto_to_stock(turn, ev, group[i - 1] if i else None)
            elif typ == "discard":
                if phase == "pickup":
                    self.bad("R32", "discard without a pickup")
                elif phase not in ("meld", "discard"):
                    self.bad("R32", "a second discard in one turn")
                need_poz = self.discard(turn, ev)
                phase = "post"
            elif typ == "end":
                if i != len(group) - 1:
                    self.bad("R32", "events after the 'end' event")
                if phase != "post" and not self.immediate_end(turn):
                    self.bad("R32", "the hand ends before the turn's discard")
                if ev.get("turn") != t or ev.get("seat") != seat:
                    self.bad("DOC", f"end event has turn/seat {ev.get('turn')!r}/"
                                    f"{ev.get('seat')!r}, the last turn is {t}/seat {seat}")
                if self.end_event is not None:
                    self.bad("R49", "a second 'end' event")
                self.end_event = ev
                turn.end_event = ev
            else:
                self.bad("DOC", f"unknown event type {typ!r}")
        if not complete:
            return turn
        if need_poz is not None:
            self.bad("R41", f"seat {seat}'s hand became empty and the team had no pozzetto, "
                            f"but no pozzetto ({need_poz}) event follows")
        if turn.pickup is None:
            self.bad("R33", "the turn has no pickup (draw or take_pile)")
        if not turn.discarded and not self.immediate_end(turn):
            self.bad("R32", "the turn has no discard (every turn ends with exactly one)")
        if turn.discarded and self.immediate_end(turn):
            self.bad("R50", "a discard after the draw that left the stock at its reserve "
                            "(stock_end_mode immediate: the hand ends at once)")
        self.end_of_turn(turn, team)
        return turn

    def immediate_end(self, turn: _Turn) -> bool:
        """R50 immediate: this turn's draw left the stock at its reserve."""
        return (self.rules["stock_end_mode"] == "immediate" and turn.pickup == "draw"
                and len(self.stock) <= self.reserve)
