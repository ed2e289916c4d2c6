"""A learner who opens a committed notebook sees its widgets before running any cell.

The notebooks are stored with their widget state (``metadata.widgets``, written by nbclient
when ``make execute-notebooks`` runs them), and JupyterLab's widget manager always restores
it on opening; but it draws a widget only from a trusted notebook, and a notebook fresh
from git is not trusted, so every widget showed as ``VBox(children=...)`` text until its
cell ran. ``make lab`` now signs the notebooks it serves (``tutorial.jupyter.lab.trust_notebooks``).

The test serves an untouched copy of a committed notebook (outputs and widget state kept;
the copy keeps JupyterLab's autosave away from the repository), signed the same way, from
a JupyterLab started with ``tutorial.jupyter.lab.lab_command``; it opens it in headless Chromium,
runs nothing, and checks the widget output is widget DOM. Without the signing it fails
with "shows 'VBox(children' instead of the widget". Screenshots go to ``artifacts/``.

Drawn from its saved frame, a widget is disconnected, and ipywidgets marks every
disconnected view with a red broken-link icon: each widget must show exactly one, on its
outermost box (``tutorial.viz.saved_frame``), not one per control (issue 35: 16 on the race).
"""

import shutil

import pytest

from jupyter_browser import (TEXT_FORMS, chromium_executable, chromium_page, jupyterlab,
                             widget_problems)
from tutorial.jupyter.lab import NOTEBOOKS

# (notebook, text in the source of a cell whose saved output is a widget, a CSS class
# only the real widget has)
SAVED_WIDGETS = [
    ("00_setup.ipynb", "widgets.SelectionSlider(", ".widget-slider"),
    ("02_momentum.ipynb", "race_model(valley", ".jupyter-widgets"),
    ("05_data_parallel.ipynb", "TrainingDashboard()", ".widget-button"),
    ("06_allreduce.ipynb", "allreduce_animation(nodes=7)", ".widget-play"),
    ("10_model_parallel.ipynb", "pipeline_animation(stages=3", ".widget-play"),
    ("14_sequences_and_experts.ipynb", "ring_animation(devices=4", ".ring-step"),
    ("14_sequences_and_experts.ipynb", "all_to_all_animation(counts", ".all-to-all-step"),
]


def _widget_output(page, source_text):
    cell = page.locator(".jp-CodeCell").filter(has_text=source_text).first
    cell.scroll_into_view_if_needed(timeout=60_000)
    return cell.locator(".jp-OutputArea-output").last    # the widget is the last output


# the marks a reader sees: disconnected views whose ::before (the icon) is drawn
VISIBLE_MARKS = """el => [...el.querySelectorAll('.jupyter-widgets-disconnected')].filter(e => {
    const mark = getComputedStyle(e, '::before');
    return mark.display !== 'none' && mark.content !== 'none' && mark.content !== 'normal';
}).length"""


def _settled(output, timeout_ms=60_000):
    """Wait until the output shows widget DOM or one of the text forms of a widget."""
    output.page.wait_for_function(
        "([el, forms]) => el.querySelector('.jupyter-widgets')"
        " || forms.some(f => el.innerText.includes(f))",
        arg=[output.element_handle(), list(TEXT_FORMS)], timeout=timeout_ms)


@pytest.mark.parametrize("notebook, source_text, widget_class", SAVED_WIDGETS)
def test_saved_widgets_show_before_any_cell_runs(tmp_path, notebook, source_text,
                                                 widget_class):
    executable = chromium_executable()
    root = tmp_path / "notebooks"
    root.mkdir()
    shutil.copy(NOTEBOOKS / notebook, root / notebook)
    with jupyterlab(root, tmp_path, trust=True) as url:
        with chromium_page(executable, f"{notebook[:-6]}_opened.png") as page:
            page.goto(url(notebook), timeout=60_000)
            page.get_by_text("(ipykernel) | Idle").first.wait_for(timeout=90_000)
            output = _widget_output(page, source_text)
            _settled(output)
            problems = widget_problems(output)
            shows_widget = output.locator(widget_class).count() > 0
            marks = output.evaluate(VISIBLE_MARKS)
    assert problems == [] and shows_widget, (notebook, problems)
    assert marks == 1, f"{notebook}: {marks} broken-link marks on one saved widget, not 1"
