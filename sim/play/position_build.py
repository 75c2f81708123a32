"""A position written into a game and read back out of one: :class:`_Builder` checks a
canonical position (:mod:`sim.play.position_file`) against the rules and fills a game's
buffer with it, :func:`to_world` deals the unseen cards (``Game.from_position``), and
:func:`from_game` writes a seat's view of a game (``Game.to_position``).
"""
from __future__ import annotations

import numpy as np

from kernels.engine import actions as KA
from kernels.core import layout as L
from kernels.engine import legal as KL
from kernels.core import melds as KM
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.core.cards import CIDX, N_CARDS, N_COUNT

from sim.core import notation
from sim.core.cards import check_int
from sim.core.rules import Rules
from sim.play.actions import _meld_faces
from sim.play.position_file import (FORMAT, MODES, PHASES, WORLD_TRIES, _counts, _face_ids,
                                    _face_text, _faces_text, _fail, _pozzetto_sizes, _team_of,
                                    normalize, rules_table)


def to_world(p: dict, rules: Rules, seed: int, g):
    """The game of position ``p`` (canonical, :func:`sim.play.position_file.load`) played
    on from a world dealt from ``seed``: ``g`` is a new game under ``rules`` (the seats'
    strategies set), whose buffer gets the position; every card the viewer cannot see is
    dealt again (:meth:`sim.play.game.Game.sample_world`), the worlds in which the seat to
    move has no decision drawn again (``WORLD_TRIES``).  ValueError naming the field of
    an impossible position.
    """
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
        p, n = self.p, self.n
        seat, mover, turn = p["seat"], p["to_move"], p["turn"]
        if (p["dealer"] + turn) % n != mover:
            _fail("dealer", f"with dealer {p['dealer']} seat {(p['dealer'] + turn) % n} plays "
                  f"turn {turn}, not seat {mover} (to_move): turns go round from the seat "
                  "left of the dealer (R6)")
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
            KSM.meld_info_full(st.mcnt, st.minfo, np.int64(t), np.int64(mi))
            if nat is not None:
                KSM.meld_info_roles(st.mcnt, st.minfo, np.int64(t), np.int64(mi), np.int64(nat),
                                   np.int64(0))
        # the counters (kernels.table.state G_*), as the deal and the turns leave them
        g[KS.G_STOCK_TOP] = 0
        g[KS.G_STOCK_END] = p["stock"]
        g[KS.G_PILE_SIZE] = len(self.pile)
        taken = p["pozzetti"]["taken"]
        g[KS.G_NEXT_POZZETTO] = len(taken)
        g[KS.G_N_POZZETTI] = len(taken) + p["pozzetti"]["left"]
        g[KS.G_TURN] = p["turn"]
        g[KS.G_STALL] = p["stall"]
        g[KS.G_BARRED] = barred
        for t in range(KS.NTEAMS):
            g[KS.G_POZZETTO_TURN + t] = -1
        for e in taken:
            t = e["side"]
            g[KS.G_POZZETTO_TAKEN + t] = 1
            g[KS.G_POZZETTO_TURN + t] = e["turn"]
            g[KS.G_POZZETTO_MODE + t] = MODES.index(e["mode"]) + 1
            if "unplayed_seat" in e:
                g[KS.G_POZZETTO_HIDDEN + e["unplayed_seat"]] = 1
        tt = p.get("this_turn")
        if tt is not None:
            g[KS.G_TOOK_PILE] = tt["pickup"] == "pile"
            g[KS.G_ACTIONS] = tt["actions"]
            g[KS.G_SINGLE] = tt["one_card_pile"]
            g[KS.G_OPEN_LAYOFF] = tt.get("open_lay_off", -1) + 1
            g[KS.G_LAST_TURN] = tt["pickup"] == "stock" and p["stock"] <= rules.stock_reserve
        for k in range(3):
            g[KS.G_POZZETTO_SIZE + k] = self.poz_sizes[k]
        g[KS.G_CLOSER] = -1
        for s in range(4):
            g[KS.G_TEAM + s] = self.team[s]
        g[KS.G_SOLO_SEAT] = self.solo
        g[KS.G_SOLO_18] = int(n == 3 and rules.three_player_mode == "solo_18")
        g[KS.G_PHASE] = PHASES.index(p["phase"])
        g[KS.G_SEAT] = p["to_move"]
        g[KS.G_END] = -1
        g[KS.G_DEALER] = p["dealer"]
        g[KS.G_FIRST] = (p["dealer"] + 1) % n
        if not KSM.conservation_ok(st):
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
        "pile": text(st.pile[:g[KS.G_PILE_SIZE]]),
        "stock": int(g[KS.G_STOCK_END] - g[KS.G_STOCK_TOP]),
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
    sides = [t for t in range(KS.NTEAMS) if g[KS.G_POZZETTO_TAKEN + t]]
    solo = int(g[KS.G_SOLO_SEAT])
    sides.sort(key=lambda t: (int(g[KS.G_POZZETTO_TURN + t]), t != solo))
    taken = []
    for t in sides:
        e = {"side": t, "turn": int(g[KS.G_POZZETTO_TURN + t]),
             "mode": L.POZZETTO_MODES[int(g[KS.G_POZZETTO_MODE + t])]}
        for s in range(n):
            if g[KS.G_POZZETTO_HIDDEN + s] and g[KS.G_TEAM + s] == t:
                e["unplayed_seat"] = s
        taken.append(e)
    p["pozzetti"] = {"left": int(g[KS.G_N_POZZETTI] - g[KS.G_NEXT_POZZETTO]), "taken": taken}
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
