"""Input helpers shared by the Python API: cards, integers and rules arguments."""
from __future__ import annotations

import numpy as np

from kernels.core.cards import CIDX, N_COUNT

from sim.core import notation
from sim.core.rules import Rules


def ids(cards, field: str = "cards") -> np.ndarray:
    """Card ids (int64) from a notation string or a sequence of ids.

    Raises
    ------
    ValueError
        A bad token, an id outside 0..107, or the same id twice.
    """
    if isinstance(cards, str):
        return notation.parse(cards).astype(np.int64)
    arr = np.asarray(cards)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{field}: expected a notation string or a 1-D array of card ids")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() > 107):
        raise ValueError(f"{field}: card ids must be in 0..107")
    if len(np.unique(arr)) != len(arr):
        raise ValueError(f"{field}: the same physical card id appears twice (R1)")
    return arr


def ids_many(args) -> list:
    """Card ids (int64) of several card arguments drawn from one 108-card deck (R1).

    Ids given as numbers are the physical cards they name; a text names
    cards, not copies, so each of its cards gets a copy that no argument
    holds (copy 0 first, jokers in the order of :func:`sim.core.notation.parse`).
    A second copy of a card already in another argument is therefore the
    other physical copy, whether that argument is text or ids.

    Parameters
    ----------
    args : sequence of (cards, str)
        Each argument as accepted by :func:`ids` with its name, used in
        errors.

    Returns
    -------
    list of numpy.ndarray
        One ``int64[n_i]`` id array per argument, in order.

    Raises
    ------
    ValueError
        As :func:`ids`; an id in two arguments; a text card whose copies
        (both, or the four jokers) are all held already: the message names
        the card and the arguments holding it.
    """
    deck = notation._Deck()
    out = [None] * len(args)
    for k, (cards, field) in enumerate(args):        # numbers first: they fix physical cards
        if not isinstance(cards, str):
            arr = ids(cards, field)
            for cid in arr.tolist():
                if deck.owner[cid] is not None:
                    raise ValueError(f"{field}: card id {cid} ({notation.format_card(cid)}) "
                                     f"is also in {deck.owner[cid]} (R1: a physical card is in one place)")
            deck.hold(arr, field)
            out[k] = arr
    for k, (cards, field) in enumerate(args):
        if isinstance(cards, str):
            out[k] = deck.parse(cards, field).astype(np.int64)
    return out


def counts(card_ids: np.ndarray) -> np.ndarray:
    """``int64[53]`` counts per count index (52 = joker) of ``card_ids``."""
    c = np.zeros(N_COUNT, np.int64)
    np.add.at(c, CIDX[card_ids], 1)
    return c


def rules_or_default(rules) -> Rules:
    """``rules`` itself, the default preset for None, a preset by name, or a dict of options.

    Raises
    ------
    ValueError
        Unknown preset or option, or a value of another type.
    """
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise ValueError(f"rules must be a Rules, a preset name or a dict of options, got {rules!r}")


def check_int(name: str, value, lo: int, hi: int) -> int:
    """``value`` as an int when it is an integer (not a bool) in ``lo..hi``.

    Raises
    ------
    ValueError
        Naming ``name`` and the allowed range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in {lo}..{hi}, got {value!r}")
    return int(value)


def check_progress(value, default: str) -> str:
    """The label of the progress bars that ``progress=value`` asks for: ``default`` for
    True, the str given, ``""`` (no bar) for False.

    Raises
    ------
    ValueError
        Neither a bool nor a non-empty str.
    """
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("progress must be True, False or the progress bar's label (a "
                             "non-empty str), got ''")
        return value
    return default if check_bool("progress", value) else ""


def check_bool(name: str, value) -> bool:
    """``value`` as a bool when it is a bool (Python or NumPy).

    Raises
    ------
    ValueError
        Naming ``name``: it must be True or False.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)
