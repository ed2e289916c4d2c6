"""SyncBatchNorm that refuses, with the fix, every training-mode forward that would wait forever.

MXNet's ``SyncBatchNorm(num_devices=K)`` waits, inside the operator, until K devices
have each run its forward; nothing can stop that wait (Ctrl-C neither: the kernel must be
restarted). So a training-mode forward is let through only inside :func:`sync_step`,
which the trainers enter around their forward passes on the K devices, after
``tutorial.engine.check_sync_batchnorm`` (the engine can run K of them side by side, and
the layers were built for K). Anywhere else (one forward under ``autograd.record()``,
``nn.fit``) the layer raises a ValueError before MXNet is called. A layer built for one
device waits for no one, and prediction mode (no ``autograd.record()``) uses the running
statistics: both always run. Hybridizing would skip this check, so it is refused.

>>> import mxnet as mx
>>> from mxnet import autograd
>>> layer = GuardedSyncBatchNorm(in_channels=2, num_devices=2); layer.initialize()
>>> layer(mx.nd.ones((1, 2, 3, 3))).shape                     # prediction mode
(1, 2, 3, 3)
>>> with autograd.record():
...     layer(mx.nd.ones((1, 2, 3, 3)))
Traceback (most recent call last):
...
ValueError: this net's SyncBatchNorm layers wait for num_devices=2 devices ...
"""

import contextlib
import contextvars

from mxnet import autograd
from mxnet.gluon.contrib.nn import SyncBatchNorm

from tutorial.engine import check_sync_batchnorm

_DEVICES_IN_STEP = contextvars.ContextVar("devices_in_sync_step", default=0)


@contextlib.contextmanager
def sync_step(net, devices):
    """Let ``net``'s SyncBatchNorm layers run their training forward on ``devices`` in
    this block; a ValueError with the fix first if that would wait forever."""
    check_sync_batchnorm(devices, net=net)
    token = _DEVICES_IN_STEP.set(len(devices))
    try:
        yield
    finally:
        _DEVICES_IN_STEP.reset(token)


class GuardedSyncBatchNorm(SyncBatchNorm):
    """``SyncBatchNorm`` whose training forward runs only inside :func:`sync_step`."""

    def forward(self, x, *args):
        devices = self._kwargs["ndev"]
        if autograd.is_training() and devices > 1 and _DEVICES_IN_STEP.get() != devices:
            raise ValueError(
                f"this net's SyncBatchNorm layers wait for num_devices={devices} devices in "
                f"every training-mode forward, so this one forward would wait forever: train "
                f"it on {devices} devices with DataParallelTrainer, GluonDataParallel or "
                f"LocalSGD, or build it with norm='batch' (or num_devices=1) to train it "
                f"here.")
        return super().forward(x, *args)

    def hybridize(self, active=True, **kwargs):
        if active:
            raise ValueError("a net with SyncBatchNorm runs imperatively in this course: "
                             "hybridized, its layers could not refuse a forward that would "
                             "wait forever. Leave it as it is (no net.hybridize()).")
        super().hybridize(active, **kwargs)
