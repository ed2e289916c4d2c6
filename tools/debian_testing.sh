#!/usr/bin/env bash
# `make test-debian-testing`: the course's two commands where the machine's python3 is 3.14.
#
# One idea: a learner on Debian testing, whose python3 is 3.14, clones the course and runs
# `make test`. Here that machine is an amd64 Debian testing made with debootstrap (native,
# no emulation) holding a fresh clone of the current commit; inside it (chroot) `make test`
# runs exactly as the learner runs it: it makes its own .venv from PyPI, builds Horovod
# once from source, and runs the unit tests, the doctests, the browser tests and nbval over
# every notebook. Prints the time of each step; exits non-zero when `make test` fails.
#
# What the learner's system has, and nothing else: Debian's python3, python3-venv, make,
# git and ca-certificates (debootstrap, minbase), then with apt, as the learner would
# install them (README): g++ and python3-dev (Horovod's build), chromium (the browser
# tests, as .ci/run installs it), and iproute2 (`ip`: the several-machines tests build
# network namespaces, as root). Those tests run here too: the root file system is bound onto
# itself, so that `ip netns exec` finds / a mount point, as on a machine.
#
# Debian testing moves on: its python3 was 3.14 when this was written. The script prints
# the root file system's `python3 --version` and stops, saying so, when it is not
# DEBIAN_TESTING_PYTHON (3.14); delete the root file system to follow testing.
#
# Needs root (apt-get, debootstrap, chroot, mounts) and Debian's or Ubuntu's apt. The root
# file system is kept in ~/.cache/tutorial/debian-testing (DEBIAN_TESTING_ROOTFS moves it;
# delete it to start over), so a second run skips debootstrap; pip's cache and the Horovod
# wheel inside it are kept too. Only committed work is tested: the clone is of HEAD.
# Network: Debian's mirror (debootstrap, apt) and PyPI and npm (the set-up), nothing else.
#
#   make test-debian-testing                     # or: sudo bash tools/debian_testing.sh
#   UNIT_ARGS="tests/parallel" make test-debian-testing     # arguments for `make test`'s pytest
set -euo pipefail

ROOTFS=${DEBIAN_TESTING_ROOTFS:-${XDG_CACHE_HOME:-$HOME/.cache}/tutorial/debian-testing}
PYTHON_WANTED=${DEBIAN_TESTING_PYTHON:-3.14}
PACKAGES=python3,python3-venv,make,git,ca-certificates
# Installed with apt inside, as a learner installs them: apt resolves chromium's many
# dependencies (and installs its Recommends, as it would for the learner).
APT_PACKAGES="g++ python3-dev chromium iproute2"
CHROOT_WHAT="Debian testing, amd64"
# timed, root_fs, clone, mounts, finish, inside: shared with tools/arm64.sh
# shellcheck source=tools/chroot_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/chroot_lib.sh"

need_root test-debian-testing
[ "$(uname -m)" = x86_64 ] || {
    echo "tools/debian_testing.sh builds an amd64 root file system: run it on an x86-64 machine"; exit 1; }

python_version() {          # stop here when Debian testing's python3 is no longer 3.14
    local version
    version=$(chroot "$ROOTFS" python3 --version)
    echo "Debian testing's python3: $version"
    case "$version" in
        "Python $PYTHON_WANTED".*) ;;
        *) echo "Debian testing's python3 is no longer $PYTHON_WANTED but '$version': testing has" \
                "moved on since this script was written. This run would not prove Python" \
                "$PYTHON_WANTED. Use a distribution whose python3 is $PYTHON_WANTED, or name the" \
                "new version (DEBIAN_TESTING_PYTHON=${version#Python }) to test that one;" \
                "the root file system is $ROOTFS."
           exit 1 ;;
    esac
}

learner_packages() {        # what the learner installs with apt; a no-op once installed
    # shellcheck disable=SC2086
    chroot "$ROOTFS" dpkg-query -W $APT_PACKAGES >/dev/null 2>&1 && { echo "installed already"; return 0; }
    # The host's settings on how old a mirror's Release file may be (a mirror that is a
    # dated snapshot needs Acquire::Check-Valid-Until "false"), as pip's are passed through.
    local options
    options=$(apt-config dump | sed -n 's/^\(Acquire::Check-\(Valid-Until\|Date\)\) "\(.*\)";$/-o \1=\3/p' | tr '\n' ' ')
    inside "apt-get $options update -q && DEBIAN_FRONTEND=noninteractive apt-get $options install -y -q $APT_PACKAGES >/dev/null"
    copy_cert               # update-ca-certificates may have rewritten the system bundle
}

trap finish EXIT

timed "host tools (debootstrap)" debootstrap_tool
timed "Debian testing root file system" root_fs --arch=amd64 testing
python_version
timed "clone of $COMMIT" clone
mounts
timed "apt-get install $APT_PACKAGES" learner_packages
echo "ip netns inside: $(inside 'ip netns add tutprobe$$ && ip netns exec tutprobe$$ true && ip netns del tutprobe$$ && echo works' 2>&1)"
timed "make test (Python $PYTHON_WANTED)" inside "make test${UNIT_ARGS:+ UNIT_ARGS='$UNIT_ARGS'}"

echo "== Debian testing ($(chroot "$ROOTFS" python3 --version)): make test passed"
