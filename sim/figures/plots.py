"""The figures' plots: one drawing function per question, and :func:`render` to PNG.

Every figure is 800 x 450 pixels (dpi 100), with the question as its title, plain-word
labels, the 95% intervals as error bars and a footer with the hand count, the seed and
the strategies.  ``matplotlib`` and ``PIL`` are imported when a figure is rendered.
"""
from __future__ import annotations

import re
import textwrap

import numpy as np

from sim.figures.questions import Made, Spec, clean_label, point_label

#: Pixel size of every figure (width, height) at :data:`DPI`.
SIZE = (800, 450)
DPI = 100
#: Largest PNG file the figures should make (bytes); tests/experiments/test_figures.py checks it.
MAX_BYTES = 60_000


def _err(mean, low, high) -> np.ndarray:
    """``yerr``/``xerr`` of matplotlib (2 x n, distances below and above) from interval ends."""
    mean, low, high = (np.atleast_1d(np.asarray(a, float)) for a in (mean, low, high))
    return np.nan_to_num(np.vstack([mean - low, high - mean]))


def _draw_first_player(fig, made):
    ax = fig.add_subplot()
    names, m, lo, hi = zip(*made.data["rows"])
    ax.bar(names, m, yerr=_err(m, lo, hi), capsize=5,
           color=["tab:blue"] + ["tab:gray"] * 4)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel("first player's team minus the other\n(points per hand)")
    ax.set_xlabel("hands by the seat that played first (seat 0..3)")


def _draw_sweep_line(fig, made, param, xlabel, ylabel):
    t = made.data["table"]
    ax = fig.add_subplot()
    ax.errorbar(t[param], t["mean_diff"], yerr=_err(t["mean_diff"], t["ci95_low"],
                t["ci95_high"]), marker="o", capsize=5)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(list(t[param]), [str(int(v)) for v in t[param]])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _draw_pile_size(fig, made):
    _draw_sweep_line(fig, made, "pile_min_size",
                     "the player refuses every discard pile of fewer cards than this",
                     "difference to taking every pile\n(points per hand)")


def _draw_bars(ax, names, t, horizontal=False):
    err = _err(t["mean_diff"], t["ci95_low"], t["ci95_high"])
    if horizontal:
        ax.barh(names, t["mean_diff"], xerr=err, capsize=5)
        ax.axvline(0, color="black", lw=0.8)
        ax.invert_yaxis()
    else:
        ax.bar(names, t["mean_diff"], yerr=err, capsize=5)
        ax.axhline(0, color="black", lw=0.8)


def _draw_close_or_build(fig, made):
    t = made.data["table"]
    ax = fig.add_subplot()
    _draw_bars(ax, [point_label("close_min_burracos", k) for k in t["close_min_burracos"]], t)
    ax.set_xlabel("burracos the team waits for before it closes")
    ax.set_ylabel("difference to closing at once\n(points per hand)")


def _draw_clean_or_dirty(fig, made):
    t = made.data["table"]
    ax = fig.add_subplot()
    _draw_bars(ax, [clean_label(a, b) for a, b in zip(t["wild_layoff_min_len"],
                                                      t["use_wild_to_meld"])], t, True)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel("difference to accepting the dirty burraco (points per hand)")


def _draw_pozzetto_first(fig, made):
    ax = fig.add_subplot()
    k, m, lo, hi = (np.array(c, float) for c in zip(*made.data["rows"]))
    ax.errorbar(k, m, yerr=_err(m, lo, hi), marker="o", capsize=4, label="by turns ahead")
    mm, mlo, mhi = made.data["m"]
    ax.axhspan(mlo, mhi, color="tab:orange", alpha=0.3)
    ax.axhline(mm, color="tab:orange", lw=1, label="all hands")
    ax.set_xticks(range(0, 13, 2), [str(i) for i in range(0, 12, 2)] + ["12 or more,\nnever"])
    ax.set_xlabel("turns the first team was ahead of the other team's pozzetto")
    ax.set_ylabel("first team minus the other\n(points per hand)")
    ax.legend(loc="lower right", fontsize=8)


def _draw_hand_length(fig, made):
    d = made.data
    ax, bx = fig.subplots(1, 2)
    turns = d["turns"]
    n0, _, _ = ax.hist(turns, bins=range(int(turns.min()), int(turns.max()) + 2),
                       color="tab:gray")
    n1, _, _ = bx.hist(d["scores"], bins=60, color="tab:gray")
    for a, n, (m, lo, hi), what in ((ax, n0, d["m"], "turns"), (bx, n1, d["s"], "points")):
        a.set_ylim(0, n.max() * 1.3)
        a.errorbar([m], [n.max() * 1.12], xerr=_err(m, lo, hi), fmt="o", color="tab:red",
                   capsize=5, label=f"mean {m:.1f} {what}")
        a.axvline(m, color="tab:red", lw=0.8)
        a.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("turns per hand")
    ax.set_ylabel("hands")
    bx.set_xlabel("team score per hand (points)")
    bx.set_ylabel("team-hands")


def _draw_two_jokers(fig, made):
    d = made.data
    ax, bx = fig.subplots(1, 2)
    rows = [r for r in d["by_jokers"] if not np.isnan(r[2])]
    k, m, lo, hi = zip(*rows)
    ax.errorbar(k, m, yerr=_err(m, lo, hi), marker="o", capsize=5)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("jokers dealt to seat 0")
    ax.set_ylabel("team 0 minus team 1 (points per hand)")
    ax.set_title("all deals, by jokers dealt", fontsize=10)
    names = ["jokers moved\ninto the stock", "jokers moved\nto the next opponent"]
    pm, plo, phi = zip(*d["paired"].values())
    bx.bar(names, pm, yerr=_err(pm, plo, phi), capsize=5)
    bx.set_ylabel("as dealt minus moved (points per hand)")
    bx.set_title("the same deals with the two jokers moved", fontsize=10)


def _draw_rule_sets(fig, made):
    rows = made.data["rows"]
    names = [r[0] for r in rows]
    ax, bx = fig.subplots(1, 2, sharey=True)
    for a, j, scale, xlabel in ((ax, 1, 1, "mean hand score per team (points;\nwith three "
                                 "players per player, as credited)"),
                                (bx, 2, 100, "hands closed (%; the rest end with the stock)")):
        m, lo, hi = (np.array(c) * scale for c in zip(*[r[j] for r in rows]))
        a.barh(names, m, xerr=_err(m, lo, hi), capsize=4, color="tab:blue")
        a.set_xlabel(xlabel, fontsize=9)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=8)


def _draw_summary(fig, made):
    rows = made.data["rows"]
    names, m, lo, hi = zip(*rows)
    ax = fig.add_subplot()
    ax.barh(names, m, xerr=_err(m, lo, hi), capsize=4,
            color=["tab:green" if v > 0 else "tab:red" for v in m])
    ax.axvline(0, color="black", lw=0.8)
    ax.margins(x=0.1)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=9)
    ax.set_xlabel("points per hand for the team (95% intervals)")
    for y, v in enumerate(m):
        ax.annotate(f"{v:+.0f}", (v, y), xytext=(6 if v > 0 else -6, 8),
                    textcoords="offset points", ha="left" if v > 0 else "right", fontsize=8)


# ---------------------------------------------------------------- drawing and files
def _footer(spec: Spec, made: Made) -> str:
    if spec.needs:
        parts = [f"{n.replace('_', ' ')} {made.hands[n]:,} (seed {made.seed[n]})"
                 for n in spec.needs]
        return ("hands of each bar (deals per point for the sweeps): " + ", ".join(parts)
                + f"; {made.strategy}; play first and pozzetto first from the records, the "
                "others on the same deals with one thing changed")
    return (f"{made.hands_text}; seed {made.seed}; {made.strategy}; 95% intervals "
            f"(normal approximation)")


def _texts(fig) -> list:
    """Every word-bearing text of a drawn figure (titles, axis and tick labels, legends)."""
    out = [t.get_text() for t in fig.texts]            # the suptitle is one of them
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts]
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return [t for t in out if re.search(r"[A-Za-z]", t)]


def render(spec: Spec, made: Made) -> tuple:
    """Draw one figure; ``(png bytes, labels)``: 800 x 450 pixels, palette PNG."""
    import io

    from matplotlib.figure import Figure
    from PIL import Image

    fig = Figure(figsize=(SIZE[0] / DPI, SIZE[1] / DPI), dpi=DPI)
    spec.draw(fig, made)
    fig.suptitle(spec.question, fontsize=13, fontweight="bold")
    fig.text(0.01, 0.012, textwrap.fill(_footer(spec, made), 165), fontsize=7, color="0.3",
             va="bottom")
    fig.subplots_adjust(left={"clean_or_dirty": 0.25, "rule_sets": 0.2, "summary": 0.3}.get(
                        spec.name, 0.12), right=0.97, top=0.88,
                        bottom=0.24 if spec.needs or spec.name == "pozzetto_first" else 0.2,
                        wspace=0.3 if spec.name != "rule_sets" else 0.08)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    labels = _texts(fig)
    img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue(), labels