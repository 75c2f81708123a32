"""``python -m sim`` is the ``burraco`` command."""
from sim.cli.main import main

raise SystemExit(main())
