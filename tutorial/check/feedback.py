"""What an exercise checker hands back, and the guard every checker runs behind.

A checker answers with a :class:`Verdict` (correct or not, and one paragraph saying
what to change), never with a traceback. :func:`checker` wraps a checking function so
that it first makes sure it was given a function, then runs it in a child process killed
at a time limit, and turns an answer that never returns, that is still the stub (``raise
NotImplementedError``), that exits, or that trips the checker up, into a Verdict too. A checker
reports a wrong answer by raising :class:`tutorial.check.answers.Wrong` or by returning
a Verdict.

>>> @checker("double", "double(x) -> 2 * x")
... def check_double(double):
...     return Verdict(double(2) == 4, "Correct." if double(2) == 4 else "Not yet.")
>>> print(check_double(lambda x: 2 * x))
Correct.
>>> print(check_double(None))
Not yet: check_double needs your function double itself, but got None. Run the cell that defines double (with `def double(...):`), then pass its name without calling it: check_double(double).
>>> def stub(x):
...     raise NotImplementedError
>>> verdict = check_double(stub)
>>> verdict.started, verdict.text
(False, 'Not written yet: replace the `raise NotImplementedError` in double with your code, then run its cell again.')
>>> def forever(x):
...     while True:
...         pass
>>> print(check_double(forever, time_limit_s=0.2))
Not yet: your double did not return within 0.2 s (an infinite loop?). Look for a loop whose condition never becomes false, or a step that never changes what the loop tests, then run its cell again.
"""

import contextlib
import dataclasses
import functools

import numpy as np

from tutorial.check.answers import Wrong
from tutorial.check.isolate import can_isolate, in_child
from tutorial.check.limits import TimeLimitExceeded, time_limit
from tutorial.check.own_work import answer_seed, lock_profiler
from tutorial.check.replay import Recorder, Replay, Unconfirmed
from tutorial.validate import check_range

TIME_LIMIT_S = 10.0     # the exercises' answers take milliseconds; this is for endless loops


@dataclasses.dataclass(frozen=True)
class Verdict:
    correct: bool
    text: str
    started: bool = True      # False while the function is still the stub

    def __str__(self):
        return self.text


def shown(value):
    """``repr`` of a learner's value with numpy scalars as plain numbers, as numpy 1.x wrote
    them (numpy 2 writes ``np.float64(0.5)``), also inside tuples and lists.

    >>> shown((np.float64(0.5), [np.int64(2), "F"]))
    "(0.5, [2, 'F'])"
    """
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, tuple):
        inner = ", ".join(shown(v) for v in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    return repr(value)


def not_a_function(answer, name, checker_name):
    """A message when ``answer`` is not something to call (None, a number, an array, ...)."""
    if callable(answer):
        return None
    call = f"{checker_name}({name})"
    if answer is None:
        return (f"Not yet: {checker_name} needs your function {name} itself, but got None. Run "
                f"the cell that defines {name} (with `def {name}(...):`), then pass its name "
                f"without calling it: {call}.")
    if isinstance(answer, str):
        return (f"Not yet: {checker_name} got the text {answer[:40]!r}, not a function. Pass "
                f"the function itself, without quotes: {call}.")
    if isinstance(answer, np.ndarray):
        got = f"a NumPy array of shape {answer.shape}"
    else:
        kind = type(answer).__name__
        got = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} ({str(answer)[:40]})"
    return (f"Not yet: {checker_name} got {got}, which looks like a result, not a function. "
            f"Pass the function itself, without calling it: {call}.")


def checker(name, expects):
    """Decorate ``check(answer) -> Verdict`` for the learner's function ``name``.

    ``expects`` says how it is called and what it returns (shown when it trips the
    checker). The decorated checker takes ``time_limit_s`` (default 10 s) too. The check
    runs in a forked child (:mod:`~tutorial.check.isolate`) that is killed at the limit,
    so nothing the answer does (an endless loop, in Python or in C, ``sys.exit``,
    ``os._exit``) can hang or end the notebook's kernel; what it printed is printed here.
    A "correct" from the child is confirmed here, by the same check on a replay of the
    answer's calls (:mod:`~tutorial.check.replay`): whatever the answer changed where it
    ran (a helper of the checker rebound, NumPy patched) cannot make a wrong answer pass.
    """
    def decorate(check):
        @functools.wraps(check)
        def guarded(answer, time_limit_s=TIME_LIMIT_S):
            seconds = check_range("time_limit_s", time_limit_s, 0.0, low_open=True)
            problem = not_a_function(answer, name, check.__name__)
            if problem:
                return Verdict(False, problem)
            if not can_isolate():
                return _judge(check, answer, name, expects, seconds)
            recorder = Recorder(answer, answer_seed(answer))
            outcome = in_child(lambda: _recorded(check, recorder, name, expects), seconds)
            if outcome.printed:
                print(outcome.printed, end="" if outcome.printed.endswith("\n") else "\n")
            if outcome.kind == "returned":
                return _confirmed(check, outcome.value, recorder.seed, name, expects, seconds)
            if outcome.kind == "timeout":
                return _too_slow(name, seconds)
            return Verdict(False, f"Not yet: your {name} ended the process it ran in "
                                  f"({outcome.detail}) instead of returning: remove the "
                                  f"os._exit or os.kill call, then run its cell again.")
        return guarded
    return decorate


def _recorded(check, recorder, name, expects):
    """In the child: the verdict as plain data, and the tape of the answer's calls."""
    lock_profiler()
    verdict = _judge(check, recorder, name, expects, None)
    return (bool(verdict.correct), str(verdict.text), bool(verdict.started)), recorder.tape


def _confirmed(check, sent, seed, name, expects, seconds):
    """The child's verdict unless it is "correct"; then the verdict of the same check on a
    replay of the answer's calls, here, where the answer never ran."""
    try:
        (correct, text, started), tape = sent
    except (TypeError, ValueError):
        return Verdict(False, f"Not yet: checking your {name} sent back {str(sent)[:60]}, "
                              f"not a verdict: run its cell and the check again.")
    if correct is not True:
        return Verdict(False, str(text), started is True)
    replay = Replay(tape, seed)
    try:
        verdict = _judge(check, replay, name, expects, seconds, replayed=True)
        if verdict.correct:
            replay.finish()
    except Unconfirmed as why:
        return Verdict(False, f"Not yet: the checker could not confirm your {name}: {why}. "
                              f"Let {name} return numbers, lists, tuples or arrays and change "
                              f"nothing else (not the checker, the library or NumPy), then run "
                              f"its cell again.")
    return verdict


def _too_slow(name, seconds):
    return Verdict(False, f"Not yet: your {name} did not return within {seconds:g} s (an "
                          f"infinite loop?). Look for a loop whose condition never becomes "
                          f"false, or a step that never changes what the loop tests, then run "
                          f"its cell again.")


def _judge(check, answer, name, expects, seconds, replayed=False):
    """``check(answer)`` as a Verdict whatever it raises; under ``time_limit(seconds)``
    unless ``seconds`` is None (in a child, where the parent keeps the time). On a replay
    the answer's code does not run, so a KeyboardInterrupt is the caller's Ctrl-C."""
    try:
        with time_limit(seconds) if seconds else contextlib.nullcontext():
            return check(answer)
    except Wrong as wrong:
        return Verdict(False, f"Not yet: {str(wrong).rstrip('.')}.")
    except NotImplementedError:
        return Verdict(False, f"Not written yet: replace the `raise NotImplementedError` in "
                              f"{name} with your code, then run its cell again.", started=False)
    except TimeLimitExceeded:
        return _too_slow(name, seconds)
    except SystemExit as stop:
        return Verdict(False, f"Not yet: your {name} called sys.exit({stop.code!r}), which "
                              f"would end the notebook's kernel: return the result instead, "
                              f"then run its cell again.")
    except KeyboardInterrupt:
        if replayed:
            raise
        return Verdict(False, f"Not yet: your {name} raised KeyboardInterrupt (the exception "
                              f"Ctrl-C and the Stop button raise): return the result instead, "
                              f"then run its cell again.")
    except Exception as error:         # what it returned broke the checking itself
        return Verdict(False, f"Not yet: checking your {name} failed with "
                              f"{type(error).__name__}: {error}. It is called as {expects}; "
                              f"make sure it returns that.")
