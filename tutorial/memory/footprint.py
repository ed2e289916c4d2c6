"""Where the bytes are: the most of each kind one device holds, and what it sends per step,
counted, for any Gluon net.

For a network with P parameters (4-byte floats) trained on K devices with batch B::

    kind              stage 0 (data par.)   1: state sharded   2: + gradients   3: + weights
    weights           4P                    4P                 4P               4P/K (+1 layer)
    gradients         4P                    4P (+shards)       4P/K (+1 layer)  4P/K (+1 layer)
    optimizer state   4cP                   4cP/K              4cP/K            4cP/K
    activations       4 (B/K) A             the same           the same         the same
    sent per step     2(K-1)/K 4P           2(K-1)/K 4P        2(K-1)/K 4P      3(K-1)/K 4P

c is the optimizer's number of state copies of each weight, read from the course's own
optimizer (:func:`state_copies`: SGD 0, momentum 1, Adam 2); A the numbers one sample
leaves behind for the backward (its input and every layer's output,
:func:`activation_floats`). "+1 layer": a sharded gradient or weight is whole for one
layer at a time, while that layer's backward (or forward) runs; the count adds the
largest such moment, as :class:`~tutorial.memory.zero.ZeroTrainer` holds it: a gathered
weight sits beside the device's own shard; a layer's whole gradient exists before its
shard does (the shard is copied out beside it, "+shards" in stage 1), and only the layers
after it (the backward runs backwards) have shards yet. The shards are the ring's chunks, so sizes are exact per device (they differ by one element when K does
not divide a parameter's size), and so are the bytes sent (from the ring's schedules).
Each kind's most is reached at its own moment: what a device holds at once, between steps
and at the worst moment of a step, is :mod:`tutorial.memory.step_memory`'s count.

Counting builds the ring's schedules, N(N - 1) transfers per phase and parameter size:
``devices`` is limited to ``MAX_DEVICES`` (128: a second or two), past which the count
would take tens of seconds and gigabytes (1024 devices: 25 s, 1.7 GB for an
85k-parameter MLP).

>>> from tutorial.memory.layers import mlp
>>> net = mlp([3, 4, 2]); net.initialize()
>>> f = footprint(net, (3,), batch=4, devices=2, stage=1, optimizer="adam")[0]
>>> f.weights, f.gradients, f.optimizer_state, f.activations, f.sent
(104, 128, 104, 72, 104)
"""

import functools
from typing import NamedTuple

import mxnet as mx
import numpy as np

from tutorial.memory.ledger import nbytes
from tutorial.memory.sharding import phase, shards
from tutorial.parallel.collectives import bytes_sent, schedule
from tutorial.validate import check_count

ITEMSIZE = 4
MAX_DEVICES = 128


class Footprint(NamedTuple):
    """Bytes one device holds at its peak, by kind, and bytes it sends per step."""
    weights: int
    gradients: int
    optimizer_state: int
    activations: int
    sent: int

    @property
    def total(self):
        """Bytes held (not what is sent)."""
        return self.weights + self.gradients + self.optimizer_state + self.activations


def state_copies(optimizer):
    """How many arrays the size of a weight the course's ``optimizer`` keeps per weight."""
    from tutorial.optim.registry import create
    weight = mx.nd.zeros(8)
    return nbytes(create(optimizer).create_state(0, weight)) // nbytes(weight)


def layer_sizes(net):
    """Per top-level layer of ``net``, the sizes (elements) of its trainable parameters, in
    order (BatchNorm's running mean and variance, with ``grad_req='null'``, left out)."""
    return [[int(np.prod(p.shape)) for p in child.collect_params().values()
             if p.grad_req != "null"] for child in net]


def activation_floats(net, sample_shape):
    """Numbers one sample leaves for the backward: its input and every leaf layer's output."""
    sizes = []

    def record(block, _inputs, output):
        sizes.append(int(output.size))

    leaves = [b for b in _blocks(net) if not b._children]
    hooks = [b.register_forward_hook(record) for b in leaves]
    try:
        net(mx.nd.zeros((1,) + tuple(sample_shape)))
    finally:
        for h in hooks:
            h.detach()
    return int(np.prod(sample_shape)) + sum(sizes)


def _blocks(block):
    yield block
    for child in block._children.values():
        yield from _blocks(child)


@functools.lru_cache(maxsize=256)
def _shard_sizes(size, k):
    return tuple(s.size for s in shards(size, k))


def _mine(size, k, d):
    return _shard_sizes(size, k)[d]


def _gathered_peak(layers, k, d):
    """Stage 3's weights: every own shard, and one layer gathered whole beside them."""
    return sum(_mine(s, k, d) for sizes in layers for s in sizes) + \
        max(sum(sizes) for sizes in layers)


def _copied_out(sizes, k, d):
    """The most numbers held while ``sizes`` (whole gradients, in order) are reduce-scattered
    one after another: each one's shard is copied out beside it, then the whole one goes."""
    held, most = sum(sizes), sum(sizes)
    for size in sizes:
        held += _mine(size, k, d)
        most = max(most, held)
        held -= size
    return most


def _scattered_peak(layers, k, d):
    """Stages 2 and 3's gradients: the backward runs from the last layer; when layer l's
    gradient is whole, only the layers after it have their (reduce-scattered) shards, and
    each of its shards is copied out beside the whole gradient before that goes."""
    shard = [sum(_mine(s, k, d) for s in sizes) for sizes in layers]
    return max(_copied_out(sizes, k, d) + sum(shard[l + 1:]) for l, sizes in enumerate(layers))


def sent_per_step(sizes, k, stage):
    """Bytes each device sends in one step (list over devices), from the ring's schedules:
    the allreduce (stage 0), or its reduce-scatter and one all-gather of the weights
    (stages 1, 2), or two all-gathers, forward and backward (stage 3)."""
    sent = [0] * k
    for size in sizes:
        plans = [schedule("ring", k, size, ITEMSIZE)] if stage == 0 else \
            [phase(k, size, "reduce-scatter", ITEMSIZE)] + \
            [phase(k, size, "all-gather", ITEMSIZE)] * (2 if stage == 3 else 1)
        for plan in plans:
            sent = [a + b for a, b in zip(sent, bytes_sent(plan))]
    return sent


def _check_sample_shape(net, sample_shape):
    """``sample_shape`` as a tuple of counts that the net's first layer takes."""
    from tutorial.batch_checks import check_features      # here: it imports Gluon's layers
    if not isinstance(sample_shape, (tuple, list)) or not sample_shape:
        raise ValueError(f"sample_shape must be one sample's shape as a tuple, e.g. (64,) for "
                         f"64 features, got {sample_shape!r}")
    shape = tuple(check_count(f"sample_shape[{i}]", n) for i, n in enumerate(sample_shape))
    check_features(net, np.zeros((1,) + shape, dtype=np.float32))
    return shape


def footprint(net, sample_shape, batch, devices, stage, optimizer="adam"):
    """One :class:`Footprint` per device for ``net`` under ZeRO ``stage`` (0 = plain data
    parallelism) on ``devices`` devices, ``batch`` samples split as evenly as possible."""
    k = check_count("devices", devices)
    if k > MAX_DEVICES:
        raise ValueError(f"devices={k} is more than footprint counts: use at most "
                         f"{MAX_DEVICES} (counting builds the ring's schedules, which grow as "
                         f"devices squared)")
    batch = check_count("batch", batch, low=k, what="samples, at least one per device")
    if isinstance(stage, bool) or not isinstance(stage, (int, np.integer)) or \
            stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be a whole number 0, 1, 2 or 3, got {stage!r}")
    sample_shape = _check_sample_shape(net, sample_shape)
    layers = layer_sizes(net)
    sizes = [s for layer in layers for s in layer]
    copies = state_copies(optimizer)
    per_sample = activation_floats(net, sample_shape)
    cuts = np.linspace(0, batch, k + 1).astype(int)
    sent = sent_per_step(sizes, k, stage)
    out = []
    for d in range(k):
        whole, mine = sum(sizes), sum(_mine(s, k, d) for s in sizes)
        weights = _gathered_peak(layers, k, d) if stage == 3 else whole
        grads = _scattered_peak(layers, k, d) if stage >= 2 else \
            _copied_out(sizes, k, d) if stage == 1 else whole
        state = copies * (mine if stage >= 1 else whole)
        acts = per_sample * int(cuts[d + 1] - cuts[d])
        out.append(Footprint(*(ITEMSIZE * n for n in (weights, grads, state, acts)), sent[d]))
    return out
