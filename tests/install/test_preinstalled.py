"""`make lab MXNET=preinstalled`: the route for NVIDIA's MXNet container (Hopper GPUs).

The container (NGC 24.06, the last with MXNet) runs Python 3.10, and its Python already
has MXNet 1.9.1 (and Horovod) built against its own numpy, below 2. The route makes an
environment that sees that interpreter's packages and installs everything else the course
pins beside them, keeping both MXNet and that numpy. Here a Python 3.10 base interpreter
gets the CPU build of MXNet and numpy 1.24.4 (below 2 and below the course's own 1.26.4,
so a replaced numpy would show) from PyPI, standing in for the container's; then the
Makefile's own route runs against it. Slow (it installs the course once, about 2 minutes
from pip's cache): `make test` leaves it out, `.ci/run` runs it with

    .venv/bin/python -m pytest -q -m install tests/install/test_preinstalled.py
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = [pytest.mark.install, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("make") is None, reason="needs make")]


def _run(*args, cwd=ROOT, env=None):
    env = {k: v for k, v in (env or os.environ).items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True)


CONTAINER_PYTHON = "3.10"       # NGC 24.06's, and Ubuntu 22.04's
CONTAINER_NUMPY = "1.24.4"


def python_named(version):
    """An interpreter of ``version`` on PATH or in pyenv (whose shim refuses versions that
    are installed but not selected), or None."""
    for candidate in [shutil.which(f"python{version}")] + sorted(
            Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")).glob(
                f"versions/{version}.*/bin/python{version}")):
        if candidate and _run(candidate, "--version").returncode == 0:
            return Path(candidate)
    return None


@pytest.fixture(scope="module")
def routed(tmp_path_factory):
    """(base python, the route's venv folder, make's output)."""
    python = python_named(CONTAINER_PYTHON)
    if python is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs Python {CONTAINER_PYTHON} for the container route")
        pytest.skip(f"needs Python {CONTAINER_PYTHON}, the container's")
    top = tmp_path_factory.mktemp("preinstalled")
    base = top / "base"
    # The base interpreter: a venv of Python 3.10 holding MXNet and its numpy.
    assert _run(python, "-m", "venv", base).returncode == 0
    pins = ["mxnet==1.9.1", f"numpy=={CONTAINER_NUMPY}"]
    done = _run(base / "bin" / "python", "-m", "pip", "install", "--quiet", *pins)
    assert done.returncode == 0, done.stderr[-2000:]
    venv = top / "course-venv"
    made = _run("make", f"{venv}/.installed", "MXNET=preinstalled",
                f"PYTHON={base / 'bin' / 'python'}", f"VENV={venv}", "HOROVOD=0")
    assert made.returncode == 0, (made.stdout + made.stderr)[-4000:]
    yield base, venv, made.stdout
    shutil.rmtree(top, ignore_errors=True)


def test_the_route_keeps_the_interpreters_mxnet_and_numpy(routed):
    base, venv, log = routed
    assert f"and numpy {CONTAINER_NUMPY} are already installed: keeping them" in log
    where = _run(venv / "bin" / "python", "-c", "import sys, mxnet, numpy; "
                 "print(mxnet.__file__, numpy.__file__, numpy.__version__, numpy.bool is bool, "
                 "'%d.%d' % sys.version_info[:2])", cwd="/")
    assert where.returncode == 0, where.stderr
    mxnet_file, numpy_file, version, aliases, python = where.stdout.split()
    assert mxnet_file.startswith(str(base)) and numpy_file.startswith(str(base))
    assert (version, aliases, python) == (CONTAINER_NUMPY, "True", CONTAINER_PYTHON)
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert not list(site.glob("mxnet")) and not list(site.glob("numpy"))


def test_the_route_installs_the_rest_of_the_course(routed):
    _, venv, _ = routed
    done = _run(venv / "bin" / "python", "-c",
                "import tutorial, d2l, jupyterlab, nbval, sklearn; "
                "from tutorial.check.environment import check_versions; "
                "r = check_versions(); print(r.ok, r.detail)", cwd="/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True"), done.stdout


def test_the_route_refuses_an_interpreter_without_mxnet(tmp_path):
    venv = tmp_path / "v"
    made = _run("make", f"{venv}/.installed", "MXNET=preinstalled",
                f"PYTHON={sys._base_executable}", f"VENV={venv}", "HOROVOD=0")
    assert made.returncode != 0
    assert "sees no MXNet" in made.stdout + made.stderr
