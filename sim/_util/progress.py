"""The progress bars of the project: one helper, :func:`progress_bar`, so that every bar
counts the same way on stderr."""
from __future__ import annotations

import sys

__all__ = ["SCALE_FROM", "progress_bar"]

#: Totals from this one on are shown with SI prefixes (``12.3k/30.0k``); smaller ones as
#: whole numbers (``7/10``), since tqdm's ``unit_scale`` prints small counts as ``7.00``.
SCALE_FROM = 10_000


def progress_bar(total: int, desc: str, unit: str, *, initial: int = 0,
                 disable: bool = False, smoothing: float = 0.1, auto: bool = False,
                 file=None):
    """A tqdm progress bar on stderr that counts in whole numbers.

    Parameters
    ----------
    total : int
        The units of the whole bar (hands, rollouts, generations...).
    desc : str
        The text before the bar (``"simulate"``, ``"analyze"``...).
    unit : str
        The name of one unit (``"hand"``, ``"rollout"``, ``"gen"``).
    initial : int, optional
        Units done before the bar starts (a resumed run), so the rate is honest.
    disable : bool, optional
        No bar at all (it is still a usable object).
    smoothing : float, optional
        tqdm's smoothing of the rate.
    auto : bool, optional
        ``tqdm.auto`` (a widget in a notebook) instead of the text bar.
    file : file-like, optional
        Where the bar is written (default: ``sys.stderr`` at the call).

    Returns
    -------
    tqdm.tqdm
        SI prefixes (``unit_scale``) only when ``total >= SCALE_FROM``.
    """
    if auto:
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return tqdm(total=total, initial=initial, desc=desc, unit=unit,
                unit_scale=total is not None and total >= SCALE_FROM, disable=disable,
                file=sys.stderr if file is None else file, dynamic_ncols=True,
                smoothing=smoothing)
