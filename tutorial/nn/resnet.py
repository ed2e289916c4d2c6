"""A small ResNet with BatchNorm for 1x28x28 MNIST, its weights drawn from a seed.

    stem      3x3 conv, stride 2      1 x 28 x 28  ->  c0 x 14 x 14   (+ norm, ReLU)
    stage 1   residual block(s)       c0 x 14 x 14 ->  c0 x 14 x 14
    stage 2   residual block(s)       c0 x 14 x 14 ->  c1 x  7 x  7   (first one: stride 2)
    head      global average pool, Dense(classes)

A residual block is d2l's: ``relu(norm(conv(relu(norm(conv(x))))) + shortcut(x))``, the
shortcut a 1x1 convolution (and norm) where the shape changes. The stride-2 stem keeps it
cheap: about 0.5 MFLOP per image with the default widths, so an epoch of MNIST-5k takes
seconds on two CPU cores.

``norm`` picks the normalisation layer, the subject of the large-batch CNN notebook:

- ``"batch"``: ``gluon.nn.BatchNorm``. Under data parallelism every device normalises its
  own shard with that shard's mean and variance ("ghost" batch norm, Hoffer et al. 2017);
- ``"sync"``: ``mxnet.gluon.contrib.nn.SyncBatchNorm(num_devices=K)``: the K devices
  share their sums, so each normalises with the statistics of the WHOLE batch (guarded:
  :mod:`tutorial.nn.sync_batchnorm` refuses a training forward outside the trainers,
  which would wait forever);
- ``None``: no normalisation (convolutions with a bias instead).

Weights: He-uniform (uniform in +-sqrt(6 / fan_in)) drawn by ``np.random.default_rng(seed)``
in the order of ``collect_params()``; biases and beta 0, gamma 1, running mean 0 and
running variance 1. Two nets with the same seed start bit-for-bit equal, whatever the norm.

>>> net = resnet(seed=0)
>>> import mxnet as mx
>>> net(mx.nd.zeros((2, 1, 28, 28))).shape
(2, 10)
>>> len(norm_layers(net)), len(norm_layers(resnet(norm=None)))
(6, 0)
>>> weights = lambda n: [p.data().asnumpy() for p in n.collect_params().values()]
>>> all((a == b).all() for a, b in zip(weights(resnet(seed=1)), weights(resnet(seed=1))))
True
"""

import mxnet as mx
import numpy as np
from mxnet import gluon

from tutorial.nn.sync_batchnorm import GuardedSyncBatchNorm
from tutorial.validate import check_count

NORMS = ("batch", "sync", None)
IMAGE_SHAPE = (1, 28, 28)


def check_norm(norm):
    if norm not in NORMS:
        raise ValueError(f"norm={norm!r}: use 'batch' (per-device statistics), 'sync' "
                         f"(SyncBatchNorm: statistics of the whole batch) or None")
    return norm


def make_norm(norm, channels, num_devices=1):
    """The normalisation layer ``norm`` names, for ``channels`` feature maps (None: nothing)."""
    if check_norm(norm) == "batch":
        return gluon.nn.BatchNorm(in_channels=channels)
    if norm == "sync":
        return GuardedSyncBatchNorm(in_channels=channels, num_devices=num_devices)
    return None


def conv_norm(channels, in_channels, norm, num_devices, kernel=3, stride=1):
    """A convolution followed by its normalisation layer (a bias only when there is none)."""
    block = gluon.nn.HybridSequential()
    block.add(gluon.nn.Conv2D(channels, kernel, strides=stride, padding=kernel // 2,
                              in_channels=in_channels, use_bias=norm is None))
    layer = make_norm(norm, channels, num_devices)
    if layer is not None:
        block.add(layer)
    return block


class ResNet(gluon.nn.HybridSequential):
    """The net :func:`resnet` builds: a HybridSequential that first checks its input is a
    batch of images shaped :data:`IMAGE_SHAPE` (a clear sentence instead of MXNet's)."""

    def _alias(self):
        return "hybridsequential"              # the parameter names of a plain one

    def forward(self, x, *args):
        shape = getattr(x, "shape", None)
        if shape is not None and tuple(shape[1:]) != IMAGE_SHAPE:
            hint = (" (flat rows: reshape them with X.reshape(-1, 1, 28, 28))"
                    if len(shape) == 2 and shape[1] == 784 else "")
            raise ValueError(f"this ResNet takes images of shape (N, 1, 28, 28), got a batch "
                             f"of shape {tuple(shape)}{hint}")
        return super().forward(x, *args)


class Residual(gluon.nn.HybridBlock):
    """``relu(norm(conv(relu(norm(conv(x))))) + shortcut(x))``; 1x1 shortcut if the shape changes."""

    def __init__(self, channels, in_channels, norm="batch", num_devices=1, stride=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body1 = conv_norm(channels, in_channels, norm, num_devices, stride=stride)
            self.body2 = conv_norm(channels, channels, norm, num_devices)
            self.shortcut = None
            if stride != 1 or channels != in_channels:
                self.shortcut = conv_norm(channels, in_channels, norm, num_devices, kernel=1,
                                          stride=stride)

    def hybrid_forward(self, F, x):
        y = self.body2(F.relu(self.body1(x)))
        return F.relu(y + (x if self.shortcut is None else self.shortcut(x)))


def resnet(norm="batch", num_devices=1, channels=(8, 16), blocks=1, classes=10, seed=0,
           ctx=None):
    """The small ResNet above; ``channels`` = (c0, c1), ``blocks`` residual blocks per stage.

    ``num_devices`` matters only for ``norm="sync"``: the number of devices whose shards
    SyncBatchNorm combines (every device must run its forward pass in each step, or it hangs).
    """
    check_norm(norm)
    num_devices = check_count("num_devices", num_devices, what="devices")
    c0, c1 = (check_count(f"channels[{i}]", c, what="feature maps")
              for i, c in enumerate(_pair(channels)))
    blocks = check_count("blocks", blocks, what="residual blocks per stage")
    net = ResNet()
    with net.name_scope():
        net.add(conv_norm(c0, IMAGE_SHAPE[0], norm, num_devices, stride=2),
                gluon.nn.Activation("relu"))
        for i in range(blocks):
            net.add(Residual(c0, c0, norm, num_devices))
        for i in range(blocks):
            net.add(Residual(c1, c0 if i == 0 else c1, norm, num_devices, stride=2 if i == 0 else 1))
        net.add(gluon.nn.GlobalAvgPool2D(), gluon.nn.Dense(check_count("classes", classes),
                                                          in_units=c1))
    net.initialize(ctx=ctx or mx.cpu())
    seeded_init(net, seed)
    return net


def _pair(channels):
    if not isinstance(channels, (tuple, list)) or len(channels) != 2:
        raise ValueError(f"channels must be two widths (stage 1, stage 2) such as (8, 16), "
                         f"got {channels!r}")
    return channels


def seeded_init(net, seed):
    """He-uniform weights from ``np.random.default_rng(seed)``; the rest at BatchNorm's defaults."""
    rng = np.random.default_rng(seed)
    for name, param in net.collect_params().items():
        if name.endswith("weight"):
            limit = np.sqrt(6.0 / int(np.prod(param.shape[1:])))
            value = rng.uniform(-limit, limit, size=param.shape)
        else:
            fill = 1.0 if name.endswith(("gamma", "running_var")) else 0.0
            value = np.full(param.shape, fill)
        param.set_data(value.astype(np.float32))


def norm_layers(net):
    """The BatchNorm / SyncBatchNorm layers of ``net``, in the order they run."""
    found = [net] if isinstance(net, gluon.nn.BatchNorm) else []
    for child in net._children.values():
        found += norm_layers(child)
    return found
