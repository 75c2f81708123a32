"""Reading run directories back: integrity check, loading, summary (issue 6).

A run directory (``burraco simulate --out DIR``) holds ``_manifest.json`` and
one Parquet shard per block of consecutive hands, or for a match run
(``--matches``) per block of consecutive matches: the hand rows in ``DIR`` and
the match table in ``DIR/_matches`` under the same file name.  :func:`check_run` compares
the files with the manifest: every expected shard is ``ok``, ``missing``
(not simulated yet) or ``corrupt`` (unreadable footer, wrong row count or
hand range, another run's id).  Nothing here reads a corrupt shard silently:
:func:`load` refuses the directory, ``burraco summarize`` reports it, and
running the same ``burraco simulate`` command again re-simulates it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pds
import pyarrow.parquet as pq

from . import dataset
from .match import MATCH_STRIDE
from .runner import MANIFEST, MatchSummary, Summary


@dataclass
class RunStatus:
    """What a run directory holds, shard by shard.

    Attributes
    ----------
    directory : str
    config : dict
        The run configuration of the manifest (hands or matches, seed,
        strategies, rules, shard size).
    finished : bool
        The manifest's ``finished`` flag.
    ok, missing : list of str
        Shard file names that are complete / not there yet.
    corrupt : dict
        Shard file name -> what is wrong with it.
    hands_total, hands_done : int
        Hands of the run (0 for a match run: not known in advance), and hands
        in ``ok`` shards.
    kind : str
        ``"hands"`` or ``"matches"`` (``burraco simulate --matches``).
    matches_total, matches_done : int
        Match runs: matches of the run, and matches in ``ok`` shards.
    """

    directory: str
    config: dict
    finished: bool
    ok: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    corrupt: dict = field(default_factory=dict)
    hands_total: int = 0
    hands_done: int = 0
    kind: str = "hands"
    matches_total: int = 0
    matches_done: int = 0

    @property
    def complete(self) -> bool:
        """Every shard is there and sound."""
        return not self.missing and not self.corrupt

    def format(self) -> str:
        """Progress lines as ``burraco summarize`` prints them."""
        n = len(self.ok) + len(self.missing) + len(self.corrupt)
        if self.kind == "matches":
            share = self.matches_done / self.matches_total if self.matches_total else 0.0
            done = (f"{self.matches_done:,} of {self.matches_total:,} matches ({share:.1%}, "
                    f"{self.hands_done:,} hands)")
        else:
            share = self.hands_done / self.hands_total if self.hands_total else 0.0
            done = f"{self.hands_done:,} of {self.hands_total:,} hands ({share:.1%})"
        lines = [f"run: {self.directory}",
                 f"progress: {done} in {len(self.ok)} of {n} shards; "
                 + ("complete" if self.complete else "incomplete: run the same 'burraco "
                    "simulate' command again to finish it")]
        for name, why in sorted(self.corrupt.items()):
            lines.append(f"corrupt shard {name}: {why}")
        return "\n".join(lines)


def _manifest(directory: Path) -> dict:
    path = directory / MANIFEST
    where = os.fspath(directory)
    if not directory.is_dir():
        raise ValueError(f"run: {where!r} is not a directory")
    try:
        manifest = json.loads(path.read_text())
        manifest.setdefault("kind", "hands")
        manifest["config"][manifest["kind"]], manifest["config"]["shard_size"], manifest["run_id"]
    except FileNotFoundError:
        raise ValueError(f"run: {where!r} holds no {MANIFEST} (not a burraco simulate "
                         "output directory)") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"run: {where!r} holds an unreadable {MANIFEST}") from None
    return manifest


def _shard_problem(path: Path, a: int, b: int, run_id: str, rows: int | None = None
                   ) -> str | None:
    """Why a shard file is not the complete shard ``[a, b)`` of run ``run_id`` (None if it is).

    A hand run's shard holds hands ``a .. b-1``; with ``rows`` (a match run's
    shard of matches ``a .. b-1``), ``rows`` hand rows from the first hand of
    match ``a`` to a hand of match ``b - 1``.
    """
    first, last = (a, (b - 1, b - 1)) if rows is None else (
        a * MATCH_STRIDE, ((b - 1) * MATCH_STRIDE, b * MATCH_STRIDE - 1))
    rows = b - a if rows is None else rows
    try:
        meta = pq.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable Parquet file ({' '.join(str(exc).split())[:120]})"
    if meta.num_rows != rows:
        return f"{meta.num_rows} rows, the manifest expects {rows}"
    try:
        table = pq.read_table(path, columns=["run_id", "hand_index"])
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable data ({' '.join(str(exc).split())[:120]})"
    idx = table.column("hand_index")
    if idx[0].as_py() != first or not last[0] <= idx[-1].as_py() <= last[1]:
        return (f"hands {idx[0].as_py()}..{idx[-1].as_py()}, expected {first}.."
                + (f"{last[0]}" if last[0] == last[1] else f"{last[0]}-{last[1]}"))
    if table.column("run_id")[0].as_py() != run_id:
        return "belongs to another run"
    return None


def _match_shard_problem(directory: Path, name: str, a: int, b: int,
                         run_id: str) -> tuple[str | None, int]:
    """Why shard ``name`` of a match run is not complete (None if it is), and its hand rows."""
    table = directory / dataset.MATCHES_DIR / name
    if not table.exists():
        return f"{dataset.MATCHES_DIR}/{name} is missing", 0
    try:
        matches = pq.read_table(table, columns=["run_id", "match", "hands"])
    except (OSError, pa.ArrowException) as exc:
        return f"{dataset.MATCHES_DIR}/{name}: unreadable ({' '.join(str(exc).split())[:120]})", 0
    if matches.num_rows != b - a:
        return f"{dataset.MATCHES_DIR}/{name}: {matches.num_rows} matches, expected {b - a}", 0
    m = matches.column("match")
    if m[0].as_py() != a or m[-1].as_py() != b - 1:
        return (f"{dataset.MATCHES_DIR}/{name}: matches {m[0].as_py()}..{m[-1].as_py()}, "
                f"expected {a}..{b - 1}"), 0
    if matches.column("run_id")[0].as_py() != run_id:
        return f"{dataset.MATCHES_DIR}/{name} belongs to another run", 0
    rows = int(pc.sum(matches.column("hands")).as_py())
    why = _shard_problem(directory / name, a, b, run_id, rows=rows)
    return why, rows


def check_run(directory: str | os.PathLike) -> RunStatus:
    """Check every shard of a run directory against its manifest.

    Reads each shard's footer and its ``run_id``/``hand_index`` columns only.

    Raises
    ------
    ValueError
        Not a directory, or no readable manifest.
    """
    directory = Path(directory)
    manifest = _manifest(directory)
    config, kind = manifest["config"], manifest["kind"]
    total, size = int(config[kind]), int(config["shard_size"])
    status = RunStatus(os.fspath(directory), config, bool(manifest.get("finished")), kind=kind)
    if kind == "matches":
        status.matches_total = total
    else:
        status.hands_total = total
    for a in range(0, total, size):
        b = min(a + size, total)
        name = dataset.SHARD_PATTERN.format(a=a, b=b)
        path = directory / name
        if not path.exists():
            status.missing.append(name)
            continue
        if kind == "matches":
            why, rows = _match_shard_problem(directory, name, a, b, manifest["run_id"])
        else:
            why, rows = _shard_problem(path, a, b, manifest["run_id"]), b - a
        if why is None:
            status.ok.append(name)
            status.hands_done += rows
            status.matches_done += b - a if kind == "matches" else 0
        else:
            status.corrupt[name] = why
    return status


def _sound(directory, what: str) -> RunStatus:
    """:func:`check_run`, refusing a directory with a corrupt shard (one-line ValueError)."""
    status = check_run(directory)
    if status.corrupt:
        name, why = sorted(status.corrupt.items())[0]
        raise ValueError(f"{what}: shard {name} of {status.directory!r} is corrupt ({why}); "
                         "run the same 'burraco simulate' command again to re-simulate it")
    return status


def load(directory: str | os.PathLike, columns=None, filter=None) -> pd.DataFrame:
    """The hands of a run directory as a DataFrame (via ``pyarrow.dataset``).

    Parameters
    ----------
    directory : str or os.PathLike
        Output directory of ``burraco simulate`` (complete or partial).
    columns : sequence of str, optional
        Columns to read (:data:`sim.dataset.COLUMNS` names, for a match run
        :data:`sim.dataset.MATCH_HAND_COLUMNS`; default all).
    filter : pyarrow.compute.Expression or list of tuples, optional
        Rows to keep: an expression such as ``pc.field("end_reason") ==
        "closed"``, or pandas-style tuples ``[("turns", ">", 40)]``.

    Returns
    -------
    pandas.DataFrame
        One row per hand of the complete shards, sorted by ``hand_index``
        (when read; for a match run that is by match, then hand).  A partial
        run gives the hands simulated so far.

    Raises
    ------
    ValueError
        Not a run directory, a corrupt shard (the message names it; run the
        same ``burraco simulate`` command to re-simulate it), or an unknown
        column.
    """
    status = _sound(directory, "load")
    schema = dataset.MATCH_HAND_SCHEMA if status.kind == "matches" else dataset.SCHEMA
    return _read(status, "", schema, columns, filter, "hand_index", dataset.table_to_frame)


def _read(status: RunStatus, sub: str, schema: pa.Schema, columns, filter, key: str,
          to_frame) -> pd.DataFrame:
    """The ``ok`` shards of ``status`` in ``directory/sub`` as one frame sorted by ``key``."""
    if columns is not None:
        unknown = [c for c in columns if c not in schema.names]
        if unknown:
            raise ValueError(f"load: unknown column {unknown[0]!r}; see sim.dataset.COLUMNS")
    if isinstance(filter, list):
        filter = pq.filters_to_expression(filter)
    files = [os.path.join(status.directory, sub, n) for n in status.ok]
    if not files:
        return to_frame(schema.empty_table().select(
            list(columns) if columns is not None else schema.names))
    table = pds.dataset(files, format="parquet", schema=schema).to_table(
        columns=list(columns) if columns is not None else None, filter=filter)
    frame = to_frame(table)
    if key in frame.columns:
        frame = frame.sort_values(key, kind="stable").reset_index(drop=True)
    return frame


def load_matches(directory: str | os.PathLike, columns=None, filter=None) -> pd.DataFrame:
    """The match table of a match run directory (``burraco simulate --matches``).

    Parameters
    ----------
    directory : str or os.PathLike
        Output directory of a match run (complete or partial).
    columns : sequence of str, optional
        Columns to read (:data:`sim.dataset.MATCH_COLUMNS` names; default all).
    filter : pyarrow.compute.Expression or list of tuples, optional
        Rows to keep, as for :func:`load` (e.g. ``[("reason", "==", "cap")]``).

    Returns
    -------
    pandas.DataFrame
        One row per match of the complete shards, sorted by ``match``;
        ``winner`` is the nullable ``Int8`` (``<NA>`` for a capped match).

    Raises
    ------
    ValueError
        Not a match run directory, a corrupt shard, or an unknown column.
    """
    status = _sound(directory, "load_matches")
    if status.kind != "matches":
        raise ValueError(f"load_matches: {status.directory!r} holds a hand run, not a match run "
                         "(burraco simulate --matches); read its hands with sim.load")
    return _read(status, dataset.MATCHES_DIR, dataset.MATCH_SCHEMA, columns, filter, "match",
                 dataset.matches_to_frame)


def summarize_run(directory: str | os.PathLike) -> tuple[Summary | MatchSummary, RunStatus]:
    """The run summary (as ``burraco simulate`` prints it, without the rows about the
    simulation: ``read_back`` is set) of the complete shards, and the directory's
    :class:`RunStatus`; a :class:`sim.runner.MatchSummary` for a match run."""
    status = check_run(directory)
    summary = (MatchSummary if status.kind == "matches" else Summary)(read_back=True)
    for name in status.ok:
        table = pq.read_table(os.path.join(status.directory, name))
        if status.kind == "matches":
            matches = pq.read_table(os.path.join(status.directory, dataset.MATCHES_DIR, name))
            summary.add(dataset.match_block(table, matches), resumed=True)
        else:
            summary.add(dataset.table_to_records(table), resumed=True)
    summary.finish()
    return summary, status
