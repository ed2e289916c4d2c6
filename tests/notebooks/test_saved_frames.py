"""Every widget saved with a notebook or the deck shows one broken-link mark, not one per
control (issue 35: about sixteen on notebook 02's race when it was opened before running).

A saved frame is drawn disconnected from any kernel, and ipywidgets marks every
disconnected view; the rule in :mod:`tutorial.viz.saved_frame` (or the quiz's own, scoped
to the quiz) hides the marks nested inside one. This test reads the committed widget
state: each widget a cell shows must carry the rule among its descendants. The browser
test (tests/browser/test_widget_state_browser.py) counts the marks a real JupyterLab draws.
"""

from pathlib import Path

import nbformat
import pytest

from tutorial.viz.quiz import ONE_BROKEN_LINK
from tutorial.viz.saved_frame import RULE

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "slides").glob("*.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def _descendants(state, model_id):
    seen, todo = set(), [model_id]
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        fields = state[mid].get("state", {})
        for value in fields.values():
            refs = value if isinstance(value, list) else [value]
            todo += [r[len("IPY_MODEL_"):] for r in refs
                     if isinstance(r, str) and r.startswith("IPY_MODEL_")]
    return [state[mid] for mid in seen]


def _carries_rule(state, model_id):
    quiz_rule = ONE_BROKEN_LINK[len("<style>"):-len("</style>")]
    return any(RULE in str(m.get("state", {}).get("value", "")) or
               quiz_rule in str(m.get("state", {}).get("value", ""))
               for m in _descendants(state, model_id))


def unmarked_widgets(nb):
    """The cells (index) whose shown widget lacks the rule."""
    state = nb.metadata.get("widgets", {}).get(STATE, {}).get("state", {})
    return [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", []) if VIEW in out.get("data", {})
            and not _carries_rule(state, out["data"][VIEW]["model_id"])]


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_every_saved_widget_carries_the_one_mark_rule(path):
    assert unmarked_widgets(nbformat.read(path, as_version=4)) == []


def test_a_widget_without_the_rule_is_found():
    import ipywidgets as w
    from ipywidgets.embed import embed_data

    from tutorial.viz.saved_frame import one_mark

    bare, marked = w.VBox([w.Button()]), one_mark(w.VBox([w.Button()]))
    data = embed_data(views=[bare, marked])
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("", outputs=[nbformat.v4.new_output(
            "display_data", data={VIEW: view})]) for view in data["view_specs"]])
    nb.metadata["widgets"] = {STATE: data["manager_state"]}
    assert unmarked_widgets(nb) == [0]
