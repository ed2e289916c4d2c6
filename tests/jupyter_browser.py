"""What the browser tests share: a JupyterLab on 127.0.0.1 with a known token, and a page
in Debian's headless Chromium driven by Playwright (no browser download).

Without Chromium or Playwright a browser test skips, saying why; with the CI variable
set it fails instead, because ``.ci/run`` installs Chromium there. Screenshots go to
``artifacts/`` (git-ignored).
"""

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tutorial.jupyter.lab import lab_command, trust_notebooks
from tutorial.jupyter.lab_settings import PRESENTING, write_overrides

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "artifacts"
# JupyterLab user settings every browser test runs under, whatever the machine's: every
# cell in the DOM (JupyterLab 4.3 leaves cells out of view unrendered, so a locator would
# not find them). The course's own settings (widget state saved, no news prompt) come as
# `make lab` gives them, from tutorial.jupyter.lab_settings, written into the scratch folder.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}


def skip_or_fail(reason):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is an error: .ci/run installs chromium)")
    pytest.skip(reason)


def chromium_executable():
    """The path of Debian's chromium, after checking Playwright is importable."""
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if executable is None:
        skip_or_fail(f"Debian's chromium is not installed ({CHROMIUM}): "
                     "apt-get install -y chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        skip_or_fail("pip package playwright is not installed: pip install -e '.[test]'")
    return executable


def cleared_copy(notebook, folder):
    """Copy ``notebook`` into ``folder`` without outputs or saved widget state, so what a
    test sees comes from its own run (and JupyterLab's autosave cannot touch the repo)."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, folder / Path(notebook).name)
    return folder / Path(notebook).name


TEXT_FORMS = ("VBox(children", "HBox(children", "Tab(children", "Error displaying widget")


def widget_problems(output):
    """What keeps a widget output (a Playwright locator) from being a live widget; [] if none.

    A widget that JupyterLab could not render shows its text form (``VBox(children=...``)
    or ipywidgets' "Error displaying widget"; a live one is DOM with the ``jupyter-widgets``
    class.
    """
    text = output.inner_text()
    problems = [f"shows {shown!r} instead of the widget" for shown in TEXT_FORMS
                if shown in text]
    if output.locator(".jupyter-widgets").count() == 0:
        problems.append("no widget DOM (.jupyter-widgets) in the output")
    return problems


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(folder, settings):
    for plugin, values in {**LAB_SETTINGS, **settings}.items():
        path = folder / f"{plugin.replace(':', '/')}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


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


@contextlib.contextmanager
def jupyterlab(root, scratch, trust=False, presenting=False, settings=None):
    """Serve ``root`` on 127.0.0.1 in fast mode; yields ``url(path)`` with the token in it.

    ``scratch`` holds the server's runtime files, its settings (:data:`LAB_SETTINGS` with
    ``settings``, user settings by plugin id, which RISE's slideshow reads too; the course's
    overrides, :mod:`tutorial.jupyter.lab_settings`) and its log; the server and every kernel it
    started are stopped on the way out. With ``trust`` the notebooks in ``root`` are signed
    as ``make lab`` signs the course's, with a notary kept in ``scratch``. ``presenting``
    sets the server up as ``make slides`` does: the notebook view's JupyterLab gets
    :data:`~tutorial.jupyter.lab_settings.PRESENTING`, and the course's overrides are written where
    RISE's app reads them, the environment's settings folder (the file ``make lab`` writes).
    """
    port, token = free_port(), secrets.token_hex(16)
    _write_settings(scratch / "settings", settings or {})
    write_overrides(scratch / "app-settings", PRESENTING if presenting else None)
    if presenting:
        write_overrides()
    (scratch / "trust").mkdir(exist_ok=True)   # the server's notary writes its secret there
    if trust:
        trust_notebooks(root, trust_dir=scratch / "trust")
    env = dict(os.environ, TUTORIAL_FAST="1", JUPYTER_RUNTIME_DIR=str(scratch / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
               JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                        os.environ.get("PYTHONPATH")])))
    log = open(scratch / "lab.log", "wb")
    proc = subprocess.Popen(lab_command(root, port=port, token=token, open_browser=False,
                                        trust_dir=scratch / "trust",
                                        app_settings_dir=scratch / "app-settings"),
                            stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_server(f"{base}/api/status?token={token}", proc)
        yield lambda path: f"{base}/lab/tree/{path}?token={token}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
        log.close()


@contextlib.contextmanager
def chromium_page(executable, screenshot, viewport=(1500, 1000)):
    """A Playwright page in headless Chromium; its last view is saved to artifacts/."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            try:
                yield page
            finally:
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / screenshot))
        finally:
            browser.close()
