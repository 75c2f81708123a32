"""Matches: the end of a match (RULES.md R60) and playing blocks of whole matches.

Hand scores accumulate over a match.  After each hand, when at least one
team's total has reached ``target_score`` (2005 by default: "more than 2000"
with scores in multiples of 5), the match ends and the higher total wins; if
the totals are equal, further hands are played until they differ.

Deals of a match.  Hand ``k`` (0-based) of match ``m`` is the deal with hand
index ``m * MATCH_STRIDE + k`` of the run seed, so a match's hands depend
neither on the shard layout nor on the other matches, and every match hand
of a run directory can be replayed with ``sim.replay(run=DIR, hand_index=i)``
(which takes the dealer and, with 3 players, the ``individual`` flag from the
hand's row).  Hand 0
is dealt by the deal's own random dealer (R6: the first dealer is drawn);
hand ``k`` by seat ``(d0 + k) % num_players``, where ``d0`` is hand 0's
dealer (R6: the deal passes to the next seat after each hand).

:func:`play_block` plays the matches ``[start, stop)`` of a run: round ``k``
of every unfinished match in one parallel kernel call, running totals with
NumPy, the end of each match by R60.  A match still going after
``max_hands`` hands ends unfinished ("cap"): random strategies can score
negative hand after hand and never reach the target.  ``burraco simulate
--matches`` and :func:`sim.simulate_matches` run matches in shards.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.core import layout as L

from ._cards import rules_or_default

#: Deal indices reserved per match: hand ``k`` of match ``m`` is deal ``m * MATCH_STRIDE + k``.
#: A power of two far above any real match length; ``max_hands_per_match`` stays below it.
MATCH_STRIDE = 65536
#: Default safety cap on the hands of one match.
DEFAULT_MAX_HANDS = 200
#: Largest allowed cap (``hand_in_match`` is an int16 column).
MAX_HANDS_LIMIT = 32767
#: Why a match ended, index = the ``capped`` flag: reached the target (R60), or hit the cap.
REASONS = ("target", "cap")

_SCORE = tuple(L.N_HAND_COLS + t * L.N_TEAM_COLS + L.TC_SCORE for t in range(3))


def sides(rules) -> int:
    """Match totals kept: one per team, or one per player with 3 players (R62, R63)."""
    return 3 if rules_or_default(rules).num_players == 3 else 2


def match_target(rules) -> int:
    """The total that ends a match: ``target_score`` (R60), ``three_player_target``
    with 3 players (R63)."""
    r = rules_or_default(rules)
    return r.three_player_target if r.num_players == 3 else r.target_score


def winners(totals, target: int) -> np.ndarray:
    """R60 for many matches at once: the winning team, or -1 while the match goes on.

    Parameters
    ----------
    totals : array_like
        ``int[n, S]`` match totals after a hand (points): of team 0 and team 1
        (S = 2), or of players 0, 1 and 2 (S = 3, R63).
    target : int
        ``target_score`` (inclusive threshold, points).

    Returns
    -------
    numpy.ndarray
        ``int8[n]``: the side with the highest total when that total has
        reached ``target`` and no other side has it too (equal totals play
        on), else -1.
    """
    t = np.asarray(totals, np.int64)
    t = t.reshape(-1, t.shape[-1] if t.ndim > 1 else 2)
    top = t.max(axis=1)
    done = (top >= target) & ((t == top[:, None]).sum(axis=1) == 1)
    return np.where(done, t.argmax(axis=1), -1).astype(np.int8)


def winner(before, hand, rules=None) -> int:
    """The team that wins the match after a hand, or -1 if the match goes on (R60).

    Parameters
    ----------
    before : sequence of 2 int
        Each team's match total before the hand (points).
    hand : sequence of 2 int
        Each team's score in the hand (points, may be negative).
    rules : Rules, str, dict or None
        Rule set (its ``target_score``); default ``Rules()``.

    Returns
    -------
    int
        0 or 1, or -1 when neither total has reached the target or the
        totals are equal.

    Raises
    ------
    ValueError
        ``before`` or ``hand`` is not two integers.
    """
    for name, pair in (("before", before), ("hand", hand)):
        if (not hasattr(pair, "__len__") or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            raise ValueError(f"{name} must be two integers (team 0, team 1), got {pair!r}")
    target = rules_or_default(rules).target_score
    return int(winners([[before[0] + hand[0], before[1] + hand[1]]], target)[0])


def deal_index(match, hand_in_match):
    """Hand index (deal) of hand ``hand_in_match`` of match ``match``: ``match * MATCH_STRIDE +
    hand_in_match`` (ints or arrays)."""
    return np.asarray(match, np.int64) * MATCH_STRIDE + np.asarray(hand_in_match, np.int64)


@dataclass
class MatchBlock:
    """The matches ``[start, stop)`` of a run and their hands.

    Hand arrays (one row per hand played, ordered by match, then hand):
    ``records`` (``int32[h, N_REC]`` kernel records), ``hand_index``
    (``int64[h]`` deal index), ``match`` (``int64[h]``), ``hand_in_match``
    (``int64[h]``, 0-based), ``totals`` (``int64[h, S]`` running totals of
    team 0 and 1, or of the 3 players, after the hand) and ``individual``
    (``bool[h]``: with 3 players, the hand was played ``individual_3x11``).

    Match arrays (one row per match, ``n = stop - start``): ``winner``
    (``int8[n]``, 0 or 1 (or 2 with 3 players), -1 if capped), ``hands``
    (``int64[n]`` hands played), ``final`` (``int64[n, S]`` final totals), ``first_dealer`` (``int8[n]``,
    hand 0's dealer) and ``capped`` (``bool[n]``: ended by the cap, not by R60).
    """

    start: int
    stop: int
    records: np.ndarray
    hand_index: np.ndarray
    match: np.ndarray
    hand_in_match: np.ndarray
    totals: np.ndarray
    individual: np.ndarray
    winner: np.ndarray
    hands: np.ndarray
    final: np.ndarray
    first_dealer: np.ndarray
    capped: np.ndarray


def play_block(seed: int, start: int, stop: int, rules, kinds: np.ndarray, params: np.ndarray,
               debug: bool = False, max_hands: int = DEFAULT_MAX_HANDS, on_progress=None,
               chunk: int = 16_384) -> MatchBlock:
    """Play matches ``start .. stop-1`` of the run seeded ``seed`` to their end.

    Round ``k`` plays hand ``k`` of every unfinished match in one call of
    ``kernels.play.game.simulate_hands`` (in calls of at most ``chunk`` hands, so
    that Ctrl-C answers between them); then the running totals are updated
    and the matches that R60 ends are retired.

    Parameters
    ----------
    seed : int
        Run seed.
    start, stop : int
        Match indices ``[start, stop)``.
    rules : Rules
        Rule set (``num_players`` for the dealer rotation, ``target_score``;
        with 3 players ``three_player_target``, and in ``solo_18`` the switch
        to ``individual_3x11`` hands once a player's total reaches
        ``three_player_switch_at``, R63).
    kinds, params : numpy.ndarray
        Policy kinds ``int64[4]`` and parameters ``float64[4, N_PARAMS]``.
    debug : bool
        Run the kernels' consistency checks (``error`` column).
    max_hands : int
        Hands after which an unfinished match ends as capped.
    on_progress : callable, optional
        Called with the number of matches that ended, after each round.
    chunk : int
        Most hands per kernel call.

    Returns
    -------
    MatchBlock
    """
    from kernels.play.game import simulate_hands

    rules = rules_or_default(rules)
    rv = rules.to_vector()
    players, target, nsides = rules.num_players, match_target(rules), sides(rules)
    # R63: a 3-player match in solo_18 switches to individual_3x11 hands once a total
    # reaches three_player_switch_at
    switching = players == 3 and rules.three_player_mode == "solo_18"
    rv_individual = rules.replace(three_player_mode="individual_3x11").to_vector() \
        if players == 3 else rv
    n = stop - start
    running = np.zeros((n, nsides), np.int64)
    individual_ = np.full(n, players == 3 and not switching)
    first_dealer = np.full(n, -1, np.int64)
    winner_ = np.full(n, -1, np.int8)
    hands = np.full(n, max_hands, np.int64)
    active = np.arange(n, dtype=np.int64)
    parts = []                      # (local match numbers, round, records, totals) per round
    for k in range(max_hands):
        if active.size == 0:
            break
        idx = deal_index(start + active, k)
        dealer = (np.full(active.size, -1, np.int64) if k == 0
                  else (first_dealer[active] + k) % players)
        rec = np.zeros((active.size, L.N_REC), np.int32)
        indiv = individual_[active]
        for mode_rv, rows in ((rv, np.flatnonzero(~indiv)), (rv_individual, np.flatnonzero(indiv))):
            for c in range(0, rows.size, chunk):
                r = rows[c:c + chunk]
                out = np.zeros((r.size, L.N_REC), np.int32)
                simulate_hands(np.uint64(seed), idx[r], dealer[r], mode_rv, kinds, params,
                               np.int64(debug), out)
                rec[r] = out
        if k == 0:
            first_dealer[:] = rec[:, L.REC_DEALER]
        running[active] += rec[:, _SCORE[:nsides]]
        totals = running[active]
        parts.append((active, k, rec, totals, indiv))
        if switching:
            individual_[active] |= totals.max(axis=1) >= rules.three_player_switch_at
        won = winners(totals, target)
        over = won >= 0
        winner_[active[over]] = won[over]
        hands[active[over]] = k + 1
        active = active[~over]
        if on_progress is not None:
            on_progress(int(over.sum()))
    if on_progress is not None and active.size:
        on_progress(int(active.size))
    capped = np.zeros(n, bool)
    capped[active] = True

    local = np.concatenate([p[0] for p in parts])
    k = np.concatenate([np.full(p[0].size, p[1], np.int64) for p in parts])
    order = np.lexsort((k, local))
    match = start + local[order]
    return MatchBlock(
        start=start, stop=stop,
        records=np.concatenate([p[2] for p in parts])[order],
        hand_index=deal_index(match, k[order]), match=match, hand_in_match=k[order],
        totals=np.concatenate([p[3] for p in parts])[order],
        individual=np.concatenate([p[4] for p in parts])[order],
        winner=winner_, hands=hands, final=running,
        first_dealer=first_dealer.astype(np.int8), capped=capped)
