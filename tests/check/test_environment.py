"""One source of truth for the pins: pyproject.toml, mirrored by environment.yml."""

import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:     # Python < 3.11: the same parser, as pytest's own dependency
    import tomli as tomllib

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
    assert tuple(int(p) for p in pinned["numpy"].split(".")[:2]) < (1, 24), \
        "numpy >= 1.24 breaks `import mxnet` (np.bool)"


def test_environment_yml_mirrors_pyproject():
    python, env_pins = _environment_yml()
    assert python == "3.11"
    assert env_pins == _pyproject_pins()


def test_installed_metadata_matches_pyproject():
    """The editable install is current: what pip installed is what pyproject.toml says."""
    runtime = {k: v for k, v in _pyproject_pins().items() if k in pins()}
    assert runtime and runtime == {k: pins()[k] for k in runtime}


def test_python_upper_bound_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "<3.12" in project["requires-python"]


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
    assert "pytest" in plan and "tutorial.gpu_setup install" not in plan
    (ROOT / "pyproject.toml").touch()
    try:
        plan = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
        assert "tutorial.gpu_setup install" in plan
    finally:
        stamp.touch()
