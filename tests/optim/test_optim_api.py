"""The public face of tutorial.optim: names, errors, pickling, contexts, docstrings, clipping."""

import copy
import pickle

import numpy as np
import mxnet as mx
import pytest
from mxnet import autograd, gluon

import tutorial.optim as topt
from tutorial.optim import clipping, schedules

DECK_NAMES = ["sgd", "momentum", "nag", "adagrad", "local_adagrad", "rmsprop", "adadelta",
              "adam", "adamax", "nadam", "ftrl", "sgld", "dcasgd", "signum", "lars", "lamb"]


def test_names_and_registry_keys():
    assert topt.names() == DECK_NAMES
    for name in DECK_NAMES:
        opt = topt.create(name)
        assert isinstance(opt, mx.optimizer.Optimizer)
        key = type(opt).__name__.lower()
        assert key.startswith("tutorial") and mx.optimizer.Optimizer.opt_registry[key] is type(opt)


def test_unknown_name_lists_the_names():
    with pytest.raises(ValueError) as err:
        topt.create("adamw")
    assert "adamw" in str(err.value) and all(n in str(err.value) for n in DECK_NAMES)


def test_unknown_keyword_lists_the_keywords():
    with pytest.raises(TypeError, match=r"adam does not take lr\. It takes: beta1, beta2"):
        topt.create("adam", lr=0.1)


@pytest.mark.parametrize("name,kwargs,message", [
    ("sgd", dict(learning_rate=-0.1), "learning_rate=-0.1"),
    ("sgd", dict(momentum=1.0), "momentum=1.0"),
    ("momentum", dict(momentum=0.0), "momentum=0.0"),
    ("sgd", dict(wd=-1e-4), "wd=-0.0001"),
    ("sgd", dict(clip_gradient=-1.0), "clip_gradient=-1.0"),
    ("sgd", dict(rescale_grad=0.0), "rescale_grad=0.0"),
    ("adam", dict(beta1=1.5), "beta1=1.5"),
    ("adam", dict(beta2="0.9"), "beta2='0.9'"),
    ("local_adagrad", dict(tau=0), "tau=0"),
    ("adadelta", dict(epsilon=0.0), "epsilon=0.0"),
    ("ftrl", dict(learning_rate=0.0), "learning_rate=0.0"),
    ("lars", dict(eta=0.0), "eta=0.0"),
    ("lamb", dict(lower_bound=-1.0), "lower_bound=-1.0"),
])
def test_bad_hyperparameters_say_which_and_what_range(name, kwargs, message):
    with pytest.raises(ValueError) as err:
        topt.create(name, **kwargs)
    assert message in str(err.value) and "use " in str(err.value)


def test_learning_rate_with_scheduler_is_refused():
    sched = schedules.as_lr_scheduler(schedules.warmup(schedules.constant(0.1), 5))
    with pytest.raises(ValueError, match="either learning_rate or lr_scheduler"):
        topt.create("sgd", learning_rate=0.1, lr_scheduler=sched)


def _updates(opt, states, weights, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        for i, w in enumerate(weights):
            opt.update(i, w, mx.nd.array(rng.normal(size=w.shape)), states[i])


@pytest.mark.parametrize("name", DECK_NAMES)
def test_pickle_round_trip_continues_identically(name):
    """A kvstore pickles the optimizer; the copy must carry the counters and schedule."""
    sched = schedules.as_lr_scheduler(schedules.cosine(0.01, 50))
    opt = topt.create(name, lr_scheduler=sched, wd=1e-3, clip_gradient=2.0)
    weights = [mx.nd.ones((4, 3)), mx.nd.ones((3,))]
    states = [opt.create_state(i, w) for i, w in enumerate(weights)]
    _updates(opt, states, weights, 3, seed=0)
    copy = pickle.loads(pickle.dumps(opt))
    copy_weights = [w.copy() for w in weights]
    copy_states = pickle.loads(pickle.dumps(states))
    mx.random.seed(5)
    _updates(opt, states, weights, 3, seed=1)
    mx.random.seed(5)
    _updates(copy, copy_states, copy_weights, 3, seed=1)
    assert copy.num_update == opt.num_update == 6
    for a, b in zip(weights, copy_weights):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_trainer_save_and_load_states_round_trip(tmp_path):
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.One())
    trainer = gluon.Trainer(net.collect_params(), topt.create("adam", learning_rate=0.1))
    x = mx.nd.ones((4, 3))
    for _ in range(2):
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(4)
    trainer.save_states(str(tmp_path / "adam.states"))
    trainer.load_states(str(tmp_path / "adam.states"))
    assert type(trainer._optimizer).__name__ == "TutorialAdam"
    assert trainer._optimizer.num_update == 2


def test_runs_on_another_context():
    ctx = mx.cpu(1)
    opt = topt.create("lamb", learning_rate=0.1)
    w, g = mx.nd.ones((3, 2), ctx=ctx), mx.nd.full((3, 2), 0.5, ctx=ctx)
    opt.update(0, w, g, opt.create_state(0, w))
    assert w.context == ctx and np.all(w.asnumpy() < 1.0)


@pytest.mark.parametrize("name", DECK_NAMES)
def test_docstring_states_the_update(name):
    doc = type(topt.create(name)).__doc__
    assert "::" in doc, "no pseudo-code block"
    assert any(form in doc for form in ("w = ", "w - ", "w + ")), "no weight update line"


def test_clip_global_norm_matches_gluon_utils():
    rng = np.random.default_rng(0)
    ours = [mx.nd.array(rng.normal(size=s)) for s in [(3, 4), (5,)]]
    theirs = [a.copy() for a in ours]
    norm = clipping.clip_global_norm(ours, max_norm=1.0)
    their_norm = gluon.utils.clip_global_norm(theirs, max_norm=1.0)
    assert norm == pytest.approx(their_norm, rel=1e-6)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    assert clipping.global_norm(ours) == pytest.approx(1.0, rel=1e-6)


def test_clip_global_norm_leaves_small_gradients_alone_and_refuses_nan():
    small = [mx.nd.array([0.3, 0.4])]
    assert clipping.clip_global_norm(small, 1.0) == pytest.approx(0.5)
    np.testing.assert_allclose(small[0].asnumpy(), [0.3, 0.4], rtol=1e-7)
    with pytest.raises(ValueError, match="Lower the learning rate"):
        clipping.clip_global_norm([mx.nd.array([np.nan, 1.0])], 1.0)


def test_deck_momentum_clip_step_matches_mxnet_sgd_mom_update():
    rng = np.random.default_rng(2)
    w_ours, w_mx = mx.nd.ones(6), mx.nd.ones(6)
    s, mom = mx.nd.zeros(6), mx.nd.zeros(6)
    for _ in range(20):
        g = mx.nd.array(rng.normal(scale=3.0, size=6))
        clipping.momentum_clip_step(w_ours, g, s, lr=0.1, momentum=0.9, wd=0.01, clip_gradient=1.0)
        mx.nd.sgd_mom_update(w_mx, g, mom, out=w_mx, lr=0.1, momentum=0.9, wd=0.01,
                             clip_gradient=1.0)
    np.testing.assert_allclose(w_ours.asnumpy(), w_mx.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(s.asnumpy(), -mom.asnumpy(), rtol=1e-6)


def _train(trainer, net, steps):
    x = mx.nd.array(np.linspace(-1, 1, 12).reshape(4, 3))
    for _ in range(steps):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(4)


@pytest.mark.parametrize("name", topt.names())
def test_saved_and_loaded_states_continue_the_same_run(name, tmp_path):
    """Two updates, save, load, two more = four straight: states survive MXNet's Updater,
    which hands a loaded state back as plain tuples (so pieces read it by position)."""
    options = {"momentum_correction": True} if name in ("momentum", "lars") else {}
    schedule = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.05)
    weights = []
    for reload in (False, True):
        mx.random.seed(7)                   # SGLD draws noise
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.3))
        opt = topt.create(name, lr_scheduler=copy.deepcopy(schedule), **options)
        trainer = gluon.Trainer(net.collect_params(), opt)
        _train(trainer, net, 2)
        if reload:
            trainer.save_states(str(tmp_path / "states"))
            trainer.load_states(str(tmp_path / "states"))
        _train(trainer, net, 2)
        weights.append(net.weight.data().asnumpy())
    np.testing.assert_array_equal(weights[0], weights[1])
