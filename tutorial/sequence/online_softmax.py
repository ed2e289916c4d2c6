"""The online softmax: attention over keys that arrive one block at a time (Milakov &
Gimelshein 2018; Flash attention and ring attention are built on it).

A :class:`Partial` is what a query row knows after seeing some of the keys:

    m = the largest score it has seen
    l = sum over those keys of exp(score - m)
    o = sum over those keys of exp(score - m) * value      (not yet divided by l)

Two partials over different keys merge exactly: bring both to the larger maximum,
m = max(m_a, m_b), by multiplying each by exp(m_a - m) or exp(m_b - m), then add.
:func:`finish` divides o by l, and the result is the softmax attention over all the
keys, in whatever blocks and order they came. Worked by hand, one query (q = 1,
head_dim 1) and three keys in two blocks:

>>> def column(*xs): return mx.nd.array(xs).reshape((1, 1, -1, 1))
>>> q = column(1)
>>> a = partial(q, column(0), column(6))           # score 0: m = 0, l = 1, o = 6
>>> b = partial(q, column(1, 1), column(0, 3))     # scores 1, 1: m = 1, l = 2, o = 0 + 3
>>> [float(x.asscalar()) for x in a], [float(x.asscalar()) for x in b]
([0.0, 1.0, 6.0], [1.0, 2.0, 3.0])
>>> c = merge(a, b)                     # a rescaled by exp(0 - 1) = 0.3679, b by exp(0) = 1
>>> [round(float(x.asscalar()), 4) for x in c]
[1.0, 2.3679, 5.2073]
>>> import math                          # the same by hand: (6 e^0 + 3 e^1) / (e^0 + 2 e^1)
>>> round(float(finish(c).asscalar()), 4), round((6 + 3 * math.e) / (1 + 2 * math.e), 4)
(2.1991, 2.1991)

The maximum only keeps ``exp`` from overflowing: the result does not depend on it, so
no gradient flows through m. A row whose keys are all masked holds m = ``attention.MASKED``,
l = 0 and o = 0, and any merge with it leaves the other partial as it was.
"""

from typing import NamedTuple

import mxnet as mx

from tutorial.sequence.attention import check_qkv, mask_array, scores


class Partial(NamedTuple):
    """Attention of each query row over the keys seen so far, not yet normalised."""
    m: mx.nd.NDArray    # (batch, heads, seq_q, 1)         largest score seen
    l: mx.nd.NDArray    # (batch, heads, seq_q, 1)         sum of exp(score - m)
    o: mx.nd.NDArray    # (batch, heads, seq_q, head_dim)  sum of exp(score - m) * value


def partial(q, k, v, mask=None):
    """The :class:`Partial` of queries q over one block of keys k and values v.

    ``mask`` (seq_q, seq_k), true or 1 where query i may see key j; None: it sees all.
    """
    check_qkv(q, k, v)
    s = scores(q, k, mask)                                         # (B, H, Sq, Sk)
    m = mx.nd.stop_gradient(s.max(axis=-1, keepdims=True))
    e = mx.nd.exp(mx.nd.broadcast_sub(s, m))
    if mask is not None:        # a row with every key masked has e = exp(0): zero it
        e = mx.nd.broadcast_mul(e, mask_array(mask, e))
    return Partial(m, e.sum(axis=-1, keepdims=True), mx.nd.linalg.gemm2(e, v))


def merge(a, b):
    """One :class:`Partial` over the keys of ``a`` and of ``b``: exact, in either order."""
    m = mx.nd.maximum(a.m, b.m)
    scale_a, scale_b = mx.nd.exp(a.m - m), mx.nd.exp(b.m - m)
    return Partial(m, a.l * scale_a + b.l * scale_b, a.o * scale_a + b.o * scale_b)


def finish(p):
    """The attention output o / l, (batch, heads, seq_q, head_dim)."""
    return p.o / p.l
