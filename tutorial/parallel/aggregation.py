"""The aggregation seam: sum each parameter's gradient over the devices, in place.

After ``aggregate(grad_lists)`` every device's gradient of every parameter holds the
SUM over devices (an allreduce). Two families plug in:

- ``'device'``, ``'local'`` (and ``'nccl'`` where MXNet was built with it): an MXNet
  kvstore, the deck's "(key, value) store": push the gradients, pull back their sum;
- ``'ps'``, ``'tree'``, ``'butterfly'``, ``'ring'``: the allreduce algorithms of
  ``tutorial.parallel.collectives`` (``allreduce(arrays, algorithm).arrays`` holds the sum
  on each input's device; the inputs are left alone, so we copy the sums back).

Any callable ``aggregate(grad_lists)`` that writes into the gradients plugs in too, e.g.
the compressed aggregations of ``tutorial.parallel.compression``.

With one device there is nothing to add up, and the aggregator does nothing.

>>> import mxnet as mx
>>> grads = [[mx.nd.array([1.0, 2.0], ctx=mx.cpu(0)), mx.nd.array([3.0, 4.0], ctx=mx.cpu(1))]]
>>> make_aggregator('local', [mx.cpu(0), mx.cpu(1)])(grads)
>>> [g.asnumpy().tolist() for g in grads[0]]
[[4.0, 6.0], [4.0, 6.0]]
"""

import mxnet as mx

from tutorial.parallel.collectives import allreduce
from tutorial.parallel.collectives.dispatch import ALGORITHMS as COLLECTIVES

KVSTORE_TYPES = ("device", "local")
AGGREGATIONS = KVSTORE_TYPES + COLLECTIVES


def nccl_available():
    """True when this MXNet build was compiled with NCCL (the PyPI CPU wheel is not)."""
    return mx.runtime.Features().is_enabled("NCCL")


def check_aggregation(name):
    """Raise a ValueError that says what to use instead if ``name`` cannot run here."""
    if name == "nccl":
        if not nccl_available():
            raise ValueError(
                "kvstore 'nccl' needs an MXNet built with NCCL (USE_NCCL=1), and this one has "
                "none (the CPU wheel never does; NCCL only runs between NVIDIA GPUs). Use "
                "'device' instead: it sums on the devices themselves and is what 'nccl' would "
                "speed up.")
        return name
    if name not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {name!r}: choose one of {', '.join(AGGREGATIONS)}")
    return name


class KVStoreAggregation:
    """Sum gradients with an MXNet kvstore: push every device's copy, pull the sum back."""

    def __init__(self, kvstore_type):
        self.kvstore = mx.kv.create(kvstore_type)
        self._initialised = False

    def __call__(self, grad_lists):
        if not self._initialised:          # one key per parameter, as gluon.Trainer does
            for key, grads in enumerate(grad_lists):
                self.kvstore.init(key, mx.nd.zeros(grads[0].shape, ctx=grads[0].context))
            self._initialised = True
        for key, grads in enumerate(grad_lists):
            self.kvstore.pushpull(key, grads, priority=-key)   # out=None: sum lands in grads


class CollectiveAggregation:
    """Sum gradients with one of our allreduce algorithms, parameter by parameter."""

    def __init__(self, algorithm):
        self.algorithm = algorithm

    def __call__(self, grad_lists):
        for grads in grad_lists:
            result = allreduce(grads, self.algorithm)
            for grad, summed in zip(grads, result.arrays):
                grad[:] = summed


def _no_aggregation(grad_lists):
    """One device: its gradient already is the sum."""


def make_aggregator(name, devices):
    """A callable that turns per-device gradients into their sum on every device
    (``name`` may be such a callable already: it is used as it is)."""
    if callable(name):
        return name
    check_aggregation(name)
    if len(devices) == 1:
        return _no_aggregation
    if name in COLLECTIVES:
        return CollectiveAggregation(name)
    return KVStoreAggregation(name)
