"""A cluster's folder of logs and results: removed after a good run, kept after a failed one.

``run_directory(None)`` makes a temporary folder and removes it when the block ends
normally: a learner who runs the notebook ten times does not collect ten folders of
logs. When the block raises, the folder stays, and the launcher's error message names
it, because those logs are what explains the failure. A folder the caller named is
never removed.

>>> with run_directory() as where:
...     (where / "worker0.log").write_text("step 1")
6
>>> where.exists()
False
"""

import contextlib
import shutil
import tempfile
from pathlib import Path

PREFIX = "ps_cluster_"


@contextlib.contextmanager
def run_directory(run_dir=None):
    """Yield ``run_dir`` as a Path (made if missing), or a new temporary folder when None."""
    if run_dir is not None:
        path = Path(run_dir)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix=PREFIX))
    yield path                                   # an exception leaves the folder for the logs
    shutil.rmtree(path, ignore_errors=True)
