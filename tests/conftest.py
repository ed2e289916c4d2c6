"""Tests are laid out like the library (tests/optim/ for tutorial/optim/, ...); the helpers
they share (bounded.py, jupyter_browser.py, rise_browser.py) stay here, importable by name
from every folder. Every test in tests/browser/ drives JupyterLab in headless Chromium,
seconds each, so it is marked slow (``pytest -m "not slow"`` leaves it out) and browser.
`make unit` runs each test file whole in one pytest-xdist worker (``--dist loadfile``), so a
module's JupyterLab and browser start once."""

import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives JupyterLab or an exported page in "
                            "headless Chromium; the same JavaScript under every Python")


def pytest_collection_modifyitems(items):
    for item in items:
        if "browser" in item.path.parent.parts:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def sigint_as_a_fresh_process_has_it():
    """Every test starts with Ctrl-C delivered as Python's KeyboardInterrupt, unblocked, so
    that the processes it starts inherit what a kernel's would: in a full `make unit` run
    four tests that interrupt a launcher (SIGINT) waited in vain, while they pass alone,
    so an earlier test in the same worker left SIGINT ignored or blocked."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    yield
