"""The run directory: its layout, what belongs to a run, opening it to write.

A run directory (``burraco simulate --out DIR``, manifest format 2)::

    DIR/_manifest.json       the run: configuration, extents, completed shards, versions
    DIR/.burraco.lock        the writer's lock (sim.lock); empty when nobody writes
    DIR/hands/shard-AAAAAAAAAAAA-BBBBBBBBBBBB.parquet    hand rows: hands [A, B)
                                                        (a match run: matches [A, B))
    DIR/matches/shard-AAAAAAAAAAAA-BBBBBBBBBBBB.parquet  match runs: the match table
    DIR/labels/shard-AAAAAAAAAAAA-BBBBBBBBBBBB.parquet   label runs (burraco label): the
                                                        search's labels of hands [A, B)

The hands, the match table and the manifest are apart, so every reader opens
the data with one line (``pd.read_parquet("DIR/hands")``, ``pl.read_parquet(
"DIR/hands/*.parquet")`` ...).  Files are written as hidden temporary files
(``.NAME.tmp``) and renamed, so no reader sees a half-written one.

Which shards a run has follows from the manifest alone: its ``extents``
(``[[0, N]]`` for a run of N hands; an extended run adds ``[N, M]``) cut
into shards of ``shard_size``.  A file in ``hands/`` or ``matches/`` that is
not one of them is *stray*: the run's readers ignore it, but a plain Parquet
reader of the directory would read it as data, so ``burraco summarize``
reports it and ``burraco simulate`` refuses to write beside it.

A run of selected hands (``sim.simulate(hand_index=...)``, ``burraco
simulate --where``) has the same layout: its configuration holds a
``selection`` (how many hands, the SHA-256 of their indices, the ``--where``
expression), shard ``[A, B)`` holds the selected hands among ``A .. B-1``
(an empty file when there are none), and its run id hashes the selection
too, so its shards never pass for a full run's.

The run id (``run_id`` column, manifest, shard metadata) is a hash of what
determines the records of a hand index: the kind of run, the seed, the
strategies, the rules and (matches) the hand cap; not the number of hands or
the shard size, so a run keeps its id when it is extended.

The first layout (format 1, burraco-sim 0.1 before run directories held hands/ and matches/) kept the hand
shards beside the manifest and the match table in ``DIR/_matches``; it is
read as it is, and ``burraco summarize DIR --repair`` moves it to this layout.

Writing: :mod:`sim.batch.outdir` checks a directory before a run writes it and
opens it.  :func:`selection_config` is the ``selection`` entry of a run of selected
hands, :data:`DEFAULT_SHARD_SIZE` and :data:`MATCH_SHARD_HANDS` give the shard size a
run does not set.  Reading a shard back to resume (:func:`_read_shard`,
:func:`_read_table`) accepts only a complete file of this run.  The shards are simulated and written by
:mod:`sim.batch.executors`, the run is driven by :mod:`sim.batch.runner`, and
:mod:`sim.batch` is the checked reader.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kernels.core import layout as L

from sim._util.lock import LOCK_NAME
from sim._util.text import not_a_directory, plural
from sim.core import dataset

MANIFEST = dataset.MANIFEST
#: Manifest format written now (1: the first layout, read and repaired only).
FORMAT = 2
SHARD_RE = re.compile(r"^shard-(\d{12})-(\d{12})\.parquet$")
#: Hands per shard of a hand run when the run does not say (``shard_size`` None).
DEFAULT_SHARD_SIZE = 100_000
#: Hands a match-run shard may hold at most: the default shard size of a match
#: run is this divided by ``max_hands_per_match`` (5,000 matches at the default cap).
MATCH_SHARD_HANDS = 1_000_000


LABELS_DIR = dataset.LABELS_DIR
#: The subdirectory of a review run's shards (``burraco review --hands``, sim.analysis.review_run).
REVIEWS_DIR = "reviews"
#: The kinds of run and the configuration key of their size (label and review runs count hands).
COUNT_KEY = {"hands": "hands", "matches": "matches", "labels": "hands", "reviews": "hands"}


def kind_of(config: dict) -> str:
    """``"matches"`` for a match run's configuration, ``"labels"`` for a label run's (it
    holds ``labels_schema``), ``"reviews"`` for a review run's (``reviews_schema``), else
    ``"hands"``."""
    if "matches" in config:
        return "matches"
    if "reviews_schema" in config:
        return "reviews"
    return "labels" if "labels_schema" in config else "hands"


def identity(config: dict) -> str:
    """The run id of a configuration (format 2): 16 hex digits.

    A hash of the kind of run, the seed, the strategies, the rules, the
    hand cap of a match run and, when a seat plays a Python strategy, the
    digests of their sources (``strategy_sources``: a changed file makes
    another run) and, for a run of selected hands (``simulate(hand_index=...)``,
    ``--where``), its ``selection`` (count, SHA-256 of the indices, the
    expression), so that a selected run never passes for the full run; the
    number of hands or matches and the shard size are left out (the records
    of a hand index do not depend on them).
    """
    kind = kind_of(config)
    key = {"kind": kind, "seed": config.get("seed"), "strategies": config.get("strategies"),
           "rules": config.get("rules")}
    if kind == "matches":
        key["max_hands_per_match"] = config.get("max_hands_per_match")
    if kind == "labels":
        key["label_seed"] = config.get("label_seed")
        key["labels_schema"] = config.get("labels_schema")
    if kind == "reviews":                 # the rows depend on every setting of the review
        key["review"] = config.get("review")
        key["reviews_schema"] = config.get("reviews_schema")
    if config.get("strategy_sources"):
        key["strategy_sources"] = config["strategy_sources"]
    if config.get("selection"):
        key["selection"] = config["selection"]
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def legacy_run_id(config: dict) -> str:
    """The run id of a format-1 run: a hash of the whole configuration."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def data_dirs(fmt: int) -> tuple:
    """``(hands, matches)`` subdirectories of a run of manifest format ``fmt``
    (``""`` is the run directory itself)."""
    return ("", dataset.LEGACY_MATCHES_DIR) if fmt == 1 else (dataset.HANDS_DIR,
                                                               dataset.MATCHES_DIR)


class ManifestError(ValueError):
    """The manifest is missing, unreadable or disagrees with itself (one-line message)."""


def repair_hint(where: str) -> str:
    return f"'burraco summarize {where} --repair' rebuilds it from the shards"


def read_manifest(directory: str | os.PathLike, what: str = "run") -> dict:
    """The manifest of a run directory, checked for consistency.

    Parameters
    ----------
    directory : str or os.PathLike
    what : str
        Prefix of the error messages (``"run"``, ``"out"``).

    Returns
    -------
    dict
        The manifest with ``kind``, ``format`` (1 or 2) and ``extents``
        filled in for a format-1 manifest.

    Raises
    ------
    ManifestError
        Not a directory, no manifest, an unreadable one, or one that
        disagrees with itself (its configuration does not give its run id: a
        value edited by hand; extents that do not end at the run's size).
    """
    directory = Path(directory)
    where = os.fspath(directory)
    if not directory.exists():
        raise ManifestError(f"{what}: {where!r} does not exist")
    if not directory.is_dir():
        raise ManifestError(not_a_directory(what, where))
    parent = inside_run_data(directory)
    if parent is not None:
        raise ManifestError(f"{what}: {where!r} is the data directory of the run in "
                            f"{os.fspath(parent)!r}, not a run directory; give {os.fspath(parent)!r}")
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text())
        manifest.setdefault("kind", "hands")
        manifest.setdefault("format", 1)
        config, kind = manifest["config"], manifest["kind"]
        total, size = config[COUNT_KEY[kind]], config["shard_size"]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (total, size)):
            raise ValueError
        manifest.setdefault("extents", [[0, total]])
        extents = [(int(a), int(b)) for a, b in manifest["extents"]]
        str(manifest["run_id"])
        if kind not in COUNT_KEY or kind_of(config) != kind or size < 1:
            raise ValueError
    except FileNotFoundError:
        if any(next((directory / sub).glob("shard-*.parquet"), None) is not None
               for sub in (dataset.HANDS_DIR, ".")):
            raise ManifestError(f"{what}: {where!r} holds shard files but no {MANIFEST}; "
                                f"{repair_hint(where)}") from None
        raise ManifestError(f"{what}: {where!r} holds no {MANIFEST} (not a burraco simulate "
                            "output directory)") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise ManifestError(f"{what}: {where!r} holds an unreadable {MANIFEST}; "
                            f"{repair_hint(where)}") from None
    if manifest["format"] >= 2:
        if manifest.get("id_scheme", 2) >= 2 and identity(config) != manifest["run_id"]:
            raise ManifestError(
                f"{what}: the {MANIFEST} of {where!r} disagrees with itself: its configuration "
                f"does not give its run id {manifest['run_id']} (a value edited by hand or a "
                f"damaged file); {repair_hint(where)}")
        ok = bool(extents) and extents[0][0] == 0 and extents[-1][1] == total and all(
            a < b for a, b in extents) and all(
            extents[i][1] == extents[i + 1][0] for i in range(len(extents) - 1))
        if not ok:
            raise ManifestError(
                f"{what}: the {MANIFEST} of {where!r} disagrees with itself: its extents "
                f"{manifest['extents']} do not cover {kind} 0..{total - 1}; {repair_hint(where)}")
    return manifest


def inside_run_data(path: str | os.PathLike) -> Path | None:
    """The run directory whose data directory (``hands/``, ``matches/``, or a folder
    below them) ``path`` is, or None.

    Nothing may be written there: a plain reader of the run's data would read it.
    """
    p = Path(os.path.abspath(os.fspath(path)))
    for child, parent in zip([p, *p.parents], p.parents):
        if child.name in (dataset.HANDS_DIR, dataset.MATCHES_DIR, dataset.LEGACY_MATCHES_DIR,
                          LABELS_DIR, REVIEWS_DIR) \
                and (parent / MANIFEST).is_file():
            return parent
    return None


def foreign_shards(directory: Path, manifest: dict) -> dict:
    """Files under the run's own shard names that carry another run's id (rel path -> why).

    They are not the run's data (copied in, or left by another run): nothing may delete
    or overwrite them.  A file without readable metadata is damage, not another run's.
    """
    out = {}
    for a, b in manifest_bounds(manifest):
        for f in shard_files(directory, manifest["kind"], manifest["format"], a, b):
            if not f.is_file():
                continue
            try:
                rid = dataset.read_metadata(f).get("run_id")
            except Exception:
                continue
            if rid and rid != manifest["run_id"]:
                rel = os.fspath(f.relative_to(directory))
                out[rel] = f"a shard of another run ({rid}) under one of this run's names"
    return out


def bounds(extents, shard_size: int) -> list:
    """The shards ``[(a, b), ...]`` of a run: each extent cut into ``shard_size`` blocks."""
    out = []
    for a0, b0 in extents:
        out += [(a, min(a + shard_size, b0)) for a in range(a0, b0, shard_size)]
    return out


def manifest_bounds(manifest: dict) -> list:
    """The shards of a manifest (:func:`bounds` of its extents and shard size)."""
    return bounds(manifest["extents"], int(manifest["config"]["shard_size"]))


def shard_name(a: int, b: int) -> str:
    return dataset.SHARD_PATTERN.format(a=a, b=b)


def shard_files(directory: Path, kind: str, fmt: int, a: int, b: int) -> list:
    """The files of shard ``[a, b)`` in writing order (the last one marks it complete):
    ``[hands]``, ``[matches, hands]`` for a match run, ``[labels]`` for a label run,
    ``[reviews]`` for a review run."""
    hands, matches = data_dirs(fmt)
    name = shard_name(a, b)
    if kind == "labels":
        return [directory / LABELS_DIR / name]
    if kind == "reviews":
        return [directory / REVIEWS_DIR / name]
    files = [directory / hands / name]
    return [directory / matches / name] + files if kind == "matches" else files


@dataclass
class Listing:
    """What a run directory holds besides its expected shards.

    Attributes
    ----------
    temps : list of pathlib.Path
        Temporary files of an interrupted write (the run's own; removed when a
        writer opens the directory).
    stray : dict
        Path relative to the directory -> why it is not part of the run, for
        every file in the data subdirectories that is not one of the run's
        shards (a plain reader of the subdirectory would read it).
    others : list of str
        Other entries at the top of the directory (notes, plots): never read,
        never deleted.
    """

    temps: list = field(default_factory=list)
    stray: dict = field(default_factory=dict)
    others: list = field(default_factory=list)


def _stray_reason(path: Path, run_id: str | None, config: dict | None = None) -> str:
    """Why a file in a data subdirectory is not part of the run."""
    if not SHARD_RE.match(path.name):
        return "not a shard file"
    try:
        meta = dataset.read_metadata(path)
    except Exception:
        return "an unreadable Parquet file under a shard's name outside the run's range"
    if run_id is not None and meta.get("run_id") == run_id:
        theirs = meta.get("config") or {}
        if config is not None and theirs.get("shard_size") != config.get("shard_size"):
            return ("a shard of this run written with shard size "
                    f"{theirs.get('shard_size')}, not the manifest's {config.get('shard_size')} "
                    "(if the manifest was edited, --repair rebuilds it; if the file was "
                    "copied in, move it out)")
        return "a shard of this run under a name outside its range (copied or renamed?)"
    if meta.get("run_id"):
        return f"a shard of another run ({meta['run_id']})"
    return "not a burraco-sim shard"


def listing(directory: Path, manifest: dict | None) -> Listing:
    """Classify what ``directory`` holds besides the run's expected shard files.

    Parameters
    ----------
    directory : pathlib.Path
    manifest : dict or None
        The run's manifest (:func:`read_manifest`); None when there is none:
        then every file in the data subdirectories is stray.
    """
    fmt = manifest["format"] if manifest else FORMAT
    kind = manifest["kind"] if manifest else "hands"
    run_id = manifest["run_id"] if manifest else None
    config = manifest["config"] if manifest else None
    expected = set()
    if manifest:
        for a, b in manifest_bounds(manifest):
            expected.update(p.resolve() for p in shard_files(directory, kind, fmt, a, b))
    out = Listing()
    hands, matches = data_dirs(fmt)
    ours_top = {MANIFEST, LOCK_NAME, dataset.temp_name(MANIFEST), MANIFEST + ".tmp"}
    subdirs = [d for d in (hands, matches) if d]
    if fmt >= 2 or manifest is None:
        subdirs = [dataset.HANDS_DIR, dataset.MATCHES_DIR, LABELS_DIR, REVIEWS_DIR]
    for entry in sorted(directory.iterdir()):
        name = entry.name
        if name in ours_top:
            continue
        if name in subdirs and entry.is_dir():
            for f in sorted(entry.iterdir()):
                _classify(f, f"{name}/{f.name}", expected, run_id, out, config)
            continue
        if fmt == 1 and manifest is not None and entry.is_file() and (
                SHARD_RE.match(name) or name.endswith(".parquet.tmp")):
            _classify(entry, name, expected, run_id, out, config)
            continue
        out.others.append(name + ("/" if entry.is_dir() else ""))
    return out


def _classify(path: Path, rel: str, expected: set, run_id, out: Listing,
              config: dict | None = None) -> None:
    name = path.name
    if path.is_file() and (name.endswith(".parquet.tmp") and (
            name.startswith(".shard-") or name.startswith("shard-"))):
        out.temps.append(path)
    elif path.resolve() not in expected:
        out.stray[rel] = (_stray_reason(path, run_id, config) if path.is_file()
                          else "a directory inside the data directory")


# ---------------------------------------------------------------- runs of selected hands, shard size
def _selection_text(sel: dict) -> str:
    """A run's selection in words: ``3,120 hands selected by --where 's0_jokers >= 2'``."""
    how = (f"by --where {sel['where']!r}" if sel.get("where") is not None
           else f"by hand_index (sha256 {str(sel.get('sha256'))[:12]}...)")
    return f"{plural(int(sel['hands']), 'hand')} selected {how}"


def selection_config(idx: np.ndarray, where: str | None) -> dict:
    """The ``selection`` entry of a run configuration: the number of selected hands,
    the SHA-256 of their indices (int64 little-endian, increasing) and the
    ``--where`` expression that selected them (None for an explicit ``hand_index``)."""
    digest = hashlib.sha256(np.ascontiguousarray(idx, "<i8").tobytes()).hexdigest()
    return {"hands": int(idx.shape[0]), "sha256": digest, "where": where}


#: Hands per shard of a label run when the run does not say (a shard is minutes of search).
LABEL_SHARD_HANDS = 100
#: Hands per shard of a review run when the run does not say (a hand is about 50 decisions
#: rolled out: seconds to minutes).
REVIEW_SHARD_HANDS = 10


def _default_shard_size(config: dict) -> int:
    if "labels_schema" in config:
        return LABEL_SHARD_HANDS
    if "reviews_schema" in config:
        return REVIEW_SHARD_HANDS
    if "matches" in config:
        return max(1, MATCH_SHARD_HANDS // int(config["max_hands_per_match"]))
    if config.get("selection"):
        # a shard holds about DEFAULT_SHARD_SIZE selected hands: a range of the run's
        # hands as wide as that needs at the selection's density
        hands, picked = int(config["hands"]), int(config["selection"]["hands"])
        return min(hands, max(DEFAULT_SHARD_SIZE, -(-DEFAULT_SHARD_SIZE * hands // picked)))
    return DEFAULT_SHARD_SIZE


# ---------------------------------------------------------------- reading a shard back
def _read_table(path: Path, schema: pa.Schema, rows: int | None, run_id: str) -> pa.Table | None:
    """A shard file's table if it has ``schema``, ``rows`` rows (any if None) and ``run_id``."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException):
        return None
    if (rows is not None and table.num_rows != rows) or table.schema.remove_metadata() != schema:
        return None
    if table.num_rows and table.column("run_id")[0].as_py() != run_id:
        return None
    return table


def _read_shard(path: Path, a: int, b: int, run_id: str) -> pa.Table | None:
    """Read back a complete shard, or None if it does not belong to this run."""
    table = _read_table(path, dataset.SCHEMA, b - a, run_id)
    if table is None:
        return None
    idx = table.column("hand_index").to_numpy()
    return table if idx[0] == a and idx[-1] == b - 1 else None


def read_hand_table_shard(files: list, a: int, b: int, schema: pa.Schema, run_id: str):
    """A shard of one table with a ``hand`` column (a label or a review run): ``(no records,
    table, [table])`` when ``files[0]`` is whole, has ``schema``, belongs to ``run_id`` and
    holds only hands ``a .. b-1`` in order; None otherwise (the shard is played again)."""
    try:
        table = pq.read_table(files[0])
        meta = dataset.read_metadata(files[0])
    except (OSError, pa.ArrowException, ValueError):
        return None
    if table.schema.remove_metadata() != schema or meta.get("run_id") != run_id:
        return None
    if table.num_rows:
        h = table.column("hand").to_numpy()
        if h[0] < a or h[-1] >= b or np.any(np.diff(h) < 0):
            return None
    return np.zeros((0, L.N_REC), np.int32), table, [table]

