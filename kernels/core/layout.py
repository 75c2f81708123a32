"""Integer layouts shared by the kernels and the Python driver.

* the **rules vector** (``int64[N_RULES]``): RULES.md section 14 options, one
  slot each, indexed by the ``RV_*`` constants made from the table of the
  options (:data:`kernels.core.options.OPTIONS`);
* the **per-hand record** (``int32[N_REC]``): one row per simulated hand,
  columns named by :data:`REC_COLUMNS` (DESIGN.md section 5);
* the **policy table**: a policy kind per seat (``POLICY_*``) and a float
  parameter row per seat (``float64[N_PARAMS]``).
"""
from .options import OPTIONS as _OPTIONS
from .slots import check_block, check_family, write_block
from .params import HEURISTIC_PARAMS as _HEURISTIC_PARAMS
from .params import N_PARAMS  # noqa: F401  (the length of a parameter row, used with layout)
from .params import hp_name as _hp_name

# ---------------------------------------------------------------- rules vector
# one slot per option of kernels.core.options.OPTIONS (the table of the options:
# slot, encoding, default, allowed values, rule ID): RV_NUM_PLAYERS, RV_HAND_SIZE,
# RV_SET_RANKS_MASK (bit r set <=> rank r, 0 = ace .. 12 = king, may form a set),
# RV_SEMI_CLEAN_BONUS (0 = off), RV_SEMI_CLEAN_RULE (index into the option's choices) ...
# -- RV: generated from its table; check or write it again with python -m kernels.core.layout
RV_NUM_PLAYERS = 0
RV_HAND_SIZE = 1
RV_POZZETTO_SIZE = 2
RV_SET_RANKS_MASK = 3
RV_ALLOW_DUPLICATE_SET_RANK = 4
RV_LOCK_TWO_ROLES = 5
RV_SEMI_CLEAN_BONUS = 6
RV_SEMI_CLEAN_RULE = 7
RV_EXTRA_BURRACO_CLASSES = 8
RV_TAKE_PILE_REQUIRES_MELD = 9
RV_FORBID_REDISCARD_SINGLE_PILE = 10
RV_REQUIRE_CLEAN_BURRACO_TO_CLOSE = 11
RV_STOCK_RESERVE = 12
RV_STOCK_END_MODE = 13
RV_STALL_TURN_LIMIT = 14
RV_MAX_TURNS_PER_HAND = 15
RV_UNTAKEN_POZZETTO_AS_STOCK = 16
RV_CLEAN_BONUS = 17
RV_DIRTY_BONUS = 18
RV_CLOSING_BONUS = 19
RV_POZZETTO_PENALTY = 20
RV_TARGET_SCORE = 21
RV_PILE_CLOSE_NO_BONUS = 22
RV_PILE_MELD_SOURCE = 23
RV_THREE_PLAYER_MODE = 24
RV_THREE_PLAYER_POZZETTO_A_SIZE = 25
RV_THREE_PLAYER_PAIR_SHARE = 26
RV_THREE_PLAYER_SWITCH_AT = 27
RV_THREE_PLAYER_TARGET = 28
# -- end of RV
N_RULES = len(_OPTIONS)

# ---------------------------------------------------------------- end reasons
END_CLOSED = 0
END_STOCK_EXHAUSTED = 1
END_STALL = 2
END_TURN_CAP = 3
END_REASONS = ("closed", "stock_exhausted", "stall", "turn_cap")

# pozzetto modes (record column pozzetto_mode_t*)
POZ_NONE = 0
POZ_DIRECT = 1      # al volo, during the meld phase (R41)
POZ_DISCARD = 2     # con lo scarto (R41)
POZZETTO_MODES = ("none", "direct", "discard")

# ---------------------------------------------------------------- policies
POLICY_HEURISTIC = 0
POLICY_RANDOM = 1
POLICY_UNIFORM = 2   # uniform over the legal actions (kernels.engine.actions.legal_actions)
# any other kind: the address of a registered chooser's callback (kernels.strategies.api)
# N_PARAMS: length of one seat's parameter row (float64[N_PARAMS]).  The heuristic's
# parameter slots HP_PILE_SIZE_WEIGHT, HP_PILE_THRESHOLD ... come from the table of its
# parameters (kernels.core.params.HEURISTIC_PARAMS: slot, default, limits, tuning step, doc).
# -- HP: generated from its table; check or write it again with python -m kernels.core.layout
HP_PILE_SIZE_WEIGHT = 0
HP_PILE_THRESHOLD = 1
HP_USE_WILD_TO_MELD = 2
HP_WILD_LAYOFF_MIN_LEN = 3
HP_DISCARD_W_PAIR = 4
HP_DISCARD_W_NEIGHBOR = 5
HP_DISCARD_W_DANGER = 6
HP_DISCARD_W_POINTS = 7
HP_DISCARD_W_WILD = 8
HP_PILE_W_WILD = 9
HP_PILE_MIN_SIZE = 10
HP_PILE_MIN_STOCK = 11
HP_PILE_AVOID_OPP_2_OR_5 = 12
HP_CLOSE_MIN_BURRACOS = 13
HP_SET_BIAS = 14
HP_DISCARD_W_MIDDLE = 15
HP_MELD_DELAY_ROUNDS = 16
# -- end of HP

# ---------------------------------------------------------------- record
_HAND_COLS = (
    "dealer",            # seat 0..3 (R6)
    "first_player",      # seat 0..3, dealer + 1
    "end_reason",        # index into END_REASONS
    "turns",             # player turns played (turns)
    "closing_seat",      # seat that closed, -1 if none
    "stock_left",        # cards left in the stock at the end (cards)
    "pile_left",         # cards left in the discard pile at the end (cards)
    "error",             # 0; non-zero only if a debug check failed
)
_TEAM_COLS = (
    "score",             # hand score (points), R55
    "meld_points",       # value of melded cards (points), R2
    "burraco_bonus",     # sum of burraco bonuses (points), R56
    "closing_bonus",     # closing bonus (points), R47
    "hand_points",       # value of cards left in the team's hands, positive (points), R55/R57
    "pozzetto_penalty",  # penalty for never taking the pozzetto, positive (points), R55
    "clean_burracos",    # count of clean burracos (melds)
    "dirty_burracos",    # count of dirty (incl. semi-clean) burracos (melds)
    "semi_clean_burracos",  # of which semi-clean when the option is on (melds), R29
    "melds",             # number of melds on the team's table
    "closed",            # 1 if this team closed (bool)
    "pozzetto_taken",    # 1 if the team took its pozzetto (bool), R42
    "pozzetto_turn",     # turn number (1-based) it was taken, -1 if never (turns)
    "pozzetto_mode",     # index into POZZETTO_MODES
    "pile_pickups",      # discard-pile pickups by the team (count)
    "pile_cards",        # cards picked up from the discard pile (cards)
)
# With 3 players group t{s} is player s (R62, R63): its side's figures, the score
# being what the player is credited; t2 and solo_seat are NULL32 otherwise.
REC_COLUMNS = _HAND_COLS + tuple(
    f"{c}_t{t}" for t in (0, 1) for c in _TEAM_COLS
) + tuple(f"{c}_t2" for c in _TEAM_COLS) + (
    "solo_seat",         # 3 players, solo_18: seat that took pozzetto A and played alone, -1
)
N_REC = len(REC_COLUMNS)
NULL32 = -2**31      # record value of a column that does not apply (stored as null)
N_TEAM_COLS = len(_TEAM_COLS)
N_HAND_COLS = len(_HAND_COLS)

REC_DEALER = 0
REC_FIRST_PLAYER = 1
REC_END_REASON = 2
REC_TURNS = 3
REC_CLOSING_SEAT = 4
REC_STOCK_LEFT = 5
REC_PILE_LEFT = 6
REC_ERROR = 7
REC_SOLO_SEAT = N_HAND_COLS + 3 * 16
# team column offsets: column index = N_HAND_COLS + team*N_TEAM_COLS + TC_*
TC_SCORE = 0
TC_MELD_POINTS = 1
TC_BURRACO_BONUS = 2
TC_CLOSING_BONUS = 3
TC_HAND_POINTS = 4
TC_POZZETTO_PENALTY = 5
TC_CLEAN = 6
TC_DIRTY = 7
TC_SEMI_CLEAN = 8
TC_MELDS = 9
TC_CLOSED = 10
TC_POZ_TAKEN = 11
TC_POZ_TURN = 12
TC_POZ_MODE = 13
TC_PILE_PICKUPS = 14
TC_PILE_CARDS = 15
assert N_TEAM_COLS == 16 and N_HAND_COLS == 8 and REC_COLUMNS[REC_SOLO_SEAT] == "solo_seat"
check_family("TC", {k: v for k, v in globals().items() if k.startswith("TC_")}, N_TEAM_COLS)
check_family("REC", {k: v for k, v in globals().items() if k.startswith("REC_")
                     and k != "REC_COLUMNS"}, N_REC)

# debug error codes (REC_ERROR), bit flags
ERR_CONSERVATION = 1   # a card id was missing or in two places
ERR_INVALID_MELD = 2   # a table meld failed re-validation
ERR_NO_DISCARD = 4     # no legal discard existed at DISCARD (R38 violated)
ERR_SCORE_PARITY = 8   # a score was not a multiple of 5
ERR_LOG_OVERFLOW = 16  # the event log was too small (replay only)


#: the slot constants written out above, by family: name -> index, from their tables
GENERATED = {
    "RV": {_o.slot_name: _o.slot for _o in _OPTIONS},
    "HP": {_hp_name(_p): _p.slot for _p in _HEURISTIC_PARAMS},
}
WRITE_COMMAND = "python -m kernels.core.layout"
if __name__ == "__main__":          # write the blocks again from the tables
    for _family, _slots in GENERATED.items():
        print(f"{__file__}: {_family}", "written" if write_block(__file__, _family, _slots,
                                                                   WRITE_COMMAND) else "unchanged")
else:
    for _family, _slots in GENERATED.items():
        check_block(__file__, _family, _slots, WRITE_COMMAND)
