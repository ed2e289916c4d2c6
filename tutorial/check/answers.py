"""Reading a learner's answer: call their function, turn what it returned into a number
or an array, or say in one sentence why that is impossible.

Every checker calls the learner's code through :func:`call` and reads the result with
:func:`as_number` or :func:`as_array`. Anything unusable raises :class:`Wrong`, whose
message the checker guard (:func:`tutorial.check.feedback.checker`) shows after
"Not yet: ". A ``raise NotImplementedError`` left in the stub passes through untouched:
the guard reports that exercise as not written yet.

>>> as_number(0.5, "f(1)")
0.5
>>> as_number("0.5", "f(1)")
Traceback (most recent call last):
...
tutorial.check.answers.Wrong: f(1) returned a str; return one plain number such as 0.1 or 64
>>> as_array([1, 2], "f(x)", shape=(3,), what="the new x")
Traceback (most recent call last):
...
tutorial.check.answers.Wrong: f(x) returned the new x with shape (2,); it must have shape (3,)
>>> call(lambda x: 1 / x, "f(0)", 0)
Traceback (most recent call last):
...
tutorial.check.answers.Wrong: f(0) raised ZeroDivisionError: division by zero
"""

import math

import numpy as np

from tutorial.validate import is_number


class Wrong(Exception):
    """The answer cannot be right, for the reason in the message (one sentence, no
    "Not yet:")."""


def call(function, label, *args, **kwargs):
    """``function(*args, **kwargs)``; an exception in it becomes :class:`Wrong` naming
    ``label`` (how the call reads to the learner, e.g. ``"step_batch(2, 32)"``)."""
    try:
        return function(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as error:            # the learner's code may raise anything
        raise Wrong(f"{label} raised {type(error).__name__}: {error}") from None


def as_number(value, label, what="one plain number such as 0.1 or 64"):
    """``value`` as a finite float, or :class:`Wrong` saying what ``label`` returned."""
    if value is None:
        raise Wrong(f"{label} returned None: end your function with `return ...` ({what})")
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not is_number(value):
        raise Wrong(f"{label} returned a {type(value).__name__}; return {what}")
    if not math.isfinite(float(value)):
        raise Wrong(f"{label} returned {value}; look for a division by zero")
    return float(value)


def as_array(value, label, shape, what="its result", finite=True):
    """``value`` (NumPy, an MXNet NDArray, a list) as a float64 array of ``shape``."""
    if value is None:
        raise Wrong(f"{label} returned None for {what}: end it with `return ...`")
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise Wrong(f"{label} returned a {type(value).__name__} for {what}; return a NumPy "
                    f"array of numbers") from None
    if array.shape != tuple(shape):
        raise Wrong(f"{label} returned {what} with shape {array.shape}; it must have shape "
                    f"{tuple(shape)}")
    if finite and not np.all(np.isfinite(array)):
        raise Wrong(f"{label} returned nan or inf in {what}; look for a division by zero or "
                    f"the square root of a negative number")
    return array


def first_sentence(text):
    """The text up to its first full stop followed by a space (or all of it).

    >>> first_sentence("kept units equal x: scale them. Then the mean stays.")
    'kept units equal x: scale them.'
    """
    for i, char in enumerate(text):
        if char in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            return text[:i + 1]
    return text
