"""The scheduler's port: free, and used by one cluster at a time.

Checking that a port is free and starting the scheduler on it are seconds apart (the
scheduler must import MXNet first). Two clusters launched on the same explicit port in
that window both pass the check; then the second one's workers register with the first
one's scheduler, and both runs die (``bind failed`` in one, ``there is no socket to
node`` in the other). So a launcher also *claims* its port: it holds an exclusive
``flock`` on ``<tmp>/tutorial_ps_port_<port>.lock`` until its cluster is stopped. The
kernel drops the lock when the launcher exits, however it exits. Clusters started from
this course on one machine (with the same temporary folder) see each other's claims;
other programs are seen by the bind test only. The file itself stays when a launcher is
killed; the next claim removes every lock file nobody holds.

>>> with claimed_port() as port, claimed_port(port) as again:  # doctest: +ELLIPSIS
...     pass
Traceback (most recent call last):
...
tutorial.parallel.ps.diagnosis.ClusterError: port ... is claimed by another parameter-server cluster ... Pass port=None to let the launcher pick a free port, or wait for that cluster to finish.
"""

import contextlib
import fcntl
import os
import socket
import tempfile
from pathlib import Path

from tutorial.parallel.ps.diagnosis import ClusterError

HOST = "127.0.0.1"
PICK_ATTEMPTS = 20


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def check_port(port):
    """Raise ClusterError if the scheduler could not listen on ``port``.

    The test socket sets SO_REUSEADDR as ZeroMQ does, so a port an earlier cluster left
    in TIME_WAIT counts as free (the scheduler can bind it), one something listens on not.
    """
    if not isinstance(port, int) or isinstance(port, bool) or not 1024 <= port <= 65535:
        raise ValueError(f"port must be a whole number from 1024 to 65535, got {port!r}; "
                         f"or pass port=None to let the launcher pick a free one")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError as error:
            raise ClusterError(
                f"port {port} on {HOST} is already in use ({error.strerror}): another program, "
                f"or a cluster from an earlier run, listens there. Pass port=None to let the "
                f"launcher pick a free port.") from None


LOCK_PREFIX = "tutorial_ps_port_"


def _lock_path(port):
    return Path(tempfile.gettempdir()) / f"{LOCK_PREFIX}{port}.lock"


def remove_stale_locks():
    """Remove the lock files no launcher holds (their launcher was killed)."""
    for path in Path(tempfile.gettempdir()).glob(f"{LOCK_PREFIX}*.lock"):
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)                  # held: its cluster runs
            continue
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                os.unlink(path)           # a claimer that opened it before re-checks the inode
        os.close(fd)


def _try_claim(port):
    """An open file holding the port's lock, or None if another launcher holds it."""
    path = _lock_path(port)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:                  # the holder before us may have removed the file meanwhile
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            return fd
        os.close(fd)


def _holder(port):
    try:
        return f"process {int(_lock_path(port).read_text())}"
    except (OSError, ValueError):
        return "another process"


def _release(port, fd):
    with contextlib.suppress(OSError):
        os.unlink(_lock_path(port))         # still holding the lock: nobody else uses it
    os.close(fd)


@contextlib.contextmanager
def claimed_port(port=None):
    """Yield ``port`` (or a free one when None), claimed for this cluster while the block runs."""
    remove_stale_locks()
    if port is None:
        for _ in range(PICK_ATTEMPTS):
            port = free_port()
            fd = _try_claim(port)
            if fd is not None:
                break
        else:
            raise ClusterError(f"found no free port in {PICK_ATTEMPTS} tries; are many clusters "
                               f"running? Stop some, then run again.")
    else:
        check_port(port)
        fd = _try_claim(port)
        if fd is None:
            raise ClusterError(
                f"port {port} is claimed by another parameter-server cluster of this course "
                f"({_holder(port)}), which may not listen yet. Pass port=None to let the "
                f"launcher pick a free port, or wait for that cluster to finish.")
    try:
        yield port
    finally:
        _release(port, fd)
