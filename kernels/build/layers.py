"""The layers of :mod:`kernels`, declared once, and the check of their imports.

Each subpackage of ``kernels`` is a layer; :data:`LAYERS` names, for each, the
layers its modules may import (a layer always imports its own modules).  Two
things read the table:

* ``tests/infra/test_layers.py`` checks every module's imports against it
  (:func:`check_package`): no import of a layer the table does not allow, no
  import circle between modules, no function-local import of the package's own
  modules, never an import of :mod:`sim`;
* :mod:`kernels.build.cachestamp` stamps each layer's Numba cache with the
  digest of the layer's files and the files of the layers it may import
  (:func:`closure`), so an edit drops only the cache of the edited layer and of
  the layers above it.

:func:`check_package` takes a package root and a table, so the same check runs
on another package with its own table: ``tests/infra/test_sim_layers.py`` runs it on
:mod:`sim`, whose table :func:`ordered` builds from its layers' order.  The module
files directly under the root are layers of their own, named by their stem
(``kernels/__init__.py`` is the layer ``__init__``).
"""
from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterable, Mapping
from pathlib import Path

PACKAGE = "kernels"

#: layer -> the layers its modules may import.  ``build`` holds the compile and
#: cache machinery (no kernel); ``peers`` plugs into the turn loop through the
#: chooser API (``strategies.api``), so ``play`` and ``search`` never import it.
LAYERS: dict[str, tuple[str, ...]] = {
    "__init__": ("build",),
    "build": (),
    "core": (),
    "table": ("core",),
    "engine": ("core", "table"),
    "strategies": ("core", "table", "engine"),
    "play": ("core", "table", "engine", "strategies"),
    "search": ("core", "table", "engine", "strategies", "play"),
    "peers": ("core", "table", "engine", "strategies"),
}

#: packages the kernels never import
FORBIDDEN: tuple[str, ...] = ("sim",)

#: (module, imported module) pairs allowed inside a function of this package,
#: each with the reason in a comment.  Empty: every import is at module level.
LOCAL_IMPORTS_ALLOWED: frozenset[tuple[str, str]] = frozenset()


def closure(layer: str, table: Mapping[str, Iterable[str]] = LAYERS) -> list[str]:
    """``layer`` and every layer it may import, directly or through another, sorted.

    Parameters
    ----------
    layer : str
        A key of ``table``.
    table : mapping of str to iterable of str
        Layer -> the layers it may import.

    Returns
    -------
    list of str
        The layers whose sources can change the code of ``layer``'s modules.
    """
    seen, todo = set(), [layer]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(table.get(name, ()))
    return sorted(seen)


def ordered(groups: Iterable[Iterable[str]]) -> dict[str, tuple[str, ...]]:
    """The layer table of layers in a strict order, lowest group first.

    Parameters
    ----------
    groups : iterable of iterable of str
        Groups of layer names, lowest first; a layer may import the layers of
        the groups before its own and the other layers of its own group.

    Returns
    -------
    dict of str to tuple of str
        Layer -> the layers it may import (the table :func:`check_package` takes).

    Examples
    --------
    >>> ordered([("core",), ("play", "cli")])
    {'core': (), 'play': ('core', 'cli'), 'cli': ('core', 'play')}
    """
    table: dict[str, tuple[str, ...]] = {}
    below: list[str] = []
    for group in groups:
        group = tuple(group)
        for layer in group:
            table[layer] = (*below, *(g for g in group if g != layer))
        below.extend(group)
    return table


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _layer_of(module: str, package: str) -> str:
    """The layer of a module of ``package``: its first component under the package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports(tree: ast.Module, module: str, is_package: bool, known: set[str]):
    """Yield (line, imported module, whether inside a function) for each import of ``tree``.

    ``from P import n`` counts as an import of ``P.n`` when that is a module
    of ``known``, else of ``P``; relative imports are made absolute.
    """
    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield child.lineno, alias.name, local
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = module.split(".")
                    anchor = anchor[: len(anchor) - child.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in child.names:
                    name = f"{base}.{alias.name}"
                    yield child.lineno, name if name in known else base, local
            else:
                yield from visit(child, inner)

    yield from visit(tree, False)


def check_package(root: Path, table: Mapping[str, Iterable[str]], *,
                  forbidden: Iterable[str] = (),
                  local_allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """Every breach of the layer rule by the modules of the package at ``root``.

    Parameters
    ----------
    root : pathlib.Path
        The package folder (the one holding its ``__init__.py``); its name is
        the package's import name.
    table : mapping of str to iterable of str
        Layer -> the layers it may import.  A layer is a subpackage of the root,
        or a module directly under it (named by its stem, ``__init__`` for the
        package's own ``__init__.py``).
    forbidden : iterable of str
        Packages the package must never import (anywhere, even in a function).
    local_allowed : iterable of (str, str)
        (module, imported module) pairs allowed inside a function.

    Returns
    -------
    list of str
        One line per breach, ``path:line: what``, empty if there is none:
        a layer missing from the table, an import of a layer the table does
        not allow, a function-local import of a module of the package, an
        import of a forbidden package, an import circle between modules.
    """
    root = Path(root)
    package = root.name
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {_module_name(p, root, package): p for p in files}
    known = set(modules)
    allowed_local = set(local_allowed)
    bad: list[str] = []
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        layer = _layer_of(module, package)
        where = path.relative_to(root.parent).as_posix()
        if layer not in table:
            bad.append(f"{where}:1: layer {layer!r} is not in the layer table")
            continue
        may = set(table[layer]) | {layer}
        tree = ast.parse(path.read_text(), filename=str(path))
        for line, target, local in imports(tree, module, path.name == "__init__.py", known):
            top = target.split(".")[0]
            if top in forbidden:
                bad.append(f"{where}:{line}: imports {target} ({package} never imports {top})")
                continue
            if top != package:
                continue
            if local and (module, target) not in allowed_local:
                bad.append(f"{where}:{line}: imports {target} inside a function "
                           "(a function-local import may hide an import circle)")
            if target in modules:
                graph[module].add(target)
            target_layer = _layer_of(target, package)
            if target_layer not in may:
                bad.append(f"{where}:{line}: layer {layer} imports {target} of layer "
                           f"{target_layer} (allowed: {', '.join(sorted(may))})")
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as err:
        circle = err.args[1]
        bad.append(f"{modules[circle[0]].relative_to(root.parent).as_posix()}:1: import circle "
                   + " -> ".join(circle))
    return bad
