"""The overlap check of the kernels' constant families.

A constant family is a set of integer slot constants that index one array (the
rules vector ``RV_*``, a parameter row ``HP_*``, the state's ``g`` fields,
the work buffer's ``W_*`` slots, the record columns ...).  Each family is laid
out by a table and checked at import by :func:`check_family`: no two names share
an index and the family's length constant covers every index.
"""
from __future__ import annotations


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
