"""A small training loop for classifiers that records training and validation curves.

After every epoch it measures, in prediction mode (no dropout masks), the accuracy on
the training set and on the validation set: the gap between the two curves is what
overfitting looks like. Weight decay and gradient clipping are MXNet's own
(``wd``, ``clip_gradient`` of the optimizer); augmentation and early stopping are
optional hooks. Everything random is seeded from ``seed``: weight initialisation is
the caller's job (seed ``mx.random`` before ``net.initialize``).

>>> import mxnet as mx, numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(200, 2)).astype(np.float32); y = (X[:, 0] > 0).astype(np.int32)
>>> net = mx.gluon.nn.Dense(2, in_units=2); net.initialize(mx.init.Xavier())
>>> history = fit(net, X, y, X, y, epochs=5, learning_rate=0.5, seed=0)
>>> len(history.val_acc), history.val_acc[-1] > 0.9
(5, True)
"""

import dataclasses
from typing import List, Optional

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

from tutorial.batch_checks import check_features, check_labels, net_shape
from tutorial.optim.options import check_optimizer_options
from tutorial.finite import TrainingDiverged, check_loss, check_parameters
from tutorial.validate import check_count


@dataclasses.dataclass
class History:
    """What one training run measured, one entry per epoch (epochs count from 1)."""
    train_loss: List[float] = dataclasses.field(default_factory=list)  # mean minibatch loss
    train_acc: List[float] = dataclasses.field(default_factory=list)   # prediction mode
    val_acc: List[float] = dataclasses.field(default_factory=list)
    best_epoch: Optional[int] = None   # set when early stopping restored the best weights
    stopped_epoch: Optional[int] = None  # set when early stopping ended the run early

    @property
    def epochs(self):
        return len(self.val_acc)


def accuracy(net, X, y, batch_size=1024, ctx=None):
    """Fraction of rows of ``X`` that ``net`` classifies as ``y``, in prediction mode."""
    ctx = ctx or mx.cpu()
    correct = 0
    for start in range(0, len(X), batch_size):
        with autograd.predict_mode():
            scores = net(mx.nd.array(X[start:start + batch_size], ctx=ctx))
        correct += int((scores.argmax(axis=1).asnumpy().astype(np.int64)
                        == np.asarray(y[start:start + batch_size])).sum())
    return correct / len(X)


def _check_data(X, y, what):
    if len(X) != len(y) or len(X) == 0:
        raise ValueError(f"{what}: need as many labels as rows (and at least one), got "
                         f"{len(X)} rows and {len(y)} labels")


def _classes(net, X, ctx):
    """How many classes the net scores: from its last layer, else from one sample's output."""
    classes = net_shape(net)[2]
    if classes is None:
        try:
            with autograd.predict_mode():
                classes = net(mx.nd.array(X[:1], ctx=ctx)).shape[-1]
        except mx.base.MXNetError as error:
            first = str(error).strip().splitlines()[0][:300]
            raise ValueError(f"the net cannot take samples of shape {tuple(X.shape[1:])}: "
                             f"{first}. Check the net's first layer against X.") from error
    return classes


def _check_inputs(net, X_train, y_train, X_val, y_val, ctx):
    """Rows that fit the net and labels that are its classes, before any training."""
    _check_data(X_train, y_train, "training data")
    _check_data(X_val, y_val, "validation data")
    for X in (X_train, X_val):
        check_features(net, X)
    classes = _classes(net, X_train, ctx)
    for y, what in ((y_train, "training"), (y_val, "validation")):
        try:
            check_labels(y, classes)
        except ValueError as error:
            raise ValueError(f"{what} labels: {error}") from None


def _checked_loss(loss, params, step, learning_rate, history):
    """The minibatch's mean loss, after checking it, the gradients and the weights.

    Raises :class:`TrainingDiverged` before the update when one is NaN or infinite; the
    error's ``history`` holds the epochs completed so far.
    """
    try:
        value = check_loss(float(loss.mean().asscalar()), params, step, learning_rate)
        check_parameters(params, step, learning_rate)
    except TrainingDiverged as error:
        error.history = history
        raise
    return value


def fit(net, X_train, y_train, X_val, y_val, epochs, learning_rate=0.1, batch_size=64,
        momentum=0.9, wd=0.0, clip_gradient=None, augment=None, early_stopping=None,
        seed=0, ctx=None, on_epoch=None):
    """Train ``net`` with SGD (momentum) on softmax cross-entropy and record a :class:`History`.

    augment:        ``f(X_batch, rng) -> X_batch`` applied to every training minibatch
                    (a fresh draw each epoch), e.g. :func:`tutorial.nn.augment_images`.
    early_stopping: a :class:`tutorial.nn.EarlyStopping` fed the validation accuracy; the
                    best weights are restored when it stops and when the epochs run out.
    on_epoch:       ``f(history)`` called after each epoch (to print or plot live).

    A run that diverges stops with :class:`~tutorial.finite.TrainingDiverged`
    at the first minibatch (``step``, counted over all epochs) whose loss, gradient or
    weight is NaN or infinite, before that update; ``error.history`` has the curves so far.
    Bad input (rows that do not fit the net, labels that are not its classes, settings
    out of range) is a ValueError before any training.
    """
    epochs = check_count("epochs", epochs)
    batch_size = check_count("batch_size", batch_size, what="samples per minibatch")
    options = {"learning_rate": learning_rate, "momentum": momentum, "wd": wd}
    if clip_gradient is not None:
        options["clip_gradient"] = clip_gradient
    options = check_optimizer_options("sgd", options)
    ctx = ctx or mx.cpu()
    _check_inputs(net, X_train, y_train, X_val, y_val, ctx)
    rng = np.random.default_rng(seed)                      # minibatch order, augmentation
    # Masks come from MXNet's generator, seeded with a number *derived* from seed: had we
    # used seed itself, and the caller initialised with mx.random.seed(seed), the first
    # DropConnect mask would repeat the uniform draws behind the Xavier weights and keep
    # exactly the positive ones (we saw training blow up that way).
    mx.random.seed(int(rng.integers(2**31 - 1)))
    trainer = gluon.Trainer(net.collect_params(), "sgd", options)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    history, step = History(), 0
    for _ in range(epochs):
        order = rng.permutation(len(X_train))
        losses = []
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            xb = X_train[idx] if augment is None else augment(X_train[idx], rng)
            xb, yb = mx.nd.array(xb, ctx=ctx), mx.nd.array(y_train[idx], ctx=ctx)
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            step += 1
            losses.append(_checked_loss(loss, params, step, options["learning_rate"], history))
            trainer.step(len(idx))
        history.train_loss.append(float(np.mean(losses)))
        history.train_acc.append(accuracy(net, X_train, y_train, ctx=ctx))
        history.val_acc.append(accuracy(net, X_val, y_val, ctx=ctx))
        if on_epoch is not None:
            on_epoch(history)
        if early_stopping is not None and early_stopping.step(history.val_acc[-1], net):
            history.stopped_epoch = history.epochs
            break
    if early_stopping is not None and early_stopping.best_step:
        early_stopping.restore(net)
        history.best_epoch = early_stopping.best_step
    return history
