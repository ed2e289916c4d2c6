"""The transformer block from scratch equals MXNet's own LayerNorm and a float64 NumPy block."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.sequence.block import (block, block_reference, init_block, layer_norm,
                                     layer_norm_reference, to_nd)


@pytest.mark.parametrize("shape", [(2, 5, 8), (1, 1, 4), (3, 7, 12)])
def test_layer_norm_equals_mxnets_operator_and_numpy(shape):
    rng = np.random.default_rng(0)
    x = rng.normal(size=shape).astype(np.float32) * 3 + 1
    norm = to_nd(init_block(shape[2], 1, seed=2)).norm1
    ours = layer_norm(mx.nd.array(x), norm).asnumpy()
    theirs = mx.nd.LayerNorm(mx.nd.array(x), norm.gain, norm.bias, axis=-1,
                             eps=1e-5).asnumpy()
    np.testing.assert_allclose(ours, theirs, atol=2e-5)
    np.testing.assert_allclose(ours, layer_norm_reference(x, init_block(shape[2], 1, seed=2)
                                                          .norm1), atol=2e-5)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dims", [(8, 2, 16), (12, 3, 20), (4, 4, 8)])
def test_block_equals_the_float64_reference(dims, causal):
    model_dim, heads, hidden = dims
    w = init_block(model_dim, heads, hidden, seed=model_dim)
    x = np.random.default_rng(1).normal(size=(2, 6, model_dim)).astype(np.float32)
    ours = block(mx.nd.array(x), to_nd(w), heads, causal).asnumpy()
    np.testing.assert_allclose(ours, block_reference(x, w, heads, causal), atol=1e-4)


def test_the_causal_block_ignores_later_positions():
    w = init_block(8, 2, seed=0)
    x = np.random.default_rng(3).normal(size=(1, 6, 8)).astype(np.float32)
    changed = x.copy()
    changed[0, 4:] += 5
    a, b = (block(mx.nd.array(v), to_nd(w), 2, causal=True).asnumpy() for v in (x, changed))
    np.testing.assert_allclose(a[0, :4], b[0, :4], atol=1e-5)
    assert np.abs(a[0, 4:] - b[0, 4:]).max() > 0.1


def test_wrong_shapes_are_named():
    w = init_block(8, 2, seed=0)
    with pytest.raises(ValueError, match="3 axes"):
        block(mx.nd.zeros((6, 8)), to_nd(w), 2)
    with pytest.raises(ValueError, match=r"norm1.gain must have shape \(4,\)"):
        block(mx.nd.zeros((1, 6, 4)), to_nd(w), 2)
    with pytest.raises(ValueError, match="does not divide"):
        init_block(8, 3)
