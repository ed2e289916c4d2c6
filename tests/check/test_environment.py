"""One source of truth for the pins: pyproject.toml, mirrored by environment.yml."""

import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:      # Python 3.10: pip's own copy of the same reader
    from pip._vendor import tomli as tomllib

from tutorial.check.environment import pins
from tutorial.install import pins as course_pins

ROOT = Path(__file__).resolve().parents[2]


def _pyproject_pins(python):
    """{name: version} of the course's pins (project, test extra, the CPU build) for ``python``."""
    reqs = course_pins.requirements(python=python)
    return dict(course_pins.pin(r) for group in ("course", "cpu") for r in reqs[group])


def _every_requirement():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"] + [r for extra in project["optional-dependencies"].values()
                                      for r in extra]


def _environment_yml():
    text = (ROOT / "environment.yml").read_text()
    python = re.search(r"^\s*-\s*python=(\S+)", text, re.M).group(1)
    pip = dict(re.findall(r"^\s+-\s+([\w.\-]+)==(\S+)\s*$", text, re.M))
    return python, pip


def test_every_dependency_is_pinned_exactly_for_every_supported_python():
    (_, low), (_, high) = course_pins.SUPPORTED
    for minor in range(low, high + 1):
        pinned = _pyproject_pins((3, minor))
        assert pinned["mxnet"] == "1.9.1"
        numpy = tuple(int(p) for p in pinned["numpy"].split(".")[:2])
        # numpy 1.x has wheels up to 3.12; from 3.13 on numpy 2 (tutorial/install/numpy_compat.py)
        assert (1, 24) <= numpy < (2, 0) if minor < 13 else (2, 0) <= numpy < (3, 0), minor
        assert "d2l" not in pinned, "d2l's own pins (numpy 1.23.5, ...) do not install on 3.12"
    assert all("==" in r for r in _every_requirement())


def test_markers_are_ones_the_set_up_evaluates():
    """Every marker is a python_version comparison (tutorial/install/pins.py refuses others),
    and each package has exactly one pin for each supported Python."""
    (_, low), (_, high) = course_pins.SUPPORTED
    for minor in range(low, high + 1):
        names = [course_pins.name(r) for r in _every_requirement()
                 if course_pins.applies(r, (3, minor))]
        assert len(names) == len(set(names)), minor


def test_environment_yml_mirrors_pyproject():
    python, env_pins = _environment_yml()
    version = tuple(int(p) for p in python.split("."))
    assert course_pins.supported(version)
    assert env_pins == _pyproject_pins(version)


def test_installed_metadata_matches_pyproject():
    """The editable install is current: what pip installed is what pyproject.toml says."""
    runtime = {k: v for k, v in _pyproject_pins(None).items() if k in pins()}
    assert runtime and runtime == {k: pins()[k] for k in runtime}


def test_supported_pythons_are_declared_once_and_agree():
    """pyproject.toml, the Makefile's check and the set-up name the same versions."""
    (_, low), (_, high) = course_pins.SUPPORTED
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == f">=3.{low},<3.{high + 1}"
    assert f"SUPPORTED := (3, {low}) <= sys.version_info[:2] <= (3, {high})" in \
        (ROOT / "Makefile").read_text()


def test_pip_check_reports_only_d2ls_stale_pins():
    """d2l is installed without its dependencies (pyproject.toml says why): `pip check` may
    name d2l's pins and its `jupyter` metapackage (the course installs JupyterLab and
    Notebook themselves), and, on numpy 2, MXNet's declared numpy < 2; nothing else."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True,
                          text=True)
    lines = [l for l in done.stdout.splitlines() if l.strip()]
    import numpy
    mxnet_numpy = ("mxnet 1.9.1 has requirement numpy<2.0.0,>1.16.0, but you have numpy "
                   f"{numpy.__version__}.")
    others = [l for l in lines if not l.startswith("d2l 1.0.3 ")
              and not (numpy.__version__ >= "2" and l == mxnet_numpy)]
    assert others == [] or others == ["No broken requirements found."], done.stdout
    named = {re.match(r"d2l 1.0.3 (?:has requirement|requires) ([\w-]+)", l).group(1).lower()
             for l in lines if l.startswith("d2l")}
    assert named <= {"numpy", "matplotlib", "pandas", "scipy", "requests",
                     "matplotlib-inline", "jupyter"}, named


def test_second_make_does_not_reinstall():
    """Once .venv is installed for the current pins, `make test` goes straight to the tests."""
    import shutil
    import subprocess

    stamp = ROOT / ".venv" / ".installed"
    if shutil.which("make") is None or not stamp.exists():
        import pytest
        pytest.skip("runs inside the .venv that make created")
    if stamp.stat().st_mtime < (ROOT / "pyproject.toml").stat().st_mtime:
        import pytest
        pytest.skip("pyproject.toml changed since the last install: make will re-install once")
    plan = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout
    assert "pytest" in plan and "tutorial.install.mxnet_build install" not in plan
    pyproject = ROOT / "pyproject.toml"
    before = pyproject.stat()
    pyproject.touch()
    try:
        plan = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
        assert "tutorial.install.mxnet_build install" in plan
    finally:        # its time back: every environment's stamp (.venv-python3.13's too) stays valid
        import os
        os.utime(pyproject, ns=(before.st_atime_ns, before.st_mtime_ns))
