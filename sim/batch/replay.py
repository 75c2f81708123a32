"""The replay of one hand, with its full event log: of a run directory's hand
(``replay(run=DIR, hand_index=I)``: the settings from the run's manifest, the record
checked against the hand's row) or under explicit settings (``replay(seed, I,
strategies, rules, dealer)``).  The replay document and its text, JSON and HTML
forms are built by :mod:`sim.play.trace`; its names are re-exported here, so
``sim.trace.format_text`` and ``sim.trace.to_json`` keep working.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from kernels.core import layout as L

from sim._util import compiling
from sim._util.text import plural
from sim.core.cards import check_int, rules_or_default
from sim.core.match import MATCH_STRIDE
from sim.core.rules import Rules
from sim.play.game import Game
from sim.play.trace import (EV_CARDS, EV_ROWS, document, events_of, format_text, history,
                            start_block, to_html, to_json)
from sim.batch.read import load, read_manifest
from sim.strategies import python_sources, recorded_spec, resolve_seats, seat_names
from sim.strategies.pystrategy import as_recorded, check_recorded, is_python_spec, relocated

__all__ = ["ReplayMismatchError", "CHECKED_COLUMNS", "replay", "document", "events_of",
           "format_text", "history", "start_block", "to_html", "to_json"]


class ReplayMismatchError(RuntimeError):
    """The replay of a run's hand does not give the hand's row (it must never happen)."""


#: Record columns compared between a replay and the run's row (``error`` is left out: it
#: holds the debug checks' flags of a ``--debug`` run, and a replay runs no checks).
CHECKED_COLUMNS = tuple(c for c in L.REC_COLUMNS if c != "error")


def _run_manifest(directory) -> dict:
    """The manifest dict of run directory ``directory`` (:func:`sim.batch.read.read_manifest`;
    ValueError if it is none or it is damaged)."""
    return read_manifest(directory)


def _run_hand(run, hand_index: int, python_files=None) -> tuple:
    """What replays hand ``hand_index`` of the run in directory ``run``.

    Returns ``(seed, strategies, rules, dealer, row)``: the manifest's seed,
    strategies and rules, and for a match hand its dealer and (with 3 players, when
    its ``individual`` is true) the ``individual_3x11`` rules (R63); ``row`` is the
    hand's row (a dict), None for a hand of a hand run whose shard is not complete yet.
    ``python_files`` (specs ``FILE.py:CLASS``) say where the run's Python strategy files
    are now (:func:`sim.strategies.pystrategy.relocated`); a recorded file that is not where the run
    recorded it is refused in one line saying so (:func:`sim.strategies.pystrategy.check_recorded`).
    """

    where = os.fspath(run)
    manifest = _run_manifest(run)
    config, kind = manifest["config"], manifest["kind"]
    seed = int(config["seed"])
    rules = Rules.from_dict(config["rules"])
    named = [s for s in config["strategies"] if s is not None]
    # a name recorded while rollout's default was the flat search plays the flat search
    strategies = [recorded_spec(s if s is not None else named[0]) for s in config["strategies"]]
    sources = config.get("strategy_sources") or {}
    if python_files:
        strategies = relocated(strategies, python_files, f"the run in {where!r}")
    if sources:                                 # Python strategies: still the same source?
        check_recorded(strategies, f"the run in {where!r}")
        strategies = [as_recorded(s) for s in strategies]
        names, _, _, pythons = resolve_seats(strategies)
        now = python_sources(names, pythons)
        for spec, digest in sorted(sources.items()):
            if now.get(spec) != digest:
                raise ValueError(f"replay: the source of the Python strategy {spec!r} changed "
                                 f"since the run in {where!r} was simulated (digest {digest}, "
                                 f"now {now.get(spec)}), so its replay would not be the "
                                 "simulated hand")
    wanted = [("hand_index", "==", hand_index)]
    if kind == "hands":
        total = int(config["hands"])
        if hand_index >= total:
            raise ValueError(f"hand_index: the run in {where!r} has hands 0..{total - 1}, "
                             f"not hand {hand_index}")
        rows = load(run, filter=wanted)
        if not len(rows) and config.get("selection"):
            raise ValueError(f"hand_index: hand {hand_index} is not a hand of the run in "
                             f"{where!r}: it plays selected hands only and holds no row of this "
                             "one (not selected, or its shard is not complete yet); give the "
                             "run's seed (--seed) instead of the directory")
        return seed, strategies, rules, None, (rows.iloc[0].to_dict() if len(rows) else None)
    rows = load(run, filter=wanted)
    if not len(rows):
        m = hand_index // MATCH_STRIDE
        total = int(config["matches"])
        if m >= total:
            why = f"the run has matches 0..{total - 1}"
        else:
            played = len(load(run, columns=["hand_index"], filter=[("match", "==", m)]))
            first = m * MATCH_STRIDE
            why = (f"match {m} has {plural(played, 'hand')}, {first}..{first + played - 1}"
                   if played
                   else f"match {m} is not in a complete shard yet")
        raise ValueError(f"hand_index: hand {hand_index} is not a hand of the match run in "
                         f"{where!r}: "
                         f"hand k of match m is m*{MATCH_STRIDE}+k, and {why}")
    row = rows.iloc[0].to_dict()
    if rules.num_players == 3 and bool(row["individual"]):
        rules = rules.replace(three_player_mode="individual_3x11")      # R63, as sim.match
    return seed, strategies, rules, int(row["dealer"]), row


def _same(want, got) -> bool:
    """A row value (NumPy/pandas scalar, NaN or None for null) equals a record value."""
    if want is None or (pd.api.types.is_scalar(want) and pd.isna(want)):
        return got is None
    if got is None:
        return False
    if isinstance(got, str):
        return str(want) == got
    return int(want) == int(got)


def _check_row(doc: dict, row: dict, run) -> None:
    """Raise :class:`ReplayMismatchError` when the replay's record differs from the run's row."""
    res = doc["result"]
    bad = [c for c in CHECKED_COLUMNS if c in row and not _same(row[c], res[c])]
    if bad:
        c = bad[0]
        raise ReplayMismatchError(
            f"replay: hand {doc['hand_index']} of the run in {os.fspath(run)!r} replays to "
            f"{c} = {res[c]!r}, but the run's row has {row[c]!r}"
            + (f" ({len(bad)} columns differ: {', '.join(bad)})" if len(bad) > 1 else "")
            + ("; a Python strategy of the run does not choose the same way on the same "
               "observations (unseeded randomness: use reset's random_seed; or state kept from "
               "earlier hands)" if _has_python(doc) else
               "; the replay is not the simulated hand (please report this)"))


def _has_python(doc: dict) -> bool:
    return any(is_python_spec(s) for s in doc["strategies"] if s is not None)


def _without_run() -> ValueError:
    """The error for ``python_files`` given without ``run``."""
    return ValueError("python_files: only with run=DIR (it says where a run's Python strategy "
                      "files are now); give the strategies themselves as strategies=")


#: The options a run fixes, refused with ``run``.
_RUN_FIXED = ("seed", "strategies", "rules", "dealer")


def replay(seed=None, hand_index=None, strategies=None, rules=None, dealer=None, *,
           run=None, python_files=None) -> dict:
    """Replay one hand of a run with its full event log.

    Two forms: ``replay(run=DIR, hand_index=I)`` replays hand ``I`` of the run
    directory ``DIR`` (``burraco simulate --out DIR`` or ``sim.simulate(...,
    out=DIR)``, hand or match run) with the seed, strategies and rules of its
    manifest, and for a match hand the dealer of its row (and, for a 3-player
    hand whose ``individual`` is true, ``three_player_mode="individual_3x11"``,
    R63); the replay's record is then compared with the hand's row.
    ``replay(seed, I, strategies, rules, dealer)`` replays hand ``I`` of
    whatever run those settings describe: give every one the run used.

    Parameters
    ----------
    seed : int, optional
        Run seed, 0 <= seed < 2**64.  Required without ``run``; refused with it.
    hand_index : int
        0-based index of the hand in the run.  For a match run, hand ``k`` of
        match ``m`` is ``m * 65536 + k`` (the row's ``hand_index``).
    strategies : str, list of 4 or dict, optional
        Strategy spec for every seat, or one per seat (as ``sim.simulate``:
        Python strategies too, played through :class:`sim.play.game.Game`);
        default ``"heuristic"``.  Refused with ``run`` (a run's Python
        strategies are loaded from their specs, and refused if their source
        changed since the run).
    rules : sim.Rules, str, dict or None
        Rule set (default preset when None).  Refused with ``run``.
    dealer : int or None
        Dealer seat (0 .. num_players-1) as in a match, where the deal rotates
        (R6); None for the deal's own random dealer.  Refused with ``run``.
    run : str or os.PathLike, optional
        A run directory: the hand must be one the run holds.  For a hand run,
        ``hand_index`` in ``0 .. hands-1``; a hand whose shard is not complete
        yet is replayed too (its deal is fixed by the manifest) but is not
        compared, there being no row.  For a match run, the ``hand_index`` of a
        hand row in a complete shard (an unfinished shard's dealers are not
        known).
    python_files : list of str, optional
        With ``run``: where the run's Python strategy files are now, as specs
        ``FILE.py:CLASS`` with the file name and class the run recorded (its
        records name each file by its absolute path; a file that has moved
        since is refused without this).  Its source must still be the run's.

    Returns
    -------
    dict
        The replay document (module docstring); ``json.dumps`` serialises it.

    Raises
    ------
    ValueError
        Bad seed, index, strategy or rules; neither ``seed`` nor ``run``; with
        ``run``: not a run directory, a hand the run does not hold, or one of
        ``seed``, ``strategies``, ``rules``, ``dealer`` given.
    ReplayMismatchError
        With ``run``: the replay's record differs from the hand's row (a bug;
        it must never happen).
    """
    if hand_index is None:
        raise ValueError("replay: hand_index is required")
    hand_index = check_int("hand_index", hand_index, 0, 2**63 - 1)
    row = None
    if run is not None:
        if not isinstance(run, (str, os.PathLike)):
            raise ValueError(f"replay: run must be a run directory path, got {run!r}")
        given = dict(zip(_RUN_FIXED, (seed, strategies, rules, dealer)))
        for name, value in given.items():
            if value is not None:
                raise ValueError(f"replay: {name} is taken from the run in {os.fspath(run)!r}; "
                                 "leave it out")
        seed, strategies, rules, dealer, row = _run_hand(run, hand_index, python_files)
    elif python_files:
        raise _without_run()
    elif seed is None:
        raise ValueError("replay: give the run's seed (and its strategies, rules and, for a "
                         "match hand, dealer), or run=DIR")
    doc = _play(seed, hand_index, "heuristic" if strategies is None else strategies, rules,
                dealer)
    if row is not None:
        _check_row(doc, row, run)
    return doc


def _play(seed, hand_index, strategies, rules, dealer) -> dict:
    """The replay document of hand ``hand_index`` under explicit settings."""
    from kernels.play.game import play_hand
    from kernels.table.work import work_words

    seed = check_int("seed", seed, 0, 2**64 - 1)
    r = rules_or_default(rules)
    r.check_supported()
    specs, kinds, params, pythons = resolve_seats(strategies, r)
    specs = seat_names(specs, r)                 # None for an empty seat (2 players)
    dealer_in = -1 if dealer is None else check_int("dealer", dealer, 0, r.num_players - 1)
    if python_sources(specs, pythons):           # a Python strategy: through sim.Game
        players = [p.player() if p is not None and specs[s] is not None else None
                   for s, p in enumerate(pythons)]
        game = Game._deal(seed, hand_index, r, dealer_in, kinds, params, specs, players,
                          log=(EV_ROWS, EV_CARDS))
        game._play_python()
        return document(seed, hand_index, r, specs, game._work, game._record())
    rec = np.zeros(L.N_REC, np.int32)
    with compiling.announce("the replay kernel", compiling.cold(play_hand, work_words)):
        work = np.empty(work_words(EV_ROWS, EV_CARDS), np.int64)
        play_hand(np.uint64(seed), np.int64(hand_index), np.int64(dealer_in), r.to_vector(),
                  kinds, params, np.int64(0), rec, EV_ROWS, EV_CARDS, work)
    return document(seed, hand_index, r, specs, work, rec)
