"""The run summary: figures of a hand run or a match run, fed one shard at a time.

:class:`Summary` sums the kernel records of a hand run (``int32[n, N_REC]``) and
:class:`MatchSummary` the :class:`sim.core.match.MatchBlock` of a match run, so a run
of any size is summarised without holding it in memory; both print the table
``burraco simulate`` and ``burraco summarize`` show.  They are fed by a running
simulation (``simulate(callback=summary.add_shard)``), by :func:`summarize`
(records already produced) or by :func:`sim.batch.read.summarize_run` (a run
directory read back).  Re-exported by :mod:`sim.batch.runner`.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

import numpy as np
import pandas as pd
import pyarrow as pa

from kernels.core import layout as L

from sim._util.text import plural
from sim.core import dataset
from sim.core.cards import check_bool

if TYPE_CHECKING:
    from sim.core.match import MatchBlock

def _table(rows, notes: dict | None = None) -> str:
    """Rows of (label, value, ...) as aligned plain text; ``notes`` maps the label of a row
    with no further columns to text printed after its value (not counted in the widths)."""
    notes = notes or {}
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    return "\n".join((f"{r[0]:<{w0}}  {r[1]:>{w1}}" + (
        f"  {notes[r[0]]}" if r[0] in notes else "".join(f"  {x:>10}" for x in r[2:]))).rstrip()
        for r in rows)


def _read_back_note(simulated: int, total: int, out, unit: str) -> str | None:
    """``(all read back from 'DIR')`` or ``(K <unit>s read back from 'DIR')`` (``unit`` the
    noun for one, ``hand`` or ``match``) for a run that resumed shards from disk; None if
    everything was simulated now."""
    back = total - simulated
    if back <= 0:
        return None
    where = f" from {os.fspath(out)!r}" if out is not None else ""
    return f"(all read back{where})" if simulated == 0 else f"({plural(back, unit)} read back{where})"


class Summary:
    """Running summary of a run, fed one record block at a time.

    All figures are computed from the kernel records (``int32[n, N_REC]``),
    so a run of any size is summarised without holding it in memory.

    Parameters
    ----------
    read_back : bool
        The summary describes records read back (:func:`summarize`,
        :func:`sim.batch.read.summarize_run`), not a simulation now: :meth:`format`
        leaves out the rows about the process (hands simulated now, hands/s,
        elapsed time).  Default False (a summary fed by a running simulation).
    out : str or os.PathLike, optional
        The run's output directory, named by :meth:`format` when shards were
        read back from it (a resumed run).

    Raises
    ------
    ValueError
        ``read_back`` is not a bool.
    """

    def __init__(self, read_back: bool = False, out: str | os.PathLike | None = None) -> None:
        self.read_back = check_bool("read_back", read_back)
        self.out = out
        self._t0 = time.perf_counter()
        self._t1: float | None = None
        self.hands = 0
        self.hands_simulated = 0
        self.sim_seconds = 0.0
        self._sums = np.zeros(L.N_REC, np.int64)
        self._end = np.zeros(len(L.END_REASONS), np.int64)
        self._errors = 0
        self._three = False     # 3-player records: a third group (seat 2), R62/R63

    def add(self, records: np.ndarray, seconds: float = 0.0, resumed: bool = False) -> None:
        """Add a block of records.

        Parameters
        ----------
        records : numpy.ndarray
            ``int32[n, N_REC]``.
        seconds : float
            Wall time that produced the block (s), counted in hands/s unless
            ``resumed``.
        resumed : bool
            The block was read back from disk, not simulated now.
        """
        rec = np.asarray(records)
        n = rec.shape[0]
        self.hands += n
        if not resumed:
            self.hands_simulated += n
            self.sim_seconds += seconds
        self._sums += rec.sum(axis=0, dtype=np.int64)
        if n and rec[0, L.REC_SOLO_SEAT] != L.NULL32:
            self._three = True
        self._end += np.bincount(rec[:, L.REC_END_REASON], minlength=len(L.END_REASONS))[
            :len(L.END_REASONS)]
        self._errors += int(np.count_nonzero(rec[:, L.REC_ERROR]))

    def add_shard(self, shard: ShardDone) -> None:
        """Callback form of :meth:`add` (pass as ``simulate(callback=...)``)."""
        self.add(shard.records, shard.seconds, shard.resumed)

    def finish(self) -> None:
        """Stop the wall clock used for ``elapsed_s``."""
        self._t1 = time.perf_counter()

    def _team_mean(self, tc: int, team: int) -> float:
        return float(self._sums[L.N_HAND_COLS + team * L.N_TEAM_COLS + tc]) / max(self.hands, 1)

    def as_dict(self) -> dict:
        """The summary figures.

        Returns
        -------
        dict
            ``hands`` (total in the run), ``hands_simulated`` (now, not
            resumed), ``elapsed_s`` (wall time since the summary started),
            ``hands_per_s`` (simulated hands per second of simulation and
            writing, None if nothing was simulated), ``mean_score_t0/_t1``
            (points), ``mean_turns`` (turns per hand), ``end_reason_share``
            (reason -> fraction of hands), ``clean_burracos_per_hand_t0/_t1``,
            ``dirty_burracos_per_hand_t0/_t1`` (melds per hand, dirty includes
            semi-clean) and ``debug_errors`` (hands with a non-zero
            ``error``); with 3 players the ``_t0/_t1/_t2`` figures are per
            seat (the score credited to each player).
        """
        n = max(self.hands, 1)
        end = self._t1 if self._t1 is not None else time.perf_counter()
        d = {
            "hands": self.hands,
            "hands_simulated": self.hands_simulated,
            "elapsed_s": end - self._t0,
            "hands_per_s": (self.hands_simulated / self.sim_seconds
                            if self.hands_simulated and self.sim_seconds > 0 else None),
            "mean_turns": float(self._sums[L.REC_TURNS]) / n,
            "end_reason_share": {r: float(c) / n for r, c in zip(L.END_REASONS, self._end)},
            "debug_errors": self._errors,
        }
        for t in ((0, 1, 2) if self._three else (0, 1)):
            d[f"mean_score_t{t}"] = self._team_mean(L.TC_SCORE, t)
            d[f"clean_burracos_per_hand_t{t}"] = self._team_mean(L.TC_CLEAN, t)
            d[f"dirty_burracos_per_hand_t{t}"] = self._team_mean(L.TC_DIRTY, t)
        return d

    def format(self) -> str:
        """The summary as a plain-text table (what the CLI prints).

        With ``read_back`` the rows about the simulation (hands simulated
        now, hands/s, elapsed time) are left out.  A simulation that read
        shards back says how many after "hands simulated now", and has no
        hands/s row when it simulated nothing.
        """
        d = self.as_dict()
        rate = d["hands_per_s"]
        rows = [("hands", f"{d['hands']:,}", "")]
        notes = {}
        if not self.read_back:
            rows.append(("hands simulated now", f"{d['hands_simulated']:,}", ""))
            note = _read_back_note(d["hands_simulated"], d["hands"], self.out, "hand")
            if note is not None:
                notes["hands simulated now"] = note
            if d["hands_simulated"]:
                rows.append(("hands/s", f"{rate:,.0f}" if rate is not None else "-", ""))
            rows.append(("elapsed s (incl. start-up)", f"{d['elapsed_s']:.1f}", ""))
        rows.append(("mean turns per hand", f"{d['mean_turns']:.2f}", ""))
        groups = (0, 1, 2) if self._three else (0, 1)
        rows += [
            ("", *(f"seat {t}" if self._three else f"team {t}" for t in groups)),
            ("mean score per hand", *(f"{d[f'mean_score_t{t}']:.2f}" for t in groups)),
            ("clean burracos per hand",
             *(f"{d[f'clean_burracos_per_hand_t{t}']:.3f}" for t in groups)),
            ("dirty burracos per hand",
             *(f"{d[f'dirty_burracos_per_hand_t{t}']:.3f}" for t in groups)),
            ("", "share", ""),
        ]
        rows += [(f"end: {r}", f"{s:.2%}", "") for r, s in d["end_reason_share"].items()]
        if d["debug_errors"]:
            rows.append(("hands with debug errors", f"{d['debug_errors']:,}", ""))
        return _table(rows, notes)


class MatchSummary:
    """Running summary of a match run, fed one :class:`sim.core.match.MatchBlock` at a time.

    ``hand_summary`` (a :class:`Summary`) covers the hands the matches played.

    Parameters
    ----------
    read_back, out
        As for :class:`Summary`: with ``read_back`` (matches read back from
        disk) :meth:`format` leaves out the rows about the simulation.
    """

    def __init__(self, read_back: bool = False, out: str | os.PathLike | None = None) -> None:
        self.hand_summary = Summary(read_back, out)
        self.matches = 0
        self.matches_simulated = 0
        self._wins = np.zeros(3, np.int64)
        self._capped = 0
        self._final = np.zeros(3, np.int64)
        self._sides = 2             # 3 once a 3-player block is added

    @property
    def hands(self) -> int:
        """Hands played by the matches added so far."""
        return self.hand_summary.hands

    def add(self, block: MatchBlock, seconds: float = 0.0, resumed: bool = False) -> None:
        """Add a block of matches (``seconds`` and ``resumed`` as :meth:`Summary.add`)."""
        self.hand_summary.add(block.records, seconds, resumed)
        n = block.stop - block.start
        self.matches += n
        if not resumed:
            self.matches_simulated += n
        capped = np.asarray(block.capped, bool)
        self._wins += np.bincount(np.asarray(block.winner)[~capped].astype(np.int64),
                                  minlength=3)[:3]
        self._capped += int(capped.sum())
        final = np.asarray(block.final, np.int64)
        self._sides = max(self._sides, final.shape[1])
        self._final[:final.shape[1]] += final.sum(axis=0)

    def add_shard(self, shard: ShardDone) -> None:
        """Callback form of :meth:`add` (pass as ``simulate_matches(callback=...)``)."""
        self.add(shard.matches, shard.seconds, shard.resumed)

    def finish(self) -> None:
        """Stop the wall clock used for ``elapsed_s``."""
        self.hand_summary.finish()

    def as_dict(self) -> dict:
        """The summary figures.

        Returns
        -------
        dict
            ``matches`` (in the run), ``matches_simulated`` (now), ``hands``
            (played by them), ``mean_hands_per_match``, ``wins_t0/_t1``
            (matches won), ``win_share_t0/_t1`` and ``capped_share`` (fractions
            of all matches; they add up to 1), ``capped`` (matches ended by
            the cap, no winner), ``mean_final_t0/_t1`` (final totals, points);
            with 3 players also ``wins_t2``, ``win_share_t2``, ``mean_final_t2``
            (seat 2),
            ``matches_per_s`` and ``hands_per_s`` (simulated now, per second
            of simulation and writing; None if nothing was simulated),
            ``elapsed_s`` and ``hand_summary`` (:meth:`Summary.as_dict` of the
            hands).
        """
        h = self.hand_summary.as_dict()
        n = max(self.matches, 1)
        secs = self.hand_summary.sim_seconds
        d = {"matches": self.matches, "matches_simulated": self.matches_simulated,
             "hands": h["hands"], "mean_hands_per_match": h["hands"] / n,
             "capped": self._capped, "capped_share": self._capped / n,
             "matches_per_s": (self.matches_simulated / secs
                               if self.matches_simulated and secs > 0 else None),
             "hands_per_s": h["hands_per_s"], "elapsed_s": h["elapsed_s"]}
        for t in range(self._sides):
            d[f"wins_t{t}"] = int(self._wins[t])
            d[f"win_share_t{t}"] = float(self._wins[t]) / n
            d[f"mean_final_t{t}"] = float(self._final[t]) / n
        d["hand_summary"] = h
        return d

    def format(self) -> str:
        """The summary as plain text (what ``burraco simulate --matches`` prints): the
        matches, then the :class:`Summary` of their hands."""
        d = self.as_dict()
        mrate, hrate = d["matches_per_s"], d["hands_per_s"]
        read_back = self.hand_summary.read_back
        rows = [("matches", f"{d['matches']:,}", "")]
        notes = {}
        if not read_back:
            rows.append(("matches simulated now", f"{d['matches_simulated']:,}", ""))
            note = _read_back_note(d["matches_simulated"], d["matches"], self.hand_summary.out,
                                   "match")
            if note is not None:
                notes["matches simulated now"] = note
        # capped matches have no winner: listed with the match counts, not under a side's column
        rows += [
            ("capped matches (no winner)", f"{d['capped']:,}", ""),
            ("share of matches capped", f"{d['capped_share']:.2%}", ""),
            ("hands played", f"{d['hands']:,}", ""),
            ("mean hands per match", f"{d['mean_hands_per_match']:.2f}", ""),
        ]
        if not read_back and d["matches_simulated"]:
            rows += [("matches/s", f"{mrate:,.0f}" if mrate is not None else "-", ""),
                     ("hands/s", f"{hrate:,.0f}" if hrate is not None else "-", "")]
        sides = range(self._sides)
        names = ["seat 0", "seat 1", "seat 2"] if self._sides == 3 else ["team 0", "team 1"]
        rows += [
            ("", *names),
            ("matches won", *(f"{d[f'wins_t{t}']:,}" for t in sides)),
            ("share of matches won", *(f"{d[f'win_share_t{t}']:.2%}" for t in sides)),
            ("mean final total", *(f"{d[f'mean_final_t{t}']:.1f}" for t in sides)),
        ]
        text = _table(rows, notes)
        return f"{text}\n\nhands of the matches:\n{self.hand_summary.format()}"


def summarize(blocks: Iterable[np.ndarray] | pd.DataFrame) -> Summary:
    """Summarise records already produced.

    Parameters
    ----------
    blocks : iterable of numpy.ndarray, or pandas.DataFrame
        ``int32[n, N_REC]`` record blocks, or a frame returned by
        :func:`sim.simulate` / :func:`sim.load`.

    Returns
    -------
    Summary
        With every block added as resumed (no timing) and ``read_back`` set,
        so :meth:`Summary.format` describes the data, not a simulation.
    """
    s = Summary(read_back=True)
    if isinstance(blocks, pd.DataFrame):
        missing = [c for c in L.REC_COLUMNS if c not in blocks.columns]
        if missing:
            raise ValueError(f"summarize: the frame has no column {missing[0]!r}: give hand rows "
                             "(sim.simulate, sim.load), not a match table (sim.load_matches)")
        blocks = [dataset.table_to_records(pa.Table.from_pandas(blocks, preserve_index=False))]
    for rec in blocks:
        s.add(rec, resumed=True)
    s.finish()
    return s


# ---------------------------------------------------------------- shards
@dataclass(frozen=True)
class ShardDone:
    """What the progress callback receives after each shard.

    Attributes
    ----------
    start, stop : int
        Hand indices ``[start, stop)`` of the shard.
    records : numpy.ndarray
        ``int32[stop - start, N_REC]`` kernel records (``REC_COLUMNS``).
    seconds : float
        Wall time spent simulating and writing the shard (s; with Dask, the wall time since
        the previous shard completed); 0 when resumed.
    resumed : bool
        True if the shard was already complete on disk and was read back.
    path : str or None
        Shard file, None without an output directory.
    matches : sim.match.MatchBlock or None
        Match runs only: the shard's matches and the hands they played; then
        ``start, stop`` are match indices and ``records`` are the records of
        those hands (``matches.records``), in hand-row order.  None for a hand run.
    """

    start: int
    stop: int
    records: np.ndarray
    seconds: float
    resumed: bool
    path: str | None
    matches: MatchBlock | None = None
