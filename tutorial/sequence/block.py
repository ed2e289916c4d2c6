"""One transformer block, from scratch on NDArrays: LayerNorm, attention, MLP, residuals.

The block of GPT-2 and most models since ("pre-norm": Xiong et al. 2020), on features x of
shape (batch, seq, model_dim):

    h = x + attention(layer_norm(x))        every position looks at the others
    y = h + mlp(layer_norm(h))              every position on its own: relu(h W1 + b1) W2 + b2

LayerNorm (Ba et al. 2016) scales each position's features to mean 0 and variance 1,
then by a learned gain and bias: ``(x - mean) / sqrt(var + eps) * gain + bias``, the
mean and variance taken over that position's ``model_dim`` features only. The MLP's
hidden layer is usually 4 x model_dim wide. Weights multiply on the right (x @ W), as in
:mod:`tutorial.sequence.attention`; :func:`block_reference` is the same block in float64
NumPy, the independent reference.

>>> w = init_block(model_dim=8, heads=2, hidden=16, seed=0)
>>> x = np.random.default_rng(1).normal(size=(2, 5, 8)).astype(np.float32)
>>> y = block(mx.nd.array(x), to_nd(w), heads=2, causal=True).asnumpy()
>>> bool(np.abs(y - block_reference(x, w, heads=2, causal=True)).max() < 1e-4)
True
"""

from typing import NamedTuple

import mxnet as mx
import numpy as np

from tutorial.sequence.attention import (Projections, multi_head_attention,
                                         multi_head_reference)
from tutorial.validate import check_count

EPS = 1e-5


class Norm(NamedTuple):
    """LayerNorm's learned gain and bias, each (model_dim,)."""
    gain: object
    bias: object


class MLP(NamedTuple):
    """relu(x @ first + first_bias) @ second + second_bias."""
    first: object           # (model_dim, hidden)
    first_bias: object      # (hidden,)
    second: object          # (hidden, model_dim)
    second_bias: object     # (model_dim,)


class BlockWeights(NamedTuple):
    norm1: Norm
    attention: Projections
    norm2: Norm
    mlp: MLP


def layer_norm(x, norm, eps=EPS):
    """Each position's features to mean 0 and variance 1, then ``* gain + bias`` (NDArrays)."""
    centred = mx.nd.broadcast_sub(x, x.mean(axis=-1, keepdims=True))
    var = (centred ** 2).mean(axis=-1, keepdims=True)
    scaled = mx.nd.broadcast_div(centred, mx.nd.sqrt(var + eps))
    return mx.nd.broadcast_add(mx.nd.broadcast_mul(scaled, norm.gain), norm.bias)


def layer_norm_reference(x, norm, eps=EPS):
    x = np.asarray(x, dtype=np.float64)
    centred = x - x.mean(axis=-1, keepdims=True)
    var = (centred ** 2).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps) * np.asarray(norm.gain) + np.asarray(norm.bias)


def mlp(x, weights):
    """relu(x W1 + b1) W2 + b2 on the last axis of x (NDArrays)."""
    hidden = mx.nd.relu(mx.nd.broadcast_add(mx.nd.dot(x, weights.first), weights.first_bias))
    return mx.nd.broadcast_add(mx.nd.dot(hidden, weights.second), weights.second_bias)


def mlp_reference(x, weights):
    w = [np.asarray(a, dtype=np.float64) for a in weights]
    return np.maximum(np.asarray(x, dtype=np.float64) @ w[0] + w[1], 0) @ w[2] + w[3]


def check_block(x, weights):
    if len(x.shape) != 3:
        raise ValueError(f"x must have 3 axes (batch, seq, model_dim), got shape "
                         f"{tuple(x.shape)}")
    model_dim = x.shape[2]
    hidden = weights.mlp.first.shape[1]
    expected = {"norm1.gain": (model_dim,), "norm1.bias": (model_dim,),
                "norm2.gain": (model_dim,), "norm2.bias": (model_dim,),
                "mlp.first": (model_dim, hidden), "mlp.first_bias": (hidden,),
                "mlp.second": (hidden, model_dim), "mlp.second_bias": (model_dim,)}
    got = {"norm1.gain": weights.norm1.gain, "norm1.bias": weights.norm1.bias,
           "norm2.gain": weights.norm2.gain, "norm2.bias": weights.norm2.bias,
           **{f"mlp.{n}": a for n, a in zip(MLP._fields, weights.mlp)}}
    for name, shape in expected.items():
        if tuple(got[name].shape) != shape:
            raise ValueError(f"weights.{name} must have shape {shape} for model_dim="
                             f"{model_dim}, got {tuple(got[name].shape)}")


def block(x, weights, heads, causal=False):
    """One pre-norm transformer block on x (batch, seq, model_dim), NDArrays."""
    check_block(x, weights)
    h = x + multi_head_attention(layer_norm(x, weights.norm1), weights.attention, heads,
                                 causal)
    return h + mlp(layer_norm(h, weights.norm2), weights.mlp)


def block_reference(x, weights, heads, causal=False):
    """The same block in float64 NumPy (x and weights NumPy arrays)."""
    x = np.asarray(x, dtype=np.float64)
    check_block(x, weights)
    h = x + multi_head_reference(layer_norm_reference(x, weights.norm1),
                                 weights.attention, heads, causal)
    return h + mlp_reference(layer_norm_reference(h, weights.norm2), weights.mlp)


def init_block(model_dim, heads, hidden=None, seed=0):
    """Random float32 NumPy weights: projections ~ N(0, 1/model_dim), gains 1, biases 0
    (the biases and gains drawn near those values, so that a test sees them used)."""
    check_count("model_dim", model_dim)
    if model_dim % check_count("heads", heads):
        raise ValueError(f"heads={heads} does not divide model_dim={model_dim}")
    hidden = check_count("hidden", 4 * model_dim if hidden is None else hidden)
    rng = np.random.default_rng(seed)

    def normal(shape, scale):
        return (rng.normal(size=shape) * scale).astype(np.float32)

    def norm():
        return Norm(1 + normal(model_dim, 0.1), normal(model_dim, 0.1))

    d = model_dim
    return BlockWeights(
        norm(), Projections(*(normal((d, d), d ** -0.5) for _ in range(4))), norm(),
        MLP(normal((d, hidden), d ** -0.5), normal(hidden, 0.1),
            normal((hidden, d), hidden ** -0.5), normal(d, 0.1)))


def to_nd(weights, ctx=None):
    """The same weights as NDArrays on ``ctx`` (default: the current context)."""
    ctx = ctx or mx.current_context()
    return BlockWeights(*(type(part)(*(mx.nd.array(a, ctx=ctx) for a in part))
                          for part in weights))
