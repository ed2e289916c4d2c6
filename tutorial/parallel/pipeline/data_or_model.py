"""Data or model parallel? Bytes and seconds per training step of each.

A network is a list of :class:`Layer` (parameters, numbers it outputs per sample,
forward operations per sample); :func:`dense_stack` and :func:`conv_stack` build the
two shapes the lecture contrasts: fully connected layers have many weights and small
outputs, convolutions (GoogLeNet) few weights and large outputs. With a batch of B
samples on N devices that compute ``flops`` operations per second, links of latency
``alpha`` and ``1 / beta`` bytes per second, 4-byte numbers, and a backward pass that costs
twice the forward:

==============  =====================================================================
data parallel   every device: the whole network on B / N samples, then a ring
                allreduce of all W gradients (:mod:`tutorial.parallel.costmodel`):
                3 F B / (N flops) + 2(N-1) alpha + 2(N-1)/N 4W beta
model parallel  layers cut into N stages of balanced work, GPipe with m micro-batches:
                (m + N - 1) x (the slowest stage's forward and backward on B / m
                samples + two messages of B / m x a numbers, activations forward and
                their gradients back: alpha + 4 (B / m) a beta each), a = the widest cut;
                that cut carries 2 x 4 B a bytes per step
==============  =====================================================================

Each device also holds weights: all W in data parallelism, about W / N in model
parallelism. That, not speed, is why the deck calls model parallelism "only for huge
models".

>>> mlp = compare(dense_stack([1024] * 9), batch=256, devices=4)
>>> mlp.winner, round(mlp.data_bytes / 1e6, 1), round(mlp.model_bytes / 1e6, 1)
('model', 50.4, 2.1)
>>> convnet = compare(conv_stack(channels=256, size=28, layers=8), batch=256, devices=4)
>>> convnet.winner, round(convnet.data_bytes / 1e6, 1), round(convnet.model_bytes / 1e6, 1)
('data', 28.3, 411.0)
"""

import dataclasses
from typing import NamedTuple

from tutorial.parallel import costmodel
from tutorial.parallel.pipeline.stages import balanced_cuts
from tutorial.validate import check_count, check_range

ALPHA = 10e-6          # seconds per message
BETA = 1 / 10e9        # seconds per byte: 10 GB/s links
FLOPS = 10e12          # operations per second of one device
ITEMSIZE = 4


class Layer(NamedTuple):
    parameters: int
    outputs: int           # numbers it hands to the next layer, per sample
    flops: float           # forward operations per sample


def dense_stack(widths):
    """Dense layers widths[k] -> widths[k + 1]: 2 operations per weight per sample."""
    widths = [check_count("width", w) for w in widths]
    if len(widths) < 2:
        raise ValueError(f"widths {widths!r} must list at least an input and an output width")
    return [Layer(a * b + b, b, 2 * a * b) for a, b in zip(widths[:-1], widths[1:])]


def conv_stack(channels, size, layers, kernel=3):
    """``layers`` convolutions ``kernel`` x ``kernel``, ``channels`` in and out, on a
    ``size`` x ``size`` map: each weight is used at every one of the size^2 positions."""
    c = check_count("channels", channels)
    hw = check_count("size", size) ** 2
    k2 = check_count("kernel", kernel) ** 2
    weights = k2 * c * c
    return [Layer(weights + c, hw * c, 2 * weights * hw)] * check_count("layers", layers)


def data_bytes(layers, devices):
    """Bytes each device sends per step in data parallelism: a ring allreduce of all W
    gradients, 2(N-1)/N x 4W, whatever the batch (:attr:`Comparison.data_bytes`)."""
    n = check_count("devices", devices)
    total = sum(Layer(*layer).parameters for layer in layers)
    return 2 * (n - 1) / n * total * ITEMSIZE


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One step of each strategy for one network, batch and cluster."""
    parameters: int
    data_bytes: float          # bytes each device sends per step (ring allreduce)
    model_bytes: float         # bytes crossing the widest cut per step, both ways
    data_seconds: float
    model_seconds: float
    data_weight_bytes: float   # weights each device holds
    model_weight_bytes: float  # ... on the largest stage

    @property
    def winner(self):
        return "data" if self.data_seconds <= self.model_seconds else "model"


def compare(layers, batch, devices, microbatches=None, alpha=ALPHA, beta=BETA, flops=FLOPS):
    """:class:`Comparison` of data and model (pipeline) parallelism over ``devices`` devices.

    ``microbatches`` defaults to 4 per device (GPipe's rule of thumb m >= 4 N).
    """
    layers = [Layer(*layer) for layer in layers]
    batch = check_count("batch", batch, what="samples per step")
    n = check_count("devices", devices)
    m = 4 * n if microbatches is None else check_count("microbatches", microbatches)
    for name, value in (("alpha", alpha), ("beta", beta)):
        check_range(name, value, 0.0)
    flops = check_range("flops", flops, 0.0, low_open=True)
    total = sum(layer.parameters for layer in layers)
    work = [3 * layer.flops for layer in layers]        # forward + backward, per sample
    data_seconds = sum(work) * batch / n / flops + \
        costmodel.predict("ring", n, total * ITEMSIZE, alpha, beta)
    cuts = balanced_cuts(work, n)
    widest = max((layers[b - 1].outputs for _, b in cuts[:-1]), default=0)
    message = alpha + ITEMSIZE * batch / m * widest * beta if n > 1 else 0.0
    slowest = max(sum(work[a:b]) for a, b in cuts) * batch / m / flops
    return Comparison(total, data_bytes(layers, n), 2 * ITEMSIZE * batch * widest,
                      data_seconds, (m + n - 1) * (slowest + 2 * message), total * ITEMSIZE,
                      max(sum(layer.parameters for layer in layers[a:b]) for a, b in cuts)
                      * ITEMSIZE)
