"""``python -m sim.figures``: see :func:`sim.figures.main`."""
from sim.figures import main

raise SystemExit(main())
