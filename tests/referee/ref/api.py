"""Checking a document: :func:`check` and its variants."""
from __future__ import annotations

import json

from .core import Referee
from .violations import _Stop


def check(doc: dict) -> list:
    """Referee one replay document.

    Returns
    -------
    list of Violation
        Empty when every action and the result agree with RULES.md.
    """
    ref = Referee(doc)
    try:
        ref.run()
    except _Stop:
        pass
    except Exception as exc:            # noqa: BLE001 - a referee crash is a finding too
        ref.bad("DOC", f"referee could not process the document: {type(exc).__name__}: {exc}",
                None)
    return ref.v


def computed_result(doc: dict) -> dict:
    """The record the referee computes for a document (for debugging)."""
    ref = Referee(doc)
    ref.run()
    return ref.computed


def check_strict(doc: dict) -> None:
    """Raise AssertionError listing every violation of ``doc``."""
    v = check(doc)
    if v:
        raise AssertionError(f"{len(v)} rule violation(s):\n" + "\n".join(str(x) for x in v))


def check_json(text: str) -> list:
    """:func:`check` on a JSON text."""
    return check(json.loads(text))
