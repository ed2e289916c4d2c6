"""The training loop: curves measured in prediction mode, seeded, hooks called, bad input explained."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import gluon

from tutorial.nn import Dropout, accuracy, fit
from tutorial.finite import TrainingDiverged


def _data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    return X, (X[:, 0] - X[:, 2] > 0).astype(np.int32)


def _net(seed=0, rate=0.3):
    mx.random.seed(seed)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(16, in_units=4, activation="relu"), Dropout(rate),
            gluon.nn.Dense(2, in_units=16))
    net.initialize(mx.init.Xavier())
    return net


def test_accuracy_matches_a_numpy_count():
    X, y = _data()
    net = _net()
    scores = net(mx.nd.array(X)).asnumpy()                  # prediction mode: no dropout
    assert accuracy(net, X, y, batch_size=7) == pytest.approx((scores.argmax(1) == y).mean())


def test_a_run_is_repeatable_with_the_same_seed_and_differs_with_another():
    X, y = _data()
    runs = [fit(_net(), X, y, X, y, epochs=4, learning_rate=0.1, seed=s) for s in (0, 0, 1)]
    assert runs[0] == runs[1]
    assert runs[0].train_loss != runs[2].train_loss
    assert runs[0].epochs == 4 and len(runs[0].train_acc) == len(runs[0].train_loss) == 4


def test_curves_are_measured_without_dropout():
    X, y = _data()
    net = _net(rate=0.5)
    history = fit(net, X, y, X[:40], y[:40], epochs=3, learning_rate=0.1, seed=0)
    assert history.train_acc[-1] == accuracy(net, X, y)
    assert history.val_acc[-1] == accuracy(net, X[:40], y[:40])


def test_the_augment_hook_sees_every_training_minibatch_and_the_on_epoch_hook_every_epoch():
    X, y = _data(n=50)
    seen, epochs_seen = [], []

    def augment(xb, rng):
        assert isinstance(rng, np.random.Generator)
        seen.append(len(xb))
        return xb

    fit(_net(), X, y, X, y, epochs=2, batch_size=16, augment=augment,
        on_epoch=lambda h: epochs_seen.append(h.epochs))
    assert seen == [16, 16, 16, 2] * 2
    assert epochs_seen == [1, 2]


def test_a_diverging_run_stops_instead_of_training_on_nan():
    X, y = _data()
    with pytest.raises(TrainingDiverged, match=r"the loss became nan at step 5, so training "
                                               r"stopped before the update") as error:
        fit(_net(), X * 1e4, y, X, y, epochs=10, learning_rate=50.0, seed=0)
    history = error.value.history                 # the epochs before the diverging one
    assert history.epochs == 1 and np.isfinite(history.train_loss).all()


@pytest.mark.parametrize("kwargs, message", [
    (dict(epochs=0), "epochs"),
    (dict(epochs=1, y_train=np.zeros(3, np.int32)), "training data"),
    (dict(epochs=1, X_val=np.zeros((0, 4), np.float32)), "validation data"),
])
def test_bad_input_is_explained(kwargs, message):
    X, y = _data()
    args = dict(X_train=X, y_train=y, X_val=X, y_val=y)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        fit(_net(), **args)
