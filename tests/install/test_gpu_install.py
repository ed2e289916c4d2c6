"""The GPU build loads on a machine without a GPU: every library resolves but the driver's.

Slow: it installs the course with the GPU build into a new virtual environment, as
`make lab GPU=1` does (2.2 GB of wheels, 4.5 GB installed), then switches it back to the
CPU build as `make lab GPU=0` does. `make test` leaves it out; run it with

    .venv/bin/python -m pytest -q -m install tests/install/test_gpu_install.py
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutorial.install import mxnet_build

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = [pytest.mark.install, pytest.mark.slow,
              pytest.mark.skipif(sys.platform != "linux" or shutil.which("ldd") is None,
                                 reason="the CUDA wheels are for Linux; needs ldd")]
NO_DRIVER = "OSError: libcuda.so.1: cannot open shared object file: No such file or directory"


def _env(**extra):
    """No LD_LIBRARY_PATH and no GPU switch: only what the install wrote can help."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "GPU")}
    return {**env, **extra}


def _run(*args, check=True, env=None):
    return subprocess.run([str(a) for a in args], cwd=ROOT, env=env or _env(),
                          capture_output=True, text=True, check=check)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpu") / "venv"
    _run(sys.executable, "-m", "venv", folder)
    yield folder / "bin" / "python"
    shutil.rmtree(folder, ignore_errors=True)     # 4.5 GB


def _install(python, build):
    start = time.monotonic()
    done = _run(python, "-m", "tutorial.install.mxnet_build", "install", build, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(f"install {build}: {time.monotonic() - start:.0f} s")


def _site(python):
    return Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())


def _import_mxnet(python):
    return _run(python, "-c", "import mxnet; print(mxnet.__version__, mxnet.context.num_gpus())",
                check=False)


CUDA_LIBRARIES = ["libcudart.so.11.0", "libcublas.so.11", "libcublasLt.so.11", "libcudnn.so.8",
                  "libcufft.so.10", "libcurand.so.10", "libcusolver.so.11", "libcusparse.so.11",
                  "libnccl.so.2", "libnvrtc.so.11.2", "libnvToolsExt.so.1"]


def _decoys(folder, site):
    """A folder of wrong libraries under the pinned names, as a foreign CUDA would put on
    LD_LIBRARY_PATH (any small library will do: the loader must not even look there)."""
    folder.mkdir()
    wrong = site / "nvidia" / "nvtx" / "lib" / "libnvToolsExt.so.1"
    for name in CUDA_LIBRARIES + [p.name for p in (site / "nvidia" / "cudnn" / "lib").glob("*")]:
        if name != wrong.name:
            shutil.copy(wrong, folder / name)
    return str(folder)


def test_gpu_build_resolves_every_library_but_the_drivers(venv, tmp_path):
    _install(venv, "gpu")
    site = _site(venv)
    lib = site / "mxnet" / "libmxnet.so"
    cudnn = sorted((site / "nvidia" / "cudnn" / "lib").glob("libcudnn_*.so.8"))
    assert len(cudnn) == 6, cudnn
    # Plain ldd: what the course sets is in the libraries themselves. Then once more with
    # decoys on LD_LIBRARY_PATH: the pinned libraries must still win.
    for env in (_env(), _env(LD_LIBRARY_PATH=_decoys(tmp_path / "decoys", site))):
        text = _run("ldd", "-r", lib, check=False, env=env).stdout
        missing, undefined = mxnet_build.parse_ldd(text)
        driver_here = "libcuda.so.1" not in missing
        assert missing == ([] if driver_here else ["libcuda.so.1"]), text
        # Without the driver only its own API is undefined (cuInit, cuLaunchKernel, ...):
        # every other symbol libmxnet.so uses is in the pinned libraries, not only their names.
        assert all(re.match(r"cu[A-Z]", s) for s in undefined), text
        assert driver_here or undefined, text
        for name in CUDA_LIBRARIES:
            found = re.search(rf"^\s*{re.escape(name)} => (\S+)", text, re.M)
            assert found and Path(found.group(1)).resolve().is_relative_to(
                (site / "nvidia").resolve()), f"{name} is not the pinned one:\n{text}"
        # cuDNN opens its sub-libraries at run time; they resolve from its own folder.
        for sub in cudnn:
            text = _run("ldd", "-r", sub, check=False, env=env).stdout
            assert mxnet_build.parse_ldd(text) == ([], []), text
            assert all(Path(p).resolve().is_relative_to((site / "nvidia").resolve())
                       for p in re.findall(r"(\S*/nvidia/\S+)", text)), text
            assert "decoys" not in text, text
    assert _run(venv, "-m", "tutorial.install.mxnet_build", "check").returncode == 0

    done = _import_mxnet(venv)
    if driver_here:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode != 0 and done.stderr.strip().splitlines()[-1] == NO_DRIVER, \
            done.stderr


def test_switching_back_gives_the_cpu_build(venv):
    _install(venv, "cpu")
    have = _run(venv, "-m", "pip", "list", "--format=freeze").stdout.lower()
    assert "mxnet==1.9.1" in have and "mxnet-cu117" not in have and "nvidia-" not in have
    done = _import_mxnet(venv)
    assert done.returncode == 0 and done.stdout.split() == ["1.9.1", "0"], done.stderr
    assert _run(venv, "-m", "tutorial.install.mxnet_build", "check").returncode == 0
