"""A learner's quiz in a real JupyterLab: tick, Check, Show answer, in headless Chromium.

The test serves a notebook holding only 05's quiz cell (its options are the course's
longest), checks that its source is collapsed, runs it and clicks as a learner would: a
wrong tick gets its explanation, Show answer shows every option's, and every option's
text is shown whole (wrapped, not cut off). Skips without Chromium or Playwright, as the
other browser tests do; the screenshot goes to ``artifacts/``.
"""

import nbformat

from jupyter_browser import chromium_executable, chromium_page, jupyterlab
from tutorial.jupyter.lab import NOTEBOOKS
from tutorial.quizzes import quiz_named
from tutorial.quizzes.grading import grade, show_answer

TOPIC, NOTEBOOK = "data_parallel", "05_data_parallel.ipynb"
FEEDBACK = ".tutorial-quiz-feedback"


def _write_notebook(folder):
    """A notebook holding only the course's own quiz cell on TOPIC (metadata included)."""
    course = nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4)
    [cell] = [c for c in course.cells if f'quiz_for("{TOPIC}")' in c.source]
    cell.outputs, cell.execution_count = [], None
    nb = nbformat.v4.new_notebook(metadata=course.metadata, cells=[cell])
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, folder / NOTEBOOK)


def _clipped_options(page):
    """How many option labels are cut off: wider than the space they are shown in."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.tutorial-quiz-option')]"
        ".filter(e => e.scrollWidth > e.clientWidth + 1 ||"
        "             e.parentElement.scrollWidth > e.parentElement.clientWidth + 1).length")


def test_a_learner_ticks_checks_and_asks_for_the_answer(tmp_path):
    executable = chromium_executable()
    root = tmp_path / "notebooks"
    root.mkdir()
    _write_notebook(root)
    question = quiz_named(TOPIC).questions[0]
    wrong_option = min(set(range(len(question.options))) - question.correct)
    with jupyterlab(root, tmp_path) as url:
        with chromium_page(executable, "quiz_browser.png", viewport=(1100, 1400)) as page:
            page.goto(url(NOTEBOOK), timeout=60_000)
            page.get_by_text("(ipykernel) | Idle").first.wait_for(timeout=90_000)
            cell = page.locator(".jp-CodeCell").first
            cell.locator(".jp-InputPlaceholder").wait_for()
            page.locator('[data-command="notebook:run-cell-and-select-next"]').first.click()
            page.wait_for_selector(".jp-OutputArea button", timeout=90_000)
            block = page.locator(".jp-OutputArea .widget-vbox .widget-vbox").first
            block.locator("input[type=checkbox]").nth(wrong_option).check()
            block.get_by_role("button", name="Check").click()
            page.wait_for_function(
                f"() => document.querySelector('{FEEDBACK}')?.innerText.includes('Not yet')",
                timeout=30_000)
            after_wrong = block.locator(FEEDBACK).inner_text()
            block.get_by_role("button", name="Show answer").click()
            page.wait_for_function(
                f"() => document.querySelector('{FEEDBACK}')?.innerText.includes('answer:')",
                timeout=30_000)
            after_reveal = block.locator(FEEDBACK).inner_text()
            clipped = _clipped_options(page)
            source_shown = cell.locator(".cm-content").is_visible()
            options_shown = page.locator(".tutorial-quiz-option").count()
    expected = grade(question, {wrong_option})
    assert expected.notes[0].why in after_wrong
    assert not any(question.options[i].why in after_wrong for i in question.correct)
    assert all(note.why in after_reveal for note in show_answer(question).notes)
    assert not source_shown
    assert options_shown == sum(len(q.options) for q in quiz_named(TOPIC).questions)
    assert clipped == 0
