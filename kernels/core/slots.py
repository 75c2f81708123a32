"""The overlap check of the kernels' constant families.

A constant family is a set of integer slot constants that index one array (the
rules vector ``RV_*``, a parameter row ``HP_*``, the state's ``g`` fields,
the work buffer's ``W_*`` slots, the record columns ...).  Each family is laid
out by a table and checked at import by :func:`check_family`: no two names share
an index and the family's length constant covers every index.
"""
from __future__ import annotations

from pathlib import Path


def check_family(name: str, slots: dict, length: int) -> None:
    """Refuse a constant family whose slots overlap or fall outside its length.

    Parameters
    ----------
    name : str
        The family, for the message (``"RV"``, ``"HP"`` ...).
    slots : dict
        Slot constant name -> index, or ``(index, words)`` for a field of
        several consecutive words (one per team, seat ...).
    length : int
        The family's length constant: every index must be in ``0..length-1``.

    Raises
    ------
    AssertionError
        Two names share an index, or an index is outside ``0..length-1``.
    """
    seen = {}
    for key, at in slots.items():
        first, words = at if isinstance(at, tuple) else (at, 1)
        for index in range(first, first + words):
            if not 0 <= index < length:
                raise AssertionError(f"{name}: {key} = {index} is outside 0..{length - 1}")
            if index in seen:
                raise AssertionError(f"{name}: {key} and {seen[index]} share slot {index}")
            seen[index] = key


def _block_bounds(lines: list, family: str, path: str) -> tuple:
    begin = f"# -- {family}: generated from its table; check or write it again with "
    starts = [i for i, line in enumerate(lines) if line.startswith(begin)]
    ends = [i for i, line in enumerate(lines) if line == f"# -- end of {family}\n"]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"{path}: no single block of generated {family} constants")
    return starts[0], ends[0]


def block_text(family: str, slots: dict, command: str) -> str:
    """The source of a family's constants, one ``NAME = index`` line each, in index order.

    Parameters
    ----------
    family : str
        The family (``"RV"``, ``"HP"``, ``"G"``), for the block's first and last lines.
    slots : dict
        Constant name -> index (int).
    command : str
        The command that writes the block again (``python -m MODULE``).

    Returns
    -------
    str
        The lines, each ending in a newline, the markers included.
    """
    body = "".join(f"{name} = {int(at)}\n" for name, at in
                   sorted(slots.items(), key=lambda kv: (int(kv[1]), kv[0])))
    return (f"# -- {family}: generated from its table; check or write it again with "
            f"{command}\n{body}# -- end of {family}\n")


def check_block(path, family: str, slots: dict, command: str) -> None:
    """Refuse a module whose written constants of ``family`` differ from its table.

    The constants are written out in their module (``NAME = index`` lines between
    two marker lines), so that a reader and a linter find them; the table stays
    the one declaration, and this check, run at import, fails at once when the
    written block is not exactly :func:`block_text` of the table.

    Parameters
    ----------
    path : str or os.PathLike
        The module's file (its ``__file__``).
    family, slots, command
        As for :func:`block_text`.

    Raises
    ------
    AssertionError
        The block differs from the table's; the message names the first
        differing constant and the command that writes the block again.
    """
    lines = Path(path).read_text().splitlines(keepends=True)
    a, b = _block_bounds(lines, family, str(path))
    want = block_text(family, slots, command).splitlines(keepends=True)
    if lines[a:b + 1] != want:
        wrong = next((w for w, h in zip(want, lines[a:b + 1]) if w != h), want[-1])
        raise AssertionError(f"{path}: the {family} constants differ from their table "
                             f"(expected {wrong.strip()!r}); run {command}")


def write_block(path, family: str, slots: dict, command: str) -> bool:
    """Write the block of ``family``'s constants in the file ``path`` again.

    Returns
    -------
    bool
        True when the file changed.

    Raises
    ------
    ValueError
        The file has no single block of the family (its marker lines).
    """
    path = Path(path)
    lines = path.read_text().splitlines(keepends=True)
    a, b = _block_bounds(lines, family, str(path))
    new = "".join(lines[:a]) + block_text(family, slots, command) + "".join(lines[b + 1:])
    if new == "".join(lines):
        return False
    path.write_text(new)
    return True
