"""The ``learned`` strategy's weights: files, versions and loading.

A weights file is a ``.npz`` written by :func:`save` (``burraco train``): the layers
``W1`` (``[F, H1]``), ``b1``, optionally ``W2`` (``[H1, H2]``) and ``b2``, ``W3``
(``[H, 53 + 2]``), ``b3``, with features version 2 the candidate term ``V`` (``[K, H]``,
``K`` candidate features) and ``v``, and ``meta`` (a JSON string: the features' version,
the training's provenance).  Version 1 files (no candidate term, ``learned-v1``) are
read too.  Beside a shipped file ``learned-vN.npz`` in
:data:`WEIGHTS_DIR` lies its provenance ``learned-vN.json``.

Shipped models come in lines: ``learned-vN.npz`` is version N of the line trained under the
default rules, ``learned-LINE-vN.npz`` version N of a line trained under other rules (the line
named after its rules, ``learned-fibur_international-v1.npz``, ``learned-three_players-v1.npz``).
A line's rules are those of its label runs (their manifests, in the provenance);
:func:`model_for_rules` picks the line trained under a run's rules.

:func:`load` packs a file into the flat ``float64`` array the kernel reads
(:mod:`kernels.strategies.learned`), once per file and process, and keeps it alive
for the process: the seat's ``weights`` parameter slot holds its address.  Each
process (a forked worker inherits the parent's) loads its own copy.

The model is named by the spec's ``model`` option: ``learned`` is the newest
shipped version of the line that fits the run's rules (:func:`model_for_rules`; the default
line's without rules), ``learned:model=v1`` a version of the default line,
``learned:model=fibur_international`` the newest of a line, ``learned:model=fibur_international-v1``
one of its versions, ``learned:model=PATH`` a weights file (a path without commas).  A
strategy's canonical spec names its model exactly (:func:`canonical_model`): ``learned``
becomes ``learned:model=v3`` (the newest shipped version when resolved),
``learned:model=fibur_international-v1``, or for a file ``PATH@DIGEST`` (its resolved path and
the first 12 hex digits of its SHA-256), so that a run, its resume and its replay refuse
another model instead of mixing two models' records under one name.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.core.rules import Rules

WEIGHTS_DIR = Path(__file__).with_name("learned")
TRAIN_HINT = ("train one with 'burraco train --labels DIR --seed S --out FILE.npz' "
              "(docs/strategies.md) and play learned:model=FILE.npz")

_LOADED: dict = {}          # resolved path -> (mtime_ns, size, packed float64 array, meta)


#: a line's name: lower-case letters, digits and ``_`` (a preset's name), never ``vN``
LINE = r"(?!v?\d+$)[a-z][a-z0-9_]*"


def lines() -> dict:
    """The shipped weights files by line: ``{line: {version number: path}}``, the default
    rules' line under ``""`` (``learned-vN.npz``), another line under its name
    (``learned-LINE-vN.npz``)."""
    out: dict = {}
    if WEIGHTS_DIR.is_dir():
        for p in WEIGHTS_DIR.glob("learned-*.npz"):
            m = re.fullmatch(rf"learned-(?:({LINE})-)?v(\d+)\.npz", p.name)
            if m:
                out.setdefault(m.group(1) or "", {})[int(m.group(2))] = p
    return out


def shipped(line: str = "") -> dict:
    """The shipped weights files of a line (the default rules' line by default):
    ``{version number: path}``."""
    return lines().get(line, {})


def shipped_names() -> list:
    """Every shipped model's exact name, sorted: ``v1``, ..., ``fibur_international-v1``."""
    return [f"{line + '-' if line else ''}v{v}"
            for line, versions in sorted(lines().items()) for v in sorted(versions)]


def training_rules(path) -> Rules:
    """The rules a shipped model was trained under: those of its label runs (the
    ``label_manifests`` of its provenance file beside it), the default rules when its
    provenance names none.

    Raises
    ------
    ValueError
        Label runs of different rules, or a provenance file that cannot be read.
    """
    prov_path = Path(path).with_suffix(".json")
    try:
        prov = json.loads(prov_path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"strategy 'learned': cannot read the provenance {str(prov_path)!r}: "
                         f"{exc}") from None
    found = {json.dumps(m["rules"], sort_keys=True)
             for m in prov.get("label_manifests") or [] if m and m.get("rules")}
    if len(found) > 1:
        raise ValueError(f"strategy 'learned': {str(prov_path)!r} names label runs of "
                         "different rules")
    return Rules.from_dict(json.loads(found.pop())) if found else Rules()


#: options a line's rules and a run's may differ in (a cap on the hand's length, R64)
ANY_VALUE = ("max_turns_per_hand",)


def model_for_rules(rules: Rules | None) -> str | None:
    """The model ``learned`` plays under ``rules`` when no model is named: the newest version
    of the shipped line trained under these rules (:func:`training_rules`; equal in every
    option but those of :data:`ANY_VALUE`); None (the default rules' line) when no line was,
    or for None rules.

    So under ``fibur_international`` (4 players) ``learned`` plays ``fibur_international-vN``,
    with 3 players (partners after pozzetto A, R62) ``three_players-vN``, and elsewhere the
    default line (``vN``): under ``fibur_italian`` and with 2 players it plays about as well
    as under the default rules (docs/rule_sets.md).
    """
    if rules is None:
        return None
    have = {k: v for k, v in rules.to_dict().items() if k not in ANY_VALUE}
    for line, versions in sorted(lines().items()):
        trained = training_rules(versions[max(versions)]).to_dict()
        if line and {k: v for k, v in trained.items() if k not in ANY_VALUE} == have:
            return line
    return None


def digest(path) -> str:
    """The first 12 hex digits of the SHA-256 of a weights file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def _split_digest(model: str) -> tuple[str, str | None]:
    m = re.fullmatch(r"(.+)@([0-9a-f]{12})", model)
    return (m.group(1), m.group(2)) if m else (model, None)


def canonical_model(model: str | None) -> str:
    """The exact name of the model a ``model`` option names: ``vN`` for a shipped version
    (the newest for None), ``PATH@DIGEST`` for a file (resolved path, :func:`digest`).

    Raises
    ------
    ValueError
        As :func:`model_path`.
    """
    path = model_path(model)
    if model is None or model == "" or re.fullmatch(rf"v?\d+|{LINE}(?:-v\d+)?", model):
        for line, versions in lines().items():
            for v, p in versions.items():
                if p == path:
                    return f"{line + '-' if line else ''}v{v}"
    return f"{path.resolve()}@{digest(path)}"


def model_path(model: str | None) -> Path:
    """The weights file a ``model`` option names (None: the newest shipped version of the
    default line; ``vN``: its version N; ``LINE``: the newest version of a shipped line;
    ``LINE-vN``: its version N; ``PATH@DIGEST``: the file, which must still have that
    digest; otherwise a path).

    Raises
    ------
    ValueError
        No such shipped version or file (the message names the file and how to train
        one), or a file whose digest is not the one named.
    """
    versions = shipped()
    if model is None or model == "":
        if not versions:
            raise ValueError(f"strategy 'learned': no weights shipped "
                             f"({WEIGHTS_DIR / 'learned-v1.npz'} is missing); {TRAIN_HINT}")
        return versions[max(versions)]
    m = re.fullmatch(r"v?(\d+)", model)
    if m:
        v = int(m.group(1))
        if v not in versions:
            have = ", ".join(f"v{k}" for k in sorted(versions)) or "none"
            raise ValueError(f"strategy 'learned': no shipped version v{v} (shipped: {have}); "
                             f"{TRAIN_HINT}")
        return versions[v]
    m = re.fullmatch(rf"({LINE})(?:-v(\d+))?", model)
    if m and m.group(1) in lines():
        line = lines()[m.group(1)]
        if m.group(2) is None:
            return line[max(line)]
        if int(m.group(2)) not in line:
            raise ValueError(f"strategy 'learned': no shipped model {model} (shipped: "
                             f"{', '.join(shipped_names())}); {TRAIN_HINT}")
        return line[int(m.group(2))]
    name, want = _split_digest(model)
    path = Path(name).expanduser()
    if not path.is_file():
        if m or re.fullmatch(rf"{LINE}-v\d+", model):
            raise ValueError(f"strategy 'learned': no shipped model {model} and no weights "
                             f"file {model!r} (shipped: {', '.join(shipped_names())}); "
                             f"{TRAIN_HINT}")
        raise ValueError(f"strategy 'learned': no weights file {str(path)!r}; {TRAIN_HINT}")
    if want is not None and digest(path) != want:
        raise ValueError(f"strategy 'learned': the weights file {str(path)!r} changed (digest "
                         f"{digest(path)}, named {want}): a run or replay of the old model "
                         "cannot use it")
    return path


@dataclass
class Network:
    """A network's layers (float64 arrays) and its metadata."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray | None
    b2: np.ndarray | None
    W3: np.ndarray
    b3: np.ndarray
    meta: dict
    V: np.ndarray | None = None     # [K, H] the candidate term (features version 2)
    v: np.ndarray | None = None     # [K]

    def pack(self) -> np.ndarray:
        """The flat ``float64`` array of :mod:`kernels.strategies.learned`."""
        from kernels.strategies import learned as KL
        f, h1 = self.W1.shape
        h2 = 0 if self.W2 is None else self.W2.shape[1]
        k = 0 if self.V is None else self.V.shape[0]
        parts = [np.array([KL.MAGIC, KL.FORMAT, self.meta["features_version"], f, h1, h2,
                           self.W3.shape[1], k], np.float64),
                 self.W1.ravel(), self.b1]
        if h2:
            parts += [self.W2.ravel(), self.b2]
        parts += [self.W3.T.ravel(), self.b3]
        if k:
            parts += [self.V.T.ravel(), self.v]
        flat = np.ascontiguousarray(np.concatenate(parts), dtype=np.float64)
        assert flat.size == KL.weights_size(f, h1, h2, self.W3.shape[1], k)
        return flat


def save(net: Network, path) -> None:
    """Write ``net`` as a weights file (``.npz``)."""
    arrays = {"W1": net.W1, "b1": net.b1, "W3": net.W3, "b3": net.b3,
              "meta": np.array(json.dumps(net.meta, sort_keys=True))}
    if net.W2 is not None:
        arrays.update(W2=net.W2, b2=net.b2)
    if net.V is not None:
        arrays.update(V=net.V, v=net.v)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def read(path) -> Network:
    """Read a weights file; raises ``ValueError`` when it is not one of this version."""
    from kernels.strategies import learned as KL
    try:
        with np.load(path, allow_pickle=False) as z:
            a = {k: z[k] for k in z.files}
    except OSError as exc:
        raise ValueError(f"strategy 'learned': cannot read weights file {str(path)!r}: {exc}") \
            from None
    except ValueError:
        raise ValueError(f"strategy 'learned': {str(path)!r} is not a weights file (an .npz "
                         "written by 'burraco train')") from None
    try:
        meta = json.loads(str(a["meta"]))
        net = Network(a["W1"].astype(np.float64), a["b1"].astype(np.float64),
                      a["W2"].astype(np.float64) if "W2" in a else None,
                      a["b2"].astype(np.float64) if "b2" in a else None,
                      a["W3"].astype(np.float64), a["b3"].astype(np.float64), meta,
                      a["V"].astype(np.float64) if "V" in a else None,
                      a["v"].astype(np.float64) if "v" in a else None)
    except KeyError as exc:
        raise ValueError(f"strategy 'learned': {str(path)!r} is not a weights file "
                         f"(no {exc})") from None
    version = meta.get("features_version")
    last = net.W3.shape[0]
    term_ok = (net.V is None and net.v is None) if version == 1 else (
        net.V is not None and net.v is not None
        and net.V.shape == (KL.N_CANDIDATE_FEATURES, last)
        and net.v.shape == (KL.N_CANDIDATE_FEATURES,))
    if version not in KL.READS_FEATURES_VERSIONS or net.W1.shape[0] != KL.N_FEATURES \
            or net.W3.shape[1] != KL.N_OUT or not term_ok:
        raise ValueError(f"strategy 'learned': {str(path)!r} was trained on features version "
                         f"{meta.get('features_version')} ({net.W1.shape[0]} features); this "
                         f"package reads version {KL.FEATURES_VERSION} ({KL.N_FEATURES}): "
                         f"{TRAIN_HINT}")
    return net


def load(model: str | None = None) -> tuple[np.ndarray, Path]:
    """The packed weights of ``model`` (:func:`model_path`) and their file, loaded once
    per process (again if the file changed) and kept alive for the process."""
    path = model_path(model).resolve()
    st = path.stat()
    hit = _LOADED.get(path)
    if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
        return hit[2], path
    flat = read(path).pack()
    _LOADED[path] = (st.st_mtime_ns, st.st_size, flat, None)
    # an older array of the same path stays alive too: a row made before may still point at it
    _LOADED[(path, st.st_mtime_ns)] = (st.st_mtime_ns, st.st_size, flat, None)
    return flat, path


def address(model: str | None = None) -> int:
    """The address of ``model``'s packed weights (for the ``weights`` parameter slot)."""
    flat, _ = load(model)
    return int(flat.ctypes.data)

