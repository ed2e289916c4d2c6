"""One source of truth for the pins: pyproject.toml, mirrored by environment.yml."""

import re
from pathlib import Path

import tomllib

from tutorial.check.environment import pins

ROOT = Path(__file__).resolve().parents[2]


def _pyproject_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + [r for extra in project["optional-dependencies"].values()
                                      for r in extra]
    return dict(re.match(r"^([\w.\-]+)==(\S+)$", r.split("#")[0].strip()).groups() for r in reqs)


def _environment_yml():
    text = (ROOT / "environment.yml").read_text()
    python = re.search(r"^\s*-\s*python=(\S+)", text, re.M).group(1)
    pip = dict(re.findall(r"^\s+-\s+([\w.\-]+)==(\S+)\s*$", text, re.M))
    return python, pip


def test_every_dependency_is_pinned_exactly():
    pinned = _pyproject_pins()
    assert pinned["mxnet"] == "1.9.1"
    assert (1, 24) <= tuple(int(p) for p in pinned["numpy"].split(".")[:2]) < (2, 0), \
        "mxnet 1.9.1 needs numpy < 2; from 1.24 on, tutorial/install/numpy_compat.py restores np.bool & co."
    assert "d2l" not in pinned, "d2l's own pins (numpy 1.23.5, ...) do not install on 3.12"


def test_environment_yml_mirrors_pyproject():
    python, env_pins = _environment_yml()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    low, high = re.match(r">=3\.(\d+),<3\.(\d+)", project["requires-python"]).groups()
    assert int(low) <= int(python.split(".")[1]) < int(high)
    assert env_pins == _pyproject_pins()


def test_installed_metadata_matches_pyproject():
    """The editable install is current: what pip installed is what pyproject.toml says."""
    runtime = {k: v for k, v in _pyproject_pins().items() if k in pins()}
    assert runtime and runtime == {k: pins()[k] for k in runtime}


def test_supported_pythons_are_declared_once_and_agree():
    """pyproject.toml, the Makefile's check and the self-check name the same versions."""
    from tutorial.check.environment import SUPPORTED_PYTHONS
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11,<3.14"
    assert SUPPORTED_PYTHONS == ((3, 11), (3, 13))
    assert "SUPPORTED := (3, 11) <= sys.version_info[:2] <= (3, 13)" in \
        (ROOT / "Makefile").read_text()


def test_pip_check_reports_only_d2ls_stale_pins():
    """d2l is installed without its dependencies (pyproject.toml says why): `pip check` may
    name d2l's pins and its `jupyter` metapackage (the course installs JupyterLab and
    Notebook themselves), and nothing else."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True,
                          text=True)
    lines = [l for l in done.stdout.splitlines() if l.strip()]
    others = [l for l in lines if not l.startswith("d2l 1.0.3 ")]
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
