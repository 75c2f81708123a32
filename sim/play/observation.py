"""What one seat may know of a hand (R11): :class:`Observation`, the observation
tensor's layout (:data:`TENSOR_FIELDS`), and the methods of :class:`sim.play.game.Game`
that build them (:class:`Observing`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from kernels.core import melds as KM
from kernels.engine import observe as KO
from kernels.table import state as KS
from kernels.core.cards import BURRACO_LEN, CVALUE

from sim.core.cards import check_int
from sim.play.actions import _CARD_FACE, _CARD_TEXT, _FACE_TEXT, PHASES, _meld_cards


@dataclass(frozen=True)
class Observation:
    """What one seat may know of a hand (R11), at one moment.

    Cards are given as card texts (``"10♥"``, ``"JK"``) in the ``*`` fields
    and as count faces (0..51 ``13*suit + rank``, 52 a joker) in ``*_faces``.

    Attributes
    ----------
    seat, team : int
        The observing seat and the side it plays for.
    phase : str
        One of :data:`PHASES`; ``current_seat`` is the seat to move.
    hand : tuple of str
        The seat's own hand, in hand order.
    melds : tuple of dict
        Every meld on the table: ``{"team", "index", "cards", "faces", "kind",
        "wilds"}`` (``index`` is the meld's number on its side's table, the one
        lay-off actions name; ``cards`` and ``faces`` in reading order).
    pile : tuple of str
        The whole discard pile, bottom first (R11).
    hand_sizes : tuple of int
        Cards held by each seat (4 entries; 0 for an empty seat).
    known : tuple of tuple of str
        For each seat, the cards every player knows it holds: taken with the
        pile and not melded or discarded since (R11).
    stock_size : int
        Cards in the stock (cards).
    pozzetti_left : int
        Pozzetti not yet taken (R40).
    pozzetto_taken : tuple of bool
        Per side (3 entries), whether it has taken its pozzetto (R42).
    barred : str or None
        The card taken as a one-card pile this turn that may not be discarded (R36).
    turn : int
        Player turns started so far (turns).
    team_of : tuple of int
        The side each seat plays for.
    meld_points : tuple of int
        Per side (3 entries), the value of the cards on its table (points, R2).
    burracos : tuple of tuple of int
        Per side, ``(clean, dirty)`` melds of 7 or more cards on its table (R27).
    match_totals : tuple of int or None
        The match totals before this hand, when the game is a match hand
        (:attr:`Game.match_totals`), else None.
    """
    seat: int
    team: int
    phase: str
    current_seat: int
    turn: int
    hand: tuple
    hand_faces: tuple
    melds: tuple
    pile: tuple
    pile_faces: tuple
    hand_sizes: tuple
    known: tuple
    known_faces: tuple
    stock_size: int
    pozzetti_left: int
    pozzetto_taken: tuple
    barred: str | None
    team_of: tuple
    num_players: int = 4
    meld_points: tuple = ()
    burracos: tuple = ()
    match_totals: tuple | None = None
    extra: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        """The observation as plain JSON-ready values."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "extra"}
        return json.loads(json.dumps(d, default=list))


# observation tensor layout: (name, length); float32, documented in docs/step_api.md and
# filled by the kernel kernels.engine.observe.observation_tensor
TENSOR_FIELDS = KO.TENSOR_FIELDS


TENSOR_SIZE = KO.TENSOR_SIZE


class Observing:
    """What a seat of a :class:`sim.play.game.Game` sees (a base class of ``Game``)."""

    # ------------------------------------------------------------ what a seat sees
    def _view(self, seat):
        """The checked seat, the state, its counters and the number of players."""
        seat = check_int("seat", seat, 0, self.rules.num_players - 1)
        st = self.state
        return seat, st, st.g, self.rules.num_players

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know by R11, and nothing else (see :class:`Observation`).

        Raises
        ------
        ValueError
            ``seat`` is not a seat of this game.
        """
        seat, st, _, n = self._view(seat)
        g = st.g.tolist()
        hand_ids = st.hand[seat, :int(st.hn[seat])].tolist()
        melds = []
        nm = st.nm.tolist()
        for t in range(KS.NTEAMS):
            if not nm[t]:
                continue
            info = st.minfo[t, :nm[t]].tolist()
            for mi in range(nm[t]):
                nat = info[mi][KS.MI_NAT2] if self.rules.lock_two_roles else None
                texts, faces = _meld_cards(st.mcnt[t, mi], nat)
                melds.append({"team": t, "index": mi, "cards": list(texts), "faces": list(faces),
                              "kind": "set" if info[mi][KS.MI_KIND] == KM.KIND_SET
                              else "sequence",
                              "wilds": info[mi][KS.MI_NWILD]})
        pile_ids = st.pile[:g[KS.G_PILE_SIZE]].tolist()
        known_faces = [(), (), (), ()]
        rows, cols = np.nonzero(st.known[:4])
        if rows.size:
            counts = st.known[rows, cols].tolist()
            per = [[], [], [], []]
            for r, f, k in zip(rows.tolist(), cols.tolist(), counts):
                per[r] += [f] * k
            known_faces = [tuple(x) for x in per]
        known_faces = tuple(known_faces)
        barred = g[KS.G_BARRED]
        phase = g[KS.G_PHASE]
        return Observation(
            seat=seat, team=g[KS.G_TEAM + seat], phase=PHASES[phase],
            current_seat=g[KS.G_SEAT], turn=g[KS.G_TURN],
            hand=tuple(map(_CARD_TEXT.__getitem__, hand_ids)),
            hand_faces=tuple(map(_CARD_FACE.__getitem__, hand_ids)),
            melds=tuple(melds),
            pile=tuple(map(_CARD_TEXT.__getitem__, pile_ids)),
            pile_faces=tuple(map(_CARD_FACE.__getitem__, pile_ids)),
            hand_sizes=tuple(st.hn[:4].tolist()),
            known=tuple(tuple(map(_FACE_TEXT.__getitem__, fs)) for fs in known_faces),
            known_faces=known_faces,
            stock_size=g[KS.G_STOCK_END] - g[KS.G_STOCK_TOP],
            pozzetti_left=g[KS.G_N_POZZETTI] - g[KS.G_NEXT_POZZETTO],
            pozzetto_taken=tuple(bool(g[KS.G_POZZETTO_TAKEN + t]) for t in range(KS.NTEAMS)),
            barred=_CARD_TEXT[barred] if barred >= 0 else None,
            team_of=tuple(g[KS.G_TEAM:KS.G_TEAM + 4]),
            num_players=n,
            meld_points=tuple(int((st.mcnt[t].sum(axis=0) * CVALUE).sum())
                              for t in range(KS.NTEAMS)),
            burracos=tuple(
                (int(((st.minfo[t, :st.nm[t], KS.MI_LEN] >= BURRACO_LEN)
                      & (st.minfo[t, :st.nm[t], KS.MI_NWILD] == 0)).sum()),
                 int(((st.minfo[t, :st.nm[t], KS.MI_LEN] >= BURRACO_LEN)
                      & (st.minfo[t, :st.nm[t], KS.MI_NWILD] > 0)).sum()))
                for t in range(KS.NTEAMS)),
            match_totals=None if self.match_totals is None else tuple(self.match_totals),
        )

    def observation_tensor(self, seat: int) -> np.ndarray:
        """:meth:`observation` as a fixed-size ``float32[TENSOR_SIZE]`` vector
        (layout :data:`TENSOR_FIELDS`, documented in docs/step_api.md).

        Raises
        ------
        ValueError
            ``seat`` is not a seat of this game.
        """
        seat = check_int("seat", seat, 0, self.rules.num_players - 1)
        out = np.empty(TENSOR_SIZE, np.float32)
        KO.observation_tensor(self._work, seat, self.rules.num_players, out)
        return out
