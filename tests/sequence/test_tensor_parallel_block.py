"""The block split over K = 1..4 devices by heads and hidden units equals the one-device
block: its output (also against float64 NumPy), the gradient of x and of every weight
shard; it sends the ring's bytes; bad input is refused before any computation."""

import mxnet as mx
import numpy as np
import pytest

from forbid import forbid
from parallel_block_runs import (CASES, HIDDEN, MODEL_DIM, TOL, as_numpy, devices,
                                 one_device, problem, split_over)
from tutorial.sequence import tensor_parallel_block as tp
from tutorial.sequence.block import block_reference
from tutorial.sequence.parallel_block_costs import bytes_per_block


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("k, heads, seq", CASES)
def test_outputs_and_gradients_equal_one_device(k, heads, seq, causal):
    weights, x, head = problem(heads, seq, seed=k + seq)
    y, dx, grads = one_device(weights, x, head, heads, causal)
    result, _, dxs, shard_grads, sharding = split_over(k, weights, x, head, heads, causal,
                                                       sequence_parallel=False)
    assert [o.context for o in result.outputs] == devices(k)
    reference = block_reference(x, weights, heads, causal)
    for d in range(k):                       # every device holds the whole y and dx
        np.testing.assert_allclose(result.outputs[d].asnumpy(), y, **TOL)
        np.testing.assert_allclose(result.outputs[d].asnumpy(), reference, atol=1e-4)
        np.testing.assert_allclose(dxs[d].asnumpy(), dx, **TOL)
    expected = tp.shard_weights(grads, sharding)         # the one-device gradient's slices
    for d, (ours, theirs) in enumerate(zip(shard_grads, expected)):
        for name, a, b in zip(tp.weight_names(), tp.flat_weights(as_numpy(ours)),
                              tp.flat_weights(theirs)):
            np.testing.assert_allclose(a, b, err_msg=f"device {d} {name}", **TOL)


def test_each_device_holds_a_slice_of_every_split_weight():
    weights, _, _ = problem(6, 8)
    sharding = tp.tensor_sharding(MODEL_DIM, 6, HIDDEN, 4)
    assert sharding.heads == ((0, 2), (2, 4), (4, 5), (5, 6))     # uneven: 2, 2, 1, 1 heads
    assert sharding.hidden == ((0, 3), (3, 6), (6, 8), (8, 10))
    parts = tp.shard_weights(weights, sharding)
    np.testing.assert_array_equal(np.concatenate([p.attention.query for p in parts], axis=1),
                                  weights.attention.query)
    np.testing.assert_array_equal(np.concatenate([p.attention.output for p in parts]),
                                  weights.attention.output)
    np.testing.assert_array_equal(np.concatenate([p.mlp.second for p in parts]),
                                  weights.mlp.second)
    assert parts[3].attention.key.shape == (MODEL_DIM, 2)          # one head of 2 columns


@pytest.mark.parametrize("k, seq", [(2, 7), (3, 7), (4, 8)])
def test_bytes_sent_are_the_rings_forward_and_backward(k, seq):
    weights, x, head = problem(6, seq)
    result, forward, *_ = split_over(k, weights, x, head, 6, True, sequence_parallel=False)
    counted = bytes_per_block(2, seq, MODEL_DIM, k).tensor_parallel
    assert result.bytes_sent() == counted
    assert [2 * f for f in forward] == counted               # half forward, half backward


def test_bytes_sent_hand_worked():
    # batch 2 x model_dim 12 x 4 bytes = 96 bytes a position; 7 positions on 3 devices in
    # chunks of 3, 2, 2 positions. Per allreduce device 0 sends chunks 0, 2 (reduce-scatter)
    # and 1, 0 (all-gather): 10 positions; device 1 chunks 1, 0 and 2, 1: 9; device 2
    # chunks 2, 1 and 0, 2: 9. Four allreduces per step.
    weights, x, head = problem(3, 7)
    result, *_ = split_over(3, weights, x, head, 3, False, sequence_parallel=False)
    assert result.bytes_sent() == [4 * 10 * 96, 4 * 9 * 96, 4 * 9 * 96]


def inputs(k=2, heads=6, seq=5):
    sharding = tp.tensor_sharding(MODEL_DIM, heads, HIDDEN, k)
    weights, x, _ = problem(heads, seq)
    return tp.replicate(x, devices(k)), tp.shard_weights(weights, sharding, devices(k)), \
        sharding


@pytest.mark.parametrize("call, message", [
    (lambda: tp.tensor_sharding(MODEL_DIM, 3, HIDDEN, 4),
     "devices=4 exceeds heads=3: each device needs at least one; use at most 3 devices"),
    (lambda: tp.tensor_sharding(MODEL_DIM, 6, 3, 4),
     "devices=4 exceeds hidden=3: each device needs at least one; use at most 3 devices"),
    (lambda: tp.tensor_sharding(MODEL_DIM, 5, HIDDEN, 2),
     "heads=5 does not divide model_dim=12"),
    (lambda: tp.tensor_sharding(MODEL_DIM, 6, HIDDEN, 0), "devices must be a whole number"),
    (lambda: tp.tensor_parallel_block(inputs()[0][:1], *inputs()[1:]),
     "xs must be a list of 2 items, one per device of the sharding; got list of 1"),
    (lambda: tp.tensor_parallel_block(inputs()[0], inputs(k=3)[1], inputs()[2]),
     "shards must be a list of 2 items"),
    (lambda: tp.tensor_parallel_block([mx.nd.zeros((2, 5, 8), ctx=c) for c in devices(2)],
                                      *inputs()[1:]),
     r"xs\[0\] has shape \(2, 5, 8\): every device needs batch 2 and model_dim 12"),
    (lambda: tp.tensor_parallel_block(inputs()[0][::-1], *inputs()[1:]),
     r"shards\[0\].norm1.gain has shape \(12,\), float32, on cpu\(0\); device 0 needs "
     r"\(12,\), float32, on cpu\(1\): use shard_weights"),
    (lambda: tp.tensor_parallel_block(inputs()[0], inputs(heads=3)[1], inputs()[2]),
     r"shards\[0\].attention.query has shape \(12, 8\), float32, on cpu\(0\); device 0 "
     r"needs \(12, 6\)"),
    (lambda: tp.tensor_parallel_block([x.astype("float64") for x in inputs()[0]],
                                      *inputs()[1:]),
     r"shards\[0\].norm1.gain has shape \(12,\), float32, .* needs \(12,\), float64"),
    (lambda: tp.tensor_parallel_block([inputs()[0][0], inputs(seq=6)[0][1]], *inputs()[1:]),
     r"xs must be the same x on every device, got shapes \[\(2, 5, 12\), \(2, 6, 12\)\]"),
    (lambda: tp.tensor_parallel_block(inputs()[0], tp.shard_weights(problem(6, 5)[0],
                                                                     inputs()[2]), inputs()[2]),
     r"shards\[0\].norm1.gain is a ndarray, not an NDArray: use shard_weights\(weights, "
     r"sharding, contexts\)"),
    (lambda: tp.tensor_parallel_block([np.zeros((2, 5, 12))] * 2, *inputs()[1:]),
     r"xs\[0\] must be an NDArray \(batch, seq, model_dim\), got \(2, 5, 12\)"),
])
def test_bad_input_is_refused_before_any_computation(monkeypatch, call, message):
    calls = forbid(monkeypatch, (tp, "layer_norm"), (tp, "head_attention"))
    with pytest.raises(ValueError, match=message):
        call()
    assert calls == []
