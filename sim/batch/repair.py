"""Repairing a run directory: :func:`repair_run` rebuilds a damaged or hand-edited
manifest from the configuration each shard carries, moves an earlier layout's files
into the current one and sets aside what does not belong to the run (under the
directory's lock, checking everything before it moves anything).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sim._util.lock import claim
from sim._util.text import not_a_directory, plural
from sim.core import dataset
from sim.batch import outdir, rundir
from sim.batch.read import RunStatus, check_run
from sim.batch.outdir import _now, _write_json


@dataclass
class RepairReport:
    """What :func:`repair_run` did.

    Attributes
    ----------
    directory, run_id, kind : str
    moved : list of str
        Files moved from the first layout into ``hands/`` and ``matches/``.
    ok : list of str
        Sound shards the new manifest lists as complete.
    left : dict
        Shard-named files not used (relative path -> why): another run's,
        unreadable or with another configuration.  Left where they are.
    backup : str or None
        Where the old manifest was kept (renamed, never deleted), if there was one.
    status : RunStatus
        :func:`check_run` of the repaired directory.
    """

    directory: str
    run_id: str
    kind: str
    moved: list
    ok: list
    left: dict
    backup: str | None
    status: RunStatus

    def format(self) -> str:
        """The report as ``burraco summarize --repair`` prints it."""
        head = (f"repaired: {self.directory}: a {'match' if self.kind == 'matches' else 'hand'}"
                f" run ({self.run_id}); the manifest was rebuilt from "
                f"{plural(len(self.ok), 'sound shard')} (nothing was simulated or deleted)")
        moved = (f"moved {plural(len(self.moved), 'file')} to the current layout (hands/, matches/)"
                 if self.moved else None)
        return "\n".join(outdir.repair_lines(head, "manifest", self.backup, moved, self.left))


def _same_run(a: dict, b: dict, kind: str) -> bool:
    """Two shard configurations of one run: equal but for the number of hands or matches."""
    return {k: v for k, v in a.items() if k != kind} == {k: v for k, v in b.items() if k != kind}


def repair_run(directory: str | os.PathLike) -> RepairReport:
    """Rebuild the manifest of a run directory from the shards it holds.

    Every shard carries the run's configuration, run id, extents and versions
    in its Parquet metadata; the manifest is rebuilt from them, so a damaged,
    missing or hand-edited manifest is repaired without simulating a healthy
    shard again.  A run in the first layout (shards beside the manifest) is
    moved into ``hands/`` and ``matches/`` (renames only).  Nothing is
    deleted: the old manifest is kept as ``_manifest.json.replaced-TIME``, and
    shard files that are not the run's stay where they are (reported).

    Parameters
    ----------
    directory : str or os.PathLike
        A run directory.

    Returns
    -------
    RepairReport

    Raises
    ------
    ValueError
        Not a directory, no shard with burraco-sim metadata, shards of more
        than one run (and no readable manifest naming one of them), or a file
        in the way of a move (one line; nothing changed).
    sim.lock.LockedError
        Another process writes the directory.
    """
    directory = Path(directory)
    where = os.fspath(directory)
    if not directory.is_dir():
        raise ValueError(not_a_directory("repair", where))
    parent = rundir.inside_run_data(directory)
    if parent is not None:
        raise ValueError(f"repair: {where!r} is the data directory of the run in "
                         f"{os.fspath(parent)!r}; repair {os.fspath(parent)!r} itself")
    def check(d: Path) -> bool:
        _repair_plan(d, where)
        return False                                    # a repair writes

    with claim(directory, check, _lock_error("repair"), "repair") as hold:
        plan = _repair_plan(directory, where)           # again, under the lock
        hold.keep()
        try:
            return _repair_apply(directory, where, *plan)
        except OSError as exc:
            raise outdir.write_error(directory, exc) from None


def _lock_error(what: str):
    """The ``os_error`` of :func:`sim._util.lock.claim` for a repair: the directory cannot be
    locked (a one-line ``ValueError``)."""
    def error(path, exc: OSError) -> ValueError:
        return ValueError(f"{what}: cannot lock {os.fspath(path)!r} ({exc.strerror or exc}: "
                          f"{exc.filename or rundir.LOCK_NAME})")
    return error


def _repair_plan(directory: Path, where: str) -> tuple:
    """What :func:`repair_run` does, found by reading only (a refusal changes nothing)."""
    try:
        old = rundir.read_manifest(directory)
    except rundir.ManifestError:
        old = None
    if (old is not None and old["kind"] == "labels") or (directory / rundir.LABELS_DIR).is_dir():
        raise ValueError(f"repair: {where!r} holds a label run (burraco label), which --repair "
                         "does not rebuild; the same 'burraco label' command resumes it")
    if (old is not None and old["kind"] == "reviews") or (directory / rundir.REVIEWS_DIR).is_dir():
        raise ValueError(f"repair: {where!r} holds a review run (burraco review --hands), which "
                         "--repair does not rebuild; the same command resumes it")
    groups: dict = {}
    left: dict = {}
    for sub in (dataset.HANDS_DIR, ""):            # the current layout, then the first
        folder = directory / sub
        if not folder.is_dir():
            continue
        for f in sorted(folder.iterdir()):
            if not (f.is_file() and rundir.SHARD_RE.match(f.name)):
                continue
            rel = f"{sub}/{f.name}" if sub else f.name
            try:
                meta = dataset.read_metadata(f)
            except Exception:
                left[rel] = "unreadable Parquet file"
                continue
            if not meta.get("run_id") or not isinstance(meta.get("config"), dict):
                left[rel] = "no burraco-sim metadata"
                continue
            groups.setdefault(meta["run_id"], []).append((sub, f, rel, meta))
    if not groups:
        raise ValueError(f"repair: {where!r} holds no shard of a burraco-sim run "
                         "(hands/shard-*.parquet); nothing to repair")
    if len(groups) > 1 and not (old and old["run_id"] in groups):
        parts = ", ".join(f"{rid}: {plural(len(items), 'shard')}"
                          for rid, items in sorted(groups.items()))
        raise ValueError(f"repair: {where!r} holds shards of {plural(len(groups), 'run')} ({parts}); "
                         "move the shards of the runs you do not want out of the directory, "
                         "then repair again (nothing was changed)")
    run_id = old["run_id"] if len(groups) > 1 else next(iter(groups))
    for rid, items in groups.items():
        if rid != run_id:
            for _sub, _f, rel, _m in items:
                left[rel] = f"a shard of another run ({rid})"
    items = groups[run_id]
    kind = rundir.kind_of(items[0][3]["config"])
    best = max(items, key=lambda it: int(it[3]["config"].get(kind, 0)))[3]
    config = best["config"]
    legacy = int(best.get("format", 1)) < 2
    expected = rundir.legacy_run_id(config) if legacy else rundir.identity(config)
    if not legacy and expected != run_id:
        raise ValueError(f"repair: the shards of {where!r} carry run id {run_id} but a "
                         "configuration that does not give it; they cannot be trusted, "
                         "nothing was changed")
    use = []
    for it in items:
        if _same_run(it[3]["config"], config, kind):
            use.append(it)
        else:
            left[it[2]] = "a shard of this run id with another configuration"
    total = int(config[kind])
    extents = best.get("extents") or [[0, total]]
    if (old is not None and old["run_id"] == run_id and _same_run(old["config"], config, kind)
            and int(old["config"][kind]) >= total):
        # a sound manifest (an interrupted extension, say): keep its target
        config, extents = old["config"], old["extents"]
    # moves from the first layout, all checked before any is made
    moves = []
    for sub, f, rel, _meta in use:
        if sub == "":
            moves.append((f, directory / dataset.HANDS_DIR / f.name))
            table = directory / dataset.LEGACY_MATCHES_DIR / f.name
            if kind == "matches" and table.exists():
                moves.append((table, directory / dataset.MATCHES_DIR / f.name))
    clash = [dst for _src, dst in moves if dst.exists()]
    if clash:
        raise ValueError(f"repair: {os.fspath(clash[0])!r} is in the way of moving the run "
                         "to the current layout; move it out, then repair again (nothing "
                         "was changed)")
    return run_id, kind, config, extents, best, legacy, old, moves, left


def _repair_apply(directory: Path, where: str, run_id, kind, config, extents, best, legacy,
                  old, moves, left) -> RepairReport:
    """Make the moves and write the manifest that :func:`_repair_plan` planned."""
    moved = []
    for src, dst in moves:
        dst.parent.mkdir(exist_ok=True)
        os.rename(src, dst)
        moved.append(os.fspath(dst.relative_to(directory)))
    legacy_dir = directory / dataset.LEGACY_MATCHES_DIR
    if moved and legacy_dir.is_dir() and not any(legacy_dir.iterdir()):
        legacy_dir.rmdir()
    path = directory / rundir.MANIFEST
    backup = outdir.set_aside(path)
    manifest = {"format": rundir.FORMAT, "kind": kind, "run_id": run_id, "config": config,
                "extents": extents, "created": (old or {}).get("created", _now()),
                "updated": _now(), "repaired": _now(), "shards": [], "finished": False,
                "versions": best.get("versions", {}), "debug": (old or {}).get("debug", False),
                "shards_total": len(rundir.bounds(extents, int(config["shard_size"])))}
    if legacy:
        manifest["id_scheme"] = 1           # the first layout's run id: kept as it is
    _write_json(path, manifest)
    status = check_run(directory)
    manifest["shards"] = sorted(status.ok)
    manifest["finished"] = status.complete
    _write_json(path, manifest)
    final = check_run(directory)
    final.writer = None                     # the lock held now is this repair's own
    return RepairReport(where, run_id, kind, moved, sorted(status.ok), left, backup, final)
