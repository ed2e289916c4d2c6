"""No code cell of a notebook is longer than about a screen: 25 lines.

A notebook reads as idea -> from scratch -> check against the library -> concise -> measured;
a cell longer than a screen hides that arc, and what it computes belongs in ``tutorial/``
(the notebook keeps what the learner should read: the from-scratch algorithm, the equation
in code). Every code cell of every notebook is checked.

``LONG_CELLS`` lists the cells allowed to be longer for now, each with its reason. An entry
that no longer applies (the cell is gone or short now) fails too, so the list cannot go
stale: delete the entry when its cell is shortened.
"""

from pathlib import Path

import nbformat
import pytest

MAX_LINES = 25
NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
LONG_CELLS = {
    ("00_setup.ipynb", "7f7b4856"): "the setup's multi-device training check, written out "
                                    "in full on purpose (split_and_load, record, step)",
    ("04_capacity.ipynb", "b85a8da5"): "the MLP with dropout/DropConnect options and Xavier "
                                       "weights from MXNet's generator, not yet in tutorial.nn",
    ("05_data_parallel.ipynb", "20bed9f0"): "the cost-model fit: its printout and its two "
                                            "plots in one measured cell",
    ("05_data_parallel.ipynb", "5dd5651c"): "the cost-model table of node layouts, printed "
                                            "in one measured cell",
    ("08_large_batch.ipynb", "9927f4e7"): "small steps against one large step, a helper and "
                                          "its measurement in one cell",
}


def code_cells(path):
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def lines(cell):
    return len(cell.source.splitlines())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_code_cell_is_longer_than_a_screen(path):
    too_long = [f"cell {c.get('id')} ({lines(c)} lines, starting {c.source.splitlines()[0]!r})"
                for c in code_cells(path)
                if lines(c) > MAX_LINES and (path.name, c.get("id")) not in LONG_CELLS]
    assert not too_long, (f"{path.name}: code cells longer than {MAX_LINES} lines: "
                          f"{'; '.join(too_long)}. Split them, or move what they compute "
                          f"into tutorial/ (keep the from-scratch algorithm in the notebook).")


@pytest.mark.parametrize("where", sorted(LONG_CELLS), ids=lambda w: f"{w[0]}:{w[1]}")
def test_every_listed_exception_is_still_needed(where):
    name, cell_id = where
    path = NOTEBOOKS[0].parent / name
    cells = {c.get("id"): c for c in code_cells(path)} if path.exists() else {}
    assert cell_id in cells, f"{name} has no code cell {cell_id}: remove it from LONG_CELLS"
    assert lines(cells[cell_id]) > MAX_LINES, (
        f"{name} cell {cell_id} has {lines(cells[cell_id])} lines now: remove it from LONG_CELLS")


def test_the_optimizer_notebooks_have_no_exception():
    """01-03 read as idea -> scratch -> check -> concise: none of their cells is excepted."""
    strict = {"01_sgd.ipynb", "02_momentum.ipynb", "03_adaptive.ipynb"}
    assert not [key for key in LONG_CELLS if key[0] in strict]
