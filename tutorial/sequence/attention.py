"""Scaled dot-product attention and multi-head attention, from scratch on NDArrays.

Every query row looks at every key and takes a weighted mean of the values (Vaswani et
al. 2017, section 3.2):

    scores  = q kᵀ / sqrt(head_dim)          # (batch, heads, seq_q, seq_k)
    weights = softmax(scores) along keys     # a causal mask first sets key j > query i aside
    output  = weights v                      # (batch, heads, seq_q, head_dim)

The softmax is written out: subtract each row's maximum (it changes nothing but keeps
``exp`` from overflowing, so no gradient flows through it), exponentiate, divide by the
row's sum. :func:`attention_reference` does the same in float64 NumPy, the independent
reference. Multi-head attention projects the model's features, cuts them into ``heads``
groups (:func:`split_heads`), attends in each and joins them again (:func:`merge_heads`).

>>> causal_mask(np.arange(3), np.arange(3)).astype(int)
array([[1, 0, 0],
       [1, 1, 0],
       [1, 1, 1]])
>>> q = k = mx.nd.zeros((1, 1, 2, 4))               # equal scores: a plain mean of v
>>> v = mx.nd.array([[[[1, 2, 3, 4], [3, 4, 5, 6]]]])
>>> attention(q, k, v).asnumpy()[0, 0].tolist()
[[2.0, 3.0, 4.0, 5.0], [2.0, 3.0, 4.0, 5.0]]
>>> attention(q, k, v, causal=True).asnumpy()[0, 0].tolist()   # row 0 sees only key 0
[[1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0]]
"""

import math
from typing import NamedTuple

import mxnet as mx
import numpy as np

from tutorial.validate import check_count

AXES = "(batch, heads, seq, head_dim)"
MASKED = -1e30    # the score of a key set aside: exp(MASKED - m) is 0 in float32


def causal_mask(query_positions, key_positions):
    """(len(query_positions), len(key_positions)) booleans: True where key j <= query i."""
    return np.asarray(query_positions)[:, None] >= np.asarray(key_positions)[None, :]


def check_qkv(q, k, v):
    """Raise a ValueError sentence unless q, k, v are attention inputs that fit together."""
    for name, x in (("q", q), ("k", k), ("v", v)):
        if len(x.shape) != 4:
            raise ValueError(f"{name} must have 4 axes {AXES}, got shape {tuple(x.shape)}: "
                             f"for one sequence and one head use {name}.reshape((1, 1) + "
                             f"{name}.shape)")
        if 0 in x.shape:
            raise ValueError(f"{name} has an empty axis, shape {tuple(x.shape)}: every axis "
                             f"of {AXES} needs at least one entry")
    if q.shape[:2] != k.shape[:2] or k.shape[:2] != v.shape[:2]:
        raise ValueError(f"q, k and v must agree on (batch, heads), got {q.shape[:2]}, "
                         f"{k.shape[:2]} and {v.shape[:2]}")
    if q.shape[3] != k.shape[3]:
        raise ValueError(f"q and k must have the same head_dim (last axis), got {q.shape[3]} "
                         f"and {k.shape[3]}: a query is compared with a key by a dot product")
    if k.shape[2] != v.shape[2]:
        raise ValueError(f"k and v must have the same seq length (axis 2), got {k.shape[2]} "
                         f"and {v.shape[2]}: each key comes with one value")


def mask_array(mask, like):
    """``mask`` (seq_q, seq_k) as 0/1 numbers on ``like``'s context, shaped to broadcast."""
    mask = mx.nd.array(mask, ctx=like.context, dtype=like.dtype)
    if mask.shape != like.shape[-2:]:
        raise ValueError(f"mask must have shape (seq_q, seq_k) = {like.shape[-2:]}, got "
                         f"{mask.shape}: one entry per query and key")
    return mask.reshape((1, 1) + mask.shape)


def scores(q, k, mask=None):
    """q kᵀ / sqrt(head_dim), with keys the mask sets aside at :data:`MASKED`."""
    s = mx.nd.linalg.gemm2(q, k, transpose_b=True, alpha=1 / math.sqrt(q.shape[-1]))
    if mask is None:
        return s
    keep = mask_array(mask, s).broadcast_to(s.shape)
    return mx.nd.where(keep, s, mx.nd.full(s.shape, MASKED, ctx=s.context, dtype=s.dtype))


def attention(q, k, v, causal=False):
    """softmax(q kᵀ / sqrt(head_dim)) v; NDArrays of shape (batch, heads, seq, head_dim)."""
    check_qkv(q, k, v)
    mask = causal_mask(np.arange(q.shape[2]), np.arange(k.shape[2])) if causal else None
    s = scores(q, k, mask)                                     # (B, H, Sq, Sk)
    e = mx.nd.exp(mx.nd.broadcast_sub(s, mx.nd.stop_gradient(s.max(axis=-1, keepdims=True))))
    weights = mx.nd.broadcast_div(e, e.sum(axis=-1, keepdims=True))
    return mx.nd.linalg.gemm2(weights, v)                      # (B, H, Sq, D)


def attention_reference(q, k, v, causal=False):
    """The same in float64 NumPy (q, k, v NumPy arrays): the independent reference."""
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    check_qkv(q, k, v)
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        s = np.where(causal_mask(np.arange(q.shape[2]), np.arange(k.shape[2])), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


class Projections(NamedTuple):
    """The four weights of multi-head attention, each (model_dim, model_dim): x @ W."""
    query: object
    key: object
    value: object
    output: object


def split_heads(x, heads):
    """(batch, seq, model_dim) -> (batch, heads, seq, model_dim / heads)."""
    batch, seq, model_dim = x.shape
    if model_dim % check_count("heads", heads):
        raise ValueError(f"heads={heads} does not divide model_dim={model_dim}: choose heads "
                         f"among the divisors of {model_dim}")
    return x.reshape((batch, seq, heads, model_dim // heads)).transpose((0, 2, 1, 3))


def merge_heads(x):
    """(batch, heads, seq, head_dim) -> (batch, seq, heads * head_dim): heads side by side."""
    batch, heads, seq, head_dim = x.shape
    return x.transpose((0, 2, 1, 3)).reshape((batch, seq, heads * head_dim))


def check_features(x, weights):
    if len(x.shape) != 3:
        raise ValueError(f"x must have 3 axes (batch, seq, model_dim), got shape "
                         f"{tuple(x.shape)}")
    for name, w in zip(Projections._fields, weights):
        if tuple(w.shape) != (x.shape[2], x.shape[2]):
            raise ValueError(f"weights.{name} must have shape (model_dim, model_dim) = "
                             f"{(x.shape[2], x.shape[2])}, got {tuple(w.shape)}")


def multi_head_attention(x, weights, heads, causal=False):
    """Self-attention of x (batch, seq, model_dim) with ``heads`` heads, NDArrays."""
    check_features(x, weights)
    q, k, v = (split_heads(mx.nd.dot(x, w), heads) for w in weights[:3])
    return mx.nd.dot(merge_heads(attention(q, k, v, causal)), weights.output)


def multi_head_reference(x, weights, heads, causal=False):
    """The same in float64 NumPy."""
    x = np.asarray(x, dtype=np.float64)
    check_features(x, weights)
    q, k, v = (split_heads(x @ np.asarray(w, dtype=np.float64), heads) for w in weights[:3])
    return merge_heads(attention_reference(q, k, v, causal)) @ np.asarray(weights.output)
