"""Splitting a minibatch over devices: the "shard data over machines" of the deck.

A batch of n samples on k devices gives each device ``n // k`` samples, and the first
``n % k`` devices one more, so an uneven split is allowed (10 samples on 4 devices:
3, 3, 2, 2). It is harmless as long as the gradients are summed over all samples and
divided by the *total* batch (see ``tutorial.parallel.trainer``). Fewer samples than
devices would leave a device with nothing to do: that is an error with the fix.

>>> split_sizes(10, 4)
[3, 3, 2, 2]
>>> split_sizes(8, 2)
[4, 4]
>>> split_sizes(1, 2)
Traceback (most recent call last):
...
ValueError: cannot split a batch of 1 sample(s) over 2 devices: ... Use a batch of at least 2, or fewer devices.
"""

import mxnet as mx
import numpy as np

from tutorial.parallel.collectives.schedule import chunk_bounds
from tutorial.validate import check_count


def split_sizes(n, k):
    """How many of ``n`` samples each of ``k`` devices gets (the first ones get the extras)."""
    k = check_count("k", k, what="devices")
    n = check_count("n", n, low=0, what="samples")
    if n < k:
        raise ValueError(
            f"cannot split a batch of {n} sample(s) over {k} devices: every device needs at "
            f"least one sample. Use a batch of at least {k}, or fewer devices.")
    return [stop - start for start, stop in chunk_bounds(n, k)]   # a collective's chunks too


def split_batch(X, y, devices):
    """One ``(X_i, y_i)`` pair of NDArrays per device, copied to that device.

    ``X`` and ``y`` are NumPy arrays or NDArrays with the batch along axis 0.
    """
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}: give one label per sample")
    sizes = split_sizes(len(X), len(devices))
    shards, start = [], 0
    for device, size in zip(devices, sizes):
        shards.append((_to(X[start:start + size], device), _to(y[start:start + size], device)))
        start += size
    return shards


def _to(array, device):
    if isinstance(array, mx.nd.NDArray):
        return array.as_in_context(device)
    return mx.nd.array(np.asarray(array), ctx=device, dtype=np.asarray(array).dtype)
