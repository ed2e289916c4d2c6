"""The dashboard in a real JupyterLab: Run trains live from a thread, Stop stops it.

The unit tests (test_parallel_live.py) drive the loop and the view without a browser;
this test checks what they cannot: that reports sent from the training thread reach
JupyterLab while the kernel is idle, and that the Stop click gets through. A one-cell
notebook in a temporary folder is served on 127.0.0.1 with a known token and opened in
Debian's Chromium through Playwright (no browser download). The screenshot goes to
``artifacts/`` (git-ignored). Without Chromium or Playwright the test skips, saying
why; with the CI variable set it fails instead (``.ci/run`` installs Chromium).
"""

from jupyter_browser import chromium_executable, chromium_page, jupyterlab

CELL = ("from tutorial.viz.dashboard import TrainingDashboard\n"
        "view = TrainingDashboard(max_devices=2)\n"
        "view.steps.value = 2000\n"
        "view")
SHOWN_STEP = ("() => Number((document.querySelector('.dp-dashboard-summary')?.innerText ?? '')"
              ".match(/step (\\d+)\\//)?.[1] ?? 0)")


def _write_notebook(folder):
    import nbformat

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nbformat.write(nb, folder / "dashboard.ipynb")


def test_run_trains_live_and_stop_stops(tmp_path):
    executable = chromium_executable()
    root = tmp_path / "notebooks"
    root.mkdir()
    _write_notebook(root)
    with jupyterlab(root, tmp_path) as url:
        with chromium_page(executable, "05_dashboard_stopped.png", (1400, 1000)) as page:
            page.goto(url("dashboard.ipynb"), timeout=60_000)
            page.get_by_text("| Idle").first.wait_for(timeout=120_000)   # kernel ready
            cell = page.locator(".jp-CodeCell").filter(has_text="TrainingDashboard(")
            cell.first.locator(".cm-content").click(timeout=60_000)
            page.keyboard.press("Shift+Enter")
            run = page.locator(".dp-dashboard-run").first
            run.wait_for(state="visible", timeout=90_000)
            figure = page.locator(".dp-dashboard-figure").first
            hidden_before_run = not figure.is_visible()       # no broken-image icon
            run.click()
            page.wait_for_function(f"() => ({SHOWN_STEP})() >= 3", timeout=120_000)
            first_seen = page.evaluate(SHOWN_STEP)
            page.wait_for_function(f"() => ({SHOWN_STEP})() > {first_seen}",
                                   timeout=60_000)                # still advancing
            page.locator(".dp-dashboard-stop").first.click()
            page.wait_for_function(
                "() => document.querySelector('.dp-dashboard-summary').innerText"
                ".includes('stopped between two steps')", timeout=60_000)
            stopped_at = page.evaluate(SHOWN_STEP)
            figure.wait_for(state="visible", timeout=30_000)
            drawn = figure.evaluate("img => img.complete && img.naturalWidth > 0")
    assert first_seen >= 3 and first_seen < stopped_at < 2000
    assert hidden_before_run and drawn
