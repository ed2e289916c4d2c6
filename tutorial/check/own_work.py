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
before the check is not a call. Against that, some of the checkers that watch
(:mod:`~tutorial.check.pipeline`, :mod:`~tutorial.check.scaling_out` and
:mod:`~tutorial.check.memory`) also draw some of their cases from the answer's own seed
(:func:`case_rng`, made from its code), so no table made before the answer was written
holds them, and one answer meets the same cases, and gets the same verdict, every time.
The other checkers that watch use fixed cases only (fixed seeds), which such a table could
hold.

It uses ``sys.setprofile`` for the block (and restores the previous profiler after it),
so nothing is patched and the reference keeps working for everyone else. In the checker's
child, where the answer runs, :func:`lock_profiler` adds an audit hook that refuses
``sys.setprofile`` to anyone but ``watching`` itself (threads started there take the watch
too): an answer cannot switch the watch off (``sys.setprofile(None)``), and one that opens
a watch of its own adds to it. Each call a
watch notes is also counted (:func:`calls_noted`), so that the checker's guard can carry
it to the process that confirms the verdict (:mod:`~tutorial.check.replay`). What this does
not stop: an answer that computes the reference in another process, or one that reads
this module and edits its records (a course, not a sandbox).

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
import hashlib
import random
import sys
import threading
import types

from tutorial.check.answers import Wrong

PROFILER_LOCKED = ("the checker watches which functions your answer calls: leave "
                   "sys.setprofile alone while it runs")


@dataclasses.dataclass
class Seen:
    names: tuple                  # the references watched
    called: bool = False          # did any call enter one of them?
    codes: frozenset = dataclasses.field(default=frozenset(), repr=False)
    bytecodes: frozenset = dataclasses.field(default=frozenset(), repr=False)
    callers: frozenset = dataclasses.field(default=frozenset(), repr=False)   # not counted from

    def note(self, frame):
        """Record ``frame``'s call if it enters a reference; True if it did."""
        code = frame.f_code
        if code not in self.codes and code.co_code not in self.bytecodes:
            return False
        if frame.f_back is not None and frame.f_back.f_code in self.callers:
            return False
        self.called = True
        return True


_active = []          # the Seen of every block watching now, in this process
_noted = [0]          # calls the blocks have noted so far, in this process
_locked = [False]     # True in a checker's child: only watching sets the profiler


def _tripwire(frame, event, arg):
    if event == "call" and _active:
        if any([seen.note(frame) for seen in _active]):
            _noted[0] += 1


def calls_noted():
    """How many calls of a watched reference the watches in this process have noted."""
    return _noted[0]


def note_replayed_call():
    """A call the answer made where it ran entered a reference: every open watch notes it."""
    for seen in _active:
        seen.called = True


def lock_profiler():
    """Refuse ``sys.setprofile`` to anyone but ``watching`` in this process from now on, and
    give every thread started later the watch. Only for the child that runs a learner's
    answer: an audit hook stays for the life of the process."""
    if _locked[0]:
        return
    threading.setprofile(_tripwire)
    sys.addaudithook(_refuse_profilers)
    _locked[0] = True


def _refuse_profilers(event, args):
    if event != "sys.setprofile":
        return
    caller = sys._getframe(1).f_code          # who called sys.setprofile
    if caller is watching.__wrapped__.__code__:
        return
    if caller is threading.Thread._bootstrap_inner.__code__ and \
            threading._profile_hook is _tripwire:          # a new thread takes the watch
        return
    raise RuntimeError(PROFILER_LOCKED)


@contextlib.contextmanager
def watching(*references, copies=False, unless_called_from=()):
    """Record in the yielded :class:`Seen` whether a call enters one of ``references``;
    with ``copies``, also a copy compiled from a reference's source (same bytecode). Only
    for references longer than any natural answer: a one-line rule such as ``lr / tau``
    written by a learner compiles to the reference's very bytecode, and is their own work.
    A call made from one of the functions ``unless_called_from`` is not counted."""
    codes = frozenset(f.__code__ for f in references)
    seen = Seen(tuple(f.__name__ for f in references), codes=codes,
                bytecodes=frozenset(c.co_code for c in codes) if copies else frozenset(),
                callers=frozenset(f.__code__ for f in unless_called_from))
    # in a locked child the profiler is the watch's, or none: whatever sys.getprofile says
    previous = (_tripwire if _active else None) if _locked[0] else sys.getprofile()
    _active.append(seen)
    sys.setprofile(_tripwire)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
        if seen in _active:
            _active.remove(seen)


def refuse_if_called(seen, name):
    """Raise :class:`Wrong` when the learner's ``name`` called a watched reference."""
    if seen.called:
        raise Wrong(f"your {name} calls the library's reference ({', '.join(seen.names)}); "
                    f"write the steps yourself: the checker compares your answer with that "
                    f"very function")


class StandIn:
    """A callable that stands for the learner's answer (:mod:`~tutorial.check.replay`'s
    recorder and replay); ``seed`` is the answer's (:func:`answer_seed`)."""
    seed = 0


def answer_seed(answer):
    """A seed made from the answer's code (bytecode, constants and names, nested functions
    included): the same for the same answer in any process, another for another answer."""
    code = getattr(answer, "__code__", None)
    if not isinstance(code, types.CodeType):
        code = getattr(getattr(answer, "__call__", None), "__code__", None)
    text = (_code_text(code) if isinstance(code, types.CodeType)
            else f"{type(answer).__module__}.{type(answer).__qualname__}")
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _code_text(code):
    def const(value):
        if isinstance(value, types.CodeType):
            return _code_text(value)
        return repr(sorted(map(repr, value))) if isinstance(value, frozenset) else repr(value)
    return repr((code.co_code, [const(c) for c in code.co_consts], code.co_names,
                 code.co_varnames))


def case_rng(answer):
    """The generator a checker draws its extra cases from, seeded by the answer."""
    return random.Random(answer.seed if isinstance(answer, StandIn) else answer_seed(answer))
