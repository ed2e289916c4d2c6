"""Wheels the course builds from source once and keeps outside ``.venv``.

Two packages have no wheel for some machines: Horovod 0.28.1 has none at all
(``tutorial.install.horovod_build`` builds it against this MXNet), and numpy 1.26.4 has none for
Python 3.13 (:func:`source_built` builds it here). Each built wheel goes to
``~/.cache/tutorial/wheels/<key>/`` (``TUTORIAL_WHEEL_CACHE`` or ``XDG_CACHE_HOME`` move
it), keyed by what makes it valid (version, Python tag, machine), so ``rm -rf .venv`` and
a second set-up install it in seconds.

>>> numpy_key("1.26.4", "cp313", "x86_64")
'numpy-1.26.4_cp313_x86_64'
>>> needs_source_build((3, 12)), needs_source_build((3, 13))
(False, True)
"""

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The first Python for which numpy 1.26.4 has no wheel on PyPI.
NUMPY_SOURCE_FROM = (3, 13)


def cache_root(environ=None):
    """Where built wheels are kept: outside .venv, so deleting it keeps them."""
    environ = os.environ if environ is None else environ
    if environ.get("TUTORIAL_WHEEL_CACHE"):
        return Path(environ["TUTORIAL_WHEEL_CACHE"])
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tutorial" / "wheels"


def numpy_key(version, python_tag, machine):
    return f"numpy-{version}_{python_tag}_{machine}"


def needs_source_build(python=None):
    """True on the Pythons for which the pinned numpy has no wheel."""
    return tuple(python or sys.version_info[:2]) >= NUMPY_SOURCE_FROM


def wheel_in(folder, project):
    found = sorted(Path(folder).glob(f"{project}-*.whl"))
    return found[-1] if found else None


def _run_pip(*args, env=None):
    print("+ pip " + " ".join(map(str, args)), flush=True)
    return subprocess.run([sys.executable, "-m", "pip", *map(str, args)], env=env).returncode


def build_into(folder, pip_args, env=None, pip=_run_pip):
    """``pip wheel *pip_args`` into ``folder``, made only when a wheel comes out; True if so.
    ``pip(*args, env=...)`` runs pip and returns its exit code.

    The build runs in a scratch folder beside ``folder`` and is renamed into place whole,
    so an interrupted build never leaves a folder that looks like a cached wheel.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    start = time.monotonic()
    code = pip("wheel", "--no-deps", "--no-cache-dir", *pip_args, "-w", scratch, env=env)
    if code != 0 or not any(scratch.glob("*.whl")):
        shutil.rmtree(scratch, ignore_errors=True)
        return False
    shutil.rmtree(folder, ignore_errors=True)
    scratch.rename(folder)
    print(f"built {next(folder.glob('*.whl')).name} in {time.monotonic() - start:.0f} s, "
          f"kept in {folder}", flush=True)
    return True


def source_built(requirement, cache=None):
    """The folder holding a wheel of ``requirement`` (``numpy==1.26.4``) for this Python,
    building it from source the first time (a few CPU-minutes); None when no build is needed.
    Exits with the reason and the way out when the build fails."""
    if not needs_source_build():
        return None
    project, version = requirement.split("==")
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    folder = (cache_root() if cache is None else Path(cache)) / numpy_key(
        version, tag, platform.machine())
    if wheel_in(folder, project) is None:
        print(f"{project} {version} has no wheel for Python {sys.version_info.major}."
              f"{sys.version_info.minor}: building it once from source (about 5 CPU-minutes; "
              f"needs a C compiler); the wheel is kept in {folder}", flush=True)
        if not build_into(folder, [requirement]):
            sys.exit(f"{project} {version} could not be built from source for Python "
                     f"{sys.version_info.major}.{sys.version_info.minor} (the log is above). "
                     f"Install a C compiler and Python's headers (apt install build-essential "
                     f"python3-dev), or use Python 3.12 or 3.11: make PYTHON=python3.12 lab")
    return folder
