"""Exercise checker for notebook 04_capacity: write inverted dropout in NumPy.

The learner writes ``dropout(x, rate, rng)``: zero each entry of ``x`` with probability
``rate``, scale the kept ones by ``1 / (1 - rate)``, and draw from the ``rng`` it is given
(a ``np.random.Generator``). The checker runs it on 200,000 units with fixed seeds and
names the first thing that is wrong (no scaling, rate read as the keep probability, one
mask shared by the batch, a reseeded generator, ...). Statistical checks use bounds of
5 standard errors, so a right answer passes and a wrong one fails whatever the seed.

>>> def dropout(x, rate, rng):
...     keep = rng.uniform(size=x.shape) >= rate
...     return x * keep / (1 - rate)
>>> print(check_dropout(dropout))
Correct: drops a fraction 0.501 at rate 0.5 (and 0.200 at rate 0.2), scales kept units by 1/(1 - rate), keeps the mean, draws a fresh mask per call.
>>> print(check_dropout(lambda x, rate, rng: x * (rng.uniform(size=x.shape) >= rate)).text)
Not yet: kept units equal x: scale them by 1 / (1 - rate), so that the mean of the output stays the mean of x and nothing needs rescaling when predicting.
"""

import numpy as np

from tutorial.check.feedback import Verdict, checker

SIGMAS = 5


def _run(dropout, x, rate, rng):
    try:
        out = dropout(x.copy(), rate, rng)
    except NotImplementedError:
        raise _Stop("dropout raised NotImplementedError: replace it with your code") from None
    except Exception as error:                      # the learner's code: say what it raised
        raise _Stop(f"dropout(x, {rate}, rng) raised {type(error).__name__}: {error}") from None
    if out is None:
        raise _Stop("dropout returned None: end it with `return ...` (the dropped-out x)")
    out = out.asnumpy() if hasattr(out, "asnumpy") else out
    try:
        out = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise _Stop(f"dropout returned a {type(out).__name__}; return a NumPy array shaped "
                    f"like x") from None
    if out.shape != x.shape:
        raise _Stop(f"dropout must return an array shaped like x {x.shape}, got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise _Stop(f"dropout(x, {rate}, rng) returned nan or inf; look for a division by zero")
    return out


class _Stop(Exception):
    pass


def _check_values(out, x, rate):
    """Kept units must be x / (1 - rate); name the usual ways they are not."""
    kept = out != 0
    ratio = out[kept] / x[kept]
    if kept.any() and not np.allclose(ratio, 1 / (1 - rate), rtol=1e-4):
        typical = float(np.median(ratio))
        if np.isclose(typical, 1.0):
            raise _Stop("kept units equal x: scale them by 1 / (1 - rate), so that the mean of "
                        "the output stays the mean of x and nothing needs rescaling when "
                        "predicting.")
        if np.isclose(typical, 1 - rate) or np.isclose(typical, rate):
            raise _Stop(f"kept units are x times {typical:.3g}: divide by (1 - rate) instead "
                        f"of multiplying.")
        raise _Stop(f"kept units should be x / (1 - rate) = {1 / (1 - rate):.4g} x; yours are "
                    f"about {typical:.4g} x.")
    if np.all(kept == kept[:1]):
        raise _Stop("every row got the same mask: draw one value per unit (rng.uniform("
                    "size=x.shape)), not one per feature shared by the whole batch.")


def _check_statistics(out, x, rate):
    """The fraction dropped is rate, and the mean is kept, to 5 standard errors."""
    dropped = 1 - (out != 0).mean()
    bound = SIGMAS * np.sqrt(rate * (1 - rate) / x.size)
    if abs(dropped - rate) > bound:
        if abs(dropped - (1 - rate)) <= bound:
            raise _Stop(f"you dropped a fraction {dropped:.3f} at rate {rate}: rate is the "
                        f"probability of dropping a unit, not of keeping it.")
        raise _Stop(f"you dropped a fraction {dropped:.3f} of the units at rate {rate}; "
                    f"expected {rate} +- {bound:.3f}.")
    se_mean = np.sqrt((x ** 2).mean() * rate / (1 - rate) / x.size)
    if abs(out.mean() - x.mean()) > SIGMAS * se_mean:
        raise _Stop(f"the mean moved from {x.mean():.4f} to {out.mean():.4f}")
    return dropped


@checker("dropout", "dropout(x, rate, rng) with a NumPy array x, a float rate in [0, 1) and "
                    "a np.random.Generator rng, returning an array shaped like x")
def check_dropout(dropout):
    """Run the learner's ``dropout(x, rate, rng)`` and say what, if anything, is wrong."""
    x = np.random.default_rng(20240).uniform(0.5, 1.5, size=(500, 400))
    try:
        rng = np.random.default_rng(1)
        first = _run(dropout, x, 0.5, rng)
        _check_values(first, x, 0.5)
        if np.array_equal(first, _run(dropout, x, 0.5, rng)):
            raise _Stop("two calls with the same generator gave the same mask: draw from the "
                        "rng you are given (do not reseed it), so every step gets a new mask.")
        dropped = _check_statistics(first, x, 0.5)
        low = _run(dropout, x, 0.2, np.random.default_rng(2))
        _check_values(low, x, 0.2)
        dropped_low = _check_statistics(low, x, 0.2)
        if not np.allclose(_run(dropout, x, 0.0, np.random.default_rng(4)), x):
            raise _Stop("at rate 0 nothing may be dropped: the output must equal x.")
    except _Stop as stop:
        return Verdict(False, f"Not yet: {stop}")
    return Verdict(True, f"Correct: drops a fraction {dropped:.3f} at rate 0.5 (and "
                         f"{dropped_low:.3f} at rate 0.2), scales kept units by 1/(1 - rate), "
                         f"keeps the mean, draws a fresh mask per call.")
