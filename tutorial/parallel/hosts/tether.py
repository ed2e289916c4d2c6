"""``python -m tutorial.parallel.hosts.tether ARGV...``: run ARGV until our stdin closes.

A process started over ssh does not die when the launcher does: killing the local ssh
client only closes the connection, and the remote process runs on with nobody to stop
it. So every remote process of the course runs under this tether, which:

- starts ARGV in a process group of its own, which dies if the tether dies
  (``PR_SET_PDEATHSIG``);
- stops that group (SIGTERM, then SIGKILL) when its standard input reaches end of file
  (ssh closed the connection: the launcher exited, was killed, or stopped this host) or
  when the tether gets SIGTERM, SIGINT or SIGHUP;
- otherwise exits as ARGV exits (the same code, or the same signal).

The launcher keeps a pipe open on the tether's standard input and never writes to it.
Standard library only: it starts before anything else is imported.
"""

import os
import signal
import subprocess
import sys
import threading
import time

from tutorial.parallel.ps.cluster import _child_setup

GRACE = 2.0   # seconds between SIGTERM and SIGKILL


def _stop(child):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        try:
            child.wait(GRACE)
            return
        except subprocess.TimeoutExpired:
            pass


def _drain(stream, done):
    while stream.read1(4096):
        pass
    done.set()


def main(argv):
    if not argv:
        raise SystemExit("usage: python -m tutorial.parallel.hosts.tether COMMAND [ARG...]")
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, preexec_fn=_child_setup(0))
    stop, signals = threading.Event(), []

    def on_signal(signum, frame):          # only note it: the main loop stops the child
        signals.append(signum)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    threading.Thread(target=_drain, args=(sys.stdin.buffer, stop), daemon=True).start()
    while True:
        try:
            code = child.wait(0.1)
            break
        except subprocess.TimeoutExpired:
            if stop.is_set():
                _stop(child)               # and reap it: no zombie left
                code = -signals[0] if signals else child.returncode
                break
    _exit_like(code)


def _exit_like(code):
    """Leave with ``code`` as a Popen returncode: a number, or minus the signal that ended it."""
    sys.stdout.flush()
    if code < 0:
        if -code not in (signal.SIGKILL, signal.SIGSTOP):     # those cannot be caught anyway
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        time.sleep(1.0)                  # the signal ends us here
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main(sys.argv[1:])
