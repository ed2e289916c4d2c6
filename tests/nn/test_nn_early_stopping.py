"""Early stopping: hand-worked stopping points, and the best weights really come back."""

import math

import mxnet as mx
import numpy as np
import pytest
from mxnet import gluon

from tutorial.nn import EarlyStopping, accuracy, fit


def _net(seed=0):
    mx.random.seed(seed)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(5, in_units=3, activation="relu"), gluon.nn.Dense(2, in_units=5))
    net.initialize(mx.init.Xavier())
    return net


def _run(scores, net, **kwargs):
    """Feed scores in order, setting every weight to the epoch number first; the stop epoch."""
    stopper = EarlyStopping(**kwargs)
    for epoch, score in enumerate(scores, start=1):
        for p in net.collect_params().values():
            p.set_data(mx.nd.full(p.shape, epoch))
        if stopper.step(score, net):
            return stopper, epoch
    return stopper, None


# (scores, kwargs, stop epoch, best epoch), worked by hand
TABLE = [
    ([0.5, 0.6, 0.55, 0.58, 0.57, 0.7], dict(patience=3), 5, 2),
    ([0.5, 0.6, 0.55, 0.58, 0.57, 0.7], dict(patience=4), None, 6),
    ([0.5, 0.6, 0.6, 0.6], dict(patience=2), 4, 2),                      # a tie is no gain
    ([0.5, 0.6, 0.605, 0.61, 0.62], dict(patience=2, min_delta=0.015), 4, 2),
    ([2.0, 1.5, 1.6, 1.4, 1.45, 1.5], dict(patience=2, mode="min"), 6, 4),
]


@pytest.mark.parametrize("scores, kwargs, stop, best", TABLE)
def test_stopping_points_match_the_hand_worked_table(scores, kwargs, stop, best):
    stopper, stopped_at = _run(scores, _net(), **kwargs)
    assert stopped_at == stop
    assert stopper.best_step == best
    assert stopper.stopped == (stop is not None)


@pytest.mark.parametrize("scores, kwargs, stop, best", TABLE)
def test_restore_puts_back_every_weight_of_the_best_epoch(scores, kwargs, stop, best):
    net = _net()
    stopper, _ = _run(scores, net, **kwargs)
    stopper.restore(net)
    for p in net.collect_params().values():
        assert np.all(p.data().asnumpy() == best)


def test_the_saved_copy_is_not_changed_by_later_in_place_training():
    net = _net()
    stopper = EarlyStopping(patience=3)
    stopper.step(0.9, net)
    saved = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    for p in net.collect_params().values():
        p.data()[:] = 42.0                                   # in place, as an optimizer does
    stopper.step(0.1, net)
    stopper.restore(net)
    for k, p in net.collect_params().items():
        np.testing.assert_array_equal(p.data().asnumpy(), saved[k])


def test_fit_keeps_the_network_of_the_best_validation_epoch():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)).astype(np.float32)
    y = (X[:, 0] * X[:, 1] > 0).astype(np.int32)             # needs the hidden layer
    Xv = rng.normal(size=(200, 3)).astype(np.float32)
    yv = (Xv[:, 0] * Xv[:, 1] > 0).astype(np.int32)
    net = _net(seed=1)
    stopper = EarlyStopping(patience=3)
    history = fit(net, X, y, Xv, yv, epochs=40, learning_rate=0.2, batch_size=16,
                  early_stopping=stopper, seed=0)
    assert history.best_epoch == int(np.argmax(history.val_acc)) + 1
    assert history.stopped_epoch == history.best_epoch + 3 == history.epochs < 40
    assert history.val_acc[-1] < max(history.val_acc)         # the last epoch was worse...
    assert accuracy(net, Xv, yv) == pytest.approx(max(history.val_acc))  # ...and is not kept


@pytest.mark.parametrize("kwargs, message", [
    (dict(patience=0), "patience"),
    (dict(patience=2.5), "patience"),
    (dict(mode="avg"), "mode"),
    (dict(min_delta=-1), "min_delta"),
])
def test_bad_settings_are_refused_clearly(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EarlyStopping(**kwargs)


def test_restore_before_any_step_and_a_nan_score_are_explained():
    stopper = EarlyStopping()
    with pytest.raises(RuntimeError, match="call step"):
        stopper.restore(_net())
    with pytest.raises(ValueError, match="diverged"):
        stopper.step(math.nan, _net())


def test_restoring_into_another_network_is_refused():
    stopper = EarlyStopping()
    stopper.step(0.5, _net())
    with pytest.raises(ValueError, match="different network"):
        stopper.restore(_net())
