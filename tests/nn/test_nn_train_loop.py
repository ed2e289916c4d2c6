"""The helpers the optimizer notebooks share, each against an independent reference:
gradients_of against NumPy's gradient of a linear softmax model, trained_with and
training_curve against the Gluon loop written out by hand, first_minibatches against
"every example once per epoch", mlp against Xavier's bounds."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.data import first_minibatches, minibatches
from tutorial.nn import gradients_of, mean_loss, mlp, trained_with, training_curve

rng = np.random.default_rng(0)
X = rng.random((50, 64), dtype=np.float32)
y = rng.integers(0, 10, 50).astype(np.int32)


def linear_net(W, b):
    net = gluon.nn.Dense(W.shape[0], in_units=W.shape[1])
    net.initialize()
    net.weight.set_data(W)
    net.bias.set_data(b)
    return net


def numpy_softmax_loss_and_gradients(W, b, X, y):
    """Per-example cross-entropy of softmax(X W^T + b) and the gradients of its sum."""
    scores = X.astype(np.float64) @ W.T + b
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    losses = -np.log(p[np.arange(len(y)), y])
    delta = p - np.eye(W.shape[0])[y]                       # d(loss_i) / d(scores_i)
    return losses, delta.T @ X, delta.sum(axis=0)


def test_gradients_of_equals_numpy_on_a_linear_model():
    W, b = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    Xs, ys = rng.normal(size=(7, 4)).astype(np.float32), np.array([0, 1, 2, 2, 1, 0, 0])
    net = linear_net(W, b)
    losses = gradients_of(net, Xs, ys)
    ref_losses, ref_dW, ref_db = numpy_softmax_loss_and_gradients(W, b, Xs, ys)
    np.testing.assert_allclose(losses.asnumpy(), ref_losses, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(net.weight.grad().asnumpy(), ref_dW, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(net.bias.grad().asnumpy(), ref_db, rtol=1e-4, atol=1e-6)
    assert mean_loss(net, Xs, ys) == pytest.approx(ref_losses.mean(), rel=1e-4)


def test_gradients_of_takes_another_loss():
    W, b = np.ones((1, 2), np.float32), np.zeros(1, np.float32)
    net = linear_net(W, b)
    gradients_of(net, np.array([[1.0, 2.0]]), np.array([[5.0]]), loss_fn=gluon.loss.L2Loss())
    # L2Loss = (s - t)^2 / 2 with s = 3, t = 5: d/dW = (s - t) x = -2 * [1, 2]
    np.testing.assert_allclose(net.weight.grad().asnumpy(), [[-2.0, -4.0]])


def hand_written_loop(net, trainer, batches):
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for Xb, yb in batches:
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(Xb)), mx.nd.array(yb))
        loss.backward()
        trainer.step(len(Xb))


@pytest.mark.parametrize("optimizer, params", [
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}),
    ("adam", {"learning_rate": 0.01}),
])
def test_trained_with_equals_the_gluon_loop_written_out(optimizer, params):
    batches = first_minibatches(X, y, num_steps=7, batch_size=16)
    ours = trained_with(mlp((16,), seed=3), optimizer, batches, params)
    net = mlp((16,), seed=3)
    hand_written_loop(net, gluon.Trainer(net.collect_params(), optimizer, params), batches)
    theirs = [p.data().asnumpy() for p in net.collect_params().values()]
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs))
    start = [p.data().asnumpy() for p in mlp((16,), seed=3).collect_params().values()]
    assert not np.allclose(ours[0], start[0])                  # it did train


def test_trained_with_takes_an_optimizer_object():
    batches = first_minibatches(X, y, num_steps=3, batch_size=16)
    by_name = trained_with(mlp((8,)), "sgd", batches, {"learning_rate": 0.1})
    by_object = trained_with(mlp((8,)), mx.optimizer.SGD(learning_rate=0.1), batches)
    assert all(np.array_equal(a, b) for a, b in zip(by_name, by_object))


def test_training_curve_equals_the_epoch_loop_written_out():
    curve = training_curve(mlp((16,), seed=1), "sgd", X, y, num_epochs=3, batch_size=8,
                           optimizer_params={"learning_rate": 0.2})
    net = mlp((16,), seed=1)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.2})
    expected = []
    for epoch in range(3):
        hand_written_loop(net, trainer, minibatches(X, y, 8, seed=epoch))
        scores = net(mx.nd.array(X)).asnumpy().astype(np.float64)
        logp = scores - scores.max(1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(1, keepdims=True))
        expected.append(-logp[np.arange(len(y)), y].mean())
    np.testing.assert_allclose(curve, expected, rtol=1e-5)
    assert curve[-1] < curve[0]


def test_after_epoch_sees_the_trainer_and_can_stop_learning():
    seen = []

    def freeze(net, trainer):
        seen.append(trainer.learning_rate)
        trainer.set_learning_rate(0.0)

    curve = training_curve(mlp((8,)), "sgd", X, y, num_epochs=3,
                           optimizer_params={"learning_rate": 0.5}, after_epoch=freeze)
    assert seen == [0.5, 0.0, 0.0]
    assert curve[1] == curve[2] and curve[0] == curve[1]     # no learning after epoch 1


def test_first_minibatches_visit_every_example_once_per_epoch():
    batches = first_minibatches(X, y, num_steps=14, batch_size=8)   # 7 batches per epoch
    assert [len(yb) for _, yb in batches] == [8] * 6 + [2] + [8] * 6 + [2]
    for epoch in range(2):
        rows = np.concatenate([Xb for Xb, _ in batches[7 * epoch:7 * epoch + 7]])
        order = [int(np.flatnonzero((X == row).all(axis=1))[0]) for row in rows]
        assert sorted(order) == list(range(len(X)))
        expected = list(minibatches(X, y, 8, seed=epoch))
        assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
                   for a, b in zip(batches[7 * epoch:], expected))
    assert not np.array_equal(batches[0][0], batches[7][0])        # each epoch its own order
    assert len(first_minibatches(X, y, num_steps=3, batch_size=8)) == 3


def test_mlp_draws_xavier_weights_from_its_seed():
    a, b, c = mlp((32,), seed=0), mlp((32,), seed=0), mlp((32,), seed=1)
    for layer, (fan_out, fan_in) in ((0, (32, 64)), (1, (10, 32))):
        w = a[layer].weight.data().asnumpy()
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        assert w.shape == (fan_out, fan_in) and np.abs(w).max() <= limit
        assert np.abs(w).max() > 0.9 * limit and abs(w.mean()) < 0.1 * limit
        assert np.array_equal(w, b[layer].weight.data().asnumpy())
        assert not np.array_equal(w, c[layer].weight.data().asnumpy())
        assert (a[layer].bias.data().asnumpy() == 0).all()
    assert (mlp((4, 3), bias=0.25)[1].bias.data().asnumpy() == 0.25).all()


def test_mlp_with_mxnets_generator_is_the_plain_gluon_net():
    """generator="mxnet" gives the weights of the net a Gluon program writes out by hand
    (deferred shapes, drawn at the first forward pass): those the optimizer notebooks use."""
    mx.random.seed(7)
    plain = gluon.nn.Sequential()
    plain.add(gluon.nn.Dense(32, activation="relu"), gluon.nn.Dense(10))
    plain.initialize(mx.init.Xavier())
    plain(mx.nd.zeros((1, 64)))
    ours = mlp((32,), seed=7, generator="mxnet", bias=0.0)
    for a, b in zip(ours.collect_params().values(), plain.collect_params().values()):
        assert np.array_equal(a.data().asnumpy(), b.data().asnumpy())
    assert not np.array_equal(ours[0].weight.data().asnumpy(),
                              mlp((32,), seed=7)[0].weight.data().asnumpy())
    assert (mlp((8,), generator="mxnet", bias=0.01)[1].bias.data().asnumpy() == np.float32(0.01)).all()


@pytest.mark.parametrize("call, message", [
    (lambda: first_minibatches(X, y, num_steps=0), "num_steps must be a whole number >= 1"),
    (lambda: first_minibatches(X, y, 2, batch_size=0), "batch_size must be a whole number >= 1"),
    (lambda: first_minibatches(X, y[:3], 2), "X has 50 rows but y has 3"),
    (lambda: first_minibatches(X[:0], y[:0], 2), "X has no rows"),
    (lambda: trained_with(mlp((8,)), "sgd", []), "batches is empty"),
    (lambda: training_curve(mlp((8,)), "sgd", X, y, num_epochs=0),
     "num_epochs must be a whole number >= 1"),
    (lambda: training_curve(mlp((8,)), "sgd", X, y, 1, batch_size=2.5),
     "batch_size must be a whole number >= 1"),
    (lambda: gradients_of(mlp((8,)), X[:, :10], y), "each sample has 10 features"),
    (lambda: gradients_of(mlp((8,)), X, y + 10), "label 1[0-9] .* is not a class of this net"),
    (lambda: mean_loss(mlp((8,)), X, y[:, None] * np.ones((1, 2))), "labels must be one class"),
    (lambda: mlp(64), r"hidden must be a list of layer widths such as \(64,\)"),
    (lambda: mlp((0,)), r"hidden\[0\] must be a whole number >= 1"),
    (lambda: mlp((8,), bias=float("nan")), "bias=nan is out of range"),
    (lambda: mlp((8,), generator="torch"), "generator='torch': use 'numpy'"),
    (lambda: mlp((10 ** 5,) * 3), r"mlp\(hidden=\(100000, 100000, 100000\)\) would have "
                                   r"20,007,700,010 parameters; this course's limit is "
                                   r"100,000,000"),
])
def test_bad_arguments_get_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()
