"""No notebook leaves a folder behind in the temporary directory on every run: a cell that
needs a folder of its own takes a ``tempfile.TemporaryDirectory`` (removed when its block
ends), never a bare ``tempfile.mkdtemp`` (kept forever)."""

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb")) + \
    sorted((Path(__file__).resolve().parents[2] / "slides").glob("*.ipynb"))


def leaves_folders(source):
    return "mkdtemp(" in source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_makes_a_temporary_folder_it_does_not_remove(path):
    cells = [c.get("id") for c in nbformat.read(path, as_version=4).cells
             if c.cell_type == "code" and leaves_folders(c.source)]
    assert cells == [], f"{path.name}: cells {cells} call tempfile.mkdtemp; use " \
                        f"`with tempfile.TemporaryDirectory() as run_dir:`"


def test_the_check_can_fail():
    assert leaves_folders('run_dir = tempfile.mkdtemp(prefix="ps_crash_")')
    assert not leaves_folders('with tempfile.TemporaryDirectory() as run_dir:')
