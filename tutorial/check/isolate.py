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

import dataclasses
import os
import pickle
import select
import signal
import sys
import tempfile
import time
import warnings
from typing import Any

PRINTED_LIMIT = 20_000       # characters of the learner's output kept (a print loop is endless)


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
        os.dup2(printed_fd, 1)
        os.dup2(printed_fd, 2)
        sys.stdout = sys.stderr = _Capped(1, PRINTED_LIMIT)
        signal.signal(signal.SIGINT, signal.SIG_DFL)       # the parent handles Ctrl-C
        try:
            message = pickle.dumps(("returned", call()))
        except BaseException as error:                        # noqa: B036
            message = pickle.dumps(("died", f"it raised {type(error).__name__}: {error}"))
        view = memoryview(message)
        while view:
            view = view[os.write(result_fd, view):]
    finally:
        os._exit(0)


def _read_until(fd, deadline):
    """All bytes from ``fd`` up to EOF, or None if the deadline passes first."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        readable, _, _ = select.select([fd], [], [], left)
        if readable:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _how_it_ended(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"signal {number} ({signal.Signals(number).name})"
    return f"exit code {os.WEXITSTATUS(status)}"


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


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
        message = None
        try:
            message = _read_until(result_read, deadline)
        finally:
            os.close(result_read)
            if message is None:                  # past the deadline, or the parent interrupted
                _kill(pid)
            _, status = os.waitpid(pid, 0)
        printed.seek(0)
        text = printed.read(4 * PRINTED_LIMIT).decode("utf-8", "replace")
    if message is None:
        return Outcome("timeout", None, text, f"killed after {seconds:g} s")
    if not message:
        return Outcome("died", None, text, _how_it_ended(status))
    kind, value = pickle.loads(message)
    if kind == "died":
        return Outcome("died", None, text, value)
    return Outcome("returned", value, text, "")
