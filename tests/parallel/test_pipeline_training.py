"""Training through the pipeline: plain SGD, the synchronous pipeline, the asynchronous one,
and synthetic gradients, each against an independent reference or a boundary case."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.parallel.pipeline import schedules as sch
from tutorial.parallel.pipeline import synthetic_gradients as sg
from tutorial.parallel.pipeline.async_pipeline import Training, staleness, train
from tutorial.parallel.pipeline.stages import cut
from tutorial.parallel.workload import digits_batches, mlp

HIDDEN = (32, 24, 16)


def stream(n, size=8, seed=0):
    batches = digits_batches(size, seed=seed)
    return [next(batches) for _ in range(n)]


def one_device_sgd(batches, lr, per_step):
    """MXNet's own Trainer on one device: one step per ``per_step`` micro-batches."""
    net = mlp(hidden=HIDDEN, seed=2)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr}, kvstore=None)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for k in range(0, len(batches), per_step):
        X = np.concatenate([b[0] for b in batches[k:k + per_step]])
        y = np.concatenate([b[1] for b in batches[k:k + per_step]])
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).sum()
        loss.backward()
        trainer.step(len(X))
    return [p.data().asnumpy() for p in net.collect_params().values()]


def weights(stages):
    return [p.data(stages.devices[s]).asnumpy() for s in range(len(stages))
            for p in stages.params(s)]


def close(a, b, rtol=2e-5):
    return all(np.abs(x - z).max() <= rtol * np.abs(z).max() for x, z in zip(a, b))


def test_staleness_of_the_unflushed_1f1b_is_p_minus_s_minus_1():
    for p in range(1, 6):
        assert staleness(sch.one_f_one_b(p, 3 * p)) == [p - s - 1 for s in range(p)]
        assert staleness(sch.naive(p, 5)) == [0] * p


@pytest.mark.parametrize("mode, per_step", [("sequential", 1), ("sync", 4)])
def test_sequential_and_sync_training_match_one_device(mode, per_step):
    data = stream(8)
    stages = cut(mlp(hidden=HIDDEN, seed=2), [mx.cpu(i) for i in range(3)])
    run = train(stages, data, mode, lr=0.1, microbatches=4, concurrent=False)
    assert close(weights(stages), one_device_sgd(data, 0.1, per_step))
    assert len(run.losses) == len(run.times) == 8 and np.all(np.diff(run.times) > 0)
    # the same task durations on devices of their own never finish later than one by one
    assert np.all(run.modelled <= run.times + 1e-9) and np.all(np.diff(run.modelled) > 0)
    assert run.staleness == (0, 0, 0)


def test_async_with_one_stage_is_plain_sgd_and_with_more_stages_is_not():
    data = stream(12)
    one = cut(mlp(hidden=HIDDEN, seed=2), [mx.cpu(0)])
    train(one, data, "async", lr=0.1)
    assert close(weights(one), one_device_sgd(data, 0.1, 1))
    four = cut(mlp(hidden=HIDDEN, seed=2), [mx.cpu(i) for i in range(4)])
    run = train(four, data, "async", lr=0.1)
    assert run.staleness == (3, 2, 1, 0)
    assert not close(weights(four), one_device_sgd(data, 0.1, 1), rtol=1e-3)


def test_to_target_counts_micro_batches_and_reads_the_time_then():
    run = Training("x", np.array([3.0, 2.0, 1.0, 0.5, 0.4]), np.arange(1.0, 6.0),
                   np.arange(1.0, 6.0) / 2, 5.0, (0,))
    assert run.to_target(1.0, window=2) == (4, 4.0)         # mean of (1.0, 0.5) <= 1
    assert run.to_target(1.0, window=2, modelled=True) == (4, 2.0)
    assert run.to_target(0.1, window=2) == (None, None)
    assert run.to_target(1.0, window=9) == (None, None)


def test_to_target_for_good_ignores_a_dip_the_run_climbs_back_from():
    run = Training("x", np.array([2.0, 0.4, 2.0, 0.6, 0.5, 0.4]), np.arange(1.0, 7.0),
                   np.arange(1.0, 7.0), 6.0, (0,))
    assert run.to_target(0.5, window=1) == (2, 2.0)                     # the dip
    assert run.to_target(0.5, window=1, stays=True) == (5, 5.0)         # there for good
    assert run.to_target(0.45, window=1, stays=True) == (6, 6.0)        # the last one only
    ends_above = Training("x", np.array([0.4, 0.6]), np.arange(2.0), np.arange(2.0), 2.0, (0,))
    assert ends_above.to_target(0.5, window=1, stays=True) == (None, None)


def test_synthetic_gradients_move_the_first_stage_and_frozen_does_not():
    data = stream(30, size=16)
    runs = {}
    for mode in sg.MODES:
        stages = cut(mlp(hidden=(32, 32), seed=2), [mx.cpu(0), mx.cpu(1)], cuts=[(0, 1), (1, 3)])
        before = [p.data(mx.cpu(0)).asnumpy().copy() for p in stages.params(0)]
        runs[mode] = sg.train(stages, data, mode, lr=0.1, lr_predictor=0.01)
        moved = any(not np.array_equal(b, p.data(mx.cpu(0)).asnumpy())
                    for b, p in zip(before, stages.params(0)))
        assert moved == (mode != "frozen"), mode
    first = runs["synthetic"].cosine
    assert np.isfinite(first).all() and np.all(np.abs(first) <= 1 + 1e-6)
    assert np.isnan(runs["backprop"].cosine).all()
    assert runs["synthetic"].losses[0] == pytest.approx(runs["frozen"].losses[0])  # M starts at 0


def test_backprop_mode_is_plain_sgd():
    data = stream(10)
    stages = cut(mlp(hidden=HIDDEN, seed=2), [mx.cpu(0), mx.cpu(1)])
    sg.train(stages, data, "backprop", lr=0.1)
    assert close(weights(stages), one_device_sgd(data, 0.1, 1))


def test_synthetic_gradient_arguments():
    stages = cut(mlp(hidden=HIDDEN, seed=2), [mx.cpu(i) for i in range(3)])
    with pytest.raises(ValueError, match="decouple 2 stages; got 3"):
        sg.train(stages, stream(2), "synthetic", lr=0.1)
    with pytest.raises(ValueError, match="mode must be one of"):
        sg.train(stages, stream(2), "dni", lr=0.1)


def test_a_duration_table_makes_the_modelled_clock_a_function_of_the_schedule():
    data = stream(8)
    table = {(s, k): (1.0 if k == "F" else 2.0) for s in range(4) for k in "FB"}
    for mode, per_microbatch in (("sequential", 4 * 3.0), ("async", None)):
        stages = cut(mlp(hidden=HIDDEN, seed=2), [mx.cpu(i) for i in range(4)])
        run = train(stages, data, mode, lr=0.1, durations=table)
        if per_microbatch:                          # no overlap: 4 stages x (F + B) each
            assert np.allclose(np.diff(run.modelled), per_microbatch)
        else:                                       # the pipe full: one F + B per micro-batch
            assert np.allclose(np.diff(run.modelled)[4:], 3.0)


def test_median_durations_reads_one_time_per_stage_and_kind():
    from types import SimpleNamespace as NS
    from tutorial.parallel.pipeline.timing import median_durations
    timings = [NS(task=sch.Task(0, 0, i, "F"), start=0.0, end=d) for i, d in enumerate([1, 5, 2])]
    timings.append(NS(task=sch.Task(3, 0, 0, "B"), start=1.0, end=4.0))
    assert median_durations(NS(timings=timings)) == {(0, "F"): 2.0, (0, "B"): 3.0}


def test_median_durations_pools_several_runs_so_one_slow_task_does_not_count():
    from types import SimpleNamespace as NS
    from tutorial.parallel.pipeline.timing import median_durations
    runs = [NS(timings=[NS(task=sch.Task(0, 0, 0, "F"), start=0.0, end=d)]) for d in (1, 90, 2)]
    assert median_durations(*runs) == {(0, "F"): 2.0}        # 90: another process took the core


def test_shortest_durations_take_each_stage_and_kinds_fastest_run():
    """The replay's table: noise only adds time, so a slow run never moves it, and even most
    runs slowed (another notebook sharing the cores) leave the fastest one in charge."""
    from types import SimpleNamespace as NS
    from tutorial.parallel.pipeline.timing import shortest_durations
    runs = [NS(timings=[NS(task=sch.Task(0, 0, 0, "F"), start=1.0, end=1.0 + d),
                        NS(task=sch.Task(1, 1, 0, "B"), start=0.0, end=2 * d)])
            for d in (9.0, 1.5, 7.0)]
    assert shortest_durations(*runs) == {(0, "F"): 1.5, (1, "B"): 3.0}


def test_a_rate_that_diverges_is_recorded_not_raised():
    """train() compares rates, some of which diverge: the run says why and its losses from
    there on are NaN (the executor itself refuses to go on with a non-finite loss)."""
    stream_batches = digits_batches(32, seed=0)
    stream = [next(stream_batches) for _ in range(8)]
    for mode in ("sync", "async"):
        pipe = cut(mlp(hidden=(16, 16), seed=0), [mx.cpu(0), mx.cpu(1)])
        run = train(pipe, stream, mode, 1e30, microbatches=4, concurrent=False)
        assert run.diverged and "Lower the learning rate" in run.diverged
        assert len(run.losses) == 8 and np.isnan(run.losses[-1])
        pipe = cut(mlp(hidden=(16, 16), seed=0), [mx.cpu(0), mx.cpu(1)])
        fine = train(pipe, stream, mode, 0.1, microbatches=4, concurrent=False)
        assert fine.diverged is None and np.isfinite(fine.losses).all()
