"""Scoring (RULES.md R55-R59, R29, R31, R62): a team's hand score and its parts, and
the record the referee computes and compares with the document's result (a part of
:class:`~.core.Referee`)."""
from __future__ import annotations

from .cards import face_of, value
from .melds import ALL_SET_RANKS, analyze, semi_clean
from .options import DEFAULT_RULES, END_PREFERENCE, TEAM_KEYS
from .roles import locked_info


class Scoring:
    """The hand's score and record columns (:meth:`score`)."""

    def score(self) -> None:
        r = self.rules
        end_reason = None
        if self.end_event is not None:
            end_reason = self.end_event.get("reason")
        if self.end_required is not None and end_reason not in self.end_required:
            end_reason = min(self.end_required, key=END_PREFERENCE.index)
        closing_turn = next((t for t in self.turns if t.closed), None)
        calc = {
            "dealer": self.dealer, "first_player": self.first_player,
            "end_reason": end_reason, "turns": self.turn0 - 1 + len(self.turns),
            "closing_seat": closing_turn.seat if closing_turn else -1,
            "stock_left": len(self.stock), "pile_left": len(self.pile), "error": 0,
        }
        def credit(points, partners):
            # R62: the pair's side score goes in full to each partner, or half rounded up
            # to a multiple of 5 under three_player_pair_share = "half_round_up"
            if self.n_seats == 3 and partners == 2 and r["three_player_pair_share"] != "full":
                return -(-points // 10) * 5
            return points

        groups = (0, 1, 2) if self.n_seats == 3 else (0, 1)
        for g in groups:
            # a group per team; with 3 players per player: their side, credited score
            team = self.team[g] if self.n_seats == 3 else g
            closed = closing_turn is not None and self.team_of(closing_turn.seat) == team
            bonus_close = closed and not (r["pile_close_no_bonus"]
                                          and closing_turn.pickup == "take_pile")
            poz = self.poz_team[team]
            parts = team_score([m.ids for m in self.tables[team]],
                               [c for s in self.seats_of(team) for c in self.hands[s]],
                               closed=bonus_close, pozzetto_taken=poz is not None, rules=r,
                               set_ranks=self.set_ranks,
                               roles=[m.roles or {} for m in self.tables[team]])
            meld_points, bonus = parts["meld_points"], parts["burraco_bonus"]
            closing_bonus, hand_points = parts["closing_bonus"], parts["hand_points"]
            penalty = parts["pozzetto_penalty"]
            clean_n, dirty_n, semi_n = parts["clean"], parts["dirty"], parts["semi_clean"]
            calc.update({
                f"score_t{g}": credit(meld_points + bonus + closing_bonus - hand_points - penalty,
                                      len(self.seats_of(team))),
                f"meld_points_t{g}": meld_points,
                f"burraco_bonus_t{g}": bonus,
                f"closing_bonus_t{g}": closing_bonus,
                f"hand_points_t{g}": hand_points,
                f"pozzetto_penalty_t{g}": penalty,
                f"clean_burracos_t{g}": clean_n,
                f"dirty_burracos_t{g}": dirty_n,
                f"semi_clean_burracos_t{g}": semi_n,
                f"melds_t{g}": len(self.tables[team]),
                f"closed_t{g}": closed,
                f"pozzetto_taken_t{g}": poz is not None,
                f"pozzetto_turn_t{g}": poz[0] if poz else -1,
                f"pozzetto_mode_t{g}": poz[1] if poz else "none",
                f"pile_pickups_t{g}": self.pile_pickups[team],
                f"pile_cards_t{g}": self.pile_cards[team],
            })
            if (calc[f"score_t{g}"]) % 5:
                self.bad("R59", f"group {g} score {calc[f'score_t{g}']} is not a multiple "
                                "of 5")
        if self.n_seats == 3:
            calc["solo_seat"] = self.solo
        else:
            calc.update({f"{k}_t2": None for k in TEAM_KEYS})
            calc["solo_seat"] = None
        self.computed = calc
        res = self.doc.get("result")
        if not isinstance(res, dict):
            self.bad("DOC", "no result")
            return
        for key, want in calc.items():
            if key not in res:
                if want is None:
                    continue        # a 2- or 4-player document may leave out the 3-player columns
                self.bad("DOC", f"result lacks column {key!r}")
                continue
            got = res[key]
            if want is None or got is None:
                same = want is None and got is None
            elif isinstance(want, bool) or isinstance(got, bool):
                same = bool(got) == bool(want) and got in (0, 1, True, False)
            elif isinstance(want, int):
                same = isinstance(got, (int, float)) and int(got) == want and got == int(got)
            else:
                same = got == want
            if not same:
                self.bad(_result_rule(key), f"result {key} = {got!r}, the referee computes "
                                            f"{want!r}")


def team_score(melds, hand_cards, *, closed, pozzetto_taken, rules=None,
               set_ranks=ALL_SET_RANKS, roles=None) -> dict:
    """One team's hand score and its parts (R55, R56, R29, R57).

    ``melds``: list of card-id lists on the team's table; ``hand_cards``: ids left in the
    team's hands (an assigned unplayed pozzetto included, R57); ``closed``: the team earns
    the closing bonus; ``rules``: options mapping (defaults for missing keys); ``roles``:
    under ``lock_two_roles``, the stored roles of each meld's 2s (``{id: "natural" |
    "wild"}``, R25; a 2 without one takes its canonical role), which decide the classes.
    """
    r = dict(DEFAULT_RULES)
    r.update(rules or {})
    meld_points = sum(value(face_of(c)) for m in melds for c in m)
    bonus = clean_n = dirty_n = semi_n = 0
    for k, m in enumerate(melds):
        if len(m) < 7:
            continue
        if r["lock_two_roles"]:
            info = locked_info(m, (roles[k] if roles else None) or {}, set_ranks)[0]
        else:
            info = analyze(m, set_ranks)
        if not info.valid:
            continue            # reported when it became invalid
        if info.clean:
            clean_n += 1
            b = r["clean_bonus"]
        else:
            dirty_n += 1
            if r["semi_clean_bonus"] is not None and semi_clean(info, len(m),
                                                                r["semi_clean_rule"]):
                semi_n += 1
                b = r["semi_clean_bonus"]
            else:
                b = r["dirty_bonus"]
        if r["extra_burraco_classes"]:
            # R31: royal = a sequence of 13+ cards (300 clean, 250 with a wild), super = a
            # set of 8+ cards (250 clean, 200 with a wild); only the highest class counts
            if info.kind == "sequence" and len(m) >= 13:
                b = max(b, 300 if info.clean else 250)
            elif info.kind == "set" and len(m) >= 8:
                b = max(b, 250 if info.clean else 200)
        bonus += b
    closing_bonus = r["closing_bonus"] if closed else 0
    hand_points = sum(value(face_of(c)) for c in hand_cards)
    penalty = 0 if pozzetto_taken else r["pozzetto_penalty"]
    return {"score": meld_points + bonus + closing_bonus - hand_points - penalty,
            "meld_points": meld_points, "burraco_bonus": bonus, "closing_bonus": closing_bonus,
            "hand_points": hand_points, "pozzetto_penalty": penalty, "clean": clean_n,
            "dirty": dirty_n, "semi_clean": semi_n}


def _result_rule(key: str) -> str:
    base = key[:-3] if key.endswith(("_t0", "_t1")) else key
    return {
        "score": "R55", "meld_points": "R55", "hand_points": "R55", "pozzetto_penalty": "R55",
        "burraco_bonus": "R56", "clean_burracos": "R56", "dirty_burracos": "R56",
        "semi_clean_burracos": "R56",
        "closing_bonus": "R47", "closed": "R47", "closing_seat": "R47",
        "pozzetto_taken": "R42", "pozzetto_turn": "R42", "pozzetto_mode": "R41",
        "end_reason": "R49", "dealer": "R6", "first_player": "R6",
    }.get(base, "REC")
