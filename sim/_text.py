"""Wording shared by the messages of the command line and the library: a count that
agrees in number with its noun, and one sentence for a path that must be a directory."""
from __future__ import annotations

import os

__all__ = ["plural", "not_a_directory"]


def plural(n, word: str, words: str | None = None) -> str:
    """A count and its noun, agreeing in number: ``"1 candidate"``, ``"12 candidates"``,
    ``"20,000 deals"``, ``"1 match"``, ``"2 matches"``.

    Parameters
    ----------
    n : int
        The count, printed with thousands separators.
    word : str
        The noun for one.
    words : str, optional
        The noun for any other count (default: ``word`` + ``es`` after s, x, ch or sh,
        else ``word`` + ``s``).

    Returns
    -------
    str
    """
    if words is None:
        words = word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")
    return f"{n:,} {word if n == 1 else words}"


def not_a_directory(what: str, path) -> str:
    """The message for a path that must be a directory and is not: ``what: 'PATH' is a
    file, not a directory``, ``... does not exist``, or ``... is not a directory`` for
    anything else (a socket, say); ``what`` names the option or parameter as the user
    gave it."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        return f"{what}: {path!r} does not exist"
    if os.path.isfile(path):
        return f"{what}: {path!r} is a file, not a directory"
    return f"{what}: {path!r} is not a directory"
