"""Wording shared by the messages of the command line and the library: a count that
agrees in number with its noun (and its verb), the line that announces a resumed run, and
one sentence for a path that must be a directory."""
from __future__ import annotations

import argparse
import os

__all__ = ["plural", "is_are", "resuming_line", "not_a_directory", "OneLineParser"]


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


def is_are(n) -> str:
    """The verb *to be* agreeing with a count: ``"is"`` for 1, else ``"are"``."""
    return "is" if n == 1 else "are"


def resuming_line(done: int, total: int, word: str, where, words: str | None = None) -> str:
    """The line that announces a resumed run: ``"resuming: 1 of 4 points is in 'DIR'"``,
    ``"resuming: 2 of 10 generations are in 'DIR'"``.

    Parameters
    ----------
    done : int
        The units already on disk (points of a sweep, generations of a tuning).
    total : int
        All the units of the run.
    word : str
        The noun for one unit; ``words`` as in :func:`plural`.
    where : str or os.PathLike
        The run directory, as the user gave it.

    Returns
    -------
    str
    """
    return (f"resuming: {done:,} of {plural(total, word, words)} {is_are(done)} in "
            f"{os.fspath(where)!r}")


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


class OneLineParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose refusals are one line on stderr, exit status 2:
    ``NAME: error: MESSAGE (see 'PROG --help')``, without argparse's usage block.

    Parameters
    ----------
    *args, **kwargs
        As for ``argparse.ArgumentParser``; sub-command parsers are of the same class.
    name : str, optional
        The program named before ``error:`` (default: the first word of ``prog``, so
        ``burraco`` for ``burraco simulate``).
    """

    def __init__(self, *args, name: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = name or self.prog.split()[0]

    def error(self, message):
        """Print ``NAME: error: MESSAGE (see 'PROG --help')`` to stderr; exit 2."""
        self.exit(2, f"{self.name}: error: {message} (see '{self.prog} --help')\n")



def signed(x: float) -> str:
    """A number with its sign and one decimal, thousands separated: ``+1,234.5``."""
    return f"{x:+,.1f}"


def shortened(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= width else text[:width - 1] + "…"
