"""A notebook nobody changed shows no unsaved dot; a real change still shows it (issue 27).

The course turns on the widget manager's ``saveState``, and jupyterlab_widgets 3.0.10 then
marks a notebook dirty for every widget model it registers, those it restores from the
notebook's saved state on opening included; and JupyterLab rewrites the kernel's
description in the metadata when the kernel connects (the course's notebooks say "Python 3",
ipykernel "Python 3 (ipykernel)"). Every course notebook showed the unsaved dot
(``.jp-mod-dirty`` on its tab) at once, and closing it asked to save. The course's lab
extension (``tutorial/jupyter/labextension/tutorial-clean-until-changed``, loaded by
``tutorial.jupyter.lab.lab_command``) puts such a flag back while the content is unchanged (the same
kernel described anew counting as unchanged).

Each test serves a signed copy of a committed notebook with its saved widget state from a
JupyterLab started with ``lab_command``, opens it in headless Chromium and waits until its
kernel is idle and its saved widget is drawn (the widget manager has registered the saved
models): the tab must stay clean. Then one real change, typing a character into a cell or
running a cell, must show the dot. Without the extension (``lab_command`` without its
``--LabServerApp.extra_labextensions_path``) the first check fails with "the tab shows the
unsaved dot". The last test presents the notebook: RISE's slideshow, a second JupyterLab
core, loads the extension too, and still shows its slides. Screenshots go to ``artifacts/``.
"""

import shutil
import time

import pytest

from jupyter_browser import TEXT_FORMS, chromium_executable, chromium_page, jupyterlab
from rise_browser import SLIDE, present
from tutorial.jupyter.lab import NOTEBOOKS

NOTEBOOK = "02_momentum.ipynb"
SAVED_WIDGET = "race_model(valley"       # text in the source of a cell whose output is a widget
EXTENSION = "tutorial-clean-until-changed"
DIRTY_TAB = ".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-dirty"
CLEAN_FOR_S = 3                          # how long the tab must stay clean after the restore


def _type_a_character(page):
    page.locator(".jp-CodeCell .cm-content").first.click()
    page.keyboard.type("#")


def _run_a_cell(page):
    page.locator(".jp-CodeCell .cm-content").first.click()   # selects it, changes nothing
    page.keyboard.press("Shift+Enter")


CHANGES = {"typing": _type_a_character, "running": _run_a_cell}


def _open_restored(page, url):
    """Open the notebook; return once its kernel is idle and its saved widget is drawn."""
    page.goto(url(NOTEBOOK), timeout=60_000)
    page.get_by_text("(ipykernel) | Idle").first.wait_for(timeout=90_000)
    cell = page.locator(".jp-CodeCell").filter(has_text=SAVED_WIDGET).first
    cell.scroll_into_view_if_needed(timeout=60_000)
    output = cell.locator(".jp-OutputArea-output").last
    page.wait_for_function(
        "([el, forms]) => el.querySelector('.jupyter-widgets')"
        " || forms.some(f => el.innerText.includes(f))",
        arg=[output.element_handle(), list(TEXT_FORMS)], timeout=60_000)
    assert output.locator(".jupyter-widgets").count() > 0, "the saved widget is not drawn"


def _dirty_within(page, seconds):
    """True as soon as the notebook's tab shows the unsaved dot, False if it does not within
    ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if page.locator(DIRTY_TAB).count() > 0:
            return True
        time.sleep(0.1)
    return False


def _ours(messages):
    return [m for m in messages if EXTENSION in m]


@pytest.fixture
def served(tmp_path):
    """(url, chromium) for a signed copy of :data:`NOTEBOOK` served as ``make lab`` does."""
    executable = chromium_executable()
    root = tmp_path / "notebooks"
    root.mkdir()
    shutil.copy(NOTEBOOKS / NOTEBOOK, root / NOTEBOOK)
    with jupyterlab(root, tmp_path, trust=True) as url:
        yield url, executable


@pytest.mark.parametrize("change", CHANGES)
def test_unchanged_notebook_is_clean_and_a_change_dirties_it(served, change):
    url, executable = served
    console = []
    with chromium_page(executable, f"clean_until_changed_{change}.png") as page:
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
        _open_restored(page, url)
        assert not _dirty_within(page, CLEAN_FOR_S), "the tab shows the unsaved dot"
        CHANGES[change](page)
        assert _dirty_within(page, 60), f"{change} did not show the unsaved dot"
    assert _ours(console) == []


def test_the_slideshow_loads_it_and_presents(served):
    url, executable = served
    console = []
    with chromium_page(executable, "clean_until_changed_rise.png") as page:
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        _open_restored(page, url)
        frame = present(page)
        loaded = frame.evaluate("(name) => name in (window._JUPYTERLAB ?? {})", EXTENSION)
        slide = frame.locator(SLIDE).first.inner_text()
    assert loaded, "RISE's slideshow did not load the extension"
    assert slide.strip(), "the slideshow shows an empty slide"
    assert _ours(console) == []
