"""Bad input and faults get a clear message that says what to do, never a raw MXNet error."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.parallel.aggregation import nccl_available
from tutorial.parallel.concise import GluonDataParallel, allreduce_then_update, gluon_trainer
from tutorial.parallel.equivalence import parameters
from tutorial.finite import TrainingDiverged
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp

TWO = [mx.cpu(0), mx.cpu(1)]


def test_batch_smaller_than_device_count():
    trainer = DataParallelTrainer(mlp(hidden=(8,)), TWO)
    X, y = next(digits_batches(1, seed=0))
    with pytest.raises(ValueError, match="over 2 devices.*at least 2, or fewer devices"):
        trainer.step(X, y)


@pytest.mark.parametrize("make", [DataParallelTrainer, GluonDataParallel])
def test_device_that_does_not_exist(make):
    with pytest.raises(ValueError, match=r"gpu\(7\) cannot be used here.*training_devices"):
        make(mlp(hidden=(8,)), [mx.cpu(0), mx.gpu(7)])


def test_repeated_device():
    with pytest.raises(ValueError, match="give each context once"):
        DataParallelTrainer(mlp(hidden=(8,)), [mx.cpu(0), mx.cpu(0)])


@pytest.mark.parametrize("make", [DataParallelTrainer, GluonDataParallel])
def test_nan_loss_stops_before_the_update_and_says_lower_the_lr(make):
    net = mlp(hidden=(32,))
    trainer = make(net, TWO, learning_rate=1e12)      # diverges to NaN within a few steps
    batches = digits_batches(32, seed=0)
    with pytest.raises(TrainingDiverged, match=r"nan at step \d+.*Lower the learning rate "
                                               r"\(it is 1e\+12; try 5e\+11 or less\)"):
        for _ in range(20):
            before = list(parameters(net).values())
            trainer.step(*next(batches))
    for value, old in zip(parameters(net).values(), before):   # the bad step changed nothing
        np.testing.assert_array_equal(value, old)


@pytest.mark.skipif(nccl_available(), reason="this MXNet has NCCL")
def test_nccl_without_nccl_is_explained():
    for build in (lambda: DataParallelTrainer(mlp(hidden=(8,)), TWO, aggregation="nccl"),
                  lambda: gluon_trainer(mlp(hidden=(8,)), TWO, kvstore="nccl")):
        with pytest.raises(ValueError, match="needs an MXNet built with NCCL.*Use 'device'"):
            build()


def test_update_on_kvstore_refusal_is_explained():
    trainer = GluonDataParallel(mlp(hidden=(8,)), TWO, learning_rate=0.1)
    assert trainer.update_on_kvstore          # MXNet's default with several devices
    with pytest.raises(RuntimeError, match="update_on_kvstore=True.*update_on_kvstore=False"):
        allreduce_then_update(trainer.trainer, 8)


def test_split_step_equals_step_when_update_on_kvstore_is_false():
    batches = [next(digits_batches(16, seed=s)) for s in range(3)]
    whole = GluonDataParallel(mlp(hidden=(8,)), TWO, learning_rate=0.1)
    halves = GluonDataParallel(mlp(hidden=(8,)), TWO, update_on_kvstore=False, learning_rate=0.1)
    assert not halves.update_on_kvstore
    for X, y in batches:
        whole.step(X, y)
        halves.step(X, y)   # trainer.step with update_on_kvstore=False
    one_more = GluonDataParallel(mlp(hidden=(8,)), TWO, update_on_kvstore=False,
                                 learning_rate=0.1)
    from tutorial.parallel.split import split_batch
    from tutorial.parallel.trainer import forward_backward
    for X, y in batches:
        forward_backward(one_more.net, one_more.loss_fn, split_batch(X, y, TWO))
        allreduce_then_update(one_more.trainer, len(X))
    reference = list(parameters(whole.net).values())
    for other in (halves.net, one_more.net):
        for value, expected in zip(parameters(other).values(), reference):
            np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-7)
