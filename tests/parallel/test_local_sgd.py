"""Local SGD and post-local SGD: the averaging schedule, H = 1 against synchronous SGD,
H = T against K independent runs averaged once, and the replicas between rounds."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import gluon

from bounded import within
from tutorial.compare import relative_difference
from tutorial.finite import TrainingDiverged
from tutorial.parallel.local_sgd import LocalSGD, averaging_steps, train_local_sgd
from tutorial.parallel.scaling_workload import ScalingJob
from tutorial.parallel.trainer import DataParallelTrainer

DEVICES = [mx.cpu(k) for k in range(4)]
JOB = ScalingJob(steps=12, batch_per_worker=8, workers=4, learning_rate=0.3, hidden=(16,))


@pytest.mark.parametrize("period, rounds", [(1, 64), (2, 32), (4, 16), (8, 8), (16, 4)])
def test_local_sgd_averages_every_h_steps(period, rounds):
    steps = averaging_steps(64, period)
    assert len(steps) == rounds
    assert steps == tuple(range(period, 65, period))


def test_post_local_sgd_is_synchronous_up_to_the_switch_then_local():
    assert averaging_steps(20, 4, switch=6) == (1, 2, 3, 4, 5, 6, 10, 14, 18, 20)
    assert averaging_steps(5, 8) == (5,)                  # the last step always averages
    assert averaging_steps(8, 1, switch=3) == tuple(range(1, 9))
    assert averaging_steps(4, 2, switch=10) == (1, 2, 3, 4)


@pytest.mark.parametrize("kwargs", [dict(steps=0, period=1), dict(steps=4, period=0),
                                    dict(steps=4, period=2, switch=-1),
                                    dict(steps=4, period=1.5)])
def test_bad_schedules_are_refused_with_a_sentence(kwargs):
    with pytest.raises(ValueError, match="must be a whole number"):
        averaging_steps(**kwargs)


def weights(params):
    return [p.list_data()[0].asnumpy() for p in params]


def test_h1_equals_the_courses_synchronous_data_parallel_trainer():
    run = train_local_sgd(JOB.net(), DEVICES, JOB.batches(), JOB.steps, period=1,
                          learning_rate=JOB.learning_rate)
    net = JOB.net()
    sync = DataParallelTrainer(net, DEVICES, learning_rate=JOB.learning_rate)
    batches = JOB.batches()
    for _ in range(JOB.steps):
        sync.step(*next(batches), timed=False)
    assert run.rounds == JOB.steps
    assert relative_difference(list(run.params), weights(sync.params)) < 1e-5
    assert relative_difference(list(run.params), weights(JOB.net().collect_params()
                                                          .values())) > 1e-2   # it trained


def test_one_average_at_the_end_equals_k_independent_runs_averaged():
    """H = T: the workers never talk until the end (an independent reference: K plain
    gluon.Trainers, each on its own shard of every batch, on one device)."""
    run = train_local_sgd(JOB.net(), DEVICES, JOB.batches(), JOB.steps, period=JOB.steps,
                          learning_rate=JOB.learning_rate)
    finals = []
    for k in range(JOB.workers):
        net = JOB.net()
        trainer = gluon.Trainer(net.collect_params(), "sgd",
                                {"learning_rate": JOB.learning_rate}, kvstore=None)
        loss_fn, batches, b = gluon.loss.SoftmaxCrossEntropyLoss(), JOB.batches(), 8
        for _ in range(JOB.steps):
            X, y = next(batches)
            with mx.autograd.record():
                loss = loss_fn(net(mx.nd.array(X[k * b:(k + 1) * b])),
                               mx.nd.array(y[k * b:(k + 1) * b]))
            loss.backward()
            trainer.step(b)
        finals.append(weights(net.collect_params().values()))
    averaged = [np.mean(arrays, axis=0) for arrays in zip(*finals)]
    assert run.rounds == 1
    assert relative_difference(list(run.params), averaged) < 1e-5


def test_replicas_drift_apart_between_rounds_and_are_equal_after_one():
    workers = LocalSGD(JOB.net(), DEVICES, learning_rate=JOB.learning_rate)
    batches = JOB.batches()
    workers.step(*next(batches))
    workers.step(*next(batches))
    assert workers.spread() > 1e-3
    workers.average()
    assert workers.spread() == 0.0 and workers.rounds == 1


def test_a_run_counts_its_rounds_and_records_a_spread_per_round():
    run = train_local_sgd(JOB.net(), DEVICES, JOB.batches(), JOB.steps, period=4, switch=2,
                          evaluate=JOB.evaluate, learning_rate=JOB.learning_rate)
    assert averaging_steps(JOB.steps, 4, 2) == (1, 2, 6, 10, 12)
    assert run.rounds == len(run.spreads) == 5
    assert len(run.losses) == JOB.steps and 0.0 <= run.accuracy <= 1.0


def test_a_batch_that_does_not_split_evenly_is_refused():
    workers = LocalSGD(JOB.net(), DEVICES, learning_rate=0.1)
    X, y = next(JOB.batches())
    with pytest.raises(ValueError, match="multiple of 4"):
        workers.step(X[:30], y[:30])


@pytest.mark.parametrize("kwargs, message", [(dict(workers=0), "workers must be a whole number"),
                                             (dict(steps=2.5), "steps must be a whole number"),
                                             (dict(learning_rate=0.0), "learning_rate")])
def test_a_scaling_job_refuses_bad_sizes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ScalingJob(**kwargs)


def test_a_nan_input_stops_local_sgd_before_the_update():
    def poisoned():
        for X, y in JOB.batches():
            X = X.copy()
            X[3, 5] = np.nan
            yield X, y

    with within(60, "train_local_sgd"), pytest.raises(TrainingDiverged, match="at step 1"):
        train_local_sgd(JOB.net(), DEVICES, poisoned(), 4, period=2,
                        learning_rate=JOB.learning_rate)


def test_fewer_batches_than_steps_are_refused_with_a_sentence():
    batches = [next(JOB.batches())] * 3
    with within(60, "train_local_sgd"), pytest.raises(
            ValueError, match="batches ran out after 3 of the 5 steps"):
        train_local_sgd(JOB.net(), DEVICES, iter(batches), 5, period=2,
                        learning_rate=JOB.learning_rate)
    with within(60, "train_local_sgd"), pytest.raises(
            ValueError, match="batches ran out after 3 of the 5 steps"):
        train_local_sgd(JOB.net(), DEVICES, batches, 5, period=2,
                        learning_rate=JOB.learning_rate)
