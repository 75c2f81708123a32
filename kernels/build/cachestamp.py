"""Keep Numba's cache of the kernels fresh, wherever Numba keeps it.

Numba checks a cached function against its own source file only: after an
edit of a callee's module (say the card values in ``cards.py``) a cached
caller (``scoring.py``) would keep running the old callee, with wrong results
and no warning.  The kernels therefore treat their cache as one: a stamp file
(``kernels-source.sha256``, the digest of every ``kernels/**/*.py``) lies
beside the cache files of each subpackage, and when it differs from the digest
of the sources being imported every kernel's cache file (``*.nbi``, ``*.nbc``)
in that directory is deleted before any kernel is compiled or loaded.

Numba picks the cache directory of a source file by its locators, the first
that applies and is writable:

1. ``$NUMBA_CACHE_DIR/<folder>_<sha1 of the folder path>`` if
   ``NUMBA_CACHE_DIR`` is set (containers, CI, clusters);
2. ``__pycache__`` beside the source;
3. the user-wide cache, ``~/.cache/numba/<folder>_<sha1>`` on Linux
   (``$XDG_CACHE_HOME`` if set), for a read-only install;

(``NUMBA_CACHE_LOCATOR_CLASSES`` may replace the list).  Every one of these
directories that exists is checked, and also the one Numba's own locator
lookup picks (``numba.core.caching.FunctionCache._impl_class``; internal
API, used only if present): a directory Numba may read from is
never left stale, whichever Numba version picks it.

Each directory holds the cache of one source folder only, so deleting its
``*.nbi``/``*.nbc`` files touches no other package's cache.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from pathlib import Path

STAMP_NAME = "kernels-source.sha256"
KERNELS_DIR = Path(__file__).resolve().parent.parent


def source_folders(root: Path = KERNELS_DIR) -> list[Path]:
    """The folders of ``root`` holding kernel sources: ``root`` and its subpackages."""
    return [root] + sorted(p.parent for p in root.glob("*/__init__.py"))


def kernels_digest(root: Path = KERNELS_DIR) -> str:
    """SHA-256 of every ``*.py`` file under ``root`` (relative paths and contents), hex."""
    digest = hashlib.sha256()
    for folder in source_folders(root):
        for path in sorted(folder.glob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _subpath(folder: Path) -> str:
    """The cache sub-directory Numba gives a source folder outside ``__pycache__``.

    ``<folder name>_<sha1 of the absolute folder path>``, as Numba's
    ``_CacheLocator.get_suitable_cache_subpath`` computes it.
    """
    path = os.path.abspath(folder)
    return "_".join([os.path.basename(path), hashlib.sha1(path.encode()).hexdigest()])


def _user_wide_root() -> Path:
    """Numba's user-wide cache root (``AppDirs("numba").user_cache_dir``)."""
    try:
        from numba.misc.appdirs import AppDirs
        return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)
    except (ImportError, AttributeError, TypeError):
        if sys.platform == "darwin":
            return Path.home() / "Library" / "Caches" / "numba"
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"


def numba_cache_dir(folder: Path = KERNELS_DIR) -> Path | None:
    """The directory Numba's own locator lookup picks for a function of ``folder``.

    Runs the locator lookup of Numba's ``FunctionCache._impl_class`` (internal
    API, the class that ``cache=True`` uses) on a stand-in function whose
    source file is ``folder/__init__.py``, as Numba does for each
    ``cache=True`` function when it is defined; like Numba, this creates the
    directory if missing.  ``None`` if this Numba has no such class or no
    locator applies (then :func:`candidate_dirs` relies on the documented
    locations alone).
    """
    try:
        from numba.core import caching
    except ImportError:
        return None
    function_cache = getattr(caching, "FunctionCache", None)
    impl = getattr(function_cache, "_impl_class", None)
    if impl is None:
        return None

    code = compile("def probe():\n    return None\n", str(folder / "__init__.py"), "exec")
    namespace: dict = {}
    exec(code, namespace)               # noqa: S102  a stand-in whose file is folder/__init__.py
    probe = namespace["probe"]
    try:
        return Path(impl(probe)._locator.get_cache_path())
    except (RuntimeError, OSError, AttributeError, TypeError):
        return None


def candidate_dirs(folder: Path = KERNELS_DIR) -> list[Path]:
    """Every directory Numba may keep ``folder``'s cache in, without duplicates.

    Numba's own pick (:func:`numba_cache_dir`) first, then the documented
    locations: ``$NUMBA_CACHE_DIR`` (as Numba read it), ``__pycache__``, the
    user-wide cache.
    """
    dirs: list[Path] = []
    picked = numba_cache_dir(folder)
    if picked is not None:
        dirs.append(picked)
    cache_root = ""
    with contextlib.suppress(ImportError):
        from numba.core import config
        cache_root = config.CACHE_DIR or ""
    cache_root = cache_root or os.environ.get("NUMBA_CACHE_DIR", "")
    if cache_root:
        dirs.append(Path(cache_root) / _subpath(folder))
    dirs.append(folder / "__pycache__")
    dirs.append(_user_wide_root() / _subpath(folder))
    unique: list[Path] = []
    for d in dirs:
        if all(os.path.abspath(d) != os.path.abspath(u) for u in unique):
            unique.append(d)
    return unique


def refresh(directory: Path, digest: str) -> bool:
    """Empty ``directory`` of cache files if its stamp is not ``digest``; then stamp it.

    Parameters
    ----------
    directory : pathlib.Path
        A Numba cache directory of the kernels' folder.  Nothing happens if it
        does not exist.
    digest : str
        :func:`kernels_digest` of the sources being imported.

    Returns
    -------
    bool
        True if cache files were deleted.  A directory that cannot be written
        is left as it is: Numba neither loads from nor saves to a cache
        directory it cannot write (its locators test that first).
    """
    stamp = directory / STAMP_NAME
    with contextlib.suppress(OSError):
        if stamp.read_text() == digest:
            return False
    if not directory.is_dir():
        return False
    dropped = False
    with contextlib.suppress(OSError):
        for f in directory.iterdir():
            if f.suffix in (".nbi", ".nbc"):
                f.unlink()
                dropped = True
        tmp = stamp.with_name(f"{STAMP_NAME}.{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, stamp)
    return dropped


def drop_stale(root: Path = KERNELS_DIR) -> list[Path]:
    """Refresh every cache directory of every source folder of ``root`` against its digest.

    Must run before any kernel under ``root`` is compiled or loaded from the
    cache (``kernels/__init__.py`` calls it at import).  Returns the directories
    whose cache files were deleted.
    """
    digest = kernels_digest(root)
    return [d for folder in source_folders(root) for d in candidate_dirs(folder)
            if refresh(d, digest)]
