"""BatchNorm's running statistics on several devices: the from-scratch trainer averages them,
gluon.Trainer leaves one copy per device. The reference is the stem's convolution output,
computed on one device before the step."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.nn.resnet import norm_layers, resnet
from tutorial.parallel.concise import GluonDataParallel
from tutorial.parallel.running_stats import running_stats, spread_over_devices
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import mnist_batches

DEVICES = [mx.cpu(0), mx.cpu(1)]
MOMENTUM = 0.9          # gluon.nn.BatchNorm's default


def _stem_statistics(net, X):
    """Per-channel mean and (biased) variance of the stem convolution's output over X."""
    out = net[0][0](mx.nd.array(X)).asnumpy()
    return out.mean(axis=(0, 2, 3)), out.var(axis=(0, 2, 3))


def test_running_stats_are_the_parameters_without_gradient():
    net = resnet(channels=(4, 8))
    names = [p.name for p in running_stats(net)]
    assert len(names) == 2 * len(norm_layers(net))
    assert all(n.endswith(("running_mean", "running_var")) for n in names)


def test_scratch_trainer_averages_the_statistics_of_the_shards():
    X, y = next(mnist_batches(32, seed=0))
    net = resnet(channels=(4, 8), seed=0)
    shard_stats = [_stem_statistics(net, X[:16]), _stem_statistics(net, X[16:])]
    trainer = DataParallelTrainer(net, DEVICES, learning_rate=0.1)
    trainer.step(X, y)
    stem = norm_layers(net)[0]
    expected_mean = (1 - MOMENTUM) * np.mean([m for m, _ in shard_stats], axis=0)
    expected_var = MOMENTUM + (1 - MOMENTUM) * np.mean([v for _, v in shard_stats], axis=0)
    for copy in stem.running_mean.list_data():
        np.testing.assert_allclose(copy.asnumpy(), expected_mean, rtol=1e-4, atol=1e-6)
    for copy in stem.running_var.list_data():
        np.testing.assert_allclose(copy.asnumpy(), expected_var, rtol=1e-4, atol=1e-6)
    assert spread_over_devices(trainer.running_stats) == 0.0


def test_gluon_trainer_keeps_one_set_of_statistics_per_device():
    """gluon.Trainer copies device 0's statistics to all devices once, when its first step
    initialises the kvstore; from then on each device updates its own copy from its shard."""
    batches = mnist_batches(32, seed=0)
    net = resnet(channels=(4, 8), seed=0)
    trainer = GluonDataParallel(net, DEVICES, learning_rate=0.1)
    trainer.step(*next(batches))
    stem = norm_layers(net)[0]
    after_first = stem.running_mean.list_data()[0].asnumpy()
    assert spread_over_devices(running_stats(net)) == 0.0
    X, y = next(batches)
    shard_means = [_stem_statistics(net, X[:16])[0], _stem_statistics(net, X[16:])[0]]
    trainer.step(X, y)
    for copy, mean in zip(stem.running_mean.list_data(), shard_means):
        np.testing.assert_allclose(copy.asnumpy(), MOMENTUM * after_first + (1 - MOMENTUM) * mean,
                                   rtol=1e-4, atol=1e-6)
    assert spread_over_devices(running_stats(net)) > 1e-5


@pytest.mark.parametrize("make", [
    lambda net: DataParallelTrainer(net, DEVICES, learning_rate=0.1, momentum=0.9),
    lambda net: GluonDataParallel(net, DEVICES, learning_rate=0.1, momentum=0.9),
], ids=["scratch", "gluon"])
def test_both_trainers_train_the_cnn_and_keep_its_weights_equal(make):
    net = resnet(channels=(4, 8), seed=0)
    trainer = make(net)
    batches = mnist_batches(64, seed=0)
    losses = [trainer.step(*next(batches)).loss for _ in range(40)]
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5])
    weights = [p for p in net.collect_params().values() if p.grad_req != "null"]
    assert spread_over_devices(weights) == 0.0
