"""Every committed notebook is clean for nbval and Colab, and has the course's fixed parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no course notebooks found in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_clean(path: Path):
    nb = json.loads(path.read_text())
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3"
    assert "widgets" not in nb["metadata"] and "colab" not in nb["metadata"]
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), f"run all cells in order once (counts: {counts})"
    for cell in nb["cells"]:
        assert not {"colab", "execution", "outputId"} & set(cell.get("metadata", {})), cell["metadata"]
        for output in cell.get("outputs", []):
            assert "application/vnd.jupyter.widget-view+json" not in output.get("data", {})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_has_the_course_parts(path: Path):
    nb = json.loads(path.read_text())
    cells = nb["cells"]
    text = lambda c: "".join(c["source"])  # noqa: E731
    assert cells[0]["cell_type"] == "markdown" and text(cells[0]).startswith("# ")
    assert "colab.research.google.com" in text(cells[0]) and path.name in text(cells[0])
    code = [c for c in cells if c["cell_type"] == "code"]
    assert "google.colab" in text(code[0]), "the first code cell installs the library in Colab"
    assert "seed_everything" in text(code[1]), "the second code cell seeds everything"
    if any("exercise" in c["metadata"].get("tags", []) for c in code):
        return  # a guided build: tests/test_course.py checks its exercises
    if path.name in ("00_overview.ipynb", "10_capstone.ipynb"):
        return  # the overview (nothing to write yet) and the capstone (it assembles what the learner wrote)
    exercises = [i for i, c in enumerate(code) if "raises-exception" in c["metadata"].get("tags", [])]
    assert exercises, "at least one exercise that raises NotImplementedError"
    for i in exercises:
        assert "raise NotImplementedError" in text(code[i])
        assert [o["ename"] for o in code[i]["outputs"] if o["output_type"] == "error"] == ["NotImplementedError"]
        solution = code[i + 1]
        assert solution["metadata"].get("jupyter", {}).get("source_hidden"), "the solution cell is collapsed"
        assert text(solution).startswith("# Solution")
    for c in code:
        assert not any(o["output_type"] == "error" for o in c["outputs"]) or c in [code[i] for i in exercises]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_nbval_markers_stand_alone(path: Path):
    """nbval honours a marker only when it is the whole comment line: '# NBVAL_IGNORE_OUTPUT (why)' is ignored."""
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if "NBVAL_" in line:
                assert line.strip().lstrip("#").strip().startswith("NBVAL_") and " " not in line.strip("# \n"), line


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_the_setup_cell_is_collapsed_in_colab(path: Path):
    """A Colab form title on the setup cell's first line and ``cellView: form``: Colab shows the title, not the code."""
    setup = next(c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code")
    assert "".join(setup["source"]).startswith('#@title Setup: run this cell first { display-mode: "form" }\n')
    assert setup["metadata"].get("cellView") == "form"


# A cell that makes a figure must store it as an image. plot_training_curves returns a Figure made without pyplot,
# which plt.show() does not display: such a cell shows it with display(fig).
FIGURE_CALLS = ("plt.show()", "plot_training_curves(", "display(fig)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_figure_a_cell_makes_is_stored_as_an_image(path: Path):
    cells = json.loads(path.read_text())["cells"]
    for index, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or not any(call in source for call in FIGURE_CALLS):
            continue
        images = [o for o in cell["outputs"] if "image/png" in o.get("data", {})]
        assert images, f"{path.name} cell {index} makes a figure, but its stored outputs hold no image"


def test_the_shipped_runs_loss_curves_are_shown():
    """Notebooks 5 and 6 read the shipped runs' loss curves: the cells that draw them hold an image."""
    for name in ("05_self_play_training.ipynb", "06_connect_four.ipynb"):
        cells = json.loads((NOTEBOOKS[0].parent / name).read_text())["cells"]
        curves = [c for c in cells if c["cell_type"] == "code" and "plot_training_curves(" in "".join(c["source"])]
        assert len(curves) == 1, f"{name}: one cell draws the shipped run's curves"
        assert any("image/png" in o.get("data", {}) for o in curves[0]["outputs"]), f"{name}: the curves are not shown"
