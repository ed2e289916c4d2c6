"""Partials over blocks of keys, merged in any split and any order, equal full softmax
attention (float64 NumPy) and its gradients (one call of ``attention``)."""

import functools
import math

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.sequence.attention import attention, attention_reference, causal_mask
from tutorial.sequence.online_softmax import Partial, finish, merge, partial

TOL = dict(rtol=1e-5, atol=1e-6)


def qkv(seed=0, seq=9, batch=2, heads=2, head_dim=3):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(batch, heads, seq, head_dim)).astype(np.float32)
            for _ in range(3)]


def partials(q, k, v, cuts, causal):
    """One Partial per block of keys between consecutive ``cuts``."""
    bounds = list(zip([0] + cuts, cuts + [k.shape[2]]))
    out = []
    for a, b in bounds:
        mask = causal_mask(np.arange(q.shape[2]), np.arange(a, b)) if causal else None
        out.append(partial(q, k[:, :, a:b], v[:, :, a:b], mask))
    return out


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("cuts", [[], [4], [1, 2], [3, 6], [1, 5, 8], list(range(1, 9))])
def test_any_split_merged_in_any_order_equals_full_attention(cuts, causal):
    q, k, v = qkv()
    expected = attention_reference(q, k, v, causal)
    parts = partials(*map(mx.nd.array, (q, k, v)), cuts, causal)
    orders = {"left to right": parts, "right to left": parts[::-1],
              "shuffled": [parts[i] for i in np.random.default_rng(1).permutation(len(parts))]}
    for name, order in orders.items():
        got = finish(functools.reduce(merge, order)).asnumpy()
        np.testing.assert_allclose(got, expected, err_msg=name, **TOL)
    if len(parts) == 4:                                    # a tree: (a b) (c d)
        tree = merge(merge(parts[0], parts[1]), merge(parts[2], parts[3]))
        np.testing.assert_allclose(finish(tree).asnumpy(), expected, **TOL)


def test_a_block_with_every_key_masked_changes_nothing():
    q, k, v = map(mx.nd.array, qkv(2))
    a = partial(q, k[:, :, :4], v[:, :, :4])
    nothing = partial(q, k[:, :, 4:], v[:, :, 4:], np.zeros((9, 5)))
    assert float(nothing.l.abs().sum().asscalar()) == 0.0
    assert float(nothing.o.abs().sum().asscalar()) == 0.0
    for merged in (merge(a, nothing), merge(nothing, a)):
        for ours, theirs in zip(merged, a):
            np.testing.assert_allclose(ours.asnumpy(), theirs.asnumpy(), **TOL)


def test_merge_rescales_by_the_larger_maximum_hand_worked():
    # a: m = 0, l = 1, o = 6; b: m = 1, l = 2, o = 3 -> m = 1, l = e^-1 + 2, o = 6 e^-1 + 3
    def as_partial(m, l, o):
        return Partial(*(mx.nd.array([x]).reshape((1, 1, 1, 1)) for x in (m, l, o)))
    c = merge(as_partial(0, 1, 6), as_partial(1, 2, 3))
    assert [float(x.asscalar()) for x in c] == pytest.approx(
        [1, math.exp(-1) + 2, 6 * math.exp(-1) + 3], rel=1e-6)
    assert float(finish(c).asscalar()) == pytest.approx((6 + 3 * math.e) / (1 + 2 * math.e))


def test_large_scores_stay_finite():
    q, k, v = qkv(3)
    q, k = q * 40, k * 40                                   # exp of the raw scores overflows
    parts = partials(*map(mx.nd.array, (q, k, v)), [3, 7], True)
    got = finish(functools.reduce(merge, parts)).asnumpy()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, attention_reference(q, k, v, True), **TOL)


@pytest.mark.parametrize("causal", [False, True])
def test_gradients_of_merged_partials_equal_full_attention(causal):
    arrays = qkv(4)
    head = mx.nd.array(np.random.default_rng(5).normal(size=arrays[0].shape))

    def blocks(q, k, v):
        return finish(functools.reduce(merge, partials(q, k, v, [2, 5], causal)))

    grads = []
    for f in (blocks, lambda q, k, v: attention(q, k, v, causal)):
        xs = [mx.nd.array(x) for x in arrays]
        for x in xs:
            x.attach_grad()
        with autograd.record():
            out = f(*xs)
        out.backward(head)
        grads.append([out] + [x.grad for x in xs])
    for name, ours, theirs in zip(("output", "dq", "dk", "dv"), *grads):
        np.testing.assert_allclose(ours.asnumpy(), theirs.asnumpy(), err_msg=name, **TOL)
