"""The deal of each hand as a table, and hands played from modified deals (issue 14).

:func:`deals` gives one row per hand of a run with what the deal put where:
the wilds, jokers and twos of every hand, pozzetto and the stock, the pairs
and longest natural run of every hand, the up-card and the dealer.  The
hands are dealt by the kernel code that deals them in :func:`sim.simulate`
(:mod:`kernels.table.deal_features`), so row ``i`` describes the hand whose record
has ``hand_index == i`` in a hand run with the same seed and rules (the
dealer of a match hand rotates instead, R6).  Select hands with
``DataFrame.query`` and play only those with ``sim.simulate(...,
hand_index=...)`` or ``burraco simulate --where EXPR`` (docs/deals.md).

:func:`decks` gives the shuffled decks themselves, and :func:`play_decks`
plays hands from decks the caller modified (say, the jokers moved to
another seat) with each hand's own dealer and random stream: the paired
counterpart of a deal with one condition changed.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from kernels.core import cards as C
from kernels.table import deal_features as KF

from . import notation
from ._cards import check_int, rules_or_default

#: Hands dealt per kernel call (and per ``DataFrame.query`` in :func:`select`).
CHUNK = 1_000_000

_SEAT = {
    "jokers": ("int8", "cards", "jokers in seat {s}'s hand (R12)"),
    "twos": ("int8", "cards", "twos in seat {s}'s hand, any suit (wild or natural, R12)"),
    "wilds": ("int8", "cards", "wild cards in seat {s}'s hand: jokers + twos (R12)"),
    "pairs": ("int8", "faces",
              "natural faces (twos included) of which seat {s} holds both copies"),
    "run_len": ("int8", "cards",
                "longest natural run in seat {s}'s hand: consecutive ranks of one suit, "
                "the ace low or high (R13), one card per rank, no wild; 14 needs both aces"),
    "points": ("int16", "points", "card points of seat {s}'s hand (R2)"),
}
_POZ = {
    "jokers": ("int8", "cards", "jokers in pozzetto {k} (R8; with 3 players in solo_18 "
                                "pozzetto 0 is pozzetto A of 18 cards, R62)"),
    "twos": ("int8", "cards", "twos in pozzetto {k}"),
    "wilds": ("int8", "cards", "wild cards in pozzetto {k}: jokers + twos"),
}
_STOCK = {
    "stock_jokers": ("int8", "cards", "jokers in the stock"),
    "stock_twos": ("int8", "cards", "twos in the stock"),
    "stock_wilds": ("int8", "cards", "wild cards in the stock: jokers + twos"),
    "stock_cards": ("int8", "cards", "cards in the stock after the deal (41 with 4 players)"),
}
_TEAM = {
    "jokers": ("int8", "cards", "jokers in the hands of team {t} (seats {t} and {t2}; with 2 "
                                "players seat {t} alone)"),
    "twos": ("int8", "cards", "twos in the hands of team {t}"),
    "wilds": ("int8", "cards", "wild cards in the hands of team {t}: jokers + twos"),
}

#: Every column :func:`deals` may return: name -> (dtype, unit, description).  Seat
#: columns exist for the seats the rules fill (0..num_players-1), pozzetto columns for
#: the pozzetti they deal (2, or 3 in individual_3x11), team columns with 2 or 4 players.
COLUMNS = {
    "hand_index": ("int64", "index", "0-based hand index in the run (the record's hand_index)"),
    "dealer": ("int8", "seat", "dealer drawn by the deal (R6; a match hand's rotates instead)"),
    "first_player": ("int8", "seat", "seat that plays first, dealer + 1 mod players (R6)"),
    "upcard": ("category", "card", "the up-card starting the discard pile (R10), in the "
                                   "project's notation (e.g. '10♥', 'JK')"),
    "upcard_id": ("int8", "card id", "id of the up-card, 0..107 (54*copy + face)"),
    "upcard_wild": ("bool", "bool", "the up-card is a joker or a two"),
}
for _s in range(4):
    for _k, (_t, _u, _d) in _SEAT.items():
        COLUMNS[f"s{_s}_{_k}"] = (_t, _u, _d.format(s=_s))
for _p in range(3):
    for _k, (_t, _u, _d) in _POZ.items():
        COLUMNS[f"p{_p}_{_k}"] = (_t, _u, _d.format(k=_p))
COLUMNS.update(_STOCK)
for _tm in range(2):
    for _k, (_t, _u, _d) in _TEAM.items():
        COLUMNS[f"t{_tm}_{_k}"] = (_t, _u, _d.format(t=_tm, t2=_tm + 2))

_UPCARD_TEXT = [notation.format_card(i) for i in range(C.N_CARDS)]
_UPCARD_CATEGORIES = list(dict.fromkeys(_UPCARD_TEXT))        # 53 texts: 52 faces and JK
_SEAT_F = {"jokers": KF.SF_JOKERS, "twos": KF.SF_TWOS, "wilds": KF.SF_WILDS,
           "pairs": KF.SF_PAIRS, "run_len": KF.SF_RUN, "points": KF.SF_POINTS}
_POZ_F = {"jokers": KF.PF_JOKERS, "twos": KF.PF_TWOS, "wilds": KF.PF_WILDS}


def _rules(rules):
    r = rules_or_default(rules)
    r.check_supported()
    return r


def _frame(raw: np.ndarray, index: np.ndarray, rules) -> pd.DataFrame:
    """The documented columns of kernel feature rows ``raw`` (int16[n, N_FEATURES])."""
    n_players = rules.num_players
    n_poz = 3 if n_players == 3 and rules.three_player_mode == "individual_3x11" else 2
    up = raw[:, KF.F_UPCARD].astype(np.int8)
    text = np.asarray(_UPCARD_TEXT, dtype=object)[up]
    cols = {
        "hand_index": np.asarray(index, np.int64),
        "dealer": raw[:, KF.F_DEALER].astype(np.int8),
        "first_player": raw[:, KF.F_FIRST].astype(np.int8),
        "upcard": pd.Categorical(text, categories=_UPCARD_CATEGORIES),
        "upcard_id": up,
        "upcard_wild": (C.FACE[up] >= 52) | (C.RANK[up] == C.TWO),
    }
    for s in range(n_players):
        for name, f in _SEAT_F.items():
            cols[f"s{s}_{name}"] = raw[:, KF.F_SEAT + s * KF.N_SEAT_F + f].astype(
                COLUMNS[f"s{s}_{name}"][0])
    for k in range(n_poz):
        for name, f in _POZ_F.items():
            cols[f"p{k}_{name}"] = raw[:, KF.F_POZ + k * KF.N_POZ_F + f].astype(np.int8)
    for name, f in _POZ_F.items():
        cols[f"stock_{name}"] = raw[:, KF.F_STOCK + f].astype(np.int8)
    cols["stock_cards"] = raw[:, KF.F_STOCK_CARDS].astype(np.int8)
    if n_players != 3:
        for t in range(2):
            seats = [t, t + 2] if n_players == 4 else [t]
            for name in _POZ_F:
                cols[f"t{t}_{name}"] = sum(cols[f"s{s}_{name}"].astype(np.int16)
                                           for s in seats).astype(np.int8)
    return pd.DataFrame(cols)


def deals(seed: int, n: int, rules=None, first: int = 0, threads: int | None = None
          ) -> pd.DataFrame:
    """The deal features of hands ``first .. first+n-1`` of a run, one row per hand.

    Parameters
    ----------
    seed : int
        Run seed, 0 <= seed < 2**64 (the seed of ``sim.simulate`` /
        ``burraco simulate --seed``).
    n : int
        Number of hands, 0 .. 10**12 - 1 (memory: about 40 bytes per hand).
    rules : sim.Rules, str, dict or None
        Rule set; only the players, hand size and pozzetto sizes matter (R8,
        R61-R63).  Default preset when None.
    first : int
        Hand index of the first row, >= 0.
    threads : int, optional
        Numba threads (default: all); the table does not depend on it.

    Returns
    -------
    pandas.DataFrame
        ``n`` rows in hand order, the columns of :data:`COLUMNS` that the
        rules fill (seat columns ``s0_*`` .. for the seats dealt, pozzetto
        columns ``p0_*`` .. for the pozzetti dealt, team columns ``t0_*``,
        ``t1_*`` with 2 or 4 players); counts in cards, ``*_points`` in
        points (R2).  Row ``i`` is the deal of the hand whose record has
        ``hand_index == first + i`` in a hand run of this seed and rules.

    Raises
    ------
    ValueError
        Seed, ``n``, ``first`` or ``threads`` out of range, or rules the
        engine does not support.
    """
    import numba
    seed = check_int("seed", seed, 0, 2**64 - 1)
    n = check_int("n", n, 0, 10**12 - 1)
    first = check_int("first", first, 0, 2**63 - 1 - n)
    r = _rules(rules)
    rv = r.to_vector()
    old = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS))
    try:
        raw = np.empty((n, KF.N_FEATURES), np.int16)
        for a in range(0, n, CHUNK):
            m = min(CHUNK, n - a)
            KF.deal_features(np.uint64(seed), np.int64(first + a), np.int64(m), rv,
                             raw[a:a + m])
    finally:
        numba.set_num_threads(old)
    return _frame(raw, np.arange(first, first + n, dtype=np.int64), r)


def select(seed: int, hands: int, where: str, rules=None, what: str = "where") -> np.ndarray:
    """The hands of ``0 .. hands-1`` whose deal satisfies ``where``.

    Parameters
    ----------
    seed, rules
        As for :func:`deals`.
    hands : int
        Hands to look at, 1 .. 10**12 - 1 (dealt in blocks of :data:`CHUNK`).
    where : str
        A ``pandas.DataFrame.query`` expression over the columns of
        :func:`deals`, e.g. ``"s0_jokers >= 2 and upcard_wild == False"``.
    what : str
        Name of the argument in error messages (``"--where"`` for the CLI).

    Returns
    -------
    numpy.ndarray
        ``int64[k]`` hand indices in increasing order (possibly empty).

    Raises
    ------
    ValueError
        ``where`` is not a string, does not parse, names an unknown column or
        does not give one boolean per hand (one line naming ``what`` and
        listing the columns).
    """
    hands = check_int("hands", hands, 1, 10**12 - 1)
    if not isinstance(where, str) or not where.strip():
        raise ValueError(f"{what}: expected a pandas query expression over the deal columns, "
                         f"got {where!r}")
    out = []
    for a in range(0, hands, CHUNK):
        table = deals(seed, min(CHUNK, hands - a), rules, first=a)
        try:
            mask = table.eval(where)
        except Exception as exc:            # pandas raises many kinds for a bad expression
            why = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise ValueError(f"{what}: cannot evaluate {where!r} over the deal table ({why}); "
                             f"the columns are {', '.join(table.columns)}") from None
        mask = np.asarray(mask)
        if mask.shape != (len(table),) or mask.dtype != np.bool_:
            raise ValueError(f"{what}: {where!r} does not give true or false per hand (got "
                             f"{mask.dtype} of shape {mask.shape}); write a condition such as "
                             f"'s0_jokers >= 2'; the columns are {', '.join(table.columns)}")
        out.append(table["hand_index"].to_numpy()[mask])
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def decks(seed: int, hand_index, rules=None) -> tuple:
    """The shuffled deck and dealer of each listed hand, as the simulation deals them.

    Parameters
    ----------
    seed : int
        Run seed.
    hand_index : array_like of int
        Hand indices (>= 0).
    rules : sim.Rules, str, dict or None
        Only the number of players matters (it bounds the dealer draw, R6).

    Returns
    -------
    tuple
        ``(decks, dealers)``: ``int64[n, 108]`` card ids in dealing order
        (seat ``s`` holds ``deck[11*s : 11*s + 11]`` with 11-card hands; the
        full layout is in :mod:`kernels.core.deal`) and ``int64[n]`` dealer seats.

    Raises
    ------
    ValueError
        Seed or a hand index out of range.
    """
    seed = check_int("seed", seed, 0, 2**64 - 1)
    idx = _indices(hand_index, "hand_index")
    r = _rules(rules)
    out = np.empty((len(idx), C.N_CARDS), np.int64)
    dealers = np.empty(len(idx), np.int64)
    KF.deal_decks(np.uint64(seed), idx, np.int64(r.num_players), out, dealers)
    return out, dealers


def deck_features(decks_in, dealers, rules=None) -> pd.DataFrame:
    """The :func:`deals` columns of given decks (say, decks modified for
    :func:`play_decks`); ``hand_index`` is the row number 0..n-1.

    Parameters
    ----------
    decks_in : array_like
        ``int[n, 108]``, each row a permutation of the ids 0..107 in dealing order.
    dealers : array_like
        ``int[n]`` dealer seats.
    rules : sim.Rules, str, dict or None

    Raises
    ------
    ValueError
        A row that is not a permutation of 0..107, or a dealer out of range.
    """
    r = _rules(rules)
    d = _check_decks(decks_in, "decks")
    dl = np.ascontiguousarray(dealers, dtype=np.int64).reshape(-1)
    if dl.shape != (d.shape[0],) or (dl.size and (dl.min() < 0 or dl.max() >= r.num_players)):
        raise ValueError(f"dealers: expected {d.shape[0]} seats in 0..{r.num_players - 1}")
    raw = np.empty((d.shape[0], KF.N_FEATURES), np.int16)
    if d.shape[0]:
        KF.deck_features(d, dl, r.to_vector(), raw)
    return _frame(raw, np.arange(d.shape[0], dtype=np.int64), r)


def _indices(hand_index, field: str) -> np.ndarray:
    arr = np.asarray(hand_index)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{field}: expected a 1-D array of integer hand indices")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{field}: hand indices must be >= 0, got {int(arr.min())}")
    return arr


def _check_decks(decks_in, field: str) -> np.ndarray:
    d = np.asarray(decks_in)
    if d.ndim != 2 or d.shape[1] != C.N_CARDS or (d.size and not np.issubdtype(d.dtype,
                                                                              np.integer)):
        raise ValueError(f"{field}: expected an integer array of shape (n, 108), got "
                         f"shape {d.shape}")
    d = np.ascontiguousarray(d, dtype=np.int64)
    bad = np.flatnonzero((np.sort(d, axis=1) != np.arange(C.N_CARDS)).any(axis=1))
    if bad.size:
        raise ValueError(f"{field}: row {int(bad[0])} is not a permutation of the card ids "
                         "0..107 (every physical card once, R1)")
    return d


def play_decks(seed: int, hand_index, decks_in, strategies="heuristic", rules=None,
               threads: int | None = None, debug: bool = False) -> pd.DataFrame:
    """Play hands from given decks, each with its hand's dealer and random stream.

    Row ``i`` plays hand ``hand_index[i]`` of the run seeded ``seed`` (its
    dealer, R6, and the generator as the deal leaves it) with the cards laid
    out from ``decks_in[i]`` instead of the hand's shuffle
    (:func:`kernels.play.game.simulate_decks`).  With the unmodified decks of
    :func:`decks` the records are those of ``sim.simulate``; with a deck in
    which some cards changed places (the jokers moved to another seat, say)
    the hand is the same deal with that condition swapped, played with the
    same random numbers: a paired counterpart.

    Parameters
    ----------
    seed : int
        Run seed.
    hand_index : array_like of int
        ``n`` hand indices (>= 0).
    decks_in : array_like
        ``int[n, 108]``, each row a permutation of 0..107 in dealing order.
    strategies : str, sequence of 4, or dict
        Built-in strategy specs (as for ``sim.simulate``; Python strategies
        are refused).
    rules : sim.Rules, str, dict or None
    threads : int, optional
        Numba threads (default all); the records do not depend on it.
    debug : bool
        Run the kernels' consistency checks (``error`` column).

    Returns
    -------
    pandas.DataFrame
        One row per deck, the columns of ``sim.simulate`` (:data:`sim.dataset.COLUMNS`);
        ``hand_index`` is ``hand_index[i]`` and ``run_id`` is empty (these
        hands are not a run's).

    Raises
    ------
    ValueError
        A deck that is not a permutation of 0..107, a length mismatch, a bad
        strategy, rules or seed.
    """
    import numba

    from kernels.core import layout as L
    from kernels.play.game import simulate_decks

    from . import dataset
    from .runner import _check_bool, _resolve_strategies, seat_names

    seed = check_int("seed", seed, 0, 2**64 - 1)
    idx = _indices(hand_index, "hand_index")
    d = _check_decks(decks_in, "decks")
    if d.shape[0] != idx.shape[0]:
        raise ValueError(f"decks: {d.shape[0]} decks for {idx.shape[0]} hand indices")
    r = _rules(rules)
    names, kinds, params = _resolve_strategies(strategies, "play_decks")
    debug = _check_bool("debug", debug)
    rec = np.zeros((idx.shape[0], L.N_REC), np.int32)
    old = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS))
    try:
        if idx.shape[0]:
            simulate_decks(np.uint64(seed), idx, d, r.to_vector(), kinds, params,
                           np.int64(debug), rec)
    finally:
        numba.set_num_threads(old)
    table = dataset.records_to_table(rec, idx, "", seat_names(names, r))
    return dataset.table_to_frame(table)
