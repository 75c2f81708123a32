"""``sim.dataset``: the public path of the record schema, :mod:`sim.core.dataset`;
``python -m sim.dataset [--matches]`` prints the column tables of docs/output.md and
docs/matches.md."""
from sim.core.dataset import *  # noqa: F401,F403
from sim.core.dataset import main

if __name__ == "__main__":
    main()
