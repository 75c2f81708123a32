"""Single source of the distribution version (read by pyproject.toml)."""
__version__ = "0.1.0"
