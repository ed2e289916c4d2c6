"""Dropout from scratch: mean kept, modes, gluon.nn.Dropout's statistics, gradients."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.nn import Dropout, inverted_mask

SIGMAS = 5   # every statistical bound below is 5 standard errors; the seeds are fixed


def _train_forward(block, x):
    with autograd.record():
        return block(x)


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
def test_mean_is_kept_to_a_tight_bound_over_many_draws(rate):
    mx.random.seed(1)
    x = mx.nd.array(np.random.default_rng(0).uniform(0.5, 1.5, size=(200, 250)))
    draws = np.stack([_train_forward(Dropout(rate), x).asnumpy() for _ in range(20)])
    # each output is x * Bernoulli(1 - p) / (1 - p): variance x^2 p / (1 - p)
    n = draws.size
    se = np.sqrt((np.tile(x.asnumpy(), (20, 1, 1)) ** 2).mean() * rate / (1 - rate) / n)
    assert abs(draws.mean() - x.asnumpy().mean()) < SIGMAS * se
    assert se < 3e-3       # the bound is tight: 1,000,000 draws


@pytest.mark.parametrize("rate", [0.2, 0.5])
def test_kept_units_are_scaled_by_one_over_keep_probability(rate):
    mx.random.seed(2)
    x = mx.nd.array(np.random.default_rng(1).uniform(1, 2, size=(300, 300)))
    z = _train_forward(Dropout(rate), x).asnumpy()
    kept = z != 0
    np.testing.assert_allclose(z[kept], x.asnumpy()[kept] / (1 - rate), rtol=1e-6)
    frac = kept.mean()
    assert abs(frac - (1 - rate)) < SIGMAS * np.sqrt(rate * (1 - rate) / kept.size)


def test_prediction_mode_is_the_identity_and_training_mode_drops():
    x = mx.nd.ones((50, 40))
    drop = Dropout(0.5)
    assert (drop(x) == x).asnumpy().all()                          # no record: predicting
    with autograd.record(train_mode=False):                        # recording, not training
        assert (drop(x) == x).asnumpy().all()
    with autograd.predict_mode():
        assert (drop(x) == x).asnumpy().all()
    mx.random.seed(3)
    with autograd.train_mode():                                    # training without record
        assert autograd.is_training()
        assert (drop(x) == 0).asnumpy().any()
    assert (_train_forward(drop, x) == 0).asnumpy().any()


def test_a_fresh_mask_is_drawn_at_every_step():
    mx.random.seed(4)
    drop, x = Dropout(0.5), mx.nd.ones((20, 30))
    first, second = _train_forward(drop, x), _train_forward(drop, x)
    assert not (first == second).asnumpy().all()


def test_rate_zero_is_the_identity_even_while_training():
    x = mx.nd.arange(12).reshape((3, 4))
    assert (_train_forward(Dropout(0.0), x) == x).asnumpy().all()


@pytest.mark.parametrize("rate", [0.3, 0.5])
def test_output_statistics_match_gluon_dropout(rate):
    x = mx.nd.array(np.random.default_rng(2).uniform(0.5, 1.5, size=(400, 500)))
    mx.random.seed(5)
    ours = _train_forward(Dropout(rate), x).asnumpy()
    mx.random.seed(6)
    theirs = _train_forward(gluon.nn.Dropout(rate), x).asnumpy()
    n = x.size
    # same fraction dropped (difference of two binomial proportions)
    se_frac = np.sqrt(2 * rate * (1 - rate) / n)
    assert abs((ours == 0).mean() - (theirs == 0).mean()) < SIGMAS * se_frac
    # same values where kept: x / (1 - p) in both
    for out in (ours, theirs):
        np.testing.assert_allclose(out[out != 0], x.asnumpy()[out != 0] / (1 - rate), rtol=1e-6)
    # same mean and variance
    var_each = (x.asnumpy() ** 2).mean() * rate / (1 - rate)
    assert abs(ours.mean() - theirs.mean()) < SIGMAS * np.sqrt(2 * var_each / n)
    assert ours.var() == pytest.approx(theirs.var(), rel=0.02)
    # and both are the identity when predicting
    assert np.array_equal(Dropout(rate)(x).asnumpy(), gluon.nn.Dropout(rate)(x).asnumpy())


def test_gradients_flow_only_through_kept_units():
    rate = 0.5
    mx.random.seed(7)
    x = mx.nd.array(np.random.default_rng(3).uniform(1, 2, size=(30, 40)))
    head = mx.nd.array(np.random.default_rng(4).normal(size=(30, 40)))
    x.attach_grad()
    with autograd.record():
        z = Dropout(rate)(x)
    z.backward(head)
    kept = z.asnumpy() != 0
    grad = x.grad.asnumpy()
    assert 0 < kept.mean() < 1
    assert np.all(grad[~kept] == 0)
    np.testing.assert_allclose(grad[kept], head.asnumpy()[kept] / (1 - rate), rtol=1e-6)


def test_inverted_mask_has_expectation_one():
    mx.random.seed(8)
    mask = inverted_mask((1000, 1000), 0.25).asnumpy()
    np.testing.assert_allclose(np.unique(mask), [0.0, 1 / 0.75], rtol=1e-6)
    assert abs(mask.mean() - 1) < SIGMAS * np.sqrt(0.25 / 0.75 / mask.size)


@pytest.mark.parametrize("bad", [1.0, -0.1, 1.5, "half", None])
def test_a_bad_rate_is_refused_with_a_message_that_says_what_to_pass(bad):
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        Dropout(bad)
