"""The legal moves at a decision, judged by the referee's rules: every legal meld-phase
action (R15-R26, R38), a discard (R36, R37, R45, R53), the R34 test under
``take_pile_requires_meld`` and the dead-end check (R38); a part of
:class:`~.core.Referee`, and the two helpers that list candidates.

Cards are folded faces: 13*suit + rank (suits ♣ ♦ ♥ ♠, ranks A..K = 0..12), 52 a joker.
A move names faces, not copies: it is legal when some choice of the copies in hand makes
it legal (R1: the copies differ only for R36).
"""
from __future__ import annotations

from collections import Counter
from itertools import product

from .cards import TWO, card_text, face_of, fold, is_wild_card, rank_of, suit_of
from .melds import MeldInfo, analyze, layoff_step
from .options import END_PREFERENCE, END_RULE
from .roles import layoff_step_locked, locked_info
from .state import _Meld, _Turn


class Moves:
    """The legal moves (:meth:`moves_at`) and the checks that need them."""

    # ---- R34 under take_pile_requires_meld
    def placement_exists(self, seat: int, pile_ids: list, barred) -> bool:
        """Is there a legal meld-phase action placing a card after taking the pile?

        Any legal new meld or lay-off of one or more cards (R24, so a lay-off
        whose first card is not from the pile counts; R23 and R38 apply as to any
        meld-phase action, :meth:`placements`) of the hand with the pile in it;
        with ``pile_meld_source = "from_pile"`` it must place a card of a face the
        pile holds (the two copies of a card are interchangeable, R1).  A longer
        sequence of actions needs no look of its own: its first action placing a
        pile card, merged with the earlier actions on that meld (its creation, or
        the lay-offs before), is one legal action already; it leaves more cards in
        hand, and when it leaves one or none no other action came before it.
        """
        cards = self.hands[seat] + pile_ids
        from_pile = self.rules["pile_meld_source"] == "from_pile"
        pile_faces = {fold(face_of(c)) for c in pile_ids}
        return any(not from_pile or pile_faces.intersection(faces)
                   for _, faces in self.placements(self.team_of(seat), cards, barred,
                                                   many=True))

    # ---- the legal meld-phase actions (R15-R26, R38), one by one
    def has_set_of(self, team: int, rank: int) -> bool:
        """R23: the team's table holds a set of ``rank``."""
        return any(m.kind == "set" and m.valid and self.meld_info(m).rank == rank
                   for m in self.tables[team])

    def placements(self, team: int, hand: list, barred, many: bool = False):
        """Every legal meld-phase action of a player holding ``hand`` (ids) on team
        ``team``'s table, lazily: lay-offs first, then new melds.

        Yields ``(move, faces)``: ``("lay_off", meld index, faces)`` or ``("create",
        faces)`` (sorted folded faces), and the faces the action places.  A lay-off
        adds one card (one R24 step; R25 under ``lock_two_roles``), or with ``many``
        one or more (R24: some order of legal single steps).  A new meld is any
        multiset of the hand that :func:`analyze` reads as a meld (R15-R18,
        ``set_ranks``), not a second set of a rank (R23).  Either must leave no dead
        end (R38, R53) for some choice of the copies it places (:func:`copy_choices`).
        """
        table = self.tables[team]
        counts = Counter(fold(face_of(c)) for c in hand)
        for mi, m in enumerate(table):
            info = self.meld_info(m)
            if not m.valid or not info.valid:
                continue
            # a natural card joins a set of its rank or a run of its suit
            fit = sorted(f for f in counts if is_wild_card(f) or (
                rank_of(f) == info.rank if info.kind == "set" else suit_of(f) == info.suit))
            dead = []
            for faces, ids, roles in self._extensions(m, info, fit, counts, hand, many):
                if any(self.leaves_ok(team, rest, barred, self._lay(m, ids, roles))
                       for _, rest in copy_choices(hand, faces, barred)):
                    yield ("lay_off", mi, faces), faces
                elif not many:
                    dead.append(faces)
            # one card that alone would leave a dead end (R38) but begins a lay-off of
            # several cards that is legal as one action (R24: R38 judges the hand after
            # the whole action): the step API plays it card by card
            if dead:
                starts = self._first_cards(team, mi, m, info, fit, counts, hand, barred)
                for faces in dead:
                    if faces[0] in starts:
                        yield ("lay_off", mi, faces), faces
        for faces in meld_candidates(counts):
            info = analyze(faces, self.set_ranks)
            if not info.valid:
                continue
            if info.kind == "set" and not self.rules["allow_duplicate_set_rank"] \
                    and self.has_set_of(team, info.rank):
                continue
            if any(self.leaves_ok(team, rest, barred, self._new(team, ids, info.kind))
                   for ids, rest in copy_choices(hand, faces, barred)):
                yield ("create", faces), faces

    def _extensions(self, m: _Meld, info: MeldInfo, fit: list, counts, hand: list,
                    many: bool):
        """The lay-offs on ``m`` that R24 allows (R25 under ``lock_two_roles``):
        ``(faces added, the ids added, the meld's roles after)`` for every multiset of
        the ``fit`` faces held that some order of legal single steps adds (one card
        unless ``many``; under the option once per distinct set of roles).  The
        copies of a card are interchangeable in a step (R1)."""
        seen = set()
        todo = [((), list(m.ids), m.roles or {})]
        while todo:
            added, ids, roles = todo.pop()
            left = counts - Counter(added)
            step_info = info if not added else None
            for f in fit:
                if left[f] <= 0:
                    continue
                key = tuple(sorted(added + (f,)))
                card = next(c for c in hand if fold(face_of(c)) == f and c not in ids)
                if self.lock:
                    ok, _, _, new_roles = layoff_step_locked(ids, roles, card, self.set_ranks)
                else:
                    ok, new_roles = layoff_step(ids, card, self.set_ranks, step_info)[0], None
                state = (key, tuple(sorted(new_roles.items())) if self.lock else None)
                if not ok or state in seen:
                    continue
                seen.add(state)
                yield key, ids[len(m.ids):] + [card], new_roles
                if many:
                    todo.append((key, ids + [card], new_roles))

    def _first_cards(self, team: int, mi: int, m: _Meld, info: MeldInfo, fit: list, counts,
                     hand: list, barred) -> set:
        """The faces that can be the first card of a legal lay-off of two or more
        cards on ``m`` (R24 with R38)."""
        out = set()
        todo = [((), list(m.ids), m.roles or {})]
        while todo:
            added, ids, roles = todo.pop()
            left = counts - Counter(added)
            for f in fit:
                if left[f] <= 0:
                    continue
                card = next(c for c in hand if fold(face_of(c)) == f and c not in ids)
                if self.lock:
                    ok, _, _, new_roles = layoff_step_locked(ids, roles, card, self.set_ranks)
                else:
                    ok, new_roles = layoff_step(ids, card, self.set_ranks,
                                                info if not added else None)[0], None
                if not ok:
                    continue
                path = added + (f,)
                if len(path) >= 2 and path[0] not in out:
                    laid = ids[len(m.ids):] + [card]
                    if any(self.leaves_ok(team, rest, barred, self._lay(m, laid, new_roles))
                           for _, rest in copy_choices(hand, tuple(sorted(path)), barred)):
                        out.add(path[0])
                todo.append((path, ids + [card], new_roles))
        return out

    def leaves_ok(self, team: int, rest: list, barred, table_change) -> bool:
        """R38/R53 for an action leaving ``rest`` in hand; ``table_change()`` makes
        the action's change to the table and returns its undo (the close conditions
        of a last card see the melds as after the action)."""
        if len(rest) >= 2:
            return True
        undo = table_change()
        try:
            return self.dead_end(team, rest, barred) is None
        finally:
            undo()

    def _lay(self, m: _Meld, ids: list, roles):
        def change():
            before = m.roles
            m.ids.extend(ids)
            if self.lock:
                m.roles = roles

            def undo():
                del m.ids[len(m.ids) - len(ids):]
                m.roles = before
            return undo
        return change

    def _new(self, team: int, ids: list, kind: str):
        def change():
            roles = locked_info(ids, {}, self.set_ranks)[1] if self.lock else None
            self.tables[team].append(_Meld(list(ids), kind, True, roles))
            return self.tables[team].pop
        return change

    def discard_ok(self, team: int, hand: list, card: int, barred) -> bool:
        """R36, R37, R45, R53: may ``card`` of ``hand`` be discarded?"""
        if barred is not None and card == barred:
            return False
        if len(hand) > 1:
            return True
        if self.poz_team[team] is None:
            return any(self.poz_left)       # going to the pozzetto (R41), any card
        return self.can_close_with(team, card, barred)[0]

    def moves_at(self, phase: str, seat: int) -> list:
        """Replay the document (a prefix: deal and events so far) and list the legal
        moves of ``seat`` at the decision ``phase``; see :func:`legal_moves`."""
        self.load_rules()
        self.load_deal()
        self.conservation("the deal")
        events = self.doc.get("events") or []
        if any(isinstance(ev, dict) and ev.get("type") == "end" for ev in events):
            raise ValueError("legal_moves: the document has an 'end' event: the hand is over")
        groups = self.groups(events)
        in_turn = bool(groups) and not any(ev.get("type") == "discard" for ev in groups[-1])
        turn = self.play_turns(groups, last_complete=not in_turn)
        if not in_turn:
            if self.end_required is not None:
                self.bad(END_RULE[min(self.end_required, key=END_PREFERENCE.index)],
                         f"the hand had to end ({' or '.join(sorted(self.end_required))}): "
                         "no decision follows")
            t = len(groups) + 1
            turn = _Turn(t, (self.first + t - 1) % self.n_seats)
            expect = {"pickup"}
        elif self.rules["take_pile_requires_meld"] and turn.pickup == "take_pile" \
                and turn.placed == 0:
            expect = {"place"}
        else:
            expect = {"meld", "discard"}
        if self.v:
            raise ValueError("legal_moves: the history breaks the rules:\n"
                             + "\n".join(map(str, self.v)))
        if seat != turn.seat or phase not in expect:
            raise ValueError(f"legal_moves: the decision is seat {turn.seat}'s, phase "
                             f"{' or '.join(sorted(expect))}; asked for seat {seat}, {phase!r}")
        team, hand = self.team_of(seat), self.hands[seat]
        if phase == "pickup":
            moves = [("draw",)] if len(self.stock) > self.reserve else []
            if self.pile:
                barred = self.pile[0] if (len(self.pile) == 1 and
                                          self.rules["forbid_rediscard_single_pile"]) else None
                if not self.rules["take_pile_requires_meld"] or \
                        self.placement_exists(seat, list(self.pile), barred):
                    moves.append(("take",))
            return moves
        if phase == "discard":
            return [("discard", f) for f in sorted({fold(face_of(c)) for c in hand})
                    if any(self.discard_ok(team, hand, c, turn.barred)
                           for c in hand if fold(face_of(c)) == f)]
        moves = [("end",)] if phase == "meld" else []
        return moves + [mv for mv, _ in self.placements(team, hand, turn.barred)]

    def dead_end_check(self, turn: _Turn):
        """R38 after a meld-phase action; returns "direct" if the pozzetto must follow."""
        hand = self.hands[turn.seat]
        why = self.dead_end(self.team_of(turn.seat), hand, turn.barred)
        if why is not None:
            self.bad(*why)
            return None
        return None if hand else "direct"

    def dead_end(self, team: int, hand: list, barred):
        """R38 (no dead ends) and R53 for a hand left by a meld-phase action, judged on
        the table as it is: None when the turn can go on, else ``(rule, message)``."""
        if not hand:
            if self.poz_team[team] is not None:
                return "R38", ("dead end: the hand became empty in the meld phase after the "
                               "team had already taken its pozzetto (R38(i), R46)")
            if not any(self.poz_left):
                return "R53", ("the hand became empty with no pozzetto left to take (one "
                               "became the stock)")
            return None
        if len(hand) == 1:
            c = hand[0]
            if self.poz_team[team] is None and not any(self.poz_left):
                return "R53", (f"dead end: one card left ({card_text(c)}) whose discard would "
                               "empty the hand with no pozzetto left to take")
            if barred is not None and c == barred:
                return "R38", (f"dead end: the only card left, {card_text(c)}, is the R36 card "
                               "(R38(ii))")
            if self.poz_team[team] is not None:
                ok, _, why = self.can_close_with(team, c, barred)
                if not ok:
                    return "R38", (f"dead end: one card left ({card_text(c)}) that cannot be "
                                   f"discarded: pozzetto taken and it cannot close ({why}) "
                                   "(R38(ii))")
        return None


def copy_choices(hand: list, faces, barred) -> list:
    """The distinct ways to take ``faces`` (folded) out of ``hand`` (ids):
    ``[(ids taken, ids left)]``.  Only the R36 card makes two copies differ, so
    there are at most two: with the barred card left in hand, and with it taken."""
    need = Counter(faces)
    chosen = []
    for f, k in need.items():
        ids = sorted((c for c in hand if fold(face_of(c)) == f), key=lambda c: c == barred)
        if len(ids) < k:
            return []
        chosen += ids[:k]
    choices = [chosen]
    if barred in hand and barred not in chosen and fold(face_of(barred)) in need:
        f = fold(face_of(barred))
        alt = list(chosen)
        alt.remove(next(c for c in alt if fold(face_of(c)) == f))
        choices.append(alt + [barred])
    return [(ids, [c for c in hand if c not in ids]) for ids in choices]


def meld_candidates(counts) -> list:
    """Every multiset of the counted faces (``{folded face: copies}``) shaped like a
    meld, as sorted face tuples; :func:`analyze` gives the verdict on each.

    The shapes follow from R14-R18, so no valid meld is left out: a set is two or
    more naturals of one rank (never 2) and at most one wild; a sequence's naturals
    (a natural 2 in slot 2 included) fill a block of slots lo..hi (R4) but for at
    most one hole, with at most one wild, which the hole requires.
    """
    wilds = sorted(f for f in counts if is_wild_card(f))
    out = {}

    def emit(faces):
        key = tuple(sorted(faces))
        if key not in out and all(k <= counts.get(f, 0) for f, k in Counter(key).items()):
            out[key] = None

    for r in range(13):
        held = [min(2, counts.get(13 * s + r, 0)) for s in range(4)]
        if r == TWO or sum(held) < 2:
            continue
        for k in product(*(range(h + 1) for h in held)):
            nat = [13 * s + r for s in range(4) for _ in range(k[s])]
            if len(nat) >= 2:
                for w in [None] + wilds:
                    emit(nat + ([w] if w is not None else []))
    for s in range(4):
        def face(slot, s=s):
            return 13 * s + (0 if slot in (1, 14) else slot - 1)
        have = {x: counts.get(face(x), 0) > 0 for x in range(1, 15)}
        for lo in range(1, 14):
            if not have[lo]:
                continue
            for hi in range(lo + 1, 15):
                missing = [x for x in range(lo + 1, hi) if not have[x]]
                if len(missing) > 1:
                    break               # a longer block only misses more slots
                if not have[hi]:
                    continue
                for hole in (missing or [None] + list(range(lo + 1, hi))):
                    nat = [face(x) for x in range(lo, hi + 1) if x != hole]
                    for w in ([] if hole is not None else [None]) + wilds:
                        emit(nat + ([w] if w is not None else []))
    return list(out)
