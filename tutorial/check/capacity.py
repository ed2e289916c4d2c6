"""Exercise checker for notebook 04_capacity: write inverted dropout in NumPy.

The learner writes ``dropout(x, rate, rng)``: zero each entry of ``x`` with probability
``rate``, scale the kept ones by ``1 / (1 - rate)``, and draw from the ``rng`` it is given
(a ``np.random.Generator``). The checker runs it on 200,000 units with fixed seeds and
names the first thing that is wrong (no scaling, rate read as the keep probability, one
mask shared by the batch, a reseeded generator, ...). Statistical checks use bounds of
5 standard errors, so a right answer passes and a wrong one fails whatever the seed.
Masks are random, so the mistakes are recognised by what they do, not by a table of
wrong answers run on the same draws. The notebook imports the course's ``Dropout`` and
Gluon's: an answer that runs their code (or MXNet's dropout operator) is refused
(:mod:`tutorial.check.own_work`).

>>> def dropout(x, rate, rng):
...     keep = rng.uniform(size=x.shape) >= rate
...     return x * keep / (1 - rate)
>>> print(check_dropout(dropout))
Correct: drops a fraction 0.501 at rate 0.5 (and 0.200 at rate 0.2), scales kept units by 1/(1 - rate), keeps the mean, draws a fresh mask per call.
>>> print(check_dropout(lambda x, rate, rng: x * (rng.uniform(size=x.shape) >= rate)).text)
Not yet: kept units equal x: scale them by 1 / (1 - rate), so that the mean of the output stays the mean of x and nothing needs rescaling when predicting.
"""

import mxnet as mx
import numpy as np

from tutorial.check.answers import Wrong, as_array, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.own_work import refuse_if_called, watching
from tutorial.nn import dropout as course_dropout

# library code that applies dropout: the course's block and mask, Gluon's block, MXNet's op
REFERENCES = (course_dropout.inverted_mask, course_dropout.Dropout.forward,
              mx.gluon.nn.Dropout.hybrid_forward, mx.nd.Dropout, mx.npx.dropout)

SIGMAS = 5


def _run(dropout, x, rate, rng):
    label = f"dropout(x, {rate}, rng)"
    with watching(*REFERENCES) as seen:
        out = call(dropout, label, x.copy(), rate, rng)
    refuse_if_called(seen, "dropout")
    return as_array(out, label, x.shape, "the dropped-out x")


def _check_values(out, x, rate):
    """Kept units must be x / (1 - rate); name the usual ways they are not."""
    kept = out != 0
    ratio = out[kept] / x[kept]
    if kept.any() and not np.allclose(ratio, 1 / (1 - rate), rtol=1e-4):
        typical = float(np.median(ratio))
        if np.isclose(typical, 1.0):
            raise Wrong("kept units equal x: scale them by 1 / (1 - rate), so that the mean of "
                        "the output stays the mean of x and nothing needs rescaling when "
                        "predicting.")
        if np.isclose(typical, 1 - rate) or np.isclose(typical, rate):
            raise Wrong(f"kept units are x times {typical:.3g}: divide by (1 - rate) instead "
                        f"of multiplying.")
        raise Wrong(f"kept units should be x / (1 - rate) = {1 / (1 - rate):.4g} x; yours are "
                    f"about {typical:.4g} x.")
    if np.all(kept == kept[:1]):
        raise Wrong("every row got the same mask: draw one value per unit, not one per "
                    "feature shared by the whole batch.")


def _check_statistics(out, x, rate):
    """The fraction dropped is rate, and the mean is kept, to 5 standard errors."""
    dropped = 1 - (out != 0).mean()
    bound = SIGMAS * np.sqrt(rate * (1 - rate) / x.size)
    if abs(dropped - rate) > bound:
        if abs(dropped - (1 - rate)) <= bound:
            raise Wrong(f"you dropped a fraction {dropped:.3f} at rate {rate}: rate is the "
                        f"probability of dropping a unit, not of keeping it.")
        raise Wrong(f"you dropped a fraction {dropped:.3f} of the units at rate {rate}; "
                    f"expected {rate} +- {bound:.3f}.")
    se_mean = np.sqrt((x ** 2).mean() * rate / (1 - rate) / x.size)
    if abs(out.mean() - x.mean()) > SIGMAS * se_mean:
        raise Wrong(f"the mean moved from {x.mean():.4f} to {out.mean():.4f}")
    return dropped


@checker("dropout", "dropout(x, rate, rng) with a NumPy array x, a float rate in [0, 1) and "
                    "a np.random.Generator rng, returning an array shaped like x")
def check_dropout(dropout):
    """Run the learner's ``dropout(x, rate, rng)`` and say what, if anything, is wrong."""
    x = np.random.default_rng(20240).uniform(0.5, 1.5, size=(500, 400))
    rng = np.random.default_rng(1)
    first = _run(dropout, x, 0.5, rng)
    _check_values(first, x, 0.5)
    if np.array_equal(first, _run(dropout, x, 0.5, rng)):
        raise Wrong("two calls with the same generator gave the same mask: draw from the "
                    "rng you are given (do not reseed it), so every step gets a new mask.")
    if not np.array_equal(_run(dropout, x, 0.5, np.random.default_rng(7)),
                          _run(dropout, x, 0.5, np.random.default_rng(7))):
        raise Wrong("two generators with the same seed gave different masks: draw the mask "
                    "from the rng you are given, not from np.random, mx.random or a layer, so "
                    "that a seed reproduces the run.")
    dropped = _check_statistics(first, x, 0.5)
    low = _run(dropout, x, 0.2, np.random.default_rng(2))
    _check_values(low, x, 0.2)
    dropped_low = _check_statistics(low, x, 0.2)
    if not np.allclose(_run(dropout, x, 0.0, np.random.default_rng(4)), x):
        raise Wrong("at rate 0 nothing may be dropped: the output must equal x.")
    return Verdict(True, f"Correct: drops a fraction {dropped:.3f} at rate 0.5 (and "
                         f"{dropped_low:.3f} at rate 0.2), scales kept units by 1/(1 - rate), "
                         f"keeps the mean, draws a fresh mask per call.")
