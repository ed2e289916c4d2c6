"""A NaN or infinity in a gradient or a weight stops training at once, naming where it is.

oneDNN's ReLU maps NaN to 0, so a NaN weight can hide behind a finite loss: these tests
inject non-finite gradients and weights the loss does not show, and check that every
trainer stops before the update with the step, the parameter, and gradient or weight.
"""

import os
import subprocess
import sys
import textwrap

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.nn import fit
from tutorial import finite
from tutorial.parallel.concise import GluonDataParallel
from tutorial.parallel.equivalence import parameters
from tutorial.finite import TrainingDiverged
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp

TWO = [mx.cpu(0), mx.cpu(1)]
TRAINERS = [DataParallelTrainer, GluonDataParallel]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo


class Inject(autograd.Function):
    """Forward: zeros (the loss does not change). Backward: ``value`` everywhere."""

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, x):
        return x * 0

    def backward(self, dy):
        return mx.nd.full(dy.shape, self.value, ctx=dy.context)


def poisoned_loss(param, value, from_step, calls):
    """Softmax cross-entropy whose gradient w.r.t. ``param`` is ``value`` from ``from_step``."""
    ce = gluon.loss.SoftmaxCrossEntropyLoss()

    def loss(out, y):
        calls.append(out.context)
        step = 1 + (len(calls) - 1) // len(TWO)
        extra = 0
        if step >= from_step:
            extra = Inject(value)(param.data(out.context)).sum()
        return ce(out, y) + extra
    return loss


def steps(trainer, n):
    batches = digits_batches(16, seed=0)
    for _ in range(n):
        trainer.step(*next(batches))


@pytest.mark.parametrize("make", TRAINERS)
@pytest.mark.parametrize("value, shown", [(float("nan"), "NaN"), (float("inf"), "an infinity")])
def test_a_non_finite_gradient_behind_a_finite_loss_stops_before_the_update(make, value, shown):
    net = mlp(hidden=(8,))
    bias = net[1].bias
    trainer = make(net, TWO, learning_rate=0.1,
                   loss=poisoned_loss(bias, value, from_step=3, calls=[]))
    steps(trainer, 2)
    before = list(parameters(net).values())
    on = r" on cpu\(\d\)" if make is GluonDataParallel else ""
    with pytest.raises(TrainingDiverged, match=rf"the gradient of {bias.name}{on} holds {shown} "
                                               rf"at step 3, so training stopped before the "
                                               rf"update.*Lower the learning rate"):
        steps(trainer, 1)
    assert trainer.steps_done == 2
    for now, old in zip(parameters(net).values(), before):
        np.testing.assert_array_equal(now, old)


def _nan_row(param, row=0):
    w = param.data().asnumpy()
    w[row] = np.nan
    param.set_data(w)


@pytest.mark.parametrize("make", TRAINERS)
def test_a_nan_weight_hidden_by_relu_is_named(make):
    net = mlp(hidden=(8,))
    trainer = make(net, TWO, learning_rate=0.1)
    steps(trainer, 2)
    _nan_row(net[0].weight)                   # a hidden unit's input weights: ReLU hides them
    with pytest.raises(TrainingDiverged, match=rf"the weight {net[0].weight.name} holds NaN at "
                                               rf"step 3: it became so after the update of "
                                               rf"step 2"):
        steps(trainer, 1)


@pytest.mark.parametrize("make", TRAINERS)
def test_a_nan_weight_before_training_says_initialise_again(make):
    net = mlp(hidden=(8,))
    _nan_row(net[1].weight)                   # the output layer: the loss is NaN too
    with pytest.raises(TrainingDiverged, match=rf"the weight {net[1].weight.name} holds NaN "
                                               rf"before the first update.*force_reinit=True"):
        steps(make(net, TWO, learning_rate=0.1), 1)


def test_the_check_reads_back_one_number_per_step(monkeypatch):
    reads = []
    real = finite.all_finite
    monkeypatch.setattr(finite, "all_finite", lambda arrays: reads.append(len(arrays))
                        or real(arrays))
    trainer = DataParallelTrainer(mlp(hidden=(8,)), TWO, learning_rate=0.1)
    steps(trainer, 3)
    assert reads == [8, 8, 8]                 # 4 gradients + 4 weights, one call per step


def test_more_arrays_than_one_fused_call_takes():
    arrays = [mx.nd.ones((2,)) for _ in range(2 * finite.CHUNK + 5)]
    assert finite.all_finite(arrays)
    arrays[-1][1] = np.inf                    # in the last chunk
    assert not finite.all_finite(arrays)
    assert not finite.all_finite([mx.nd.ones((2,), dtype="float16"),
                                  mx.nd.array([np.nan], dtype="float64", ctx=mx.cpu(1))])


def test_huge_but_finite_values_are_not_taken_for_an_overflow():
    assert finite.all_finite([mx.nd.array([3e38, -3e38]), mx.nd.ones((2,), dtype="float16")])
    assert not finite.all_finite([mx.nd.array([3e38, -np.inf])])


class InjectingBlock(gluon.Block):
    """A Dense layer whose bias gets an infinite gradient from ``from_call`` on."""

    def __init__(self, from_call, **kwargs):
        super().__init__(**kwargs)
        self.calls, self.from_call = 0, from_call
        with self.name_scope():
            self.dense = gluon.nn.Dense(2, in_units=8)

    def forward(self, x):
        y = self.dense(x)
        if autograd.is_training():
            self.calls += 1
            if self.calls >= self.from_call:
                y = y + Inject(np.inf)(self.dense.bias.data(x.context)).reshape((1, -1))
        return y


def _fit_data(n=64):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    return X, (X[:, 0] > 0).astype(np.int32)


def test_fit_stops_at_the_step_of_an_infinite_gradient_and_keeps_the_history():
    X, y = _fit_data()
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(8, in_units=4, activation="relu"), InjectingBlock(from_call=6))
    net.initialize(mx.init.Xavier())
    bias = net[1].dense.bias.name
    with pytest.raises(TrainingDiverged, match=rf"the gradient of {bias} holds an infinity at "
                                               rf"step 6, so training stopped") as error:
        fit(net, X, y, X, y, epochs=5, batch_size=16, learning_rate=0.1)
    assert error.value.history.epochs == 1    # 4 minibatches an epoch: step 6 is in epoch 2
    assert np.isfinite(net[1].dense.bias.data().asnumpy()).all()


def test_fit_names_a_nan_weight_the_loss_hides():
    X, y = _fit_data()
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(8, in_units=4, activation="relu"), gluon.nn.Dense(2, in_units=8))
    net.initialize(mx.init.Xavier())
    _nan_row(net[0].weight)
    with pytest.raises(TrainingDiverged, match=rf"the weight {net[0].weight.name} holds NaN "
                                               rf"before the first update"):
        fit(net, X, y, X, y, epochs=1)


def test_fit_stops_on_a_nan_loss_instead_of_training_on():
    X, y = _fit_data()
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(8, in_units=4, activation="relu"), gluon.nn.Dense(2, in_units=8))
    net.initialize(mx.init.Xavier())
    with pytest.raises(TrainingDiverged, match=r"at step \d+.*\(it is 50; try 25 or less\)") \
            as error:
        fit(net, X * 1e4, y, X, y, epochs=10, learning_rate=50.0)
    assert error.value.history.epochs < 10


def test_dashboard_run_fails_with_the_parameter_named(monkeypatch):
    import tutorial.parallel.live as live
    from tutorial.viz.dashboard import TrainingDashboard

    def nan_mlp(hidden, seed):
        net = mlp(hidden, seed=seed)
        _nan_row(net[0].weight)
        return net

    monkeypatch.setattr(live, "mlp", nan_mlp)
    view = TrainingDashboard(max_devices=2)
    view.batch.value, view.steps.value = 8, 10
    assert view.start(devices=TWO).join(timeout=120)
    assert view.run.status == "failed" and not view.reports
    assert "failed: TrainingDiverged: the weight " in view.summary.value
    assert "holds NaN before the first update" in view.summary.value


SCRIPT = textwrap.dedent("""
    import mxnet as mx, numpy as np
    from tutorial.finite import TrainingDiverged
    from tutorial.parallel.trainer import DataParallelTrainer
    from tutorial.parallel.workload import digits_batches, mlp
    net = mlp(hidden=(8,))
    w = net[0].weight.data().asnumpy(); w[0] = np.nan; net[0].weight.set_data(w)
    trainer = DataParallelTrainer(net, [mx.cpu(0), mx.cpu(1)], learning_rate=0.1)
    try:
        trainer.step(*next(digits_batches(16, seed=0)))
    except TrainingDiverged as error:
        print("STOPPED:", error)
""")


@pytest.mark.parametrize("onednn", ["1", "0"])
def test_the_same_error_with_and_without_onednn(onednn):
    """Without oneDNN the NaN weight makes the loss NaN at once; the error still names it."""
    env = dict(os.environ, MXNET_MKLDNN_ENABLED=onednn, PYTHONPATH=ROOT,
               MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "STOPPED: the weight dense0_weight holds NaN before the first update" in done.stdout
