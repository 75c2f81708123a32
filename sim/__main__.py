"""``python -m sim`` is the ``burraco`` command."""
from .cli import main

raise SystemExit(main())
