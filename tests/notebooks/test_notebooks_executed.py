"""Every committed notebook was executed top to bottom, so nbval has outputs to compare."""

from pathlib import Path

import nbformat
import pytest

from tutorial.notebooks import execution_problems

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SLIDES = sorted((ROOT / "slides").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS + SLIDES, ids=lambda p: p.name)
def test_notebook_was_executed_in_order(path):
    assert execution_problems(nbformat.read(path, as_version=4)) == []


def test_checker_catches_unexecuted_and_out_of_order_cells():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1", execution_count=2),
                                         nbformat.v4.new_code_cell("2", execution_count=1),
                                         nbformat.v4.new_code_cell("3")])
    problems = " ".join(execution_problems(nb))
    assert "never executed" in problems and "out of order" in problems


def test_course_notebooks_are_numbered_without_gaps_in_prefix_format():
    assert NOTEBOOKS, "no notebooks found"
    for p in NOTEBOOKS:
        prefix, _, name = p.stem.partition("_")
        assert prefix.isdigit() and len(prefix) == 2 and name
