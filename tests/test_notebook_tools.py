"""The maintainer tools: building a notebook from a draft, and never overwriting a learner's edits."""

import subprocess

import nbformat

from tutorial.notebooks import build, execute


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
