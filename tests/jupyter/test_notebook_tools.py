"""The maintainer tools: building a notebook from a draft, and never overwriting a learner's edits."""

import subprocess

import nbformat

from tutorial.jupyter.notebooks import build, execute


def test_build_makes_markdown_code_and_slide_cells(tmp_path):
    draft = tmp_path / "draft.py"
    draft.write_text("# %% [markdown] slide\n# # Title\n# text\n\n# %%\nx = 1\nprint(x)\n"
                     "# %% fragment\ny = 2\n")
    target = tmp_path / "out.ipynb"
    build(draft, target)
    nb = nbformat.read(target, as_version=4)
    kinds = [c.cell_type for c in nb.cells]
    assert kinds == ["markdown", "code", "code"]
    assert nb.cells[0].source == "# Title\ntext"
    assert nb.cells[0].metadata["slideshow"] == {"slide_type": "slide"}
    assert "slideshow" not in nb.cells[1].metadata
    assert nb.cells[2].metadata["slideshow"] == {"slide_type": "fragment"}


def test_execute_refuses_to_overwrite_uncommitted_changes(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    path = tmp_path / "mine.ipynb"
    nbformat.write(nb, path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "mine.ipynb"], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    nb.cells[0].source = "print('my own work')"
    nbformat.write(nb, path)
    before = path.read_text()
    assert execute(path) is False
    assert path.read_text() == before


DEMO = '''import ipywidgets as w
for _ in range(2):                    # a notebook may take `_` over: the cell's Out stays
    pass
from tutorial.viz.run_buttons import RunButtons

class Demo(w.VBox):                   # the shape of the course's Start/Stop demos
    def __init__(self, reports):
        self.status = w.HTML("ready")
        self.buttons = RunButtons("Go")
        self.buttons.on_start(lambda: self.buttons.launch(
            lambda stop: iter(reports), lambda r: None,
            lambda status, message: setattr(self.status, "value", f"{status} {message}")))
        super().__init__([self.buttons.start_button, self.status])

Demo(REPORTS)'''


def _executed_demo(tmp_path, reports, press=True):
    cell = nbformat.v4.new_code_cell(DEMO.replace("REPORTS", reports))
    if press:
        cell.metadata["tutorial"] = {"press": True}
    path = tmp_path / "demo.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_code_cell("1 + 1")]),
                   path)
    execute(path, force=True, timeout=120)
    nb = nbformat.read(path, as_version=4)
    shown = [m["state"].get("value") for m in
             nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
             .values() if m["model_name"] == "HTMLModel"]
    return [c.execution_count for c in nb.cells], shown


def test_execute_stores_a_pressed_demos_frame_after_its_run(tmp_path):
    assert _executed_demo(tmp_path, "[1, 2]") == ([1, 2], ["finished "])
    assert _executed_demo(tmp_path, "[1, 2]", press=False) == ([1, 2], ["ready"])


def test_execute_stops_on_a_pressed_demo_whose_run_fails(tmp_path):
    import pytest
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError, match="the run failed"):
        _executed_demo(tmp_path, "(1 / x for x in (1, 0))")
