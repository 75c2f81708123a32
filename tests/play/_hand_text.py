"""Edits of a hand file's text, shared by the hand-file tests (bad files made from good ones)."""
from __future__ import annotations

import pytest


def edit(text: str, old: str, new: str, count: int = 1) -> str:
    """``text`` with ``old`` (which must be there) replaced by ``new``."""
    assert old in text, old
    return text.replace(old, new, count)


def cut_turns(text: str, keep: int) -> str:
    """The file with its first ``keep`` turns only."""
    parts = text.split("\n[[turns]]")
    return "\n[[turns]]".join(parts[:keep + 1]) + "\n"


def refused_in_one_line(load, text: str, bad: dict, case: str) -> None:
    """``load`` of the case's edited text raises a one-line ValueError starting with its
    needle (``bad[case] = (edit, needle)``)."""
    change, needle = bad[case]
    with pytest.raises(ValueError) as exc:
        load(change(text))
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(needle), msg
