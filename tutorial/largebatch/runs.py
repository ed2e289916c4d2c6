"""Train a family of MLPs (one per learning rate) until they reach target accuracies.

``train_family`` is the one training loop of the large-batch experiments. Every model of
the family sees the same minibatches from the same initial weights; model g uses the
learning rate ``lrs[g] * schedule(step)`` (a Parameter ``lr_mult`` of ``lrs[g]`` on top of
the trainer's rate). After every update it measures validation accuracy, and it records
the first step at which each target is reached. Steps count updates, from 1. Every
``check_every`` updates (and at the last) it decides whether to stop.

A model *diverges* when its minibatch loss becomes NaN/inf or exceeds ``diverge_factor``
times ln(classes), the loss of a uniform guess (twice by default): its updates overshoot
so far that it does worse than knowing nothing. A model that *starts* worse than that
(large inputs, such as raw pixels, give large initial logits) is measured against
``diverge_factor`` times its own first loss instead, so a high start is not divergence. Its steps to every target are then
``None`` and ``diverged`` is True, so a plot can show divergence as divergence rather
than as "slow".

Three stopping rules. ``stop="all"`` trains until every model has reached the highest
target or diverged. ``stop="best"`` stops as soon as *any* model reaches the highest
target: enough for "steps to each target at the best learning rate of the grid",
because a model that reaches a lower target later than that step cannot be the best.
``stop="never"`` runs all ``max_steps`` (to draw whole loss curves).
"""

import dataclasses
import itertools
from typing import Dict, Optional, Tuple

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon, nd

from tutorial.largebatch.mlp_family import MLPFamily
from tutorial.optim.scaling import make_trainer
from tutorial.validate import check_count, check_range


@dataclasses.dataclass(frozen=True)
class Dataset:
    """A train/validation split as float32/int32 NumPy arrays."""
    X_train: np.ndarray
    y_train: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray

    @property
    def n_train(self):
        return len(self.X_train)

    def scaled(self, factor):
        """The same split with inputs multiplied by ``factor`` (e.g. 16 for raw digit pixels)."""
        return Dataset(self.X_train * factor, self.y_train, self.X_val * factor, self.y_val)


@dataclasses.dataclass(frozen=True)
class Run:
    """One model of a family: its learning rate and what it reached."""
    batch_size: int
    lr: float
    steps_to: Dict[float, Optional[int]]   # target accuracy -> first step reaching it
    diverged: bool
    steps_run: int
    val_acc: Tuple[float, ...]              # after each step 1..steps_run
    train_loss: Tuple[float, ...]           # minibatch loss of each step


def _check_args(data, batch_size, lrs, targets, max_steps, check_every, diverge_factor):
    """Everything ``train_family`` is given, checked before any MXNet work."""
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a Dataset (e.g. tutorial.largebatch.experiments.digits()), "
                        f"got {type(data).__name__}")
    if not isinstance(batch_size, (int, np.integer)) or not 1 <= batch_size <= data.n_train:
        raise ValueError(f"batch_size must be a whole number from 1 to the {data.n_train} "
                         f"training examples, got {batch_size!r}")
    if isinstance(lrs, str) or not np.iterable(lrs) or len(lrs) == 0:
        raise ValueError(f"lrs must be a non-empty list of positive learning rates, got {lrs!r}")
    for i, lr in enumerate(lrs):
        check_range(f"lrs[{i}]", lr, 0.0, low_open=True)
    if isinstance(targets, str) or not np.iterable(targets) or len(targets) == 0:
        raise ValueError(f"targets must be a non-empty list of accuracies such as (0.95,), "
                         f"got {targets!r}")
    for i, t in enumerate(targets):
        check_range(f"targets[{i}]", t, 0.0, 1.0, low_open=True)
    check_count("max_steps", max_steps)
    check_count("check_every", check_every, what="steps between divergence checks")
    check_range("diverge_factor", diverge_factor, 0.0, low_open=True)


def train_family(data, batch_size, lrs, *, optimizer="momentum", optimizer_kw=None,
                 schedule=None, targets=(0.93, 0.95, 0.97), max_steps=3000, seed=0,
                 hidden=(128, 128), stop="all", diverge_factor=2.0, check_every=25,
                 same_init=True, on_step=None, ctx=None, return_net=False):
    """Train one model per learning rate in ``lrs`` on ``data`` with batches of ``batch_size``.

    ``optimizer`` is a name for ``tutorial.optim.create`` (with ``optimizer_kw``, default
    momentum 0.9 for 'momentum' and 'lars'); ``schedule`` a ``step -> factor`` multiplying
    every model's rate (None: constant 1). Batches are drawn without replacement from a
    fresh seeded permutation each epoch; a last partial batch is dropped so that every
    step sees exactly ``batch_size`` examples. ``stop`` is 'all', 'best' or 'never'
    (module docstring). ``same_init=False`` gives each model its own seeded initial weights (to
    repeat one learning rate over several seeds). ``on_step(step, net)``, when given, is
    called before the first update (step 0) and after every update, e.g. to measure the
    gradient noise scale along the way. Returns a list of :class:`Run` (and the net when
    ``return_net``).
    """
    _check_args(data, batch_size, lrs, targets, max_steps, check_every, diverge_factor)
    targets, lrs, batch_size = tuple(sorted(targets)), [float(lr) for lr in lrs], int(batch_size)
    if stop not in ("all", "best", "never"):
        raise ValueError(f"stop must be 'all', 'best' or 'never', got {stop!r}")
    ctx = ctx or mx.cpu()
    mx.random.seed(seed)
    classes = int(data.y_train.max()) + 1
    net = _family(data, lrs, hidden, classes, same_init, ctx)
    trainer = _trainer(net, optimizer, optimizer_kw, schedule)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()   # (G, B, C) -> one mean loss per model
    Xv, yv = nd.array(data.X_val, ctx=ctx), nd.array(data.y_val, ctx=ctx).expand_dims(0)
    diverge_loss = diverge_factor * float(np.log(classes))
    accs, losses, diverged = [], [], np.zeros(len(lrs), dtype=bool)
    if on_step is not None:
        on_step(0, net)
    batches = _minibatches(data, batch_size, seed, ctx)
    for step in range(1, max_steps + 1):
        xb, yb = next(batches)
        with autograd.record():
            loss = loss_fn(net(xb), nd.broadcast_to(yb.expand_dims(0), (len(lrs), batch_size)))
        loss.backward()
        trainer.step(1)                                     # loss is already a batch mean
        losses.append(loss)
        accs.append((net(Xv).argmax(axis=-1) == yv).mean(axis=1))
        if on_step is not None:
            on_step(step, net)
        if step % check_every == 0 or step == max_steps:
            diverged |= _diverging(losses, np.maximum(diverge_loss, diverge_factor * losses[0].asnumpy()))
            if _should_stop(stop, accs, diverged, targets[-1]):
                break
    runs = _runs(nd.stack(*accs).asnumpy(), nd.stack(*losses).asnumpy(), diverged, lrs,
                 targets, batch_size)
    return (runs, net) if return_net else runs


def _family(data, lrs, hidden, classes, same_init, ctx):
    """One MLP per learning rate, model g's parameters scaled by ``lr_mult = lrs[g]``."""
    net = MLPFamily(len(lrs), data.X_train.shape[1], hidden=hidden, classes=classes)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    if same_init:
        net.copy_first_to_all()
    for g, lr in enumerate(lrs):
        for p in net.member_params(g):
            p.lr_mult = lr
    net.hybridize(static_alloc=True, static_shape=True)
    return net


def _trainer(net, optimizer, optimizer_kw, schedule):
    """The trainer of the whole family: base rate 1 (the lr_mult is each model's rate)."""
    if optimizer_kw is None:
        optimizer_kw = {"momentum": 0.9} if optimizer in ("momentum", "lars") else {}
    if schedule is None:
        return make_trainer(net.collect_params(), optimizer, learning_rate=1.0, **optimizer_kw)
    return make_trainer(net.collect_params(), optimizer, schedule=schedule, **optimizer_kw)


def _minibatches(data, batch_size, seed, ctx):
    """Endless (X, y) minibatches: a fresh seeded permutation each epoch, no partial batch."""
    X, y = nd.array(data.X_train, ctx=ctx), nd.array(data.y_train, ctx=ctx)
    rng = np.random.default_rng(seed)
    per_epoch = data.n_train // batch_size
    for step in itertools.count():
        k = step % per_epoch
        if k == 0:
            order = nd.array(rng.permutation(data.n_train), ctx=ctx)
        idx = order[k * batch_size:(k + 1) * batch_size]
        yield nd.take(X, idx), nd.take(y, idx)


def _diverging(losses, diverge_loss):
    """Per model: did any minibatch loss so far become NaN/inf or exceed ``diverge_loss``?"""
    history = nd.stack(*losses).asnumpy()
    return ~np.all(np.isfinite(history) & (history < diverge_loss), axis=0)


def _should_stop(stop, accs, diverged, highest_target):
    if stop == "never":
        return False
    done = (nd.stack(*accs).asnumpy().max(axis=0) >= highest_target) & ~diverged
    return bool(np.all(done | diverged)) if stop == "all" else bool(done.any())


def _runs(acc_hist, loss_hist, diverged, lrs, targets, batch_size):
    """One Run per model from the (steps, models) histories."""
    runs = []
    for g, lr in enumerate(lrs):
        steps_to = {}
        for t in targets:
            hit = np.nonzero(acc_hist[:, g] >= t)[0]
            steps_to[t] = int(hit[0]) + 1 if len(hit) and not diverged[g] else None
        runs.append(Run(batch_size, lr, steps_to, bool(diverged[g]), len(acc_hist),
                        tuple(np.round(acc_hist[:, g], 6)), tuple(loss_hist[:, g])))
    return runs
