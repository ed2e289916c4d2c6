"""Gradient clipping: element-wise, by global norm, and the deck's momentum-with-clipping step.

Element-wise clipping (MXNet's ``clip_gradient``) caps each coordinate and so can turn
the direction; global-norm clipping shrinks all gradients by one factor and keeps it.

>>> import mxnet as mx
>>> grads = [mx.nd.array([3.0, 0.0]), mx.nd.array([4.0])]     # global norm 5
>>> clip_global_norm(grads, max_norm=1.0)
5.0
>>> [[round(float(x), 3) for x in g.asnumpy()] for g in grads]
[[0.6, 0.0], [0.8]]
>>> clip_elementwise(mx.nd.array([3.0, -0.5]), 1.0).asnumpy().tolist()
[1.0, -0.5]
"""

import math

import mxnet as mx

from tutorial.validate import check_range


def clip_elementwise(array, bound):
    """A new array with every entry clipped to [-bound, bound]."""
    check_range("bound", bound, 0.0, low_open=True)
    return mx.nd.clip(array, -bound, bound)


def global_norm(arrays):
    """sqrt(Σ ||a||²) over all arrays, as a Python float."""
    total = mx.nd.add_n(*[mx.nd.sum(mx.nd.square(a.astype("float32"))).as_in_context(
        arrays[0].context) for a in arrays])
    return math.sqrt(float(total.asscalar()))


def clip_global_norm(arrays, max_norm):
    """Scale ``arrays`` in place by min(1, max_norm / norm); return the norm *before* clipping.

    Raises ValueError when the norm is nan or inf (clipping cannot rescue that step).
    """
    check_range("max_norm", max_norm, 0.0, low_open=True)
    if not arrays:
        raise ValueError("clip_global_norm needs at least one array.")
    norm = global_norm(arrays)
    if not math.isfinite(norm):
        raise ValueError("The gradient norm is %s: the step diverged before clipping. Lower "
                         "the learning rate or check the loss for nan." % norm)
    if norm > max_norm:
        for array in arrays:
            array *= max_norm / norm
    return norm


def momentum_clip_step(weight, grad, velocity, lr, momentum, wd=0.0, clip_gradient=None):
    """The deck's "SGD with momentum and clipping", in place on ``weight`` and ``velocity``::

        s = momentum * s + lr * clip(g) + lr * wd * w
        w = w - s

    MXNet's ``sgd`` with momentum is the same with its buffer m = -s.

    >>> w, s = mx.nd.array([1.0]), mx.nd.zeros(1)
    >>> momentum_clip_step(w, mx.nd.array([5.0]), s, lr=0.1, momentum=0.9, clip_gradient=1.0)
    >>> round(float(w.asscalar()), 6), round(float(s.asscalar()), 6)
    (0.9, 0.1)
    """
    check_range("lr", lr, 0.0)
    check_range("momentum", momentum, 0.0, 1.0, high_open=True)
    check_range("wd", wd, 0.0)
    g = clip_elementwise(grad, clip_gradient) if clip_gradient is not None else grad
    velocity *= momentum
    velocity += lr * g + (lr * wd) * weight
    weight -= velocity
