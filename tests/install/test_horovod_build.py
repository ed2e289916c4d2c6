"""How set-up decides to build, install or keep Horovod, and where its wheel is cached.

pip is replaced by a stand-in that records its calls (and 'builds' an empty wheel), so
these tests check the decisions and the cache in milliseconds, not a real 3-minute build.
"""

import os
import shutil
import subprocess
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:      # Python 3.10: pip's own copy of the same reader
    from pip._vendor import tomli as tomllib

import pytest

from tutorial.install import horovod_build, wheel_cache

ROOT = Path(__file__).resolve().parent.parent.parent


class FakePip:
    """Records pip's arguments; ``pip wheel ... -w DIR`` leaves a wheel in DIR."""

    def __init__(self, fail=()):
        self.calls, self.fail = [], set(fail)

    def __call__(self, *args, env=None):
        args = [str(a) for a in args]
        self.calls.append((args, env))
        if args[0] in self.fail:
            return 1
        if args[0] == "wheel":
            out = Path(args[args.index("-w") + 1])
            (out / "horovod-0.28.1-cp311-cp311-linux_x86_64.whl").write_text("")
        return 0

    def commands(self):
        return [args[0] for args, _ in self.calls]


@pytest.fixture
def fake(monkeypatch):
    def make(fail=(), works=True):
        pip = FakePip(fail)
        monkeypatch.setattr(horovod_build, "_pip", pip)
        monkeypatch.setattr(horovod_build, "version_of",
                            lambda dist: "1.9.1" if dist == "mxnet" else None)
        monkeypatch.setattr(horovod_build, "horovod_problem",
                            lambda: None if works else "`import horovod.mxnet` fails (boom)")
        # the build and install steps on any Python (3.14 has its own test, below)
        monkeypatch.setattr(horovod_build, "unsupported", lambda: None)
        monkeypatch.setattr(horovod_build, "compiler_major", lambda: 12)   # advice: FIX
        return pip
    return make


@pytest.mark.parametrize("installed, wheel, action", [
    (None, None, "build"),                     # first set-up
    (None, "h.whl", "install"),                # .venv deleted, the cache kept
    ("KEY", None, "done"),                     # nothing to do
    ("OTHER", "h.whl", "install"),             # MXNet's build changed: its own wheel
    ("OTHER", None, "build"),
])
def test_next_action_follows_the_installed_key_then_the_cache(installed, wheel, action):
    assert horovod_build.next_action(installed, "KEY", wheel) == action


def test_a_second_set_up_after_deleting_the_venv_installs_without_building(fake, tmp_path):
    pip = fake()
    cache, venv = tmp_path / "cache", tmp_path / "venv"
    venv.mkdir()
    assert horovod_build.install("cpu", cache=cache, prefix=venv)
    assert pip.commands() == ["install", "wheel", "install", "install"]   # build reqs, build
    args, env = pip.calls[1]
    assert args[0] == "wheel" and "horovod==0.28.1" in args
    assert {"--no-build-isolation", "--no-deps", "--no-cache-dir"} <= set(args)
    # --no-cache-dir: pip's cache could hold another build's wheel
    assert all(env[k] == "1" for k in horovod_build.BUILD_ENV)
    key = (venv / horovod_build.MARKER).read_text().strip()
    assert [p.name for p in cache.iterdir()] == [key]          # no scratch folder left

    shutil.rmtree(venv)                                         # rm -rf .venv
    venv.mkdir()
    pip = fake()
    assert horovod_build.install("cpu", cache=cache, prefix=venv)
    assert "wheel" not in pip.commands()
    assert str(cache / key / "horovod-0.28.1-cp311-cp311-linux_x86_64.whl") in pip.calls[0][0]


def test_an_installed_horovod_of_the_same_build_is_left_alone(fake, tmp_path, monkeypatch):
    pip = fake()
    key = horovod_build.this_key("0.28.1")
    (tmp_path / horovod_build.MARKER).write_text(key + "\n")
    monkeypatch.setattr(horovod_build, "version_of",
                        lambda dist: {"mxnet": "1.9.1", "horovod": "0.28.1"}.get(dist))
    assert horovod_build.install("cpu", cache=tmp_path / "cache", prefix=tmp_path)
    assert pip.calls == []


def test_a_failed_build_says_why_and_how_to_fix_it_and_caches_nothing(fake, tmp_path, capsys):
    fake(fail={"wheel"})
    assert horovod_build.install("cpu", cache=tmp_path / "cache", prefix=tmp_path) is False
    out = capsys.readouterr().out
    assert "Horovod was NOT installed: pip could not build it" in out
    assert "make horovod" in out and "build-essential" in out
    assert not any(p.glob("*.whl") for p in (tmp_path / "cache").iterdir())
    assert not (tmp_path / horovod_build.MARKER).exists()


def test_a_wheel_that_installs_but_does_not_import_is_reported(fake, tmp_path, capsys):
    fake(works=False)
    assert horovod_build.install("cpu", cache=tmp_path / "cache", prefix=tmp_path) is False
    assert "`import horovod.mxnet` fails (boom)" in capsys.readouterr().out


def test_the_cache_is_outside_the_venv_and_can_be_moved():
    assert wheel_cache.cache_root({"HOME": "/h"}) == Path.home() / ".cache/tutorial/wheels"
    assert wheel_cache.cache_root({"XDG_CACHE_HOME": "/x"}) == Path("/x/tutorial/wheels")
    assert wheel_cache.cache_root({"XDG_CACHE_HOME": "/x", "TUTORIAL_WHEEL_CACHE": "/w"}) \
        == Path("/w")


def test_the_key_tells_builds_of_mxnet_pythons_and_machines_apart():
    keys = {horovod_build.cache_key("0.28.1", dist, "1.9.1", tag, machine)
            for dist in ("mxnet", "mxnet-cu117") for tag in ("cp311", "cp312")
            for machine in ("x86_64", "aarch64")}
    assert len(keys) == 8


def test_the_gpu_build_adds_nccl_and_nothing_else():
    cpu, gpu = horovod_build.build_env("cpu"), horovod_build.build_env("gpu")
    assert gpu == dict(cpu, HOROVOD_GPU_OPERATIONS="NCCL")
    assert cpu["HOROVOD_WITHOUT_MPI"] == "1" and cpu["HOROVOD_WITH_GLOO"] == "1"
    with pytest.raises(ValueError, match="build must be 'cpu' or 'gpu'"):
        horovod_build.build_env("rocm")


def test_pins_are_read_as_tomllib_reads_them():
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["tutorial"]["horovod"]
    assert horovod_build.pins() == (table["requires"][0], table["build"])
    assert horovod_build.pins()[0] == "horovod==0.28.1"
    assert any(r.startswith("cmake==3.") for r in table["build"]), "CMake 4 cannot build it"


def make_env():
    """This environment without what an enclosing make passes down: CI runs the tests inside
    `make unit HOROVOD=0`, and make exports command-line variables to its recipes."""
    return {k: v for k, v in os.environ.items()
            if k not in ("GPU", "HOROVOD", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_installs_horovod_after_the_course(tmp_path):
    env = make_env()
    plan = subprocess.run(["make", "-n", "lab", f"VENV={tmp_path / 'venv'}", "GPU=0"], cwd=ROOT,
                          env=env, capture_output=True, text=True, check=True).stdout
    course = plan.index("tutorial.install.mxnet_build install cpu")
    assert plan.index("tutorial.install.horovod_build install cpu") > course


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_horovod_0_leaves_it_out_and_says_so(tmp_path, monkeypatch):
    env = make_env()
    plan = subprocess.run(["make", "-n", "unit", f"VENV={tmp_path / 'venv'}", "GPU=0",
                           "HOROVOD=0"], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True).stdout
    assert "tutorial.install.horovod_build skip" in plan and "horovod_build install" not in plan
    monkeypatch.setattr(horovod_build, "version_of", lambda dist: None)
    assert not horovod_build.skipped_on_request(prefix=tmp_path)       # nothing noted yet
    horovod_build.skip(prefix=tmp_path)
    assert horovod_build.skipped_on_request(prefix=tmp_path)
    monkeypatch.setattr(horovod_build, "version_of", lambda dist: "0.28.1")
    assert not horovod_build.skipped_on_request(prefix=tmp_path)       # installed later


def test_on_python_3_14_set_up_leaves_horovod_out_saying_why(tmp_path, monkeypatch, capsys):
    """Horovod 0.28.1 crashed on 3.14 (Debian testing): no 3-minute build that cannot work,
    a sentence instead, and a note that makes its tests and cells skip with that sentence."""
    from tutorial.install import horovod_support
    monkeypatch.setattr(horovod_build, "unsupported",
                        lambda: horovod_support.unsupported((3, 14)))
    monkeypatch.setattr(horovod_build, "version_of", lambda dist: None)
    monkeypatch.setattr(horovod_build, "build_wheel",
                        lambda *a, **k: pytest.fail("no build where Horovod cannot work"))
    assert horovod_build.install("cpu", cache=tmp_path / "cache", prefix=tmp_path) is False
    said = capsys.readouterr().out
    assert "Horovod: left out, Horovod 0.28.1" in said and "Python 3.14" in said
    why = horovod_build.left_out(prefix=tmp_path)
    assert why is not None and "Python 3.14" in why and "segmentation fault" in why
    assert not horovod_build.skipped_on_request(prefix=tmp_path)   # not HOROVOD=0's reason
    horovod_build.skip(prefix=tmp_path)
    assert "HOROVOD=0" in horovod_build.left_out(prefix=tmp_path)


def test_a_failed_build_on_gcc_13_or_newer_gets_advice_for_that_compiler(tmp_path, monkeypatch):
    from tutorial.install import horovod_support
    fake = tmp_path / "g++"                 # a compiler that answers like Debian testing's
    fake.write_text('#!/bin/sh\n[ "$1" = -dumpversion ] && echo 16 || '
                    'echo "g++ (Debian 16.2.0-1) 16.2.0"\n')
    fake.chmod(0o755)
    assert horovod_support.compiler_major(str(fake)) == 16
    assert horovod_support.compiler_major(str(tmp_path / "none")) is None
    advice = horovod_support.fix_for(16)
    assert "GCC 16" in advice and "CXX=g++-12 make horovod" in advice
    assert "install a C++ compiler" not in advice
    assert horovod_support.fix_for(12) == horovod_support.FIX
    monkeypatch.setenv("CXX", str(fake))
    assert horovod_support.compiler_major() == 16          # CXX, as CMake reads it
