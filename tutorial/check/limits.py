"""A time limit for a learner's code, so a checker cannot hang a notebook.

``time_limit(seconds)`` arms the real-time interval timer; if the block is still running
when it fires, :class:`TimeLimitExceeded` is raised inside whatever Python code runs then
(the learner's ``while True:``). It works only in the main thread, where Jupyter runs
cells and pytest runs tests; elsewhere (and where there is no ``SIGALRM``) the block runs
without a limit. A timer armed outside the block is put back, minus the time spent.

>>> import time
>>> with time_limit(0.05):
...     while True:
...         time.sleep(0.01)
Traceback (most recent call last):
...
tutorial.check.limits.TimeLimitExceeded: did not return within 0.05 s
"""

import contextlib
import signal
import threading
import time

from tutorial.validate import check_range


class TimeLimitExceeded(BaseException):
    """The block ran past its limit. A BaseException, so ``except Exception`` in the
    learner's code cannot swallow it."""


def can_limit():
    """True where ``time_limit`` enforces its limit: the main thread, with SIGALRM."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds):
    seconds = check_range("seconds", seconds, 0.0, low_open=True)
    if not can_limit():
        yield
        return

    def expire(signum, frame):
        raise TimeLimitExceeded(f"did not return within {seconds:g} s")

    previous_handler = signal.signal(signal.SIGALRM, expire)
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL if previous_handler is None
                      else previous_handler)
        if outer_delay > 0:          # someone else's timer: give back what is left of it
            left = max(outer_delay - (time.monotonic() - started), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)
