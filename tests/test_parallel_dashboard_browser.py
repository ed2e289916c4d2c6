"""The dashboard in a real JupyterLab: Run trains live from a thread, Stop stops it.

The unit tests (test_parallel_live.py) drive the loop and the view without a browser;
this test checks what they cannot: that reports sent from the training thread reach
JupyterLab while the kernel is idle, and that the Stop click gets through. A one-cell
notebook in a temporary folder is served on 127.0.0.1 with a known token and opened in
Debian's Chromium through Playwright (no browser download). The screenshot goes to
``artifacts/`` (git-ignored). Without Chromium or Playwright the test skips, saying
why; with the CI variable set it fails instead (``.ci/run`` installs Chromium).
"""

import os
import secrets
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tutorial.lab import lab_command

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
CELL = ("from tutorial.viz.dashboard import TrainingDashboard\n"
        "view = TrainingDashboard(max_devices=2)\n"
        "view.steps.value = 2000\n"
        "view")
SHOWN_STEP = ("() => Number((document.querySelector('.dp-dashboard-summary')?.innerText ?? '')"
              ".match(/step (\\d+)\\//)?.[1] ?? 0)")


def _skip_or_fail(reason):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is an error: .ci/run installs chromium)")
    pytest.skip(reason)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_server(url, proc, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=3):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"jupyter lab did not answer {url} within {timeout} s")


def _write_notebook(folder):
    import nbformat

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nbformat.write(nb, folder / "dashboard.ipynb")


def test_run_trains_live_and_stop_stops(tmp_path):
    if not Path(CHROMIUM).exists():
        _skip_or_fail(f"Debian's chromium is not installed ({CHROMIUM}): "
                      "apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_or_fail("pip package playwright is not installed: pip install -e '.[test]'")
    root = tmp_path / "notebooks"
    root.mkdir()
    _write_notebook(root)
    port, token = _free_port(), secrets.token_hex(16)
    repo = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, TUTORIAL_FAST="1", JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
               PYTHONPATH=os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])))
    log = open(tmp_path / "lab.log", "wb")
    proc = subprocess.Popen(lab_command(root, port=port, token=token, open_browser=False),
                            stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_for_server(f"{base}/api/status?token={token}", proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{base}/lab/tree/dashboard.ipynb?token={token}", timeout=60_000)
                page.get_by_text("| Idle").first.wait_for(timeout=120_000)   # kernel ready
                cell = page.locator(".jp-CodeCell").filter(has_text="TrainingDashboard(")
                cell.first.locator(".cm-content").click(timeout=60_000)
                page.keyboard.press("Shift+Enter")
                run = page.locator(".dp-dashboard-run").first
                run.wait_for(state="visible", timeout=90_000)
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
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "05_dashboard_stopped.png"))
            finally:
                browser.close()
        assert first_seen >= 3 and first_seen < stopped_at < 2000
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)            # the server and the kernel it started
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
        log.close()
