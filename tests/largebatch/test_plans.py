"""Training plans (warm start, batch growth, lr decay) against hand-worked tables, and the
plan loop against a plain Gluon loop with MXNet's own SGD on the same batches."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.largebatch import phases as ph
from tutorial.largebatch.plan_runs import eval_steps, train_plan
from tutorial.largebatch.runs import Dataset


def _toy(n=120, d=6, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int32) + (X[:, 1] > 0.5).astype(np.int32)
    return Dataset(X[:90], y[:90], X[90:], y[90:])


def test_grow_batch_equals_hand_worked_table():
    # 1000 examples, batch 25 -> 50 -> 100 at epochs 2 and 3, then capped at 100: lr / 2
    plan = ph.grow_batch(5, 25, 0.2, milestones=(2, 3, 4), factor=2, max_batch=100)
    assert ph.plan_table(plan, 1000) == [
        (0, 25, 0.2, 1, 40), (1, 25, 0.2, 41, 40), (2, 50, 0.2, 81, 20),
        (3, 100, 0.2, 101, 10), (4, 100, 0.1, 111, 10)]
    assert ph.total_steps(plan, 1000) == 120


def test_decay_and_growth_keep_the_same_lr_over_batch_every_epoch():
    decay = ph.plan_table(ph.decay_lr(9, 16, 0.1, (3, 6), 4), 4096)
    grow = ph.plan_table(ph.grow_batch(9, 16, 0.1, (3, 6), 4), 4096)
    assert [lr / b for _, b, lr, _, _ in decay] == pytest.approx([lr / b for _, b, lr, _, _ in grow])
    assert [b for _, b, *_ in grow] == [16] * 3 + [64] * 3 + [256] * 3
    assert ph.total_steps(ph.decay_lr(9, 16, 0.1, (3, 6), 4), 4096) == 9 * 256
    assert ph.total_steps(ph.grow_batch(9, 16, 0.1, (3, 6), 4), 4096) == 3 * (256 + 64 + 16)


def test_warm_start_switches_after_its_small_batch_epochs():
    table = ph.plan_table(ph.warm_start(4, 10, 30, 1, 0.05, 0.15), 90)
    assert [(b, lr, first, steps) for _, b, lr, first, steps in table] == [
        (10, 0.05, 1, 9), (30, 0.15, 10, 3), (30, 0.15, 13, 3), (30, 0.15, 16, 3)]


@pytest.mark.parametrize("make, message", [
    (lambda: ph.warm_start(3, 8, 32, 3, 0.1, 0.1), "switch_epoch"),
    (lambda: ph.decay_lr(5, 8, 0.1, (3, 2), 2), "milestones"),
    (lambda: ph.grow_batch(5, 8, 0.1, (0, 2), 2), "milestones"),
    (lambda: ph.grow_batch(5, 8, 0.1, (2,), 1.0), "factor"),
    (lambda: ph.Phase(1, 0, 0.1), "batch_size"),
    (lambda: ph.plan_table(ph.constant(1, 200, 0.1), 100), "larger than"),
])
def test_bad_plans_get_a_sentence(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_eval_steps_end_every_epoch_and_cover_short_ones():
    assert eval_steps(100, 4) == [25, 50, 75, 100]
    assert eval_steps(2, 4) == [1, 2]


class _Recorder(gluon.Block):
    """A Dense layer that remembers the batch size of every training forward pass."""

    def __init__(self, sizes, **kw):
        super().__init__(**kw)
        self.sizes = sizes
        with self.name_scope():
            self.dense = gluon.nn.Dense(3, in_units=6)

    def forward(self, x):
        if autograd.is_recording():
            self.sizes.append(x.shape[0])
        return self.dense(x)


def test_warm_start_trains_the_small_batch_then_the_large_one():
    sizes = []

    def factory():
        net = _Recorder(sizes)
        net.initialize()
        return net

    run = train_plan(factory, _toy(), ph.warm_start(3, 8, 30, 1, 0.05, 0.1), seed=1)
    assert sizes == [8] * 11 + [30] * 6 and run.steps_run == 17


def test_plan_loop_equals_gluon_with_mxnet_sgd_on_the_same_batches():
    data, plan, seed = _toy(), ph.decay_lr(3, 16, 0.2, (1, 2), 4), 5
    start = {}

    def factory():
        net = gluon.nn.Dense(3, in_units=6)
        net.initialize(mx.init.Xavier())
        start["w"] = [p.data().copy() for p in net.collect_params().values()]
        return net

    run, ours = train_plan(factory, data, plan, seed=seed, return_net=True)
    ref = gluon.nn.Dense(3, in_units=6)
    ref.initialize()
    for p, w in zip(ref.collect_params().values(), start["w"]):
        p.set_data(w)
    trainer = gluon.Trainer(ref.collect_params(), "sgd", {"learning_rate": 0.2, "momentum": 0.9})
    loss_fn, rng = gluon.loss.SoftmaxCrossEntropyLoss(), np.random.default_rng(seed)
    for _, batch, lr, _, steps in ph.plan_table(plan, data.n_train):
        trainer.set_learning_rate(lr)
        order = rng.permutation(data.n_train)
        for k in range(steps):
            idx = order[k * batch:(k + 1) * batch]
            with autograd.record():
                loss = loss_fn(ref(mx.nd.array(data.X_train[idx])),
                               mx.nd.array(data.y_train[idx])).mean()
            loss.backward()
            trainer.step(1)
    assert run.steps_run == ph.total_steps(plan, data.n_train) == 3 * (90 // 16)
    for a, b in zip(ours.collect_params().values(), ref.collect_params().values()):
        np.testing.assert_allclose(a.data().asnumpy(), b.data().asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_diverging_plan_stops_and_reports_no_steps_to_target():
    def factory():
        net = gluon.nn.Dense(3, in_units=6)
        net.initialize(mx.init.Xavier())
        return net

    data = _toy()
    run = train_plan(factory, data.__class__(data.X_train * 100, data.y_train, data.X_val,
                                              data.y_val),
                     ph.constant(5, 16, 50.0), target=0.5)
    assert run.diverged and run.steps_to_target is None and run.steps_run < 25


@pytest.mark.parametrize("epochs", [3, 6])
def test_notebook_plans_keep_their_promises(epochs):
    from tutorial.largebatch import recipe_settings as rs
    plans = rs.plans(epochs)
    n = 4000
    decay, grow = (ph.plan_table(plans[k], n) for k in ("decay lr", "grow batch"))
    assert [lr / b for _, b, lr, _, _ in decay] == pytest.approx([lr / b for _, b, lr, _, _ in grow])
    assert grow[-1][1] == rs.SMALL_BATCH * rs.GROWTH ** 2 and decay[-1][1] == rs.SMALL_BATCH
    warm = ph.plan_table(plans["warm start"], n)
    assert [b for _, b, *_ in warm] == [rs.SMALL_BATCH] + [rs.LARGE_BATCH] * (epochs - 1)
    assert warm[1][3] == 1 + n // rs.SMALL_BATCH
    assert ph.total_steps(plans["large batch"], n) == epochs * (n // rs.LARGE_BATCH)
