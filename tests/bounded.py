"""``within(seconds)``: a test for a former hang fails instead of hanging the test run.

A watchdog thread interrupts the main thread after ``seconds`` (as Ctrl-C would), and the
interrupt becomes a test failure. It uses no signal timer, so it still works when the
code under test sets its own ``SIGALRM`` (the exercise checkers' time limit does).
"""

import _thread
import contextlib
import threading

import pytest


@contextlib.contextmanager
def within(seconds, what="the call"):
    fired = threading.Event()

    def interrupt():
        fired.set()
        _thread.interrupt_main()

    timer = threading.Timer(seconds, interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    except KeyboardInterrupt:
        if not fired.is_set():
            raise
        pytest.fail(f"{what} did not return within {seconds} s: it hangs")
    finally:
        timer.cancel()
