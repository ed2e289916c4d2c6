"""`make lab MXNET=preinstalled`: the route for NVIDIA's MXNet container (Hopper GPUs).

The container's Python already has MXNet (and Horovod). The route makes an environment
that sees that interpreter's packages and installs everything else the course pins beside
them. Here a base interpreter gets the CPU build of MXNet from PyPI, standing in for the
container's; then the Makefile's own route runs against it. Slow (it installs the course
once, about 2 minutes from pip's cache): `make test` leaves it out, `.ci/run` runs it with

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


@pytest.fixture(scope="module")
def routed(tmp_path_factory):
    """(base python, the route's venv folder, make's output)."""
    top = tmp_path_factory.mktemp("preinstalled")
    base = top / "base"
    # The base interpreter: a venv made from the real interpreter under this test's venv.
    assert _run(sys._base_executable, "-m", "venv", base).returncode == 0
    pins = ["mxnet==1.9.1", "numpy==1.26.4"]
    done = _run(base / "bin" / "python", "-m", "pip", "install", "--quiet", *pins)
    assert done.returncode == 0, done.stderr[-2000:]
    venv = top / "course-venv"
    made = _run("make", f"{venv}/.installed", "MXNET=preinstalled",
                f"PYTHON={base / 'bin' / 'python'}", f"VENV={venv}", "HOROVOD=0")
    assert made.returncode == 0, (made.stdout + made.stderr)[-4000:]
    yield base, venv, made.stdout
    shutil.rmtree(top, ignore_errors=True)


def test_the_route_keeps_the_interpreters_mxnet(routed):
    base, venv, log = routed
    assert "is already installed: keeping it" in log
    where = _run(venv / "bin" / "python", "-c", "import mxnet, numpy; "
                 "print(mxnet.__file__); print(numpy.bool is bool)", cwd="/")
    assert where.returncode == 0, where.stderr
    mxnet_file, aliases = where.stdout.split()
    assert mxnet_file.startswith(str(base)) and aliases == "True"
    assert not list((venv / "lib").glob("python3*/site-packages/mxnet"))


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
