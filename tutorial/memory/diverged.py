"""When the memory trainers stop: a NaN or infinity, named with its step and its cause.

:class:`~tutorial.memory.zero.ZeroTrainer` and :func:`~tutorial.memory.mixed_precision.train`
hold their weights as plain NDArrays, not Gluon Parameters, so they cannot call
:func:`tutorial.finite.check_parameters`. They call these instead, before the update,
and stop as every other trainer of the course does, with
:class:`~tutorial.finite.TrainingDiverged`. The error names the first cause it finds: a
NaN or infinity in the batch itself (no learning rate fixes that), then the array that
holds one (a weight or gradient), else the loss.

>>> import mxnet as mx, numpy as np
>>> check_arrays([("layer 1's weight", mx.nd.array([1.0, np.nan]))], step=3,
...              learning_rate=0.1)
Traceback (most recent call last):
...
tutorial.finite.TrainingDiverged: layer 1's weight holds NaN at step 3, so training stopped before the update. Lower the learning rate (it is 0.1; try 0.05 or less) and run again.
>>> check_loss(float("nan"), step=2, learning_rate=0.1, batch=np.array([[0.0], [np.inf]]))
Traceback (most recent call last):
...
tutorial.finite.TrainingDiverged: the batch of step 2 holds an infinity (sample 1), so the loss became nan and training stopped before the update: ...
"""

import math

import numpy as np

from tutorial.finite import TrainingDiverged, all_finite, finite_on_host
from tutorial.validate import as_host_array


def _what(values):
    return "NaN" if np.isnan(values).any() else "an infinity"


def _advice(learning_rate):
    if learning_rate is None:
        return "Lower the learning rate and run again."
    return (f"Lower the learning rate (it is {learning_rate:g}; try {learning_rate / 2:g} "
            f"or less) and run again.")


def check_batch(batch, step, loss=None):
    """TrainingDiverged naming the first sample of ``batch`` (NumPy or NDArray) that holds
    a NaN or infinity; nothing if it has none."""
    if batch is None:
        return
    values = np.asarray(as_host_array(batch), dtype=np.float64)
    bad = ~np.isfinite(values.reshape(len(values), -1)).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        became = f"so the loss became {loss} and " if loss is not None else "so "
        raise TrainingDiverged(
            f"the batch of step {step} holds {_what(values[i])} (sample {i}), {became}training "
            f"stopped before the update: clean the data (keep the rows where "
            f"np.isfinite(X).all(axis=1)) and run again.")


def check_arrays(named, step, learning_rate, batch=None):
    """TrainingDiverged naming the first of ``named`` = [(what, NDArray), ...] that holds
    a NaN or infinity (the batch first, when it is the cause); nothing when all are finite.

    One number is read back when all are finite (:func:`tutorial.finite.all_finite`).
    """
    if all_finite([array for _, array in named]):
        return
    check_batch(batch, step)
    what, array = next((w, a) for w, a in named if not finite_on_host(a))
    raise TrainingDiverged(f"{what} holds {_what(array.asnumpy())} at step {step}, so training "
                           f"stopped before the update. " + _advice(learning_rate))


def check_loss(loss, step, learning_rate, batch=None, weights=()):
    """Return ``loss`` if it is finite; else TrainingDiverged naming the batch, a weight
    among ``weights`` = [(what, NDArray), ...] or the loss, whichever is the cause."""
    if math.isfinite(loss):
        return loss
    check_batch(batch, step, loss)
    check_arrays(weights, step, learning_rate)
    raise TrainingDiverged(f"the loss became {loss} at step {step}, so training stopped before "
                           f"the update. " + _advice(learning_rate))
