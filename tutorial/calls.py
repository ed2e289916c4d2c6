"""How many times a block of code calls a function, counted without patching it.

Recomputation's price is forwards run again; a step's time at small sizes hides it, so
notebook 13 counts the calls instead. ``counting(f)`` watches the block with
``sys.setprofile`` (restoring the previous profiler afterwards): every call that enters
``f``'s code is counted, however ``f`` was reached (an alias, a module attribute, from
inside another function). Only the calling thread is watched.

>>> def square(x):
...     return x * x
>>> def sum_of_squares(n):
...     return sum(square(i) for i in range(n))
>>> with counting(square) as seen:
...     _ = sum_of_squares(5)
>>> seen.calls
5
"""

import contextlib
import dataclasses
import sys


@dataclasses.dataclass
class Count:
    name: str          # the function watched
    calls: int = 0     # calls that entered it during the block


@contextlib.contextmanager
def counting(function):
    """Yield a :class:`Count` of the calls that enter ``function`` during the block."""
    code, seen, previous = function.__code__, Count(function.__name__), sys.getprofile()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is code:
            seen.calls += 1

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
