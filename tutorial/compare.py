"""How far apart two sets of weights are, as one number relative to the reference's size.

The same net trained two ways (from scratch and with the library, on one device and on K)
must end with the same weights up to float32 rounding. ``relative_difference`` measures
that: the largest, over the arrays, of ``max|a - b| / max|b|``. The second argument is
the reference, as in ``numpy.testing.assert_allclose(actual, desired)``.

NumPy only (no MXNet): arrays are NumPy arrays, or anything with ``asnumpy()``.

>>> import numpy as np
>>> ours = [np.array([1.0, 2.0]), np.array([10.0])]
>>> reference = [np.array([1.0, 2.1]), np.array([10.0])]
>>> round(relative_difference(ours, reference), 6)      # 0.1 / 2.1
0.047619
>>> relative_difference({"w": np.ones(3)}, {"w": np.ones(3)})
0.0
>>> relative_difference([np.array([np.nan])], [np.array([1.0])])
nan
"""

import math

import numpy as np


def relative_difference(actual, desired):
    """Largest ``max|a - b| / max|b|`` over matching arrays of ``actual`` and ``desired``.

    Both are lists of arrays, or dicts of arrays, matched by position.
    The result is NaN when any array holds a NaN, infinite when a reference array is all
    zeros and its partner is not, and 0 for identical weights.
    """
    pairs = _pairs(actual, desired)
    worst = 0.0
    for where, a, b in pairs:
        if a.shape != b.shape:
            raise ValueError(f"{where}: shapes {a.shape} and {b.shape} differ; compare the "
                             f"weights of two copies of the same net")
        if np.isnan(a).any() or np.isnan(b).any():
            return math.nan
        gap, scale = float(np.abs(a - b).max(initial=0.0)), float(np.abs(b).max(initial=0.0))
        worst = max(worst, gap / scale if scale > 0 else (0.0 if gap == 0 else math.inf))
    return worst


def _pairs(actual, desired):
    """``[(where, a, b)]`` with NumPy float arrays, after checking that the two sets match."""
    actual, desired = _arrays(actual), _arrays(desired)
    if len(actual) != len(desired):
        raise ValueError(f"{len(actual)} arrays against {len(desired)}: give the same number "
                         f"of arrays on both sides (the weights of two copies of one net)")
    if not actual:
        raise ValueError("there is nothing to compare: both sides hold no arrays")
    return [(f"array {i}", _as_numpy(a, f"array {i}"), _as_numpy(b, f"array {i}"))
            for i, (a, b) in enumerate(zip(actual, desired))]


def _arrays(weights):
    """The arrays of a list, or a dict's values in order (two copies of a Gluon net name
    their parameters differently, dense0_weight and dense2_weight, so keys cannot match)."""
    if isinstance(weights, dict):
        return list(weights.values())
    if hasattr(weights, "shape") or hasattr(weights, "asnumpy"):
        raise ValueError("give a list of arrays, e.g. [p.data().asnumpy() for p in "
                         "net.collect_params().values()], not a single array")
    return list(weights)


def _as_numpy(x, where):
    x = x.asnumpy() if hasattr(x, "asnumpy") else x
    if x is None:
        raise ValueError(f"{where} is not an array of numbers: got None")
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{where} is not an array of numbers: got {type(x).__name__}") from None
