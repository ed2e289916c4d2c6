"""A cluster's folder of logs and results: removed after a good run, kept after a failed one.

``run_directory(None)`` makes a temporary folder and removes it when the block ends
normally: a learner who runs the notebook ten times does not collect ten folders of
logs. When the block raises a :class:`ClusterError` the folder stays, because those logs
explain the failure and the error's message names the folder. Any other way out (an
interrupted cell, say) names no folder, so nobody would find it: it is removed too.
A folder the caller named is never removed.

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

from tutorial.parallel.ps.diagnosis import ClusterError

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
    keep = False
    try:
        yield path
    except ClusterError:
        keep = True                              # its message names the folder
        raise
    finally:
        if not keep:
            shutil.rmtree(path, ignore_errors=True)
