"""Keep Numba's cache of the kernels fresh, wherever Numba keeps it.

Numba checks a cached function against its own source file only: after an
edit of a callee's module (say the card values in ``core/cards.py``) a cached
caller (``table/scoring.py``) would keep running the old callee, with wrong
results and no warning.  The kernels therefore stamp the cache of each layer
(subpackage, :data:`kernels.build.layers.LAYERS`): a stamp file
(``kernels-source.sha256``) lies beside the cache files of the layer, holding
the digest of the layer's own sources, of the sources of every layer it may
import (:func:`kernels.build.layers.closure`), and of the package's
``__init__.py`` and ``build`` (which decide how every kernel is compiled and
cached).  When the stamp differs from the digest of the sources being
imported, every kernel's cache file (``*.nbi``, ``*.nbc``) in that directory
is deleted before any kernel is compiled or loaded.  An edit thus drops the
cache of its own layer and of the layers above it, never of the layers
below: an edit to a peer bot (``peers``) leaves the turn loop (``play``)
cached, an edit to ``core`` recompiles everything.

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

from kernels.build.layers import LAYERS, closure

STAMP_NAME = "kernels-source.sha256"
KERNELS_DIR = Path(__file__).resolve().parent.parent
#: the layers whose sources every layer's compiled code depends on: the package's
#: ``__init__.py`` (it installs the compile hooks) and ``build`` (the hooks themselves)
COMPILE_LAYERS = ("__init__", "build")


def layer_folder(layer: str, root: Path = KERNELS_DIR) -> Path:
    """The folder of ``layer``'s sources: ``root/<layer>``, ``root`` itself for ``__init__``."""
    return root if layer == "__init__" else root / layer


def layer_files(layer: str, root: Path = KERNELS_DIR) -> list[Path]:
    """The source files of ``layer`` (``root/__init__.py`` alone for ``__init__``), sorted."""
    if layer == "__init__":
        return [root / "__init__.py"]
    return sorted((root / layer).glob("*.py"))


def layer_digest(layer: str, root: Path = KERNELS_DIR) -> str:
    """SHA-256, hex, of the sources a layer's compiled code depends on.

    The files of ``layer``, of every layer it may import
    (:func:`kernels.build.layers.closure` of :data:`~kernels.build.layers.LAYERS`)
    and of :data:`COMPILE_LAYERS`: relative paths and contents.

    Parameters
    ----------
    layer : str
        A key of :data:`kernels.build.layers.LAYERS`.
    root : pathlib.Path
        The ``kernels`` folder.

    Returns
    -------
    str
        The digest stamped on the layer's cache directories.
    """
    digest = hashlib.sha256()
    layers = sorted(set(closure(layer)).union(*(closure(c) for c in COMPILE_LAYERS)))
    for name in layers:
        for path in layer_files(name, root):
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
        :func:`layer_digest` of the sources being imported.

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
    """Refresh every cache directory of every layer of ``root`` against the layer's digest.

    Must run before any kernel under ``root`` is compiled or loaded from the
    cache (``kernels/__init__.py`` calls it at import).

    Parameters
    ----------
    root : pathlib.Path
        The ``kernels`` folder.

    Returns
    -------
    list of pathlib.Path
        The directories whose cache files were deleted.
    """
    dropped: list[Path] = []
    for layer in LAYERS:
        digest = layer_digest(layer, root)
        dropped += [d for d in candidate_dirs(layer_folder(layer, root)) if refresh(d, digest)]
    return dropped


_layer_cache: dict[str, Path | None] = {}


def layer_cache_dir(layer: str) -> Path | None:
    """The directory Numba uses for the kernels of ``layer`` in this process (memoized), or None."""
    if layer not in _layer_cache:
        _layer_cache[layer] = numba_cache_dir(layer_folder(layer))
    return _layer_cache[layer]


def kernel_name(function) -> str | None:
    """``"layer.module.function"`` of a kernel of this package (a dispatcher or CFunc), or None."""
    py_func = getattr(function, "py_func", None) or getattr(function, "__wrapped__", None)
    module = getattr(py_func, "__module__", None) or ""
    if not module.startswith(f"{KERNELS_DIR.name}."):
        return None
    return f"{module.removeprefix(KERNELS_DIR.name + '.')}.{py_func.__qualname__}"


def cached(*functions) -> bool | None:
    """Whether Numba's cache holds every one of ``functions``: the one test of "is it compiled".

    Reads the cache's index files (``<module>.<function>-<line>.py<ver>.nbi``,
    Numba's naming) in the directory Numba uses for the kernel's layer
    (:func:`layer_cache_dir`); no kernel is imported or compiled.

    Parameters
    ----------
    *functions : numba dispatcher, CFunc or str
        Kernels of this package, or names ``"layer.module.function"`` (say
        ``"search.player.rollout_callback"``) for one whose module is not
        imported yet (importing it may compile it).

    Returns
    -------
    bool or None
        True if an index file of each is in the cache (loading is quick),
        False if one will be compiled, None if that cannot be told (not a
        kernel of this package, or no cache directory).
    """
    for f in functions:
        name = f if isinstance(f, str) else kernel_name(f)
        if name is None:
            return None
        layer, _, name = name.partition(".")
        cache = layer_cache_dir(layer)
        if cache is None:
            return None
        if not any(cache.glob(f"{name}-*.nbi")):
            return False
    return True
