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
from tutorial.validate import check_range

TIME_LIMIT_S = 10.0     # the exercises' answers take milliseconds; this is for endless loops


@dataclasses.dataclass(frozen=True)
class Verdict:
    correct: bool
    text: str
    started: bool = True      # False while the function is still the stub

    def __str__(self):
        return self.text


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
            outcome = in_child(lambda: _judge(check, answer, name, expects, None), seconds)
            if outcome.printed:
                print(outcome.printed, end="" if outcome.printed.endswith("\n") else "\n")
            if outcome.kind == "returned":
                return outcome.value
            if outcome.kind == "timeout":
                return _too_slow(name, seconds)
            return Verdict(False, f"Not yet: your {name} ended the process it ran in "
                                  f"({outcome.detail}) instead of returning: remove the "
                                  f"os._exit or os.kill call, then run its cell again.")
        return guarded
    return decorate


def _too_slow(name, seconds):
    return Verdict(False, f"Not yet: your {name} did not return within {seconds:g} s (an "
                          f"infinite loop?). Look for a loop whose condition never becomes "
                          f"false, or a step that never changes what the loop tests, then run "
                          f"its cell again.")


def _judge(check, answer, name, expects, seconds):
    """``check(answer)`` as a Verdict whatever it raises; under ``time_limit(seconds)``
    unless ``seconds`` is None (in a child, where the parent keeps the time)."""
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
        return Verdict(False, f"Not yet: your {name} raised KeyboardInterrupt (the exception "
                              f"Ctrl-C and the Stop button raise): return the result instead, "
                              f"then run its cell again.")
    except Exception as error:         # what it returned broke the checking itself
        return Verdict(False, f"Not yet: checking your {name} failed with "
                              f"{type(error).__name__}: {error}. It is called as {expects}; "
                              f"make sure it returns that.")
