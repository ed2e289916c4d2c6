# Sourced by tools/arm64.sh and tools/debian_testing.sh: what their two chroots share.
#
# A Debian root file system made once with debootstrap and kept in a cache folder (a marker
# tells a finished debootstrap from a broken one), a fresh clone of the repository's
# committed HEAD inside it, the host's /proc, /dev, /sys bind-mounted in, its resolv.conf
# and pip's CA bundle copied in, commands run there as a fresh login would (the host's PIP_*
# settings passed through), each step timed, and on exit, failed or not, everything
# unmounted and the table of times printed.
#
# The sourcing script sets, before calling these functions:
#   ROOTFS       where the root file system lives
#   PACKAGES     debootstrap's --include list (comma-separated)
#   CHROOT_WHAT  what the time table's heading says the chroot is ("arm64 emulated on x86_64")
# and may set MIRROR (Debian's mirror; DEBIAN_MIRROR). It calls `trap finish EXIT` itself.
# shellcheck shell=bash

REPO=$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --show-toplevel)
COMMIT=$(git -C "$REPO" rev-parse HEAD)
MIRROR=${MIRROR:-${DEBIAN_MIRROR:-http://deb.debian.org/debian}}
HEAVY=$(command -v heavy || true)       # the shared machine's CPU semaphore, when there is one
TIMES=()
STEP=""                                 # the step under way, and since when (for `finish`)
STEP_START=0

need_root() {   # need_root "make target": stop unless root (debootstrap, chroot, mounts)
    [ "$(id -u)" -eq 0 ] || { echo "${0#./} needs root (debootstrap, chroot): sudo make $1"; exit 1; }
}

timed() {   # timed "what" command...: run it, note how long it took
    local what=$1; shift
    STEP=$what; STEP_START=$SECONDS
    echo "== $what"
    "$@"
    TIMES+=("$(printf '%-44s %4d s' "$what" $((SECONDS - STEP_START)))")
    STEP=""
}

debootstrap_tool() {    # the host's debootstrap, installed when missing
    command -v debootstrap >/dev/null && return 0
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
}

root_fs() {     # root_fs [debootstrap options...] SUITE: made once, then reused
    [ -f "$ROOTFS/.tutorial-rootfs-complete" ] && { echo "reusing $ROOTFS"; return 0; }
    rm -rf "$ROOTFS.partial"
    mkdir -p "$(dirname "$ROOTFS")"
    $HEAVY debootstrap --variant=minbase --include="$PACKAGES" "$@" "$ROOTFS.partial" "$MIRROR"
    touch "$ROOTFS.partial/.tutorial-rootfs-complete"
    rm -rf "$ROOTFS"; mv "$ROOTFS.partial" "$ROOTFS"
}

clone() {       # a fresh clone each run: no .venv or build output from the host
    rm -rf "$ROOTFS/root/tutorial"
    git clone --quiet --no-hardlinks "$REPO" "$ROOTFS/root/tutorial"
    git -C "$ROOTFS/root/tutorial" checkout --quiet "$COMMIT"
}

copy_cert() {   # the CA bundle the host's pip trusts (PIP_CERT or pip's `cert`, e.g. for a
    # TLS proxy), at the same path inside, so that the PIP_* settings passed through mean the
    # same there. (Inside, an apt-get that runs update-ca-certificates rewrites the system
    # bundle: call this again after one.)
    local cert=${PIP_CERT:-$(pip config get global.cert 2>/dev/null || true)}
    if [ -n "$cert" ] && [ -f "$cert" ]; then
        mkdir -p "$ROOTFS$(dirname "$cert")"; cp -L "$cert" "$ROOTFS$cert"
    fi
}

MOUNTS=(proc dev dev/pts dev/shm sys)

mounts() {
    cp -L /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
    copy_cert
    # The root file system bound onto itself: inside, / is then a mount point, as on a
    # machine (`ip netns exec` makes / a slave mount, which fails on a plain folder).
    # Private: what is mounted below it does not spread to the host's own mounts.
    mountpoint -q "$ROOTFS" || { mount --bind "$ROOTFS" "$ROOTFS"; mount --make-private "$ROOTFS"; }
    local d
    for d in "${MOUNTS[@]}"; do
        mountpoint -q "/$d" || continue                 # e.g. no /dev/shm of its own
        mountpoint -q "$ROOTFS/$d" || mount --bind "/$d" "$ROOTFS/$d"
    done
}

unmount() {     # also what was mounted inside (`ip netns add` mounts under /run/netns)
    local pid d here
    here=$(realpath "$ROOTFS")
    for pid in /proc/[0-9]*; do                         # processes the run left inside
        [ "$(readlink "$pid/root" 2>/dev/null)" = "$here" ] && kill -KILL "${pid#/proc/}" 2>/dev/null
    done
    for d in sys dev/shm dev/pts dev proc; do
        mountpoint -q "$ROOTFS/$d" && umount -l "$ROOTFS/$d"
    done
    mountpoint -q "$ROOTFS" && umount -l "$ROOTFS"      # and everything still under it
    return 0
}

finish() {      # on success and on failure: unmount, then the times so far
    local code=$?
    unmount
    echo "== times ($CHROOT_WHAT$([ $code -eq 0 ] || echo ", FAILED"))"
    printf '%s\n' "${TIMES[@]}"
    [ -z "$STEP" ] || printf '%-44s %4d s  FAILED\n' "$STEP" $((SECONDS - STEP_START))
}

inside() {      # inside "command line": run it in the clone, as a fresh login would
    local pip_vars          # the host's PIP_* settings but its wheel folders, absent inside
    pip_vars=$(env | grep -E '^PIP_' | grep -v '^PIP_FIND_LINKS=' | tr '\n' ' ' || true)
    # shellcheck disable=SC2086
    $HEAVY chroot "$ROOTFS" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $pip_vars \
        /bin/bash -c "cd /root/tutorial && $1"
}
