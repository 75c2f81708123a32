"""The suite's shared helpers (tests/conftest.py puts them on ``sys.path``): a directory
snapshot that a "nothing changed" assertion relies on sees every kind of change."""
from __future__ import annotations

import os
import shutil

import referee
from _readonly import changed, entries, everything


def test_everything_sees_every_change_of_a_directory(tmp_path):
    run = tmp_path / "run"
    assert everything(run) is None                                  # not there
    run.mkdir()
    assert everything(run) == {}
    (run / "hands").mkdir()
    (run / "hands" / "shard-0.parquet").write_bytes(b"PAR1")
    (run / ".burraco.lock").write_text("123")
    before = everything(run)
    assert before == {".burraco.lock": b"123", "hands": "dir", "hands/shard-0.parquet": b"PAR1"}
    faults = [
        lambda: (run / "hands" / "shard-0.parquet").write_bytes(b"PAR2"),    # a byte written
        lambda: (run / "hands" / ".shard-1.tmp").write_bytes(b""),           # a hidden file made
        lambda: (run / "empty").mkdir(),                                     # a directory made
        lambda: (run / ".burraco.lock").unlink(),                            # a file deleted
        lambda: shutil.rmtree(run),                                          # everything deleted
    ]
    for fault in faults:
        shutil.copytree(run, tmp_path / "saved")
        fault()
        assert everything(run) != before
        shutil.rmtree(run, ignore_errors=True)
        (tmp_path / "saved").rename(run)
        assert everything(run) == before


def test_entries_see_a_file_written_again_with_the_same_bytes(tmp_path):
    (tmp_path / "a").write_bytes(b"x")
    before = entries(tmp_path)
    path = tmp_path / "a"
    stamp = path.stat().st_mtime_ns
    path.write_bytes(b"x")
    os.utime(path, ns=(stamp + 1_000_000, stamp + 1_000_000))
    assert changed(before, entries(tmp_path)) == {"a"}


def test_the_referee_is_the_module_beside_its_package():
    """``import referee`` finds tests/referee/referee.py (a module wins over the directory
    tests/referee/, which has no ``__init__.py``), with the package's public names."""
    assert referee.__file__.endswith("tests/referee/referee.py")
    assert callable(referee.check) and "check" in referee.__all__
