"""A real browser sees the allreduce animation: JupyterLab + headless Chromium + Playwright.

The test serves a copy of ``notebooks/06_allreduce.ipynb`` (outputs cleared, so what we
see comes from this run, and JupyterLab's autosave cannot touch the repository) from a
JupyterLab on 127.0.0.1 with a known token, opens it in Debian's Chromium driven by
Playwright (no browser download), runs the animation cell, presses Play and checks
that the frame shown advanced. The screenshot goes to ``artifacts/`` (git-ignored).

Without Chromium or Playwright it skips, saying why; with the CI variable set it fails
instead, because ``.ci/run`` installs Chromium there.
"""

import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tutorial.lab import NOTEBOOKS, lab_command

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
NOTEBOOK = "06_allreduce.ipynb"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


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
            with urllib.request.urlopen(url, timeout=3) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"jupyter lab did not answer {url} within {timeout} s")


def _cleared_copy(target_dir):
    import nbformat

    nb = nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, target_dir / NOTEBOOK)


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
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        _skip_or_fail(f"Debian's chromium is not installed ({CHROMIUM}): "
                      "apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_or_fail("pip package playwright is not installed: pip install -e '.[test]'")
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")

    root = tmp_path / "notebooks"
    root.mkdir()
    _cleared_copy(root)
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, TUTORIAL_FAST="1", JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    log = open(tmp_path / "lab.log", "wb")
    proc = subprocess.Popen(lab_command(root, port=port, token=token, open_browser=False),
                            stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_for_server(f"{base}/api/status?token={token}", proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
            try:
                page = browser.new_page(viewport={"width": 1500, "height": 1000})
                try:
                    before, after = _run_and_play(page, f"{base}/lab/tree/{NOTEBOOK}?token={token}")
                finally:
                    ARTIFACTS.mkdir(exist_ok=True)
                    page.screenshot(path=str(ARTIFACTS / "06_allreduce_play.png"))
            finally:
                browser.close()
        assert before == 0 and after > before
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)            # the server and the kernel it started
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
        log.close()


def test_missing_browser_skips_here_but_fails_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        _skip_or_fail("Debian's chromium is not installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        _skip_or_fail("Debian's chromium is not installed")
