"""Sequence parallelism: what tensor parallelism replicates, cut along the sequence.

Korthikanti et al. 2022, "Reducing activation recomputation in large transformer
models", section 4.2.2. In :mod:`tutorial.sequence.tensor_parallel_block` every device
computes the LayerNorms and the residual adds on the whole sequence and keeps their
arrays. They work on each position alone, so device d can do them for its positions S_d
only (:func:`~tutorial.sequence.sequence_collectives.sequence_shards`, the ring's chunk
(d + 1) mod K), and the allreduce g becomes its two halves around them:

    a     = g(layer_norm(x[S_d]))          all-gather: the whole sequence on every device
    o_d   = device d's heads on a          as tensor parallel (the causal mask whole)
    h_d   = x[S_d] + ḡ(o_0, ..., o_K-1)_d    reduce-scatter: the sum, positions S_d only
    m     = g(layer_norm(h_d))
    y_d   = h_d + ḡ(z_0, ..., z_K-1)_d + b2   z_d the hidden units' part, as before

Backward swaps them: the gradient of an all-gather is a reduce-scatter and of a
reduce-scatter an all-gather. A ring allreduce *is* a reduce-scatter then an all-gather,
so per block each device sends exactly what tensor parallelism sends
(:mod:`tutorial.sequence.parallel_block_costs`), and keeps the LayerNorms' arrays for 1/K
of the positions. The residual adds keep nothing for the backward; :mod:`block` has no
dropout (its masks, in these regions, would be cut K-fold too).

Two things differ from Megatron-LM. Its linear layers keep only the slice of a gathered
input and gather it again in the backward (one more all-gather, overlapped with the
weights' gradient): here the gathered ``a`` and ``m`` are kept whole, so that the bytes
equal tensor parallelism's exactly. And the replicated weights (the LayerNorms' gains and
biases, b2) now see only S_d on device d: their gradients are partial sums, added over
the devices by :func:`sum_replicated_gradients` (one allreduce of 5 x model_dim numbers).

>>> devices = [mx.cpu(0), mx.cpu(1)]
>>> x = np.arange(10, dtype=np.float32).reshape(1, 5, 2)
>>> [p.shape for p in split_positions(x, devices)]      # device 0: positions 3, 4
[(1, 2, 2), (1, 3, 2)]
>>> bool((join_positions(split_positions(x, devices)).asnumpy() == x).all())
True
"""

import mxnet as mx
import numpy as np

from tutorial.parallel.collectives import allreduce, bytes_sent
from tutorial.sequence.block import BlockWeights
from tutorial.sequence.sequence_collectives import (GatherSequence, ScatterSequence,
                                                    sequence_shards)
from tutorial.sequence.tensor_parallel_block import check_parallel_inputs, split_block
from tutorial.validate import as_host_array

REPLICATED = (("norm1", "gain"), ("norm1", "bias"), ("norm2", "gain"), ("norm2", "bias"),
              ("mlp", "second_bias"))


def split_positions(x, contexts):
    """x (batch, seq, model_dim) cut along seq: device d's positions on ``contexts[d]``."""
    x = as_host_array(x)
    if len(x.shape) != 3:
        raise ValueError(f"x must have 3 axes (batch, seq, model_dim), got shape "
                         f"{tuple(x.shape)}")
    return [mx.nd.array(x[:, s.start:s.stop], ctx=c)
            for s, c in zip(sequence_shards(x.shape[1], len(contexts)), contexts)]


def join_positions(pieces):
    """The inverse of :func:`split_positions`, on the first piece's context."""
    seq = sum(p.shape[1] for p in pieces)
    order = sorted(zip(sequence_shards(seq, len(pieces)), pieces), key=lambda sp: sp[0].start)
    return mx.nd.concat(*[p.as_in_context(pieces[0].context) for _, p in order], dim=1)


def check_positions(pieces):
    """A ValueError sentence unless piece d holds as many positions as device d should."""
    seq = sum(p.shape[1] for p in pieces)
    for d, (p, s) in enumerate(zip(pieces, sequence_shards(seq, len(pieces)))):
        if p.shape[1] != s.size:
            raise ValueError(f"pieces[{d}] holds {p.shape[1]} positions, but {seq} positions "
                             f"on {len(pieces)} devices give device {d} {s.size} (positions "
                             f"{s.start}:{s.stop}): cut x with split_positions(x, contexts)")


def sequence_parallel_block(pieces, shards, sharding, causal=False):
    """The block on K devices, each with its positions (:func:`split_positions`) and its
    weights (:func:`~tutorial.sequence.tensor_parallel_block.shard_weights`): output d
    holds device d's positions of y."""
    check_parallel_inputs(pieces, shards, sharding, "pieces")
    check_positions(pieces)
    return split_block(pieces, shards, sharding, causal, GatherSequence, ScatterSequence)


def sum_replicated_gradients(grads):
    """``grads`` (one :class:`BlockWeights` per device) with the replicated weights'
    partial gradients summed over the devices by one ring allreduce; and the bytes each
    device sent for it."""
    flat = [mx.nd.concat(*[getattr(getattr(g, part), field).reshape((-1,))
                           for part, field in REPLICATED], dim=0) for g in grads]
    summed = allreduce(flat, "ring")
    dim = grads[0].norm1.gain.shape[0]
    out = []
    for g, total in zip(grads, summed.arrays):
        parts = {name: getattr(g, name)._asdict() for name in BlockWeights._fields}
        for i, (part, field) in enumerate(REPLICATED):
            parts[part][field] = total[i * dim:(i + 1) * dim]
        out.append(BlockWeights(*(type(getattr(g, name))(**parts[name])
                                  for name in BlockWeights._fields)))
    return out, bytes_sent(summed.schedule)
