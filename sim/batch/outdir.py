"""Opening a run directory to write, and the errors of writing it.

:func:`_check_out` checks a directory before a run writes it: a different run, an
earlier layout, a damaged manifest, stray or foreign files are refused in one line,
nothing created or deleted; it says whether the run resumes, extends or starts
(:class:`OutPlan`), and :func:`_apply_out` deletes what it planned (temporary files; a
run replaced with ``overwrite``).  :func:`_write_json` writes the manifest atomically;
:func:`write_error` turns an ``OSError`` into a one-line :class:`OutputError` that says
what is kept only when something is; :func:`set_aside` and :func:`repair_lines` serve
the repairs.  The layout itself is :mod:`sim.batch.rundir`.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from sim._version import __version__
from sim.batch.rundir import (COUNT_KEY, FORMAT, LABELS_DIR, MANIFEST, REVIEWS_DIR, SHARD_RE,
                              ManifestError,
                              _default_shard_size,
                              _selection_text, data_dirs, foreign_shards, listing,
                              manifest_bounds, read_manifest, repair_hint, shard_files)
from sim.core import dataset
from sim.strategies import canonical_name, recorded_spec


def _refuse_renamed_rollout(where: str, pairs: list) -> None:
    """Raise the reason a resumed run's seats differ when every differing seat is a
    ``rollout`` name recorded while the flat search was its default and the seat now plays
    that same search under its new name (:func:`sim.strategies.recorded_spec`); ``pairs``
    are ``(seat, recorded name, name now)``."""
    same = []
    for _i, was, now in pairs:
        try:
            if not (isinstance(was, str) and recorded_spec(was) != was
                    and canonical_name(recorded_spec(was)) == now):
                return
        except ValueError:
            return
        same.append((was, now))
    if same:
        was, now = same[0]
        raise ValueError(f"out: {where!r} was simulated while rollout's default was the flat "
                         f"search, recorded as {was!r}, which is now named {now!r}; a run keeps "
                         "the names it recorded, so this version does not extend it: replay "
                         "and analyze it as it is, and simulate more hands into another "
                         "directory")


# ---------------------------------------------------------------- writing a run directory
def _versions() -> dict:
    import numba
    return {"burraco_sim": __version__, "numba": numba.__version__, "numpy": np.__version__,
            "pyarrow": pa.__version__, "pandas": pd.__version__,
            "python": platform.python_version()}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def repair_lines(head: str, what: str, backup: str | None, moved: str | None,
                 left: dict) -> list:
    """The lines of a repair's report: ``head``, where the old ``what`` is kept, the moves,
    and every file not used with why."""
    lines = [head]
    if backup:
        lines.append(f"the old {what} is kept as {backup}")
    if moved:
        lines.append(moved)
    lines += [f"not used: {rel}: {why}" for rel, why in sorted(left.items())]
    return lines


def set_aside(path: Path) -> str | None:
    """Keep the file ``path`` that a repair replaces: rename it to ``NAME.replaced-TIME``
    (``-2``, ``-3`` ... appended rather than replace a file kept before).

    Returns
    -------
    str or None
        The new name, or None when there was no file (``OSError`` passed on).
    """
    if not path.exists():
        return None
    stamp = _now().replace(":", "").replace("+0000", "Z")
    backup = f"{path.name}.replaced-{stamp}"
    k = 1
    while (path.parent / backup).exists():          # never replace a kept file
        k += 1
        backup = f"{path.name}.replaced-{stamp}-{k}"
    os.rename(path, path.parent / backup)
    return backup


class OutputError(ValueError):
    """The output directory cannot be written (full disk, permissions, a file in the way).

    A ``ValueError``, so the CLI reports it in one line with exit code 2.
    """


def kept_text(done: int, unit: str) -> str:
    """What an interrupted or failed write keeps, in words: ``"the 3 completed shards are
    kept"``, ``"the completed shard is kept"``, or ``""`` when nothing was completed."""
    if done <= 0:
        return ""
    return (f"the completed {unit} is kept" if done == 1
            else f"the {done:,} completed {unit}s are kept")


def write_error(what, exc: OSError, kept: str = "") -> OutputError:
    """The one-line error of an output directory that cannot be written.

    Parameters
    ----------
    what : path
        What was being written (``exc.filename`` when it names a file).
    exc : OSError
    kept : str
        What stays in the directory (:func:`kept_text`); said only when not empty.
    """
    what = exc.filename if isinstance(exc.filename, str) and exc.filename else what
    kept = f"{kept}: " if kept else ""
    return OutputError(f"out: cannot write {os.fspath(what)!r}: {exc.strerror or exc}; "
                       f"{kept}fix it and run the same command again")


def _os_error(what, exc: OSError, done: int = 0) -> OutputError:
    return write_error(what, exc, kept_text(done, "shard"))


def _write_json(path: Path, data: dict) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place (``OSError``
    passed on, and an interruption, the temporary file removed)."""
    tmp = Path(dataset.temp_name(path))
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except BaseException:               # an OSError, or Ctrl-C / SIGTERM mid-write
        tmp.unlink(missing_ok=True)
        raise


def _differs(old: dict, config: dict) -> list:
    return sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))


def _first(items, n: int = 1) -> str:
    items = list(items)
    more = f" and {len(items) - n} more" if len(items) > n else ""
    return ", ".join(repr(i) for i in items[:n]) + more


@dataclass
class OutPlan:
    """What :func:`_check_out` found: the manifest to resume (None: a new run) and what
    :func:`_apply_out` deletes before the run writes (files, then emptied directories)."""
    manifest: dict | None
    delete: list = field(default_factory=list)
    rmdirs: list = field(default_factory=list)

    @property
    def writes_nothing(self) -> bool:
        """A complete run run again: nothing to delete, extend or simulate."""
        return bool(self.manifest and self.manifest.get("finished") and not self.delete)


def _apply_out(plan: OutPlan) -> None:
    """Delete what :func:`_check_out` planned (``OSError`` passed on)."""
    for f in plan.delete:               # the shards first, the manifest last
        f.unlink(missing_ok=True)
    for d in plan.rmdirs:
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()


def _check_out(out: Path, config: dict, overwrite: bool, kind: str = "hands") -> OutPlan:
    """Check the output directory and say how to write it; reads only.

    Run once before the directory is locked (a refusal then creates nothing) and again
    under the lock (:func:`sim._util.lock.claim`); :func:`_apply_out` then deletes what the plan
    says: with ``overwrite`` only the files of the run in ``out`` (manifest, its shards,
    temporary files), and only when no file the run does not own sits in its data
    subdirectories; other files beside the run (notes, plots) are kept.

    ``config["shard_size"]`` may be None: the manifest's when resuming, else
    :data:`DEFAULT_SHARD_SIZE` (matches: ``MATCH_SHARD_HANDS // cap``); the
    chosen value is written into ``config``.

    Returns
    -------
    OutPlan
        The manifest to resume (extended when ``config`` asks for more hands or
        matches than it holds), or None for a new run, and what to delete first.

    Raises
    ------
    ValueError
        A different run, an earlier layout, a damaged manifest, stray or
        foreign files (one line each; nothing deleted).
    """
    where = os.fspath(out)
    unit = {"hands": "hand", "matches": "match", "labels": "label", "reviews": "review"}
    count = COUNT_KEY[kind]
    try:
        manifest = read_manifest(out, "out")
    except ManifestError as exc:
        if not (out / MANIFEST).exists():
            manifest = None
        else:
            raise ValueError(f"{exc}; or use another directory") from None
    if manifest is not None and manifest["format"] < FORMAT and not overwrite:
        raise ValueError(f"out: {where!r} holds a run in the layout of an earlier burraco-sim "
                         "(shards beside the manifest); 'burraco summarize "
                         f"{where} --repair' moves it to the current layout (nothing is "
                         "simulated again), or use another directory")
    found = listing(out, manifest)
    if manifest is None:
        shards = [n for n in list(found.stray) + found.others
                  if SHARD_RE.match(n.rpartition("/")[2])]
        if shards:
            raise ValueError(f"out: {where!r} holds shard files ({_first(shards)}) but no "
                             f"{MANIFEST}; {repair_hint(where)}, or use another "
                             "directory")
        if found.stray or found.others:
            raise ValueError(f"out: {where!r} is not empty and holds no burraco-sim run "
                             f"(found {_first(list(found.stray) + found.others)}); use an "
                             "empty or new directory")
    if manifest is not None:
        foreign = foreign_shards(out, manifest)
        if manifest["format"] < FORMAT:       # a new-layout directory in the way
            for sub in (dataset.HANDS_DIR, dataset.MATCHES_DIR, LABELS_DIR):
                if (out / sub).is_dir() and any((out / sub).iterdir()):
                    foreign[sub + "/"] = ("a data directory of the current layout beside a run "
                                          "of the first layout")
        if foreign:
            rel, why = next(iter(foreign.items()))
            more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
            raise ValueError(f"out: {where!r} holds {rel!r}{more}, {why}; move it out of the "
                             "directory, then run the command again (nothing was changed)")
    if found.stray:
        rel, why = next(iter(found.stray.items()))
        more = f" (and {len(found.stray) - 1} more)" if len(found.stray) > 1 else ""
        if "--repair" in why and "edited" in why:
            raise ValueError(f"out: the {MANIFEST} of {where!r} disagrees with its shards: "
                             f"{rel!r}{more} is {why} (nothing was changed)")
        raise ValueError(f"out: {where!r} holds {rel!r}{more}, which is not part of the run "
                         f"({why}); readers of the directory would take it for data: move it "
                         "out, then run the command again (nothing was changed)")
    plan = OutPlan(None, list(found.temps))   # temporary files of an interrupted write
    if manifest is not None and overwrite:
        plan.delete += [f for a, b in manifest_bounds(manifest)
                        for f in shard_files(out, manifest["kind"], manifest["format"], a, b)
                        if f.exists()]
        plan.delete.append(out / MANIFEST)
        plan.rmdirs = [out / sub for sub in data_dirs(manifest["format"]) if sub]
        if manifest["kind"] == "labels":
            plan.rmdirs.append(out / LABELS_DIR)
        if manifest["kind"] == "reviews":
            plan.rmdirs.append(out / REVIEWS_DIR)
        manifest = None
    if manifest is None:
        if config["shard_size"] is None:
            config["shard_size"] = _default_shard_size(config)
        return plan
    old = manifest["config"]
    if manifest["kind"] != kind:
        old_kind = manifest["kind"]
        how = {"hands": "burraco simulate --hands", "matches": "burraco simulate --matches",
               "labels": "burraco label", "reviews": "burraco review --hands"}
        raise ValueError(f"out: {where!r} holds a {unit[old_kind]} run ({how[old_kind]}), not "
                         f"a {unit[kind]} run; use another directory or overwrite "
                         "(--overwrite)")
    if bool(old.get("selection")) != bool(config.get("selection")):
        if old.get("selection"):
            raise ValueError(f"out: {where!r} holds a run of selected hands "
                             f"({_selection_text(old['selection'])}), not of every hand "
                             "0..N-1; a full run is never mixed with a selected one: use another "
                             "directory or overwrite (--overwrite)")
        raise ValueError(f"out: {where!r} holds a run of every hand 0..{int(old['hands']) - 1}; "
                         "a selected run (hand_index, --where) is never mixed with a full one: "
                         "use another directory or overwrite (--overwrite)")
    if config["shard_size"] is None:
        config["shard_size"] = old["shard_size"]
    keys = _differs(old, config)
    if old.get("selection") and int(old["hands"]) != int(config["hands"]):
        raise ValueError(f"out: {where!r} holds a run of selected hands among hands "
                         f"0..{int(old['hands']) - 1}; --hands {int(config['hands']):,} differs, "
                         "and a selected run is never extended or shrunk: use another directory")
    if keys and keys != [count]:
        shown = [k for k in keys if k != count]
        if "rules" in shown:
            opts = _differs(old.get("rules") or {}, config.get("rules") or {})
            shown[shown.index("rules")] = f"rules: {', '.join(opts)}"
        if "strategies" in shown:
            pairs = [(i, x, y) for i, (x, y) in enumerate(zip(old.get("strategies") or [],
                                                               config.get("strategies") or []))
                     if x != y]
            _refuse_renamed_rollout(where, pairs)
            seats = [str(i) for i, _x, _y in pairs]
            shown[shown.index("strategies")] = f"strategies of seat {', '.join(seats)}"
        if "review" in shown:                      # a review run's settings, named
            opts = _differs(old.get("review") or {}, config.get("review") or {})
            shown[shown.index("review")] = f"review: {', '.join(opts)}"
        if "selection" in shown:
            shown[shown.index("selection")] = (
                f"selection: {_selection_text(old['selection'])}, now "
                f"{_selection_text(config['selection'])}")
        if "strategy_sources" in shown:
            was, now = old.get("strategy_sources") or {}, config.get("strategy_sources") or {}
            edited = sorted(n for n in set(was) & set(now) if was[n] != now[n])
            i = shown.index("strategy_sources")
            if edited:
                shown[i] = (f"the source of the Python strategy {edited[0]!r}, which changed "
                            f"since the run began: digest {was[edited[0]]}, now "
                            f"{now[edited[0]]}")
            else:
                del shown[i]
        raise ValueError(f"out: {where!r} holds a different run (differs in: "
                         f"{'; '.join(shown)}); use another directory or overwrite (--overwrite)")
    if manifest["versions"].get("burraco_sim") != __version__:
        raise ValueError(f"out: {where!r} holds a run of burraco-sim "
                         f"{manifest['versions'].get('burraco_sim')}, this is {__version__}; use "
                         "another directory or overwrite (--overwrite)")
    if keys == [count]:
        have, want = int(old[count]), int(config[count])
        if want < have:
            key = "hand_index" if kind == "hands" else "match"
            first = (f"sim.analysis.review_run.load_reviews({where!r}).query('hand < {want}')"
                     if kind == "reviews" else
                     f"sim.load({where!r}, filter=[({key!r}, '<', {want})])")
            raise ValueError(f"out: {where!r} holds a run of {have:,} {count}; --{count} "
                             f"{want:,} is fewer (a run is never shrunk: {first} reads the "
                             "first ones), or use another directory")
        manifest["extents"] = [list(e) for e in manifest["extents"]] + [[have, want]]
        manifest["config"] = dict(old, **{count: want})
        manifest["finished"] = False
    plan.manifest = manifest
    return plan
