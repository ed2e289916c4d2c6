"""Attention from scratch equals float64 NumPy, MXNet's own operators (batch_dot and
softmax; the interleaved self-attention operators for multi-head) and hand-worked numbers."""

import math

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.sequence.attention import (Projections, attention, attention_reference,
                                         merge_heads, multi_head_attention,
                                         multi_head_reference, split_heads)

TOL = dict(rtol=1e-5, atol=1e-6)     # float32 against float64


def qkv(seed=0, batch=2, heads=3, seq_q=5, seq_k=5, head_dim=4):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(batch, heads, seq_q, head_dim)).astype(np.float32),
            rng.normal(size=(batch, heads, seq_k, head_dim)).astype(np.float32),
            rng.normal(size=(batch, heads, seq_k, head_dim)).astype(np.float32))


def mxnet_operators(q, k, v, causal):
    """The same with MXNet's batch_dot and softmax (its length argument is the mask)."""
    batch, heads, seq_q, head_dim = q.shape
    flat = [x.reshape((batch * heads, x.shape[2], head_dim)) for x in (q, k, v)]
    s = mx.nd.batch_dot(flat[0], flat[1], transpose_b=True) / math.sqrt(head_dim)
    if causal:                        # query i sees i + 1 keys
        length = mx.nd.array(np.tile(np.arange(1, seq_q + 1), (batch * heads, 1)),
                             dtype="int32")
        weights = mx.nd.softmax(s, length=length, axis=-1, use_length=True)
    else:
        weights = mx.nd.softmax(s, axis=-1)
    return mx.nd.batch_dot(weights, flat[2]).reshape(q.shape)


def test_hand_worked_weights():
    # head_dim 1, q = 1: scores 0 and ln 3, weights 1/4 and 3/4, output 0/4 + 3/4 x 4 = 3
    q = mx.nd.ones((1, 1, 1, 1))
    k = mx.nd.array([0.0, math.log(3)]).reshape((1, 1, 2, 1))
    v = mx.nd.array([0.0, 4.0]).reshape((1, 1, 2, 1))
    assert float(attention(q, k, v).asscalar()) == pytest.approx(3.0, rel=1e-6)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq_k", [5, 7])
def test_equals_numpy(causal, seq_k):
    q, k, v = qkv(seq_k=seq_k)
    got = attention(*map(mx.nd.array, (q, k, v)), causal=causal).asnumpy()
    np.testing.assert_allclose(got, attention_reference(q, k, v, causal), **TOL)


@pytest.mark.parametrize("causal", [False, True])
def test_equals_mxnet_operators_forward_and_backward(causal):
    arrays = [mx.nd.array(x) for x in qkv(1)]
    head = mx.nd.array(np.random.default_rng(2).normal(size=arrays[0].shape))
    results = []
    for f in (attention, mxnet_operators):
        xs = [x.copy() for x in arrays]
        for x in xs:
            x.attach_grad()
        with autograd.record():
            out = f(*xs, causal)
        out.backward(head)
        results.append([out] + [x.grad for x in xs])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours.asnumpy(), theirs.asnumpy(), **TOL)


def test_causal_first_row_is_the_first_value():
    q, k, v = qkv(3)
    got = attention(*map(mx.nd.array, (q, k, v)), causal=True).asnumpy()
    np.testing.assert_allclose(got[:, :, 0], v[:, :, 0], **TOL)
    assert not np.allclose(got[:, :, 1], attention_reference(q, k, v)[:, :, 1], **TOL)


def test_large_scores_do_not_overflow():
    q, k, v = qkv(4)
    got = attention(*map(mx.nd.array, (q * 30, k * 30, v)), causal=True).asnumpy()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, attention_reference(q * 30, k * 30, v, True), **TOL)


def test_heads_split_and_merge_back():
    x = np.arange(2 * 3 * 6).reshape(2, 3, 6)
    heads = split_heads(x, 2)
    assert heads.shape == (2, 2, 3, 3)
    assert heads[1, 1, 2].tolist() == x[1, 2, 3:].tolist()   # head 1 = features 3..5
    assert (merge_heads(heads) == x).all()


def weights(seed, model_dim):
    rng = np.random.default_rng(seed)
    return Projections(*(rng.normal(size=(model_dim, model_dim)).astype(np.float32)
                         / math.sqrt(model_dim) for _ in range(4)))


def interleaved(x, w, heads, causal):
    """Multi-head self-attention by MXNet's interleaved_matmul_selfatt_qk/valatt operators."""
    batch, seq, model_dim = x.shape
    head_dim = model_dim // heads
    q, k, v = (mx.nd.dot(x, p).reshape((batch, seq, heads, 1, head_dim)) for p in w[:3])
    qkv_ = mx.nd.concat(q, k, v, dim=3).reshape((batch, seq, -1)).transpose((1, 0, 2))
    s = mx.nd.contrib.interleaved_matmul_selfatt_qk(qkv_, heads=heads)  # (B*H, S, S), scaled
    if causal:
        s = s + mx.nd.array(np.triu(np.full((seq, seq), -1e30), 1)).reshape((1, seq, seq))
    out = mx.nd.contrib.interleaved_matmul_selfatt_valatt(qkv_, mx.nd.softmax(s), heads=heads)
    return mx.nd.dot(out.transpose((1, 0, 2)), w.output)      # (S, B, M) -> (B, S, M)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads", [1, 2, 4])
def test_multi_head_equals_numpy_and_mxnet_operators(causal, heads):
    x = np.random.default_rng(5).normal(size=(2, 6, 8)).astype(np.float32)
    w = weights(6, 8)
    w_nd = Projections(*map(mx.nd.array, w))
    got = multi_head_attention(mx.nd.array(x), w_nd, heads, causal)
    np.testing.assert_allclose(got.asnumpy(), multi_head_reference(x, w, heads, causal), **TOL)
    theirs = interleaved(mx.nd.array(x), w_nd, heads, causal)
    np.testing.assert_allclose(got.asnumpy(), theirs.asnumpy(), **TOL)


def test_heads_matter():
    x = np.random.default_rng(7).normal(size=(1, 4, 8))
    w = weights(8, 8)
    assert not np.allclose(multi_head_reference(x, w, 1), multi_head_reference(x, w, 4))
