"""A multilayer perceptron as data and plain functions, so that an executor can hold,
shard, free and recompute each layer's pieces itself.

A Gluon ``Sequential`` owns its weights and records its whole forward for autograd, which
keeps every activation and every weight it read alive until ``backward``. ZeRO-3 and
recomputation must decide for themselves what stays alive, so they run the same
network one layer at a time: :func:`forward` of a layer from its input, and
:func:`backward` of that layer alone (autograd on one layer, given the gradient of its
output), which returns the gradient of its input and of its weight and bias.

``params`` is a list of (weight, bias) pairs in Gluon's layout (weight: out x in), as
:func:`from_gluon` reads them from ``nn.Dense`` layers; every layer but the last is
followed by a ReLU.

>>> import mxnet as mx
>>> w, b = mx.nd.array([[1.0, -1.0]]), mx.nd.array([0.5])
>>> forward(mx.nd.array([[2.0, 1.0]]), w, b, last=True).asnumpy().tolist()
[[1.5]]
>>> dx, dw, db = backward(mx.nd.array([[2.0, 1.0]]), w, b, mx.nd.array([[1.0]]), last=True)
>>> dx.asnumpy().tolist(), dw.asnumpy().tolist(), db.asnumpy().tolist()
([[1.0, -1.0]], [[2.0, 1.0]], [1.0])
"""

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon


def check_rows(X, y, features, layer="the first layer", y_name="y"):
    """A ValueError with the fix unless ``X`` is (samples, ``features``) with at least one
    sample and ``y`` holds one label per sample (``layer`` and ``y_name`` name them)."""
    if np.ndim(X) != 2 or len(X) == 0 or np.shape(X)[1] != features:
        raise ValueError(f"X must be (samples, {features}), at least one sample, for "
                         f"{layer}'s {features} inputs; got shape {np.shape(X)}")
    if len(y) != len(X):
        named = f"{y_name} " if y_name else ""
        raise ValueError(f"X has {len(X)} samples but {named}{len(y)} labels: give one label "
                         f"per sample")


def mlp(widths, prefix="mlp_"):
    """A Gluon MLP widths[0] -> ... -> widths[-1], ReLU between layers (the reference)."""
    net = gluon.nn.Sequential(prefix=prefix)
    with net.name_scope():
        for k, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
            last = k == len(widths) - 2
            net.add(gluon.nn.Dense(b, in_units=a, activation=None if last else "relu"))
    return net


def from_gluon(net, ctx=None):
    """[(weight, bias), ...] copies of ``net``'s Dense layers (NumPy when ``ctx`` is None)."""
    pairs = []
    for layer in net:
        w, b = layer.weight.data(), layer.bias.data()
        pairs.append((w.asnumpy(), b.asnumpy()) if ctx is None else
                     (w.copyto(ctx), b.copyto(ctx)))
    return pairs


def forward(x, weight, bias, last):
    """One layer: x W^T + b, then ReLU unless it is the last."""
    y = mx.nd.FullyConnected(x, weight, bias, num_hidden=weight.shape[0])
    return y if last else mx.nd.relu(y)


def backward(x, weight, bias, grad_out, last, need_input_grad=True):
    """(dx, dW, db) of one layer, by autograd on this layer alone (its forward re-run).

    ``x`` and the weights are not changed; ``dx`` is None when ``need_input_grad`` is False.
    """
    x, weight, bias = x.detach(), weight.detach(), bias.detach()
    for a in (weight, bias) + ((x,) if need_input_grad else ()):
        a.attach_grad()
    with autograd.record():
        y = forward(x, weight, bias, last)
    y.backward(grad_out)
    return (x.grad if need_input_grad else None), weight.grad, bias.grad


def backward_working_floats(rows, width, last=False):
    """Numbers :func:`backward` of a layer with ``width`` outputs on ``rows`` samples makes
    inside itself and lets go before it returns: its output recomputed before and after the
    ReLU and the gradient through the ReLU (3 arrays), or the output alone for the last
    layer (no ReLU; the gradient it is given is the gradient of that output).

    >>> backward_working_floats(64, 128), backward_working_floats(64, 10, last=True)
    (24576, 640)
    """
    return rows * width * (1 if last else 3)


def loss_grad(scores, labels, total):
    """Mean softmax cross-entropy over ``total`` samples: (its gradient w.r.t. ``scores``,
    the summed loss of these rows). Rows of one device's slice add up to the batch's."""
    scores = scores.detach()
    scores.attach_grad()
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(scores, labels).sum() / total
    loss.backward()
    return scores.grad, float(loss.asscalar()) * total
