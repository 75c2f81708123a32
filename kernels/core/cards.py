"""Card encoding tables (RULES.md R1, R2, R4).

A physical card is an int ``id`` in ``0..107``: ``id = 54*copy + face`` with
``copy`` 0 or 1.  ``face`` ``0..51`` is ``13*suit + rank`` (rank 0 = ace,
1 = two, ..., 12 = king; suit 0 = clubs, 1 = diamonds, 2 = hearts,
3 = spades).  Faces 52 and 53 are the jokers.  ``-1`` means "no card".

Meld search works on *counts* indexed by a 53-entry "count face": faces
0..51 as above and index 52 for any joker (both joker faces fold to 52).
"""
import numpy as np

N_CARDS = 108
N_FACES = 54          # faces of one pack (52 + 2 jokers)
N_COUNT = 53          # count-array length: 52 natural faces + 1 joker bucket
JOKER = 52            # count index (and face) of a joker
NO_CARD = -1
BURRACO_LEN = 7       # cards in a burraco (R28): a meld of 7+ cards; also the semi-clean run (R29)

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
ACE, TWO, KING = 0, 1, 12

# card id -> face (0..53), count index (0..52), rank (0..12, -1 joker),
# suit (0..3, -1 joker), point value (R2), is-joker, is-two
FACE = np.empty(N_CARDS, np.int64)
CIDX = np.empty(N_CARDS, np.int64)
RANK = np.empty(N_CARDS, np.int64)
SUIT = np.empty(N_CARDS, np.int64)
VALUE = np.empty(N_CARDS, np.int64)
for _id in range(N_CARDS):
    _f = _id % N_FACES
    FACE[_id] = _f
    if _f >= 52:
        CIDX[_id] = JOKER
        RANK[_id] = -1
        SUIT[_id] = -1
        VALUE[_id] = 30
    else:
        CIDX[_id] = _f
        RANK[_id] = _f % 13
        SUIT[_id] = _f // 13
        _r = _f % 13
        if _r == TWO:
            VALUE[_id] = 20
        elif _r == ACE:
            VALUE[_id] = 15
        elif _r >= 7:          # 8, 9, 10, J, Q, K
            VALUE[_id] = 10
        else:                  # 3..7
            VALUE[_id] = 5

# count index (0..52) -> point value
CVALUE = np.empty(N_COUNT, np.int64)
for _c in range(52):
    CVALUE[_c] = VALUE[_c]
CVALUE[JOKER] = 30

PACK_TOTAL = int(VALUE.sum())   # R3: 1080
assert PACK_TOTAL == 1080
