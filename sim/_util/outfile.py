"""One output file written whole or not at all: :func:`check_out` says why a path cannot
be the file (before any work), :func:`write_text` writes it through a temporary file in
the same directory renamed into place, never clobbering a file that appeared meanwhile
unless asked to (the HTML viewer's page, a review's text or JSON)."""
from __future__ import annotations

import os
import tempfile

__all__ = ["check_out", "write_text"]


def check_out(path: str, overwrite: bool, name: str = "path", flag: str = "overwrite=True",
              what: str = "file") -> None:
    """ValueError when ``path`` cannot be the output file.

    Parameters
    ----------
    path : str
        The file to write.
    overwrite : bool
        An existing file may be replaced.
    name, flag : str
        The names the message gives the path and the overwrite option (``"--out"``,
        ``"--overwrite"`` on the command line).
    what : str
        What the file is, for the message of a directory (``"HTML file"``).

    Raises
    ------
    ValueError
        An empty name, a directory, a missing directory, or an existing file without
        ``overwrite``; one line naming ``name``.
    """
    if not path:
        raise ValueError(f"{name}: the file name is empty")
    if os.path.isdir(path):
        raise ValueError(f"{name}: {path!r} is a directory; give the {what}'s name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{name}: the directory {folder!r} does not exist")
    if os.path.lexists(path) and not overwrite:
        raise ValueError(f"{name}: {path!r} exists; use another name, or {flag} to replace it")


def write_text(path, text: str, overwrite: bool = False, name: str = "path",
               flag: str = "overwrite=True", what: str = "file") -> str:
    """Write ``text`` (UTF-8) to ``path`` atomically: a temporary file in the same
    directory, flushed and synced, then renamed into place (without ``overwrite``
    linked, so a file that appeared meanwhile is refused, not clobbered).  The file
    gets the mode a new file gets under the umask; the temporary is always removed.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        As :func:`check_out`, or the directory cannot be written.
    OSError
        Writing failed (the old file, if any, is kept whole).
    """
    path = os.fspath(path)
    check_out(path, overwrite, name, flag, what)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.",
                                   suffix=".tmp")
    except OSError as exc:
        raise ValueError(f"{name}: cannot write in {folder!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)             # fails if path appeared meanwhile: never clobbers
            except FileExistsError:
                check_out(path, False, name, flag, what)
            except OSError:                    # no hard links here: check, then rename
                check_out(path, False, name, flag, what)
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path
