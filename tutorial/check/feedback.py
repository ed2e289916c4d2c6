"""What an exercise checker hands back, and the guard every checker runs behind.

A checker answers with a :class:`Verdict` (correct or not, and one paragraph saying
what to change), never with a traceback. :func:`checker` wraps a checking function so
that it first makes sure it was given a function, then runs it under a time limit, and
turns an answer that never returns, that is still the stub (``raise
NotImplementedError``), or that trips the checker up, into a Verdict too. A checker
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

import dataclasses
import functools

import numpy as np

from tutorial.check.answers import Wrong
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
    checker). The decorated checker takes ``time_limit_s`` (default 10 s) too.
    """
    def decorate(check):
        @functools.wraps(check)
        def guarded(answer, time_limit_s=TIME_LIMIT_S):
            seconds = check_range("time_limit_s", time_limit_s, 0.0, low_open=True)
            problem = not_a_function(answer, name, check.__name__)
            if problem:
                return Verdict(False, problem)
            try:
                with time_limit(seconds):
                    return check(answer)
            except Wrong as wrong:
                return Verdict(False, f"Not yet: {str(wrong).rstrip('.')}.")
            except NotImplementedError:
                return Verdict(False, f"Not written yet: replace the `raise "
                                      f"NotImplementedError` in {name} with your code, then run "
                                      f"its cell again.", started=False)
            except TimeLimitExceeded:
                return Verdict(False, f"Not yet: your {name} did not return within {seconds:g} "
                                      f"s (an infinite loop?). Look for a loop whose condition "
                                      f"never becomes false, or a step that never changes what "
                                      f"the loop tests, then run its cell again.")
            except Exception as error:         # what it returned broke the checking itself
                return Verdict(False, f"Not yet: checking your {name} failed with "
                                      f"{type(error).__name__}: {error}. It is called as "
                                      f"{expects}; make sure it returns that.")
        return guarded
    return decorate
