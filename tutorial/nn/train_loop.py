"""The plain Gluon training loop the optimizer notebooks share, for any optimizer.

Each step is the loop every Gluon program writes: :func:`~tutorial.nn.loss.gradients_of`
on a minibatch, then ``trainer.step(len(X))``. Two ways to drive it:

- :func:`trained_with` takes a fixed list of minibatches (``tutorial.data.first_minibatches``)
  and returns the weights at the end: two optimizers fed the same list, from two nets built
  with the same seed, can be compared weight by weight (``tutorial.compare``);
- :func:`training_curve` trains for whole epochs (epoch ``e`` shuffled with seed ``e``) and
  returns the training loss on all examples after each epoch.

Nothing stops at a NaN: a diverging run shows as non-finite weights or losses, which the
notebooks report (the sensitivity table of ``03_adaptive`` prints "diverged").

>>> import numpy as np
>>> from tutorial.data import first_minibatches
>>> from tutorial.nn.mlp import mlp
>>> rng = np.random.default_rng(0)
>>> X, y = rng.random((64, 64), dtype=np.float32), rng.integers(0, 10, 64)
>>> a = trained_with(mlp((8,)), "sgd", first_minibatches(X, y, 5), {"learning_rate": 0.1})
>>> b = trained_with(mlp((8,)), "sgd", first_minibatches(X, y, 5), {"learning_rate": 0.1})
>>> [w.shape for w in a], all((p == q).all() for p, q in zip(a, b))
([(8, 64), (8,), (10, 8), (10,)], True)
>>> curve = training_curve(mlp((8,)), "sgd", X, y, num_epochs=3,
...                        optimizer_params={"learning_rate": 0.1})
>>> len(curve), curve[-1] < curve[0]
(3, True)
"""

from mxnet import gluon

from tutorial.data import minibatches
from tutorial.nn.loss import gradients_of, mean_loss
from tutorial.validate import check_count


def _step_through(net, trainer, batches):
    """One Trainer update per minibatch ``(X, y)``; the updates average over each batch."""
    for X, y in batches:
        gradients_of(net, X, y)
        trainer.step(len(X))


def trained_with(net, optimizer, batches, optimizer_params=None):
    """Train ``net`` one step per minibatch of ``batches``; return its weights (NumPy arrays).

    ``optimizer`` is what ``gluon.Trainer`` takes: a name (with ``optimizer_params``) or an
    optimizer object. The weights come in the order of ``net.collect_params()``.
    """
    batches = list(batches)
    if not batches:
        raise ValueError("batches is empty: give at least one minibatch (X, y), e.g. "
                         "tutorial.data.first_minibatches(X, y, num_steps=100)")
    trainer = gluon.Trainer(net.collect_params(), optimizer, optimizer_params)
    _step_through(net, trainer, batches)
    return [p.data().asnumpy() for p in net.collect_params().values()]


def training_curve(net, optimizer, X, y, num_epochs, optimizer_params=None, batch_size=32,
                   after_epoch=None):
    """Train ``net`` for ``num_epochs`` epochs of minibatches; the training loss after each.

    Epoch ``e`` visits the rows of ``(X, y)`` in the order ``minibatches(..., seed=e)``.
    The loss is the mean over all rows, measured after the epoch. ``after_epoch(net,
    trainer)``, if given, runs after each epoch (e.g. to change the learning rate).
    """
    num_epochs = check_count("num_epochs", num_epochs, what="passes over the data")
    batch_size = check_count("batch_size", batch_size, what="samples per minibatch")
    trainer = gluon.Trainer(net.collect_params(), optimizer, optimizer_params)
    curve = []
    for epoch in range(num_epochs):
        _step_through(net, trainer, minibatches(X, y, batch_size, seed=epoch))
        curve.append(mean_loss(net, X, y))
        if after_epoch is not None:
            after_epoch(net, trainer)
    return curve
