"""The model and data the data-parallel notebook, dashboard, tests and benchmark train.

The model is the course's digits MLP, :func:`tutorial.nn.mlp.mlp`: small enough for two
CPU cores, real enough to show loss and accuracy move. Its weights are drawn with NumPy
from a seed, so two nets built with the same seed start bit-for-bit equal on any device.
No BatchNorm and no Dropout: both would make K devices differ from one device (batch
statistics per shard, random masks per device). The data are endless full minibatches
of scikit-learn's 8x8 digits; :func:`mnist_batches` gives MNIST-5k images for the CNN.

>>> X, y = next(digits_batches(batch_size=16, seed=0))
>>> X.shape, y.shape
((16, 64), (16,))
"""

import numpy as np

from tutorial.data import load_digits, load_mnist5k_images
from tutorial.nn.mlp import mlp  # noqa: F401  the workload's model (the parallel modules import it from here)
from tutorial.validate import check_count


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


def mnist_batches(batch_size, seed=0, data=None):
    """Endless shuffled minibatches of MNIST-5k images: X (batch, 1, 28, 28), y (batch,).

    The CNN's data (``tutorial.nn.resnet``); ``data`` = ``(X, y)`` overrides the images,
    e.g. a training split.

    >>> X, y = next(mnist_batches(batch_size=8, seed=0))
    >>> X.shape, X.dtype, y.shape
    ((8, 1, 28, 28), dtype('float32'), (8,))
    """
    return digits_batches(batch_size, seed, load_mnist5k_images() if data is None else data)


def _endless(X, y, batch_size, seed):
    """The generator itself (a separate function, so bad arguments fail at the call)."""
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(X))
        for start in range(0, len(X) - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield X[idx], y[idx]
