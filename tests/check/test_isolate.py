"""The isolated child ends with every process the learner's code started: after a verdict,
at the deadline, after an error, and when the caller is interrupted (Ctrl-C)."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bounded import within
from tutorial.check.isolate import in_child

REPO = Path(__file__).resolve().parents[2]


def gone(pid):
    """True once ``pid`` has ended (a zombie waiting for its parent counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


def gone_soon(pid, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return gone(pid)


@pytest.fixture
def strays():
    """Pids a failing test would leave running: killed at the end of the test."""
    pids = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def starts_a_sleep():
    return subprocess.Popen(["sleep", "300"]).pid


def test_a_process_the_call_started_ends_with_the_call(strays):
    with within(30, "in_child"):
        outcome = in_child(starts_a_sleep, seconds=10.0)
    assert outcome.kind == "returned"
    strays.append(outcome.value)
    assert gone_soon(outcome.value, seconds=3.0), "the answer's sleep outlived the check"


def test_a_process_the_call_started_ends_at_the_deadline_too(tmp_path, strays):
    where = tmp_path / "pid"

    def starts_then_spins():
        where.write_text(str(starts_a_sleep()))
        while True:
            pass

    with within(30, "in_child"):
        outcome = in_child(starts_then_spins, seconds=1.0)
    assert outcome.kind == "timeout"
    strays.append(int(where.read_text()))
    assert gone_soon(strays[-1], seconds=3.0)


def test_a_process_the_call_started_ends_when_the_call_raises(tmp_path, strays):
    where = tmp_path / "pid"

    def starts_then_raises():
        where.write_text(str(starts_a_sleep()))
        raise RuntimeError("boom")

    with within(30, "in_child"):
        outcome = in_child(starts_then_raises, seconds=10.0)
    assert outcome.kind == "died" and "boom" in outcome.detail
    strays.append(int(where.read_text()))
    assert gone_soon(strays[-1], seconds=3.0)


def test_a_forked_process_that_keeps_the_pipe_open_does_not_delay_the_result(tmp_path, strays):
    where = tmp_path / "pid"

    def forks_and_returns():
        pid = os.fork()
        if pid == 0:                              # holds every descriptor of the child
            time.sleep(300)
            os._exit(0)
        where.write_text(str(pid))
        return 42

    started = time.monotonic()
    with within(30, "in_child"):
        outcome = in_child(forks_and_returns, seconds=10.0)
    strays.append(int(where.read_text()))
    assert outcome.kind == "returned" and outcome.value == 42
    assert time.monotonic() - started < 5.0
    assert gone_soon(strays[-1], seconds=3.0)


CHECK_THEN_WAIT = textwrap.dedent("""
    import os, subprocess, sys, time
    from pathlib import Path
    from tutorial.check.memory import check_zero_bytes

    def zero_bytes(P, K, stage, copies):
        sleep = subprocess.Popen(["sleep", "300"])
        Path(sys.argv[1]).write_text(f"{os.getpid()} {sleep.pid}")
        while True:
            time.sleep(0.05)

    check_zero_bytes(zero_bytes, time_limit_s=120)
""")


def test_ctrl_c_during_a_check_ends_the_check_and_every_process_it_started(tmp_path, strays):
    where = tmp_path / "pids"
    script = subprocess.Popen([sys.executable, "-c", CHECK_THEN_WAIT, str(where)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not where.exists() or len(where.read_text().split()) < 2:
            assert time.monotonic() < deadline and script.poll() is None, \
                script.communicate()[1].decode()[-2000:]
            time.sleep(0.05)
        child, sleep = map(int, where.read_text().split())
        strays.extend((child, sleep))
        script.send_signal(signal.SIGINT)
        script.wait(timeout=10)
        assert b"KeyboardInterrupt" in script.stderr.read()
        assert gone_soon(child, seconds=3.0), "the checker's child outlived Ctrl-C"
        assert gone_soon(sleep, seconds=3.0), "the answer's sleep outlived Ctrl-C"
    finally:
        if script.poll() is None:
            script.kill()
            script.wait()
