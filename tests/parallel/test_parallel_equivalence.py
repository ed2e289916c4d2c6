"""K devices x b samples end where 1 device x K*b samples ends (1e-5 relative, >= 20 steps).

The reference is MXNet's gluon.Trainer on ONE device; the candidates are our from-scratch
trainer with every aggregation, and gluon.Trainer on K devices with a kvstore.
"""

import mxnet as mx
import pytest

from tutorial.compare import relative_difference
from tutorial.parallel.aggregation import AGGREGATIONS
from tutorial.parallel.equivalence import compare, parameters, train
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp

STEPS = 20
TOLERANCE = 1e-5


def devices(k):
    return [mx.cpu(i) for i in range(k)]


@pytest.mark.parametrize("aggregation", AGGREGATIONS)
@pytest.mark.parametrize("k, b", [(2, 16), (4, 8)])
def test_scratch_trainer_matches_one_device(aggregation, k, b):
    result = compare("scratch", aggregation, devices(k), per_device_batch=b, steps=STEPS)
    assert result.relative_difference < TOLERANCE, result


@pytest.mark.parametrize("kvstore", ["device", "local"])
@pytest.mark.parametrize("k, b", [(2, 16), (4, 8)])
def test_gluon_trainer_matches_one_device(kvstore, k, b):
    result = compare("gluon", kvstore, devices(k), per_device_batch=b, steps=STEPS)
    assert result.relative_difference < TOLERANCE, result


def test_uneven_split_still_matches():
    result = compare("scratch", "device", devices(4), total_batch=30, steps=STEPS)   # 8,8,7,7
    assert result.relative_difference < TOLERANCE, result


@pytest.mark.parametrize("trainer", ["scratch", "gluon"])
@pytest.mark.parametrize("optimizer, settings", [
    ("sgd", dict(learning_rate=0.05, momentum=0.9, wd=1e-3)),
    ("adam", dict(learning_rate=1e-3)),
])
def test_stateful_optimizers_match_too(trainer, optimizer, settings):
    """Momentum and Adam keep state: updating once and broadcasting must keep it right."""
    result = compare(trainer, "device", devices(2), per_device_batch=16, steps=STEPS,
                     optimizer=optimizer, **settings)
    assert result.relative_difference < TOLERANCE, result


def test_training_really_moved_the_weights():
    """Guards the tests above: equal because both trained, not because neither did."""
    start = parameters(mlp(hidden=(32,), seed=0))
    net = mlp(hidden=(32,), seed=0)
    train(lambda n: DataParallelTrainer(n, devices(2), learning_rate=0.1), net,
          digits_batches(32, seed=0), STEPS)
    assert relative_difference(parameters(net), start) > 1e-2


class PerDeviceMeanTrainer(DataParallelTrainer):
    """The classic mistake: normalise by the per-device batch instead of the total."""

    def _update_and_broadcast(self, batch_size):
        super()._update_and_broadcast(batch_size // len(self.devices))


def test_normalising_by_the_per_device_batch_is_caught():
    reference = mlp(hidden=(32,), seed=0)
    train(lambda n: DataParallelTrainer(n, devices(1), learning_rate=0.1), reference,
          digits_batches(32, seed=0), STEPS)
    wrong = mlp(hidden=(32,), seed=0)
    train(lambda n: PerDeviceMeanTrainer(n, devices(2), learning_rate=0.1), wrong,
          digits_batches(32, seed=0), STEPS)
    assert relative_difference(parameters(wrong), parameters(reference)) > 100 * TOLERANCE


def test_every_device_holds_the_same_weights_after_a_step():
    net = mlp(hidden=(32,), seed=0)
    trainer = DataParallelTrainer(net, devices(3), aggregation="local", learning_rate=0.1)
    X, y = next(digits_batches(30, seed=0))
    trainer.step(X, y)
    for param in net.collect_params().values():
        first = param.list_data()[0].asnumpy()
        for copy in param.list_data()[1:]:
            assert (copy.asnumpy() == first).all()
