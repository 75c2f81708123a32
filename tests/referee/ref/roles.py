"""Option ``lock_two_roles`` (RULES.md R25): the stored role of every 2 on the table.

With the option, every 2 in a meld has a stored role, "natural" or "wild", given when it
entered (the canonical reading of the meld right after that step, R20) and kept for the
rest of the hand.  Roles are tracked per card id (the two copies of a 2 may differ: one
natural, one wild); jokers are always wild and not tracked.
"""
from __future__ import annotations

from .cards import card_text, face_of, faces_text, fold, is_joker, is_two, suit_of
from .melds import ALL_SET_RANKS, MeldInfo, analyze


def role_readings(ids, roles, set_ranks=ALL_SET_RANKS) -> list:
    """R18 readings of the meld ``ids`` that keep every stored role in ``roles``
    (``{id: "natural" | "wild"}``; a 2 missing from it may take either role).

    Returns a list of ``(Reading, {id of every 2: its role in that reading})``: one entry
    per reading and choice of which copy of the suit's 2 is the natural one.
    """
    ids = list(ids)
    twos = [c for c in ids if is_two(fold(face_of(c)))]
    out = []
    for rd in analyze(ids, set_ranks).readings:
        if rd.kind == "sequence" and rd.nat2:
            natural = [c for c in twos if suit_of(face_of(c)) == rd.suit]
        else:
            natural = [None]
        for nat_id in natural:
            role = {c: "natural" if c == nat_id else "wild" for c in twos}
            if all(roles.get(c, role[c]) == role[c] for c in twos):
                out.append((rd, role))
    return out


def locked_info(ids, roles, set_ranks=ALL_SET_RANKS) -> tuple:
    """The meld read with its stored roles: ``(MeldInfo, roles)``.

    The MeldInfo's readings are those keeping the roles and its canonical readings the
    fewest-wild ones among them (R20 applied to what the roles allow); the roles returned
    are those of the first canonical reading, so a 2 without a stored role gets the role
    it takes on entering (R25).  Invalid (rule R25) when no reading keeps the roles.
    """
    kept = role_readings(ids, roles, set_ranks)
    if not kept:
        info = analyze(ids, set_ranks)
        if not info.valid:
            return info, dict(roles)
        return MeldInfo(False, None, (), (), "R25", "lock_two_roles: no reading of "
                        f"{faces_text(fold(face_of(c)) for c in ids)} keeps the roles its 2s "
                        "entered with"), dict(roles)
    best = min(rd.nwild for rd, _ in kept)
    canon = [(rd, role) for rd, role in kept if rd.nwild == best]
    info = MeldInfo(True, canon[0][0].kind, tuple(rd for rd, _ in kept),
                    tuple(rd for rd, _ in canon))
    return info, dict(canon[0][1])


def layoff_step_locked(meld_ids, roles, card, set_ranks=ALL_SET_RANKS):
    """R24 single step under ``lock_two_roles`` (R25).

    Returns ``(legal, rule, reason, new roles)``.  (a) the new multiset is a valid meld of
    the same kind; (b) judged on the meld read with its stored roles: with a wild, no joker,
    and a 2 only of the sequence's suit entering as the natural 2; (R25) some reading of
    the new multiset keeps every stored role.  The added 2 takes its role from the
    fewest-wild reading that keeps them.
    """
    meld_ids = list(meld_ids)
    old, _ = locked_info(meld_ids, roles, set_ranks)
    if not old.valid:
        return False, old.rule or "R24", "the meld on the table is not valid", dict(roles)
    new_ids = meld_ids + [card]
    plain = analyze(new_ids, set_ranks)
    c = fold(face_of(card))
    text = faces_text(fold(face_of(x)) for x in new_ids)
    if not plain.valid:
        return False, "R24", f"R24(a): {text} is not a valid meld", dict(roles)
    if plain.kind != old.kind:
        return False, "R24", f"R24(a): the meld would change kind ({old.kind} -> " \
                             f"{plain.kind})", dict(roles)
    kept = role_readings(new_ids, roles, set_ranks)
    if old.nwild >= 1:
        if is_joker(c):
            return False, "R24", "R24(b): the meld already has a wild; a joker is refused", \
                dict(roles)
        if is_two(c):
            if old.kind != "sequence" or suit_of(c) != old.suit:
                return False, "R24", "R24(b): the meld already has a wild; a 2 of another " \
                                     "suit is refused", dict(roles)
            kept = [(rd, role) for rd, role in kept if role[card] == "natural"]
            if not kept:
                return False, "R24", "R24(b): the added 2 cannot enter as the natural 2 " \
                                     "without changing a stored role", dict(roles)
    if not kept:
        return False, "R25", f"lock_two_roles: no reading of {text} keeps the role each 2 " \
                             "entered with (a natural 2 stays natural, a wild 2 stays wild)", \
            dict(roles)
    best = min(rd.nwild for rd, _ in kept)
    role = next(role for rd, role in kept if rd.nwild == best)
    return True, "", "", role


def layoff_action_locked(meld_ids, roles, cards, set_ranks=ALL_SET_RANKS):
    """R24 + R25: a lay-off of ``cards`` (ids) under ``lock_two_roles``.

    Legal iff the cards can be added one at a time in some order, each step legal
    (:func:`layoff_step_locked`).  When several orders are legal their roles may differ
    (a 2 laid before or after the card that lets it sit in slot 2); the action then keeps
    the order that leaves the most natural 2s (the 2 goes where it is natural when some
    order lets it).  Returns ``(legal, rule, reason, new roles)``.
    """
    cards = list(cards)
    if not cards:
        return False, "R24", "R24: a lay-off adds at least one card", dict(roles)
    memo = {}
    first = []

    def dfs(ids, role, rest):
        if not rest:
            return role
        key = (tuple(sorted(ids)), tuple(sorted(role.items())), tuple(sorted(rest)))
        if key in memo:
            return memo[key]
        best = None
        for c in rest:
            ok, rule, why, new_role = layoff_step_locked(ids, role, c, set_ranks)
            if not ok:
                if not first:
                    first.append((rule, f"{card_text(c)}: {why}"))
                continue
            got = dfs(ids + [c], new_role, [x for x in rest if x != c])
            if got is not None and (best is None or _naturals(got) > _naturals(best)):
                best = got
        memo[key] = best
        return best

    got = dfs(list(meld_ids), dict(roles), cards)
    if got is not None:
        return True, "", "", got
    rule, why = first[0] if first else ("R24", "no legal order")
    added = faces_text(fold(face_of(c)) for c in cards)
    meld = faces_text(fold(face_of(c)) for c in meld_ids)
    return False, rule, f"no order of single steps adds {added} to {meld} ({why})", dict(roles)


def _naturals(role: dict) -> int:
    return sum(1 for r in role.values() if r == "natural")
