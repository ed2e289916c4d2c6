"""The one-device mixture of experts: forward against a float64 NumPy reference (token by
token), gradients against a dense MXNet formulation (every expert on every token, weighted
by a combine matrix, as GShard writes it), and what a dropped token gets."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.experts.moe import MoEWeights, init_moe, moe, moe_reference, to_nd
from tutorial.sequence.block import MLP, mlp

CASES = [(k, factor) for k in (1, 2) for factor in (None, 1.0, 0.5)]


def tokens(n=12, d=6, seed=1):
    return np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)


def with_grads(weights):
    w = to_nd(weights)
    for a in [w.router] + [a for expert in w.experts for a in expert]:
        a.attach_grad()
    return w


def grads(x, w):
    return [x.grad.asnumpy(), w.router.grad.asnumpy()] + [
        a.grad.asnumpy() for expert in w.experts for a in expert]


def dense_moe(x, w, routing):
    """sum_e combine[:, e] * expert_e(x): gates from a one-hot mask of the chosen experts,
    renormalised for k > 1, zeroed where capacity dropped the choice."""
    tokens, experts = x.shape[0], len(w.experts)
    chosen, kept = np.zeros((tokens, experts)), np.zeros((tokens, experts))
    for t, (row, slots) in enumerate(zip(routing.experts, routing.slots)):
        for e, s in zip(row, slots):
            chosen[t, e], kept[t, e] = 1, s is not None
    p = mx.nd.softmax(mx.nd.dot(x, w.router), axis=-1) * mx.nd.array(chosen)
    if routing.k > 1:
        p = mx.nd.broadcast_div(p, p.sum(axis=1, keepdims=True))
    combine = p * mx.nd.array(kept)                                   # (tokens, experts)
    return mx.nd.add_n(*[mx.nd.broadcast_mul(combine[:, e:e + 1], mlp(x, w.experts[e]))
                         for e in range(experts)])


@pytest.mark.parametrize("k, factor", CASES)
def test_forward_equals_the_float64_reference(k, factor):
    weights, x = init_moe(6, 10, 4, seed=k), tokens()
    result = moe(mx.nd.array(x), to_nd(weights), k, factor)
    np.testing.assert_allclose(result.output.asnumpy(), moe_reference(x, weights, k, factor),
                               rtol=1e-4, atol=1e-5)
    assert result.output.shape == x.shape
    if factor == 0.5:
        assert result.routing.dropped > 0          # the case tests dropping


@pytest.mark.parametrize("k, factor", CASES)
def test_gradients_equal_the_dense_formulation(k, factor):
    weights, x_np = init_moe(6, 10, 4, seed=k + 3), tokens(seed=2)
    head = mx.nd.array(np.random.default_rng(9).normal(size=x_np.shape))
    results = []
    for run in ("ours", "dense"):
        x, w = mx.nd.array(x_np), with_grads(weights)
        x.attach_grad()
        with autograd.record():
            if run == "ours":
                result = moe(x, w, k, factor)
                out = result.output
            else:
                out = dense_moe(x, w, result.routing)
            (out * head).sum().backward()
        results.append([out.asnumpy()] + grads(x, w))
    for name, ours, theirs in zip(["output", "x", "router"] + [
            f"expert{e}.{f}" for e in range(4) for f in MLP._fields], *results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5, err_msg=name)


def test_a_token_with_every_choice_dropped_gets_zero():
    d = 4
    router = np.zeros((d, 3), np.float32)
    router[0, 0] = 10.0                        # feature 0 large: everyone wants expert 0
    x = np.full((6, d), 0.5, np.float32)
    weights = init_moe(d, 8, 3, seed=0)._replace(router=router)
    result = moe(mx.nd.array(x), to_nd(weights), k=1, capacity_factor=1.0)
    assert result.routing.tokens[0] == (0, 1)                 # capacity 2
    out = result.output.asnumpy()
    np.testing.assert_array_equal(out[2:], 0)
    assert np.abs(out[:2]).min() > 0


def test_one_expert_top1_without_limit_is_the_mlp_times_one():
    weights = init_moe(5, 7, 1, seed=4)
    x = tokens(8, 5)
    out = moe(mx.nd.array(x), to_nd(weights), k=1, capacity_factor=None).output
    np.testing.assert_allclose(out.asnumpy(), mlp(mx.nd.array(x), to_nd(weights).experts[0])
                               .asnumpy(), rtol=1e-6, atol=1e-6)


def test_weights_as_data():
    w = init_moe(3, 5, 2, seed=0)
    assert isinstance(w, MoEWeights) and w.router.shape == (3, 2)
    assert [tuple(a.shape) for a in w.experts[1]] == [(3, 5), (5,), (5, 3), (3,)]
    assert w.router.dtype == np.float32
