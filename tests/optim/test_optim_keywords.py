"""Each optimizer of tutorial.optim takes every keyword MXNet 1.9.1's namesake takes.

The keyword lists come from MXNet itself (``inspect`` on the class in
``Optimizer.opt_registry`` and its bases), not from a list written here, so a keyword we
miss fails this test. Taking a keyword is not enough: built with the same setting, ours
must hold what MXNet's holds, and the two whose effect is an algorithm (``lazy_update``,
``clip_weights``) and ``multi_precision`` are checked by training against MXNet.
"""

import inspect

import mxnet as mx
import numpy as np
import pytest

import tutorial.optim as topt
from tutorial.optim.options import RANGES
from tutorial.optim.registry import OPTIMIZERS, keywords

REGISTRY = mx.optimizer.Optimizer.opt_registry
NAMESAKE = {"momentum": "sgd", "local_adagrad": "adagrad"}   # ours without an MXNet namesake
NOT_SHARED = {"aggregate_num"}        # ours update one parameter at a time (adapter.py)


def mxnet_class(name):
    return REGISTRY[NAMESAKE.get(name, name)]


def mxnet_keywords(klass):
    """(keyword, default) for every keyword of klass.__init__ and its bases' __init__."""
    seen = {}
    for base in klass.__mro__:
        if "__init__" in vars(base):
            for p in inspect.signature(base.__init__).parameters.values():
                if p.kind == p.POSITIONAL_OR_KEYWORD and p.name != "self":
                    seen.setdefault(p.name, p.default)
    return list(seen.items())


def test_mxnet_base_keywords_are_what_we_think():
    base = dict(mxnet_keywords(mx.optimizer.Optimizer))
    assert set(base) == {"rescale_grad", "param_idx2name", "wd", "clip_gradient",
                         "learning_rate", "lr_scheduler", "sym", "begin_num_update",
                         "multi_precision", "param_dict"}


# Values for the keywords whose MXNet default is None (it would prove nothing to pass None).
SAMPLES = {
    "learning_rate": 0.05, "clip_gradient": 0.5, "clip_weights": 0.5, "lower_bound": 0.1,
    "upper_bound": 10.0, "param_idx2name": {0: "dense0_weight", 1: "dense0_bias"},
    "param_dict": {0: mx.gluon.Parameter("w", shape=(2,), lr_mult=0.5)},
    "lr_scheduler": lambda: mx.lr_scheduler.FactorScheduler(5, 0.5, base_lr=0.05),   # a fresh one
    "sym": lambda: mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc"),
}


def sample(keyword, default):
    """A valid setting that differs from MXNet's default."""
    if keyword in SAMPLES:
        value = SAMPLES[keyword]
        return value() if callable(value) else value
    assert default is not None and default is not inspect.Parameter.empty, (
        f"MXNet's keyword {keyword!r} has no default to vary: add a value to SAMPLES")
    if isinstance(default, bool):
        return not default
    if isinstance(default, int) and keyword == "begin_num_update":
        return 3
    return default / 2 if 0 < default < 1 else (default * 2 if default else 0.5)


CASES = [(name, keyword, default) for name in OPTIMIZERS
         for keyword, default in mxnet_keywords(mxnet_class(name))]


@pytest.mark.parametrize("name, keyword, default", CASES,
                         ids=[f"{n}-{k}" for n, k, _ in CASES])
def test_ours_takes_and_holds_each_keyword_of_mxnet(name, keyword, default):
    other = {} if keyword in ("learning_rate", "lr_scheduler") else {"learning_rate": 0.05}
    ours = topt.create(name, **{keyword: sample(keyword, default)}, **other)
    if keyword == "lr_scheduler":
        # MXNet's rmsprop, adam, adamax, nadam and lamb pass their default learning_rate
        # along and overwrite the scheduler's base_lr (a bug ours refuses to copy).
        assert ours.lr_scheduler.base_lr == ours.learning_rate == 0.05
        assert (ours.lr_scheduler.step, ours.lr_scheduler.factor) == (5, 0.5)
        return
    theirs = mxnet_class(name)(**{keyword: sample(keyword, default)}, **other)
    plain = mxnet_class(name)(**other)
    changed = [a for a, v in vars(theirs).items()
               if a not in NOT_SHARED and not _same(v, vars(plain).get(a))]
    assert changed, f"{name}: {keyword}={sample(keyword, default)!r} changed nothing in MXNet's"
    for attribute in changed:          # what the keyword changes in MXNet's, ours holds too
        assert hasattr(ours, attribute), f"{name}: MXNet keeps {keyword} as {attribute}"
        assert _same(getattr(ours, attribute), getattr(theirs, attribute)), attribute


def _same(a, b):
    if isinstance(a, mx.lr_scheduler.LRScheduler) and isinstance(b, mx.lr_scheduler.LRScheduler):
        return type(a) is type(b) and vars(a) == vars(b)
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def test_the_setting_really_differs_from_the_default():
    """Otherwise the test above would compare defaults and prove nothing."""
    for name, keyword, default in CASES:
        if keyword not in SAMPLES:
            assert sample(keyword, default) != default, (name, keyword)


@pytest.mark.parametrize("name, kwargs", [
    ("rmsprop", dict(clip_weights=-1.0)), ("sgd", dict(begin_num_update=-1)),
])
def test_bad_values_of_the_new_keywords_are_explained(name, kwargs):
    with pytest.raises(ValueError, match=f"{next(iter(kwargs))}"):
        topt.create(name, **kwargs)


def _rsp(rows, n_rows=6, cols=3, seed=0):
    data = np.random.default_rng(seed).normal(size=(len(rows), cols)).astype(np.float32)
    return mx.nd.sparse.row_sparse_array((mx.nd.array(data), mx.nd.array(rows, dtype="int64")),
                                         shape=(n_rows, cols))


def _run(optimizer, grads, dtype="float32"):
    weight = mx.nd.array(np.linspace(-1, 1, 18).reshape(6, 3), dtype=dtype)
    updater = mx.optimizer.get_updater(optimizer)
    for grad in grads:
        updater(0, grad.astype(dtype) if grad.stype == "default" else grad, weight)
    return weight.asnumpy().astype(np.float64)


SPARSE_STEPS = [[0, 2], [2, 5], [1], [0, 2]]


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize("name, settings", [
    ("sgd", dict(momentum=0.9, wd=0.1)), ("sgd", dict(wd=0.1)),
    ("adam", dict(wd=0.1, learning_rate=0.01)),
])
def test_lazy_update_with_row_sparse_gradients_matches_mxnet(name, settings, lazy):
    grads = [_rsp(rows, seed=i) for i, rows in enumerate(SPARSE_STEPS)]
    settings = dict(settings, lazy_update=lazy, clip_gradient=0.8)
    ours = _run(topt.create(name, **settings), grads)
    theirs = _run(mx.optimizer.create(name, **settings), grads)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    untouched = _run(topt.create(name, **settings), [])[[3, 4]]
    assert np.array_equal(ours[[3, 4]], untouched) == lazy    # rows no gradient held


def test_lars_lazy_update_leaves_the_rows_the_gradient_lacks():
    grads = [_rsp(rows, seed=i) for i, rows in enumerate(SPARSE_STEPS)]
    start = _run(topt.create("lars", momentum=0.9, wd=0.1), [])
    lazy = _run(topt.create("lars", momentum=0.9, wd=0.1, learning_rate=0.5), grads)
    dense = _run(topt.create("lars", momentum=0.9, wd=0.1, learning_rate=0.5,
                             lazy_update=False), grads)
    assert np.array_equal(lazy[[3, 4]], start[[3, 4]])
    assert not np.allclose(dense[[3, 4]], start[[3, 4]])
    assert not np.allclose(lazy[[0, 1, 2, 5]], start[[0, 1, 2, 5]])


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_clip_weights_matches_mxnet(centered):
    rng = np.random.default_rng(0)
    grads = [mx.nd.array(rng.normal(size=(6, 3)) * 5) for _ in range(5)]
    settings = dict(learning_rate=0.1, clip_weights=0.3, centered=centered, wd=0.01)
    ours = _run(topt.create("rmsprop", **settings), grads)
    theirs = _run(mx.optimizer.create("rmsprop", **settings), grads)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert np.abs(ours).max() == pytest.approx(0.3)            # the clipping really acted
    unclipped = _run(topt.create("rmsprop", **dict(settings, clip_weights=None)), grads)
    assert np.abs(unclipped).max() > 0.31


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_multi_precision_keeps_a_float32_master_copy_like_mxnet(name):
    rng = np.random.default_rng(0)
    grads = [mx.nd.array(rng.normal(size=(6, 3)) * 1e-3) for _ in range(20)]
    settings = dict(learning_rate=0.01, multi_precision=True)
    ours = _run(topt.create(name, **settings), grads, dtype="float16")
    theirs = _run(mx.optimizer.create(name, **settings), grads, dtype="float16")
    np.testing.assert_allclose(ours, theirs, atol=1e-3)
    with pytest.warns(UserWarning, match="multi_precision=True"):
        half = _run(topt.create(name, learning_rate=0.01), grads, dtype="float16")
    assert not np.array_equal(ours, half)       # float16 arithmetic alone loses the steps


def _out_of_range(keyword):
    """A value just outside RANGES[keyword]: below its low end, or at an open high end."""
    low, high, low_open, high_open = RANGES[keyword]
    return high if high is not None and high_open else low - 1.0


@pytest.mark.parametrize("name", topt.names())
def test_every_ranged_keyword_of_ours_is_checked(name):
    """Each of our optimizers refuses an out-of-range value of every keyword it takes that
    RANGES knows, naming it: the table is the one source of the ranges, and none is skipped."""
    ranged = [k for k in keywords(name) if k in RANGES]
    assert ranged
    for keyword in ranged:
        with pytest.raises(ValueError, match=keyword):
            topt.create(name, **{keyword: _out_of_range(keyword)})
