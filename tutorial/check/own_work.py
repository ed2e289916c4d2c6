"""An exercise cannot pass by calling the reference it is checked against.

A checker computes the right answers with the library's own function (the reference),
and the notebook may have imported that function for its own cells. A learner who
returns ``averaging_steps(*args)`` would pass without writing anything. ``watching``
notices: while it is active, every call that enters the reference's code is recorded,
whatever name or alias the learner used, and from wherever it came (a global, an
import inside the function, a lambda), and so is a call into a copy compiled from the
reference's source (``inspect.getsource`` and ``exec``: the same bytecode). The checker
then refuses the answer with :func:`refuse_if_called`, which raises
:class:`tutorial.check.answers.Wrong`. A table of answers computed from the reference
before the check is not a call; checkers that watch also draw some of their cases at
random when they run, so no table made in advance can hold them.

It uses ``sys.setprofile`` for the block (and restores the previous profiler after it),
so nothing is patched and the reference keeps working for everyone else.

>>> def reference(n):
...     return list(range(n))
>>> def copied(n):
...     return reference(n)
>>> def written(n):
...     return [i for i in range(n)]
>>> with watching(reference) as seen:
...     _ = written(3)
>>> seen.called
False
>>> with watching(reference) as seen:
...     _ = copied(3)
>>> refuse_if_called(seen, "post_local_schedule")
Traceback (most recent call last):
...
tutorial.check.answers.Wrong: your post_local_schedule calls the library's reference (reference); write the steps yourself: the checker compares your answer with that very function
"""

import contextlib
import dataclasses
import sys

from tutorial.check.answers import Wrong


@dataclasses.dataclass
class Seen:
    names: tuple                  # the references watched
    called: bool = False          # did any call enter one of them?


@contextlib.contextmanager
def watching(*references, copies=False):
    """Record in the yielded :class:`Seen` whether a call enters one of ``references``;
    with ``copies``, also a copy compiled from a reference's source (same bytecode). Only
    for references longer than any natural answer: a one-line rule such as ``lr / tau``
    written by a learner compiles to the reference's very bytecode, and is their own work."""
    codes = {f.__code__ for f in references}
    bytecodes = {f.__code__.co_code for f in references} if copies else set()
    seen = Seen(tuple(f.__name__ for f in references))
    previous = sys.getprofile()

    def profile(frame, event, arg):
        if event == "call" and (frame.f_code in codes or frame.f_code.co_code in bytecodes):
            seen.called = True

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


def refuse_if_called(seen, name):
    """Raise :class:`Wrong` when the learner's ``name`` called a watched reference."""
    if seen.called:
        raise Wrong(f"your {name} calls the library's reference ({', '.join(seen.names)}); "
                    f"write the steps yourself: the checker compares your answer with that "
                    f"very function")
