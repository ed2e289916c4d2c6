"""Every committed notebook was executed top to bottom, so nbval has outputs to compare, and
stored its Start/Stop demos after a finished run."""

import re
from pathlib import Path

import nbformat
import pytest

from tutorial.jupyter.notebooks import execution_problems
from tutorial.jupyter.widget_frames import _references   # the children a model names

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


def _tree_texts(state, model_id):
    """Every widget model under ``model_id`` (children, transitively): (model name,
    description or value) pairs."""
    seen, todo, found = set(), [model_id], []
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        model = state[mid]
        found.append((model["model_name"], str(model["state"].get("description", "")) + " "
                      + str(model["state"].get("value", ""))))
        todo.extend(_references(model))
    return found


def _start_stop_demos(path):
    """(cell, texts of its widget tree) for each code cell showing a Stop button: the
    course's Start/Stop demos (tutorial.viz.run_buttons)."""
    from tutorial.jupyter.widget_frames import VIEW, widget_state

    nb = nbformat.read(path, as_version=4)
    state = widget_state(nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if VIEW in output.get("data", {}):
                texts = _tree_texts(state, output["data"][VIEW]["model_id"])
                if ("ButtonModel", "Stop ") in texts:
                    yield cell, texts


@pytest.mark.parametrize("path", NOTEBOOKS + SLIDES, ids=lambda p: p.name)
def test_every_start_stop_demo_is_stored_after_a_finished_run(path):
    """``make execute-notebooks`` presses each such demo's Start (its cell's metadata says
    so): the stored frame shows a run's end, not a widget waiting for a click."""
    from tutorial.jupyter.notebooks import presses

    for cell, texts in _start_stop_demos(path):
        shown = " ".join(text for _, text in texts)
        assert presses(cell), f"{cell.source[:80]!r}: not pressed by execute"
        assert re.search(r"\bfinished\b|\bdone in\b", shown), (cell.source[:80], shown[:300])


def test_the_deck_and_notebook_05_store_their_start_stop_demos_run():
    demos = [cell for path in NOTEBOOKS + SLIDES for cell, _ in _start_stop_demos(path)]
    assert len(demos) >= 6                 # the deck's five, notebook 05's dashboard
