"""A hand's work buffer: one ``int64`` array that holds everything a hand in
play needs, at fixed word offsets computed here, in one place.

The batch loop allocates one buffer per parallel chunk and reuses it for its
hands; ``sim.Game`` owns one per game (copying it clones the game).  Kernels
that are called once per decision take the buffer, not the state tuple:
Numba passes every array of a tuple as separate machine arguments (about a
hundred words for the state), while the buffer is one array, and
:func:`views` rebuilds the views inside the callee from constant offsets at
no cost.

Layout (``W_*`` word offsets, in order)::

    W_STATE   the state (kernels.table.state.state_of), STATE_WORDS words
    W_RNG     the hand's generator state, uint64[4]
    W_DECK    the shuffled deck, int64[108]
    W_SEL, W_SCRATCH, W_NEED   int64[53] work arrays
    W_VALS    float64[53] work array
    W_HC2     int64[2, 53] work array (a side's hands at scoring)
    W_RV      the rules vector, int64[N_RULES]
    W_PARAMS  strategy parameters, float64[4, N_PARAMS] (a row per seat)
    W_KINDS   policy kind per seat, int64[4]
    W_DEBUG   1 to run the debug checks after every action
    W_EV_ROWS, W_EV_CARDS   the event log's size (rows, card slots)
    W_CAND    int64[CAND_ROWS, 4] candidate list (random strategy)
    W_DBG     int64[161] debug-check work array
    W_LEGAL   int64[N_ACTIONS]: a list of legal action ids (kernels.strategies.api.legal)
    EV_AT     the event log: W_EV_ROWS rows of EV_COLS words, then the card slots
"""
from numba import njit

from kernels.core import layout as L
from kernels.core.cards import N_CARDS, N_COUNT
from kernels.table.state import EV_COLS, S_G, STATE_WORDS, state_of, view_f64, view_i64, view_u64

CAND_ROWS = 2048
N_LEGAL = 16308          # kernels.engine.actions.N_ACTIONS (checked there): a list of legal ids


def _offsets(fields):
    """Consecutive offsets of ``(name, words)`` fields from word 0, and the end."""
    at = 0
    out = {}
    for name, words in fields:
        assert words > 0, name
        out[name] = at
        at += words
    return out, at


_W, EV_AT = _offsets((
    ("STATE", STATE_WORDS), ("RNG", 4), ("DECK", N_CARDS), ("SEL", N_COUNT),
    ("SCRATCH", N_COUNT), ("NEED", N_COUNT), ("VALS", N_COUNT), ("HC2", 2 * N_COUNT),
    ("RV", L.N_RULES), ("PARAMS", 4 * L.N_PARAMS), ("KINDS", 4), ("DEBUG", 1),
    ("EV_ROWS", 1), ("EV_CARDS", 1), ("CAND", CAND_ROWS * 4), ("DBG", N_CARDS + N_COUNT),
    ("LEGAL", N_LEGAL),
))
W_STATE = _W["STATE"]
W_G = W_STATE + S_G                      # the state's counters g
W_RNG = _W["RNG"]
W_DECK = _W["DECK"]
W_SEL = _W["SEL"]
W_SCRATCH = _W["SCRATCH"]
W_NEED = _W["NEED"]
W_VALS = _W["VALS"]
W_HC2 = _W["HC2"]
W_RV = _W["RV"]
W_PARAMS = _W["PARAMS"]
W_KINDS = _W["KINDS"]
W_DEBUG = _W["DEBUG"]
W_EV_ROWS = _W["EV_ROWS"]
W_EV_CARDS = _W["EV_CARDS"]
W_CAND = _W["CAND"]
W_DBG = _W["DBG"]
W_LEGAL = _W["LEGAL"]
assert W_STATE == 0 and EV_AT == W_LEGAL + N_LEGAL


@njit(cache=True, _nrt=False)
def work_words(ev_rows, ev_cards):
    """Length (int64 words) of a work buffer with an event log of ``ev_rows``
    rows and ``ev_cards`` card slots (0, 0: no log)."""
    return EV_AT + ev_rows * EV_COLS + ev_cards


@njit(cache=True, inline="always")
def views(work):
    """The buffer's parts as borrowed views (no copy, no reference count):
    ``(st, rv, params, kinds, rng, deck, sel, scratch, need, vals, hc2, cand, dbg)``.

    ``work`` must outlive the views.  Nothing is reset (see
    :func:`kernels.table.state.state_views` for a fresh table).
    """
    st = state_of(work, EV_AT, work[W_EV_ROWS], work[W_EV_CARDS])
    return (st, view_i64(work, W_RV, L.N_RULES), view_f64(work, W_PARAMS, (4, L.N_PARAMS)),
            view_i64(work, W_KINDS, 4), view_u64(work, W_RNG, 4),
            view_i64(work, W_DECK, N_CARDS), view_i64(work, W_SEL, N_COUNT),
            view_i64(work, W_SCRATCH, N_COUNT), view_i64(work, W_NEED, N_COUNT),
            view_f64(work, W_VALS, N_COUNT), view_i64(work, W_HC2, (2, N_COUNT)),
            view_i64(work, W_CAND, (CAND_ROWS, 4)), view_i64(work, W_DBG, N_CARDS + N_COUNT))


#: the fields that are only work arrays: overwritten by every kernel that uses them, read
#: by none before it writes them; the game state is the rest of the buffer
SCRATCH_FIELDS = ("SEL", "SCRATCH", "NEED", "VALS", "HC2", "CAND", "DBG", "LEGAL")


def canonical(work):
    """A copy of ``work`` (int64 buffer) with its work arrays (:data:`SCRATCH_FIELDS`)
    zeroed: two buffers of the same game state are then equal word for word."""
    out = work.copy()
    ends = dict((n, a + w) for n, a, w in layout_table())
    for name in SCRATCH_FIELDS:
        out[_W[name]:ends[name]] = 0
    return out


def layout_table():
    """The buffer's fields as ``[(name, first word, words)]`` (for docs and tests)."""
    names = sorted(_W, key=_W.get)
    ends = [_W[n] for n in names[1:]] + [EV_AT]
    return [(n, _W[n], e - _W[n]) for n, e in zip(names, ends)]

