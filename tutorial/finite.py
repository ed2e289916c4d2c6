"""Stop at the first NaN or infinity in the loss, a gradient or a weight: every training loop.

Every training loop of the library (``nn.fit``, the data-parallel trainers, local SGD,
the pipeline executor) calls these checks, so this module sits at the top of the
package, below both ``nn`` and ``parallel``.

A finite loss does not prove finite parameters: oneDNN's ReLU (MXNet's default on CPU)
maps NaN to 0, so a NaN weight in a hidden layer can sit behind a perfectly finite loss
while training goes on; without oneDNN (``MXNET_MKLDNN_ENABLED=0``) the same run fails
steps later with an error that no longer points at the cause. The trainers therefore
check every gradient they are about to apply and every weight they are about to update,
before the update, and name the step, the parameter and which of the two it was.

Cost: one fused ``multi_sum_sq`` per device (the kernel LAMB uses: it reads each array
once and writes one number per array), their sum on one device, and a single number read
back per step. A NaN or infinity anywhere makes that number non-finite. So can a sum of
squares that overflows (entries above about 1e19): only then, and on a real NaN, are the
arrays copied to the host and checked exactly, one by one. (MXNet's ``multi_all_finite``
would need no such second look, but on the CPU it is several times slower.)

>>> import mxnet as mx
>>> from mxnet import gluon
>>> net = gluon.nn.Dense(2, in_units=3, prefix="out_"); net.initialize()
>>> check_parameters(net.collect_params().values(), step=1, learning_rate=0.1)
>>> net.weight.set_data(mx.nd.full((2, 3), float('nan')))
>>> check_parameters(net.collect_params().values(), step=4, learning_rate=0.1)
Traceback (most recent call last):
...
tutorial.finite.TrainingDiverged: the weight out_weight holds NaN at step 4: it became so after the update of step 3, ...
"""

import math

import mxnet as mx
import numpy as np
from mxnet import autograd


CHUNK = 100     # arrays per multi_sum_sq call (its GPU kernel takes a bounded number)


class TrainingDiverged(FloatingPointError):
    """The loss, a gradient or a weight is NaN or infinite: the step was not applied."""


def check_finite(loss, step, learning_rate):
    """Raise :class:`TrainingDiverged` with the fix if ``loss`` is NaN or infinite.

    >>> check_finite(float('nan'), step=3, learning_rate=5.0)
    Traceback (most recent call last):
    ...
    tutorial.finite.TrainingDiverged: the loss became nan at step 3, ... Lower the learning rate (it is 5; try 2.5 or less) and run again.
    """
    if not math.isfinite(loss):
        raise TrainingDiverged(
            f"the loss became {loss} at step {step}, so training stopped before the update. "
            f"Lower the learning rate (it is {learning_rate:g}; try {learning_rate / 2:g} or "
            f"less) and run again.")
    return loss


def _sums_of_squares(arrays):
    """One (1,) float32 sum of squares per (device, dtype), a non-finite one for NaN/inf."""
    groups = {}
    for array in arrays:
        if array.size:
            groups.setdefault((array.context, array.dtype), []).append(array)
    sums = []
    for group in groups.values():
        for start in range(0, len(group), CHUNK):
            chunk = group[start:start + CHUNK]
            sums.append(mx.nd.multi_sum_sq(*chunk, num_arrays=len(chunk)).sum()
                        .astype("float32", copy=False))
    return sums


def finite_on_host(array):
    """The exact check, for one array: copies it to the host."""
    return bool(np.isfinite(array.asnumpy()).all())


def all_finite(arrays):
    """True when no NDArray in ``arrays`` holds NaN or an infinity; reads back one number."""
    with autograd.pause():
        sums = _sums_of_squares(arrays)
        if not sums:
            return True
        home = sums[0].context
        total = mx.nd.add_n(*[s.as_in_context(home) for s in sums]) if len(sums) > 1 \
            else sums[0]
        if math.isfinite(float(total.asscalar())):
            return True
        return all(finite_on_host(array) for array in arrays)     # NaN, inf, or overflow


def _entries(params, all_devices, gradients=True):
    """(name, 'gradient' or 'weight', array), the gradients first (they are applied next)."""
    params = [p for p in params if p.grad_req != "null"]
    grads = [(p.name, "gradient", g) for p in params
             for g in (p.list_grad() if all_devices else p.list_grad()[:1])]
    weights = [(p.name, "weight", p.list_data()[0]) for p in params]
    return grads + weights if gradients else weights


def _what(array):
    return "NaN" if np.isnan(array.asnumpy()).any() else "an infinity"


def _advice(learning_rate):
    return (f"Lower the learning rate (it is {learning_rate:g}; try {learning_rate / 2:g} or "
            f"less) or clip the gradients (clip_gradient=...), and run again.")


def check_loss(loss, params, step, learning_rate):
    """:func:`check_finite` for the loss, but when the loss is
    not finite and a weight is not either, the error names the weight (the cause).

    Costs nothing extra while the loss is finite. Without oneDNN a NaN weight makes the
    loss NaN at once; with it the loss may stay finite and :func:`check_parameters`
    finds the weight: either way the error is the same.
    """
    if not math.isfinite(loss):
        check_parameters(params, step, learning_rate, gradients=False)
    return check_finite(loss, step, learning_rate)


def check_parameters(params, step, learning_rate, all_devices=False, gradients=True):
    """Raise :class:`TrainingDiverged` naming the step, the parameter and gradient/weight.

    ``params`` are Gluon Parameters; their gradients (on the first device, or on every
    device with ``all_devices``; none with ``gradients=False``) and their weights (first
    device) are checked. Call it after the backward pass (and any aggregation), before
    the update.
    """
    entries = _entries(params, all_devices, gradients)
    if all_finite([array for _, _, array in entries]):
        return
    name, kind, array = next(e for e in entries if not finite_on_host(e[2]))
    where = f" on {array.context}" if all_devices and kind == "gradient" else ""
    if kind == "gradient":
        raise TrainingDiverged(
            f"the gradient of {name}{where} holds {_what(array)} at step {step}, so training "
            f"stopped before the update (a NaN or infinity in the inputs does this too). "
            + _advice(learning_rate))
    if step <= 1:
        raise TrainingDiverged(
            f"the weight {name} holds {_what(array)} before the first update: it was "
            f"initialised or set that way. Initialise the net again "
            f"(net.initialize(force_reinit=True)) and run again.")
    raise TrainingDiverged(
        f"the weight {name} holds {_what(array)} at step {step}: it became so after the "
        f"update of step {step - 1}, though the loss may still look finite (oneDNN's ReLU "
        f"turns NaN into 0). " + _advice(learning_rate))
