"""DropConnect: masks weights (one fresh mask per step), expected weights when predicting."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.nn import DropConnectDense

SIGMAS = 5


def _layer(units=30, in_units=20, rate=0.5, activation=None, seed=0):
    layer = DropConnectDense(units, in_units=in_units, rate=rate, activation=activation)
    layer.initialize()
    rng = np.random.default_rng(seed)      # weights away from 0, so a kept weight is never 0
    signs = rng.choice([-1.0, 1.0], size=(units, in_units))
    layer.weight.set_data(mx.nd.array(signs * rng.uniform(0.5, 1.5, size=(units, in_units))))
    layer.bias.set_data(mx.nd.array(rng.normal(size=units)))
    return layer


def _effective_weight(layer, batch_copies=1):
    """Feed the identity: row j of the output is column j of the weight used, plus the bias."""
    eye = mx.nd.array(np.tile(np.eye(layer.in_units), (batch_copies, 1)))
    with autograd.record():
        out = layer(eye).asnumpy()
    return [(out[k * layer.in_units:(k + 1) * layer.in_units] - layer.bias.data().asnumpy()).T
            for k in range(batch_copies)]


def test_prediction_mode_equals_gluon_dense_with_the_same_weights():
    layer = _layer(activation="relu")
    dense = gluon.nn.Dense(30, in_units=20, activation="relu")
    dense.initialize()
    dense.weight.set_data(layer.weight.data())
    dense.bias.set_data(layer.bias.data())
    x = mx.nd.array(np.random.default_rng(1).normal(size=(8, 4, 5)))   # flattened to 20
    np.testing.assert_allclose(layer(x).asnumpy(), dense(x).asnumpy(), rtol=1e-5, atol=1e-6)
    with autograd.record(train_mode=False):
        np.testing.assert_allclose(layer(x).asnumpy(), dense(x).asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rate", [0.2, 0.5])
def test_training_masks_individual_weights_with_inverted_scaling(rate):
    mx.random.seed(1)
    layer = _layer(units=60, in_units=50, rate=rate)
    (used,) = _effective_weight(layer)
    weight = layer.weight.data().asnumpy()
    kept = used != 0
    np.testing.assert_allclose(used[kept], weight[kept] / (1 - rate), rtol=1e-5)
    assert abs(kept.mean() - (1 - rate)) < SIGMAS * np.sqrt(rate * (1 - rate) / kept.size)
    # weights, not units: no input column and no output row is dropped as a whole
    assert kept.any(axis=0).all() and kept.any(axis=1).all()


def test_one_mask_per_step_shared_by_the_batch_and_fresh_at_the_next_step():
    mx.random.seed(2)
    layer = _layer()
    first_a, first_b = _effective_weight(layer, batch_copies=2)
    np.testing.assert_allclose(first_a, first_b, rtol=1e-6)      # same mask for every example
    (second,) = _effective_weight(layer)
    assert not np.array_equal(first_a != 0, second != 0)         # a new mask at the next step


def test_expected_weights_over_many_steps_are_the_prediction_weights():
    mx.random.seed(3)
    rate, draws = 0.5, 400
    layer = _layer(units=10, in_units=8, rate=rate)
    mean_used = np.mean([_effective_weight(layer)[0] for _ in range(draws)], axis=0)
    weight = layer.weight.data().asnumpy()
    se = np.abs(weight) * np.sqrt(rate / (1 - rate) / draws)
    assert np.all(np.abs(mean_used - weight) < SIGMAS * se)


def test_gradients_flow_only_through_kept_weights_and_the_bias_is_never_dropped():
    mx.random.seed(4)
    rate = 0.5
    layer = _layer(units=12, in_units=9, rate=rate)
    x = mx.nd.ones((3, 9))
    with autograd.record():
        y = layer(x)
    y.backward()                                   # d(sum y)/dW_used = sum over batch of x = 3
    used = (y.asnumpy()[0] - layer.bias.data().asnumpy())
    grad_w = layer.weight.grad().asnumpy()
    mask = grad_w != 0
    assert 0 < mask.mean() < 1
    np.testing.assert_allclose(grad_w[mask], 3 / (1 - rate), rtol=1e-6)
    # the output used exactly the weights that received gradient
    np.testing.assert_allclose(used, (layer.weight.data().asnumpy() * mask / (1 - rate)).sum(1),
                               rtol=1e-5)
    np.testing.assert_allclose(layer.bias.grad().asnumpy(), np.full(12, 3.0))


def test_it_trains_inside_a_network():
    mx.random.seed(5)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(256, 6)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(np.float32)
    net = gluon.nn.Sequential()
    net.add(DropConnectDense(32, in_units=6, rate=0.3, activation="relu"), gluon.nn.Dense(2))
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(100):
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(X)), mx.nd.array(y))
        loss.backward()
        trainer.step(len(X))
    accuracy = (net(mx.nd.array(X)).argmax(axis=1).asnumpy() == y).mean()
    assert accuracy > 0.9


def test_wrong_input_width_says_which_in_units_to_use():
    layer = _layer(in_units=20)
    with pytest.raises(ValueError, match="in_units=7"):
        layer(mx.nd.ones((2, 7)))


@pytest.mark.parametrize("kwargs, message", [
    (dict(units=0, in_units=3), "units"),
    (dict(units=4, in_units=None), "in_units"),
    (dict(units=4, in_units=3, rate=1.0), r"\[0, 1\)"),
])
def test_bad_construction_is_refused_clearly(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DropConnectDense(**kwargs)
