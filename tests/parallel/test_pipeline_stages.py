"""A network cut into stages on several devices computes what it computes on one.

The reference is the same network (same seed) on one device, trained with MXNet's own
``autograd`` and ``gluon.Trainer``; the pipeline moves activations and gradients between
devices itself and updates with its own SGD step.
"""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.parallel.pipeline import schedules as sch
from tutorial.parallel.pipeline.executor import microbatches, run
from tutorial.parallel.pipeline.stages import balanced_cuts, cut, layer_costs
from tutorial.parallel.workload import digits_batches, mlp

HIDDEN = (48, 40, 32)
LR = 0.3


def batch(size=24, seed=0):
    return next(digits_batches(size, seed=seed))


def reference_step(X, y, lr=LR):
    """Loss, gradients and weights after one SGD step of the whole net on ONE device."""
    net = mlp(hidden=HIDDEN, seed=1)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr}, kvstore=None)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).sum()
    loss.backward()
    grads = [p.grad().asnumpy() / len(X) for p in net.collect_params().values()]
    trainer.step(len(X))
    weights = [p.data().asnumpy() for p in net.collect_params().values()]
    return float(loss.asscalar()) / len(X), grads, weights


def stage_arrays(stages, what):
    return [getattr(p, what)(stages.devices[s]).asnumpy()
            for s in range(len(stages)) for p in stages.params(s)]


def close(a, b, rtol=1e-5):
    return all(np.abs(x - z).max() <= rtol * max(np.abs(z).max(), 1e-12) for x, z in zip(a, b))


@pytest.mark.parametrize("devices", [2, 3, 4])
def test_stages_on_devices_give_the_loss_and_gradients_of_one_device(devices):
    X, y = batch()
    loss, grads, _ = reference_step(X, y)
    stages = cut(mlp(hidden=HIDDEN, seed=1), [mx.cpu(i) for i in range(devices)])
    assert [p.list_ctx() for s in range(devices) for p in stages.params(s)] == \
        [[mx.cpu(s)] for s in range(devices) for _ in stages.params(s)]
    x, ins = X, []
    for s in range(devices):                         # forward: copy activations onward
        x_in, x = stages.forward(s, x, y if s == devices - 1 else None, 1.0 / len(X))
        ins.append((x_in, x))
    grad = None
    for s in reversed(range(devices)):               # backward: copy gradients back
        grad = stages.backward(s, *ins[s], grad)
        if s > 0:
            assert grad.context == mx.cpu(s)
    assert float(ins[-1][1].sum().asscalar()) == pytest.approx(loss, rel=1e-6)
    assert close(stage_arrays(stages, "grad"), grads)


@pytest.mark.parametrize("name", ["gpipe", "1f1b"])
@pytest.mark.parametrize("m", [1, 3, 6])
@pytest.mark.parametrize("concurrent", [False, True])
def test_a_pipelined_step_is_one_devices_whole_batch_update(name, m, concurrent):
    X, y = batch()
    _, _, weights = reference_step(X, y)
    stages = cut(mlp(hidden=HIDDEN, seed=1), [mx.cpu(i) for i in range(3)])
    result = run(stages, sch.schedule(name, 3, m), microbatches(X, y, m), lr=LR,
                 concurrent=concurrent)
    assert close(stage_arrays(stages, "data"), weights)
    assert all(not g.any() for g in stage_arrays(stages, "grad"))   # zeroed for the next step
    assert list(result.peak_held) == sch.peak_held(sch.schedule(name, 3, m))
    assert len(result.timings) == 2 * 3 * m
    assert all(0 <= t.start <= t.end <= result.seconds for t in result.timings)


def test_concurrent_and_serial_runs_give_the_same_bits():
    X, y = batch(32, seed=3)
    out = []
    for concurrent in (False, True):
        stages = cut(mlp(hidden=HIDDEN, seed=1), [mx.cpu(i) for i in range(4)])
        for k in range(3):
            run(stages, sch.one_f_one_b(4, 4), microbatches(X, y, 4), lr=LR,
                concurrent=concurrent)
        out.append(stage_arrays(stages, "data"))
    assert all(np.array_equal(a, b) for a, b in zip(*out))


def test_in_the_concurrent_run_each_task_starts_after_its_input_ended():
    X, y = batch()
    stages = cut(mlp(hidden=HIDDEN, seed=1), [mx.cpu(i) for i in range(3)])
    plan = sch.gpipe(3, 4)
    result = run(stages, plan, microbatches(X, y, 4), lr=LR)
    when = {(t.task.stage, t.task.microbatch, t.task.kind): t for t in result.timings}
    for t in result.timings:
        for need in sch.dependencies(t.task.stage, t.task.microbatch, t.task.kind, 3):
            assert when[need].end <= t.start


def test_balanced_cuts_minimise_the_largest_stage():
    assert balanced_cuts([1, 1, 1, 1], 2) == [(0, 2), (2, 4)]
    assert balanced_cuts([5, 1, 1, 1, 1, 1], 2) == [(0, 1), (1, 6)]
    assert balanced_cuts([3, 3, 3], 3) == [(0, 1), (1, 2), (2, 3)]
    assert layer_costs(mlp(hidden=(8,), seed=0)) == [64 * 8 + 8, 8 * 10 + 10]
