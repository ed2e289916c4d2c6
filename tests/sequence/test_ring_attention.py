"""Ring attention on K = 1..4 CPU contexts equals full attention: the output against float64
NumPy, the gradients of q, k and v against one device's ``attention`` under autograd."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.calls import counting
from tutorial.sequence import online_softmax
from tutorial.sequence.attention import attention, attention_reference
from tutorial.sequence.placement import PLACEMENTS
from tutorial.sequence.ring_attention import join_sequence, ring_attention, split_sequence
from tutorial.sequence.ring_schedule import FULLY

TOL = dict(rtol=1e-5, atol=1e-6)     # float32 rounding; the reference is float64 or one device
CASES = [(k, seq_len, causal, placement) for k in (1, 2, 3, 4) for seq_len in (8, 11)
         for causal in (False, True) for placement in PLACEMENTS]


def devices(k):
    return [mx.cpu(i) for i in range(k)]


def qkv(seq_len, seed=0, batch=2, heads=2, head_dim=3):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(batch, heads, seq_len, head_dim)).astype(np.float32)
            for _ in range(3)]


def ring_forward_backward(arrays, head, k, causal, placement):
    """Ring attention of the full arrays cut over k devices: output and dq, dk, dv."""
    pieces = [split_sequence(mx.nd.array(x), devices(k), placement) for x in arrays]
    for piece in (p for per_device in pieces for p in per_device):
        piece.attach_grad()
    with autograd.record():
        result = ring_attention(*pieces, causal=causal, placement=placement)
        loss = (join_sequence(result.outputs, placement) * mx.nd.array(head)).sum()
    loss.backward()
    grads = [join_sequence([p.grad for p in per_device], placement) for per_device in pieces]
    return result, [join_sequence(result.outputs, placement)] + grads


def one_device_forward_backward(arrays, head, causal):
    xs = [mx.nd.array(x) for x in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        loss = (attention(*xs, causal=causal) * mx.nd.array(head)).sum()
    loss.backward()
    return [x.grad for x in xs]


@pytest.mark.parametrize("k, seq_len, causal, placement", CASES)
def test_ring_attention_equals_full_attention_outputs_and_gradients(k, seq_len, causal,
                                                                    placement):
    arrays = qkv(seq_len, seed=seq_len + k)
    head = np.random.default_rng(1).normal(size=arrays[0].shape).astype(np.float32)
    result, (out, *grads) = ring_forward_backward(arrays, head, k, causal, placement)
    assert [o.context for o in result.outputs] == devices(k)
    np.testing.assert_allclose(out.asnumpy(), attention_reference(*arrays, causal), **TOL)
    for name, ours, theirs in zip(("dq", "dk", "dv"), grads,
                                  one_device_forward_backward(arrays, head, causal)):
        np.testing.assert_allclose(ours.asnumpy(), theirs.asnumpy(), err_msg=name, **TOL)


def test_each_device_holds_its_own_queries_attention():
    arrays = qkv(11, seed=3)
    result = ring_attention(*(split_sequence(mx.nd.array(x), devices(3), "zigzag")
                              for x in arrays), causal=True, placement="zigzag")
    expected = attention_reference(*arrays, causal=True)
    for o, held in zip(result.outputs, result.schedule.held):
        np.testing.assert_allclose(o.asnumpy(), expected[:, :, held.positions], **TOL)


def test_bytes_sent_hand_worked():
    # batch 2, heads 2, head_dim 3, float32: 2 x 2 x 2 x 3 x 4 = 96 bytes of key and value per
    # position; 8 positions on 4 devices: 2 per block, 192 bytes, sent 3 times
    pieces = [split_sequence(mx.nd.array(x), devices(4)) for x in qkv(8)]
    assert ring_attention(*pieces).sent == [3 * 192] * 4


def test_values_may_be_wider_than_keys():
    # head_dim 3, value_dim 5: a position's key and value are 2 x 2 x (3 + 5) x 4 = 128 bytes;
    # 9 positions on 3 devices, 3 per block, sent twice: 2 x 3 x 128
    q, k, _ = qkv(9, seed=6)
    v = np.random.default_rng(7).normal(size=(2, 2, 9, 5)).astype(np.float32)
    pieces = [split_sequence(mx.nd.array(x), devices(3)) for x in (q, k, v)]
    result = ring_attention(*pieces, causal=True)
    assert result.sent == [2 * 3 * 128] * 3
    np.testing.assert_allclose(join_sequence(result.outputs).asnumpy(),
                               attention_reference(q, k, v, causal=True), **TOL)


@pytest.mark.parametrize("placement, computed", [("plain", 4 + 3 + 2 + 1),
                                                 ("zigzag", 4 * (3 + 2 * 3))])
def test_masked_tiles_are_skipped(placement, computed):
    # plain: device d computes blocks 0..d (10 of 16), one tile each; zig-zag: no block is
    # fully masked, but of its two chunks against the block's two, the diagonal block
    # computes 3 tiles and every other block 2: 3 + 2 (K - 1) tiles per device, balanced
    pieces = [split_sequence(mx.nd.array(x), devices(4), placement) for x in qkv(16)]
    with counting(online_softmax.partial) as seen:
        result = ring_attention(*pieces, causal=True, placement=placement)
    assert seen.calls == computed
    assert seen.calls == sum(len(w.tiles) for step in result.schedule.steps for w in step)
