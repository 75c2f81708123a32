"""Training the ``learned`` strategy's network on the search's labels (``burraco train``).

The labels (``burraco label``, its schema in docs/labels.md) hold, per searched
decision, the seat's observation (sparse), the candidates and each one's rollout mean,
standard error and worlds.  Only the pickup and the discard decisions are used.

The network's value of a candidate is its output plus, with the candidate term (the
default), the candidate's features
(:func:`kernels.strategies.learned_features.candidate_features`, the first candidate
of a label being the base policy's choice) weighted by ``v + V h``, ``h`` the last
hidden layer.

The loss is a per-decision regression on the candidates' values centred on the
decision's mean: with ``p_c`` the network's value of candidate ``c`` and ``t_c`` its
rollout mean, both centred on their mean over the decision's candidates, the decision
costs ``sum_c w_c (p_c - t_c)^2 / n`` with ``w_c = 1 / max(se_c, se_floor)^2``
(capped: a candidate rolled out on few worlds, or with NaN error, weighs as one with
``se_floor``... of the largest error seen, see :func:`_weights`), normalised to mean 1.
Adam, minibatches of decisions, numpy only.  A held-out split is made by hand
(every decision of a held-out hand is held out), and the held-out regret (the best
candidate's mean minus that of the network's choice, points) and top-1 agreement
(the network's choice is the best candidate by mean) are printed after each epoch,
with those of the base policy's choice (the first candidate) for reference.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim._util.text import plural
from sim._version import __version__
from sim.core.dataset import LABELS_DIR, MANIFEST
from sim.strategies.learned import Network, canonical_model, digest, model_path, read, save


@dataclass
class Decisions:
    """Decisions in training form: CSR features and the candidates' flat lists."""

    hand: np.ndarray          # int64[D] the label run's hand (for the split)
    run: np.ndarray           # int64[D] which label directory
    fat: np.ndarray           # int64[D + 1] features of decision d: fidx[fat[d]:fat[d + 1]]
    fidx: np.ndarray          # int64[...]
    cat: np.ndarray           # int64[D + 1] candidates of decision d: cat[d] .. cat[d + 1] - 1
    out: np.ndarray           # int64[C] the network's output of each candidate
    mean: np.ndarray          # float64[C]
    se: np.ndarray            # float64[C]
    chosen: np.ndarray        # int64[D] the action the teacher played
    phi: np.ndarray           # uint8[C, K] each candidate's features (the candidate term's)

    def __len__(self) -> int:
        return self.hand.shape[0]

    def take(self, rows: np.ndarray) -> "Decisions":
        """The decisions ``rows`` (int64, any order)."""
        fl = self.fat[rows + 1] - self.fat[rows]
        cl = self.cat[rows + 1] - self.cat[rows]
        fsel = _ranges(self.fat[rows], fl)
        csel = _ranges(self.cat[rows], cl)
        return Decisions(self.hand[rows], self.run[rows],
                         np.concatenate([[0], np.cumsum(fl)]), self.fidx[fsel],
                         np.concatenate([[0], np.cumsum(cl)]), self.out[csel], self.mean[csel],
                         self.se[csel], self.chosen[rows], self.phi[csel])


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + l)`` for each start and length."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    ends = np.cumsum(lengths)
    rep = np.repeat(starts - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + rep


def from_table(table, run: int = 0) -> Decisions:
    """:class:`Decisions` of a labels table (a ``pyarrow.Table`` or a pandas frame of the
    schema; rows of other phases than the pickup and the discard are dropped, and so
    are candidates the network has no output for)."""
    import pyarrow as pa
    from kernels.engine.actions import PH_DISCARD, PH_PICKUP
    from kernels.strategies import learned as KL
    if not isinstance(table, pa.Table):
        table = pa.Table.from_pandas(table, preserve_index=False)
    phase = table.column("phase").to_numpy()
    keep = np.flatnonzero((phase == PH_PICKUP) | (phase == PH_DISCARD))
    table = table.take(pa.array(keep))

    def flat(name, dtype):
        col = table.column(name).combine_chunks()
        return (np.asarray(col.offsets.to_numpy(), np.int64),
                np.asarray(col.values.to_numpy(zero_copy_only=False), dtype))

    row_at, oi = flat("obs_index", np.int64)
    _, ov = flat("obs_value", np.float32)
    cat, cand = flat("candidates", np.int64)
    _, mean = flat("mean", np.float64)
    _, se = flat("se", np.float64)
    rows = len(table)
    fidx = np.empty(rows * KL.MAX_ACTIVE, np.int64)
    fat = np.empty(rows + 1, np.int64)
    k = KL.features_rows(oi, ov, row_at, fidx, fat)
    out = np.array([KL.out_index(int(a)) for a in cand], np.int64) if cand.size else \
        np.zeros(0, np.int64)
    good = out >= 0
    if not good.all():                          # drop candidates without an output
        per = np.add.reduceat(good.astype(np.int64), cat[:-1]) if rows else np.zeros(0)
        per[cat[1:] == cat[:-1]] = 0
        cat = np.concatenate([[0], np.cumsum(per)])
        out, mean, se = out[good], mean[good], se[good]
    fidx = fidx[:k].copy()
    phi = np.empty((out.shape[0], KL.N_CANDIDATE_FEATURES), np.uint8)
    KL.candidate_rows(fat, fidx, cat, out, phi)
    return Decisions(table.column("hand").to_numpy().astype(np.int64),
                     np.full(rows, run, np.int64), fat, fidx, cat, out, mean, se,
                     np.array([KL.out_index(int(a)) for a in table.column("chosen").to_numpy()],
                              np.int64), phi)


def concat(parts: list) -> Decisions:
    """One :class:`Decisions` of several."""
    fat, cat = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)]
    fo = co = 0
    for p in parts:
        fat.append(p.fat[1:] + fo)
        cat.append(p.cat[1:] + co)
        fo += p.fat[-1]
        co += p.cat[-1]
    return Decisions(np.concatenate([p.hand for p in parts]), np.concatenate([p.run for p in parts]),
                     np.concatenate(fat), np.concatenate([p.fidx for p in parts]),
                     np.concatenate(cat), np.concatenate([p.out for p in parts]),
                     np.concatenate([p.mean for p in parts]), np.concatenate([p.se for p in parts]),
                     np.concatenate([p.chosen for p in parts]),
                     np.concatenate([p.phi for p in parts]))


#: the columns of a label run's files that training reads (:func:`from_table`)
LABEL_COLUMNS = ("hand", "phase", "obs_index", "obs_value", "candidates", "mean", "se", "chosen")


def _is_label_run(d: Path) -> bool:
    """Whether directory ``d`` holds a label run's manifest."""
    try:
        return json.loads((d / MANIFEST).read_text()).get("kind") == "labels"
    except (OSError, ValueError, AttributeError):
        return False


def _label_run(d: Path) -> dict:
    """The manifest of label run directory ``d``; ``ValueError`` (one line naming
    ``--labels``) for what is not one: a file, a run of ``burraco simulate``, the ``labels``
    folder inside a label run, a folder holding label runs, a folder without a manifest."""
    where = str(d)
    if not d.exists():
        raise ValueError(f"--labels: no such directory {where!r} (a label run of "
                         "'burraco label')")
    if not d.is_dir():
        raise ValueError(f"--labels: {where!r} is a file; give the directory of a label run "
                         "(burraco label --out DIR)")
    m = d / MANIFEST
    if not m.is_file():
        parent = d.resolve().parent
        if (parent / MANIFEST).is_file() and d.name == LABELS_DIR:
            raise ValueError(f"--labels: {where!r} is the folder of Parquet files inside the "
                             f"label run {str(parent)!r}; give the run's directory, so that "
                             "its manifest (teacher, seeds, rules) goes into the provenance")
        inner = sorted(str(c) for c in d.iterdir() if _is_label_run(c))
        if inner:
            shown = ", ".join(repr(x) for x in inner[:3]) + (" ..." if len(inner) > 3 else "")
            raise ValueError(f"--labels: {where!r} holds {plural(len(inner), 'label run')} "
                             f"({shown}); give each label run's directory after --labels")
        raise ValueError(f"--labels: {where!r} is not a label run (no {MANIFEST}); label "
                         "runs are written by 'burraco label --out DIR'")
    try:
        manifest = json.loads(m.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"--labels: cannot read {str(m)!r}: {str(exc).splitlines()[0]}") \
            from None
    if not isinstance(manifest, dict) or manifest.get("kind") != "labels":
        kind = manifest.get("kind") if isinstance(manifest, dict) else None
        raise ValueError(f"--labels: {where!r} is a run of kind {kind!r} (burraco simulate), "
                         "not a label run; label runs are written by 'burraco label'")
    return manifest


def read_labels(dirs, progress=print) -> tuple[Decisions, list]:
    """The decisions of the label run directories ``dirs`` and their manifests.

    Each directory must be a label run of ``burraco label`` (its ``_manifest.json`` of
    kind ``labels``); its rows are every ``*.parquet`` of its ``labels`` folder.

    Raises
    ------
    ValueError
        One line naming ``--labels``: a directory that is no label run (:func:`_label_run`),
        the same label run given twice (equal run ids or paths: its decisions would count
        twice, and a hand could be both trained on and held out), a file that is not a
        label run's Parquet file.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq
    parts, manifests, seen = [], [], {}
    for r, d in enumerate(dirs):
        d = Path(d)
        manifest = _label_run(d)
        for key in (("path", str(d.resolve())), ("run id", manifest.get("run_id"))):
            if key[1] is not None and key in seen:
                raise ValueError(f"--labels: {str(seen[key])!r} and {str(d)!r} are the same "
                                 f"label run ({key[0]} {key[1]}); give it once")
            seen[key] = d
        files = sorted((d / LABELS_DIR).glob("*.parquet"))
        if not files:
            raise ValueError(f"--labels: the label run {str(d)!r} holds no Parquet files yet "
                             f"(its {LABELS_DIR} folder is empty)")
        for f in files:
            try:
                table = pq.read_table(f)
            except (OSError, pa.ArrowException) as exc:
                raise ValueError(f"--labels: cannot read {str(f)!r} as Parquet: "
                                 f"{str(exc).splitlines()[0]}") from None
            missing = [c for c in LABEL_COLUMNS if c not in table.column_names]
            if missing:
                raise ValueError(f"--labels: {str(f)!r} is not a label run's file (no column "
                                 f"{missing[0]!r}); label runs are written by 'burraco label'")
            parts.append(from_table(table, r))
        manifests.append(manifest)
        progress(f"labels: {d}: {sum(len(p) for p in parts if p.run[:1].tolist() == [r])} "
                 "decisions")
    return concat(parts), manifests


# ---------------------------------------------------------------- the network in numpy
def init(n_features: int, h1: int, h2: int, n_out: int, gen: np.random.Generator,
         n_cand: int = 0) -> dict:
    """He-initialised layers (float64); with ``n_cand`` candidate features a candidate
    term ``V``, ``v`` starting at zero."""
    p = {"W1": gen.normal(0, np.sqrt(2.0 / 50), (n_features, h1)), "b1": np.zeros(h1)}
    last = h1
    if h2:
        p.update(W2=gen.normal(0, np.sqrt(2.0 / h1), (h1, h2)), b2=np.zeros(h2))
        last = h2
    p.update(W3=gen.normal(0, np.sqrt(1.0 / last), (last, n_out)), b3=np.zeros(n_out))
    if n_cand:
        p.update(V=np.zeros((n_cand, last)), v=np.zeros(n_cand))
    return p


def _dense(dec: Decisions, n_features: int) -> np.ndarray:
    x = np.zeros((len(dec), n_features), np.float64)
    rows = np.repeat(np.arange(len(dec)), np.diff(dec.fat))
    x[rows, dec.fidx] = 1.0
    return x


def predict(p: dict, x: np.ndarray) -> tuple:
    """Outputs ``[B, n_out]`` and the activations for :func:`_grads`."""
    a1 = np.maximum(x @ p["W1"] + p["b1"], 0.0)
    last = a1
    a2 = None
    if "W2" in p:
        a2 = np.maximum(a1 @ p["W2"] + p["b2"], 0.0)
        last = a2
    return last @ p["W3"] + p["b3"], a1, a2


def values(p: dict, dec: Decisions, x: np.ndarray | None = None) -> tuple:
    """The network's value of every candidate of ``dec`` (float64[C]: its output plus
    the candidate term) and what :func:`loss_and_grads` needs of the forward pass."""
    n = len(dec)
    x = _dense(dec, p["W1"].shape[0]) if x is None else x
    out, a1, a2 = predict(p, x)
    last = a2 if a2 is not None else a1
    counts = np.diff(dec.cat)
    dec_of = np.repeat(np.arange(n), counts)
    val = out[dec_of, dec.out]
    if "V" in p:
        q = last @ p["V"].T + p["v"]
        val = val + (dec.phi * q[dec_of]).sum(1)
    return val, (x, out, a1, a2, last, counts, dec_of)


def _weights(dec: Decisions, se_floor: float) -> np.ndarray:
    se = np.where(np.isfinite(dec.se), dec.se, np.inf)
    w = 1.0 / np.maximum(se, se_floor) ** 2
    w[~np.isfinite(dec.se)] = 1.0 / (4 * se_floor) ** 2       # no error known: a low weight
    return w / w.mean() if w.size else w


def _centred(values: np.ndarray, dec_of: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    sums = np.bincount(dec_of, values, minlength=n)
    return values - (sums / np.maximum(counts, 1))[dec_of]


def loss_and_grads(p: dict, dec: Decisions, w: np.ndarray, n_features: int,
                   grads: bool = True) -> tuple:
    """The weighted centred loss (mean per candidate) and its gradients."""
    n = len(dec)
    pred, (x, out, a1, a2, last, counts, dec_of) = values(p, dec, _dense(dec, n_features))
    r = _centred(pred, dec_of, counts, n) - _centred(dec.mean, dec_of, counts, n)
    m = max(len(r), 1)
    loss = float((w * r * r).sum() / m)
    if not grads:
        return loss, None
    g = 2.0 * w * r / m
    gsum = np.bincount(dec_of, g, minlength=n)
    g = g - (gsum / np.maximum(counts, 1))[dec_of]
    gout = np.zeros_like(out)
    np.add.at(gout, (dec_of, dec.out), g)
    gr = {"W3": last.T @ gout, "b3": gout.sum(0)}
    gh = gout @ p["W3"].T
    if "V" in p:
        gq = np.zeros((n, p["V"].shape[0]))
        np.add.at(gq, dec_of, dec.phi * g[:, None])
        gr["V"] = gq.T @ last
        gr["v"] = gq.sum(0)
        gh = gh + gq @ p["V"]
    if a2 is not None:
        gh = gh * (a2 > 0)
        gr["W2"] = a1.T @ gh
        gr["b2"] = gh.sum(0)
        gh = gh @ p["W2"].T
    gh = gh * (a1 > 0)
    gr["W1"] = x.T @ gh
    gr["b1"] = gh.sum(0)
    return loss, gr


def choices(p: dict, dec: Decisions, n_features: int, chunk: int = 4096) -> np.ndarray:
    """The index (into the flat candidates) of the network's choice in each decision
    (ties: the first candidate)."""
    picks = np.empty(len(dec), np.int64)
    for a in range(0, len(dec), chunk):
        part = dec.take(np.arange(a, min(a + chunk, len(dec))))
        v = values(p, part, _dense(part, n_features))[0]
        for i in range(len(part)):
            s, e = part.cat[i], part.cat[i + 1]
            picks[a + i] = dec.cat[a + i] + int(np.argmax(v[s:e]))
    return picks


def gate(dec: Decisions, picks: np.ndarray) -> dict:
    """Regret (points: the best candidate's mean minus the pick's), top-1 agreement (the
    pick's mean is the best) and agreement with the teacher's played action, of the picks
    (indices into the flat candidates), over decisions with 2+ candidates."""
    reg, top, same, n = 0.0, 0, 0, 0
    for i in range(len(dec)):
        s, e = dec.cat[i], dec.cat[i + 1]
        if e - s < 2:
            continue
        best = s + int(np.argmax(dec.mean[s:e]))
        reg += dec.mean[best] - dec.mean[picks[i]]
        top += int(dec.mean[picks[i]] >= dec.mean[best])
        same += int(dec.out[picks[i]] == dec.chosen[i])
        n += 1
    return {"decisions": n, "regret": reg / max(n, 1), "top1": top / max(n, 1),
            "teacher_agreement": same / max(n, 1)}


def split(dec: Decisions, held_out: float, gen: np.random.Generator) -> tuple:
    """Training and held-out row indices: a share ``held_out`` of the hands (of each
    label run) is held out whole."""
    key = dec.run * (1 << 40) + dec.hand
    hands = np.unique(key)
    out = gen.permutation(hands)[:int(round(len(hands) * held_out))]
    mask = np.isin(key, out)
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def train(dec: Decisions, seed: int, hidden: tuple | None = None, epochs: int = 20,
          batch: int = 256, lr: float = 1e-3, se_floor: float = 5.0, held_out: float = 0.1,
          l2: float = 1e-6, candidate_term: bool = True, progress=print,
          start: Network | None = None) -> tuple:
    """Train a network on ``dec``; returns ``(Network, report)``.

    The report holds the settings and the held-out loss, regret and top-1 of the
    network and of the base policy's choice (the first candidate).  With ``start`` (a
    :class:`Network`) training starts from its weights (fine-tuning) instead of random
    ones; ``hidden`` (default: its widths) and ``candidate_term`` must be its own
    (``ValueError`` otherwise).  Without ``start``, ``hidden`` defaults to ``(64, 32)``."""
    from kernels.strategies import learned as KL
    gen = np.random.default_rng(seed)
    tr, ho = split(dec, held_out, gen)
    dtr, dho = dec.take(tr), dec.take(ho)
    F = KL.N_FEATURES
    if hidden is None:
        hidden = (64, 32) if start is None else (
            start.W1.shape[1], 0 if start.W2 is None else start.W2.shape[1])
    h1, h2 = (tuple(hidden) + (0,))[:2]
    if start is None:
        p = init(F, h1, h2, KL.N_OUT, gen, KL.N_CANDIDATE_FEATURES if candidate_term else 0)
    else:
        own = (start.W1.shape[1], 0 if start.W2 is None else start.W2.shape[1])
        if own != (h1, h2) or (start.V is not None) != candidate_term:
            raise ValueError(f"--init: the network starts from hidden {own[0]}x{own[1]}"
                             f"{'' if start.V is not None else ' without the candidate term'}; "
                             f"asked for {h1}x{h2}"
                             f"{'' if candidate_term else ' without the candidate term'}")
        p = {k: np.array(a, np.float64) for k, a in (
            ("W1", start.W1), ("b1", start.b1), ("W2", start.W2), ("b2", start.b2),
            ("W3", start.W3), ("b3", start.b3), ("V", start.V), ("v", start.v))
            if a is not None}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    wtr, who = _weights(dtr, se_floor), _weights(dho, se_floor)
    b1, b2, eps, t = 0.9, 0.999, 1e-8, 0
    base_ho = gate(dho, dho.cat[:-1]) if len(dho) else None
    progress(f"train: {len(dtr)} decisions, {len(dho)} held out; {F} features, hidden "
             f"{h1}x{h2}, {epochs} epochs of batches of {batch}, seed {seed}")
    if base_ho:
        progress(f"train: held out, the base policy's choice: regret {base_ho['regret']:.2f}, "
                 f"top-1 {base_ho['top1']:.3f}, as the teacher "
                 f"{base_ho['teacher_agreement']:.3f}")
    t0 = time.perf_counter()
    report = {}
    for ep in range(epochs):
        order = gen.permutation(len(dtr))
        total = 0.0
        for a in range(0, len(order), batch):
            rows = order[a:a + batch]
            part = dtr.take(rows)
            wpart = wtr[_ranges(dtr.cat[rows], np.diff(dtr.cat)[rows])]
            loss, gr = loss_and_grads(p, part, wpart, F)
            total += loss * len(rows)
            t += 1
            for k in p:
                g = gr[k] + (l2 * p[k] if k.startswith("W") or k == "V" else 0.0)
                m[k] = b1 * m[k] + (1 - b1) * g
                v2[k] = b2 * v2[k] + (1 - b2) * g * g
                p[k] -= lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v2[k] / (1 - b2 ** t)) + eps)
        line = f"train: epoch {ep + 1}/{epochs}: loss {total / max(len(dtr), 1):.2f}"
        if len(dho):
            hl = sum(loss_and_grads(p, dho.take(np.arange(a, min(a + 4096, len(dho)))),
                                    who[_ranges(dho.cat[a:min(a + 4096, len(dho))],
                                                np.diff(dho.cat)[a:min(a + 4096, len(dho))])],
                                    F, grads=False)[0] * min(4096, len(dho) - a)
                     for a in range(0, len(dho), 4096)) / len(dho)
            gh = gate(dho, choices(p, dho, F))
            report = {"held_out_loss": hl, "held_out_regret": gh["regret"],
                      "held_out_top1": gh["top1"], "held_out_decisions": gh["decisions"],
                      "held_out_teacher_agreement": gh["teacher_agreement"]}
            line += (f", held out: loss {hl:.2f}, regret {gh['regret']:.2f}, "
                     f"top-1 {gh['top1']:.3f}, as the teacher {gh['teacher_agreement']:.3f}")
        progress(line + f" ({time.perf_counter() - t0:.0f} s)")
    report.update(seed=seed, hidden=[h1, h2], epochs=epochs, batch=batch, lr=lr,
                  se_floor=se_floor, held_out_share=held_out, l2=l2,
                  train_decisions=len(dtr), base_held_out=base_ho, candidate_term=candidate_term,
                  started_from_weights=start is not None)
    net = Network(p["W1"], p["b1"], p.get("W2"), p.get("b2"), p["W3"], p["b3"],
                  {"features_version": KL.FEATURES_VERSION if candidate_term else 1,
                   "training": report}, p.get("V"), p.get("v"))
    return net, report


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=10).stdout.strip() or None
    except OSError:
        return None


def _read_counts(dec: Decisions, r: int) -> dict:
    """What was read of label run ``r``: its decisions and distinct hands, and whether
    they are hands ``0 .. n-1`` (then ``burraco label --hands n`` with the run's seed and
    teacher writes them again)."""
    hands = np.unique(dec.hand[dec.run == r])
    return {"decisions_read": int((dec.run == r).sum()), "hands_read": int(hands.size),
            "hands_read_are_0_to_n": bool(hands.size == 0 or hands[-1] == hands.size - 1)}


def run(labels, seed: int, out, progress=print, init_model: str | None = None,
        **settings) -> dict:
    """Read ``labels`` (directories), train, write the weights file ``out`` and its
    provenance ``out`` with ``.json``; returns the provenance.  ``init_model`` (a shipped
    version ``vN`` or a weights file) is the network training starts from (its name,
    file and digest go into the provenance); by default random weights."""
    start = start_info = None
    if init_model is not None:
        try:
            path = model_path(init_model)
        except ValueError as exc:
            why = str(exc).split("; ")[0].replace("strategy 'learned': ", "")
            raise ValueError(f"--init: {why}; give a shipped version or a weights file "
                             "(.npz) to start training from") from None
        start = read(path)
        start_info = {"model": canonical_model(init_model), "file": path.name,
                      "digest": digest(path)}
    dec, manifests = read_labels(labels, progress)
    if len(dec) == 0:
        raise ValueError("labels: no pickup or discard decisions")
    net, report = train(dec, seed, progress=progress, start=start, **settings)
    prov = {"features_version": net.meta["features_version"], "labels": [str(d) for d in labels],
            "label_manifests": [
                None if m is None else {
                    "teacher": m.get("teacher"), "run_id": m.get("run_id"),
                    "seed": m.get("config", {}).get("seed"),
                    "hands": m.get("config", {}).get("hands"),
                    "rules": m.get("config", {}).get("rules"), "label_seed": m.get("label_seed"),
                    "labels_schema": m.get("labels_schema"), "git": m.get("git"),
                    "versions": m.get("versions"), **_read_counts(dec, r)}
                for r, m in enumerate(manifests)],
            "training": report, "init": start_info, "commit": _commit(),
            "package_version": __version__,
            "command": " ".join(sys.argv)}
    net.meta = prov
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save(net, out)
    out.with_suffix(".json").write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n")
    progress(f"train: wrote {out} and {out.with_suffix('.json')}")
    return prov


def untrained(path, seed: int = 0, hidden: tuple = (64, 32), candidate_term: bool = True) -> Path:
    """Write an untrained network (random layers from ``seed``; with a random candidate
    term unless ``candidate_term`` is false) as a weights file at ``path``: a player that
    exercises every path of the kernel (the tests' hidden information and referee
    checks), not a strategy to use."""
    from kernels.strategies import learned as KL
    p = init(KL.N_FEATURES, hidden[0], hidden[1], KL.N_OUT, np.random.default_rng(seed))
    p["b3"] = np.random.default_rng(seed + 1).normal(0, 1.0, KL.N_OUT)
    V = v = None
    if candidate_term:
        g = np.random.default_rng(seed + 2)
        V = g.normal(0, 0.3, (KL.N_CANDIDATE_FEATURES, hidden[1] or hidden[0]))
        v = g.normal(0, 1.0, KL.N_CANDIDATE_FEATURES)
    save(Network(p["W1"], p["b1"], p.get("W2"), p.get("b2"), p["W3"], p["b3"],
                 {"features_version": KL.FEATURES_VERSION if candidate_term else 1,
                  "untrained": True, "seed": seed}, V, v),
         path)
    return Path(path)
