"""The set-up's choices by machine (tutorial/install/arch.py), for x86-64 and arm64 on any machine.

``make test-arm64`` (tools/arm64.sh) runs the real set-up under emulation; these check the
choices themselves, and that ``python -m tutorial.install.arch`` prints what the Makefile passes on.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tutorial.install import arch

ROOT = Path(__file__).resolve().parent.parent.parent
# Names of x86 kernels and instruction sets that OpenBLAS and oneDNN accept.
X86_NAMES = re.compile(r"SandyBridge|Haswell|SkylakeX|Cooperlake|Zen|AVX|SSE", re.I)


def test_only_x86_64_gets_the_gpu_build():
    assert arch.gpu_build_refusal("x86_64") is None
    for machine in ("aarch64", "arm64", "ppc64le"):
        refusal = arch.gpu_build_refusal(machine)
        assert refusal.startswith("the GPU build of MXNet (mxnet-cu117 1.9.1) has wheels for "
                                  "x86-64 Linux only, not for ")
        assert "GPU=0" in refusal and "MXNET=preinstalled" in refusal


def test_macos_and_linux_spellings_of_arm64_are_one_machine():
    assert arch.machine_name("arm64") == arch.machine_name("aarch64") == "aarch64"
    assert arch.machine_name("x86_64") == "x86_64"
    assert arch.numeric_settings("alt", "arm64") == arch.numeric_settings("alt", "aarch64")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_second_configuration_moves_gluon_off_onednn(machine):
    alt = arch.numeric_settings("alt", machine)
    assert alt["MXNET_MKLDNN_ENABLED"] == "0" and alt["OMP_NUM_THREADS"] == "1"
    assert arch.numeric_settings("third", machine) not in ({}, alt)


def test_arm64_names_no_x86_kernel_and_no_runtime_openblas_choice():
    for name in ("alt", "third"):
        settings = arch.numeric_settings(name, "aarch64")
        assert not X86_NAMES.search(" ".join(settings.values())), settings
        # The aarch64 wheel's OpenBLAS is linked in statically, for one core, and never
        # reads OPENBLAS_CORETYPE; its oneDNN knows no ISA level below SVE_512.
        assert "OPENBLAS_CORETYPE" not in settings and "DNNL_MAX_CPU_ISA" not in settings


def test_x86_64_keeps_its_measured_kernels():
    assert arch.numeric_settings("alt", "x86_64")["OPENBLAS_CORETYPE"] == "SandyBridge"
    assert arch.numeric_settings("third", "x86_64")["DNNL_MAX_CPU_ISA"] == "AVX2"


def test_an_unknown_machine_is_named_in_the_error():
    with pytest.raises(KeyError, match="no numeric configurations for riscv64"):
        arch.numeric_settings("alt", "riscv64")


@pytest.mark.parametrize("name", ["alt", "third"])
def test_the_command_prints_this_machines_settings_for_make(name):
    done = subprocess.run([sys.executable, "-m", "tutorial.install.arch", "numeric", name], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    printed = dict(pair.split("=", 1) for pair in done.stdout.split())
    assert printed == arch.numeric_settings(name)


def test_the_command_refuses_other_arguments():
    done = subprocess.run([sys.executable, "-m", "tutorial.install.arch", "numeric", "fourth"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1 and "usage: python -m tutorial.install.arch numeric" in done.stderr
