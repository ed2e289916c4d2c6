"""Each way of splitting attention or a block over devices, against one device.

The notebook's checks: run the split version and the one-device version on the same
inputs, back-propagate the same output gradient through both, and return how far apart
they are, each as the largest difference relative to the largest value (float32 sums in
another order differ in their last bits, whatever the scale):

- :func:`ring_errors`: ring attention (:mod:`~tutorial.sequence.ring_attention`) against
  :func:`~tutorial.sequence.attention.attention` and its float64 reference: the output
  and the gradients of q, k and v;
- :func:`block_errors`: the tensor- or sequence-parallel block against
  :func:`~tutorial.sequence.block.block`: the output, dx, and every weight's gradient,
  each device's shard against the same slice of the one-device gradient (cut by the same
  :func:`~tutorial.sequence.tensor_parallel_block.shard_weights`).

>>> qkv = [np.random.default_rng(i).normal(size=(1, 2, 8, 4)) for i in range(3)]
>>> errors = ring_errors(qkv, [mx.cpu(0), mx.cpu(1)], causal=True, placement="zigzag")
>>> errors.output < 1e-5 and errors.gradients < 1e-5
True
"""

from typing import NamedTuple

import mxnet as mx
import numpy as np
from mxnet import autograd

from tutorial.sequence import ring_attention as ring
from tutorial.sequence import sequence_parallel_block as sp
from tutorial.sequence import tensor_parallel_block as tp
from tutorial.sequence.attention import attention, attention_reference
from tutorial.sequence.block import block, block_reference, to_nd


class Errors(NamedTuple):
    """Largest differences from one device, relative to the largest value."""
    output: float
    gradients: float           # the worst of the gradients compared
    sent: list                 # bytes each device sent (forward and backward)


def relative(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def ring_errors(qkv, devices, causal=False, placement="plain", seed=0):
    """Ring attention of ``qkv`` (three NumPy arrays (batch, heads, seq, head_dim)) on
    ``devices`` against one device, with the output gradient drawn from ``seed``."""
    head = np.random.default_rng(seed).normal(size=qkv[0].shape[:3] + qkv[2].shape[3:])
    pieces = [ring.split_sequence(mx.nd.array(x), devices, placement) for x in qkv]
    for piece in pieces:
        for p in piece:
            p.attach_grad()
    with autograd.record():
        result = ring.ring_attention(*pieces, causal=causal, placement=placement)
        joined = ring.join_sequence(result.outputs, placement)
    joined.backward(mx.nd.array(head, ctx=joined.context))
    one = [mx.nd.array(x) for x in qkv]
    for x in one:
        x.attach_grad()
    with autograd.record():
        y = attention(*one, causal=causal)
    y.backward(mx.nd.array(head))
    worst = max(relative(ring.join_sequence([p.grad for p in piece], placement).asnumpy(),
                         x.grad.asnumpy()) for piece, x in zip(pieces, one))
    return Errors(relative(joined.asnumpy(), attention_reference(*qkv, causal=causal)),
                  worst, result.sent)


def _split_run(weights, x, head, heads, devices, causal, sequence_parallel):
    sharding = tp.tensor_sharding(x.shape[2], heads, weights.mlp.first.shape[1],
                                  len(devices))
    shards = tp.shard_weights(weights, sharding, devices)
    tp.attach_gradients(shards)
    cut = sp.split_positions if sequence_parallel else tp.replicate
    xs = cut(x, devices)
    for a in xs:
        a.attach_grad()
    with autograd.record():
        run = sp.sequence_parallel_block if sequence_parallel else tp.tensor_parallel_block
        result = run(xs, shards, sharding, causal)
    autograd.backward(result.outputs, cut(head, devices))
    grads, sent = tp.gradients(shards), result.bytes_sent()
    if sequence_parallel:                     # LayerNorms and b2 saw only their positions
        grads, _ = sp.sum_replicated_gradients(grads)
        return sp.join_positions(result.outputs), sp.join_positions(
            [a.grad for a in xs]), grads, sharding, sent
    return result.outputs[0], xs[0].grad, grads, sharding, sent   # f summed dx everywhere


def block_errors(weights, x, heads, devices, causal=False, sequence_parallel=False, seed=0):
    """The block of ``weights`` (NumPy, :func:`~tutorial.sequence.block.init_block`) on
    ``x`` (NumPy (batch, seq, model_dim)), tensor parallel (or tensor + sequence parallel)
    on ``devices``, against one device."""
    head = np.random.default_rng(seed).normal(size=x.shape).astype(np.float32)
    whole = to_nd(weights)
    tp.attach_gradients([whole])
    x1 = mx.nd.array(x)
    x1.attach_grad()
    with autograd.record():
        y1 = block(x1, whole, heads, causal)
    y1.backward(mx.nd.array(head))
    y, dx, grads, sharding, sent = _split_run(weights, x, head, heads, devices, causal,
                                              sequence_parallel)
    expected = tp.shard_weights(tp.gradients([whole])[0], sharding)
    worst = max(relative(g.asnumpy(), e) for got, want in zip(grads, expected)
                for g, e in zip(tp.flat_weights(got), tp.flat_weights(want)))
    return Errors(relative(y.asnumpy(), block_reference(x, weights, heads, causal)),
                  max(worst, relative(dx.asnumpy(), x1.grad.asnumpy())), sent)
