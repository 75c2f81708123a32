"""Whole matches (RULES.md R6, R60, R63): the deals, the rotating dealer, the running
totals and the end of a match."""
from __future__ import annotations

from .options import DEFAULT_RULES


def check_match(match: dict, hands: list, rules: dict | None = None,
                max_hands: int = 200) -> list:
    """Re-check one match of a match run; returns a list of violation texts.

    ``match``: the match-table row (``match``, ``winner`` (None if capped),
    ``hands``, ``final_t0``, ``final_t1``, ``first_dealer``, ``reason``);
    ``hands``: its hand rows in order (``hand_in_match``, ``hand_index``,
    ``dealer``, ``first_player``, ``score_t0``, ``score_t1``, ``total_t0``,
    ``total_t1``; with 3 players also ``score_t2``, ``total_t2``, ``final_t2``
    and the hand's ``individual`` flag).  Checks the deals (hand k is deal
    ``m * 65536 + k``), the rotating deal (R6), the running totals and the end
    of the match (R60: it ends after the first hand where a total reaches
    ``target_score`` and no other total equals it; the highest total wins;
    ``max_hands`` hands end it without a winner).  With 3 players (R63) the
    target is ``three_player_target``, and a ``solo_18`` match plays its hands
    ``individual_3x11`` from the hand after a total reached
    ``three_player_switch_at``.
    """
    r = dict(DEFAULT_RULES)
    r.update(rules or {})
    n = int(r["num_players"])
    target = int(r["three_player_target"] if n == 3 else r["target_score"])
    sides = 3 if n == 3 else 2
    out = []
    m = match["match"]
    if len(hands) != match["hands"]:
        out.append(f"[R60] match {m}: {len(hands)} hand rows, the match table says "
                   f"{match['hands']}")
    t = [0] * sides
    ended_at = None
    for k, h in enumerate(hands):
        if n == 3:
            want_ind = (r["three_player_mode"] == "individual_3x11"
                        or max(t) >= int(r["three_player_switch_at"]))
            if bool(h["individual"]) != want_ind:
                out.append(f"[R63] match {m} hand {k}: individual {h['individual']!r}, expected "
                           f"{want_ind} (totals before the hand {t})")
        if h["hand_in_match"] != k or h["hand_index"] != m * 65536 + k:
            out.append(f"[DOC] match {m}: row {k} is hand_in_match {h['hand_in_match']}, deal "
                       f"{h['hand_index']}; expected {k}, {m * 65536 + k}")
        want_dealer = (match["first_dealer"] + k) % n
        if h["dealer"] != want_dealer or h["first_player"] != (want_dealer + 1) % n:
            out.append(f"[R6] match {m} hand {k}: dealer {h['dealer']} / first player "
                       f"{h['first_player']}, the deal rotates to dealer {want_dealer}")
        if ended_at is not None:
            out.append(f"[R60] match {m}: hand {k} was played although the match ended after "
                       f"hand {ended_at}")
        for j in range(sides):
            t[j] += h[f"score_t{j}"]
        got = [h[f"total_t{j}"] for j in range(sides)]
        if got != t:
            out.append(f"[R60] match {m} hand {k}: totals {got}, the sum of the hand scores is "
                       f"{t}")
        if ended_at is None and max(t) >= target and t.count(max(t)) == 1:
            ended_at = k
    if hands and hands[0]["dealer"] != match["first_dealer"]:
        out.append(f"[R6] match {m}: first_dealer {match['first_dealer']}, hand 0 was dealt by "
                   f"{hands[0]['dealer']}")
    if ended_at is not None:
        want = {"winner": t.index(max(t)), "reason": "target"}
    elif len(hands) >= max_hands:
        want = {"winner": None, "reason": "cap"}
    else:
        want = {"winner": None, "reason": None}
        out.append(f"[R60] match {m}: the hands stop after {len(hands)} with totals "
                   f"{t[0]}/{t[1]}: neither at the target {target} with different totals, "
                   f"nor at the cap {max_hands}")
    want.update({f"final_t{j}": t[j] for j in range(sides)})
    for key, val in want.items():
        got = match[key]
        if key == "winner" and got is not None:
            got = int(got)
        if got != val:
            out.append(f"[R60] match {m}: {key} {got!r}, the referee computes {val!r}")
    return out
