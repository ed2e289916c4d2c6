"""Train one Gluon network through a plan of phases (:mod:`tutorial.largebatch.phases`).

Where :func:`tutorial.largebatch.runs.train_family` trains many small MLPs side by side,
this loop trains any one network (a CNN with BatchNorm included) with a
``gluon.Trainer`` running one of the course's optimizers (``tutorial.optim.create`` via
:func:`tutorial.optim.scaling.make_trainer`). At the start of each phase it sets the
phase's learning rate (``trainer.set_learning_rate``) and draws the phase's batch size.
Each epoch draws a fresh seeded permutation and drops the partial batch, so the steps of
an epoch are those of :func:`tutorial.largebatch.phases.plan_table`. Steps count updates,
from 1.

Validation accuracy is measured ``evals_per_epoch`` times per epoch (at evenly spaced
steps, every step when an epoch has fewer), so *steps to target* is the first of those
steps at which the accuracy reached ``target``: an upper bound, as fine as the
evaluations. A run *diverges* when a minibatch loss becomes NaN/inf, or stays above twice
the larger of ln(classes) (a uniform guess) and its first loss for ``patience``
consecutive steps (a CNN with BatchNorm often spikes for a few steps early on and
recovers): it stops there and reports no steps to target.
"""

import dataclasses
from typing import Optional, Tuple

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon, nd

from tutorial.largebatch.phases import Phase, plan_table
from tutorial.optim.scaling import make_trainer
from tutorial.validate import check_count, check_range


@dataclasses.dataclass(frozen=True)
class PlanRun:
    """What one network did under one plan."""
    plan: Tuple[Phase, ...]
    steps_run: int                                   # updates made
    evals: Tuple[Tuple[int, float], ...]             # (step, validation accuracy)
    train_loss: Tuple[float, ...]                    # minibatch loss of each step
    steps_to_target: Optional[int]                   # first evaluated step >= target
    diverged: bool

    @property
    def final_val_acc(self):
        return self.evals[-1][1] if self.evals else float("nan")


def eval_steps(steps, evals_per_epoch):
    """Which of an epoch's ``steps`` (1..steps) are followed by an evaluation.

    >>> eval_steps(10, 4), eval_steps(3, 4)
    ([2, 5, 8, 10], [1, 2, 3])
    """
    if steps <= evals_per_epoch:
        return list(range(1, steps + 1))
    return sorted({int(round(k * steps / evals_per_epoch)) for k in range(1, evals_per_epoch + 1)})


def accuracy(net, X, y):
    """Fraction of rows of ``X`` whose arg-max prediction equals ``y`` (prediction mode)."""
    return float((net(X).argmax(axis=1) == y.astype("float32")).mean().asscalar())


def train_plan(net_factory, data, plan, optimizer="momentum", optimizer_kw=None, target=None,
               stop_at_target=False, evals_per_epoch=4, seed=0, patience=20, ctx=None,
               return_net=False):
    """Train ``net_factory()`` on ``data`` (a ``runs.Dataset``) through ``plan``.

    ``net_factory()`` returns a fresh Gluon block (initialized, or with deferred shapes);
    MXNet's generator is seeded with ``seed`` before it is called, and the batch order
    comes from ``np.random.default_rng(seed)``. ``optimizer_kw`` defaults to momentum 0.9
    for 'momentum' and 'lars'. Returns a :class:`PlanRun` (and the net when ``return_net``).
    """
    if not plan or not all(isinstance(p, Phase) for p in plan):
        raise ValueError("plan must be a non-empty tuple of Phase, e.g. "
                         "tutorial.largebatch.phases.constant(3, 64, 0.1)")
    if target is not None:
        check_range("target", target, 0.0, 1.0, low_open=True)
    check_count("evals_per_epoch", evals_per_epoch, what="evaluations per epoch")
    check_count("patience", patience, what="steps above the divergence limit")
    rows = plan_table(plan, data.n_train)               # also checks every batch fits
    ctx = ctx or mx.cpu()
    mx.random.seed(seed)
    net = net_factory()
    if optimizer_kw is None:
        optimizer_kw = {"momentum": 0.9} if optimizer in ("momentum", "lars") else {}
    X, y = nd.array(data.X_train, ctx=ctx), nd.array(data.y_train, ctx=ctx)
    Xv, yv = nd.array(data.X_val, ctx=ctx), nd.array(data.y_val, ctx=ctx)
    net(X[:2])                                          # deferred shapes, before the trainer
    trainer = make_trainer(net.collect_params(), optimizer, learning_rate=plan[0].lr,
                           **optimizer_kw)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    limit = 2.0 * float(np.log(int(data.y_train.max()) + 1))
    rng = np.random.default_rng(seed)
    evals, losses, reached, diverged, step, above = [], [], None, False, 0, 0
    for epoch, batch, lr, _, steps in rows:
        trainer.set_learning_rate(lr)
        order = nd.array(rng.permutation(data.n_train), ctx=ctx)
        at = set(eval_steps(steps, evals_per_epoch))
        for k in range(steps):
            idx = order[k * batch:(k + 1) * batch]
            with autograd.record():
                loss = loss_fn(net(nd.take(X, idx)), nd.take(y, idx)).mean()
            loss.backward()
            trainer.step(1)
            step += 1
            losses.append(float(loss.asscalar()))
            above = above + 1 if not losses[-1] < max(limit, 2.0 * losses[0]) else 0
            if not np.isfinite(losses[-1]) or above >= patience:
                diverged = True
                break
            if k + 1 in at:
                evals.append((step, accuracy(net, Xv, yv)))
                if reached is None and target is not None and evals[-1][1] >= target:
                    reached = step
                if reached is not None and stop_at_target:
                    break
        if diverged or (reached is not None and stop_at_target):
            break
    run = PlanRun(tuple(plan), step, tuple(evals), tuple(losses),
                  None if diverged else reached, diverged)
    return (run, net) if return_net else run
