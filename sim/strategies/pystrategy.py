"""Strategies written in Python (docs/strategies.md).

Any object with a method ``choose(observation, legal_actions) -> action`` is
a strategy: it gets the :class:`sim.play.game.Observation` of its seat (what R11
lets that seat know, nothing else) and the legal action ids (ascending), and
returns one of them.  An optional ``reset(...)`` is called at the start of
every hand with the keywords it names among::

    seat         the seat it plays this hand (0..3)
    rules        the sim.Rules of the run
    hand_index   the hand's index in the run
    random_seed  an int for the strategy's own random choices: a hash of the
                 run seed, the hand and the seat, different for every hand
                 and seat (not the deal's random stream)

(``reset(**kw)`` gets them all; ``reset()`` none).  Such a strategy is named,
wherever a strategy spec is accepted, by a spec string:

* ``"path/to/file.py:ClassName"``: the file is loaded (once per content) and
  ``ClassName`` taken from it;
* ``"module:ClassName"``: ``importlib.import_module("module")`` (the working
  directory is tried too, as ``python -m`` does), then the attribute
  (``"module:Outer.Inner"`` works);

or given as the class itself or an instance of it.  A class (or a spec) is
instantiated without arguments, one instance per seat; an instance plays
every seat it is given (its ``reset`` is called once per seat, and
``observation.seat`` tells them apart).

A seat's name in the records and the manifest is its spec string: for
``FILE.py:CLASS`` the file's absolute, resolved path with the class
(``/home/me/mine.py:Mine``, so the run replays and resumes from any folder;
:func:`relocated` loads it from a new place once the file has moved), for
``MODULE:CLASS`` the spec given, and ``"module:QualName"`` for a class or
instance (``"__main__:Name"`` for one defined in a script or notebook).  Its *source digest*
(:attr:`PythonStrategy.digest`: the SHA-256 of the file that defines it, or
of the class's source when there is no file) is part of the run's identity,
so a run directory refuses to resume once the file has changed.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import traceback
from dataclasses import dataclass

from sim.strategies.registry import names

__all__ = ["PythonStrategy", "StrategyError", "is_python_spec", "load", "as_python",
           "RESET_KEYWORDS", "check_recorded", "relocated", "file_spec", "as_recorded"]

#: the sim package's directory: frames of its files are left out of a strategy's traceback
_SIM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

#: The keywords ``reset`` may take.
RESET_KEYWORDS = ("seat", "rules", "hand_index", "random_seed")

_ATTR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class StrategyError(ValueError):
    """A Python strategy cannot be loaded, or it failed or broke a rule while playing.

    A ``ValueError``, so the CLI reports it in one line with exit code 2; an
    exception raised by the strategy's own code is chained (``__cause__``).
    """


def _builtin_names() -> set:
    return set(names())


def is_python_spec(spec) -> bool:
    """Whether a spec string names a Python strategy (``FILE.py:CLASS`` or
    ``MODULE:CLASS``) rather than a built-in one (``NAME`` or ``NAME:p=v,...``).

    The part before the first ``:`` being a built-in name decides for the
    built-in; otherwise a spec whose part after the last ``:`` is a (dotted)
    Python name is a Python strategy.
    """
    if not isinstance(spec, str):
        return False
    head, colon, _ = spec.strip().partition(":")
    if not colon or head.strip() in _builtin_names():
        return False
    where, _, attr = spec.strip().rpartition(":")
    return bool(where.strip()) and bool(_ATTR.fullmatch(attr.strip()))


@dataclass(frozen=True, eq=False)
class PythonStrategy:
    """A Python strategy resolved from a spec, a class or an instance.

    Attributes
    ----------
    spec : str
        Its name in records, manifests and replay documents.
    digest : str
        16 hex digits of the SHA-256 of its source (the defining file, or the
        class's source or code when there is no file).
    target : object
        The class (instantiated once per seat) or the instance (shared).
    is_class : bool
        Whether ``target`` is a class.
    """

    spec: str
    digest: str
    target: object
    is_class: bool

    def player(self) -> "Player":
        """A :class:`Player` for one seat: a new instance for a class, the
        instance itself otherwise.

        Raises
        ------
        StrategyError
            The class cannot be instantiated without arguments.
        """
        if not self.is_class:
            return Player(self, self.target)
        try:
            obj = self.target()
        except Exception as exc:
            raise StrategyError(f"strategy {self.spec!r}: {self.target.__name__}() failed: "
                                f"{_exc_text(exc)} (a strategy class is instantiated without "
                                "arguments; pass an instance to give it some)") from exc
        return Player(self, obj)


class Player:
    """One seat's strategy object with its ``reset`` keywords worked out once."""

    __slots__ = ("strategy", "obj", "choose", "_reset", "_reset_kw")

    def __init__(self, strategy: PythonStrategy, obj) -> None:
        self.strategy = strategy
        self.obj = obj
        self.choose = obj.choose
        self._reset = getattr(obj, "reset", None)
        self._reset_kw = _reset_keywords(strategy.spec, self._reset) if self._reset else ()

    def reset(self, seat: int, rules, hand_index: int, random_seed: int) -> None:
        """Call the object's ``reset`` (if any) with the keywords it takes."""
        if self._reset is None:
            return
        values = {"seat": seat, "rules": rules, "hand_index": hand_index,
                  "random_seed": random_seed}
        try:
            self._reset(**{k: values[k] for k in self._reset_kw})
        except Exception as exc:
            raise StrategyError(f"seat {seat} (strategy {self.strategy.spec!r}), hand "
                                f"{hand_index}: reset raised {_exc_text(exc)}") from exc


def _reset_keywords(spec: str, reset) -> tuple:
    """The keywords of :data:`RESET_KEYWORDS` that ``reset`` takes (all with ``**kw``)."""
    try:
        sig = inspect.signature(reset)
    except (TypeError, ValueError):
        return ()
    names = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return RESET_KEYWORDS
        if p.kind is p.VAR_POSITIONAL:
            continue
        if p.name in RESET_KEYWORDS and p.kind is not p.POSITIONAL_ONLY:
            names.append(p.name)
        elif p.default is p.empty:
            raise StrategyError(f"strategy {spec!r}: reset takes a required argument "
                                f"{p.name!r}; reset may take no arguments or keywords among "
                                f"{', '.join(RESET_KEYWORDS)}")
    return tuple(names)


def random_seed(run_seed: int, hand_index: int, seat: int) -> int:
    """The ``random_seed`` that ``reset`` gets: 63 bits of a hash of the run seed,
    the hand and the seat (not the deal's random stream)."""
    h = hashlib.blake2b(f"burraco-python-strategy:{run_seed}:{hand_index}:{seat}".encode(),
                        digest_size=8).digest()
    return int.from_bytes(h, "little") >> 1


def _exc_text(exc: BaseException) -> str:
    """``KeyError: 'x' (at file.py:12)``: an exception in one line with where it was raised."""
    text = " ".join(str(exc).split())
    where = ""
    tb = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    own = [f for f in tb if not f.filename.startswith(_SIM_DIR)]   # the strategy's frames
    if own:
        where = f" (at {os.path.basename(own[-1].filename)}:{own[-1].lineno})"
    return f"{type(exc).__name__}{': ' + text if text else ''}{where}"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _class_digest(cls) -> str:
    """The source digest of a class: its module's file, else its source, else its code.

    A class of an interactive session (a notebook cell) has no file of its own
    (``__main__`` is the kernel's launcher there): its compiled methods are hashed.
    """
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    interactive_main = module is not None and module.__name__ == "__main__" and _interactive()
    if path and os.path.isfile(path) and not interactive_main:
        with open(path, "rb") as f:
            return _digest(f.read())
    if not interactive_main:
        with contextlib.suppress(OSError, TypeError):    # no source: hash the compiled code below
            return _digest(inspect.getsource(cls).encode())
    parts = []
    for name, value in sorted(vars(cls).items()):
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None:
            parts.append(name.encode() + _code_bytes(code))
        elif isinstance(value, (int, float, str, bytes, bool, tuple, type(None))):
            parts.append(name.encode() + repr(value).encode())
    return _digest(b"\0".join(parts))


def _code_bytes(code) -> bytes:
    """A code object's instructions, names and constants (not its file name or line
    numbers, which change from one session to the next in a notebook)."""
    consts = b"".join(_code_bytes(c) if inspect.iscode(c) else repr(c).encode()
                      for c in code.co_consts)
    return b"\1".join((code.co_code, " ".join(code.co_names).encode(),
                       " ".join(code.co_varnames).encode(), consts))


def _interactive() -> bool:
    return "ipykernel" in sys.modules or hasattr(sys, "ps1")


def _check_target(spec: str, target, what: str) -> None:
    choose = getattr(target, "choose", None)
    if not callable(choose):
        raise StrategyError(f"strategy {spec!r}: {what} has no choose(observation, "
                            "legal_actions) method, so it is not a strategy")


_FILE_CACHE: dict = {}           # (absolute path, digest) -> module


def _load_file(spec: str, path: str, attr: str) -> PythonStrategy:
    if not os.path.isfile(path):
        why = "is a directory" if os.path.isdir(path) else "does not exist"
        raise StrategyError(f"strategy {spec!r}: the file {path!r} {why} (relative to "
                            f"{os.getcwd()!r})" if not os.path.isabs(path) else
                            f"strategy {spec!r}: the file {path!r} {why}")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise StrategyError(f"strategy {spec!r}: cannot read {path!r}: "
                            f"{exc.strerror or exc}") from None
    digest = _digest(data)
    full = os.path.abspath(path)
    module = _FILE_CACHE.get((full, digest))
    if module is None:
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
        name = f"burraco_strategy_{stem}_{hashlib.sha256(full.encode()).hexdigest()[:8]}"
        loader_spec = importlib.util.spec_from_file_location(name, full)
        if loader_spec is None or loader_spec.loader is None:
            raise StrategyError(f"strategy {spec!r}: {path!r} is not a Python file")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module        # dataclasses and pickling look their module up
        try:
            loader_spec.loader.exec_module(module)
        except SyntaxError as exc:
            sys.modules.pop(name, None)
            raise StrategyError(f"strategy {spec!r}: {path!r} does not compile: {exc.msg} "
                                f"(line {exc.lineno})") from None
        except Exception as exc:
            sys.modules.pop(name, None)
            raise StrategyError(f"strategy {spec!r}: loading {path!r} raised "
                                f"{_exc_text(exc)}") from exc
        _FILE_CACHE[(full, digest)] = module
    target = _attribute(spec, module, attr, repr(path))
    return _strategy(spec, target, digest, name=f"{os.path.realpath(path)}:{attr}")


def _load_module(spec: str, modname: str, attr: str) -> PythonStrategy:
    if not _MODULE.fullmatch(modname):
        raise StrategyError(f"strategy {spec!r}: {modname!r} is neither a file ending in .py "
                            "nor a module name; a Python strategy is FILE.py:CLASS or "
                            "MODULE:CLASS")
    try:
        module = _import(modname)
    except ModuleNotFoundError as exc:
        if exc.name and modname.split(".")[0] == exc.name.split(".")[0] \
                or exc.name == modname:
            raise StrategyError(f"strategy {spec!r}: no module named {modname!r} (on the "
                                "Python path or in the working directory)") from None
        raise StrategyError(f"strategy {spec!r}: importing {modname!r} raised "
                            f"{_exc_text(exc)}") from exc
    except SyntaxError as exc:
        raise StrategyError(f"strategy {spec!r}: module {modname!r} does not compile: "
                            f"{exc.msg} ({os.path.basename(exc.filename or '?')} line "
                            f"{exc.lineno})") from None
    except Exception as exc:
        raise StrategyError(f"strategy {spec!r}: importing {modname!r} raised "
                            f"{_exc_text(exc)}") from exc
    target = _attribute(spec, module, attr, f"module {modname!r}")
    if isinstance(target, type):
        digest = _class_digest(target)
    else:
        path = getattr(module, "__file__", None)
        if path and os.path.isfile(path):
            with open(path, "rb") as f:
                digest = _digest(f.read())
        else:
            digest = _class_digest(type(target))
    return _strategy(spec, target, digest)


def _import(modname: str):
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        if cwd in sys.path or "" in sys.path or exc.name != modname.split(".")[0]:
            raise
        sys.path.insert(0, cwd)           # as `python -m` would find it
        try:
            return importlib.import_module(modname)
        finally:
            with contextlib.suppress(ValueError):
                sys.path.remove(cwd)


def _attribute(spec: str, module, attr: str, where: str):
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            defined = sorted(n for n, v in vars(module).items()
                             if not n.startswith("_") and callable(getattr(v, "choose", None)))
            hint = (f"; it defines {', '.join(defined)}" if defined
                    else "; it defines no class with a choose method")
            raise StrategyError(f"strategy {spec!r}: {where} has no {attr!r}{hint}")
        obj = getattr(obj, part)
    return obj


def _strategy(spec: str, target, digest: str, name: str | None = None) -> PythonStrategy:
    """The :class:`PythonStrategy` of ``target``, named ``name`` (default ``spec``, the spec
    its errors quote)."""
    is_class = isinstance(target, type)
    what = f"{target.__name__}" if is_class else f"{type(target).__name__} object"
    _check_target(spec, target, what)
    if is_class:                       # a required reset argument is refused at load
        reset = getattr(target, "reset", None)
        if callable(reset):
            _reset_keywords(spec, _bound_signature_of(reset))
    return PythonStrategy(spec if name is None else name, digest, target, is_class)


def _bound_signature_of(func):
    """A class's plain ``reset`` function seen as bound (without ``self``)."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return func
    params = list(sig.parameters.values())
    if params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD) \
            and not isinstance(inspect.getattr_static(func, "__self__", None), type):
        params = params[1:]

    def stub(*a, **k):
        """Never called: it only carries the signature that arguments are bound against."""
        return None
    stub.__signature__ = sig.replace(parameters=params)
    return stub


def file_spec(spec) -> tuple | None:
    """``(file, class)`` of a Python strategy spec ``FILE.py:CLASS``; None for any other
    value (a built-in spec, ``MODULE:CLASS``, an object)."""
    if not isinstance(spec, str) or not is_python_spec(spec):
        return None
    where, _, attr = spec.strip().rpartition(":")
    where = where.strip()
    if where.endswith(".py") or os.sep in where or "/" in where:
        return where, attr.strip()
    return None


def check_recorded(specs, where: str, option: str = "--strategy") -> None:
    """Refuse, in one line, a recorded Python strategy ``FILE.py:CLASS`` whose file is not
    where it was recorded (moved or deleted since), saying how to point at it.

    Parameters
    ----------
    specs : list
        The seats' strategies as a run recorded them (absolute ``FILE.py:CLASS`` for a
        Python strategy file; other values are not looked at).
    where : str
        What recorded them, for the message (``"the run in 'runs/demo'"``).
    option : str
        How the user points at the file's new place (the CLI's ``--strategy``).

    Raises
    ------
    StrategyError
        Naming the missing file and ``option NEW_PLACE/FILE.py:CLASS``.
    """
    for spec in specs:
        parts = file_spec(spec)
        if parts is not None and not os.path.isfile(parts[0]):
            path, attr = parts
            raise StrategyError(
                f"strategy {spec!r}: the Python strategy file {path!r} of {where} does not "
                f"exist (moved or deleted?); point at it with {option} "
                f"NEW_PLACE/{os.path.basename(path)}:{attr} (the same file name and class)")


def relocated(recorded, given, where: str, option: str = "--strategy") -> list:
    """A run's seats with its Python strategy files loaded from where they are now.

    Each spec of ``given`` (``FILE.py:CLASS``) names the new place of the recorded
    Python strategies with the same file name and class: those seats get the strategy
    loaded from ``FILE.py``, named as recorded (so the records, the run's identity and
    its source digest, which must still match, are those of the run).

    Parameters
    ----------
    recorded : list
        The seats' strategy specs as the run recorded them (None for an empty seat).
    given : list of str
        Python strategy file specs; each must match a recorded one.
    where, option : str
        For the messages, as :func:`check_recorded`.

    Returns
    -------
    list
        ``recorded`` with :class:`PythonStrategy` objects in place of the moved seats.

    Raises
    ------
    StrategyError
        A given spec that is no Python strategy file, or whose file name and class match
        none of the run's, or that does not load.
    """
    import dataclasses
    seats = list(recorded)
    theirs = [s for s in recorded if file_spec(s) is not None]
    listed = ", ".join(repr(s) for s in dict.fromkeys(theirs)) or "none"
    for spec in given:
        parts = file_spec(spec)
        if not theirs:
            raise StrategyError(f"{option} is taken from {where}; leave it out (with a run, "
                                f"{option} only says where a Python strategy file of the run is "
                                "now, and this run has none)")
        if parts is None:
            raise StrategyError(f"{option} {spec!r}: with a run, {option} only says where the "
                                "run's Python strategy file is now (FILE.py:CLASS, the same "
                                f"file name and class); the run's Python strategy files: {listed}")
        key = (os.path.basename(parts[0]), parts[1])
        seats_of = [i for i, s in enumerate(recorded) if file_spec(s) is not None
                    and (os.path.basename(file_spec(s)[0]), file_spec(s)[1]) == key]
        if not seats_of:
            raise StrategyError(f"{option} {spec!r}: the file name and class match none of the "
                                f"Python strategies of {where}: {listed}")
        loaded = load(spec)
        for i in seats_of:
            seats[i] = dataclasses.replace(loaded, spec=recorded[i])
    return seats


def as_recorded(spec):
    """A seat's strategy as a run recorded it: a Python strategy ``FILE.py:CLASS`` loaded and
    named exactly as recorded (a run recorded before files were named by their resolved
    path keeps its relative name, resolved from the working directory as then); any other
    value as it is.

    Raises
    ------
    StrategyError
        The file does not load.
    """
    import dataclasses
    if file_spec(spec) is None:
        return spec
    return dataclasses.replace(load(spec), spec=spec)


def load(spec: str) -> PythonStrategy:
    """The Python strategy a spec string names (``FILE.py:CLASS`` or ``MODULE:CLASS``).

    A file's strategy is named ``REALPATH:CLASS`` in records and manifests, the file's
    absolute, resolved path: a run started in one folder replays and resumes from any
    other.

    Raises
    ------
    StrategyError
        A missing file or module, a module that does not load, a missing
        attribute, or an attribute without ``choose`` (one line each, naming
        the spec).
    """
    spec = spec.strip()
    where, _, attr = spec.rpartition(":")
    where, attr = where.strip(), attr.strip()
    if not where or not _ATTR.fullmatch(attr):
        raise StrategyError(f"strategy {spec!r}: a Python strategy is FILE.py:CLASS or "
                            "MODULE:CLASS")
    if where.endswith(".py") or os.sep in where or "/" in where:
        return _load_file(spec, where, attr)
    return _load_module(spec, where, attr)


def as_python(value) -> PythonStrategy | None:
    """A :class:`PythonStrategy` from a Python spec string, a class or an instance;
    None for a built-in spec string (resolved by :func:`sim.strategies.resolve`).

    Raises
    ------
    StrategyError
        A Python spec that does not load, or an object without ``choose``.
    """
    if isinstance(value, PythonStrategy):
        return value
    if isinstance(value, str):
        return load(value) if is_python_spec(value) else None
    if isinstance(value, type):
        spec = f"{value.__module__}:{value.__qualname__}"
        _check_target(spec, value, value.__name__)
        return _strategy(spec, value, _class_digest(value))
    cls = type(value)
    spec = f"{cls.__module__}:{cls.__qualname__}"
    if not callable(getattr(value, "choose", None)):
        raise StrategyError(f"strategy {spec!r}: a {cls.__name__} object has no "
                            "choose(observation, legal_actions) method, so it is not a strategy")
    return _strategy(spec, value, _class_digest(cls))
