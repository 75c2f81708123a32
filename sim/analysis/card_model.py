"""The card-location model's data, training and log-likelihood (kernels.search.card_model).

The model says where a card the seat to move cannot see probably is (R11): in which
other seat's hand, or in the stock and the untaken pozzetti.  Its labels are free:
the simulator knows where every card is.  :func:`collect` plays hands with ``expert``
(by default) on every seat through :class:`sim.Game` and, at each pickup and discard
decision (the decisions the ``rollout`` search searches), records for every unseen
card its face, its true location and the model's features seen from the seat to move
(:func:`kernels.search.card_model.card_features`, the kernel the search runs).
:func:`fit` trains the weights by Newton's method on the multinomial log-likelihood
(numpy only); :func:`log_likelihood` compares the model with the uniform deal on
held-out hands, per unseen card, with 95% intervals over hands.

One command retrains the shipped weights and writes their provenance::

    python -m sim.analysis.card_model train --hands 1500 --seed 1 --held-out 300

writes ``sim/analysis/card_model.json`` (the weights by feature name, the command, the
commit, the hands, the seeds and the held-out log-likelihoods) and the kernel's copy,
:mod:`kernels.search.card_weights` (a test keeps the two equal).
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.core.cards import CIDX, N_CARDS, N_COUNT
from kernels.search import card_model as KM
from kernels.table import state as KS
from kernels.table import worlds as KWD

from sim.play.game import Game

#: the shipped weights and their provenance
WEIGHTS_FILE = Path(__file__).with_name("card_model.json")
KERNEL_WEIGHTS = Path(KM.__file__).with_name("card_weights.py")
#: hand ``i`` of a data seed is dealt as hand ``HAND_OFFSET + i`` of that seed, away from
#: the hand indices of simulate, compare and analyze runs (as labels are, docs/labels.md)
HAND_OFFSET = 2 ** 62
PH_RECORDED = ("pickup", "discard")


@dataclass
class Cards:
    """Unseen cards at recorded decisions: one row per card.

    ``x`` int8[N, 3, K]: the features (:data:`kernels.search.card_model.FEATURES`) of the
    card's face in the hand of each other seat, in playing order after the seat to move
    (``seat + 1``, ``+ 2``, ``+ 3``); ``places`` int64[N, 4]: the unseen places of the
    stock and pozzetti (column 0) and of each of those hands; ``loc`` int64[N]: where the
    card is (0 the stock or a pozzetto, ``r`` the hand of ``seat + r``); ``face`` int64[N];
    ``decision`` and ``hand`` int64[N]: the decision's running number and the hand's.
    """

    x: np.ndarray
    places: np.ndarray
    loc: np.ndarray
    face: np.ndarray
    decision: np.ndarray
    hand: np.ndarray

    def __len__(self) -> int:
        return int(self.loc.shape[0])


def decision_cards(game: Game, x: np.ndarray, places: np.ndarray) -> tuple:
    """The unseen cards of the seat to move in ``game``: ``(xr, counts, loc, face)`` as rows
    of :class:`Cards` (``x`` float64[4, 53, K] and ``places`` int64[108, 3] are work
    arrays)."""
    work = game._work
    seat = game.current_seat
    n_players = game.rules.num_players
    KM.card_features(work, np.int64(seat), x)
    n = KWD.unseen_places(work, np.int64(seat), places)
    st = game.state
    counts = np.zeros(4, np.int64)
    loc = np.empty(n, np.int64)
    face = np.empty(n, np.int64)
    for k in range(n):
        where, a, b = places[k]
        if where == KWD.PLACE_HAND:
            r = (a - seat) % n_players
            cid = st.hand[a, b]
        elif where == KWD.PLACE_STOCK:
            r = 0
            cid = st.stock[a]
        else:
            r = 0
            cid = st.poz[a, b]
        counts[r] += 1
        loc[k] = r
        face[k] = CIDX[cid]
    rel = [(seat + r) % n_players if r < n_players else seat for r in (1, 2, 3)]
    xr = np.stack([x[s][face] if s != seat else np.zeros((n, KM.N_FEATURES)) for s in rel],
                  axis=1)
    return xr, counts, loc, face


def collect(seed: int, hands: int, strategy: str = "expert", first: int = 0,
            progress=None) -> Cards:
    """Play hands ``first .. first + hands - 1`` of data seed ``seed`` (:data:`HAND_OFFSET`)
    with ``strategy`` on every seat and record the unseen cards of every pickup and
    discard decision (:class:`Cards`)."""
    x = np.empty((4, N_COUNT, KM.N_FEATURES), np.float64)
    places = np.empty((N_CARDS, 3), np.int64)
    parts = {k: [] for k in ("x", "places", "loc", "face", "decision", "hand")}
    dec = 0
    t0 = time.perf_counter()
    for h in range(first, first + hands):
        g = Game.new(seed, HAND_OFFSET + h, strategies=strategy)
        while not g.is_over:
            if g.phase in PH_RECORDED and g.open_lay_off is None:
                xr, counts, loc, face = decision_cards(g, x, places)
                m = loc.shape[0]
                parts["x"].append(xr.astype(np.int8))
                parts["places"].append(np.broadcast_to(counts, (m, 4)))
                parts["loc"].append(loc)
                parts["face"].append(face)
                parts["decision"].append(np.full(m, dec, np.int64))
                parts["hand"].append(np.full(m, h, np.int64))
                dec += 1
            g.apply(g.choose())
        if progress and (h - first + 1) % 100 == 0:
            progress(f"  {h - first + 1}/{hands} hands, {dec} decisions, "
                     f"{time.perf_counter() - t0:.0f} s")
    return Cards(**{k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()})


# ------------------------------------------------------------------ the model
def _logits(c: Cards, theta: np.ndarray, sl: slice) -> np.ndarray:
    """float64[n, 4]: log places + (columns 1..3) the model's logit, -inf where a location
    has no unseen place."""
    with np.errstate(divide="ignore"):
        z = np.log(c.places[sl].astype(np.float64))
    z[:, 1:] += c.x[sl].astype(np.float64) @ theta
    return z


def _softmax(z: np.ndarray) -> np.ndarray:
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=1, keepdims=True)


def card_log_likelihood(c: Cards, theta: np.ndarray, chunk: int = 200_000) -> np.ndarray:
    """float64[N]: the log-probability (nats) of each card's true location under the model
    with weights ``theta`` (float64[K]); all-zero weights give the uniform deal's
    (the location's share of the unseen places)."""
    out = np.empty(len(c))
    for a in range(0, len(c), chunk):
        sl = slice(a, min(a + chunk, len(c)))
        z = _logits(c, theta, sl)
        m = z.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
        out[sl] = z[np.arange(z.shape[0]), c.loc[sl]] - lse
    return out


def fit(c: Cards, ridge: float = 1.0, iters: int = 30, chunk: int = 200_000,
        progress=None) -> tuple:
    """The maximum-likelihood weights (float64[K]) of the model on ``c``, by Newton's
    method with a ridge penalty ``ridge * |theta|^2 / 2``; returns ``(theta, report)``."""
    k = KM.N_FEATURES
    theta = np.zeros(k)
    report = []

    def objective(th):
        return -card_log_likelihood(c, th, chunk).sum() + 0.5 * ridge * th @ th

    f = objective(theta)
    for it in range(iters):
        grad = ridge * theta.copy()
        hess = ridge * np.eye(k)
        for a in range(0, len(c), chunk):
            sl = slice(a, min(a + chunk, len(c)))
            p = _softmax(_logits(c, theta, sl))[:, 1:]               # [n, 3]
            x = c.x[sl].astype(np.float64)                           # [n, 3, K]
            y = np.zeros_like(p)
            rows = np.nonzero(c.loc[sl] > 0)[0]
            y[rows, c.loc[sl][rows] - 1] = 1.0
            grad += np.einsum("nl,nlk->k", p - y, x)
            px = np.einsum("nl,nlk->nk", p, x)
            for j in range(x.shape[1]):
                hess += (x[:, j, :] * p[:, j, None]).T @ x[:, j, :]
            hess -= px.T @ px
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            cand = theta - t * step
            fc = objective(cand)
            if fc <= f or t < 1e-4:
                break
            t /= 2
        theta, gain = cand, f - fc
        f = fc
        report.append({"iteration": it, "objective": f, "step": t})
        if progress:
            progress(f"  Newton {it}: objective {f:.1f}, gain {gain:.3g}")
        if gain < 1e-6 * abs(f):
            break
    return theta, report


def ratio_interval(values: np.ndarray, groups: np.ndarray) -> tuple:
    """The mean of ``values`` over rows and its 95% interval over the ``groups`` (hands:
    the cards of one hand are not independent), by the ratio estimator's variance."""
    _, inv = np.unique(groups, return_inverse=True)
    s = np.bincount(inv, weights=values)
    n = np.bincount(inv).astype(np.float64)
    h = s.shape[0]
    mean = s.sum() / n.sum()
    if h < 2:
        return mean, math.nan, math.nan
    se = math.sqrt(((s - mean * n) ** 2).sum() / (h * (h - 1))) / n.mean()
    return mean, mean - 1.96 * se, mean + 1.96 * se


def log_likelihood(c: Cards, theta: np.ndarray) -> dict:
    """The mean log-likelihood per unseen card (nats) of the true locations under the
    model and under the uniform deal, and their paired difference, each with its 95%
    interval over hands, and the counts."""
    lm = card_log_likelihood(c, theta)
    lu = card_log_likelihood(c, np.zeros_like(theta))
    out = {"cards": len(c), "decisions": int(np.unique(c.decision).shape[0]),
           "hands": int(np.unique(c.hand).shape[0])}
    for name, v in (("model", lm), ("uniform", lu), ("model_minus_uniform", lm - lu)):
        m, lo, hi = ratio_interval(v, c.hand)
        out[name] = {"mean": m, "lo": lo, "hi": hi}
    # the cards in another seat's hand alone (the stock's share is large and easy)
    held = c.loc > 0
    m, lo, hi = ratio_interval((lm - lu)[held], c.hand[held])
    out["model_minus_uniform_in_hands"] = {"mean": m, "lo": lo, "hi": hi,
                                           "cards": int(held.sum())}
    return out


def fmt(d: dict) -> str:
    """``mean (lo .. hi)`` of a :func:`log_likelihood` entry (nats, 4 decimals)."""
    return f"{d['mean']:+.4f} ({d['lo']:+.4f} .. {d['hi']:+.4f})"


# ------------------------------------------------------------------ shipping
def _git() -> dict:
    """The commit the code was run from and whether the tree had changes beyond it."""
    def run(*args):
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=10).stdout.strip()
    try:
        return {"commit": run("rev-parse", "HEAD") or None,
                "dirty": bool(run("status", "--porcelain", "--untracked-files=no"))}
    except OSError:
        return {"commit": None, "dirty": None}


def read_weights(path: Path = WEIGHTS_FILE) -> np.ndarray:
    """float64[K]: the weights of a weights file, in :data:`FEATURES` order."""
    meta = json.loads(Path(path).read_text())
    w = meta["weights"]
    if list(w) != list(KM.FEATURES):
        raise ValueError(f"{path}: its features {list(w)} are not this package's "
                         f"{list(KM.FEATURES)}")
    return np.array([w[k] for k in KM.FEATURES], np.float64)


def kernel_block(theta: np.ndarray) -> str:
    """The source of :mod:`kernels.search.card_weights`'s ``WEIGHTS`` block."""
    vals = [repr(float(v)) for v in theta]
    lines = ["# -- WEIGHTS: generated by python -m sim.analysis.card_model train",
             "WEIGHTS = np.array(["]
    for a in range(0, len(vals), 4):
        lines.append("    " + ", ".join(vals[a:a + 4]) + ",")
    lines += ["])", "# -- end of WEIGHTS"]
    return "\n".join(lines) + "\n"


def write_kernel_weights(theta: np.ndarray, path: Path = KERNEL_WEIGHTS) -> None:
    """Write ``theta`` into the ``WEIGHTS`` block of the kernel's weights module."""
    text = Path(path).read_text()
    a = text.index("# -- WEIGHTS:")
    b = text.index("# -- end of WEIGHTS\n") + len("# -- end of WEIGHTS\n")
    Path(path).write_text(text[:a] + kernel_block(theta) + text[b:])


def train(seed: int, hands: int, held_out: int, strategy: str = "expert",
          ridge: float = 1.0, out: Path = WEIGHTS_FILE, kernel: bool = True,
          progress=print) -> dict:
    """Collect ``hands`` training hands and ``held_out`` held-out hands (data seed
    ``seed``, hands ``0 ..`` and the next ones), fit, measure and write the weights
    file ``out`` (and, with ``kernel``, the kernel's copy); returns the provenance."""
    t0 = time.perf_counter()
    progress(f"collecting {hands} training hands ...")
    tr = collect(seed, hands, strategy, 0, progress)
    progress(f"collecting {held_out} held-out hands ...")
    te = collect(seed, held_out, strategy, hands, progress)
    t1 = time.perf_counter()
    progress(f"fitting on {len(tr)} cards ...")
    theta, report = fit(tr, ridge, progress=progress)
    t2 = time.perf_counter()
    ll = log_likelihood(te, theta)
    prov = {
        "model": "card-location model (kernels.search.card_model)",
        "weights": {k: float(v) for k, v in zip(KM.FEATURES, theta)},
        "command": " ".join(["python -m sim.analysis.card_model"] + sys.argv[1:]),
        **_git(),
        "data": {"seed": seed, "strategy": strategy, "rules": "default",
                 "train_hands": [HAND_OFFSET, HAND_OFFSET + hands],
                 "held_out_hands": [HAND_OFFSET + hands, HAND_OFFSET + hands + held_out],
                 "hand_rule": "hand i of data seed S is Game.new(S, 2**62 + i); decisions: "
                              "every pickup and discard of every seat",
                 "train_cards": len(tr),
                 "train_decisions": int(np.unique(tr.decision).shape[0])},
        "fit": {"ridge": ridge, "iterations": len(report),
                "objective": report[-1]["objective"] if report else None},
        "held_out_log_likelihood_nats_per_card": ll,
        "seconds": {"collect": round(t1 - t0, 1), "fit": round(t2 - t1, 1)},
    }
    Path(out).write_text(json.dumps(prov, indent=1) + "\n")
    if kernel:
        write_kernel_weights(theta)
    return prov


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.analysis.card_model",
                                 description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="collect hands, fit the weights, write them and their "
                                     "provenance (sim/analysis/card_model.json and "
                                     "kernels/search/card_weights.py)")
    t.add_argument("--hands", type=int, default=1500, help="training hands (default 1500)")
    t.add_argument("--held-out", type=int, default=300, help="held-out hands (default 300)")
    t.add_argument("--seed", type=int, default=1, help="data seed (default 1)")
    t.add_argument("--strategy", default="expert", help="every seat's strategy (expert)")
    t.add_argument("--ridge", type=float, default=1.0, help="ridge penalty (default 1)")
    t.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="weights file")
    t.add_argument("--no-kernel", action="store_true",
                   help="do not write the kernel's copy (kernels/search/card_weights.py)")
    m = sub.add_parser("measure", help="the held-out log-likelihood of a weights file")
    m.add_argument("--hands", type=int, default=300)
    m.add_argument("--first", type=int, default=1500, help="first hand (default 1500)")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--strategy", default="expert")
    m.add_argument("--weights", type=Path, default=WEIGHTS_FILE)
    args = ap.parse_args(argv)
    err = lambda s: print(s, file=sys.stderr, flush=True)   # noqa: E731
    if args.cmd == "train":
        prov = train(args.seed, args.hands, args.held_out, args.strategy, args.ridge,
                     args.out, not args.no_kernel, err)
        ll = prov["held_out_log_likelihood_nats_per_card"]
    else:
        c = collect(args.seed, args.hands, args.strategy, args.first, err)
        ll = log_likelihood(c, read_weights(args.weights))
    print(json.dumps(ll, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
