"""The end of a match (RULES.md R60).

Hand scores accumulate over a match.  After each hand, when at least one
team's total has reached ``target_score`` (2005 by default: "more than 2000"
with scores in multiples of 5), the match ends and the higher total wins; if
the totals are equal, further hands are played until they differ.

Playing whole matches (``burraco simulate --matches``) is the work of the
rule-sets issue; this module holds the rule itself.
"""
from __future__ import annotations

from ._cards import rules_or_default


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
    totals = [before[0] + hand[0], before[1] + hand[1]]
    if max(totals) < target or totals[0] == totals[1]:
        return -1
    return 0 if totals[0] > totals[1] else 1
