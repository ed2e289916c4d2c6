"""Which MXNet build `make` installs, and the pins it reads; fast (tests/install/test_gpu_install.py
installs the GPU build for real)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:      # Python 3.10: pip's own copy of the same reader
    from pip._vendor import tomli as tomllib

import pytest

from tutorial.install import arch, mxnet_build, pins

ROOT = Path(__file__).resolve().parent.parent.parent


def _fake_smi(folder, script):
    folder.mkdir(exist_ok=True)
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + script + "\n")
    smi.chmod(0o755)
    return str(folder)


WORKING = 'echo "GPU 0: NVIDIA A10G (UUID: GPU-0123)"'
BROKEN = ('echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA '
          'driver."; exit 9')


def _want(gpu, path):
    """`python -m tutorial.install.mxnet_build want`, as the Makefile runs it."""
    env = {"PATH": path, "GPU": gpu}
    done = subprocess.run([sys.executable, "-m", "tutorial.install.mxnet_build", "want"], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    return done.returncode, done.stdout.strip(), done.stderr.strip()


@pytest.mark.parametrize("gpu, smi, build", [
    ("", WORKING, "gpu"),       # a driver that lists a GPU: the GPU build
    ("", BROKEN, "cpu"),        # nvidia-smi without a working driver
    ("", None, "cpu"),          # no nvidia-smi at all
    ("0", WORKING, "cpu"),      # GPU=0 wins over the driver
    ("1", None, "gpu"),         # GPU=1 wins over its absence
    ("1", BROKEN, "gpu"),
    (" yes ", None, "gpu"),
    ("off", WORKING, "cpu"),
])
def test_build_follows_the_switch_then_the_driver(tmp_path, gpu, smi, build):
    path = _fake_smi(tmp_path / "bin", smi) if smi else str(tmp_path / "empty")
    assert mxnet_build.wanted_build({"GPU": gpu, "PATH": path}, machine="x86_64")[0] == build
    if build == "cpu" or arch.gpu_build_refusal() is None:     # this machine has a GPU wheel
        assert _want(gpu, path) == (0, build, "")


@pytest.mark.parametrize("machine", ["aarch64", "arm64"])
def test_arm64_never_picks_the_gpu_build_and_refuses_gpu_1(tmp_path, machine):
    path = _fake_smi(tmp_path / "bin", WORKING)
    build, why = mxnet_build.wanted_build({"GPU": "", "PATH": path}, machine=machine)
    assert build == "cpu" and why.startswith("nvidia-smi lists a GPU, but the GPU build")
    assert mxnet_build.wanted_build({"GPU": "0", "PATH": path}, machine=machine)[0] == "cpu"
    with pytest.raises(ValueError, match=r"^GPU=1: the GPU build of MXNet \(mxnet-cu117 "
                       r"1\.9\.1\) has wheels for x86-64 Linux only, not for aarch64"):
        mxnet_build.wanted_build({"GPU": "1", "PATH": path}, machine=machine)


def test_gpu_1_on_arm64_stops_make_with_that_sentence(tmp_path):
    """`make` runs `want` through the base interpreter; on arm64 it exits 1 with the reason."""
    if arch.gpu_build_refusal() is None:
        pytest.skip("this machine has a GPU wheel: tests/install/test_arch.py checks the refusal")
    code, out, err = _want("1", str(tmp_path))
    assert code == 1 and out == "" and "has wheels for x86-64 Linux only" in err


def test_an_unknown_switch_is_refused_with_the_accepted_values(tmp_path):
    code, out, err = _want("maybe", str(tmp_path))
    assert code != 0 and out == "" and "GPU must be 1, 0 or unset, not 'maybe'" in err


@pytest.mark.parametrize("python", [(3, 10), (3, 12), (3, 13), (3, 14)])
def test_pins_are_read_as_tomllib_and_packaging_read_them(python):
    """The set-up's own reader (no tomllib, no packaging: it runs under any python3) gives
    the requirements that tomllib reads and packaging's markers select for ``python``."""
    from packaging.requirements import Requirement
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    env = {"python_version": "%d.%d" % python, "python_full_version": "%d.%d.0" % python}

    def selected(reqs):
        return [str(Requirement(r)).split(";")[0] for r in reqs
                if Requirement(r).marker is None or Requirement(r).marker.evaluate(env)]
    reqs = pins.requirements(python=python)
    assert reqs["course"] == selected(data["project"]["dependencies"]
                                      + data["project"]["optional-dependencies"]["test"])
    assert reqs["cpu"] == selected(data["tool"]["tutorial"]["cpu"]["requires"]) == ["mxnet==1.9.1"]
    assert reqs["gpu"] == selected(data["tool"]["tutorial"]["gpu"]["requires"])


def test_gpu_pins_are_exact_and_name_the_cuda_11_build():
    pins_ = dict(pins.pin(r) for r in pins.requirements()["gpu"])
    assert pins_["mxnet-cu117"] == "1.9.1"
    assert pins_["nvidia-cudnn-cu11"].startswith("8."), "libmxnet.so needs libcudnn.so.8"
    assert all(name.endswith("-cu11") for name in pins_ if name.startswith("nvidia-"))


def test_ldd_output_is_read_into_missing_libraries_and_symbols():
    text = ("\tlibcudnn.so.8 => /v/nvidia/cudnn/lib/libcudnn.so.8 (0x00007f0e)\n"
            "\tlibcuda.so.1 => not found\n"
            "undefined symbol: cuLaunchKernel\t(/v/mxnet/libmxnet.so)\n"
            "undefined symbol: cudnnCreate\t(/v/mxnet/libmxnet.so)\n")
    assert mxnet_build.parse_ldd(text) == (["libcuda.so.1"], ["cuLaunchKernel", "cudnnCreate"])


def test_mxnet_here_resolves_every_library_but_the_drivers():
    assert mxnet_build.check() == []


def _plan(venv, gpu):
    """What `make lab` would run for the venv folder ``venv`` (make -n runs nothing)."""
    env = {k: v for k, v in os.environ.items() if k != "GPU"}
    return subprocess.run(["make", "-n", "lab", f"VENV={venv}", f"GPU={gpu}"], cwd=ROOT,
                          env=env, capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_reinstalls_when_the_switch_asks_for_the_other_build(tmp_path):
    venv = tmp_path / "venv"
    assert "tutorial.install.mxnet_build install gpu" in _plan(venv, 1)    # no stamp yet
    venv.mkdir()
    stamp = venv / ".installed"
    for recorded, gpu, install in [("cpu", 0, None), ("cpu", 1, "gpu"),
                                   ("gpu", 1, None), ("gpu", 0, "cpu"), ("", 0, None)]:
        stamp.write_text(recorded + "\n")
        os.utime(stamp, (1e10, 1e10))    # newer than pyproject.toml
        plan = _plan(venv, gpu)
        assert ("tutorial.install.mxnet_build install" in plan) == (install is not None), (recorded, gpu)
        if install:
            assert f"tutorial.install.mxnet_build install {install}" in plan
