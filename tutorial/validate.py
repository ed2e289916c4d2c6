"""The one place that checks a learner's arguments: numbers in a range, whole counts.

Standard library only (the parameter-server launcher imports it without MXNet).
NumPy scalars count as numbers (``np.float32(0.1)`` is a fine learning rate); ``bool``
does not, and neither do NaN or an infinity, unless a range says so.

>>> check_range("momentum", 0.9, 0.0, 1.0, high_open=True)
0.9
>>> check_range("momentum", 1.5, 0.0, 1.0, high_open=True)
Traceback (most recent call last):
...
ValueError: momentum=1.5 is out of range: use a number in [0.0, 1.0).
>>> check_range("learning_rate", float("inf"), 0.0)
Traceback (most recent call last):
...
ValueError: learning_rate=inf is out of range: use a finite number in [0.0, inf).
>>> check_flag("causal", "False")
Traceback (most recent call last):
...
ValueError: causal must be True or False, got 'False'.
>>> check_count("batch_size", 0)
Traceback (most recent call last):
...
ValueError: batch_size must be a whole number >= 1, got 0.
"""

import math
import numbers


def is_number(value):
    """True for int, float and NumPy scalars; False for bool, strings, arrays, None."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_range(name, value, low=None, high=None, low_open=False, high_open=False):
    """Return ``float(value)`` (or the int itself) if it is a finite number in the range.

    Otherwise raise ValueError naming the argument and the allowed interval.
    """
    ok = is_number(value) and math.isfinite(float(value))
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        interval = "%s%s, %s%s" % ("(" if low_open or low is None else "[",
                                   "-inf" if low is None else low,
                                   "inf" if high is None else high,
                                   ")" if high_open or high is None else "]")
        finite = "finite " if is_number(value) and not math.isfinite(float(value)) else ""
        raise ValueError("%s=%r is out of range: use a %snumber in %s."
                         % (name, _plain(value), finite, interval))
    return value if isinstance(value, numbers.Integral) else float(value)


def check_count(name, value, low=1, what=""):
    """Return ``int(value)`` if it is a whole number >= ``low``; else a ValueError.

    ``what`` says what the count is (shown in the message).
    """
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        detail = f" ({what})" if what else ""
        raise ValueError(f"{name} must be a whole number >= {low}{detail}, got {_plain(value)!r}.")
    return int(value)


def check_flag(name, value):
    """Return ``value`` if it is True or False (a NumPy bool too); else a ValueError.

    A string is refused: ``causal="False"`` is truthy and would mean True.
    """
    numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")
    if not (isinstance(value, bool) or numpy_bool):
        raise ValueError(f"{name} must be True or False, got {_plain(value)!r}.")
    return bool(value)


def as_host_array(value):
    """An MXNet NDArray as the NumPy array it holds (``.asnumpy()``); anything else as it is.

    NumPy reads an NDArray as a sequence of NDArrays and fails with "setting an array
    element with a sequence", so functions that take NumPy arrays call this first.
    """
    return value.asnumpy() if hasattr(value, "asnumpy") else value


def _plain(value):
    """NumPy scalars print as Python numbers in messages."""
    return value.item() if hasattr(value, "item") and is_number(value) else value
