"""The ring's collectives cut at whole positions, and Megatron's f, g and ḡ as autograd ops.

A block split over K devices talks through four operators (Shoeybi et al. 2019, section 3;
Korthikanti et al. 2022, section 4.2.2), each a pair (forward, backward):

    f   copy into the tensor-parallel region     identity        allreduce of the gradient
    g   reduce out of it                         allreduce       identity
    g   gather the sequence (sequence parallel)  all-gather      reduce-scatter
    ḡ   scatter it again                         reduce-scatter  all-gather

All of them run the course's ring (:func:`tutorial.parallel.collectives.ring.schedule`),
whose reduce-scatter leaves node d with the sum of chunk (d + 1) mod K
(:func:`tutorial.memory.sharding.shards`). Here a chunk is whole positions: the ring is
planned over ``seq`` positions, each ``batch x model_dim`` numbers
(:func:`ring_plan`), so its reduce-scatter leaves every device whole positions, the
sequence-parallel split, and an allreduce is exactly its reduce-scatter then its
all-gather. A flat chunk is whole positions when the sequence is the first axis (Megatron
lays activations out (seq, batch, model_dim) for this); the arrays here are (batch, seq,
model_dim), as in :mod:`tutorial.sequence.block`, so the collectives swap the two axes on
the way in and out. Every operator adds the bytes each device sent to a list ``sent``
that the caller keeps: forward at once, backward when the gradient passes (MXNet runs an
``autograd.Function``'s backward on a thread of its own: ``mx.nd.waitall()`` first).

>>> [(s.device, s.start, s.stop) for s in sequence_shards(5, 2)]   # device 0: chunk 1
[(0, 3, 5), (1, 0, 3)]
>>> plan = ring_plan(2, seq=5, position_elements=3)    # 3 numbers a position, 4 bytes each
>>> plan.chunks, bytes_sent(plan)                      # 5 positions x 12 bytes each
(((0, 9), (9, 15)), [60, 60])
"""

import dataclasses

import mxnet as mx
import numpy as np
from mxnet import autograd

from tutorial.memory.sharding import phase, shards
from tutorial.parallel.collectives import bytes_sent, schedule
from tutorial.parallel.collectives.execute import BoundSchedule
from tutorial.validate import check_count

ITEMSIZE = 4


def sequence_shards(seq, devices):
    """The positions each device holds between the collectives: the ring's own chunks,
    device d chunk (d + 1) mod K (:class:`~tutorial.memory.sharding.Shard`, in positions)."""
    seq, devices = check_count("seq", seq), check_count("devices", devices)
    if devices > seq:
        raise ValueError(f"devices={devices} exceeds seq={seq}: every device needs at least "
                         f"one position; use at most {seq} devices or a longer sequence")
    return shards(seq, devices)


def in_elements(plan, width):
    """``plan`` (chunks counted in positions) with every position ``width`` elements: the
    same transfers and bytes, their start and stop scaled to a flat array."""
    def scale(t):
        return dataclasses.replace(t, start=t.start * width, stop=t.stop * width)
    return dataclasses.replace(
        plan, length=plan.length * width, itemsize=plan.itemsize // width,
        chunks=tuple((a * width, b * width) for a, b in plan.chunks),
        steps=tuple(dataclasses.replace(s, transfers=tuple(map(scale, s.transfers)))
                    for s in plan.steps))


def ring_plan(devices, seq, position_elements, itemsize=ITEMSIZE, name=None):
    """The ring over ``seq`` positions of ``position_elements`` numbers each: the whole
    allreduce, or only its ``name`` phase ('reduce-scatter' or 'all-gather')."""
    position_bytes = itemsize * check_count("position_elements", position_elements)
    by_position = (schedule("ring", devices, seq, position_bytes) if name is None
                   else phase(devices, seq, name, position_bytes))
    return in_elements(by_position, position_elements)


def _plan(arrays, seq, name=None):
    batch, _, model_dim = arrays[0].shape
    return ring_plan(len(arrays), seq, batch * model_dim, np.dtype(arrays[0].dtype).itemsize, name)


def _seq_major(x):
    return mx.nd.swapaxes(x, 0, 1)            # (batch, seq, d) <-> (seq, batch, d), a copy


def _count(sent, plan):
    for d, b in enumerate(bytes_sent(plan)):
        sent[d] += b


def allreduce_sequence(arrays, sent):
    """The sum of ``arrays`` (batch, seq, d), one per device, on every device."""
    plan = _plan(arrays, arrays[0].shape[1])
    flats = [_seq_major(a) for a in arrays]
    BoundSchedule(plan, flats, flats)()
    _count(sent, plan)
    return [_seq_major(f) for f in flats]


def reduce_scatter_sequence(arrays, sent):
    """Device d ends with the sum of ``arrays`` (batch, seq, d) over its positions only."""
    seq = arrays[0].shape[1]
    plan = _plan(arrays, seq, "reduce-scatter")
    flats = [_seq_major(a) for a in arrays]
    BoundSchedule(plan, flats, flats)()
    _count(sent, plan)
    return [_seq_major(f[s.start:s.stop])
            for f, s in zip(flats, sequence_shards(seq, len(arrays)))]


def all_gather_sequence(pieces, sent):
    """Every device's positions (batch, positions, d) copied to all: the whole sequence
    (batch, seq, d) on every device."""
    seq = sum(p.shape[1] for p in pieces)
    plan = _plan(pieces, seq, "all-gather")
    batch, _, width = pieces[0].shape
    full = [mx.nd.zeros((seq, batch, width), ctx=p.context, dtype=p.dtype) for p in pieces]
    for f, p, s in zip(full, pieces, sequence_shards(seq, len(pieces))):
        f[s.start:s.stop] = _seq_major(p)
    BoundSchedule(plan, full, full)()
    _count(sent, plan)
    return [_seq_major(f) for f in full]


class _Operator(autograd.Function):
    """A collective over K devices as one autograd node: K inputs, K outputs."""

    def __init__(self, sent):
        super().__init__()
        self.sent = sent

    def __call__(self, arrays):
        out = super().__call__(*arrays)
        return list(out) if isinstance(out, (list, tuple)) else [out]


class CopyToTensorRegion(_Operator):
    """f: forward the identity, backward the allreduce of the input's gradient."""

    def forward(self, *xs):
        return tuple(x.copy() for x in xs)

    def backward(self, *dys):
        return tuple(allreduce_sequence(list(dys), self.sent))


class ReduceFromTensorRegion(_Operator):
    """g: forward the allreduce of the partial outputs, backward the identity."""

    def forward(self, *partials):
        return tuple(allreduce_sequence(list(partials), self.sent))

    def backward(self, *dys):
        return tuple(d.copy() for d in dys)


class GatherSequence(_Operator):
    """g of sequence parallelism: forward all-gather, backward reduce-scatter."""

    def forward(self, *pieces):
        return tuple(all_gather_sequence(list(pieces), self.sent))

    def backward(self, *dys):
        return tuple(reduce_scatter_sequence(list(dys), self.sent))


class ScatterSequence(_Operator):
    """ḡ: forward reduce-scatter of the partial outputs, backward all-gather."""

    def forward(self, *partials):
        return tuple(reduce_scatter_sequence(list(partials), self.sent))

    def backward(self, *dys):
        return tuple(all_gather_sequence(list(dys), self.sent))
