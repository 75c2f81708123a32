"""Turn-level legality of one position, through the simulation's kernels.

A :class:`Position` is the MELD/DISCARD phase of seat 0 (team 0): its hand,
its team's melds, the opponents' melds, whether the team has taken its
pozzetto and which card (if any) was taken as a one-card discard pile this
turn.  Verdicts come from :mod:`kernels.engine.legal`, the code the simulation runs:
R21 (own melds only), R23 (one set per rank), R24 (lay-off steps), R25
(option ``lock_two_roles``), R36-R39 (discards, no dead ends), R41 (al-volo
pozzetto), R45-R46 (closing).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.engine import legal as KL

from kernels.engine import placement as KP
from kernels.core import melds as KM
from kernels.table import state as KS
from kernels.table import moves as KSM
from kernels.core.cards import CIDX, N_COUNT

from sim.core import cards as _cards
from sim.core import notation
from sim.table.melds import MeldCheck, best_order, meld_reading

SEAT = 0
TEAM = 0


@dataclass(frozen=True)
class Verdict:
    """``legal`` (bool) and, when illegal, ``reason`` citing the rule ID."""

    legal: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.legal


def _reason(code: int) -> str:
    if code >= KL.MELD_REASON_BASE:
        return KM.REASONS[code - KL.MELD_REASON_BASE]
    return KL.LEGAL_REASONS[code]


class Position:
    """Seat 0's turn after its pickup.

    Parameters
    ----------
    hand : str or array_like of int
        Cards in hand (notation or ids).
    team_melds, opponent_melds : sequence of (str, array_like of int or MeldCheck)
        Valid melds on each table.  Under ``lock_two_roles`` (R25) a meld
        given as cards has the 2s' roles of its canonical reading; a
        :class:`sim.table.melds.MeldCheck` (from ``check`` or ``lay_off``) brings
        the roles it kept.
    pozzetto_taken : bool
        Team 0 has taken its pozzetto (R42).
    single_pile_card : str, int or None
        The card taken this turn as a one-card discard pile (R36). As
        notation it names the first copy of that card in ``hand``.
    pile : str, array_like of int or None
        The discard pile (bottom first) before the pickup, for
        :meth:`can_take_pile`; its cards are not in ``hand``.
    rules : sim.Rules, str or None

    Raises
    ------
    ValueError
        Bad cards, a card id in two places, a third copy of a card (or a
        fifth joker) over all the arguments, an invalid meld, or a
        ``single_pile_card`` not in hand.

    Notes
    -----
    All the card arguments are drawn from one 108-card deck (R1).  A card
    given as text names a card, not a copy: it takes a physical copy that no
    other argument holds, so a text hand may hold the other copy of a card
    in a :class:`sim.table.melds.MeldCheck` or an id array.
    """

    def __init__(self, hand, team_melds=(), opponent_melds=(), pozzetto_taken=False,
                 single_pile_card=None, pile=None, rules=None):
        self.rules = _cards.rules_or_default(rules)
        self.rv = self.rules.to_vector()
        kept = {}                       # (team, meld index) -> natural_two of a MeldCheck
        team_melds = [_plain(m, TEAM, i, kept) for i, m in enumerate(team_melds)]
        opponent_melds = [_plain(m, 1 - TEAM, i, kept) for i, m in enumerate(opponent_melds)]
        texts = [hand, *team_melds, *opponent_melds] + ([] if pile is None else [pile])
        names = (["hand"] + [f"team_melds[{i}]" for i in range(len(team_melds))]
                 + [f"opponent_melds[{i}]" for i in range(len(opponent_melds))]
                 + ([] if pile is None else ["pile"]))
        # one deck: a card given as text takes a copy no other argument holds (R1)
        parsed = _cards.ids_many(list(zip(texts, names)))
        if pile is not None:
            pile_ids, parsed = parsed[-1], parsed[:-1]
        self.hand_ids = parsed[0]
        n_own = len(team_melds)
        self.st = KS.new_state(0, 0)
        st = self.st
        KSM.set_lock_two_roles(st, int(self.rules.lock_two_roles))
        for cid in self.hand_ids:
            KSM.hand_add(st, SEAT, cid)
        for team, melds in ((TEAM, parsed[1:1 + n_own]), (1 - TEAM, parsed[1 + n_own:])):
            for i, m in enumerate(melds):
                cnt = _cards.counts(m)
                kind, *_rest, why = KM.analyze(cnt, 0x1FFF)
                if kind == KM.KIND_NONE:
                    raise ValueError(f"melds: meld {notation.format(m)!r} is not valid: {KM.REASONS[why]}")
                mi = st[9][team]
                st[9][team] += 1
                st[6][team, mi] = cnt
                st[7][team, mi, :len(m)] = m
                KSM.set_meld_info(st, team, mi)
                if self.rules.lock_two_roles and kind == KM.KIND_SEQ and (team, i) in kept:
                    nat = kept[(team, i)]
                    KSM.meld_info_roles(st[6], st[8], team, mi, nat, 0)
                    if st[8][team, mi, KS.MI_KIND] != kind or st[8][team, mi, KS.MI_NAT2] < nat:
                        raise ValueError(f"melds: meld {notation.format(m)!r} cannot keep the "
                                         "roles of its 2s (R25)")
        g = st[10]
        if pile is not None:
            for i, cid in enumerate(pile_ids):
                st[4][i] = cid
            g[KS.G_PILE_SIZE] = len(pile_ids)
        g[KS.G_POZZETTO_TAKEN + TEAM] = int(bool(pozzetto_taken))
        if single_pile_card is not None:
            cid = self._hand_id(single_pile_card, "single_pile_card")
            if self.rules.forbid_rediscard_single_pile:
                g[KS.G_BARRED] = cid

    def _hand_id(self, card, field="card") -> int:
        if isinstance(card, str):
            face = int(notation.parse(card)[0])
            for cid in self.hand_ids:
                if cid % 54 == face % 54 or (CIDX[cid] == 52 and CIDX[face] == 52):
                    return int(cid)
            raise ValueError(f"{field}: {card!r} is not in the hand")
        cid = int(card)
        if cid not in set(int(x) for x in self.hand_ids):
            raise ValueError(f"{field}: card id {cid} is not in the hand")
        return cid

    def _sel(self, cards) -> np.ndarray:
        if isinstance(cards, str):
            sel = np.zeros(N_COUNT, np.int64)
            for cid in notation.parse(cards):
                sel[CIDX[int(cid)]] += 1
            return sel
        return _cards.counts(_cards.ids(cards))

    def can_meld(self, cards) -> Verdict:
        """May these hand cards be laid down as a new meld (R15-R18, R23, R38)?"""
        code, _kind, _nw = KL.can_create(self.st, self.rv, TEAM, SEAT, self._sel(cards))
        return Verdict(code == KL.OK, _reason(code))

    def can_lay_off(self, meld_index: int, cards, team: str = "own") -> Verdict:
        """May these hand cards be laid off on meld ``meld_index`` in one action?

        ``team`` is ``'own'`` or ``'opponent'`` (always illegal, R21).  The
        action is legal iff some order of single-card steps is legal (R24) and
        the hand keeps a legal discard afterwards (R38).
        """
        if team not in ("own", "opponent"):
            raise ValueError(f"team: {team!r} is not allowed; allowed: own, opponent")
        if team == "opponent":
            return Verdict(False, KL.LEGAL_REASONS[KL.BAD_OPPONENT_MELD])
        nm = int(self.st[9][TEAM])
        if not 0 <= meld_index < nm:
            return Verdict(False, KL.LEGAL_REASONS[KL.BAD_NO_MELD])
        sel = self._sel(cards)
        hcnt = self.st[2][SEAT]
        if (sel > hcnt).any():
            return Verdict(False, KL.LEGAL_REASONS[KL.BAD_NOT_IN_HAND])
        mcnt = self.st[6][TEAM, meld_index]
        info = self.st[8][TEAM, meld_index]
        roles = bool(info[KS.MI_LOCK])
        nat = best_order(tuple(int(x) for x in mcnt), tuple(int(x) for x in sel),
                         int(info[KS.MI_NAT2]), roles)
        if nat < 0:
            if roles and best_order(tuple(int(x) for x in mcnt), tuple(int(x) for x in sel),
                                    0, False) >= 0:
                return Verdict(False, KM.REASONS[KM.WHY_ROLES])
            return Verdict(False, KL.LEGAL_REASONS[KL.BAD_LAYOFF])
        final = mcnt + sel
        nlen = int(final.sum())
        nwild = meld_reading(final, nat if roles else None)[1]
        code = KL.after_action_ok(self.st, self.rv, TEAM, SEAT, sel, int(sel.sum()),
                                  meld_index, nlen, nwild)
        return Verdict(code == KL.OK, _reason(code))

    def can_take_pile(self) -> Verdict:
        """May seat 0 take the discard pile ``pile`` instead of drawing (R33, R34)?

        Always legal unless ``take_pile_requires_meld``; then some legal
        meld-phase action must place a card (``pile_meld_source = "any"``) or
        a card of the pile (``"from_pile"``) once the pile is in hand.  The
        position's hand is read as before the pickup.

        Raises
        ------
        ValueError
            The position was built without ``pile``, or with an empty one.
        """
        n = int(self.st[10][KS.G_PILE_SIZE])
        if n == 0:
            raise ValueError("pile: the position has no discard pile (pass pile=...)")
        z = np.zeros(N_COUNT, np.int64)
        ok = KP.can_take_pile(self.st, self.rv, TEAM, SEAT, z.copy(), z.copy(), z.copy())
        return Verdict(bool(ok), "" if ok else
                       "R34: with take_pile_requires_meld the pile may be taken only if a "
                       "card can then be melded or laid off")

    def can_discard(self, card) -> Verdict:
        """May ``card`` be discarded now (R36, R37, R39, R45)?"""
        code, _closes = KL.can_discard(self.st, self.rv, TEAM, SEAT, self._hand_id(card))
        return Verdict(code == KL.OK, _reason(code))

    def discard_closes(self, card) -> bool:
        """Would discarding ``card`` be a legal close (R45)?"""
        code, closes = KL.can_discard(self.st, self.rv, TEAM, SEAT, self._hand_id(card))
        return code == KL.OK and closes == 1

    def legal_discards(self) -> list:
        """Ids of the hand cards that may be discarded now."""
        return [int(c) for c in self.hand_ids
                if KL.can_discard(self.st, self.rv, TEAM, SEAT, int(c))[0] == KL.OK]


def _plain(meld, team: int, i: int, kept: dict):
    """A meld argument as cards; a MeldCheck's kept role goes to ``kept[(team, i)]``."""
    if isinstance(meld, MeldCheck):
        if not meld.valid:
            raise ValueError("melds: a MeldCheck given is not a valid meld")
        kept[(team, i)] = int(meld.natural_two)
        return np.array(meld.cards, np.int64)
    return meld
