"""Shared by the tensor- and sequence-parallel block tests: one block's forward and
backward on one device (the reference) and split over K CPU contexts."""

import mxnet as mx
import numpy as np
from mxnet import autograd

from tutorial.sequence import sequence_parallel_block as sp
from tutorial.sequence import tensor_parallel_block as tp
from tutorial.sequence.block import BlockWeights, block, init_block, to_nd

MODEL_DIM, HIDDEN, BATCH = 12, 10, 2
TOL = dict(rtol=1e-4, atol=1e-5)     # float32 sums in another order; the values are O(1)
# (devices, heads, seq): heads 3 on 2 devices and 6 on 4 are uneven, and so are the
# hidden units (10) on 3 and 4 devices and 7 positions on 2, 3 and 4
CASES = [(k, heads, seq) for k in (1, 2, 3, 4) for heads, seq in ((3, 7), (6, 8))
         if heads >= k]


def devices(k):
    return [mx.cpu(i) for i in range(k)]


def problem(heads, seq, seed=0):
    """Weights, x and the output's gradient (NumPy)."""
    rng = np.random.default_rng(seed)
    x, head = (rng.normal(size=(BATCH, seq, MODEL_DIM)).astype(np.float32) for _ in range(2))
    return init_block(MODEL_DIM, heads, HIDDEN, seed=seed), x, head


def as_numpy(weights):
    return BlockWeights(*(type(p)(*(a.asnumpy() for a in p)) for p in weights))


def one_device(weights, x, head, heads, causal):
    """y, dx and the weights' gradients (NumPy) of the one-device block."""
    w, x = to_nd(weights), mx.nd.array(x)
    tp.attach_gradients([w])
    x.attach_grad()
    with autograd.record():
        y = block(x, w, heads, causal)
    y.backward(mx.nd.array(head))
    return y.asnumpy(), x.grad.asnumpy(), as_numpy(tp.gradients([w])[0])


def split_over(k, weights, x, head, heads, causal, sequence_parallel):
    """The parallel block's forward and backward: (result, per-device x gradients,
    per-device weight gradients as NumPy BlockWeights, the sharding)."""
    sharding = tp.tensor_sharding(MODEL_DIM, heads, HIDDEN, k)
    shards = tp.shard_weights(weights, sharding, devices(k))
    tp.attach_gradients(shards)
    cut = sp.split_positions if sequence_parallel else tp.replicate
    xs = cut(x, devices(k))
    for a in xs:
        a.attach_grad()
    run = sp.sequence_parallel_block if sequence_parallel else tp.tensor_parallel_block
    with autograd.record():
        result = run(xs, shards, sharding, causal)
    forward_sent = result.bytes_sent()
    autograd.backward(result.outputs, cut(head, devices(k)))
    return result, forward_sent, [a.grad for a in xs], tp.gradients(shards), sharding
