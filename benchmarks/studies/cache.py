"""Per-hand values of a study kept on disk, so that a long study resumes where it stopped
(imported by the studies beside it: ``from cache import Cache``)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np


class Cache:
    """Per-hand values kept as ``.npy`` files under ``root``: ``get(key, n, fn)`` returns the
    stored array of length ``n`` or computes ``fn()``, stores it (written whole, then renamed)
    with the seconds it took beside it (``.seconds``), which :attr:`seconds` collects either
    way."""

    def __init__(self, root: Path):
        self.root = root
        self.seconds: dict = {}

    def get(self, key: str, n: int, fn) -> np.ndarray:
        path = self.root / f"{key}_{n}.npy"
        took = path.with_suffix(".seconds")
        if path.exists():
            if took.exists():
                self.seconds[key] = float(took.read_text())
            return np.load(path)
        t0 = time.perf_counter()
        values = np.asarray(fn(), np.float64)
        self.seconds[key] = time.perf_counter() - t0
        assert values.shape[0] == n, (key, values.shape)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npy")
        np.save(tmp, values)
        tmp.replace(path)
        took.write_text(f"{self.seconds[key]:.1f}\n")
        print(f"  {key}: {self.seconds[key]:.0f} s", file=sys.stderr, flush=True)
        return values
