"""A learner's answer recorded where it runs, and replayed where the verdict is confirmed.

The checker guard (:func:`tutorial.check.feedback.checker`) runs a check in a forked child,
where the answer runs. Whatever the answer changes there (the checker's comparison rebound,
NumPy patched, the reference replaced) could change the child's verdict, so a "correct"
from the child is not taken on trust. The child calls the answer through a
:class:`Recorder`, whose tape holds, for each call in order: a digest of the arguments,
what it returned (or the exception it raised), what it left in its arguments (an in-place
change, a generator it drew from), and whether a watched reference ran during the call
(:mod:`~tutorial.check.own_work`). The parent then runs the same check on a :class:`Replay`
of that tape: the answer's code never runs there, so the reference, the comparison and
every helper are the parent's own, untouched. The tape is read as plain data only
(:mod:`~tutorial.check.unpickle`).

The check must call the answer the same way both times: its cases are fixed, or drawn from
the answer's seed (:func:`~tutorial.check.own_work.case_rng`), which both stand-ins carry.
A replay asked for another call than the tape holds raises :class:`Unconfirmed`.

>>> recorder = Recorder(lambda x: [v * 2 for v in x], seed=7)
>>> recorder([1, 2])
[2, 4]
>>> replay = Replay(recorder.tape, seed=7)
>>> replay([1, 2])
[2, 4]
>>> replay([1, 3])
Traceback (most recent call last):
...
tutorial.check.replay.Unconfirmed: call 2 of the answer was not made where it ran
"""

import builtins
import collections.abc
import hashlib
import pickle
from typing import NamedTuple, Optional

import numpy as np

from tutorial.check.own_work import StandIn, calls_noted, note_replayed_call
from tutorial.check.unpickle import safe_loads


class Unconfirmed(BaseException):
    """The replay cannot stand for the answer (another call, or a result that cannot be
    read back). A BaseException, so the checker's own ``except Exception`` lets it through."""


class Entry(NamedTuple):
    asked: str                 # digest of the arguments before the call
    kind: str                  # 'returned', 'iterator' (its items) or 'raised'
    value: Optional[bytes]     # the result pickled; 'raised': (type name, text) pickled
    kind_name: str             # the result's type, for a result that could not be pickled
    after: Optional[bytes]     # (args, kwargs) after the call, pickled; None: unchanged
    called: bool               # a watched reference ran during the call


def _dumped(value):
    try:
        return pickle.dumps(value)
    except Exception:                      # a lambda, a generator, a local class ...
        return None


def _text(error):
    try:
        return str(error)
    except Exception:                      # an exception of the learner's whose str fails
        return f"<{type(error).__name__}>"


def digest(args, kwargs):
    """The arguments of one call as a short string: the hash of their pickle (arrays hashed
    where they lie, not copied), or of their types if they cannot be pickled."""
    hashed, buffers = hashlib.sha256(), []
    try:
        hashed.update(pickle.dumps((args, kwargs), protocol=5, buffer_callback=buffers.append))
        for buffer in buffers:
            hashed.update(buffer.raw())
    except Exception:                      # a lambda, a generator, a local class ...
        hashed.update(repr([type(a).__name__ for a in (*args, *kwargs.values())]).encode())
    return hashed.hexdigest()[:32]


class Recorder(StandIn):
    """Calls ``answer`` and records each call in ``tape`` (runs where the answer runs)."""

    def __init__(self, answer, seed):
        self.answer, self.seed, self.tape = answer, seed, []

    def __call__(self, *args, **kwargs):
        asked, noted = digest(args, kwargs), calls_noted()
        try:
            value = self.answer(*args, **kwargs)
            kind = "returned"
            if isinstance(value, collections.abc.Iterator):   # read it once, for both
                kind, value = "iterator", list(value)
        except BaseException as error:
            self._record(asked, "raised", (type(error).__name__, _text(error)), args, kwargs,
                         noted)
            raise
        self._record(asked, kind, value, args, kwargs, noted)
        return iter(value) if kind == "iterator" else value

    def _record(self, asked, kind, value, args, kwargs, noted):
        changed = digest(args, kwargs) != asked         # the answer wrote into its arguments
        self.tape.append(Entry(asked, kind, _dumped(value), type(value).__name__,
                               _dumped((args, kwargs)) if changed else None,
                               calls_noted() > noted))


class Replay(StandIn):
    """Gives back, call by call, what the recorded answer gave (runs where the verdict is
    confirmed); :meth:`finish` says whether every recorded call was asked for."""

    def __init__(self, tape, seed):
        self.tape, self.seed, self.calls = list(tape), seed, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls > len(self.tape) or self.tape[self.calls - 1].asked != digest(args, kwargs):
            raise Unconfirmed(f"call {self.calls} of the answer was not made where it ran")
        entry = self.tape[self.calls - 1]
        if entry.called:
            note_replayed_call()
        if entry.after is not None:
            after_args, after_kwargs = _read(entry.after, "its arguments")
            put_back(args, after_args)
            put_back(kwargs, after_kwargs)
        if entry.kind == "raised":
            raise _rebuilt(*_read(entry.value, "the exception it raised"))
        if entry.value is None:
            raise Unconfirmed(f"it returned a {entry.kind_name}, which cannot be sent from "
                              f"the process it ran in")
        value = _read(entry.value, f"the {entry.kind_name} it returned")
        return iter(value) if entry.kind == "iterator" else value

    def finish(self):
        if self.calls != len(self.tape):
            raise Unconfirmed(f"the answer was called {len(self.tape)} times where it ran, "
                              f"but {self.calls} times here")


def _read(data, what):
    try:
        return safe_loads(data)
    except Exception as error:                 # Unreadable, or a pickle that is broken
        raise Unconfirmed(f"{what} cannot be read back ({error})") from None


def _rebuilt(name, text):
    """An exception named ``name`` whose text is ``text`` (a builtin one's subclass)."""
    base = getattr(builtins, name, Exception)
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base = Exception
    return type(name, (base,), {"__str__": lambda self: text})(text)


def put_back(target, recorded):
    """Make ``target`` hold what ``recorded`` holds, in place wherever it can change."""
    if isinstance(target, np.ndarray) and isinstance(recorded, np.ndarray):
        if target.shape == recorded.shape and target.flags.writeable:
            np.copyto(target, recorded, casting="unsafe")
    elif hasattr(target, "asnumpy") and hasattr(recorded, "asnumpy"):
        if target.shape == recorded.shape:
            target[:] = recorded.asnumpy()
    elif isinstance(target, np.random.Generator) and isinstance(recorded, np.random.Generator):
        target.bit_generator.state = recorded.bit_generator.state
    elif isinstance(target, list) and isinstance(recorded, list):
        if len(target) != len(recorded):
            target[:] = recorded
            return
        for i, (old, new) in enumerate(zip(target, recorded)):
            if type(old) is not type(new) or not _mutable(old):
                target[i] = new
            else:
                put_back(old, new)
    elif isinstance(target, dict) and isinstance(recorded, dict):
        for key in set(target) - set(recorded):
            del target[key]
        for key, new in recorded.items():
            old = target.get(key)
            if key in target and type(old) is type(new) and _mutable(old):
                put_back(old, new)
            else:
                target[key] = new
    elif isinstance(target, tuple) and isinstance(recorded, tuple):
        for old, new in zip(target, recorded):
            put_back(old, new)


def _mutable(value):
    return isinstance(value, (np.ndarray, list, dict, tuple, np.random.Generator)) or \
        hasattr(value, "asnumpy")
