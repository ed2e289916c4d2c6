"""What the set-up chooses by machine (``uname -m``): the course runs on x86-64 and arm64 Linux.

Two choices depend on the processor, and both are pure functions of ``machine`` here, so
they are tested on any machine (``tests/install/test_arch.py``); ``make test-arm64`` runs the
set-up for real in an emulated arm64 Debian (``tools/arm64.sh``).

* **The GPU build.** ``mxnet-cu117`` 1.9.1 has Linux wheels for x86-64 only. On another
  machine ``GPU=1`` is refused in one sentence, and a GPU that ``nvidia-smi`` lists does
  not choose the GPU build (an NVIDIA Jetson or Grace machine gets the CPU build).
* **The numeric configurations** under which nbval runs again (``make test``, ``make
  test-numerics``; tests/README.md). Each setting must change MXNet's numerics on that
  machine (``tests/notebooks/test_numeric_configs.py`` trains a small net and compares the
  bits). x86-64: OpenBLAS is a separate library built for every x86 core
  (``OPENBLAS_CORETYPE`` picks one) and oneDNN has x86 ISA levels (``DNNL_MAX_CPU_ISA``).
  On aarch64 the BLAS is the distribution's OpenBLAS, standing in for the Arm Performance
  Libraries the wheel was built against (``tutorial/install/arm64_blas.py``), and the wheel's oneDNN
  knows only ``SVE_512`` and ``ALL``, so there the configurations switch oneDNN off, then also accumulate in float64
  (``MXNET_SAFE_ACCUMULATION``, which changes the bits on both machines once oneDNN is off).

>>> gpu_build_refusal("x86_64") is None
True
>>> numeric_settings("alt", "aarch64")["MXNET_MKLDNN_ENABLED"]
'0'
"""

import platform
import sys

# The machines (platform.machine()) that have a wheel of mxnet-cu117 1.9.1 on PyPI.
GPU_WHEEL_MACHINES = ("x86_64",)
# arm64 spelled as Linux (aarch64) and as macOS (arm64) name it.
ARM64 = ("aarch64", "arm64")

# Only silences the log MXNet prints for every operator that falls back with oneDNN off.
_QUIET = {"MXNET_STORAGE_FALLBACK_LOG_VERBOSE": "0"}
NUMERIC = {
    "x86_64": {
        # Gluon's layers on OpenBLAS instead of oneDNN, OpenBLAS on its Sandybridge kernels.
        "alt": {"MXNET_MKLDNN_ENABLED": "0", "OPENBLAS_CORETYPE": "SandyBridge",
                "OMP_NUM_THREADS": "1", **_QUIET},
        "third": {"DNNL_MAX_CPU_ISA": "AVX2", "OMP_NUM_THREADS": "2"},
    },
    "aarch64": {
        # Gluon's layers on the wheel's one OpenBLAS instead of oneDNN, one thread.
        "alt": {"MXNET_MKLDNN_ENABLED": "0", "OMP_NUM_THREADS": "1", **_QUIET},
        # Also softmax and reductions accumulate float32 in float64 (MXNet's operators, so
        # it needs oneDNN off), two threads.
        "third": {"MXNET_MKLDNN_ENABLED": "0", "MXNET_SAFE_ACCUMULATION": "1",
                  "OMP_NUM_THREADS": "2", **_QUIET},
    },
}


def machine_name(machine=None):
    """``platform.machine()`` (or ``machine``), with macOS's ``arm64`` spelled ``aarch64``."""
    machine = platform.machine() if machine is None else machine
    return "aarch64" if machine in ARM64 else machine


def gpu_build_refusal(machine=None):
    """None when the GPU build can be installed on ``machine``, else why not (one sentence)."""
    machine = machine_name(machine)
    if machine in GPU_WHEEL_MACHINES:
        return None
    return (f"the GPU build of MXNet (mxnet-cu117 1.9.1) has wheels for x86-64 Linux only, "
            f"not for {machine}: use the CPU build (GPU=0 or unset), or on an NVIDIA "
            f"machine NVIDIA's MXNet container with MXNET=preinstalled (README, 'GPU notes')")


def numeric_settings(name, machine=None):
    """The variables of the numeric configuration ``name`` ('alt' or 'third') on ``machine``."""
    machine = machine_name(machine)
    if machine not in NUMERIC:
        raise KeyError(f"no numeric configurations for {machine}: the course knows "
                       f"{', '.join(NUMERIC)} (tutorial/install/arch.py)")
    return dict(NUMERIC[machine][name])


def main(argv=None):
    """``python -m tutorial.install.arch numeric alt``: the settings as ``VAR=value ...`` for make."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "numeric" or args[1] not in ("alt", "third"):
        sys.exit("usage: python -m tutorial.install.arch numeric alt|third")
    try:
        print(" ".join(f"{k}={v}" for k, v in numeric_settings(args[1]).items()))
    except KeyError as e:
        sys.exit(e.args[0])


if __name__ == "__main__":
    main()
