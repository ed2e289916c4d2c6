"""The transformer block split over K devices by heads and hidden units (Megatron).

Shoeybi et al. 2019, section 3: the block of :mod:`tutorial.sequence.block`, with device d
holding the heads H_d (the columns of W_q, W_k, W_v for them and the matching rows of W_o)
and the hidden units U_d of the MLP (columns of W1, rows of W2, as in notebook 13's
:mod:`tutorial.memory.tensor_parallel`). Every device holds the whole x:

    a   = f(layer_norm(x))                            LayerNorm whole, on every device
    o_d = attention(a W_q[:, H_d], a W_k[:, H_d], a W_v[:, H_d]) W_o[H_d, :]
    h   = x + g(o_0, ..., o_K-1)                      one allreduce: the heads' sum
    m   = f(layer_norm(h))
    z_d = relu(m W1[:, U_d] + b1[U_d]) W2[U_d, :]
    y   = h + g(z_0, ..., z_K-1) + b2                 one allreduce: the units' sum

f is the identity forward and the allreduce of the gradient backward; g the allreduce
forward and the identity backward (:mod:`tutorial.sequence.sequence_collectives`, the
course's ring): per block two allreduces of (batch, seq, model_dim) forward and two
backward. Each head and each hidden unit sits on one device, so nothing else is sent.

The sharding is data (:func:`tensor_sharding`): contiguous heads and units, uneven when K
does not divide them (the first ``heads % K`` devices get one head more; a device's
attention then costs more, the result is the same). The LayerNorms and b2 are
replicated: every device computes them on the whole sequence and keeps their arrays for
the backward (what :mod:`tutorial.sequence.sequence_parallel_block` cuts K-fold).
Convention (Megatron's): every device holds the whole output and back-propagates the same
gradient; then the gradients of replicated weights are equal on every device.

>>> s = tensor_sharding(model_dim=6, heads=3, hidden=10, devices=2)
>>> s.heads, s.hidden, s.features(1)          # device 1: head 2, its columns 4:6
(((0, 2), (2, 3)), ((0, 5), (5, 10)), (4, 6))
>>> w = init_block(6, 3, 10, seed=0)
>>> x = np.random.default_rng(1).normal(size=(2, 5, 6)).astype(np.float32)
>>> devices = [mx.cpu(0), mx.cpu(1)]
>>> result = tensor_parallel_block(replicate(x, devices), shard_weights(w, s, devices), s)
>>> y = result.outputs[1].asnumpy()
>>> bool(np.abs(y - block_reference(x, w, heads=3)).max() < 1e-4)
True
>>> result.bytes_sent()   # forward: 2 allreduces; on 2 devices each sends 5 positions x 48 B
[480, 480]
"""

from typing import List, NamedTuple, Tuple

import mxnet as mx
import numpy as np

from tutorial.parallel.collectives import chunk_bounds
from tutorial.sequence.attention import Projections, attention, merge_heads, split_heads
from tutorial.sequence.block import (MLP, BlockWeights, Norm, block_reference, init_block,
                                     layer_norm)
from tutorial.sequence.sequence_collectives import CopyToTensorRegion, ReduceFromTensorRegion
from tutorial.validate import as_host_array, check_count


class TensorSharding(NamedTuple):
    """Which heads and hidden units each device holds: (start, stop) per device."""
    model_dim: int
    heads: Tuple[Tuple[int, int], ...]
    hidden: Tuple[Tuple[int, int], ...]

    @property
    def devices(self):
        return len(self.heads)

    @property
    def head_dim(self):
        return self.model_dim // self.heads[-1][1]

    def features(self, d):
        """The columns of W_q, W_k, W_v (and rows of W_o) of device d's heads."""
        start, stop = self.heads[d]
        return start * self.head_dim, stop * self.head_dim


class ParallelResult(NamedTuple):
    """One block's forward on K devices."""
    outputs: List[mx.nd.NDArray]   # per device, on its context
    sent: List[int]                # bytes each device sent: forward now, + backward later

    def bytes_sent(self):
        """The bytes each device has sent: the forward's, plus the backward's once it has
        run (MXNet runs an autograd.Function's backward on a thread of its own: wait)."""
        mx.nd.waitall()
        return list(self.sent)


def tensor_sharding(model_dim, heads, hidden, devices):
    """Contiguous heads and hidden units per device (uneven allowed): the plan, as data."""
    model_dim, heads = check_count("model_dim", model_dim), check_count("heads", heads)
    hidden, devices = check_count("hidden", hidden), check_count("devices", devices)
    if model_dim % heads:
        raise ValueError(f"heads={heads} does not divide model_dim={model_dim}")
    for name, count in (("heads", heads), ("hidden", hidden)):
        if devices > count:
            raise ValueError(f"devices={devices} exceeds {name}={count}: each device needs "
                             f"at least one; use at most {count} devices")
    return TensorSharding(model_dim, chunk_bounds(heads, devices),
                          chunk_bounds(hidden, devices))


def shard_weights(weights, sharding, contexts=None):
    """Device d's part of ``weights`` (a :class:`BlockWeights`; NumPy, or NDArrays such as
    gradients): NumPy arrays, or NDArrays on ``contexts[d]`` when given."""
    w = BlockWeights(*(type(p)(*(np.asarray(as_host_array(a)) for a in p)) for p in weights))
    parts = []
    for d in range(sharding.devices):
        (a, b), (u, v) = sharding.features(d), sharding.hidden[d]
        part = BlockWeights(
            w.norm1, Projections(w.attention.query[:, a:b], w.attention.key[:, a:b],
                                 w.attention.value[:, a:b], w.attention.output[a:b]),
            w.norm2, MLP(w.mlp.first[:, u:v], w.mlp.first_bias[u:v], w.mlp.second[u:v],
                         w.mlp.second_bias))
        if contexts is not None:
            part = BlockWeights(*(type(p)(*(mx.nd.array(x, ctx=contexts[d]) for x in p))
                                  for p in part))
        parts.append(part)
    return parts


def replicate(x, contexts):
    """The same x (NumPy or NDArray) on every context: tensor parallelism's input."""
    return [mx.nd.array(as_host_array(x), ctx=c) for c in contexts]


def attach_gradients(shards):
    for part in shards:
        for p in part:
            for a in p:
                a.attach_grad()


def gradients(shards):
    """Each device's weight gradients, as one :class:`BlockWeights` per device."""
    return [BlockWeights(*(type(p)(*(a.grad for a in p)) for p in part)) for part in shards]


def head_attention(x, projections, heads, causal=False):
    """Attention of the ``heads`` heads whose columns ``projections`` hold, on x (batch,
    seq, model_dim), times their rows of W_o: a partial output (batch, seq, model_dim)."""
    q, k, v = (split_heads(mx.nd.dot(x, w), heads) for w in projections[:3])  # (B, h, S, D)
    return mx.nd.dot(merge_heads(attention(q, k, v, causal)), projections.output)


def mlp_partial(x, mlp):
    """relu(x W1[:, U] + b1[U]) W2[U, :]: the units U's part of the MLP, without b2."""
    hidden = mx.nd.relu(mx.nd.broadcast_add(mx.nd.dot(x, mlp.first), mlp.first_bias))
    return mx.nd.dot(hidden, mlp.second)


def expected_shapes(sharding, d):
    """The shapes device d's weights must have, as a :class:`BlockWeights`."""
    dim, (a, b), (u, v) = sharding.model_dim, sharding.features(d), sharding.hidden[d]
    norm = Norm((dim,), (dim,))
    return BlockWeights(norm, Projections((dim, b - a), (dim, b - a), (dim, b - a),
                                          (b - a, dim)),
                        norm, MLP((dim, v - u), (v - u,), (v - u, dim), (dim,)))


def check_parallel_inputs(xs, shards, sharding, what="xs"):
    """A ValueError sentence unless ``xs`` and ``shards`` hold one (batch, positions,
    model_dim) array and one set of weights per device of ``sharding``, on one context."""
    k = sharding.devices
    for name, items in ((what, xs), ("shards", shards)):
        if not isinstance(items, (list, tuple)) or len(items) != k:
            raise ValueError(f"{name} must be a list of {k} items, one per device of the "
                             f"sharding; got {type(items).__name__} of "
                             f"{len(items) if isinstance(items, (list, tuple)) else 1}")
    for d, (x, part) in enumerate(zip(xs, shards)):
        if not isinstance(x, mx.nd.NDArray) or len(x.shape) != 3:
            raise ValueError(f"{what}[{d}] must be an NDArray (batch, seq, model_dim), got "
                             f"{getattr(x, 'shape', type(x).__name__)}")
        if (x.shape[0], x.shape[2]) != (xs[0].shape[0], sharding.model_dim):
            raise ValueError(f"{what}[{d}] has shape {x.shape}: every device needs batch "
                             f"{xs[0].shape[0]} and model_dim {sharding.model_dim}")
        expected = flat_weights(expected_shapes(sharding, d))
        for name, a, shape in zip(weight_names(), flat_weights(part), expected):
            if not isinstance(a, mx.nd.NDArray):
                raise ValueError(f"shards[{d}].{name} is a {type(a).__name__}, not an "
                                 f"NDArray: use shard_weights(weights, sharding, contexts)")
            if (tuple(a.shape), a.context, a.dtype) != (shape, x.context, x.dtype):
                raise ValueError(f"shards[{d}].{name} has shape {tuple(a.shape)}, "
                                 f"{np.dtype(a.dtype).name}, on {a.context}; device {d} needs "
                                 f"{shape}, {np.dtype(x.dtype).name}, on {x.context}: use "
                                 f"shard_weights(weights, sharding, contexts)")


def flat_weights(weights):
    """The arrays of a :class:`BlockWeights`, in the order of :func:`weight_names`."""
    return [a for part in weights for a in part]


def weight_names():
    """'norm1.gain', 'norm1.bias', 'attention.query', ...: every weight's name."""
    return [f"{p}.{f}" for p, part in zip(BlockWeights._fields, (Norm, Projections, Norm, MLP))
            for f in part._fields]


def tensor_parallel_block(xs, shards, sharding, causal=False):
    """The block on K devices: ``xs`` the same x on each (:func:`replicate`), ``shards``
    from :func:`shard_weights`. Every output is the whole y."""
    check_parallel_inputs(xs, shards, sharding)
    if len({x.shape for x in xs}) > 1:
        raise ValueError(f"xs must be the same x on every device, got shapes "
                         f"{[x.shape for x in xs]}: use replicate(x, contexts)")
    return split_block(xs, shards, sharding, causal, CopyToTensorRegion,
                       ReduceFromTensorRegion)


def split_block(xs, shards, sharding, causal, enter, leave):
    """The block with its heads and hidden units split: ``enter`` takes each device's
    LayerNorm output into the split region (f, or sequence parallelism's all-gather),
    ``leave`` sums the partial outputs out of it (g, or the reduce-scatter). Each is an
    autograd Function class built on a list that tallies the bytes each device sends."""
    sent = [0] * sharding.devices
    heads = [b - a for a, b in sharding.heads]
    a = enter(sent)([layer_norm(x, w.norm1) for x, w in zip(xs, shards)])
    o = [head_attention(ad, w.attention, n, causal) for ad, w, n in zip(a, shards, heads)]
    h = [x + od for x, od in zip(xs, leave(sent)(o))]          # (B, S or S_d, D)
    m = enter(sent)([layer_norm(hd, w.norm2) for hd, w in zip(h, shards)])
    z = leave(sent)([mlp_partial(md, w.mlp) for md, w in zip(m, shards)])
    return ParallelResult([mx.nd.broadcast_add(hd + zd, w.mlp.second_bias)
                           for hd, zd, w in zip(h, z, shards)], sent)
