#!/usr/bin/env bash
# `make test-arm64`: the course's real set-up on arm64 Linux, emulated on this x86-64 machine.
#
# One idea: an arm64 Debian 12 (bookworm, Python 3.11) made with debootstrap and run through
# qemu-user-static (binfmt_misc), holding a fresh clone of the current commit; inside it
# (chroot) run `make selfcheck HOROVOD=0`, which creates its own .venv from PyPI's aarch64
# wheels, a bare `python -c "import mxnet"`, one notebook under nbval in fast mode, as the
# machine is and under NUMERIC_ALT (as `make test` does), and the arch tests
# (tests/install/test_arch.py, and tests/notebooks/test_numeric_configs.py: each arm64 numeric
# configuration of tutorial/install/arch.py changes the bits). Prints the time of each step.
#
# Needs root (apt-get, debootstrap, chroot, mounts) and Debian's or Ubuntu's apt. Installs
# qemu-user-static, binfmt-support and debootstrap when missing. The root file system is kept
# in ~/.cache/tutorial/arm64-bookworm (ARM64_ROOTFS moves it; delete it to start over), so a
# second run skips debootstrap; pip's cache inside it keeps the wheels. Only committed work
# is tested: the clone is of HEAD. Horovod is left out (HOROVOD=0): its C++ build needs a
# compiler in the root file system and takes about 3 CPU-minutes natively, many times that
# under emulation. Network: Debian's mirror (debootstrap) and PyPI (pip), nothing else.
#
#   make test-arm64                              # or: sudo bash tools/arm64.sh
#   NOTEBOOK=notebooks/00_setup.ipynb make test-arm64
set -euo pipefail

ROOTFS=${ARM64_ROOTFS:-${XDG_CACHE_HOME:-$HOME/.cache}/tutorial/arm64-bookworm}
NOTEBOOK=${NOTEBOOK:-notebooks/01_sgd.ipynb}
PACKAGES=python3,python3-venv,make,git,ca-certificates
CHROOT_WHAT="arm64 emulated on $(uname -m)"
# timed, root_fs, clone, mounts, finish, inside: shared with tools/debian_testing.sh
# shellcheck source=tools/chroot_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/chroot_lib.sh"

need_root test-arm64

host_tools() {
    debootstrap_tool
    if ! command -v qemu-aarch64-static >/dev/null || ! command -v update-binfmts >/dev/null; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static binfmt-support
    fi
    [ "$(uname -m)" = aarch64 ] && return 0         # a real arm64 machine: nothing to emulate
    mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || {
        echo "binfmt_misc cannot run arm64 programs here (no /proc/sys/fs/binfmt_misc/qemu-aarch64)"; exit 1; }
}

trap finish EXIT

NBVAL=".venv/bin/python -m pytest -q -p no:cacheprovider --nbval $NOTEBOOK --sanitize-with tests/nbval_sanitize.cfg"

timed "host tools (qemu-user-static, debootstrap)" host_tools
timed "arm64 Debian 12 root file system" root_fs --arch=arm64 bookworm
echo "arm64 userland: $(chroot "$ROOTFS" uname -m), $(chroot "$ROOTFS" python3 --version)"
timed "clone of $COMMIT" clone
mounts
# The one line a learner on arm64 Debian or Ubuntu runs first (README): the BLAS and OpenMP
# that MXNet's aarch64 wheel needs and does not bundle (tutorial/install/arm64_blas.py).
timed "apt-get install the BLAS MXNet's wheel needs" inside \
    'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
     $(python3 -c "from tutorial.install.arm64_blas import PACKAGES; print(*PACKAGES)") >/dev/null'
timed "set-up and make selfcheck HOROVOD=0" inside "make selfcheck HOROVOD=0"
timed "bare python -c 'import mxnet'" inside \
    ".venv/bin/python -c 'import mxnet, numpy; print(\"mxnet\", mxnet.__version__, \"numpy\", numpy.__version__)'"
timed "nbval $NOTEBOOK" inside "TUTORIAL_FAST=1 $NBVAL"
timed "nbval $NOTEBOOK under NUMERIC_ALT" inside \
    "env \$(.venv/bin/python -m tutorial.install.arch numeric alt) TUTORIAL_FAST=1 $NBVAL"
timed "arch tests and numeric configurations" inside \
    "TUTORIAL_FAST=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/install/test_arch.py tests/notebooks/test_numeric_configs.py"

echo "== arm64 ($(chroot "$ROOTFS" uname -m)): all steps passed"
