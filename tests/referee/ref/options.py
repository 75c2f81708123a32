"""The rules options the referee reads from a document, their defaults, and the
end reasons (RULES.md R47, R50-R52) with their rule IDs."""
from __future__ import annotations

from .cards import RANK_TEXT


DEFAULT_RULES = {
    "num_players": 4, "hand_size": 11, "pozzetto_size": 11, "three_player_mode": "solo_18",
    "set_ranks": [t for t in RANK_TEXT if t != "2"], "allow_duplicate_set_rank": False,
    "lock_two_roles": False, "semi_clean_bonus": None, "semi_clean_rule": "adjacent_run",
    "extra_burraco_classes": False, "take_pile_requires_meld": False,
    "forbid_rediscard_single_pile": True, "require_clean_burraco_to_close": False,
    "stock_reserve": 2, "stock_end_mode": "finish_turn", "stall_turn_limit": 12,
    "max_turns_per_hand": 400, "untaken_pozzetto_as_stock": False, "clean_bonus": 200,
    "dirty_bonus": 100, "closing_bonus": 100, "pozzetto_penalty": 100, "target_score": 2005,
    "pile_close_no_bonus": False, "pile_meld_source": "any",
    "three_player_pozzetto_a_size": 18, "three_player_pair_share": "full",
    "three_player_switch_at": 1000, "three_player_target": 2005,
}

#: options this referee (and the engine) does not implement: a doc setting one is reported
UNSUPPORTED = {
    "num_players": lambda v: v not in (2, 3, 4),
}

#: the per-team result keys (suffix _t0, _t1, _t2)
TEAM_KEYS = ("score", "meld_points", "burraco_bonus", "closing_bonus", "hand_points",
             "pozzetto_penalty", "clean_burracos", "dirty_burracos", "semi_clean_burracos",
             "melds", "closed", "pozzetto_taken", "pozzetto_turn", "pozzetto_mode",
             "pile_pickups", "pile_cards")

#: the decisions a ``start`` block may stop at (the engine's phases but "over")
START_PHASES = ("pickup", "place", "meld", "discard")

END_RULE = {"closed": "R47", "stock_exhausted": "R50", "stall": "R51", "turn_cap": "R52"}
END_PREFERENCE = ("closed", "stock_exhausted", "stall", "turn_cap")
