"""Run a learner's code where it can be stopped whatever it does: a forked child with a deadline.

A time limit inside the learner's own process (``limits.time_limit``, SIGALRM) is only a
Python exception: a bare ``except:`` in a ``while True`` swallows it, and a loop inside
one C call (``sum(range(10**10))``) never lets it run. So :func:`in_child` forks the
process, runs the call in the child, and kills the child at the deadline. The child
sees everything the parent had (the learner's function, MXNet, NumPy: MXNet restarts its
engine in a forked child), the call cannot touch the parent's state, and ``sys.exit``,
``os._exit`` or a crash end only the child. What the call printed (``print``, and
anything written to file descriptors 1 and 2) is kept, up to ``PRINTED_LIMIT``
characters, and handed back with the outcome.

The child leads a process group of its own (``os.setsid``), and whatever the call starts
(``subprocess.Popen(['sleep', '300'])``, a fork) joins it. When the outcome is in, at the
deadline, after an error and when the caller is interrupted (Ctrl-C), the whole group gets
SIGTERM, then SIGKILL after ``GRACE_S``: nothing the call started outlives the call (a
process that starts a session of its own, as a daemon does, has left the group and is not
followed). The result travels as one length-prefixed message, read safely
(:mod:`~tutorial.check.unpickle`): a process that keeps the pipe open cannot delay it, and
the time a large result takes to arrive is not counted against the call.

>>> in_child(lambda: 6 * 7, seconds=5.0)
Outcome(kind='returned', value=42, printed='', detail='')
>>> in_child(lambda: print("hi") or 1, seconds=5.0).printed
'hi\\n'
>>> def forever():
...     while True:
...         try:
...             pass
...         except:
...             pass
>>> in_child(forever, seconds=0.2).kind
'timeout'
>>> import os
>>> in_child(lambda: os._exit(3), seconds=5.0)
Outcome(kind='died', value=None, printed='', detail='exit code 3')

Where ``os.fork`` does not exist (Windows), :func:`can_isolate` is False and the callers
fall back to the in-process limit.
"""

import contextlib
import dataclasses
import os
import pickle
import select
import signal
import sys
import tempfile
import threading
import time
import warnings
from typing import Any

from tutorial.check.unpickle import Unreadable, safe_loads

PRINTED_LIMIT = 20_000       # characters of the learner's output kept (a print loop is endless)
GRACE_S = 0.5                # after SIGTERM, how long the call's processes have before SIGKILL
POLL_S = 0.05                # how often the parent looks whether the child has ended
HEADER = 8                   # bytes of the result's length, before the result
SENDING_S = 10.0             # for sending a result that is ready (not part of the deadline)


@dataclasses.dataclass(frozen=True)
class Outcome:
    kind: str           # 'returned', 'timeout' (killed at the deadline) or 'died' (no result)
    value: Any          # what the call returned ('returned' only)
    printed: str        # what it wrote to stdout and stderr, cut at PRINTED_LIMIT
    detail: str         # 'died': how (exit code, signal, or a result that could not be sent)


def can_isolate():
    return hasattr(os, "fork")


class _Capped:
    """sys.stdout/sys.stderr in the child: writes to fd 1 until the limit, then drops."""

    def __init__(self, fd, limit):
        self.fd, self.left = fd, limit

    def write(self, text):
        text = str(text)
        if self.left > 0:
            kept = text[:self.left]
            self.left -= len(kept)
            os.write(self.fd, kept.encode("utf-8", "replace"))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


def _child(call, printed_fd, result_fd):
    """Runs in the forked child and never returns to the caller's code."""
    try:
        os.setsid()                                        # a process group of its own
        for number in (signal.SIGINT, signal.SIGTERM):     # the parent handles Ctrl-C;
            signal.signal(number, signal.SIG_DFL)          # SIGTERM ends the child at once
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)                  # input() ends at once instead of waiting
        os.dup2(printed_fd, 1)
        os.dup2(printed_fd, 2)
        sys.stdin = open(os.devnull)
        sys.stdout = sys.stderr = _Capped(1, PRINTED_LIMIT)
        try:
            message = pickle.dumps(("returned", call()))
        except BaseException as error:                        # noqa: B036
            message = pickle.dumps(("died", f"it raised {type(error).__name__}: {error}"))
        view = memoryview(len(message).to_bytes(HEADER, "big") + message)
        while view:
            view = view[os.write(result_fd, view):]
    finally:
        os._exit(0)


def _message(buffer):
    """The result in ``buffer`` once all of it has arrived, else None."""
    if len(buffer) < HEADER:
        return None
    size = int.from_bytes(buffer[:HEADER], "big")
    return bytes(buffer[HEADER:HEADER + size]) if len(buffer) >= HEADER + size else None


def _receive(fd, pid, deadline):
    """``(message, status)``: the child's result (b"" if it ended without one, None if the
    deadline passed first) and its wait status (None while it runs). Once the result's
    length has arrived the call is over: the rest has SENDING_S more to arrive."""
    buffer, status, sending = bytearray(), None, False
    while True:
        message = _message(buffer)
        if message is not None:
            return message, status
        if not sending and len(buffer) >= HEADER:
            sending, deadline = True, max(deadline, time.monotonic() + SENDING_S)
        left = deadline - time.monotonic()
        if left <= 0:
            return None, status
        readable, _, _ = select.select([fd], [], [], min(left, POLL_S))
        if readable:
            chunk = os.read(fd, 1 << 16)
            if not chunk:                        # every writer closed: no more will come
                return b"", status
            buffer += chunk
        elif status is not None:                 # ended, and nothing left in the pipe
            return b"", status
        else:
            ended, status = os.waitpid(pid, os.WNOHANG)
            status = status if ended else None


def _how_it_ended(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"signal {number} ({signal.Signals(number).name})"
    return f"exit code {os.WEXITSTATUS(status)}"


def _signal_group(pid, number):
    """Send ``number`` to the child's process group; False when no process is left in it."""
    try:
        os.killpg(pid, number)
    except ProcessLookupError:
        try:                                     # before its setsid the child is alone
            os.kill(pid, number)
        except ProcessLookupError:
            return False
    return True


def _end_group(pid, status):
    """SIGTERM to the child and everything it started, SIGKILL to what is left after
    GRACE_S; reap the child. Returns its wait status."""
    if _signal_group(pid, signal.SIGTERM):
        deadline = time.monotonic() + GRACE_S
        while time.monotonic() < deadline:
            if status is None:
                ended, status = os.waitpid(pid, os.WNOHANG)
                status = status if ended else None
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.01)
        else:
            _signal_group(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1] if status is None else status


@contextlib.contextmanager
def _uninterrupted():
    """Hold Ctrl-C back while the child's processes are ended (it arrives just after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def in_child(call, seconds):
    """Run ``call()`` in a forked child for at most ``seconds``: an :class:`Outcome`."""
    deadline = time.monotonic() + seconds
    result_read, result_write = os.pipe()
    with tempfile.TemporaryFile() as printed:
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():       # 3.12+: fork with threads warns; the child
            warnings.simplefilter("ignore", DeprecationWarning)   # only runs Python code
            pid = os.fork()
        if pid == 0:
            os.close(result_read)
            _child(call, printed.fileno(), result_write)
        os.close(result_write)
        message, status = None, None
        try:
            message, status = _receive(result_read, pid, deadline)
        finally:
            with _uninterrupted():
                os.close(result_read)
                status = _end_group(pid, status)
        printed.seek(0)
        text = printed.read(4 * PRINTED_LIMIT).decode("utf-8", "replace")
    if message is None:
        return Outcome("timeout", None, text, f"killed after {seconds:g} s")
    if not message:
        return Outcome("died", None, text, _how_it_ended(status))
    try:
        kind, value = safe_loads(message)
    except (Unreadable, ValueError, TypeError, EOFError, pickle.UnpicklingError) as error:
        return Outcome("died", None, text, f"what it sent back cannot be read ({error})")
    if kind == "died":
        return Outcome("died", None, text, value)
    return Outcome("returned", value, text, "")
