"""Tensor + sequence parallelism on K = 1..4 devices equals the one-device block: output
(also against float64 NumPy), the gradient of x and of every weight shard (the replicated
weights once summed over the devices); it sends what tensor parallelism sends and keeps
fewer activations; bad input is refused before any computation."""

import mxnet as mx
import numpy as np
import pytest

from forbid import forbid
from parallel_block_runs import (BATCH, CASES, HIDDEN, MODEL_DIM, TOL, as_numpy, devices,
                                 one_device, problem, split_over)
from tutorial.sequence import sequence_parallel_block as sp
from tutorial.sequence import tensor_parallel_block as tp
from tutorial.sequence.block import block_reference
from tutorial.sequence.parallel_block_costs import bytes_per_block, kept_bytes
from tutorial.sequence.sequence_collectives import sequence_shards


def replicated(weights):
    return [getattr(getattr(weights, part), field) for part, field in sp.REPLICATED]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("k, heads, seq", CASES)
def test_outputs_and_gradients_equal_one_device(k, heads, seq, causal):
    weights, x, head = problem(heads, seq, seed=k + seq)
    y, dx, grads = one_device(weights, x, head, heads, causal)
    result, _, dxs, shard_grads, sharding = split_over(k, weights, x, head, heads, causal,
                                                       sequence_parallel=True)
    for d, s in enumerate(sequence_shards(seq, k)):      # device d: its positions only
        assert result.outputs[d].context == mx.cpu(d)
        np.testing.assert_allclose(result.outputs[d].asnumpy(), y[:, s.start:s.stop], **TOL)
        np.testing.assert_allclose(dxs[d].asnumpy(), dx[:, s.start:s.stop], **TOL)
    np.testing.assert_allclose(sp.join_positions(result.outputs).asnumpy(),
                               block_reference(x, weights, heads, causal), atol=1e-4)
    partial = sum(np.stack([a.asnumpy() for a in replicated(g)]) for g in shard_grads)
    np.testing.assert_allclose(partial, np.stack(replicated(grads)), **TOL)
    summed, sent = sp.sum_replicated_gradients(shard_grads)
    assert sent == bytes_per_block(BATCH, seq, MODEL_DIM, k).replicated_gradients
    expected = tp.shard_weights(grads, sharding)
    for d, (ours, theirs) in enumerate(zip(summed, expected)):
        for name, a, b in zip(tp.weight_names(), tp.flat_weights(as_numpy(ours)),
                              tp.flat_weights(theirs)):
            np.testing.assert_allclose(a, b, err_msg=f"device {d} {name}", **TOL)


@pytest.mark.parametrize("k, seq", [(1, 7), (2, 7), (3, 7), (4, 8), (4, 5)])
def test_it_sends_what_tensor_parallelism_sends(k, seq):
    weights, x, head = problem(6, seq)
    runs = [split_over(k, weights, x, head, 6, True, sequence_parallel=mode)
            for mode in (False, True)]
    (tensor, tensor_forward, *_), (sequence, sequence_forward, *_) = runs
    assert tensor.bytes_sent() == sequence.bytes_sent()
    assert tensor_forward == sequence_forward
    counted = bytes_per_block(BATCH, seq, MODEL_DIM, k)
    assert sequence.bytes_sent() == counted.sequence_parallel == counted.tensor_parallel


def test_bytes_sent_hand_worked():
    # 96 bytes a position (batch 2 x 12 x 4 B); 7 positions on 2 devices in chunks of 4, 3:
    # a reduce-scatter sends the chunk a device does not keep, an all-gather the one it
    # keeps, so a device sends all 7 positions per pair, 4 pairs per step
    weights, x, head = problem(3, 7)
    result, forward, *_ = split_over(2, weights, x, head, 3, False, sequence_parallel=True)
    assert forward == [2 * 7 * 96] * 2
    assert result.bytes_sent() == [4 * 7 * 96] * 2


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_each_device_keeps_fewer_activations(k, causal):
    tensor, sequence = (kept_bytes(BATCH, 8, MODEL_DIM, 6, HIDDEN, k, mode, causal)
                        for mode in (False, True))
    assert all(s < t for s, t in zip(sequence, tensor))
    positions = [s.size for s in sequence_shards(8, k)]   # 4 arrays of model_dim a position
    assert [t - s for t, s in zip(tensor, sequence)] == [
        4 * 4 * BATCH * (8 - p) * MODEL_DIM for p in positions]
    assert kept_bytes(BATCH, 8, MODEL_DIM, 6, HIDDEN, 1, True, causal) == kept_bytes(
        BATCH, 8, MODEL_DIM, 6, HIDDEN, 1, False, causal)


def test_positions_are_the_rings_chunks_and_join_back():
    x = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3)
    pieces = sp.split_positions(x, devices(3))       # chunks 0:3, 3:5, 5:7; device d: d + 1
    assert [p.shape[1] for p in pieces] == [2, 2, 3]
    np.testing.assert_array_equal(pieces[0].asnumpy(), x[:, 3:5])
    np.testing.assert_array_equal(sp.join_positions(pieces).asnumpy(), x)


def inputs(k=2, seq=5):
    sharding = tp.tensor_sharding(MODEL_DIM, 6, HIDDEN, k)
    weights, x, _ = problem(6, seq)
    return sp.split_positions(x, devices(k)), tp.shard_weights(weights, sharding,
                                                               devices(k)), sharding


@pytest.mark.parametrize("call, message", [
    (lambda: sp.split_positions(np.zeros((1, 3, MODEL_DIM)), devices(4)),
     "devices=4 exceeds seq=3: every device needs at least one position; use at most 3"),
    (lambda: sp.split_positions(np.zeros((3, MODEL_DIM)), devices(2)),
     r"x must have 3 axes \(batch, seq, model_dim\), got shape \(3, 12\)"),
    (lambda: sp.sequence_parallel_block(inputs()[0][::-1], *inputs()[1:]),
     r"shards\[0\].norm1.gain has shape \(12,\), float32, on cpu\(0\); device 0 needs "
     r"\(12,\), float32, on cpu\(1\)"),
    (lambda: sp.sequence_parallel_block(
        [p.as_in_context(c) for p, c in zip(inputs()[0][::-1], devices(2))], *inputs()[1:]),
     r"pieces\[0\] holds 3 positions, but 5 positions on 2 devices give device 0 2 "
     r"\(positions 3:5\): cut x with split_positions\(x, contexts\)"),
    (lambda: sp.sequence_parallel_block(inputs()[0][:1], *inputs()[1:]),
     "pieces must be a list of 2 items, one per device of the sharding"),
    (lambda: sp.sequence_parallel_block(inputs()[0], inputs(k=3)[1], inputs()[2]),
     "shards must be a list of 2 items"),
    (lambda: sp.sequence_parallel_block([mx.nd.zeros((2, 2, 8)), mx.nd.zeros((2, 3, 8),
                                                                             ctx=mx.cpu(1))],
                                        *inputs()[1:]),
     r"pieces\[0\] has shape \(2, 2, 8\): every device needs batch 2 and model_dim 12"),
])
def test_bad_input_is_refused_before_any_computation(monkeypatch, call, message):
    calls = forbid(monkeypatch, (tp, "layer_norm"), (tp, "head_attention"))   # split_block's
    with pytest.raises(ValueError, match=message):
        call()
    assert calls == []
