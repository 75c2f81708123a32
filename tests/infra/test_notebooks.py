"""Every notebook runs from a clean clone and ends with its one-sentence answer (notebooks/README.md).

Each notebook is executed with nbclient and a small hand count
(``BURRACO_NB_HANDS``), in a temporary working directory.
"""
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_is_one_notebook_per_question():
    """The strategy questions (a)-(f), a question conditioned on the deal (g), then the notebook
    that writes a strategy."""
    assert [p.name[:2] for p in NOTEBOOKS] == ["a_", "b_", "c_", "d_", "e_", "f_", "g_", "ow"]
    assert NOTEBOOKS[-1].name == "own_strategy.ipynb"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_answers(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "commit notebooks without outputs"
    assert "HANDS = int(os.environ.get(\"BURRACO_NB_HANDS\"" in nb.cells[1].source
    monkeypatch.setenv("BURRACO_NB_HANDS", "300")
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    plots = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
             if "image/png" in o.get("data", {})]
    assert plots, "the notebook shows no plot"
    answer = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert "300" in answer and ("interval" in answer or "significant" in answer)
