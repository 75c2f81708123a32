"""Directories of ``burraco sweep --out`` and ``burraco tune --out``: checking, resuming,
repairing and describing them.

Both keep the same shape::

    DIR/STATE.json          the configuration (its identity) and ``finished``
    DIR/DATA/NAME.parquet   one file per unit of work (a sweep's point, a tuning's
                            generation), each carrying the identity of its directory in
                            its Parquet key-value metadata
    DIR/...                 files derived from them (a summary, a report)
    DIR/.burraco.lock       the writer's lock (sim.lock)

so that ``pl.read_parquet("DIR/DATA/*.parquet")`` and every reader of the data
subdirectory reads only data, and the state file can be rebuilt from the data
files (:func:`repair`).  A :class:`Layout` says the names of one kind; the rules
are common:

* A directory holding none of these files and other files is refused (use an
  empty or new directory).  Beside a sweep or tuning, files it did not write
  (notes, plots) are ignored, listed in a note, and never deleted, ``overwrite``
  included.  A file in ``DATA/`` that is not one of the data files is refused
  (every reader of ``DATA/`` would take it for data): move it out.
* A damaged or missing state file beside data files is refused with the way to
  rebuild it, ``burraco summarize DIR --repair``, or to start again,
  ``--overwrite``, saying how many files of played work that deletes.
* A data file naming another configuration is refused, with or without
  ``overwrite``: move it out.
* Every refusal comes from :func:`plan`, which only reads; :func:`sim._util.lock.claim`
  runs it before creating anything and again under the lock.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim._util.lock import LOCK_NAME, claim
from sim.batch.repair import _lock_error
from sim.batch.outdir import OutputError, kept_text, repair_lines, set_aside, write_error


@dataclass(frozen=True)
class Layout:
    """The names of one kind of directory.

    Attributes
    ----------
    what : str
        The kind in words (``"sweep"``, ``"tuning"``), and the command (``burraco sweep``).
    command : str
    state : str
        The state file (``_sweep.json``).
    data : str
        The data subdirectory (``points``).
    pattern : str
        Regular expression of a data file's name, its number as group 1.
    name : str
        Format of a data file's name from its number (``"point-{:03d}.parquet"``).
    derived : tuple of str
        The other files it writes at the top (``_summary.csv``).
    meta_key : bytes
        The Parquet key-value metadata holding a data file's identity.
    unit : str
        A data file's unit of work in words (``"point"``, ``"generation"``).
    legacy_top : bool
        An earlier layout kept the data files at the top (sweeps before ``points/``).
    """
    what: str
    command: str
    state: str
    data: str
    pattern: str
    name: str
    derived: tuple
    meta_key: bytes
    unit: str
    legacy_top: bool = False

    def file_re(self) -> re.Pattern:
        return re.compile(self.pattern)

    def temp_re(self) -> re.Pattern:
        return re.compile(r"\.?" + self.pattern.replace("(", "(?:") + r"\.tmp")


@dataclass
class Scan:
    """What a directory holds, sorted by :func:`scan`.

    Attributes
    ----------
    files : dict
        Number -> path of the data files in ``DATA/``.
    legacy : dict
        Number -> path of data files at the top (an earlier layout).
    temps : list of pathlib.Path
        Temporary files of an interrupted write (ours, deleted before writing).
    stray : list of str
        Entries of ``DATA/`` that are not data files (relative paths).
    others : list of str
        Entries at the top that the command did not write.
    state : dict or None
        The state file, parsed; None when missing or damaged (``state_problem`` says).
    state_problem : str or None
        ``"missing"``, or why the state file cannot be used.
    """
    files: dict = field(default_factory=dict)
    legacy: dict = field(default_factory=dict)
    temps: list = field(default_factory=list)
    stray: list = field(default_factory=list)
    others: list = field(default_factory=list)
    state: dict | None = None
    state_problem: str | None = None

    @property
    def played(self) -> int:
        """Data files holding played work (in ``DATA/`` and at the top)."""
        return len(self.files) + len(self.legacy)

    def any_ours(self, out: Path, layout: Layout) -> bool:
        return bool(self.played or self.state_problem != "missing"
                    or any((out / n).exists() for n in layout.derived)
                    or (out / layout.data).is_dir())


def scan(out: Path, layout: Layout, keys=()) -> Scan:
    """Sort the entries of ``out`` (reads only).

    Parameters
    ----------
    out : pathlib.Path
    layout : Layout
    keys : sequence of str
        Keys the state file must hold to be usable.
    """
    found = Scan()
    file_re, temp_re = layout.file_re(), layout.temp_re()
    ours = {layout.state, layout.state + ".tmp", LOCK_NAME, layout.data,
            *layout.derived, *(n + ".tmp" for n in layout.derived)}
    for p in sorted(out.iterdir()):
        m = file_re.fullmatch(p.name)
        if p.name == layout.data and p.is_dir() and not p.is_symlink():
            for q in sorted(p.iterdir()):
                mq = file_re.fullmatch(q.name)
                if mq and q.is_file() and not q.is_symlink():
                    found.files[int(mq.group(1))] = q
                elif temp_re.fullmatch(q.name) and q.is_file():
                    found.temps.append(q)
                else:
                    found.stray.append(f"{layout.data}/{q.name}")
        elif p.name in ours and p.is_file() and not p.is_symlink():
            if p.name.endswith(".tmp"):
                found.temps.append(p)
        elif layout.legacy_top and m and p.is_file() and not p.is_symlink():
            found.legacy[int(m.group(1))] = p
        elif layout.legacy_top and temp_re.fullmatch(p.name) and p.is_file():
            found.temps.append(p)
        else:
            found.others.append(p.name + ("/" if p.is_dir() else ""))
    path = out / layout.state
    if not path.exists():
        found.state_problem = "missing"
    else:
        try:
            state = json.loads(path.read_text())
            if not isinstance(state, dict) or any(k not in state for k in keys):
                raise ValueError
            found.state = state
        except (OSError, ValueError):
            found.state_problem = "damaged"
    return found


def identity_of(path: Path, layout: Layout) -> dict | None:
    """The identity a data file carries in its metadata, or None (unreadable, none)."""
    try:
        raw = (pq.read_schema(path).metadata or {}).get(layout.meta_key)
        meta = json.loads(raw) if raw is not None else None
    except (OSError, pa.ArrowException, ValueError, TypeError):
        return None
    return meta if isinstance(meta, dict) else None


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}" + ("" if n == 1 else "s")


def repair_hint(out: Path, layout: Layout) -> str:
    return (f"'burraco summarize {os.fspath(out)} --repair' rebuilds it from the "
            f"{layout.unit} files (nothing is played again or deleted)")


def overwrite_hint(found: Scan, layout: Layout) -> str:
    """What ``--overwrite`` would delete, in words (never said without it)."""
    if not found.played:
        return "--overwrite replaces it (nothing played is lost)"
    return (f"--overwrite deletes the {_count(found.played, layout.unit)} played and starts "
            "again")


def refuse_shape(out: Path, layout: Layout, found: Scan, overwrite: bool) -> None:
    """The refusals common to every command writing ``out`` (ValueError, one line)."""
    where = os.fspath(out)
    if found.others and not found.any_ours(out, layout):
        raise ValueError(f"out: {where!r} is not empty and holds no {layout.what} (found "
                         f"{found.others[0]!r}); use an empty or new directory")
    if found.stray:
        more = f" (and {len(found.stray) - 1} more)" if len(found.stray) > 1 else ""
        raise ValueError(f"out: {where!r} holds {found.stray[0]!r}{more}, which is not one of "
                         f"the {layout.what}'s files; every reader of {layout.data}/ would take "
                         "it for data: move it out of the directory, then run the command "
                         "again (nothing was changed)")
    if found.legacy and not overwrite:
        raise ValueError(f"out: {where!r} holds a {layout.what} in the layout of an earlier "
                         f"burraco-sim ({layout.unit} files beside {layout.state}); 'burraco "
                         f"summarize {where} --repair' moves them into {layout.data}/ (nothing "
                         "is played again), or use another directory")
    if found.state is None and found.played and not overwrite:
        problem = ("no " + layout.state if found.state_problem == "missing"
                   else "a damaged " + layout.state)
        raise ValueError(f"out: {where!r} holds {_count(found.played, layout.unit + ' file')} "
                         f"but {problem}; {repair_hint(out, layout)}, or "
                         f"{overwrite_hint(found, layout)}")


def note_others(out: Path, layout: Layout, found: Scan) -> None:
    """Say on stderr which files beside the work the command did not write (kept)."""
    if found.others:
        more = f" and {len(found.others) - 3} more" if len(found.others) > 3 else ""
        print(f"{layout.command.split()[-1]}: {os.fspath(out)!r} also holds "
              f"{', '.join(found.others[:3])}{more}, not written by {layout.command}: kept, "
              "never read", file=sys.stderr, flush=True)


def os_error(layout: Layout, done: int = 0):
    """The ``os_error`` of :func:`sim._util.lock.claim` and of a failed write, saying how many
    units of work are kept (only when some are)."""
    def error(path, exc: OSError) -> OutputError:
        return write_error(path, exc, kept_text(done, layout.unit))
    return error


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through ``NAME.tmp`` renamed into place (``OSError``
    passed on, and an interruption, the temporary file removed).  A file that holds
    ``text`` already is left as it is (not written, its time kept): a complete sweep or
    tuning run again writes nothing, and so needs no write permission."""
    with contextlib.suppress(OSError, UnicodeDecodeError):    # unreadable: written below
        if path.read_text() == text:
            return
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException:               # an OSError, or Ctrl-C / SIGTERM mid-write
        tmp.unlink(missing_ok=True)
        raise


def state_text(identity: dict, finished: bool) -> str:
    """The text of a state file: the identity of the work and whether it is ``finished``."""
    return json.dumps({**identity, "finished": finished}, indent=2) + "\n"


def complete(out: Path, layout: Layout, found: Scan, identity: dict, units: int) -> bool:
    """``out`` holds the finished work of ``identity`` as its command left it, so that the
    same command run again expects to write nothing (the ``check`` of :func:`sim._util.lock.claim`
    says so, and the command then works in a directory it may not write).

    The state file holds :func:`state_text` of ``identity`` finished, byte for byte; the
    data files are the ``units`` numbered ``0 .. units-1`` in ``DATA/``, none of an earlier
    layout at the top; every derived file is there; no temporary file is left to delete.
    Reads only; whether the data files are sound is the command's to find out (a damaged
    one is written again)."""
    try:
        if (out / layout.state).read_text() != state_text(identity, True):
            return False
    except (OSError, UnicodeDecodeError):
        return False
    return (not found.temps and not found.legacy and sorted(found.files) == list(range(units))
            and all((out / n).is_file() for n in layout.derived))


def write_tagged(frame, path: Path, key: bytes, identity: dict) -> None:
    """Write ``frame`` to ``path`` as Parquet with ``identity`` (as JSON) under the key-value
    metadata ``key``: as the hidden ``.NAME.tmp`` beside it (no reader of the directory
    reads it), renamed when complete; the temporary file is removed on any failure
    (``OSError`` passed on)."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(
            frame, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               key: json.dumps(identity).encode()})
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------ repair
@dataclass
class Repaired:
    """What :func:`repair` did.

    Attributes
    ----------
    directory : str
    layout : Layout
    used : list of str
        The data files the state was rebuilt from.
    moved : list of str
        Data files moved from an earlier layout into ``DATA/``.
    left : dict
        Data files not used (relative path -> why), left where they are.
    backup : str or None
        The name the old state file was kept under, if there was one.
    finished : bool
        Every unit of work is there: the state says ``finished``.
    """
    directory: str
    layout: Layout
    used: list
    moved: list
    left: dict
    backup: str | None
    finished: bool

    def format(self) -> str:
        """The report as ``burraco summarize --repair`` prints it."""
        head = (f"repaired: {self.directory}: a {self.layout.what}; {self.layout.state} was "
                f"rebuilt from {_count(len(self.used), self.layout.unit + ' file')} (nothing "
                "was played again or deleted)")
        moved = (f"moved {_count(len(self.moved), 'file')} to the current layout "
                 f"({self.layout.data}/)" if self.moved else None)
        lines = repair_lines(head, self.layout.state, self.backup, moved, self.left)
        lines.append("complete" if self.finished else
                     f"incomplete: run the same '{self.layout.command}' command again to "
                     "finish it (what is there is read back)")
        return "\n".join(lines)


def _repair_plan(out: Path, layout: Layout, group_key) -> tuple:
    """The identity to rebuild and the data files of it (reads only; ValueError refuses)."""
    where = os.fspath(out)
    found = scan(out, layout)
    if found.stray:
        raise ValueError(f"repair: {where!r} holds {found.stray[0]!r}, which is not one of the "
                         f"{layout.what}'s files; move it out of the directory, then repair "
                         "again (nothing was changed)")
    groups: dict = {}
    left: dict = {}
    for k, p, rel in ([(k, p, f"{layout.data}/{p.name}") for k, p in found.files.items()]
                      + [(k, p, p.name) for k, p in found.legacy.items()]):
        ident = identity_of(p, layout)
        if ident is None:
            left[rel] = f"no {layout.what} metadata (unreadable, or an earlier burraco-sim's)"
            continue
        groups.setdefault(group_key(ident), []).append((k, p, rel, ident))
    if not groups:
        raise ValueError(f"repair: {where!r} holds no {layout.unit} file that names its "
                         f"{layout.what} ({layout.data}/{layout.name.format(0)}...); nothing "
                         f"to rebuild {layout.state} from: run the {layout.what}'s command with "
                         f"--overwrite to play it again, or use another directory")
    old = found.state
    chosen = next(iter(groups)) if len(groups) == 1 else (
        group_key(old) if old is not None and group_key(old) in groups else None)
    if chosen is None:
        parts = ", ".join(f"{len(items)} files" for items in groups.values())
        raise ValueError(f"repair: {where!r} holds {layout.unit} files of {len(groups)} "
                         f"{layout.what}s ({parts}) and no {layout.state} naming one; move the "
                         f"files of the {layout.what}s you do not want out of the directory, "
                         "then repair again (nothing was changed)")
    for key, items in groups.items():
        if key != chosen:
            for _k, _p, rel, _i in items:
                left[rel] = f"a {layout.unit} file of another {layout.what}"
    use = sorted(groups[chosen], key=lambda it: it[0])
    clash = [layout.data + "/" + p.name for k, p, rel, _i in use
             if p.parent == out and k in found.files]
    if clash:
        raise ValueError(f"repair: {os.fspath(out / clash[0])!r} is in the way of moving the "
                         f"{layout.what} to the current layout; move it out, then repair "
                         "again (nothing was changed)")
    return use[0][3], use, left


def repair(out, layout: Layout, group_key, convert, finish, current=dict) -> Repaired:
    """Rebuild the state file of a sweep or tuning directory from its data files.

    Parameters
    ----------
    out : path
    layout : Layout
    group_key : callable
        ``group_key(identity)``: equal for the data files of one configuration.
    convert : callable
        ``convert(path, identity) -> pyarrow.Table`` of a data file of an earlier layout in
        the current one (moved into ``DATA/``; the file at the top removed once its
        conversion is in place).
    finish : callable
        ``finish(out, identity, numbers) -> bool``: whether the work is complete with the
        data files ``numbers`` (it may rewrite derived files); its answer is ``finished``.
    current : callable
        ``current(identity)``: a data file's identity in the current format (the state
        file and the metadata of converted files).

    Returns
    -------
    Repaired

    Raises
    ------
    ValueError
        Not a directory, no data file naming its configuration, data files of several
        configurations and no state file naming one, a file in the way (one line;
        nothing changed).
    sim.lock.LockedError
        Another process writes the directory.
    """
    out = Path(out)
    where = os.fspath(out)
    if not out.is_dir():
        raise ValueError(f"repair: {where!r} is not a directory")

    def check(d: Path) -> bool:
        _repair_plan(d, layout, group_key)
        return False

    with claim(out, check, _lock_error("repair"), "repair") as hold:
        ident, use, left = _repair_plan(out, layout, group_key)
        ident = current(ident)
        hold.keep()
        try:
            moved = []
            (out / layout.data).mkdir(exist_ok=True)
            for _k, p, _rel, i in use:
                if p.parent == out:                 # an earlier layout: into DATA/
                    write_tagged(convert(p, i), out / layout.data / p.name, layout.meta_key,
                                 current(i))
                    p.unlink()
                    moved.append(p.name)
            backup = set_aside(out / layout.state)
            numbers = [k for k, *_ in use]
            write_text(out / layout.state, state_text(ident, False))
            done = finish(out, ident, numbers)
            if done:
                write_text(out / layout.state, state_text(ident, True))
        except OSError as exc:
            raise write_error(out, exc) from None
    return Repaired(where, layout, [rel for *_x, rel, _i in use], moved, left, backup, done)


# ------------------------------------------------------------------ status
def status_lines(out: Path, layout: Layout, total, done: int) -> list:
    """The lines ``burraco summarize`` prints for a sweep or tuning directory."""
    where = os.fspath(out)
    found = scan(out, layout)
    lines = [f"{layout.what}: {where}"]
    if total is not None:
        lines.append(f"progress: {done:,} of {_count(total, layout.unit)}"
                     + ("; complete" if found.state and found.state.get("finished") else
                        f"; incomplete: run the same '{layout.command}' command again to "
                        "finish it"))
    if found.state is None:
        problem = "missing" if found.state_problem == "missing" else "damaged"
        lines.append(f"{layout.state}: {problem}; {repair_hint(out, layout)}")
    if found.legacy:
        lines.append(f"layout: an earlier burraco-sim's ({layout.unit} files beside "
                     f"{layout.state}); 'burraco summarize {where} --repair' moves them into "
                     f"{layout.data}/")
    for rel in found.stray:
        lines.append(f"stray file {rel}: not one of the {layout.what}'s files (readers of "
                     f"{layout.data}/ would take it for data): move it out of the directory")
    if found.others:
        lines.append(f"other files (not written by {layout.command}, never read): "
                     + ", ".join(found.others[:5])
                     + (f" and {len(found.others) - 5} more" if len(found.others) > 5 else ""))
    return lines


