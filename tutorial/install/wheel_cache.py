"""Wheels the course builds from source once and keeps outside ``.venv``.

Horovod 0.28.1 has no wheel on PyPI: ``tutorial.install.horovod_build`` builds it against
this MXNet. (numpy needs no build anywhere: every supported Python has a numpy wheel,
``tutorial.install.pins``.) Each built wheel goes to ``~/.cache/tutorial/wheels/<key>/``
(``TUTORIAL_WHEEL_CACHE`` or ``XDG_CACHE_HOME`` move it), keyed by what makes it valid
(version, MXNet build, Python tag, machine), so ``rm -rf .venv`` and a second set-up install
it in seconds.

>>> cache_root({"XDG_CACHE_HOME": "/x"}).as_posix()
'/x/tutorial/wheels'
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cache_root(environ=None):
    """Where built wheels are kept: outside .venv, so deleting it keeps them."""
    environ = os.environ if environ is None else environ
    if environ.get("TUTORIAL_WHEEL_CACHE"):
        return Path(environ["TUTORIAL_WHEEL_CACHE"])
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tutorial" / "wheels"


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
