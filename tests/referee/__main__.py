"""``python -m tests.referee ...`` (from the repository root) and ``python tests/referee ...``:
the referee's driver (``referee_cli.py``) on simulated hands, matches or saved documents."""
if __package__:                 # python -m tests.referee
    from .referee_cli import main
else:                           # python tests/referee: this directory is sys.path[0]
    from referee_cli import main

raise SystemExit(main())
