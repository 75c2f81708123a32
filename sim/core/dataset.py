"""Parquet schema of the per-hand records, writing and reading (docs/output.md).

One row per simulated hand.  :data:`COLUMNS` is the single place where every
column is documented (name, Arrow type, unit, meaning); the table of docs/output.md
is generated from it (``python -m sim.dataset``).  Team columns end in ``_t0``
(seats 0 and 2) or ``_t1`` (seats 1 and 3).
"""
from __future__ import annotations

import json
import os
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from kernels.core import layout as L
from sim.core.match import REASONS, MatchBlock

#: Shard file name pattern; ``a`` and ``b`` bound the hand indices ``[a, b)`` (for a
#: match run, the match indices).
SHARD_PATTERN = "shard-{a:012d}-{b:012d}.parquet"
#: Subdirectory of a run directory holding the hand rows (one shard file per block of
#: hands, or of matches in a match run): ``pd.read_parquet(DIR / HANDS_DIR)``.
HANDS_DIR = "hands"
#: Subdirectory of a match run directory holding the match table, one file per shard.
MATCHES_DIR = "matches"
#: Where the first layout (manifest format 1) kept the match table; its hand shards sat in
#: the run directory itself, beside the manifest.
LEGACY_MATCHES_DIR = "_matches"
#: A run directory's manifest (:mod:`sim.batch.rundir`).
MANIFEST = "_manifest.json"
#: Subdirectory of a label run (``burraco label``, :mod:`sim.batch.labels`) holding its rows.
LABELS_DIR = "labels"


def temp_name(path: str | os.PathLike) -> str:
    """The temporary name a file is written under before it is renamed to ``path``.

    Hidden (``.NAME.tmp`` in the same directory), so that no Parquet reader of
    the directory (pyarrow, pandas and Dask skip names starting with ``.`` or
    ``_``; DuckDB and Polars globs ``*.parquet`` do not match it) ever sees a
    half-written file.
    """
    head, tail = os.path.split(os.fspath(path))
    return os.path.join(head, f".{tail}.tmp")


#: Key of the run configuration (JSON) in each Parquet file's metadata.
METADATA_KEY = b"burraco_sim"

_DICT = pa.dictionary(pa.int32(), pa.string())
_DICT8 = pa.dictionary(pa.int8(), pa.string())


class Column(NamedTuple):
    """Documentation of one Parquet column."""

    name: str
    type: pa.DataType
    unit: str
    description: str


_HAND = {
    # name: (arrow type, unit, description)
    "dealer": (pa.int8(), "seat", "dealer's seat, 0..players-1 (R6)"),
    "first_player": (pa.int8(), "seat",
                     "seat that played the first turn, dealer + 1 mod players (R6)"),
    "end_reason": (_DICT8, "category",
                   "how the hand ended: " + ", ".join(L.END_REASONS) + " (R49-R52)"),
    "turns": (pa.int16(), "turns", "player turns played in the hand"),
    "closing_seat": (pa.int8(), "seat", "seat that closed, -1 if nobody closed (R45)"),
    "stock_left": (pa.int8(), "cards", "cards left in the stock at the end (R50)"),
    "pile_left": (pa.int8(), "cards", "cards left in the discard pile at the end"),
    "solo_seat": (pa.int8(), "seat",
                  "3 players: the seat that took pozzetto A and played alone (solo_18, R62), -1 "
                  "if nobody did and always in individual_3x11; null with 2 or 4 players"),
    "error": (pa.int32(), "bit flags",
              "0, or the debug checks that failed: 1 card conservation, 2 invalid meld, "
              "4 no legal discard (R38), 8 score not a multiple of 5 (R59), "
              "16 event log too small (replay only)"),
}
_TEAM = {
    "score": (pa.int32(), "points", "hand score of the team (R55)"),
    "meld_points": (pa.int32(), "points", "card points of the team's melds (R2)"),
    "burraco_bonus": (pa.int32(), "points", "sum of the team's burraco bonuses (R56)"),
    "closing_bonus": (pa.int32(), "points", "closing bonus earned by the team (R47)"),
    "hand_points": (pa.int32(), "points",
                    "card points left in the team's hands, incl. an unplayed pozzetto; "
                    "positive, subtracted from the score (R55, R57)"),
    "pozzetto_penalty": (pa.int32(), "points",
                         "penalty for never taking the pozzetto; positive, subtracted (R55)"),
    "clean_burracos": (pa.int8(), "melds", "clean burracos on the team's table (R27, R28)"),
    "dirty_burracos": (pa.int8(), "melds",
                       "dirty burracos on the team's table, semi-clean ones included (R28)"),
    "semi_clean_burracos": (pa.int8(), "melds",
                            "of the dirty burracos, those scored as semi-clean (R29)"),
    "melds": (pa.int8(), "melds", "melds on the team's table at the end (R15)"),
    "closed": (pa.bool_(), "bool", "the team closed (R45)"),
    "pozzetto_taken": (pa.bool_(), "bool", "the team took its pozzetto (R42)"),
    "pozzetto_turn": (pa.int16(), "turns",
                      "turn (1-based) in which the team took its pozzetto, -1 if never"),
    "pozzetto_mode": (_DICT8, "category",
                      "how the pozzetto was taken: " + ", ".join(L.POZZETTO_MODES) + " (R41)"),
    "pile_pickups": (pa.int16(), "count", "times the team took the discard pile (R33)"),
    "pile_cards": (pa.int32(), "cards", "cards the team took from the discard pile in total"),
}
_TEAM_NAMES = {0: "team 0 (seats 0, 2; with 2 or 3 players seat 0's side)",
               1: "team 1 (seats 1, 3; with 2 or 3 players seat 1's side)",
               2: "seat 2's side with 3 players (null otherwise)"}


def _nullable(name: str) -> bool:
    """Columns that are null where they do not apply: empty seats, the third
    player's group and solo_seat outside 3-player games."""
    return name.startswith("strategy_s") or name.endswith("_t2") or name == "solo_seat"


def _record_column(name: str) -> Column:
    if name in _HAND:
        return Column(name, *_HAND[name])
    base, _, team = name.rpartition("_t")
    typ, unit, desc = _TEAM[base]
    return Column(name, typ, unit, f"{_TEAM_NAMES[int(team)]}: {desc}")


#: Every Parquet column, in file order.
COLUMNS: list = (
    [Column("run_id", _DICT, "id",
            "run identifier: hash of what decides a hand's record (kind of run, seed, strategies, "
            "rules, a match run's hand cap), not of the number of hands or the shard size, so "
            "an extended run keeps it"),
     Column("hand_index", pa.int64(), "index",
            "hand number within the run, 0-based; with the seed it determines the deal")]
    + [Column(f"strategy_s{s}", _DICT, "spec",
              f"strategy spec played by seat {s}; null when the seat is empty (2 or 3 players)")
       for s in range(4)]
    + [_record_column(name) for name in L.REC_COLUMNS]
)
_PANDAS_NULLABLE = {pa.int8(): "Int8", pa.int16(): "Int16", pa.int32(): "Int32",
                    pa.int64(): "Int64", pa.bool_(): "boolean"}


def pandas_metadata(schema: pa.Schema) -> dict:
    """The ``pandas`` key-value metadata that makes every pandas reader keep the types.

    A column that may be null (:func:`_nullable`: empty seats, the third player's
    group, ``solo_seat``, ``winner`` ...) is declared as pandas' nullable dtype
    (``Int8``, ``Int16``, ``Int32``, ``Int64``, ``boolean``), so
    ``pd.read_parquet``, ``dask.dataframe.read_parquet`` and ``Table.to_pandas``
    read it with its integer or boolean type and ``<NA>`` for a null, in every
    run (always-null columns included), instead of float64 or object.  The
    other columns keep their NumPy types; dictionary columns become categoricals.

    Parameters
    ----------
    schema : pyarrow.Schema

    Returns
    -------
    dict
        ``{b"pandas": json}``, for ``pa.schema(..., metadata=...)``.
    """
    empty = {}
    for f in schema:
        if pa.types.is_dictionary(f.type):
            empty[f.name] = pd.Categorical([])
        elif f.nullable and f.type in _PANDAS_NULLABLE:
            empty[f.name] = pd.Series([], dtype=_PANDAS_NULLABLE[f.type])
        else:
            empty[f.name] = pd.Series([], dtype=f.type.to_pandas_dtype())
    meta = pa.Schema.from_pandas(pd.DataFrame(empty), preserve_index=False).metadata
    return {b"pandas": meta[b"pandas"]}


def _schema(fields: list) -> pa.Schema:
    bare = pa.schema(fields)
    return pa.schema(fields, metadata=pandas_metadata(bare))


SCHEMA = _schema([pa.field(c.name, c.type, nullable=_nullable(c.name)) for c in COLUMNS])

#: Extra columns of the hand rows of a match run (``burraco simulate --matches``).
MATCH_HAND_EXTRA: list = [
    Column("match", pa.int64(), "index", "match number within the run, 0-based"),
    Column("hand_in_match", pa.int16(), "index",
           "hand number within the match, 0-based; the deal is hand_index = match * 65536 + "
           "hand_in_match"),
    Column("total_t0", pa.int32(), "points",
           "team 0 (seats 0, 2): match total after this hand (sum of score_t0 so far, R60)"),
    Column("total_t1", pa.int32(), "points",
           "team 1 (seats 1, 3): match total after this hand (sum of score_t1 so far, R60)"),
    Column("total_t2", pa.int32(), "points",
           "3 players: seat 2's match total after this hand (R63); null otherwise"),
    Column("individual", pa.bool_(), "bool",
           "3 players: the hand was played individual_3x11 (R63: from the hand after a "
           "total reached three_player_switch_at, or throughout in that mode); null otherwise"),
]
#: Hand rows of a match run: run_id, hand_index, match, hand_in_match, the other
#: :data:`COLUMNS`, total_t0, total_t1, total_t2, individual.
MATCH_HAND_COLUMNS: list = COLUMNS[:2] + MATCH_HAND_EXTRA[:2] + COLUMNS[2:] + MATCH_HAND_EXTRA[2:]
MATCH_HAND_SCHEMA = _schema([pa.field(c.name, c.type,
                                      nullable=_nullable(c.name) or c.name == "individual")
                             for c in MATCH_HAND_COLUMNS])
#: The match table: one row per match (``DIR/matches/shard-*.parquet``).
MATCH_COLUMNS: list = [
    COLUMNS[0],
    Column("match", pa.int64(), "index",
           "match number within the run, 0-based; its hands are the deals match * 65536 + k"),
    Column("winner", pa.int8(), "team",
           "team that won the match (R60), 0 or 1 (with 3 players the winning seat, 0..2, "
           "R63); null if the match was capped"),
    Column("hands", pa.int16(), "hands", "hands played in the match"),
    Column("final_t0", pa.int32(), "points", "team 0 (seats 0, 2): final match total"),
    Column("final_t1", pa.int32(), "points", "team 1 (seats 1, 3): final match total"),
    Column("final_t2", pa.int32(), "points",
           "3 players: seat 2's final match total; null otherwise"),
    Column("first_dealer", pa.int8(), "seat",
           "dealer of hand 0 (R6); hand k is dealt by seat (first_dealer + k) mod num_players"),
    Column("reason", _DICT8, "category",
           "how the match ended: target (a total reached target_score and the totals differ, "
           "R60) or cap (max_hands_per_match hands played, no winner)"),
]
MATCH_SCHEMA = _schema([pa.field(c.name, c.type, nullable=c.name in ("winner", "final_t2"))
                        for c in MATCH_COLUMNS])

_REC_INDEX = {name: j for j, name in enumerate(L.REC_COLUMNS)}
_CATEGORIES = {"end_reason": L.END_REASONS, "pozzetto_mode_t0": L.POZZETTO_MODES,
               "pozzetto_mode_t1": L.POZZETTO_MODES, "pozzetto_mode_t2": L.POZZETTO_MODES}


def _constant_dict(index: np.ndarray, values: Sequence[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(index, pa.int32()), pa.array(values, pa.string()))


def records_to_table(rec: np.ndarray, start_index: int, run_id: str,
                     strategy_names: Sequence[str]) -> pa.Table:
    """Turn a block of kernel records into an Arrow table with :data:`SCHEMA`.

    Parameters
    ----------
    rec : numpy.ndarray
        ``int32[n, N_REC]``, row k is hand ``start_index + k``, columns as
        ``kernels.core.layout.REC_COLUMNS``.
    start_index : int or numpy.ndarray
        Hand index of the first row, or ``int64[n]`` hand indices of every
        row (the deals of match hands are not consecutive).
    run_id : str
        Value of the ``run_id`` column.
    strategy_names : sequence of str or None
        Four strategy specs, seat 0..3; None for an empty seat (2 players).

    Returns
    -------
    pyarrow.Table
        ``n`` rows.

    Raises
    ------
    ValueError
        Wrong shape, or a value that does not fit its column's type or
        category list (pyarrow's checked cast).
    """
    rec = np.asarray(rec)
    if rec.ndim != 2 or rec.shape[1] != L.N_REC:
        raise ValueError(f"records: expected shape (n, {L.N_REC}), got {rec.shape}")
    if len(strategy_names) != 4:
        raise ValueError(f"records: expected 4 strategy names, got {len(strategy_names)}")
    n = rec.shape[0]
    zeros = np.zeros(n, np.int32)
    names = sorted(set(s for s in strategy_names if s is not None))
    if np.ndim(start_index):
        index = np.asarray(start_index, np.int64)
        if index.shape != (n,):
            raise ValueError(f"records: expected {n} hand indices, got shape {index.shape}")
    else:
        index = np.arange(start_index, start_index + n, dtype=np.int64)
    arrays = [_constant_dict(zeros, [run_id]), pa.array(index)]
    arrays += [_constant_dict(np.full(n, names.index(s), np.int32), names) if s is not None
               else pa.DictionaryArray.from_arrays(pa.nulls(n, pa.int32()),
                                                   pa.array(names, pa.string()))
               for s in strategy_names]
    for col in COLUMNS[6:]:
        values = rec[:, _REC_INDEX[col.name]]
        null = values == L.NULL32
        mask = null if null.any() else None
        if col.name in _CATEGORIES:
            arr = pa.DictionaryArray.from_arrays(
                pa.array(np.where(null, 0, values), mask=mask).cast(pa.int8()),
                pa.array(_CATEGORIES[col.name], pa.string()))
            arrays.append(arr)
        else:
            try:
                arrays.append(pa.array(np.where(null, 0, values), mask=mask).cast(col.type))
            except pa.ArrowInvalid as exc:
                raise ValueError(f"records: column {col.name}: {exc}") from None
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def record_to_dict(rec: np.ndarray, hand_index: int, strategy_names: Sequence[str]) -> dict:
    """One kernel record as a dict of Python values, keyed and typed like a Parquet row.

    ``rec`` is ``int32[N_REC]``; the result has ``hand_index``, ``strategy_s0..s3`` and every
    record column (categories as their strings, flags as bool); ``run_id`` is left out.
    """
    row = {"hand_index": int(hand_index)}
    for s, name in enumerate(strategy_names):
        row[f"strategy_s{s}"] = name
    for col in COLUMNS[6:]:
        v = int(rec[_REC_INDEX[col.name]])
        if v == L.NULL32:
            row[col.name] = None
        elif col.name in _CATEGORIES:
            row[col.name] = _CATEGORIES[col.name][v]
        elif col.type == pa.bool_():
            row[col.name] = bool(v)
        else:
            row[col.name] = v
    return row


def table_to_records(table: pa.Table) -> np.ndarray:
    """Inverse of :func:`records_to_table`: the kernel record block.

    Parameters
    ----------
    table : pyarrow.Table
        With (at least) every ``REC_COLUMNS`` column.

    Returns
    -------
    numpy.ndarray
        ``int32[n, N_REC]``.
    """
    out = np.empty((table.num_rows, L.N_REC), np.int32)
    for name, j in _REC_INDEX.items():
        col = table.column(name)
        if name in _CATEGORIES:
            codes = {v: i for i, v in enumerate(_CATEGORIES[name])}
            parts = [np.array([codes[v] for v in chunk.dictionary.to_pylist()] + [L.NULL32],
                              np.int32)[chunk.indices.fill_null(-1).to_numpy(zero_copy_only=False)]
                     for chunk in col.chunks]          # index -1: a null, the NULL32 entry
            out[:, j] = np.concatenate(parts) if parts else []
        else:
            out[:, j] = col.cast(pa.int32()).fill_null(L.NULL32).to_numpy()
    return out


def table_to_frame(table: pa.Table) -> pd.DataFrame:
    """Convert a records table to pandas (dictionary columns become categoricals).

    Returns
    -------
    pandas.DataFrame
        One row per hand, columns as :data:`COLUMNS`, default RangeIndex.
        The columns that may be null (the third player's ``*_t2`` group and
        ``solo_seat`` outside 3-player games) use pandas' nullable dtypes
        (``Int8``/``Int16``/``Int32``, ``boolean``), so they hold ``<NA>``
        rather than turning into floats: the same types ``pd.read_parquet``
        gives (:func:`pandas_metadata`).
    """
    bare = pa.schema(list(table.schema))
    return table.replace_schema_metadata(pandas_metadata(bare)).to_pandas().reset_index(drop=True)


def match_tables(block, run_id: str, strategy_names: Sequence[str]) -> tuple:
    """The two tables of a block of matches (:class:`sim.core.match.MatchBlock`).

    Returns
    -------
    tuple of pyarrow.Table
        ``(hands, matches)``: the hand rows (:data:`MATCH_HAND_SCHEMA`) and the
        match table (:data:`MATCH_SCHEMA`).
    """

    hands = records_to_table(block.records, block.hand_index, run_id, strategy_names)
    extra = [pa.array(block.match, pa.int64()), pa.array(block.hand_in_match).cast(pa.int16())]
    h = len(block.hand_index)
    three = block.totals.shape[1] == 3
    totals = [pa.array(block.totals[:, t]).cast(pa.int32()) for t in (0, 1)]
    totals.append(pa.array(block.totals[:, 2]).cast(pa.int32()) if three
                  else pa.nulls(h, pa.int32()))
    totals.append(pa.array(np.asarray(block.individual, bool)) if three
                  else pa.nulls(h, pa.bool_()))
    hands = pa.Table.from_arrays(hands.columns[:2] + extra + hands.columns[2:] + totals,
                                 schema=MATCH_HAND_SCHEMA)
    n = block.stop - block.start
    capped = np.asarray(block.capped, bool)
    arrays = [_constant_dict(np.zeros(n, np.int32), [run_id]),
              pa.array(np.arange(block.start, block.stop, dtype=np.int64)),
              pa.array(np.asarray(block.winner, np.int8), mask=capped),
              pa.array(block.hands).cast(pa.int16()),
              pa.array(block.final[:, 0]).cast(pa.int32()),
              pa.array(block.final[:, 1]).cast(pa.int32()),
              pa.array(block.final[:, 2]).cast(pa.int32()) if three else pa.nulls(n, pa.int32()),
              pa.array(np.asarray(block.first_dealer, np.int8)),
              pa.DictionaryArray.from_arrays(pa.array(capped.astype(np.int8)),
                                             pa.array(REASONS, pa.string()))]
    return hands, pa.Table.from_arrays(arrays, schema=MATCH_SCHEMA)


def match_block(hands: pa.Table, matches: pa.Table):
    """Inverse of :func:`match_tables`: the :class:`sim.core.match.MatchBlock` of two tables."""

    def col(table, name, dtype):
        return table.column(name).to_numpy().astype(dtype)

    start = int(matches.column("match")[0].as_py()) if matches.num_rows else 0
    capped = np.asarray(matches.column("winner").is_null().to_numpy(zero_copy_only=False))
    three = matches.num_rows > 0 and matches.column("final_t2").null_count == 0
    sides = ("t0", "t1", "t2") if three else ("t0", "t1")
    return MatchBlock(
        start=start, stop=start + matches.num_rows, records=table_to_records(hands),
        hand_index=col(hands, "hand_index", np.int64), match=col(hands, "match", np.int64),
        hand_in_match=col(hands, "hand_in_match", np.int64),
        totals=np.stack([col(hands, f"total_{t}", np.int64) for t in sides],
                        axis=1).reshape(-1, len(sides)),
        individual=(hands.column("individual").fill_null(False).to_numpy(zero_copy_only=False)
                    .astype(bool)),
        winner=matches.column("winner").fill_null(-1).to_numpy().astype(np.int8),
        hands=col(matches, "hands", np.int64),
        final=np.stack([col(matches, f"final_{t}", np.int64) for t in sides],
                       axis=1).reshape(-1, len(sides)),
        first_dealer=col(matches, "first_dealer", np.int8), capped=capped)


def matches_to_frame(table: pa.Table) -> pd.DataFrame:
    """The match table in pandas: ``winner`` as the nullable ``Int8`` (``<NA>`` if capped),
    ``run_id`` and ``reason`` categoricals, default RangeIndex."""
    return table_to_frame(table)


def write_shard(table: pa.Table, path: str | os.PathLike, metadata: dict | None = None) -> None:
    """Write one shard atomically: to :func:`temp_name` (``.NAME.tmp``), then rename.

    A reader never sees a half-written file: either ``path`` is absent or
    it is complete.

    Parameters
    ----------
    table : pyarrow.Table
        Records table (:func:`records_to_table`).
    path : str or os.PathLike
        Final file name.
    metadata : dict, optional
        JSON-serialisable run configuration, stored under
        :data:`METADATA_KEY` in the file's key-value metadata.
    """
    path = os.fspath(path)
    tmp = temp_name(path)
    if metadata is not None:
        meta = dict(table.schema.metadata or {})
        meta[METADATA_KEY] = json.dumps(metadata, sort_keys=True).encode()
        table = table.replace_schema_metadata(meta)
    try:
        with open(tmp, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def read_metadata(path: str | os.PathLike) -> dict:
    """Run configuration stored in a shard file by :func:`write_shard` ({} if none)."""
    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(METADATA_KEY)
    return json.loads(raw) if raw else {}


def markdown_table(columns: Sequence[Column] | None = None) -> str:
    """The column table of docs/output.md (Markdown), generated from :data:`COLUMNS` (or ``columns``)."""
    lines = ["| column | type | unit | meaning |", "|---|---|---|---|"]
    for c in COLUMNS if columns is None else columns:
        typ = (f"{c.type.value_type} (dictionary)" if pa.types.is_dictionary(c.type)
               else str(c.type))
        lines.append(f"| `{c.name}` | {typ} | {c.unit} | {c.description} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    """Print the column table of docs/output.md (``--matches``: a match run's extra hand
    columns and its match table, docs/matches.md)."""
    import sys
    if (sys.argv[1:] if argv is None else argv) == ["--matches"]:
        print(markdown_table(MATCH_HAND_EXTRA))
        print()
        print(markdown_table(MATCH_COLUMNS))
    else:
        print(markdown_table())


if __name__ == "__main__":
    main()
