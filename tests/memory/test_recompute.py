"""Recomputation gives the gradients of plain autograd, holding fewer activations."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.memory import layers as L
from tutorial.memory.recompute import gradients, recomputing, segments, sqrt_segments
from tutorial.parallel.pipeline import executor, schedules
from tutorial.parallel.pipeline.stages import cut

WIDTH, DEPTH, N = 8, 9, 6


def setup(seed=0):
    mx.random.seed(seed)
    net = L.mlp([WIDTH] * (DEPTH + 1))
    net.initialize(mx.init.Xavier())
    rng = np.random.default_rng(seed)
    return (net, rng.normal(size=(N, WIDTH)).astype(np.float32),
            rng.integers(0, WIDTH, N).astype(np.float32))


def autograd_grads(net, X, y):
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(mx.nd.array(X)), mx.nd.array(y)).mean()
    loss.backward()
    return [(layer.weight.grad().asnumpy(), layer.bias.grad().asnumpy()) for layer in net]


@pytest.mark.parametrize("count", [1, 3, DEPTH])
def test_same_gradients_as_autograd(count):
    net, X, y = setup()
    expected = autograd_grads(net, X, y)
    grads, _, _ = gradients(L.from_gluon(net, mx.cpu()), X, y, segments(DEPTH, count))
    for (dw, db), (ew, eb) in zip(grads, expected):
        np.testing.assert_allclose(dw.asnumpy(), ew, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(db.asnumpy(), eb, rtol=1e-5, atol=1e-7)


def test_activations_held_follow_k_plus_n_over_k():
    net, X, y = setup()
    params = L.from_gluon(net, mx.cpu())
    held = {k: gradients(params, X, y, segments(DEPTH, k))[2].peak_by_kind(0)["activations"]
            for k in (1, 3, DEPTH)}
    row = N * WIDTH * 4                     # one layer's activations, bytes
    # k boundaries + the n/k - 1 recomputed outputs inside the largest segment
    assert held == {1: (1 + DEPTH - 1) * row, 3: (3 + 2) * row, DEPTH: DEPTH * row}
    assert sqrt_segments(DEPTH) == segments(DEPTH, 3)


def test_a_plan_with_a_gap_is_refused():
    net, X, y = setup()
    with pytest.raises(ValueError, match="consecutive"):
        gradients(L.from_gluon(net, mx.cpu()), X, y, [(0, 3), (4, DEPTH)])


@pytest.mark.parametrize("kind", ["gpipe", "1f1b"])
def test_pipeline_with_recomputation_trains_like_without(kind):
    results = []
    for make in (lambda s: s, recomputing):
        net, X, y = setup()
        stages = make(cut(net, [mx.cpu(0), mx.cpu(1), mx.cpu(2)]))
        plan = schedules.schedule(kind, 3, 2)
        run = executor.run(stages, plan, executor.microbatches(X, y, 2), lr=0.1,
                           concurrent=False)
        results.append(([p.data().asnumpy() for s in range(3) for p in stages.params(s)],
                        run.losses, [stages.activation_floats(s) for s in range(3)]))
    (plain, plain_losses, plain_floats), (again, again_losses, again_floats) = results
    assert again_losses == pytest.approx(plain_losses, rel=1e-6)
    for a, b in zip(plain, again):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert all(r < p for r, p in zip(again_floats, plain_floats))
