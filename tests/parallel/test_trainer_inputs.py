"""Every trainer refuses bad batches, labels and optimizer settings with the fix, up front."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import gluon

from tutorial.nn import fit
from tutorial.parallel.concise import GluonDataParallel
from tutorial.parallel.equivalence import parameters
from tutorial.parallel.live import BackgroundRun, RunConfig, live_training
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp

TWO = [mx.cpu(0), mx.cpu(1)]
TRAINERS = [DataParallelTrainer, GluonDataParallel]


def batch(n=16):
    return next(digits_batches(n, seed=0))


@pytest.mark.parametrize("make", TRAINERS)
@pytest.mark.parametrize("change, message", [
    (lambda X, y: (X[:0], y[:0]), r"at least one sample and one feature: got shape \(0, 64\)"),
    (lambda X, y: (X[:, :63], y), r"each sample has 63 features \(batch of shape \(16, 63\)\) "
                                  r"but the net's first layer takes 64 \(its in_units\)"),
    (lambda X, y: (X.reshape(16, 8, 8)[:, :7], y), r"has 56 features"),
    (lambda X, y: (X, np.where(np.arange(16) == 5, 10, y)),
     r"label 10 \(sample 5\) is not a class of this net: labels must be whole numbers 0 to 9 "
     r"\(the net has 10 outputs\)"),
    (lambda X, y: (X, np.where(np.arange(16) == 2, -1, y)), r"label -1 \(sample 2\)"),
    (lambda X, y: (X, y + 0.5), r"label \d\.5 \(sample 0\)"),
    (lambda X, y: (X, np.eye(10)[y]), r"one class index per sample.*y.argmax\(axis=1\)"),
])
def test_a_bad_batch_is_refused_before_the_step(make, change, message):
    net = mlp(hidden=(8,))
    trainer = make(net, TWO, learning_rate=0.1)
    before = list(parameters(net).values())
    with pytest.raises(ValueError, match=message):
        trainer.step(*change(*batch()))
    assert trainer.steps_done == 0
    for value, old in zip(parameters(net).values(), before):
        np.testing.assert_array_equal(value, old)


@pytest.mark.parametrize("make", TRAINERS)
def test_labels_are_checked_against_the_output_when_the_layers_do_not_tell(make):
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(10, in_units=64), gluon.nn.HybridLambda(lambda F, x: x * 1))
    net.initialize()
    trainer = make(net, TWO, learning_rate=0.1)
    X, y = batch()
    with pytest.raises(ValueError, match=r"label 10 \(sample 0\).*0 to 9 \(the net has 10 "):
        trainer.step(X, np.where(np.arange(16) == 0, 10, y))
    trainer.step(X, y.astype(np.float32))          # float labels that are whole numbers: fine


@pytest.mark.parametrize("make", TRAINERS)
@pytest.mark.parametrize("options, error, message", [
    (dict(learning_rate=-1), ValueError, r"learning_rate=-1 is out of range: use a number in "
                                         r"\[0.0, inf\)"),
    (dict(learning_rate=float("inf")), ValueError, r"learning_rate=inf .*use a finite number"),
    (dict(learning_rate=0.1, momentum=1.0), ValueError, r"momentum=1.0 .*\[0.0, 1.0\)"),
    (dict(learning_rate=0.1, wd=-1e-4), ValueError, r"wd=-0.0001 is out of range"),
    (dict(learning_rate=0.1, clip_gradient=0), ValueError, r"clip_gradient=0 .*\(0.0, inf\)"),
    (dict(lr=0.1), TypeError, r"optimizer 'sgd' does not take lr\. It takes: momentum"),
])
def test_sgd_settings_are_checked_at_construction(make, options, error, message):
    with pytest.raises(error, match=message):
        make(mlp(hidden=(8,)), TWO, optimizer="sgd", **options)


@pytest.mark.parametrize("make", TRAINERS)
def test_adam_betas_and_unknown_optimizers(make):
    with pytest.raises(ValueError, match=r"beta2=1.0 is out of range"):
        make(mlp(hidden=(8,)), TWO, optimizer="adam", learning_rate=1e-3, beta2=1.0)
    with pytest.raises(ValueError, match=r"unknown optimizer 'adamw': MXNet knows .*adam, "):
        make(mlp(hidden=(8,)), TWO, optimizer="adamw")


@pytest.mark.parametrize("make", TRAINERS)
def test_a_built_optimizer_is_checked_and_takes_no_extra_settings(make):
    with pytest.raises(ValueError, match=r"momentum=1.5 is out of range"):
        make(mlp(hidden=(8,)), TWO, optimizer=mx.optimizer.SGD(momentum=1.5))
    with pytest.raises(ValueError, match=r"learning_rate=-0.1 is out of range"):
        make(mlp(hidden=(8,)), TWO, optimizer=mx.optimizer.SGD(learning_rate=-0.1))
    with pytest.raises(ValueError, match="pass optimizer settings to the optimizer you built"):
        make(mlp(hidden=(8,)), TWO, optimizer=mx.optimizer.SGD(), learning_rate=0.1)


@pytest.mark.parametrize("make", TRAINERS)
def test_numpy_scalar_learning_rate_is_fine(make):
    trainer = make(mlp(hidden=(8,)), TWO, learning_rate=np.float32(0.1),
                   momentum=np.float64(0.9))
    assert trainer.learning_rate == pytest.approx(0.1)
    assert trainer.step(*batch()).step == 1


def _data(n=40):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    return X, (X[:, 0] > 0).astype(np.int32)


def _net():
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(8, in_units=4, activation="relu"), gluon.nn.Dense(2, in_units=8))
    net.initialize(mx.init.Xavier())
    return net


@pytest.mark.parametrize("change, message", [
    (dict(batch_size=0), r"batch_size must be a whole number >= 1 \(samples per minibatch\)"),
    (dict(batch_size=-8), r"batch_size must be a whole number >= 1"),
    (dict(learning_rate=-0.1), r"learning_rate=-0.1 is out of range"),
    (dict(learning_rate=float("inf")), r"learning_rate=inf .*finite"),
    (dict(momentum=1.0), r"momentum=1.0 is out of range"),
    (dict(wd=-1.0), r"wd=-1.0 is out of range"),
    (dict(X_train=np.zeros((40, 5), np.float32)), r"each sample has 5 features .* takes 4"),
    (dict(X_val=np.zeros((40, 3), np.float32)), r"each sample has 3 features"),
    (dict(y_train=np.full(40, 2)), r"training labels: label 2 \(sample 0\).*0 to 1 \(the net "
                                   r"has 2 outputs\)"),
    (dict(y_val=np.full(40, -1)), r"validation labels: label -1 \(sample 0\)"),
    (dict(y_train=np.full(40, 0.25)), r"training labels: label 0.25 \(sample 0\)"),
])
def test_fit_refuses_bad_input_before_training(change, message):
    X, y = _data()
    args = dict(X_train=X, y_train=y, X_val=X, y_val=y, epochs=1)
    args.update(change)
    net = _net()
    before = [p.data().asnumpy().copy() for p in net.collect_params().values()]
    with pytest.raises(ValueError, match=message):
        fit(net, **args)
    for p, old in zip(net.collect_params().values(), before):
        np.testing.assert_array_equal(p.data().asnumpy(), old)


def test_fit_asks_the_net_for_its_classes_when_the_layers_do_not_tell():
    X, y = _data()
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(2, in_units=4), gluon.nn.HybridLambda(lambda F, x: x * 1))
    net.initialize()
    with pytest.raises(ValueError, match=r"label 2 \(sample 3\).*the net has 2 outputs"):
        fit(net, X, np.where(np.arange(40) == 3, 2, y), X, y, epochs=1)
    assert fit(net, X, y, X, y, epochs=1, learning_rate=np.float32(0.1)).epochs == 1


@pytest.mark.parametrize("change, message", [
    (dict(per_device_batch=0), r"per_device_batch must be a whole number >= 1, got 0"),
    (dict(per_device_batch=-4), r"per_device_batch must be a whole number >= 1, got -4"),
    (dict(devices=0), r"devices must be a whole number >= 1"),
    (dict(base_lr=-0.1), r"base_lr=-0.1 is out of range"),
    (dict(base_lr=float("inf")), r"base_lr=inf .*finite"),
])
def test_dashboard_run_config_is_checked(change, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**change)


def test_dashboard_run_reports_bad_labels_as_a_failure_with_the_fix():
    X, y = batch(64)
    config = RunConfig(devices=2, per_device_batch=8, hidden=(8,), steps=3,
                       base_lr=np.float32(0.1))
    assert config.learning_rate == pytest.approx(0.05)
    finished = []
    run = BackgroundRun(lambda stop: live_training(config, TWO, stop, data=(X, y + 10)),
                        lambda report: None, lambda *args: finished.append(args)).start()
    assert run.join(120)
    (status, message), = finished
    assert status == "failed"
    assert message.startswith("ValueError: label 1") and "0 to 9" in message
