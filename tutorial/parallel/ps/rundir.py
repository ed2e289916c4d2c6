"""A cluster's folder of logs and results: removed after a good run, kept after a failed one.

``run_directory(None)`` makes a temporary folder and removes it when the block ends
normally: a learner who runs the notebook ten times does not collect ten folders of
logs. When the block raises a :class:`ClusterError` whose message names the folder, it
stays, because those logs explain the failure. Any other way out (an interrupted cell, a
port in use before anything ran) names no folder, so nobody would find it: it is removed
too. A temporary folder records the launcher's process id (``.launcher``); the next run
removes the folders of launchers that no longer exist (a killed kernel's, or a failure's
kept until its kernel ended).

A folder the caller names is never removed, and the library writes only into a folder that
is empty or holds an earlier run of its own (marked ``.tutorial_run``): a folder with
anyone else's files is refused, so a learner's ``worker0.log`` is never overwritten.

>>> with run_directory() as where:
...     (where / "worker0.log").write_text("step 1")
6
>>> where.exists()
False
"""

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from tutorial.parallel.ps.diagnosis import ClusterError

PREFIX = "ps_cluster_"
OWNER = ".launcher"          # in a temporary folder: the launcher's process id
MARK = ".tutorial_run"       # in a folder the caller named: the library wrote here


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:            # another user's process: it exists
        return True
    return True


def remove_stale_folders(folder=None):
    """Remove the temporary run folders whose launcher process no longer exists."""
    for path in Path(folder or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            pid = int((path / OWNER).read_text())
        except (OSError, ValueError):
            continue                   # no owner recorded: not ours to judge
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(path, ignore_errors=True)


def _claim_named(path):
    """Make ``path`` ours to write in, or refuse it when it holds someone else's files."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        file = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), path)
        raise ValueError(f"run_dir {str(path)!r} cannot be a folder: {str(file)!r} is a file, "
                         f"not a folder. Pass the path of a new or empty folder, or "
                         f"run_dir=None for a temporary one") from None
    if not (path / MARK).exists():
        foreign = sorted(p.name for p in path.iterdir())
        if foreign:
            raise ValueError(f"run_dir {str(path)!r} already holds files this course did not "
                             f"write ({', '.join(foreign[:5])}{', ...' if len(foreign) > 5 else ''}"
                             f"): pass an empty or new folder, or run_dir=None for a temporary "
                             f"one, so that none of them is overwritten")
        (path / MARK).write_text("logs and results of a cluster run of this course\n")
    return path


@contextlib.contextmanager
def run_directory(run_dir=None):
    """Yield ``run_dir`` as a Path (made if missing), or a new temporary folder when None."""
    if run_dir is not None:
        yield _claim_named(Path(run_dir))
        return
    remove_stale_folders()
    path = Path(tempfile.mkdtemp(prefix=PREFIX))
    (path / OWNER).write_text(str(os.getpid()))
    (path / MARK).write_text("logs and results of a cluster run of this course\n")
    keep = False
    try:
        yield path
    except ClusterError as error:
        keep = str(path) in str(error)           # its message names the folder
        raise
    finally:
        if not keep:
            shutil.rmtree(path, ignore_errors=True)
