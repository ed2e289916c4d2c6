"""A real browser sees the allreduce animation: JupyterLab + headless Chromium + Playwright.

The test serves a copy of ``notebooks/06_allreduce.ipynb`` (outputs cleared, so what we
see comes from this run, and JupyterLab's autosave cannot touch the repository) from a
JupyterLab on 127.0.0.1 with a known token, opens it in Debian's Chromium driven by
Playwright (no browser download), runs the animation cell, presses Play and checks
that the frame shown advanced. The screenshot goes to ``artifacts/`` (git-ignored).

Without Chromium or Playwright it skips, saying why; with the CI variable set it fails
instead, because ``.ci/run`` installs Chromium there.
"""

import pytest

from jupyter_browser import (chromium_executable, chromium_page, cleared_copy, jupyterlab,
                             skip_or_fail)
from tutorial.jupyter.lab import NOTEBOOKS

NOTEBOOK = "06_allreduce.ipynb"


def _shown_step(page):
    return page.evaluate("() => Number(document.querySelector('.allreduce-frame')"
                         "?.dataset.step ?? -1)")


def _run_and_play(page, url):
    """Open the notebook, run the animation cell, press Play: (step before, step after)."""
    page.goto(url, timeout=60_000)
    page.get_by_text("(ipykernel) | Idle").first.wait_for(timeout=90_000)   # kernel is up
    cell = page.locator(".jp-CodeCell").filter(has_text="allreduce_animation(").first
    cell.scroll_into_view_if_needed(timeout=60_000)
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(".allreduce-play button", state="attached", timeout=90_000)
    page.wait_for_selector(".allreduce-frame", state="attached", timeout=60_000)
    before = _shown_step(page)
    play = page.locator(".allreduce-play button").first
    play.scroll_into_view_if_needed()
    play.click()
    page.wait_for_function("() => Number(document.querySelector('.allreduce-frame')"
                           f".dataset.step) > {before}", timeout=30_000)
    return before, _shown_step(page)


def test_play_advances_the_allreduce_animation(tmp_path):
    executable = chromium_executable()
    root = tmp_path / "notebooks"
    root.mkdir()
    cleared_copy(NOTEBOOKS / NOTEBOOK, root)
    with jupyterlab(root, tmp_path) as url:
        with chromium_page(executable, "06_allreduce_play.png") as page:
            before, after = _run_and_play(page, url(NOTEBOOK))
    assert before == 0 and after > before


def test_missing_browser_skips_here_but_fails_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        skip_or_fail("Debian's chromium is not installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        skip_or_fail("Debian's chromium is not installed")
