"""Each optimizer of tutorial.optim trains the same net as MXNet 1.9.1's own, through
gluon.Trainer, for 100 steps with weight decay, clip_gradient and rescale_grad in play.

Agreement: for every parameter array, ||ours - mxnet|| / ||mxnet|| <= 1e-5.
Where MXNet's behaviour is a bug (NAG with wd, Nadam with several parameters, DCASGD
with momentum) the test here avoids the bug and test_optim_reference.py checks ours
against NumPy.
"""

import numpy as np
import mxnet as mx
import pytest
from mxnet import autograd, gluon
from mxnet.gluon import nn

import tutorial.optim as topt
from tutorial.optim import schedules

STEPS, BATCH = 100, 32
COMMON = dict(wd=0.01, clip_gradient=0.1, rescale_grad=2.0)


def make_net(single_parameter=False):
    """Dense-tanh-BatchNorm-Dense (names net_dense0_weight, ...), or one bias-free Dense."""
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        if single_parameter:
            net.add(nn.Dense(3, in_units=10, use_bias=False))
        else:
            net.add(nn.Dense(16, in_units=10, activation="tanh"), nn.BatchNorm(in_channels=16),
                    nn.Dense(3, in_units=16))
    return net


def idx2name(single_parameter=False):
    """Trainer numbers parameters in sorted-name order."""
    return dict(enumerate(sorted(make_net(single_parameter).collect_params().keys())))


def initialized(net, contexts=None):
    """The same seeded weights every time, on every context."""
    net.initialize(mx.init.Zero(), ctx=contexts)
    init = np.random.default_rng(1)
    for name, param in sorted(net.collect_params().items()):
        if param.grad_req != "null":
            offset = 1.0 if name.endswith("gamma") else 0.0
            param.set_data(mx.nd.array(init.normal(scale=0.5, size=param.shape) + offset))
    return net


def train(optimizer, single_parameter=False, steps=STEPS, seed=0):
    """Weights (name -> array) after ``steps`` Trainer steps on fixed random batches."""
    rng = np.random.default_rng(seed)
    X = mx.nd.array(rng.normal(size=(steps, BATCH, 10)))
    y = mx.nd.array(rng.integers(0, 3, size=(steps, BATCH)))
    net = initialized(make_net(single_parameter))
    trainer = gluon.Trainer(net.collect_params(), optimizer)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    mx.random.seed(seed)                      # SGLD's noise
    for i in range(steps):
        with autograd.record():
            loss = loss_fn(net(X[i]), y[i])
        loss.backward()
        trainer.step(BATCH)                   # rescale_grad becomes 2.0 / BATCH
    return {name: p.data().asnumpy() for name, p in net.collect_params().items()}


def start_weights(single_parameter=False):
    net = initialized(make_net(single_parameter))
    return {name: p.data().asnumpy() for name, p in net.collect_params().items()}


def assert_same_weights(ours, theirs, tol=1e-5, single_parameter=False):
    for name in theirs:
        err = np.linalg.norm(ours[name] - theirs[name]) / np.linalg.norm(theirs[name])
        assert err <= tol, "%s differs from MXNet's by %.2e (relative)" % (name, err)
    start = start_weights(single_parameter)
    moved = max(np.linalg.norm(ours[n] - start[n]) for n in start if "running" not in n)
    assert moved > 1e-3, "the weights barely moved: the comparison would prove nothing"


# (our name, our kwargs, MXNet's name, MXNet's kwargs); COMMON is added to both.
CASES = {
    "sgd": ("sgd", dict(learning_rate=0.1), "sgd", dict(learning_rate=0.1)),
    "sgd+momentum": ("sgd", dict(learning_rate=0.1, momentum=0.9),
                     "sgd", dict(learning_rate=0.1, momentum=0.9)),
    "momentum": ("momentum", dict(learning_rate=0.1), "sgd", dict(learning_rate=0.1, momentum=0.9)),
    "nag (wd=0)": ("nag", dict(learning_rate=0.1, momentum=0.9, wd=0.0),
                   "nag", dict(learning_rate=0.1, momentum=0.9, wd=0.0)),
    "adagrad": ("adagrad", dict(learning_rate=0.1), "adagrad", dict(learning_rate=0.1)),
    "rmsprop": ("rmsprop", dict(learning_rate=0.01), "rmsprop", dict(learning_rate=0.01)),
    # centered: n - mean² nearly cancels where clipping pins u at ±c; at lr 0.01 float32
    # rounding then grows past 1e-5 in both implementations, so use MXNet's default lr.
    "rmsprop centered": ("rmsprop", dict(centered=True), "rmsprop", dict(centered=True)),
    "adadelta": ("adadelta", dict(learning_rate=1.0), "adadelta", dict()),
    "adam": ("adam", dict(learning_rate=0.01), "adam", dict(learning_rate=0.01)),
    "adamax": ("adamax", dict(), "adamax", dict()),
    "ftrl": ("ftrl", dict(learning_rate=0.1), "ftrl", dict(learning_rate=0.1)),
    "signum": ("signum", dict(learning_rate=0.01, wd_lh=0.01),
               "signum", dict(learning_rate=0.01, wd_lh=0.01)),
    "dcasgd (momentum=0)": ("dcasgd", dict(learning_rate=0.1), "dcasgd", dict(learning_rate=0.1)),
    "sgld": ("sgld", dict(learning_rate=0.001), "sgld", dict(learning_rate=0.001)),
    "lars": ("lars", dict(learning_rate=0.5, momentum=0.9, eta=0.01),
             "lars", dict(learning_rate=0.5, momentum=0.9, eta=0.01, param_idx2name=idx2name())),
    "lamb": ("lamb", dict(learning_rate=0.01), "lamb", dict(learning_rate=0.01)),
    "lamb bounded, no bias correction": (
        "lamb", dict(learning_rate=0.01, lower_bound=1.0, upper_bound=2.0, bias_correction=False),
        "lamb", dict(learning_rate=0.01, lower_bound=1.0, upper_bound=2.0, bias_correction=False)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_weights_as_mxnet(case):
    ours, our_kw, theirs, their_kw = CASES[case]
    ours_w = train(topt.create(ours, **{**COMMON, **our_kw}))
    theirs_w = train(mx.optimizer.create(theirs, **{**COMMON, **their_kw}))
    assert_same_weights(ours_w, theirs_w)


def test_nadam_matches_mxnet_on_a_one_parameter_net():
    """With one parameter MXNet's shared momentum schedule is per parameter too."""
    kw = dict(COMMON, learning_rate=0.01)
    ours = train(topt.create("nadam", **kw), single_parameter=True)
    theirs = train(mx.optimizer.create("nadam", **kw), single_parameter=True)
    assert_same_weights(ours, theirs, single_parameter=True)


def _warmup_cosine():
    return schedules.warmup(schedules.cosine(0.2, STEPS - 10, final_lr=0.02), 10, start_lr=0.01)


def test_schedule_through_trainer_matches_mxnet():
    """The adapter's lr reaches gluon.Trainer the same way for both optimizers."""
    kw = dict(COMMON, momentum=0.9)
    ours = train(topt.create("sgd", lr_scheduler=schedules.as_lr_scheduler(_warmup_cosine()), **kw))
    theirs = train(mx.optimizer.create(
        "sgd", lr_scheduler=schedules.as_lr_scheduler(_warmup_cosine()), **kw))
    assert_same_weights(ours, theirs)


def test_lars_momentum_correction_matches_mxnet_when_one_chunk(monkeypatch):
    """MXNet corrects momentum for the first aggregation chunk of a step only; with all
    parameters in one chunk its correction is the per-parameter one we apply."""
    monkeypatch.setenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "64")
    kw = dict(COMMON, momentum=0.9, eta=0.01)
    ours = train(topt.create("lars", lr_scheduler=schedules.as_lr_scheduler(_warmup_cosine()),
                             **kw))
    theirs = train(mx.optimizer.create(
        "lars", lr_scheduler=schedules.as_lr_scheduler(_warmup_cosine()),
        param_idx2name=idx2name(), **kw))
    assert_same_weights(ours, theirs)


def test_registered_key_works_as_trainer_string():
    kw = dict(COMMON, learning_rate=0.1, momentum=0.9)
    net = make_net()
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "tutorialsgd", kw)
    assert type(trainer._optimizer).__name__ == "TutorialSGD"
    assert "sgd" in mx.optimizer.Optimizer.opt_registry      # MXNet's own key untouched
    assert type(mx.optimizer.create("sgd")).__module__.startswith("mxnet")


def _train_on_kvstore(optimizer, steps=20, contexts=(mx.cpu(0), mx.cpu(1)),
                      update_on_kvstore=True, single_parameter=False):
    """Several CPU contexts and kvstore 'device' (as with GPUs); the optimizer runs inside
    the kvstore, or once per device when ``update_on_kvstore=False``."""
    contexts = list(contexts)
    rng = np.random.default_rng(0)
    net = initialized(make_net(single_parameter), contexts)
    trainer = gluon.Trainer(net.collect_params(), optimizer, kvstore="device",
                            update_on_kvstore=update_on_kvstore)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(steps):
        X = mx.nd.array(rng.normal(size=(2 * BATCH, 10)))
        y = mx.nd.array(rng.integers(0, 3, size=2 * BATCH))
        with autograd.record():
            losses = [loss_fn(net(x), t) for x, t in zip(
                gluon.utils.split_and_load(X, contexts), gluon.utils.split_and_load(y, contexts))]
        autograd.backward(losses)
        trainer.step(2 * BATCH)
    return {name: p.data(contexts[-1]).asnumpy() for name, p in net.collect_params().items()}


def test_updates_inside_the_kvstore_match_mxnet():
    kw = dict(COMMON, learning_rate=0.01)
    assert_same_weights(_train_on_kvstore(topt.create("adam", **kw)),
                        _train_on_kvstore(mx.optimizer.create("adam", **kw)))


def test_lars_momentum_correction_on_every_device():
    """With one updater per device, each device must see the lr change (per-device state).
    No BatchNorm here: its batch statistics would differ between 1 and 2 devices."""
    def lars():
        sched = schedules.as_lr_scheduler(schedules.warmup(schedules.constant(0.5), 10))
        return topt.create("lars", lr_scheduler=sched, momentum=0.9, eta=0.01, **COMMON)
    one = _train_on_kvstore(lars(), contexts=[mx.cpu(0)], update_on_kvstore=False,
                            single_parameter=True)
    two = _train_on_kvstore(lars(), update_on_kvstore=False, single_parameter=True)
    assert_same_weights(two, one, single_parameter=True)
