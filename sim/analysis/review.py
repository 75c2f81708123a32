"""The review of a whole hand: every decision of the chosen seats rated against the best
action, as a backgammon player's "analyse match" rates a game (docs/review.md).

The hand is dealt by :meth:`sim.Game.new` with the run's settings and played once with
``apply(choose())`` by its strategies, as :func:`sim.analysis.decision.decision_game`
reaches one decision: so every decision reviewed is a decision of the hand ``simulate``
played (with a run directory the hand's record is compared with the run's row).  At each
decision of a reviewed seat (its pickups and discards; with ``meld=True`` its meld-phase
decisions too) the game is copied before the strategy chooses, and
:func:`sim.analysis.evaluate.analyze` rolls every legal action out on worlds sampled from
that seat's view (R11): exactly the table :func:`sim.analyze_decision` gives for that
decision with the same rollouts and analysis seed.

**The loss** of a decision is what the chosen action ``c`` gives up against the best
other candidate, in points of hand result (own side's hand score minus the opponents'):
``loss = max(0, D)``, ``D = max_{j != c} mu_j - mu_c`` the long-run mean results under the
rollout strategy.  It is estimated by **cross-fitting** (:func:`cross_fit_loss`): the
worlds are split in two halves (even and odd world indices); on each half the comparator
is the candidate other than ``c`` with the highest mean on the *other* half, and
``e_w = r_w(comparator) - r_w(c)`` is taken on this half's worlds.  ``D`` is estimated by
the mean of ``e`` over all the worlds, with the 95% interval ``mean(e) +- z * sd(e) /
sqrt(W)`` (``z`` 1.96, or analyze's wider multiplier after a sequential stop); the loss
and its interval are these clipped at 0.  Picking the comparator on worlds that do not
measure it removes the winner's curse of measuring against the best of the same sample
(whose luck made it the best), and comparing with the best *other* candidate keeps an
honest interval when the chosen action leads the sample by luck (it would otherwise be
``0 .. 0``).  benchmarks/studies/review_calibration.md measures the coverage and the bias.

**Marks**: a loss of at least ``doubtful`` points (default :data:`DOUBTFUL`) is
"doubtful", of at least ``blunder`` points (default :data:`BLUNDER`) a "blunder"; a loss
whose interval includes 0 (``loss_low <= 0``) is never marked.  A decision with one legal
action is *forced*: listed, not rolled out, not rated.

**Summaries** per seat and per team (the side the seat plays for at the decision): rated
decisions, points lost in all with a 95% interval (the decisions' worlds are independent:
``sum(loss) +- 1.96 * sqrt(sum(se_i**2))``, ``se_i`` a loss's standard error ``loss_se``,
the lower end clipped at 0),
points lost per rated decision (the same interval divided by their
count), and the counts of the marks.

Each decision's worlds come from its own analysis seed, :func:`decision_seed` of the
review's seed and the decision's ply (actions played in the hand before it), so two
decisions never share worlds and every row can be reproduced alone with
``sim.analyze_decision(..., analysis_seed=row.analysis_seed)``.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import time

import numpy as np
import pandas as pd

from kernels.core.cards import CIDX
from kernels.engine import actions as KA
from kernels.table import state as KS

from sim._util.progress import progress_bar
from sim._util.stats import Z95
from sim._util.text import plural, shortened
from sim.analysis.evaluate import analyze_results
from sim.core.cards import check_int
from sim.core.match import sides
from sim.play import hand_file, viewer
from sim.play.game import N_ACTIONS, Game
from sim.batch import replay

__all__ = ["BLUNDER", "DECISION_COLUMNS", "DOUBTFUL", "FORMAT", "MARKS", "Review",
           "SUMMARY_COLUMNS", "cross_fit_loss", "decision_seed", "format_text", "marks", "review",
           "summarize"]

#: default loss (points) from which a decision is marked "doubtful"
DOUBTFUL = 20.0
#: default loss (points) from which a decision is marked "blunder"
BLUNDER = 60.0
#: the marks, mildest first ("" : not marked)
MARKS = ("doubtful", "blunder")
#: the ``format`` of the JSON document (:meth:`Review.to_document`)
FORMAT = "burraco-review/1"

#: the phases of a decision -> the kind reviewed: pickups and discards by default, the
#: meld-phase decisions (``place``: R34, ``meld``: R35) with ``meld=True``
_KIND = {"pickup": "pickup", "place": "meld", "meld": "meld", "discard": "discard"}

#: The columns of :attr:`Review.decisions`, one row per decision of the reviewed seats in
#: the order played (declared once: docs/review.md shows this table).
DECISION_COLUMNS = {
    "decision": "the decision's number in the review (0-based, in the order played)",
    "ply": "actions played in the hand before the decision (0-based)",
    "event": "events of the replay document before the decision: the event its action made "
             "is events[event] (none for 'end the meld phase'); the viewer shows the decision "
             "at step event, the table the seat saw",
    "turn": "the turn, counted from 1 as in the replay document",
    "seat": "the seat to move",
    "team": "the side the seat plays for at the decision (R5, R61-R63)",
    "strategy": "the seat's strategy spec (it chose the action)",
    "phase": "pickup, place, meld or discard (Game.phase)",
    "legal": "legal actions: the candidates rolled out",
    "forced": "one legal action: not rolled out, not rated",
    "chosen": "the action the strategy chose (action id; a discard named by its face)",
    "chosen_text": "the chosen action in words (Game.action_text)",
    "best": "the candidate with the highest mean result (action id; the chosen one when forced "
            "or when the loss is 0)",
    "best_text": "the best candidate in words",
    "loss": "the chosen action's mean result below the best other candidate's, cross-fitted: "
            "the best other picked on one half of the worlds, measured on the other half "
            "(points, >= 0; 0 when forced)",
    "loss_low": "lower end of the 95% interval of loss (points)",
    "loss_high": "upper end of the 95% interval of loss (points)",
    "loss_se": "standard error of the cross-fitted difference before it is clipped at 0 "
               "(points; 0 when forced)",
    "difference": "the cross-fitted difference itself, not clipped: the best other candidate's "
                  "mean result minus the chosen action's, below 0 by the chosen action's lead "
                  "when it is the best (points; 0 when forced); a signed margin, not an "
                  "estimate of the loss",
    "p_best": "the chosen action's probability of being the best (analyze's p_best; 1 when "
              "forced)",
    "mark": "'blunder' (loss >= blunder), 'doubtful' (loss >= doubtful) or '' (not marked, "
            "or loss_low <= 0: the interval includes 0)",
    "worlds": "sampled worlds rolled out per candidate (0 when forced)",
    "analysis_seed": "the seed of the decision's worlds (decision_seed; analyze_decision's "
                     "analysis_seed)",
    "z_interval": "the intervals' multiplier (1.96, or larger after a sequential stop)",
}

#: The columns of :attr:`Review.seats` (one row per reviewed seat) and :attr:`Review.teams`
#: (one row per side with a reviewed seat; ``who`` names it).
SUMMARY_COLUMNS = {
    "who": "'seat S' or 'team T' (with 3 players a team is one player's side)",
    "seat": "the seat (seats table) or -1 (teams table)",
    "team": "the team (-1 in the seats table of a 3-player solo_18 hand whose seat changed side)",
    "strategy": "the seat's strategy spec, or the team's seats' specs joined by ', '",
    "decisions": "decisions listed (forced ones included)",
    "rated": "decisions rated (not forced)",
    "loss": "points lost in all: the sum of the rated decisions' losses (points)",
    "loss_low": "lower end of the 95% interval of loss (points)",
    "loss_high": "upper end of the 95% interval of loss (points)",
    "loss_per_decision": "loss / rated (points per decision; NaN with no rated decision)",
    "per_decision_low": "lower end of the 95% interval of loss_per_decision",
    "per_decision_high": "upper end of the 95% interval of loss_per_decision",
    "doubtful": "decisions marked doubtful",
    "blunder": "decisions marked blunder",
}


# ---------------------------------------------------------------- marks and seeds
def _check_thresholds(doubtful, blunder) -> tuple:
    out = []
    for name, v in (("doubtful", doubtful), ("blunder", blunder)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                  np.floating)) \
                or not math.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a loss in points, a finite number >= 0, got {v!r}")
        out.append(float(v))
    if out[1] < out[0]:
        raise ValueError(f"blunder must be at least doubtful ({out[0]:g} points), got "
                         f"{out[1]:g}")
    return tuple(out)


def marks(loss, loss_low, doubtful: float = DOUBTFUL, blunder: float = BLUNDER) -> np.ndarray:
    """The marks of losses.

    Parameters
    ----------
    loss, loss_low : array_like of float, shape (n,)
        The losses and the lower ends of their 95% intervals (points).
    doubtful, blunder : float
        The thresholds (points, ``0 <= doubtful <= blunder``).

    Returns
    -------
    numpy.ndarray of object (str), shape (n,)
        ``"blunder"`` where ``loss >= blunder``, else ``"doubtful"`` where ``loss >=
        doubtful``, else ``""``; always ``""`` where ``loss_low <= 0`` (the interval
        includes 0) or the loss is NaN.

    Raises
    ------
    ValueError
        A threshold that is not a finite number >= 0, or ``blunder < doubtful``.
    """
    doubtful, blunder = _check_thresholds(doubtful, blunder)
    loss = np.atleast_1d(np.asarray(loss, np.float64))
    low = np.atleast_1d(np.asarray(loss_low, np.float64))
    out = np.full(loss.shape, "", dtype=object)
    clear = low > 0                               # NaN compares False: never marked
    out[clear & (loss >= doubtful)] = "doubtful"
    out[clear & (loss >= blunder)] = "blunder"
    return out


def decision_seed(seed: int, ply: int) -> int:
    """The analysis seed of the decision at ``ply`` of a review seeded ``seed``.

    Parameters
    ----------
    seed : int
        The review's analysis seed (0 .. 2**64-1).
    ply : int
        Actions played in the hand before the decision (>= 0).

    Returns
    -------
    int
        0 .. 2**64-1, from ``numpy.random.SeedSequence([seed, ply])``.
    """
    words = np.random.SeedSequence([int(seed), int(ply)]).generate_state(2, np.uint32)
    return int(words[0]) << 32 | int(words[1])


# ---------------------------------------------------------------- the result
@dataclasses.dataclass
class Review:
    """The review of one hand (:func:`review`).

    Attributes
    ----------
    decisions : pandas.DataFrame
        One row per decision of the reviewed seats, in the order played (columns
        :data:`DECISION_COLUMNS`; losses in points).
    seats, teams : pandas.DataFrame
        The summaries per seat and per team (columns :data:`SUMMARY_COLUMNS`).
    info : dict
        The hand and the settings: ``seed``, ``hand_index``, ``run``, ``file``,
        ``checked``, ``strategies``, ``rules`` (options), ``num_players``, ``view`` (the
        recording seat of one seat's record, else None), ``result`` (``end_reason``,
        ``turns``, ``score_t0``, ...), ``seats``, ``meld``, ``rollouts``,
        ``until_separated``, ``max_rollouts``, ``batch``, ``margin``, ``adjust``,
        ``policy``, ``analysis_seed``, ``doubtful``, ``blunder``, ``threads``,
        ``elapsed_s``.
    tables : dict
        Decision number -> its analysis table (:func:`sim.analyze`'s DataFrame, with the
        boolean column ``chosen``); forced decisions have none.
    hand : dict or None
        The replay document of the hand (``sim.replay``'s schema), for the viewer; None
        for a review read back from JSON.
    """

    decisions: pd.DataFrame
    seats: pd.DataFrame
    teams: pd.DataFrame
    info: dict
    tables: dict = dataclasses.field(default_factory=dict)
    hand: dict | None = None

    def to_document(self) -> dict:
        """The review as one JSON object (docs/review.md): ``{"format", "review",
        "decisions", "seats", "teams"}``; each decision carries its ``candidates``
        (analyze's rows, best first; ``[]`` when forced).  NaN and inf are null."""
        rows = []
        for row in self.decisions.to_dict("records"):
            d = {k: _json(v) for k, v in row.items()}
            table = self.tables.get(row["decision"])
            d["candidates"] = [] if table is None else [
                {k: _json(v) for k, v in r.items()}
                for r in table[list(_CANDIDATE_FIELDS)].to_dict("records")]
            rows.append(d)
        return {"format": FORMAT, "review": {k: _json(v) for k, v in self.info.items()},
                "decisions": rows,
                "seats": [{k: _json(v) for k, v in r.items()}
                          for r in self.seats.to_dict("records")],
                "teams": [{k: _json(v) for k, v in r.items()}
                          for r in self.teams.to_dict("records")]}

    def to_json(self) -> str:
        """:meth:`to_document` as JSON text (UTF-8 card faces, indented)."""
        return json.dumps(self.to_document(), indent=2, ensure_ascii=False, allow_nan=False)

    def page_data(self) -> tuple:
        """What the hand viewer shows of the review: ``(analyses, review)`` for
        :func:`sim.play.viewer.to_html` (each rated decision's candidates at its step,
        the table the seat saw; verdict lines; the marks; the summary table)."""
        a = self.info
        how = (f"until separated (at most {a['max_rollouts']:,} worlds)" if a["until_separated"]
               else f"{a['rollouts']:,} worlds")
        title = (f"{_hand_words(a)[0].upper()}{_hand_words(a)[1:]} reviewed: seats "
                 f"{', '.join(str(s) for s in a['seats'])}, {how} per decision, rollout strategy "
                 f"{a['policy']}, analysis seed {a['analysis_seed']}. Loss: the chosen action's "
                 f"mean result below the best other action's, cross-fitted (points); doubtful from "
                 f"{a['doubtful']:g}, blunder from {a['blunder']:g}, never when the 95% interval "
                 "includes 0.")
        analyses, verdicts, marks = {}, {}, []
        per_step = self.decisions.groupby("event")["decision"].count()
        for d in self.decisions.itertuples(index=False):
            step = int(d.event)
            line = _verdict(d)
            verdicts.setdefault(step, []).append(line)
            if d.mark:
                marks.append({"step": step, "mark": d.mark, "text": line})
            table = self.tables.get(int(d.decision))
            if table is None:
                continue
            label = f"turn {d.turn}, seat {d.seat}, {d.phase}"
            for row in table.to_dict("records"):
                r = {"decision": label} if per_step[d.event] > 1 else {}
                r.update({"action": row["text"], "chosen": "*" if row["action"] == d.chosen else "",
                          "mean": row["mean_result"], "diff to best": row["diff_best"],
                          "95% interval": f"{row['diff_low']:+.1f} .. {row['diff_high']:+.1f}",
                          "P(best)": row["p_best"]})
                analyses.setdefault(step, []).append(r)
        columns = ["", "strategy", "rated", "points lost (95% interval)",
                   "per decision (95% interval)", "doubtful", "blunders"]
        rows = [[s.who, s.strategy, int(s.rated),
                 f"{s.loss:.1f} ({s.loss_low:.1f} .. {s.loss_high:.1f})",
                 "" if not s.rated else (f"{s.loss_per_decision:.2f} ({s.per_decision_low:.2f} "
                                         f".. {s.per_decision_high:.2f})"),
                 int(s.doubtful), int(s.blunder)]
                for table in (self.seats, self.teams) for s in table.itertuples(index=False)]
        return analyses, {"title": title, "marks": marks, "verdicts": verdicts,
                          "summary": {"columns": columns, "rows": rows}}

    def to_html(self) -> str:
        """The hand viewer's page (:func:`sim.play.viewer.to_html`) with the review: each
        rated decision's table beside its step, the marks on the step slider, the summary.

        Raises
        ------
        ValueError
            A review read back from JSON (``hand`` is None: the page needs the hand).
        sim.play.viewer.ViewerMismatchError
            The viewer's table does not give the hand's record (a bug).
        """
        analyses, review = self.page_data()
        return viewer.to_html(self._hand(), self.info.get("view"), analyses=analyses,
                              review=review)

    def write_html(self, path, overwrite: bool = False) -> str:
        """Write :meth:`to_html` to ``path`` atomically (:func:`sim.play.viewer.write_html`:
        never half written; an existing file is refused without ``overwrite``); ``path``."""
        analyses, review = self.page_data()
        return viewer.write_html(self._hand(), path, self.info.get("view"), analyses=analyses,
                                 review=review, overwrite=overwrite)

    def _hand(self) -> dict:
        if self.hand is None:
            raise ValueError("hand: this review holds no replay document (read back from JSON); "
                             "review the hand again to draw its page")
        return self.hand

    @classmethod
    def from_document(cls, doc: dict) -> "Review":
        """A review read back from :meth:`to_document` (``hand`` is None; ``tables``
        hold the candidates' documented fields).

        Raises
        ------
        ValueError
            Not a review document of this format, or a table missing its columns.
        """
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise ValueError(f"format: not a review document ({FORMAT!r}), got {got!r}")
        for key in ("review", "decisions", "seats", "teams"):
            if key not in doc:
                raise ValueError(f"{key}: missing from the review document")
        rows = [{k: v for k, v in r.items() if k != "candidates"} for r in doc["decisions"]]
        decisions = _frame(rows, DECISION_COLUMNS, "decisions")
        tables = {int(r["decision"]): pd.DataFrame(r["candidates"],
                                                   columns=list(_CANDIDATE_FIELDS))
                  for r in doc["decisions"] if r.get("candidates")}
        return cls(decisions, _frame(doc["seats"], SUMMARY_COLUMNS, "seats"),
                   _frame(doc["teams"], SUMMARY_COLUMNS, "teams"), dict(doc["review"]),
                   tables, None)


def _hand_words(info: dict) -> str:
    """``"hand 3 of seed 1"``, or ``"the hand file F"``."""
    if info.get("seed") is None:
        return f"the hand file {info.get('file') or '(a dict)'}"
    return f"hand {info['hand_index']} of seed {info['seed']}"


def _verdict(d) -> str:
    """One decision in words, for the viewer: what was chosen, the best, the loss, the mark."""
    head = f"Turn {d.turn}, seat {d.seat}, {d.phase}: "
    if d.forced:
        return head + f"{d.chosen_text}, forced (one legal action)"
    if d.loss == 0:
        return (head + f"{d.chosen_text}, the best (loss 0 points, at most "
                f"{d.loss_high:.1f}; P(best) {d.p_best:.0%})")
    mark = f": {d.mark}" if d.mark else ""
    return (head + f"{d.chosen_text}; best {d.best_text}; loss {d.loss:.1f} points "
            f"({d.loss_low:.1f} .. {d.loss_high:.1f}){mark}")


#: the fields of each candidate in the JSON document (analyze's columns)
_CANDIDATE_FIELDS = ("action", "text", "mean_result", "ci95_low", "ci95_high", "diff_best",
                     "diff_low", "diff_high", "p_best", "rollouts")

#: the dtypes of the tables' columns (a frame read back from JSON gets them again)
_DTYPES = {"decision": "int64", "ply": "int64", "event": "int64", "turn": "int64",
           "seat": "int64", "team": "int64", "legal": "int64", "forced": "bool",
           "chosen": "int64", "best": "int64", "loss": "float64", "loss_low": "float64",
           "loss_high": "float64", "loss_se": "float64", "difference": "float64",
           "p_best": "float64", "worlds": "int64", "analysis_seed": "uint64",
           "z_interval": "float64", "decisions": "int64", "rated": "int64",
           "loss_per_decision": "float64", "per_decision_low": "float64",
           "per_decision_high": "float64", "doubtful": "int64", "blunder": "int64"}


def _frame(rows: list, columns: dict, what: str) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(columns))
    missing = [c for c in columns if any(c not in r for r in rows)]
    if missing:
        raise ValueError(f"{what}: a row lacks the column {missing[0]!r}")
    for c in df.columns:
        kind = _DTYPES.get(c, object)
        df[c] = (pd.to_numeric(df[c]).astype(kind) if kind == "float64"   # null -> NaN
                 else df[c].astype(kind))
    return df


def _json(v):
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and not math.isfinite(v) else v


# ---------------------------------------------------------------- the summaries
def summarize(decisions: pd.DataFrame, by: str = "seat") -> pd.DataFrame:
    """The summary of rated decisions per seat or per team.

    Parameters
    ----------
    decisions : pandas.DataFrame
        :attr:`Review.decisions` (columns :data:`DECISION_COLUMNS`).
    by : {"seat", "team"}
        One row per seat, or per team, present in ``decisions`` (ascending).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS` (points; the module docstring gives the
        intervals).

    Raises
    ------
    ValueError
        ``by`` is neither ``"seat"`` nor ``"team"``.
    """
    if by not in ("seat", "team"):
        raise ValueError(f"by must be 'seat' or 'team', got {by!r}")
    out = []
    for key in sorted(int(k) for k in decisions[by].unique()):
        part = decisions[decisions[by] == key]
        rated = part[~part["forced"].astype(bool)]
        n = len(rated)
        loss = float(rated["loss"].sum())
        se = rated["loss_se"].to_numpy(np.float64)
        width = Z95 * math.sqrt(float((se ** 2).sum()))
        strategies = list(dict.fromkeys(str(s) for s in part["strategy"]))
        teams = sorted(set(int(t) for t in part["team"]))
        out.append({
            "who": f"{by} {key}", "seat": key if by == "seat" else -1,
            "team": key if by == "team" else (teams[0] if len(teams) == 1 else -1),
            "strategy": ", ".join(strategies), "decisions": len(part), "rated": n,
            "loss": loss, "loss_low": _loss(max(0.0, loss - width)), "loss_high": loss + width,
            "loss_per_decision": loss / n if n else math.nan,
            "per_decision_low": _loss(max(0.0, loss - width)) / n if n else math.nan,
            "per_decision_high": (loss + width) / n if n else math.nan,
            "doubtful": int((part["mark"] == "doubtful").sum()),
            "blunder": int((part["mark"] == "blunder").sum())})
    return _frame(out, SUMMARY_COLUMNS, f"{by}s")


# ---------------------------------------------------------------- the review
def _seats(seats, n: int) -> list:
    if seats is None:
        return list(range(n))
    if isinstance(seats, (int, np.integer)) and not isinstance(seats, bool):
        seats = [seats]
    try:
        seats = list(seats)
    except TypeError:
        raise ValueError(f"seats must be seats of the hand (0..{n - 1}), got {seats!r}") from None
    if not seats:
        raise ValueError(f"seats: give at least one seat of the hand (0..{n - 1})")
    for s in seats:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) \
                or not 0 <= s < n:
            raise ValueError(f"seats must be seats of the hand, 0..{n - 1}, got {s!r}")
    return sorted({int(s) for s in seats})


def _walk(game: Game, wanted: set, meld: bool, script=None) -> tuple:
    """Play ``game`` to its end with its strategies, or with the actions of ``script`` (a
    hand file's, already checked); mutated.  The decisions to review: ``[(game before the
    choice, chosen, fields), ...]``, and the plies played."""
    found, ply = [], 0
    while not game.is_over:
        phase, seat = game.phase, game.current_seat
        want = seat in wanted and (meld or _KIND[phase] != "meld")
        if want:
            here = game.clone()
            legal = here.legal_actions()
            event = int(game._g[KS.G_EVENT_ROWS])
            team, turn = game.team_of(seat), game.turn
        a = game.choose() if script is None else script[ply]
        game.apply(a)
        if want:
            if a >= N_ACTIONS:                    # a copy named by its card id (random)
                a = KA.A_DISCARD + int(CIDX[a - N_ACTIONS])
            found.append((here, int(a), {"ply": ply, "event": event, "turn": turn, "seat": seat,
                                         "team": team, "phase": phase,
                                         "legal": len(legal)}))
        ply += 1
    return found, ply


def review(seed=None, hand_index=None, strategies=None, rules=None, dealer=None, *,
           run=None, python_files=None, seats=None, meld: bool = False, rollouts: int = 1000,
           analysis_seed: int = 0, policy="expert", threads: int | None = None,
           progress: bool = False, doubtful: float = DOUBTFUL, blunder: float = BLUNDER,
           until_separated: bool = False, max_rollouts: int = 20_000, batch: int = 1_000,
           margin: float = 0.0, adjust: str = "none") -> Review:
    """Review one hand: rate every decision of the chosen seats against the best action.

    The method, the loss, the marks and the summaries are in the module docstring
    (docs/review.md).

    Parameters
    ----------
    seed, hand_index, strategies, rules, dealer
        The hand, as :func:`sim.replay` takes it: hand ``hand_index`` (0-based; hand
        ``k`` of match ``m`` is ``m * 65536 + k``) of the run seeded ``seed`` with its
        strategies (default ``"heuristic"``), rules and dealer.  ``seed``,
        ``strategies``, ``rules`` and ``dealer`` are refused with ``run``.  Or ``seed``
        is a **hand file** (a path, its TOML or JSON text, a dict, or a
        :class:`sim.play.hand_file.HandFile` read already: :mod:`sim.play.hand_file`,
        docs/review.md): a hand as people played it, every action checked by the engine;
        its recording ``seat`` is reviewed by default, its players' names stand in the
        ``strategy`` column, and ``hand_index``, ``strategies``, ``rules``, ``dealer`` and
        ``run`` are refused.  One seat's record is reviewed for that seat only, each
        decision analysed from its position (``Game.to_position``, R11: every card it
        could not see dealt again per world), so the cards the record leaves unnamed,
        made up when it was read, change nothing; ``info["view"]`` is that seat.
    run : str or os.PathLike, optional
        A run directory: its seed, strategies, rules and (match hand) dealer; the
        hand's record is compared with the run's row.
    python_files : list of str, optional
        With ``run``: where the run's Python strategy files are now (:func:`sim.replay`).
    seats : int or sequence of int, optional
        The seats whose decisions are reviewed (default: every seat of the hand; a hand
        file's recording seat).
    meld : bool
        Review the meld-phase decisions too (``place`` and ``meld`` phases, every
        create, lay-off and end of the phase); default pickups and discards only.
    rollouts : int
        Sampled worlds per decision, each rolled out once per candidate (>= 2).
    analysis_seed : int
        The review's seed (0 .. 2**64-1); each decision's worlds come from
        :func:`decision_seed` of it and the decision's ply.
    policy : str, sequence or dict
        The rollout strategy (:func:`sim.analyze`), default ``"expert"``.
    threads : int, optional
        Numba threads (default all); the review does not depend on it.
    progress : bool
        A progress bar on stderr, one step per decision rolled out.
    doubtful, blunder : float
        The marks' thresholds (points; defaults :data:`DOUBTFUL` and :data:`BLUNDER`).
    until_separated, max_rollouts, batch, margin, adjust
        The sequential rule and the variance reduction of :func:`sim.analyze`, per
        decision (``rollouts`` is not used with ``until_separated``).

    Returns
    -------
    Review
        ``decisions`` (one row per decision), ``seats`` and ``teams`` (the
        summaries), ``info``, ``tables`` (each decision's analysis) and ``hand`` (the
        replay document).

    Raises
    ------
    ValueError
        A bad setting, named (``hand_index``, ``seed``, ``seats``, ``rollouts``,
        ``doubtful``, ``blunder``, ``policy``, ...), as :func:`sim.replay` and
        :func:`sim.analyze` name them; a bad hand file (:func:`sim.play.hand_file.load`);
        ``seats`` other than the recording seat of one seat's record.
    sim.trace.ReplayMismatchError
        With ``run``: the hand played does not give the run's row (it must never
        happen).

    Examples
    --------
    >>> r = sim.review(seed=1, hand_index=3, strategies="expert", rollouts=500)  # doctest: +SKIP
    >>> r.decisions[r.decisions["mark"] != ""][["turn", "seat", "chosen_text", "loss"]]  # doctest: +SKIP
    >>> print(r.seats[["who", "rated", "loss", "loss_low", "loss_high"]])      # doctest: +SKIP
    """
    t0 = time.perf_counter()
    analysis_seed = check_int("analysis_seed", analysis_seed, 0, 2**64 - 1)
    rollouts = check_int("rollouts", rollouts, 2, 10**7)
    doubtful, blunder = _check_thresholds(doubtful, blunder)
    options = {"policy": policy, "threads": threads, "until_separated": until_separated,
               "max_rollouts": max_rollouts, "batch": batch, "margin": margin,
               "adjust": adjust}
    row, checked, source = None, False, None
    view = None
    if isinstance(seed, (str, os.PathLike, dict, hand_file.HandFile)):   # a hand file
        for name, value in (("hand_index", hand_index), ("strategies", strategies),
                            ("rules", rules), ("dealer", dealer), ("run", run),
                            ("python_files", python_files)):
            if value is not None:
                raise ValueError(f"{name}: a hand file fixes the hand; leave it out")
        source = (os.fspath(seed) if isinstance(seed, os.PathLike) or (
            isinstance(seed, str) and "\n" not in seed and os.path.isfile(seed)) else None)
        hf = seed if isinstance(seed, hand_file.HandFile) else hand_file.load(seed)
        game = hf.game.clone()
        n = game.rules.num_players
        chosen_seats = _seats([hf.seat] if seats is None and hf.seat is not None else seats, n)
        if hf.one_seat and chosen_seats != [hf.seat]:
            raise ValueError(f"seats: the hand file is seat {hf.seat}'s record of the hand: "
                             f"only seat {hf.seat}'s decisions are reviewed (the other hands "
                             "are made up beyond what it saw)")
        view = hf.seat if hf.one_seat else None
        names = list(hf.players)
        found, _ = _walk(game, set(chosen_seats), bool(meld), hf.actions)
        seed = hand_index = None
    else:
        if hand_index is None:
            raise ValueError("hand_index: give the hand to review (--hand I)")
        hand_index = check_int("hand_index", hand_index, 0, 2**63 - 1)
        if run is not None:
            for name, value in (("seed", seed), ("strategies", strategies), ("rules", rules),
                                ("dealer", dealer)):
                if value is not None:
                    raise ValueError(f"{name} is taken from the run in {os.fspath(run)!r}; "
                                     "leave it out")
            seed, strategies, rules, dealer, row = replay._run_hand(run, hand_index,
                                                                    python_files)
        elif python_files:
            raise replay._without_run()
        elif seed is None:
            raise ValueError("seed: give the run's seed (and its strategies, rules and, for a "
                             "match hand, dealer), a run directory, or a hand file")
        game = Game.new(seed, hand_index, rules=rules, dealer=dealer,
                        strategies="heuristic" if strategies is None else strategies)
        n = game.rules.num_players
        chosen_seats = _seats(seats, n)
        names = list(game.strategies)
        if row is not None and row.get("total_t0") is not None and not pd.isna(row["total_t0"]):
            game.match_totals = tuple(int(row[f"total_t{s}"]) - int(row[f"score_t{s}"])
                                      for s in range(sides(game.rules)))
        found, _ = _walk(game, set(chosen_seats), bool(meld))
    result = game.result()
    if row is not None:
        replay._check_row({"hand_index": hand_index, "strategies": game.strategies,
                           "result": result}, row, run)
        checked = True

    rows, tables, used_threads, policy_name = [], {}, None, None
    todo = sum(1 for _, _, f in found if f["legal"] > 1)
    with progress_bar(todo, "review", "decision", disable=not progress) as bar:
        for i, (here, chosen, f) in enumerate(found):
            seat = f["seat"]
            r = {"decision": i, **{k: f[k] for k in ("ply", "event", "turn", "seat", "team")},
                 "strategy": names[seat], "phase": f["phase"],
                 "legal": f["legal"], "forced": f["legal"] == 1,
                 "chosen": chosen, "chosen_text": here.action_text(chosen), "mark": ""}
            if r["forced"]:
                r.update(best=chosen, best_text=r["chosen_text"], loss=0.0, loss_low=0.0,
                         loss_high=0.0, loss_se=0.0, difference=0.0, p_best=1.0, worlds=0,
                         analysis_seed=0, z_interval=Z95)
            else:
                s = decision_seed(analysis_seed, f["ply"])
                target = here if view is None else Game.from_position(here.to_position(),
                                                                      seed=s)
                df, results, acts, ddof = analyze_results(target, rollouts=rollouts, seed=s,
                                                          **options)
                attrs = dict(df.attrs)
                df["chosen"] = df["action"] == chosen
                df.attrs = attrs
                tables[i] = df
                mine = df[df["chosen"]].iloc[0]
                z = float(attrs.get("z_interval") or Z95)
                x = cross_fit_loss(results, acts.index(chosen), z, ddof)
                top = mine if x["loss"] == 0 else df.iloc[0]
                r.update(best=int(top["action"]), best_text=str(top["text"]),
                         loss=x["loss"], loss_low=x["loss_low"], loss_high=x["loss_high"],
                         loss_se=x["loss_se"], difference=x["margin"],
                         p_best=float(mine["p_best"]),
                         worlds=int(attrs["worlds"]), analysis_seed=s, z_interval=z)
                used_threads, policy_name = attrs["threads"], attrs["policy"]
                bar.update(1)
            rows.append(r)
    decisions = _frame(rows, DECISION_COLUMNS, "decisions")
    decisions["mark"] = pd.Series(marks(decisions["loss"], decisions["loss_low"], doubtful,
                                        blunder)[:len(decisions)], dtype=object)
    info = {"seed": None if seed is None else int(seed), "hand_index": hand_index,
            "run": None if run is None else os.fspath(run),
            "file": source if isinstance(source, str) else None, "checked": checked,
            "strategies": names, "rules": game.rules.to_dict(),
            "num_players": n, "view": view,
            "result": {k: result[k] for k in ("end_reason", "turns", "closing_seat",
                                              *(f"score_t{t}" for t in range(sides(game.rules))))},
            "seats": chosen_seats, "meld": bool(meld), "rollouts": rollouts,
            "until_separated": bool(until_separated), "max_rollouts": max_rollouts,
            "batch": batch, "margin": margin, "adjust": adjust,
            "policy": policy_name if policy_name is not None else _policy_text(policy),
            "analysis_seed": analysis_seed, "doubtful": doubtful, "blunder": blunder,
            "threads": used_threads, "elapsed_s": time.perf_counter() - t0}
    hand = game.replay_document()
    if seed is None:                                  # a hand file: its players and title
        hand["strategies"] = names
        hand["title"] = f"Burraco: {hf.title or 'the hand file ' + (source or '')}".rstrip()
    return Review(decisions, summarize(decisions, "seat"), summarize(decisions, "team"),
                  info, tables, hand)


def cross_fit_loss(results, chosen: int, z: float = Z95, ddof: int = 1) -> dict:
    """The chosen action's loss against the best other candidate, cross-fitted (module
    docstring).

    Parameters
    ----------
    results : array_like of float, shape (W, C)
        The hand results of the C candidates on W >= 2 worlds (points), world ``w`` in
        row ``w`` (:func:`sim.analysis.evaluate.analyze_results`).
    chosen : int
        The chosen action's column.
    z : float
        The interval's multiplier (1.96; more after a sequential stop).
    ddof : int
        Degrees of freedom taken by the estimator of ``results`` (1; ``q + 1`` for
        results adjusted by ``q`` control variates).

    Returns
    -------
    dict
        ``margin``: the cross-fitted difference ``mean(e)`` (points; below 0 when the
        chosen action did better than the comparators); ``loss_se``: its standard
        error ``sd(e) / sqrt(W)``; ``loss``, ``loss_low``, ``loss_high``: ``margin`` and
        ``margin -+ z * loss_se`` clipped at 0; ``comparators``: the comparator's column
        for the even and the odd worlds.  Half ``h`` (world indices ``w % 2 == h``)
        measures ``e_w = r_w(b) - r_w(chosen)`` against ``b``, the column other than
        ``chosen`` with the highest mean on the other half (the lowest column on a tie).

    Raises
    ------
    ValueError
        Fewer than 2 worlds or 2 candidates, or ``chosen`` not a column.
    """
    r = np.asarray(results, np.float64)
    if r.ndim != 2 or r.shape[0] < 2 or r.shape[1] < 2:
        raise ValueError(f"results: expected W >= 2 worlds of C >= 2 candidates, got shape "
                         f"{r.shape}")
    w, c = r.shape
    if not 0 <= chosen < c:
        raise ValueError(f"chosen: expected a column 0..{c - 1}, got {chosen}")
    half = np.arange(w) % 2
    e = np.empty(w)
    comparators = []
    for h in (0, 1):
        other = r[half != h].mean(axis=0)
        other[chosen] = -np.inf
        b = int(np.argmax(other))
        comparators.append(b)
        e[half == h] = r[half == h, b] - r[half == h, chosen]
    margin = float(e.mean())
    se = float(math.sqrt(e.var(ddof=ddof) / w)) if w > ddof else math.nan
    return {"margin": margin, "loss_se": se, "loss": _loss(max(0.0, margin)),
            "loss_low": _loss(max(0.0, margin - z * se)),
            "loss_high": _loss(max(0.0, margin + z * se)), "comparators": comparators}


def _loss(x: float) -> float:
    return 0.0 if x == 0 else x                   # no -0.0 in the tables


def _policy_text(policy):
    return policy if isinstance(policy, str) else str(policy)


# ---------------------------------------------------------------- text
def format_text(r: Review, source: str | None = None, width: int = 30) -> str:
    """The review as ``burraco review`` prints it: a header, one line per decision
    (``?`` doubtful, ``??`` blunder after the loss), then the summaries per seat and team.

    Parameters
    ----------
    r : Review
    source : str, optional
        Where the hand comes from, for the header (``"hand 3 of seed 1"``).
    width : int
        The width of the action columns (characters).

    Returns
    -------
    str
    """
    a = r.info
    res = a["result"]
    scores = ", ".join(f"team {t} {res[f'score_t{t}']}" for t in range(a["num_players"])
                       if f"score_t{t}" in res)
    how = ("until separated (at most " + plural(a["max_rollouts"], "world") + ")"
           if a["until_separated"] else plural(a["rollouts"], "world"))
    lines = [f"review of {source or _hand_words(a)}: "
             f"{res['end_reason']} after {plural(res['turns'], 'turn')} ({scores})",
             f"seats {', '.join(str(s) for s in a['seats'])}; "
             + ("pickup, meld and discard" if a["meld"] else "pickup and discard")
             + f" decisions; {how} per decision; rollout strategy {a['policy']}; seed "
             f"{a['analysis_seed']}",
             f"loss: the chosen action's mean result below the best other action's, "
             f"cross-fitted (points, 95% interval; best = the chosen one, or the loss is 0); "
             f"? doubtful >= {a['doubtful']:g}, ?? blunder >= "
             f"{a['blunder']:g} (never when the interval includes 0)", ""]
    head = (f"{'turn':>4} {'seat':>4}  {'phase':<7}  {'chosen':<{width}}  {'best':<{width}}  "
            f"{'loss (95% interval)':>26}")
    lines.append(head)
    sign = {"doubtful": "?", "blunder": "??", "": ""}
    for d in r.decisions.itertuples(index=False):
        if d.forced:
            loss, best = "forced", ""
        else:
            loss = f"{d.loss:.1f} ({d.loss_low:.1f} .. {d.loss_high:.1f})"
            best = "=" if d.chosen == d.best else d.best_text
        lines.append(f"{d.turn:>4} {d.seat:>4}  {d.phase:<7}  "
                     f"{shortened(d.chosen_text, width):<{width}}  "
                     f"{shortened(best, width):<{width}}  {loss:>26} {sign[d.mark]}".rstrip())
    lines += ["", "summary (points lost against the best, with 95% intervals):"]
    for table in (r.seats, r.teams):
        for s in table.itertuples(index=False):
            per = ("" if not s.rated else
                   f"; {s.loss_per_decision:.2f} per decision ({s.per_decision_low:.2f} .. "
                   f"{s.per_decision_high:.2f})")
            lines.append(f"  {s.who:<7} ({s.strategy}): {plural(s.rated, 'decision')} rated, "
                         f"{s.loss:.1f} lost ({s.loss_low:.1f} .. {s.loss_high:.1f}){per}; "
                         f"{plural(s.doubtful, 'doubtful', 'doubtful')}, "
                         f"{plural(s.blunder, 'blunder')}")
    return "\n".join(lines)
