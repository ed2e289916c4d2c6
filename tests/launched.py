"""Helpers for tests that start real processes: run a launcher in a child Python, check
that every process it started is gone.

A scenario runs in a fresh Python with a subprocess timeout, so even a launcher bug cannot
hang the test run; the launcher's own (shorter) timeouts are what the tests check.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_child(code, tmp_dir, prelude="", timeout=150):
    """Run ``prelude + code`` in a fresh Python; it prints one JSON line last, returned here.

    Its runs keep their logs under ``tmp_dir`` (TMPDIR), not in the system's /tmp.
    """
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp_dir)))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def all_gone(pids):
    """True when no process of ``pids`` exists any more."""
    def gone(pid):
        try:
            os.kill(pid, 0)
            return False
        except ProcessLookupError:
            return True
    return all(gone(pid) for pid in pids)
