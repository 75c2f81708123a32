"""Reading run directories back: integrity check, loading, summary (issue 6).

A run directory (``burraco simulate --out DIR``) holds ``_manifest.json`` and
one Parquet shard per block of consecutive hands.  :func:`check_run` compares
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
import pyarrow.dataset as pds
import pyarrow.parquet as pq

from . import dataset
from .runner import MANIFEST, Summary


@dataclass
class RunStatus:
    """What a run directory holds, shard by shard.

    Attributes
    ----------
    directory : str
    config : dict
        The run configuration of the manifest (hands, seed, strategies,
        rules, shard size).
    finished : bool
        The manifest's ``finished`` flag.
    ok, missing : list of str
        Shard file names that are complete / not there yet.
    corrupt : dict
        Shard file name -> what is wrong with it.
    hands_total, hands_done : int
        Hands of the run, and hands in ``ok`` shards.
    """

    directory: str
    config: dict
    finished: bool
    ok: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    corrupt: dict = field(default_factory=dict)
    hands_total: int = 0
    hands_done: int = 0

    @property
    def complete(self) -> bool:
        """Every shard is there and sound."""
        return not self.missing and not self.corrupt

    def format(self) -> str:
        """Progress lines as ``burraco summarize`` prints them."""
        n = len(self.ok) + len(self.missing) + len(self.corrupt)
        share = self.hands_done / self.hands_total if self.hands_total else 0.0
        lines = [f"run: {self.directory}",
                 f"progress: {self.hands_done:,} of {self.hands_total:,} hands ({share:.1%}) in "
                 f"{len(self.ok)} of {n} shards; "
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
        manifest["config"]["hands"], manifest["config"]["shard_size"], manifest["run_id"]
    except FileNotFoundError:
        raise ValueError(f"run: {where!r} holds no {MANIFEST} (not a burraco simulate "
                         "output directory)") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"run: {where!r} holds an unreadable {MANIFEST}") from None
    return manifest


def _shard_problem(path: Path, a: int, b: int, run_id: str) -> str | None:
    """Why a shard file is not the complete shard ``[a, b)`` of run ``run_id`` (None if it is)."""
    try:
        meta = pq.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable Parquet file ({' '.join(str(exc).split())[:120]})"
    if meta.num_rows != b - a:
        return f"{meta.num_rows} rows, the manifest expects {b - a}"
    try:
        table = pq.read_table(path, columns=["run_id", "hand_index"])
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable data ({' '.join(str(exc).split())[:120]})"
    idx = table.column("hand_index")
    if idx[0].as_py() != a or idx[-1].as_py() != b - 1:
        return f"hands {idx[0].as_py()}..{idx[-1].as_py()}, expected {a}..{b - 1}"
    if table.column("run_id")[0].as_py() != run_id:
        return "belongs to another run"
    return None


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
    config = manifest["config"]
    hands, size = int(config["hands"]), int(config["shard_size"])
    status = RunStatus(os.fspath(directory), config, bool(manifest.get("finished")),
                       hands_total=hands)
    for a in range(0, hands, size):
        b = min(a + size, hands)
        name = dataset.SHARD_PATTERN.format(a=a, b=b)
        path = directory / name
        if not path.exists():
            status.missing.append(name)
            continue
        why = _shard_problem(path, a, b, manifest["run_id"])
        if why is None:
            status.ok.append(name)
            status.hands_done += b - a
        else:
            status.corrupt[name] = why
    return status


def load(directory: str | os.PathLike, columns=None, filter=None) -> pd.DataFrame:
    """The hands of a run directory as a DataFrame (via ``pyarrow.dataset``).

    Parameters
    ----------
    directory : str or os.PathLike
        Output directory of ``burraco simulate`` (complete or partial).
    columns : sequence of str, optional
        Columns to read (:data:`sim.dataset.COLUMNS` names; default all).
    filter : pyarrow.compute.Expression or list of tuples, optional
        Rows to keep: an expression such as ``pc.field("end_reason") ==
        "closed"``, or pandas-style tuples ``[("turns", ">", 40)]``.

    Returns
    -------
    pandas.DataFrame
        One row per hand of the complete shards, sorted by ``hand_index``
        (when read).  A partial run gives the hands simulated so far.

    Raises
    ------
    ValueError
        Not a run directory, a corrupt shard (the message names it; run the
        same ``burraco simulate`` command to re-simulate it), or an unknown
        column.
    """
    status = check_run(directory)
    if status.corrupt:
        name, why = sorted(status.corrupt.items())[0]
        raise ValueError(f"load: shard {name} of {status.directory!r} is corrupt ({why}); "
                         "run the same 'burraco simulate' command again to re-simulate it")
    if columns is not None:
        unknown = [c for c in columns if c not in dataset.SCHEMA.names]
        if unknown:
            raise ValueError(f"load: unknown column {unknown[0]!r}; see sim.dataset.COLUMNS")
    if isinstance(filter, list):
        filter = pq.filters_to_expression(filter)
    files = [os.path.join(status.directory, n) for n in status.ok]
    if not files:
        return dataset.table_to_frame(dataset.SCHEMA.empty_table().select(
            list(columns) if columns is not None else dataset.SCHEMA.names))
    table = pds.dataset(files, format="parquet", schema=dataset.SCHEMA).to_table(
        columns=list(columns) if columns is not None else None, filter=filter)
    frame = dataset.table_to_frame(table)
    if "hand_index" in frame.columns:
        frame = frame.sort_values("hand_index", kind="stable").reset_index(drop=True)
    return frame


def summarize_run(directory: str | os.PathLike) -> tuple[Summary, RunStatus]:
    """The run summary (as ``burraco simulate`` prints it) of the complete shards,
    and the directory's :class:`RunStatus`."""
    status = check_run(directory)
    summary = Summary()
    for name in status.ok:
        table = pq.read_table(os.path.join(status.directory, name))
        summary.add(dataset.table_to_records(table), resumed=True)
    summary.finish()
    return summary, status
