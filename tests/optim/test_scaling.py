"""tutorial.optim.scaling: the rules against hand-worked numbers, the momentum correction
against PyTorch's lr-outside form (NumPy), param_idx2name against gluon.Trainer's own
numbering, and make_trainer's LARS against MXNet's LARS given the same names."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.optim import schedules
from tutorial.optim.scaling import (linear_scaled_lr, make_trainer, momentum_correction,
                                    no_decay_on_biases, param_idx2name, scaled_lr,
                                    sqrt_scaled_lr, warmup_scaled)


def test_rules_match_hand_worked_numbers():
    # Goyal et al.: 0.1 per 256 images -> 3.2 at 8,192 (K = 32)
    assert linear_scaled_lr(0.1, 256, 8192) == pytest.approx(3.2)
    assert sqrt_scaled_lr(0.001, 256, 8192) == pytest.approx(0.001 * np.sqrt(32))
    assert scaled_lr("none", 0.1, 256, 8192) == 0.1
    assert scaled_lr("linear", 0.1, 256, 128) == pytest.approx(0.05)   # scaling down too


@pytest.mark.parametrize("call, message", [
    (lambda: scaled_lr("cubic", 0.1, 256, 512), "unknown scaling rule 'cubic'"),
    (lambda: linear_scaled_lr(-0.1, 256, 512), r"base_lr=-0.1 is out of range: use a number "
                                               r"in \(0.0, inf\)"),
    (lambda: sqrt_scaled_lr(0.1, 0, 512), r"base_batch=0 is out of range"),
    (lambda: momentum_correction(0.1, 0.0), r"old_lr=0.0 is out of range"),
    (lambda: warmup_scaled(0.1, 16, 64, warmup_steps=-1),
     "warmup_steps must be a whole number >= 1, got -1"),
])
def test_bad_input_says_what_to_do(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_warmup_values_at_first_step_end_of_ramp_and_after():
    lr = warmup_scaled(0.025, 16, 1024, warmup_steps=100)       # peak 1.6
    assert lr(0) == pytest.approx(0.025 + (1.6 - 0.025) / 100)    # first update, not 0
    assert lr(99) == pytest.approx(1.6)
    assert lr(100) == pytest.approx(1.6)
    assert lr(10_000) == pytest.approx(1.6)
    assert lr(50) < lr(51)


def test_momentum_correction_makes_folded_momentum_equal_pytorch_form():
    rng = np.random.default_rng(0)
    grads = rng.normal(size=(30, 5))
    lrs = np.linspace(0.01, 0.3, 30)                 # a warmup: lr changes every step
    mu = 0.9
    w_torch, u = np.ones(5), np.zeros(5)             # u <- mu u + g;  w <- w - lr u
    w_fold, v = np.ones(5), np.zeros(5)              # v <- mu c v + lr g;  w <- w - v
    w_plain, v_plain = np.ones(5), np.zeros(5)       # the same without correction
    for t, (g, lr) in enumerate(zip(grads, lrs)):
        u = mu * u + g
        w_torch -= lr * u
        c = momentum_correction(lr, lrs[t - 1]) if t else 1.0
        v = mu * c * v + lr * g
        w_fold -= v
        v_plain = mu * v_plain + lr * g
        w_plain -= v_plain
    np.testing.assert_allclose(w_fold, w_torch, rtol=1e-12)
    assert np.abs(w_plain - w_torch).max() > 1e-3    # the correction is what makes them agree


def _net(prefix="net_"):
    net = gluon.nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(gluon.nn.Dense(8, activation="relu", in_units=4),
                gluon.nn.Dense(3, in_units=8))
    net.initialize(mx.init.Xavier())
    return net


def test_param_idx2name_is_the_trainers_numbering():
    net = _net("zz_")        # a prefix sorting differs from insertion order in
    params = net.collect_params()
    trainer = gluon.Trainer(params, "sgd")
    numbering = {i: p.name for i, p in trainer._optimizer.param_dict.items()}
    assert param_idx2name(params) == numbering
    assert param_idx2name(list(params.values())) == \
        {i: p.name for i, p in enumerate(params.values())}
    with pytest.raises(TypeError, match="collect_params"):
        param_idx2name("net")


def _train(trainer, net, steps=15, seed=0):
    rng = np.random.default_rng(seed)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(steps):
        X = mx.nd.array(rng.normal(size=(32, 4)))
        y = mx.nd.array(rng.integers(0, 3, size=32))
        with autograd.record():
            loss = loss_fn(net(X), y)
        loss.backward()
        trainer.step(32)
    return [p.data().asnumpy() for p in net.collect_params().values()]


def test_make_trainer_lars_matches_mxnet_lars_given_names():
    kw = dict(momentum=0.9, eta=0.01, wd=1e-4)
    mx.random.seed(0)
    ours_net = _net()
    ours = _train(make_trainer(ours_net.collect_params(), "lars", learning_rate=0.5, **kw),
                  ours_net)
    mx.random.seed(0)
    ref_net = _net()
    params = ref_net.collect_params()
    reference = mx.optimizer.LARS(learning_rate=0.5, param_idx2name=param_idx2name(params), **kw)
    ref = _train(gluon.Trainer(params, reference), ref_net)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # MXNet's LARS without names puts biases under the trust ratio too: a different result
    mx.random.seed(0)
    bare_net = _net()
    bare = _train(gluon.Trainer(bare_net.collect_params(),
                                mx.optimizer.LARS(learning_rate=0.5, **kw)), bare_net)
    assert max(np.abs(a - b).max() for a, b in zip(ours, bare)) > 1e-4


def test_make_trainer_schedule_is_not_overwritten():
    net = _net()
    schedule = warmup_scaled(0.025, 16, 256, warmup_steps=10)
    trainer = make_trainer(net.collect_params(), "momentum", schedule=schedule, momentum=0.9)
    seen = []
    for _ in range(12):
        _train(trainer, net, steps=1)
        seen.append(trainer.learning_rate)
    # after update n (from 1), MXNet asks the schedule for num_update = n -> schedule(n - 1)
    np.testing.assert_allclose(seen, [schedule(n) for n in range(12)], rtol=1e-9)
    assert schedules.as_lr_scheduler(schedule)(1) == pytest.approx(schedule(0))


def test_make_trainer_wants_one_of_lr_or_schedule():
    net = _net()
    with pytest.raises(ValueError, match="exactly one of learning_rate"):
        make_trainer(net.collect_params(), "sgd", learning_rate=0.1,
                     schedule=schedules.constant(0.1))
    with pytest.raises(ValueError, match="exactly one of learning_rate"):
        make_trainer(net.collect_params(), "sgd")


def _decay_one_step(exclude):
    net = _net()
    params = net.collect_params()
    for p in params.values():
        p.set_data(mx.nd.ones(p.shape))
    if exclude:
        assert no_decay_on_biases(params) == ["net_dense0_bias", "net_dense1_bias"]
    trainer = make_trainer(params, "sgd", learning_rate=1.0, wd=0.1)
    with autograd.record():
        loss = 0 * net(mx.nd.ones((1, 4))).sum()          # zero gradient: only decay acts
    loss.backward()
    trainer.step(1)
    return {name: float(p.data().asnumpy().mean()) for name, p in params.items()}


def test_no_decay_on_biases_where_param_idx2name_alone_does_not():
    plain = _decay_one_step(exclude=False)
    assert plain["net_dense0_bias"] == pytest.approx(0.9)    # names given, biases decayed
    excluded = _decay_one_step(exclude=True)
    assert excluded["net_dense0_bias"] == pytest.approx(1.0)
    assert excluded["net_dense0_weight"] == pytest.approx(0.9)
    with pytest.raises(TypeError, match="collect_params"):
        no_decay_on_biases([1, 2])
