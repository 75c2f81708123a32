"""The ``burraco`` command line: :func:`main` and its parser (:func:`build_parser`)."""
from sim.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
