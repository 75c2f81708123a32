"""Hand files: a hand as people played it, the deal and every action, checked by the engine
action by action (docs/review.md, "Hands played by people").

A hand file is TOML or JSON (:data:`FORMAT`)::

    format = "burraco-hand/1"
    seat = 0                      # the recording seat (reviewed by default); optional
    dealer = 3                    # R6: seat 0 plays first
    players = ["Anna", "Bruno", "Carla", "Dario"]      # optional names
    [rules]                       # optional, as in a position file (docs/positions.md)
    preset = "default"
    [deal]
    hands = ["...", "...", "...", "..."]               # seat 0 first, 11 cards each (R8)
    pozzetti = ["...", "..."]
    discard = "6♣"                # the up-card
    stock = "..."                 # top card first
    [[turns]]
    seat = 0
    actions = ["draw 4♦", "meld 7♦ 7♦ 2♥", "discard Q♥"]

Actions are written as ``Game.action_text`` writes them and ``Game.action_from_text``
reads them (``draw``, ``take``, ``meld 7♥ 8♥ 9♥``, ``lay off 10♥ on meld 2``,
``discard K♣``); ``draw X`` also checks the card drawn, and the end of the meld phase may
be left out before the discard.  A replay document (``burraco replay --format json``:
its ``deal_ids`` and ``events``) is read as a hand file too.

Cards are checked as the deal is read (each card twice, four jokers, R1; the parts'
sizes, R8), then the hand is dealt with :meth:`sim.Game.from_deck` and every action is
played through :meth:`sim.Game.apply`: the engine is the only judge of legality, and an
illegal action is a one-line ``ValueError`` naming the turn, the seat, the action and
the rule it breaks.  The file must play the hand to its end.

**One seat's record.**  A file whose ``[deal]`` gives ``hand`` (the recording seat's
11 cards) and ``discard`` only, with no ``hands``, ``pozzetti`` or ``stock``, is what
the recording ``seat`` saw (R11): its own draws name their card (``draw 7♦``), another
seat's are ``draw``; every meld, lay-off and discard is named; the turn in which the
recording seat takes its pozzetto names the cards (``pozzetto = "..."``); ``left``
(optional) names the cards each seat held when the hand ended.  :func:`load` places
every card another seat plays into that seat's hand (its dealt cards, its draws, the
pozzetto it took: a card the record has not named yet), deals the cards nobody saw at
random from ``fill_seed`` and plays the deal so made through :meth:`sim.Game.apply` as
above.  Only the recording seat's view is real: :func:`sim.review` reviews it from that
seat's view alone, which does not depend on the cards made up.
"""
from __future__ import annotations

import collections
import dataclasses

import numpy as np

from kernels.core import deal as KD
from kernels.core.cards import CIDX, N_CARDS
from kernels.engine import actions as KA
from kernels.table import state as KS

from sim.core import notation
from sim._util.text import plural
from sim.core.cards import check_int
from sim.play import position_file
from sim.play.actions import action_faces, action_kind
from sim.play.game import Game

__all__ = ["FORMAT", "HandFile", "dump", "from_replay", "load"]

#: the ``format`` of a hand file
FORMAT = "burraco-hand/1"
_TOP = ("format", "title", "seat", "dealer", "players", "rules", "deal", "turns", "left")
_DEAL = ("hands", "pozzetti", "discard", "stock")
_TURN = ("seat", "actions")
#: the ``[deal]`` and the turns of one seat's record
_DEAL_ONE = ("hand", "discard")
_TURN_ONE = ("seat", "actions", "pozzetto")


def _fail(msg: str):
    raise ValueError(f"hand file: {msg}")


@dataclasses.dataclass
class HandFile:
    """A hand file read and checked (:func:`load`).

    Attributes
    ----------
    game : sim.Game
        The hand as dealt, waiting for the first pickup (:meth:`sim.Game.from_deck`).
    actions : list of int
        Every action of the hand in order, as :meth:`sim.Game.apply` takes them (the
        ends of the meld phase included).
    labels : list of str
        Per action, where the file has it (``"turn 3, seat 2, 'discard 7♥'"``).
    seat : int or None
        The recording seat (``seat``), or None.
    players : list of str
        The seats' names (``players``, default ``"seat S"``).
    title : str or None
    end : sim.Game
        The hand played to its end.
    one_seat : bool
        The file is one seat's record (``seat``'s, module docstring): the cards it did
        not see are made up (``game``'s other hands, stock and pozzetti beyond what the
        record names), dealt from ``fill_seed``.
    """

    game: Game
    actions: list
    labels: list
    seat: int | None
    players: list
    title: str | None
    end: Game
    one_seat: bool = False


def _read(src) -> dict:
    try:
        return position_file._read(src)
    except ValueError as e:
        raise ValueError(str(e).replace("position: ", "hand file: ", 1)) from None


def _int(field, v, lo, hi) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        _fail(f"{field}: expected an integer in {lo}..{hi}, got {v!r}")
    return v


def _deck_of_text(deal: dict, rules, n: int) -> np.ndarray:
    """The deck in dealing order of a ``[deal]`` table in card notation."""
    deal = _table("deal", deal, _DEAL)
    for k in _DEAL:
        if k not in deal:
            _fail(f"deal.{k}: missing (required)")
    d = notation._Deck()
    count, sizes = _pozzetti(rules)

    def parse(field, v, size=None):
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = " ".join(v)
        if not isinstance(v, str):
            _fail(f"{field}: expected cards such as \"7♥ 8♥ JK\", got {v!r}")
        try:
            ids = [int(c) for c in d.parse(v, field)]
        except ValueError as e:
            msg = str(e).removeprefix("notation: ")
            _fail(msg if msg.startswith(field + ":") else f"{field}: {msg}")
        if size is not None and len(ids) != size:
            _fail(f"{field}: {plural(len(ids), 'card')}, expected {size} (R8)")
        return ids

    parts = []
    for name, want, sizes_ in (("hands", n, [rules.hand_size] * n), ("pozzetti", count, sizes)):
        v = deal[name]
        if not isinstance(v, list) or len(v) != want:
            _fail(f"deal.{name}: expected a list of {want} card lists, got {v!r}"[:200])
        for i, (x, size) in enumerate(zip(v, sizes_)):
            parts += parse(f"deal.{name}[{i}]", x, size)
    parts += parse("deal.discard", deal["discard"], 1)
    stock = parse("deal.stock", deal["stock"])
    parts += stock
    if len(parts) != 108:
        free = [cid for cid in range(108) if d.owner[cid] is None]
        faces = notation.format(sorted(free, key=lambda c: (CIDX[c], c)))
        _fail(f"deal: the cards do not add up to the 108-card deck (R1, R8): {len(parts)} "
              f"given; missing {faces[:120]}{' ...' if len(faces) > 120 else ''}")
    return np.asarray(parts, np.int64)


def _pozzetti(rules) -> tuple:
    count, *sizes = (int(x) for x in KD.pozzetto_sizes(rules.to_vector()))
    return count, sizes[:count]


def _table(field, v, keys) -> dict:
    if not isinstance(v, dict):
        _fail(f"{field}: expected a table, got {v!r}"[:200])
    for k in v:
        if k not in keys:
            _fail(f"{field}: unknown field {k!r}; allowed: {', '.join(keys)}")
    return v


def _deck_of_ids(deal_ids: dict) -> np.ndarray:
    """The deck in dealing order of a replay document's ``deal_ids``."""
    try:
        ids = (sum(deal_ids["hands"], []) + sum(deal_ids["pozzetti"], [])
               + [deal_ids["discard"]] + list(deal_ids["stock"]))
        deck = np.asarray(ids, np.int64)
    except (KeyError, TypeError, ValueError):
        _fail("deal_ids: expected the replay document's hands, pozzetti, discard and stock "
              "(card ids)")
    if deck.shape != (108,) or not np.array_equal(np.sort(deck), np.arange(108)):
        _fail("deal_ids: not the 108 card ids 0..107, each once (R1)")
    return deck


def _turns_of_events(events, seat: int | None = None) -> list:
    """The ``turns`` of a replay document's events: one per turn, its actions in words;
    with ``seat``, as that seat saw them (one seat's record: another seat's draw is
    ``draw``, the seat's own pozzetto is the turn's ``pozzetto``)."""
    if not isinstance(events, list):
        _fail("events: expected a list of the replay document's events")
    turns = []
    for i, e in enumerate(events):
        if not isinstance(e, dict) or "type" not in e or "seat" not in e:
            _fail(f"events[{i}]: expected an event with its type and seat, got {e!r}"[:200])
        kind = e["type"]
        if kind in ("draw", "take_pile"):
            turns.append({"seat": e["seat"], "actions": []})
        if kind == "pozzetto" and seat is not None and e["seat"] == seat and turns:
            turns[-1]["pozzetto"] = " ".join(e["cards"])
        if kind in ("end", "pozzetto", "pozzetto_to_stock"):
            continue
        if not turns:
            _fail(f"events[{i}]: a {kind!r} event before the first pickup")
        acts = turns[-1]["actions"]
        if kind == "draw":
            acts.append(f"draw {e['card']}" if seat is None or e["seat"] == seat else "draw")
        elif kind == "take_pile":
            acts.append("take")
        elif kind == "meld":
            acts.append("meld " + " ".join(e["cards"]))
        elif kind == "lay_off":
            acts += [f"lay off {c} on meld {e['meld']}" for c in e["cards"]]
        elif kind == "discard":
            acts.append(f"discard {e['card']}")
        else:
            _fail(f"events[{i}]: unknown event type {kind!r}")
    return turns


def load(src, strategies="heuristic", fill_seed: int = 0) -> HandFile:
    """Read a hand file and play it through the engine, action by action.

    Parameters
    ----------
    src : str, os.PathLike or dict
        A ``.toml``/``.json`` file, its text, or the dict (module docstring), or a
        replay document (``sim.replay``'s).
    strategies : str, sequence or dict
        The game's strategies (:meth:`sim.Game.new`): they choose nothing here (every
        action is the file's); the rollouts of a review use their own.
    fill_seed : int
        One seat's record only: the seed of the random order in which the cards the
        record does not name fill the places it does not see (0 .. 2**64-1).  The
        recording seat's view, and so its review, does not depend on it.

    Returns
    -------
    HandFile

    Raises
    ------
    ValueError
        One line starting ``hand file:``: an unreadable or truncated file, an unknown
        field, a card that does not exist or is given too often (R1), a deal that does
        not add up (R8), an action out of turn, a text naming no action, an illegal
        action (the turn, the seat, the action and the rule the engine names), or a file
        that ends before the hand does.  One seat's record also: both forms of
        ``[deal]`` mixed, a card named on another seat's draw or missing on the
        recording seat's (R11), a card another seat plays that would be a third copy
        (R1: both already seen, in the recording seat's hand for one) or that its hand
        cannot hold (every card of it already named: R8, R33, R41), the recording
        seat's pozzetto not named where it takes it (R41), or ``left`` not the cards
        the seats hold at the end.
    """
    d = _read(src)
    replay_doc = "events" in d and ("deal_ids" in d or "deal" in d) and "turns" not in d
    one_seat, stop = False, None
    if replay_doc:
        if "deal_ids" not in d:
            _fail("deal_ids: a replay document needs its deal_ids (burraco replay --format json)")
        _, rules = _rules(d)
        deck = _deck_of_ids(d["deal_ids"])
        dealer = _int("dealer", d.get("dealer"), 0, rules.num_players - 1)
        turns = _turns_of_events(d["events"])
        seat, players, title = None, None, None
    else:
        for k in d:
            if k not in _TOP:
                _fail(f"unknown field {k!r}; allowed: {', '.join(_TOP)}")
        if "format" in d and d["format"] != FORMAT:
            _fail(f"format: expected {FORMAT!r}, got {d['format']!r}")
        _, rules = _rules(d)
        n = rules.num_players
        if "dealer" not in d:
            _fail("dealer: missing (required: the dealer seat, R6; the next seat plays first)")
        dealer = _int("dealer", d["dealer"], 0, n - 1)
        seat = None if d.get("seat") is None else _int("seat", d["seat"], 0, n - 1)
        players = d.get("players")
        if players is not None and (not isinstance(players, list) or len(players) != n
                                    or not all(isinstance(x, str) for x in players)):
            _fail(f"players: expected {n} names, got {players!r}")
        title = d.get("title")
        if title is not None and not isinstance(title, str):
            _fail(f"title: expected a text, got {title!r}")
        if "deal" not in d:
            _fail("deal: missing (required: the hands, pozzetti, up-card and stock)")
        turns = d.get("turns")
        if not isinstance(turns, list) or not turns:
            _fail("turns: missing or empty (required: every turn's seat and actions)")
        one_seat = isinstance(d["deal"], dict) and "hand" in d["deal"]
        if one_seat:
            deck, stop = _one_seat_deck(d, rules, seat, dealer, turns, fill_seed)
        else:
            if "left" in d:
                _fail("left: only in one seat's record (deal.hand); the full deal fixes every "
                      "hand")
            deck = _deck_of_text(d["deal"], rules, n)
    n = rules.num_players
    players = players or [f"seat {s}" for s in range(n)]
    game = Game.from_deck(deck, dealer, rules=rules, strategies=strategies)
    play = game.clone()
    actions, labels = [], []
    keys = _TURN_ONE if one_seat else _TURN
    for t, turn in enumerate(turns, 1):
        if not replay_doc:
            turn = _table(f"turns[{t - 1}]", turn, keys)
            for k in _TURN:
                if k not in turn:
                    _fail(f"turns[{t - 1}].{k}: missing (required)")
        seat_t = _int(f"turns[{t - 1}].seat", turn["seat"], 0, n - 1)
        texts = turn["actions"]
        if not isinstance(texts, list) or not all(isinstance(x, str) for x in texts):
            _fail(f"turn {t}, seat {seat_t}: actions: expected a list of action texts such as "
                  "\"draw\", \"meld 7♥ 8♥ 9♥\", \"discard K♣\"")
        if play.is_over:
            _fail(f"turn {t}, seat {seat_t}: the hand is already over (it ended in turn "
                  f"{play.turn}, {play.result()['end_reason']}); nothing more is played")
        if play.current_seat != seat_t:
            _fail(f"turn {t}, seat {seat_t}: out of turn: seat {play.current_seat} plays turn "
                  f"{t} (R6, R32: play goes round, the seat after the dealer first)")
        if not texts:
            _fail(f"turn {t}, seat {seat_t}: no actions (a turn is a pickup, melds and a "
                  "discard, R32)")
        for i, text in enumerate(texts):
            where = f"turn {t}, seat {seat_t}, {text!r}"
            if stop is not None and stop.at == (t, i) and not stop.inclusive:
                stop.fail()
            if play.is_over:
                _fail(f"{where}: the hand is over (it ended with the action before: a close, "
                      "R45, or the end of the stock, R50)")
            if play.current_seat != seat_t or play.turn != t:
                _fail(f"{where}: the turn is over (after the discard play passes on, R32)")
            a = _action(play, text, where)
            if action_kind(a) == "discard" and play.phase in ("place", "meld"):
                end = KA.A_END_MELD
                _apply(play, end, where + " (ending the meld phase)")
                actions.append(end)
                labels.append(where)
            _apply(play, a, where)
            actions.append(a)
            labels.append(where)
            if stop is not None and stop.at == (t, i):
                stop.fail()
        if not play.is_over and play.current_seat == seat_t and play.turn == t:
            _fail(f"turn {t}, seat {seat_t}: the turn ends without its discard (R32: pick up, "
                  f"meld, discard); the seat is in the {play.phase} phase")
    if not play.is_over:
        _fail(f"the file ends in turn {play.turn} before the hand does (seat "
              f"{play.current_seat} to {play.phase}): truncated? A hand file holds the whole "
              "hand, to its close or the end of the stock (R47-R52)")
    if stop is not None:
        stop.fail()
    return HandFile(game, actions, labels, seat, list(players), title, play, one_seat)


# ---------------------------------------------------------------- one seat's record
@dataclasses.dataclass
class _Stop:
    """Where the placement of one seat's record stopped: before (or, ``inclusive``, after)
    action ``at = (turn, index)``, or after the whole hand (``at`` None).  The engine plays
    the record up to there first, so that an earlier fault is named first; then
    :meth:`fail` raises ``msg`` (None: the engine refuses the action itself)."""

    at: tuple | None
    msg: str | None
    inclusive: bool = False

    def fail(self):
        _fail(self.msg or "the record cannot be played on from here (a card that no hand "
              "can hold, R1, R8)")


class _Placer:
    """Places the cards of one seat's record into a deck (module docstring).

    Deck positions follow :func:`kernels.core.deal`'s dealing order (the hands seat by
    seat, the pozzetti, the up-card, the stock top first).  Each position is ``fixed``
    (a card id the record names there) or free; each other seat holds ``known`` cards
    (count faces taken with the pile, R11) and ``slots``: the free positions in its hand
    (dealt, drawn, the pozzetto it took).  A card another seat plays comes from its known
    cards first, else goes into one of its slots, any one: every slot it holds existed
    before the play, and so before every later play too, so only their number can run
    short.  ``deck`` (:class:`sim.core.notation._Deck`) hands out the copies (R1).
    """

    def __init__(self, rules, seat: int, turns: list, dealer: int):
        self.rules, self.seat, self.turns = rules, seat, turns
        self.words = Game.from_deck(np.arange(N_CARDS), dealer, rules=rules)  # texts, teams
        self.n = n = rules.num_players
        h = rules.hand_size
        self.count_poz, sizes = _pozzetti(rules)
        base = n * h
        self.poz = []
        for size in sizes:
            self.poz.append(list(range(base, base + size)))
            base += size
        self.up = base
        self.stock = collections.deque(range(base + 1, N_CARDS))
        self.fixed = np.full(N_CARDS, -1, np.int64)
        self.deck = notation._Deck()
        self.hcount = [h] * n
        self.slots = [list(range(s * h, (s + 1) * h)) if s != seat else [] for s in range(n)]
        self.known = [collections.Counter() for _ in range(n)]
        self.pile = []
        self.next_poz, self.live_poz = 0, self.count_poz
        self.team = [self.words.team_of(s) for s in range(n)]
        self.taken = set()
        self.barred = None
        self.over = False

    # -- cards named
    def name(self, pos: int, token: str, where: str) -> int:
        """Fix the card ``token`` at deck position ``pos``; its count face."""
        cid = self.deck.take(token, where)
        self.fixed[pos] = cid
        return int(CIDX[cid])

    # -- the walk
    def run(self, deal: dict, left) -> _Stop | None:
        s0, h = self.seat, self.rules.hand_size
        cards = _split(deal["hand"], "deal.hand")
        if len(cards) != h:
            _fail(f"deal.hand: {plural(len(cards), 'card')}, expected {h} (R8)")
        for i, tok in enumerate(cards):
            self.known[s0][self._name(s0 * h + i, tok, "deal.hand")] += 1
        up = _split(deal["discard"], "deal.discard")
        if len(up) != 1:
            _fail(f"deal.discard: {plural(len(up), 'card')}, expected 1 (R8)")
        self.pile.append(self._name(self.up, up[0], "deal.discard"))
        for t, turn in enumerate(self.turns, 1):
            stop = self._turn(t, turn)
            if stop is not None:
                return stop
        if left is not None:
            return self._left(left)
        return None

    def _name(self, pos, token, where):
        try:
            return self.name(pos, token, where)
        except ValueError as e:
            msg = str(e).removeprefix("notation: ")
            _fail(msg if msg.startswith(where + ":") else f"{where}: {msg}")

    def _turn(self, t: int, turn) -> _Stop | None:
        if self.over or not isinstance(turn, dict) or not isinstance(turn.get("actions"), list) \
                or not turn["actions"] or not isinstance(turn.get("seat"), int) \
                or not 0 <= turn["seat"] < self.n:
            return _Stop((t, 0), None, True)       # the engine's checks name it
        s, s0 = turn["seat"], self.seat
        if "pozzetto" in turn and s != s0:
            return _Stop((t, 0), f"turn {t}, seat {s}: pozzetto: seat {s0} records this hand "
                         f"and cannot see seat {s}'s pozzetto (R11, R41); leave it out")
        self.barred = None
        took_poz = False
        texts = turn["actions"]
        for i, text in enumerate(texts):
            where = f"turn {t}, seat {s}, {text!r}"
            at = (t, i)
            if not isinstance(text, str):
                return _Stop(at, None, True)
            words = text.split()
            named = None
            if len(words) == 2 and words[0].lower() == "draw":
                a, named = KA.A_DRAW, words[1]
            elif len(words) > 1 and words[0].lower() == "take" \
                    and text.lower() not in _TAKE_WORDS:
                a, named = KA.A_TAKE, " ".join(words[1:])
            else:
                try:
                    a = self.words.action_from_text(text)
                except ValueError:
                    return _Stop(at, None, True)
            kind = action_kind(a)
            if kind == "draw":
                if not self.stock:
                    return _Stop(at, None, True)
                pos = self.stock.popleft()
                if s == s0:
                    if named is None:
                        return _Stop(at, f"{where}: the recording seat's draw names the card it "
                                     f"drew, e.g. 'draw 7♦' (R11: seat {s0} sees its own hand)")
                    try:
                        self.known[s0][self.name(pos, named, where)] += 1
                    except ValueError as e:
                        return _Stop(at, str(e).removeprefix("notation: "))
                else:
                    if named is not None:
                        return _Stop(at, f"{where}: seat {s0} records this hand and cannot see "
                                     f"the card seat {s} draws; write 'draw' (R11: the stock "
                                     "and the other hands are face down)")
                    self.slots[s].append(pos)
                self.hcount[s] += 1
                self._stock_end()
            elif kind == "take":
                if named is not None:
                    try:
                        _check_pile([int(c) for c in self.pile], named, where)
                    except ValueError as e:
                        return _Stop(at, str(e).removeprefix("hand file: "))
                pile, self.pile = self.pile, []
                if len(pile) == 1 and self.rules.forbid_rediscard_single_pile:
                    self.barred = pile[0]           # R36: that card, not its other copy
                self.known[s].update(pile)
                self.hcount[s] += len(pile)
            elif kind in ("meld", "lay_off", "discard"):
                for c in action_faces(a):
                    stop = self._play(s, c, kind, where, at)
                    if stop is not None:
                        return stop
                    self.hcount[s] -= 1
                    if kind == "discard":
                        self.pile.append(c)
                if self.hcount[s] == 0:
                    if self.team[s] in self.taken:
                        if kind != "discard":
                            return _Stop(at, None, True)       # R38: the engine names it
                        self.over = True                       # a close (R45)
                    else:
                        took_poz = True
                        stop = self._pozzetto(s, t, turn, where, at)
                        if stop is not None:
                            return stop
        if "pozzetto" in turn and not took_poz:
            return _Stop((t, len(texts) - 1), f"turn {t}, seat {s}: pozzetto: seat {s} takes no "
                         "pozzetto in this turn (R41: it is taken when the hand empties)", True)
        return None

    def _play(self, s, c, kind, where, at) -> _Stop | None:
        """Seat ``s`` plays a card of count face ``c``."""
        known = self.known[s]
        spare = known[c] - (1 if kind == "discard" and self.barred == c else 0)
        if spare > 0:
            known[c] -= 1
            if kind != "discard" and self.barred == c:
                self.barred = None              # the engine melds the barred copy first
            return None
        if s == self.seat:
            return _Stop(at, None, True)        # not in its hand: the engine names it
        face = notation.format_card(c)
        if not self.slots[s]:
            return _Stop(at, f"{where}: seat {s} cannot hold {face}: each card of its "
                         f"{self.hcount[s]}-card hand is named already (its dealt cards, draws, "
                         "piles and pozzetto: R8, R33, R41)")
        try:
            self.name(self.pick(self.slots[s]), face, where)
        except ValueError as e:
            return _Stop(at, str(e).removeprefix("notation: ").replace(
                "deal.hand", f"seat {self.seat}'s hand (deal.hand)"))
        return None

    @staticmethod
    def pick(slots: list) -> int:
        """The slot (deck position) a card played goes into, taken out of ``slots`` (list
        of int, mutated): the last one; any would do (class docstring)."""
        return slots.pop()

    def _pozzetto(self, s, t, turn, where, at) -> _Stop | None:
        """Seat ``s`` takes the next pozzetto (R40, R41)."""
        p = self.next_poz
        if p >= self.live_poz:
            return _Stop(at, None, True)
        self.next_poz += 1
        self.taken.add(self.team[s])
        pos = self.poz[p]
        self.hcount[s] += len(pos)
        if s != self.seat:
            self.slots[s].extend(pos)
            return None
        if "pozzetto" not in turn:
            return _Stop(at, f"{where}: seat {s} takes its pozzetto here (R41); name its "
                         f"{len(pos)} cards in this turn's pozzetto = \"...\"", True)
        field = f"turn {t}, seat {s}, pozzetto"
        try:
            cards = _split(turn["pozzetto"], field)
        except ValueError as e:
            return _Stop(at, str(e).removeprefix("hand file: "), True)
        if len(cards) != len(pos):
            return _Stop(at, f"{field}: {plural(len(cards), 'card')}, expected {len(pos)} (R8)",
                         True)
        for q, tok in zip(pos, cards):
            try:
                self.known[s][self.name(q, tok, field)] += 1
            except ValueError as e:
                return _Stop(at, str(e).removeprefix("notation: "), True)
        return None

    def _stock_end(self):
        """R53: at the stock's reserve the last untaken pozzetto becomes the stock."""
        r = self.rules
        if r.untaken_pozzetto_as_stock and len(self.stock) <= r.stock_reserve \
                and self.next_poz < self.live_poz:
            self.live_poz -= 1
            self.stock.extendleft(reversed(self.poz[self.live_poz]))

    def _left(self, left) -> _Stop | None:
        """``left``: the cards each seat holds when the hand ends (R55, R57)."""
        n = self.n
        end = _Stop(None, None)
        if not isinstance(left, list) or len(left) != n:
            end.msg = f"left: expected {n} card lists, seat 0 first, got {left!r}"[:200]
            return end
        for s in range(n):
            field = f"left[{s}]"
            try:
                cards = _split(left[s], field)
            except ValueError as e:
                end.msg = str(e).removeprefix("hand file: ")
                return end
            if len(cards) != self.hcount[s]:
                end.msg = (f"{field}: {plural(len(cards), 'card')}, but seat {s} ends the "
                           f"hand holding {self.hcount[s]}")
                return end
            for tok in cards:
                try:
                    c = int(CIDX[notation.parse(tok)[0]])
                except ValueError as e:
                    end.msg = f"{field}: {str(e).removeprefix('notation: ')}"
                    return end
                stop = self._play(s, c, "left", field, None)
                if stop is not None:
                    if stop.msg is None:
                        stop.msg = (f"{field}: seat {s} does not hold "
                                    f"{notation.format_card(c)} at the end")
                    return _Stop(None, stop.msg)
        return None

    def full_deck(self, fill_seed: int) -> np.ndarray:
        """The deck: the fixed positions, the other cards in a random order from
        ``fill_seed`` over the free positions (int64[108], a permutation of 0..107)."""
        deck = self.fixed.copy()
        free = np.flatnonzero(deck < 0)
        ids = np.asarray([c for c in range(N_CARDS) if self.deck.owner[c] is None], np.int64)
        rng = np.random.default_rng(int(fill_seed))
        deck[free] = rng.permutation(ids)
        return deck


def _split(v, field: str) -> list:
    """The card tokens of a card list (text or list of texts); checked as cards."""
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        v = " ".join(v)
    if not isinstance(v, str):
        _fail(f"{field}: expected cards such as \"7♥ 8♥ JK\", got {v!r}"[:200])
    tokens = [x for x in notation._SEP.split(v) if x]
    for tok in tokens:
        try:
            notation.parse(tok)
        except ValueError as e:
            _fail(f"{field}: {str(e).removeprefix('notation: ')}")
    return tokens


def _one_seat_deck(d: dict, rules, seat, dealer, turns, fill_seed) -> tuple:
    """``(deck, stop)`` of one seat's record: the deck made by :class:`_Placer` and where
    its placement stopped (None: every card placed)."""
    deal = _table("deal", d["deal"], _DEAL_ONE + _DEAL)
    mixed = [k for k in ("hands", "pozzetti", "stock") if k in deal]
    if mixed:
        _fail(f"deal: both forms mixed: deal.hand is one seat's record (its hand and the "
              f"up-card only), deal.{mixed[0]} belongs to the full deal; give one or the other")
    if seat is None:
        _fail("seat: missing (required in one seat's record: the seat whose hand deal.hand is)")
    for k in _DEAL_ONE:
        if k not in deal:
            _fail(f"deal.{k}: missing (required)")
    if rules.num_players == 3 and rules.three_player_mode == "solo_18":
        _fail("rules: one seat's record is not read with three_player_mode = 'solo_18' (R62: "
              "the pair's hands merge); give the full deal")
    from_seed = check_int("fill_seed", fill_seed, 0, 2**64 - 1)
    placer = _Placer(rules, seat, turns, dealer)
    stop = placer.run(deal, d.get("left"))
    return placer.full_deck(from_seed), stop


def _rules(d):
    try:
        return position_file._rules_of(d)
    except ValueError as e:
        raise ValueError(str(e).replace("position: ", "hand file: ", 1)) from None


def _action(game: Game, text: str, where: str) -> int:
    """The action id of ``text`` at ``game``'s decision; ``draw X`` checks the card."""
    words = text.split()
    if len(words) == 2 and words[0].lower() == "draw":
        try:
            face = int(notation.parse(words[1])[0])
        except ValueError as e:
            _fail(f"{where}: {str(e).removeprefix('notation: ')}")
        top_card = _stock_top(game)
        if top_card is not None and CIDX[top_card] != CIDX[face]:
            _fail(f"{where}: the stock's top card is {notation.format_card(top_card)}, not "
                  f"{notation.format_card(face)} (the deal's stock, top card first)")
        return KA.A_DRAW
    if len(words) > 1 and words[0].lower() == "take" and text.lower() not in _TAKE_WORDS:
        _check_pile(_pile_faces(game), " ".join(words[1:]), where)
        return KA.A_TAKE
    try:
        return game.action_from_text(text)
    except ValueError as e:
        _fail(f"{where}: {str(e).removeprefix('action text: ')}")


#: the words of taking the pile without its cards (Game.action_from_text)
_TAKE_WORDS = ("take", "take the pile", "take the discard pile")


def _pile_faces(game: Game) -> list:
    """The faces of the discard pile's cards, bottom first."""
    g = game._g
    return [int(CIDX[c]) for c in game.state.pile[:int(g[KS.G_PILE_SIZE])]]


def _check_pile(pile: list, named: str, where: str) -> None:
    """``take C C ...``: the cards named must be the discard pile's (any order; R33)."""
    try:
        faces = [int(CIDX[c]) for c in notation.parse(named)]
    except ValueError as e:
        _fail(f"{where}: {str(e).removeprefix('notation: ')}")
    if sorted(faces) != sorted(pile):
        shown = " ".join(notation.format_card(f) for f in pile) or "nothing"
        _fail(f"{where}: the discard pile holds {shown}, not "
              f"{' '.join(notation.format_card(f) for f in faces)} (R33: the whole pile is "
              "taken; 'take' alone names it)")


def _stock_top(game: Game):
    g = game._g
    top, end = int(g[KS.G_STOCK_TOP]), int(g[KS.G_STOCK_END])
    return int(game.state.stock[top]) if top < end else None


def _apply(game: Game, a: int, where: str) -> None:
    try:
        game.apply(a)
    except ValueError as e:
        msg = str(e)
        reason = msg.split(" is illegal: ", 1)[1] if " is illegal: " in msg else msg
        _fail(f"{where}: illegal in the {game.phase} phase: {reason}")


# ---------------------------------------------------------------- writing one
def from_replay(doc: dict, seat: int | None = None, players=None, title: str | None = None,
                one_seat: bool = False) -> dict:
    """A hand file (dict) of a replay document (``sim.replay``'s, a dealt hand): its
    rules, dealer, deal in card notation and every turn's actions in words.

    Parameters
    ----------
    doc : dict
        The replay document.
    seat : int, optional
        The recording seat to write.
    players : list of str, optional
        The seats' names (default: each seat's strategy spec).
    title : str, optional
    one_seat : bool
        Write ``seat``'s record instead of the full deal (module docstring): its hand and
        the up-card, its draws' cards, every card played, its pozzetto, and ``left``
        (the cards each seat held at the end, for the count, R55).

    Raises
    ------
    ValueError
        The document has no deal (a hand played on from a sampled world), or
        ``one_seat`` without ``seat``.
    """
    if "deal" not in doc:
        _fail("from_replay: the document has no deal (a hand played on from a sampled world)")
    if one_seat and seat is None:
        _fail("from_replay: one_seat needs the recording seat")
    rules = position_file._rules_out(position_file.rules_table(
        position_file._rules_of({"rules": doc["rules"]})[1]), json_null=False)
    deal = doc["deal"]
    out = {"format": FORMAT}
    if title is not None:
        out["title"] = title
    if seat is not None:
        out["seat"] = int(seat)
    out["dealer"] = int(doc["dealer"])
    out["players"] = list(players) if players is not None else [
        str(s) for s in doc["strategies"][:len(deal["hands"])]]
    out["rules"] = rules
    if one_seat:
        st = load(doc).end.state
        out["left"] = [notation.format([int(c) for c in st.hand[s, :st.hn[s]]])
                       for s in range(len(deal["hands"]))]
        out["deal"] = {"hand": " ".join(deal["hands"][seat]), "discard": deal["discard"]}
        out["turns"] = _turns_of_events(doc["events"], int(seat))
        return out
    out["deal"] = {"hands": [" ".join(h) for h in deal["hands"]],
                   "pozzetti": [" ".join(p) for p in deal["pozzetti"]],
                   "discard": deal["discard"], "stock": " ".join(deal["stock"])}
    out["turns"] = _turns_of_events(doc["events"])
    return out


def dump(hand: dict, path=None) -> str:
    """A hand file's TOML text (one ``[[turns]]`` table per turn), optionally written to
    ``path`` (UTF-8; not atomically: a helper for examples and tests)."""
    deal = hand["deal"]
    one_seat = "hand" in deal
    lines = ["# A Burraco hand as one seat saw it: its hand, its draws and every card played "
             "(docs/review.md, hand files)" if one_seat else
             "# A Burraco hand as it was played: the deal and every action "
             "(docs/review.md, hand files)"]
    for k in ("format", "title", "seat", "dealer", "players"):
        if k in hand:
            lines.append(f"{k} = {position_file._toml_value(hand[k])}")
    if "left" in hand:
        lines += ["left = [      # the cards each seat held at the end, seat 0 first"]
        lines += [f"  {position_file._toml_value(h)}," for h in hand["left"]]
        lines += ["]"]
    lines += ["", "[rules]"] + position_file._toml_table(hand.get("rules", {}))
    if one_seat:
        lines += ["", "[deal]", f"hand = {position_file._toml_value(deal['hand'])}",
                  f"discard = {position_file._toml_value(deal['discard'])}"]
    else:
        lines += ["", "[deal]", "hands = ["]
        lines += [f"  {position_file._toml_value(h)}," for h in deal["hands"]]
        lines += ["]", "pozzetti = ["]
        lines += [f"  {position_file._toml_value(p)}," for p in deal["pozzetti"]]
        lines += ["]", f"discard = {position_file._toml_value(deal['discard'])}",
                  f"stock = {position_file._toml_value(deal['stock'])}"]
    for t, turn in enumerate(hand["turns"], 1):
        lines += ["", f"[[turns]]   # turn {t}", f"seat = {turn['seat']}",
                  f"actions = {position_file._toml_value(turn['actions'])}"]
        if "pozzetto" in turn:
            lines.append(f"pozzetto = {position_file._toml_value(turn['pozzetto'])}")
    text = "\n".join(lines) + "\n"
    if path is not None:
        import pathlib
        pathlib.Path(path).write_text(text, encoding="utf-8")
    return text
