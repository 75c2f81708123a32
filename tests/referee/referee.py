"""Independent referee of a simulated Burraco hand: the entry point.

The referee lives in the package ``tests/referee/ref/`` (standard library only, no engine
code; its docstring describes the checks, the replay document and the rule IDs).
This module re-exports its public names, so that the tests keep importing one module
(``import referee as R``, ``from referee import team_score``; ``tests/conftest.py`` puts
this directory on ``sys.path``), and runs the driver (``referee_cli.py`` beside it, the only
part that imports ``sim``) from the command line::

    python tests/referee/referee.py --hands 2000 --seed 1 --strategy heuristic --jobs 2
    python -m tests.referee --hands 2000 --seed 1 --strategy "heuristic|random|heuristic|random"

``python -m tests.referee`` runs ``tests/referee/__main__.py``: the directory has no
``__init__.py``, so it never shadows this module on ``sys.path`` (a module wins over a
directory without one), and the package of the rules is called ``ref``, not ``referee``.
"""
from __future__ import annotations

if __package__:         # tests.referee.referee: python -m tests.referee
    from .ref import *          # noqa: F403
    from .ref import __all__
else:                   # import referee (this directory on sys.path), python tests/referee/referee.py
    from ref import *           # noqa: F403
    from ref import __all__


if __name__ == "__main__":      # driver: the only place that imports sim (referee_cli.py)
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import referee_cli
    raise SystemExit(referee_cli.main())
