"""The model and data the data-parallel notebook, dashboard, tests and benchmark train.

A multilayer perceptron on scikit-learn's 8x8 digits: small enough for two CPU cores,
real enough to show loss and accuracy move. Its weights are drawn with NumPy from a
seed, so two nets built with the same seed start bit-for-bit equal on any device.
No BatchNorm and no Dropout: both would make K devices differ from one device (batch
statistics per shard, random masks per device).

>>> net = mlp(hidden=(32,), seed=0)
>>> [p.shape for p in net.collect_params().values()]
[(32, 64), (32,), (10, 32), (10,)]
>>> X, y = next(digits_batches(batch_size=16, seed=0))
>>> X.shape, y.shape
((16, 64), (16,))
"""

import mxnet as mx
import numpy as np
from mxnet import gluon

from tutorial.data import load_digits
from tutorial.validate import check_count

IN_FEATURES, CLASSES = 64, 10


def mlp(hidden=(128, 128), seed=0, in_features=IN_FEATURES, classes=CLASSES, ctx=None):
    """ReLU MLP ``in_features -> hidden... -> classes``, Xavier-uniform weights from ``seed``."""
    net = gluon.nn.Sequential()
    sizes = [in_features, *hidden, classes]
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        last = i == len(sizes) - 2
        net.add(gluon.nn.Dense(n_out, in_units=n_in, activation=None if last else "relu"))
    net.initialize(ctx=ctx or mx.cpu())
    rng = np.random.default_rng(seed)
    for param in net.collect_params().values():
        if param.name.endswith("weight"):
            n_out, n_in = param.shape
            limit = np.sqrt(6.0 / (n_in + n_out))
            param.set_data(rng.uniform(-limit, limit, size=param.shape).astype(np.float32))
        else:
            param.set_data(np.zeros(param.shape, dtype=np.float32))
    return net


def digits_batches(batch_size, seed=0, data=None):
    """Endless shuffled minibatches ``(X, y)`` of NumPy arrays, epoch after epoch.

    Every batch is full (the last partial batch of an epoch is dropped), so each step
    uses the same number of samples. ``data`` = ``(X, y)`` overrides the digits.
    """
    batch_size = check_count("batch_size", batch_size, what="samples per batch")
    X, y = load_digits() if data is None else data
    if len(X) != len(y):
        raise ValueError(f"data has {len(X)} rows in X but {len(y)} labels in y: "
                         f"pass (X, y) with one label per row")
    if len(X) == 0:
        raise ValueError("data has no rows: pass (X, y) with at least batch_size samples")
    if batch_size > len(X):
        raise ValueError(f"batch_size {batch_size} is larger than the {len(X)} samples; "
                         f"use at most {len(X)}")
    return _endless(X, y, batch_size, seed)


def _endless(X, y, batch_size, seed):
    """The generator itself (a separate function, so bad arguments fail at the call)."""
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(X))
        for start in range(0, len(X) - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield X[idx], y[idx]
