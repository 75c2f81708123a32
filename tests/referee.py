"""Independent referee of a simulated Burraco hand (issue 3): the entry point.

The referee lives in the package ``tests/ref/`` (standard library only, no engine
code; its docstring describes the checks, the replay document and the rule IDs).
This module re-exports its public names, so that the tests keep importing one module
(``import referee as R``, ``from referee import team_score``), and runs the driver
(``tests/referee_cli.py``, the only part that imports ``sim``) from the command line::

    python tests/referee.py --hands 2000 --seed 1 --strategy heuristic --jobs 2
    python -m tests.referee --hands 2000 --seed 1 --strategy "heuristic|random|heuristic|random"

The package is not called ``referee``: a directory ``tests/referee/`` would shadow this
file (a package wins over a module of the same name on ``sys.path``), and the command
``python tests/referee.py`` would go.
"""
from __future__ import annotations

if __package__:         # tests.referee: python -m tests.referee, or from tests import referee
    from .ref import *          # noqa: F403
    from .ref import __all__
else:                   # import referee (tests/ on sys.path, as under pytest), python tests/referee.py
    from ref import *           # noqa: F403
    from ref import __all__


if __name__ == "__main__":      # driver: the only place that imports sim (tests/referee_cli.py)
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import referee_cli
    raise SystemExit(referee_cli.main())
