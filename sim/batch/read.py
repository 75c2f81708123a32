"""Reading run directories back: integrity check, loading, summary, repair.

A run directory (``burraco simulate --out DIR``, layout in :mod:`sim.batch.rundir`)
holds ``_manifest.json`` and one Parquet shard per block of consecutive hands
in ``DIR/hands``, or for a match run (``--matches``) per block of consecutive
matches: the hand rows in ``DIR/hands`` and the match table in
``DIR/matches`` under the same file name.  :func:`check_run` compares
the files with the manifest: every expected shard is ``ok``, ``missing``
(not simulated yet) or ``corrupt`` (unreadable footer, wrong row count or
hand range, another run's id), and every other file is ``stray`` (in the
data subdirectories) or one of the ``others`` beside the run.
:func:`sim.batch.repair.repair_run` rebuilds a damaged or hand-edited manifest from the
configuration each shard carries (:mod:`sim.batch.repair`).  Nothing here reads a corrupt shard silently:
:func:`load` refuses the directory, ``burraco summarize`` reports it, and
running the same ``burraco simulate`` command again re-simulates it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pds
import pyarrow.parquet as pq

from sim._util.lock import describe, holder
from sim._util.text import plural
from sim.core import dataset
from sim.core.match import MATCH_STRIDE
from sim.batch import rundir
from sim.batch.rundir import MANIFEST, _selection_text, selection_config
from sim.batch.summary import MatchSummary, Summary


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
    stray : dict
        Files in the data subdirectories (``hands/``, ``matches/``) that are
        not part of the run (relative path -> why).  The run's readers ignore
        them; a plain Parquet reader of the subdirectory would read them.
    others : list of str
        Other entries beside the run (notes, plots): never read, never deleted.
    writer : dict or None
        The process writing the directory now (:func:`sim._util.lock.holder`), or None.
    manifest_format : int
        Manifest format: 2 (``hands/``, ``matches/``), or 1 (the first layout,
        shards beside the manifest; ``burraco summarize DIR --repair`` moves it).
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
    stray: dict = field(default_factory=dict)
    others: list = field(default_factory=list)
    writer: dict | None = None
    manifest_format: int = rundir.FORMAT
    manifest_problem: str | None = None
    rows: dict = field(default_factory=dict, repr=False)           # ok shard -> hand rows
    rows_matches: dict = field(default_factory=dict, repr=False)   # ok shard -> matches

    @property
    def complete(self) -> bool:
        """Every shard is there and sound."""
        return not self.missing and not self.corrupt

    @property
    def sound(self) -> bool:
        """No corrupt shard and nothing stray: every reader of the data directories reads
        exactly the run (complete or not)."""
        return not self.corrupt and not self.stray

    def format(self) -> str:
        """Progress lines as ``burraco summarize`` prints them."""
        n = len(self.ok) + len(self.missing) + len(self.corrupt)
        if self.kind == "matches":
            share = self.matches_done / self.matches_total if self.matches_total else 0.0
            done = (f"{self.matches_done:,} of {plural(self.matches_total, 'match')} "
                    f"({share:.1%}, {plural(self.hands_done, 'hand')})")
        else:
            share = self.hands_done / self.hands_total if self.hands_total else 0.0
            done = f"{self.hands_done:,} of {plural(self.hands_total, 'hand')} ({share:.1%})"
        if self.complete:
            state = "complete"
        elif self.writer is not None:
            state = f"incomplete: being written now by {describe(self.writer)}"
        else:
            state = "incomplete: run the same 'burraco simulate' command again to finish it"
        lines = [f"run: {self.directory}",
                 f"progress: {done} in {len(self.ok)} of {plural(n, 'shard')}; " + state]
        if self.kind == "hands" and self.config.get("selection"):
            lines.append(f"selection: {_selection_text(self.config['selection'])} among hands "
                         f"0..{int(self.config['hands']) - 1}")
        if self.manifest_problem:
            lines.append(f"manifest: {self.manifest_problem}")
        for name, why in sorted(self.corrupt.items()):
            lines.append(f"corrupt shard {name}: {why}")
        for rel, why in sorted(self.stray.items()):
            lines.append(f"stray file {rel}: {why}; not part of the run (sim.load ignores it, "
                         "but pd.read_parquet and other readers of the directory would read it): "
                         "move it out of the directory")
        if self.others:
            lines.append("other files (not part of the run, never read): "
                         + ", ".join(self.others[:5])
                         + (f" and {len(self.others) - 5} more" if len(self.others) > 5 else ""))
        if self.manifest_format < rundir.FORMAT:
            lines.append(f"layout: the first layout (shards beside the manifest); 'burraco "
                         f"summarize {self.directory} --repair' moves it to the current one")
        return "\n".join(lines)


def read_manifest(directory: str | os.PathLike) -> dict:
    """The manifest of a run directory (:func:`sim.batch.rundir.read_manifest`): ``kind``,
    ``run_id``, ``config`` (seed, strategies, rules, hands or matches, shard size ...),
    ``extents``, ``shards``, ``finished``, ``versions``.

    Raises
    ------
    ValueError
        Not a directory, no manifest, or a damaged one (one line).
    """
    return rundir.read_manifest(directory)


_manifest = read_manifest


def label_run_text(directory) -> str:
    """The one-line refusal of a label run (``burraco label``) where hand records are read."""
    where = os.fspath(directory)
    return (f"run: {where!r} holds a label run (burraco label), not hand records; read it with "
            f"sim.batch.labels.load_labels({where!r}) or pd.read_parquet("
            f"{os.path.join(where, 'labels')!r}) (docs/labels.md)")


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
        return f"{plural(meta.num_rows, 'row')}, the manifest expects {rows}"
    found = _footer_range(meta)
    if found is None:                    # no statistics in the footer: read the two columns
        try:
            table = pq.read_table(path, columns=["run_id", "hand_index"])
        except (OSError, pa.ArrowException) as exc:
            return f"unreadable data ({' '.join(str(exc).split())[:120]})"
        idx, ids = table.column("hand_index"), table.column("run_id")
        found = (idx[0].as_py(), idx[-1].as_py(), ids[0].as_py(), ids[-1].as_py())
    lo, hi, id_lo, id_hi = found
    if lo != first or not last[0] <= hi <= last[1]:
        return (f"hands {lo}..{hi}, expected {first}.."
                + (f"{last[0]}" if last[0] == last[1] else f"{last[0]}-{last[1]}"))
    if id_lo != run_id or id_hi != run_id:
        return "belongs to another run"
    return None


def _selected_shard_problem(path: Path, a: int, b: int, run_id: str) -> tuple[str | None, int]:
    """Why a shard file of a run of selected hands is not a complete shard ``[a, b)`` of
    run ``run_id`` (None if it is), and its rows: at most ``b - a`` rows, hands
    increasing within ``a .. b-1``, the run's id (in the metadata when it has no row).
    Which hands the selection holds is checked over the whole run
    (:func:`_selection_problem`)."""
    try:
        meta = pq.read_metadata(path)
        rid = dataset.read_metadata(path).get("run_id")
    except (OSError, pa.ArrowException, ValueError) as exc:
        return f"unreadable Parquet file ({' '.join(str(exc).split())[:120]})", 0
    rows = meta.num_rows
    if rid != run_id:
        return "belongs to another run", 0
    if rows > b - a:
        return (f"{plural(rows, 'row')}, more than the {plural(b - a, 'hand')} {a}..{b - 1} of "
                "the shard", 0)
    if not rows:
        return None, 0
    try:
        idx = pq.read_table(path, columns=["hand_index", "run_id"])
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable data ({' '.join(str(exc).split())[:120]})", 0
    hands = idx.column("hand_index").to_numpy()
    if hands[0] < a or hands[-1] > b - 1 or (hands.size > 1 and (hands[1:] <= hands[:-1]).any()):
        return f"hands {hands[0]}..{hands[-1]}, expected increasing hands within {a}..{b - 1}", 0
    if pc.any(pc.not_equal(idx.column("run_id").cast(pa.string()), run_id)).as_py():
        return "belongs to another run", 0
    return None, rows


def _selection_problem(directory: Path, status: RunStatus, selection: dict) -> str | None:
    """For a complete run of selected hands: None if its shards hold exactly the
    selection of the manifest (count and SHA-256 of the hand indices), else what differs."""
    hands_dir = rundir.data_dirs(status.manifest_format)[0]
    parts = [pq.read_table(directory / hands_dir / n, columns=["hand_index"])
             .column("hand_index").to_numpy() for n in sorted(status.ok)]
    idx = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    found = selection_config(idx, selection.get("where"))
    if found["hands"] != int(selection["hands"]) or found["sha256"] != selection["sha256"]:
        return (f"the shards hold {plural(found['hands'], 'hand')}, not the manifest's selection of "
                f"{int(selection['hands']):,} (sha256 {selection['sha256'][:12]}...); "
                f"{rundir.repair_hint(os.fspath(directory))} if the manifest was edited")
    return None


def _footer_range(meta) -> tuple | None:
    """``(first hand_index, last hand_index, min run_id, max run_id)`` from the column
    statistics of a shard's footer (the hand indices rise through a shard), or None if
    the footer has no statistics for them."""
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    if "hand_index" not in names or "run_id" not in names or not meta.num_row_groups:
        return None
    h, r = names.index("hand_index"), names.index("run_id")
    lo = hi = id_lo = id_hi = None
    for g in range(meta.num_row_groups):
        sh, sr = meta.row_group(g).column(h).statistics, meta.row_group(g).column(r).statistics
        if sh is None or sr is None or not sh.has_min_max or not sr.has_min_max:
            return None
        lo = sh.min if lo is None else min(lo, sh.min)
        hi = sh.max if hi is None else max(hi, sh.max)
        id_lo = sr.min if id_lo is None else min(id_lo, sr.min)
        id_hi = sr.max if id_hi is None else max(id_hi, sr.max)
    if isinstance(id_lo, bytes):
        id_lo, id_hi = id_lo.decode(), id_hi.decode()
    return lo, hi, id_lo, id_hi


def _match_shard_problem(table: Path, hands: Path, a: int, b: int,
                         run_id: str) -> tuple[str | None, int]:
    """Why the match-run shard ``[a, b)`` (match table ``table``, hand rows ``hands``) is not
    complete (None if it is), and its hand rows."""
    rel = f"{table.parent.name}/{table.name}"
    if not table.exists():
        return f"{rel} is missing", 0
    try:
        matches = pq.read_table(table, columns=["run_id", "match", "hands"])
    except (OSError, pa.ArrowException) as exc:
        return f"{rel}: unreadable ({' '.join(str(exc).split())[:120]})", 0
    if matches.num_rows != b - a:
        return f"{rel}: {plural(matches.num_rows, 'match')}, expected {b - a}", 0
    m = matches.column("match")
    if m[0].as_py() != a or m[-1].as_py() != b - 1:
        return (f"{rel}: matches {m[0].as_py()}..{m[-1].as_py()}, "
                f"expected {a}..{b - 1}"), 0
    if matches.column("run_id")[0].as_py() != run_id:
        return f"{rel} belongs to another run", 0
    rows = int(pc.sum(matches.column("hands")).as_py())
    why = _shard_problem(hands, a, b, run_id, rows=rows)
    return why, rows


def check_run(directory: str | os.PathLike) -> RunStatus:
    """Check every shard of a run directory against its manifest, and list what else it holds.

    Reads each shard's footer and its ``run_id``/``hand_index`` columns only
    (a match run: also the match table's ``run_id``/``match``/``hands``).

    Returns
    -------
    RunStatus
        Shards ``ok``, ``missing``, ``corrupt``; ``stray`` files in the data
        subdirectories, ``others`` beside the run, the ``writer`` now.

    Raises
    ------
    ValueError
        Not a directory, no readable manifest, or a manifest that disagrees
        with itself (:class:`sim.batch.rundir.ManifestError`, one line, with the
        ``--repair`` hint).
    """
    directory = Path(directory)
    manifest = rundir.read_manifest(directory)
    config, kind, fmt = manifest["config"], manifest["kind"], manifest["format"]
    if kind == "labels":
        raise ValueError(label_run_text(directory))
    if kind == "reviews":
        where = os.fspath(directory)
        raise ValueError(f"run: {where!r} holds a review run (burraco review --hands), not "
                         f"hand records; read it with sim.analysis.review_run.load_reviews("
                         f"{where!r}) (docs/review.md)")
    total = int(config[kind])
    status = RunStatus(os.fspath(directory), config, bool(manifest.get("finished")), kind=kind,
                       manifest_format=fmt, writer=holder(directory))
    selection = config.get("selection") if kind == "hands" else None
    if kind == "matches":
        status.matches_total = total
    else:
        status.hands_total = int(selection["hands"]) if selection else total
    listed = set(manifest.get("shards") or [])
    for a, b in rundir.manifest_bounds(manifest):
        files = rundir.shard_files(directory, kind, fmt, a, b)
        name = files[-1].name
        if not files[-1].exists():
            if name in listed:
                status.corrupt[name] = ("lost: the manifest lists it as complete but the file "
                                        "is gone; the same 'burraco simulate' command simulates "
                                        "it again")
            else:
                status.missing.append(name)
            if kind == "matches" and files[0].exists():
                status.stray[os.fspath(files[0].relative_to(directory))] = (
                    "the match table of a shard whose hand rows were never written (an "
                    "interrupted write); the same 'burraco simulate' command completes it")
            continue
        if kind == "matches":
            why, rows = _match_shard_problem(files[0], files[1], a, b, manifest["run_id"])
        elif selection:
            why, rows = _selected_shard_problem(files[0], a, b, manifest["run_id"])
        else:
            why, rows = _shard_problem(files[0], a, b, manifest["run_id"]), b - a
        if why is not None and "belongs to another run" in why:
            # another run's file under this run's name: never re-simulated over (sim.rundir)
            try:
                rid = dataset.read_metadata(files[-1]).get("run_id", "?")
            except Exception:
                rid = "?"
            why = f"a shard of another run ({rid}) under one of this run's names; move it out"
        if why is None:
            status.ok.append(name)
            status.rows[name] = rows
            status.rows_matches[name] = b - a if kind == "matches" else 0
            status.hands_done += rows
            status.matches_done += b - a if kind == "matches" else 0
        else:
            status.corrupt[name] = why
    if selection and status.complete:
        status.manifest_problem = _selection_problem(directory, status, selection)
    found = rundir.listing(directory, manifest)
    status.stray.update(found.stray)
    status.others = found.others
    if fmt < rundir.FORMAT and any(o.rstrip("/") in (dataset.HANDS_DIR, dataset.MATCHES_DIR)
                                   for o in found.others):
        status.manifest_problem = (f"the {MANIFEST} says the first layout (shards beside it) "
                                   "but the directory has hands/ or matches/: "
                                   f"{rundir.repair_hint(os.fspath(directory))}")
    for rel, why in found.stray.items():
        if "if the manifest was edited" in why:
            status.manifest_problem = (f"the {MANIFEST} disagrees with its shards ({rel} is {why})")
            break
    return status


def _sound(directory, what: str) -> RunStatus:
    """:func:`check_run`, refusing a directory with a corrupt shard (one-line ValueError)."""
    try:
        status = check_run(directory)
    except rundir.ManifestError as exc:
        raise ValueError(f"{what}: {str(exc).partition(': ')[2]}") from None
    if status.manifest_problem:
        raise ValueError(f"{what}: {status.directory!r}: {status.manifest_problem}")
    if status.corrupt:
        name, why = sorted(status.corrupt.items())[0]
        raise ValueError(f"{what}: shard {name} of {status.directory!r} is corrupt ({why}); "
                         "run the same 'burraco simulate' command again to re-simulate it")
    return status


def load(directory: str | os.PathLike, columns=None, filter=None) -> pd.DataFrame:
    """The hands of a run directory as a DataFrame, checked against its manifest.

    The one reader of run directories: it reads exactly the run's complete
    shards (never a stray or foreign file, never a corrupt one), via
    ``pyarrow.dataset``, with the documented types (:data:`sim.core.dataset.COLUMNS`;
    the nullable columns as pandas' ``Int8``/``Int16``/``Int32``/``boolean``).

    Parameters
    ----------
    directory : str or os.PathLike
        Output directory of ``burraco simulate`` (complete or partial).
    columns : sequence of str, optional
        Columns to read (:data:`sim.core.dataset.COLUMNS` names, for a match run
        :data:`sim.core.dataset.MATCH_HAND_COLUMNS`; default all).
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
        Not a run directory, a damaged manifest, a corrupt shard (the message
        names it; run the same ``burraco simulate`` command to re-simulate
        it), an unknown column, or a filter that names an unknown column or
        does not apply to it (one line each).
    """
    status = _sound(directory, "load")
    schema = dataset.MATCH_HAND_SCHEMA if status.kind == "matches" else dataset.SCHEMA
    hands_dir = rundir.data_dirs(status.manifest_format)[0]
    return _read(status, hands_dir, schema, columns, filter, "hand_index", "load")


def _read(status: RunStatus, sub: str, schema: pa.Schema, columns, filter, key: str,
          what: str) -> pd.DataFrame:
    """The ``ok`` shards of ``status`` in ``directory/sub`` as one frame sorted by ``key``."""
    if columns is not None:
        if isinstance(columns, str):
            columns = [columns]
        unknown = [c for c in columns if c not in schema.names]
        if unknown:
            raise ValueError(f"{what}: unknown column {unknown[0]!r}; the columns are "
                             "sim.dataset.COLUMNS (a match run's hands: MATCH_HAND_COLUMNS)")
    filter = _filter_expression(filter, schema, what)
    files = [os.path.join(status.directory, sub, n) for n in status.ok]
    cols = list(columns) if columns is not None else schema.names
    if not files:
        return dataset.table_to_frame(schema.empty_table().select(cols))
    try:
        table = pds.dataset(files, format="parquet", schema=schema).to_table(
            columns=cols, filter=filter)
    except (pa.ArrowException, TypeError, OSError) as exc:
        text = " ".join(str(exc).split())
        field = re.search(r"No match for FieldRef\.Name\((\w+)\)", text)
        if field:
            text = (f"unknown column {field.group(1)!r}; the columns are sim.dataset.COLUMNS "
                    "(a match run's hands: MATCH_HAND_COLUMNS)")
        elif filter is None or isinstance(exc, OSError):
            bad = next((f for f in files if not _readable(f)), "a shard")
            raise ValueError(f"{what}: {os.fspath(bad)!r} cannot be read ({text[:120]}); its "
                             "footer is sound but its data is damaged: delete that shard and "
                             "run the same 'burraco simulate' command again") from None
        raise ValueError(f"{what}: filter {filter}: {text[:200]}") from None
    frame = dataset.table_to_frame(table)
    if key in frame.columns:
        values = frame[key].to_numpy()
        if len(values) > 1 and not (values[1:] >= values[:-1]).all():
            frame = frame.sort_values(key, kind="stable").reset_index(drop=True)
    return frame


def _readable(path) -> bool:
    try:
        pq.read_table(path)
        return True
    except (OSError, pa.ArrowException):
        return False


def _filter_expression(filter, schema: pa.Schema, what: str):
    """``filter`` as a pyarrow expression, checking the column names it uses."""
    if filter is None or isinstance(filter, pc.Expression):
        return filter                       # an expression is checked when applied
    if not isinstance(filter, list):
        raise ValueError(f"{what}: filter must be a pyarrow.compute expression or a list of "
                         f"(column, op, value) tuples, got {type(filter).__name__}")
    flat = [t for group in filter for t in (group if isinstance(group, list) else [group])]
    for t in flat:
        if not isinstance(t, tuple) or len(t) != 3:
            raise ValueError(f"{what}: filter: expected (column, op, value) tuples, got {t!r}")
        if t[0] not in schema.names:
            raise ValueError(f"{what}: filter: unknown column {t[0]!r}; the columns are "
                             "sim.dataset.COLUMNS (a match run's hands: MATCH_HAND_COLUMNS)")
    try:
        return pq.filters_to_expression(filter)
    except (ValueError, TypeError, pa.ArrowException) as exc:
        raise ValueError(f"{what}: filter {filter!r}: {' '.join(str(exc).split())[:200]}") \
            from None


def load_matches(directory: str | os.PathLike, columns=None, filter=None) -> pd.DataFrame:
    """The match table of a match run directory (``burraco simulate --matches``).

    Parameters
    ----------
    directory : str or os.PathLike
        Output directory of a match run (complete or partial).
    columns : sequence of str, optional
        Columns to read (:data:`sim.core.dataset.MATCH_COLUMNS` names; default all).
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
        Not a match run directory, a corrupt shard, an unknown column or a
        bad filter.
    """
    status = _sound(directory, "load_matches")
    if status.kind != "matches":
        raise ValueError(f"load_matches: {status.directory!r} holds a hand run, not a match run "
                         "(burraco simulate --matches); read its hands with sim.load")
    sub = rundir.data_dirs(status.manifest_format)[1]
    return _read(status, sub, dataset.MATCH_SCHEMA, columns, filter, "match", "load_matches")


def summarize_run(directory: str | os.PathLike) -> tuple[Summary | MatchSummary, RunStatus]:
    """The run summary (as ``burraco simulate`` prints it, without the rows about the
    simulation: ``read_back`` is set) of the complete shards, and the directory's
    :class:`RunStatus`; a :class:`sim.batch.summary.MatchSummary` for a match run."""
    status = check_run(directory)
    summary = (MatchSummary if status.kind == "matches" else Summary)(read_back=True)
    hands_dir, matches_dir = rundir.data_dirs(status.manifest_format)
    for name in list(status.ok):
        path = os.path.join(status.directory, hands_dir, name)
        try:
            if status.kind == "matches":
                table = pq.read_table(path)
                matches = pq.read_table(os.path.join(status.directory, matches_dir, name))
                block = dataset.match_block(table, matches)
            else:
                block = dataset.table_to_records(pq.read_table(path))   # every column: checked
        except (OSError, pa.ArrowException, KeyError) as exc:
            # a sound footer over damaged data: only reading the data finds it
            status.ok.remove(name)
            status.corrupt[name] = f"damaged data ({' '.join(str(exc).split())[:100]})"
            status.hands_done -= status.rows.get(name, 0)
            status.matches_done -= status.rows_matches.get(name, 0)
            continue
        summary.add(block, resumed=True)
    summary.finish()
    return summary, status


