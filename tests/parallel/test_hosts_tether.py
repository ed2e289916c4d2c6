"""The tether: a remote process stops when its launcher's pipe closes, or on a signal.

Over ssh this pipe is all that links a remote process to its launcher, so the test closes
it as a dead launcher would. The command writes its pid, so the test can see it is gone.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from test_cluster import REPO, wait_until_gone

pytestmark = pytest.mark.slow     # starts processes

SLEEPER = ("import os, pathlib, sys, time\n"
           "pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))\n"
           "time.sleep(600)")


def start(*argv):
    return subprocess.Popen([sys.executable, "-u", "-m", "tutorial.parallel.hosts.tether", *argv],
                            cwd=REPO, stdin=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))


def started_sleeper(tmp_path):
    pid_file = tmp_path / "pid"
    tether = start(sys.executable, "-c", SLEEPER, str(pid_file))
    deadline = time.monotonic() + 60
    while not (pid_file.is_file() and pid_file.read_text()):
        assert time.monotonic() < deadline and tether.poll() is None, "the command never started"
        time.sleep(0.05)
    return tether, int(pid_file.read_text())


@pytest.mark.parametrize("how, code", [("close stdin", -signal.SIGTERM),
                                       ("SIGTERM", -signal.SIGTERM), ("SIGINT", -signal.SIGINT),
                                       ("SIGKILL", -signal.SIGKILL)])
def test_the_command_stops_with_its_tether(tmp_path, how, code):
    tether, pid = started_sleeper(tmp_path)
    try:
        if how == "close stdin":
            tether.stdin.close()                  # ssh closed: the launcher went away
        else:
            tether.send_signal(getattr(signal, how))
        assert tether.wait(30) == code
    finally:
        tether.kill()
    assert wait_until_gone([pid]), f"the command {pid} outlived its tether ({how})"


def test_the_tether_exits_as_its_command_does():
    assert start(sys.executable, "-c", "raise SystemExit(3)").wait(30) == 3
    killed = start(sys.executable, "-c", "import os; os.kill(os.getpid(), 9)")
    assert killed.wait(30) == -signal.SIGKILL
