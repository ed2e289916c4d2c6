"""Does a batch fit the net? Feature count and class labels, checked before any MXNet work.

Two mistakes train silently or fail deep inside MXNet: rows with the wrong number of
features (MXNet's shape error names an internal operator), and labels that are not class
indices. ``SoftmaxCrossEntropyLoss`` picks the score of each label with ``mode='clip'``:
label 10 of a 10-class net silently counts as 9, label -1 as 0, and 2.7 as 2.

The net's first and last fully connected layers tell the expected features and the
number of classes (``Sequential`` containers are looked through; Dropout and Activation
layers keep the shape). When the layers do not tell (a convolution first, deferred
shapes), the trainers compare the labels with the width of the net's output instead.

>>> import mxnet as mx, numpy as np
>>> net = mx.gluon.nn.Sequential()
>>> net.add(mx.gluon.nn.Dense(8, in_units=4, activation="relu"), mx.gluon.nn.Dense(3))
>>> net_shape(net)
(4, True, 3)
>>> check_features(net, np.zeros((2, 5)))
Traceback (most recent call last):
...
ValueError: each sample has 5 features (batch of shape (2, 5)) but the net's first layer takes 4 (its in_units): give rows of 4 features, or build that layer with in_units=5.
>>> check_labels(np.array([0, 2, 3]), classes=3)
Traceback (most recent call last):
...
ValueError: label 3 (sample 2) is not a class of this net: labels must be whole numbers 0 to 2 (the net has 3 outputs).
"""

import math

import mxnet as mx
import numpy as np
from mxnet import gluon

_SAME_SHAPE = (gluon.nn.Dropout, gluon.nn.Activation, gluon.nn.LeakyReLU)


def _keeps_shape(block):
    from tutorial.nn.dropout import Dropout        # here: tutorial.nn imports this module
    return isinstance(block, _SAME_SHAPE + (Dropout,))


def _leaves(block):
    """The layers of ``block`` in the order they run; any block but a Sequential is one layer."""
    if not isinstance(block, (gluon.nn.Sequential, gluon.nn.HybridSequential)):
        return [block]
    return [leaf for child in block._children.values() for leaf in _leaves(child)]


def _dense(block):
    """(in_units or 0, units, flatten) of a fully connected layer; None for other layers."""
    if isinstance(block, gluon.nn.Dense):
        units, in_units = block.weight.shape
        return in_units, units, block._flatten
    if isinstance(getattr(block, "in_units", None), int) and isinstance(
            getattr(block, "units", None), int):                # e.g. DropConnectDense
        return block.in_units, block.units, True
    return None


def net_shape(net):
    """``(in_features, flatten, classes)`` as far as the layers tell; unknown parts are None."""
    layers = [leaf for leaf in _leaves(net) if not _keeps_shape(leaf)]
    first = _dense(layers[0]) if layers else None
    last = _dense(layers[-1]) if layers else None
    in_features, flatten = (first[0] or None, first[2]) if first else (None, True)
    return in_features, flatten, last[1] if last else None


def check_features(net, X):
    """Raise a ValueError with the fix if the rows of ``X`` do not fit the net's first layer."""
    shape = tuple(X.shape) if hasattr(X, "shape") else np.shape(X)
    if len(shape) < 2 or shape[0] == 0:
        raise ValueError(f"a batch must have at least one sample and one feature: got shape "
                         f"{shape}. Give X as (samples, features), e.g. X.reshape(1, -1) for "
                         f"a single sample.")
    expected, flatten, _ = net_shape(net)
    got = math.prod(shape[1:]) if flatten else shape[-1]
    if expected is not None and got != expected:
        raise ValueError(f"each sample has {got} features (batch of shape {shape}) but the "
                         f"net's first layer takes {expected} (its in_units): give rows of "
                         f"{expected} features, or build that layer with in_units={got}.")


def labels_on_host(y):
    """The labels as a NumPy array (NDArrays are copied from their device)."""
    return y.asnumpy() if isinstance(y, mx.nd.NDArray) else np.asarray(y)


def check_labels(y, classes=None):
    """Raise a ValueError naming the first label that is not a class index < ``classes``."""
    y = labels_on_host(y)
    if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
        raise ValueError(f"labels must be one class index per sample, shape (n,): got shape "
                         f"{y.shape}. One-hot labels? Use y.argmax(axis=1).")
    y = y.reshape(-1)
    if y.dtype.kind not in "iuf" and y.dtype != np.bool_:
        raise ValueError(f"labels must be numbers (class indices), got dtype {y.dtype}")
    y = y.astype(np.float64)
    top = classes - 1 if classes else None
    bad = ~np.isfinite(y) | (y != np.floor(y)) | (y < 0)
    if top is not None:
        bad |= y > top
    if bad.any():
        i = int(np.argmax(bad))
        value = int(y[i]) if np.isfinite(y[i]) and y[i] == np.floor(y[i]) else float(y[i])
        allowed = (f"whole numbers 0 to {top} (the net has {classes} outputs)" if top is not None
                   else "whole numbers >= 0")
        raise ValueError(f"label {value} (sample {i}) is not a class of this net: labels must "
                         f"be {allowed}.")
    return y


def batch_stream(batches):
    """An iterator over ``batches`` (a generator or a list of (X, y) pairs), or a TypeError
    saying what to give."""
    try:
        return iter(batches)
    except TypeError:
        raise TypeError(f"batches must give (X, y) pairs, e.g. digits_batches(32) or a list "
                        f"of pairs, got {type(batches).__name__}") from None


def next_batch(stream, step, steps, endless):
    """The next (X, y) of ``stream`` for step ``step`` of ``steps``, or a ValueError when it
    has run out (``endless`` names a stream that does not)."""
    pair = next(stream, None)
    if pair is None:
        raise ValueError(f"batches ran out after {step - 1} of the {steps} steps: give an "
                         f"endless stream (e.g. {endless}) or fewer steps")
    return pair


def check_batch(net, loss_fn, X, y):
    """Check ``(X, y)`` against ``net`` before a step; the labels on the host, or None.

    Labels are checked only for a classification loss (see :func:`is_classification`);
    pass the returned labels and the net's outputs to :func:`check_outputs` after the
    forward pass, for nets whose layers do not tell the number of classes.
    """
    check_features(net, X)
    if not is_classification(loss_fn):
        return None
    return check_labels(y, net_shape(net)[2])


def check_outputs(labels, outputs):
    """Labels (from :func:`check_batch`) against the width of the net's outputs."""
    if labels is not None:
        check_labels(labels, outputs[0].shape[-1])


def is_classification(loss_fn):
    """True when ``loss_fn`` reads labels as class indices (softmax cross-entropy, sparse)."""
    return (isinstance(loss_fn, gluon.loss.SoftmaxCrossEntropyLoss)
            and getattr(loss_fn, "_sparse_label", True))
