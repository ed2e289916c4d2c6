"""Small-batch and large-batch solutions, side by side: how sharp, how good, and between.

Each *setting* is (label, batch size, learning rate, steps). ``train_solutions`` trains
``n_seeds`` models per setting (each seed its own initial weights, batches in the same
order) and ``measure`` gives, per solution, the training loss and accuracy, validation
accuracy, Keskar's sharpness phi and the top Hessian eigenvalue (see
:mod:`tutorial.largebatch.sharpness`). Runs that stop after a fixed number of steps can end
at different training losses, that is at different stages of training; ``train_to_loss``
takes each model instead at the first step its training loss falls to a given value.
"""

import dataclasses

import numpy as np
from mxnet import gluon, nd

from tutorial.largebatch.runs import train_family
from tutorial.largebatch.sharpness import (MLPLoss, interpolate, sharpness,
                                           top_hessian_eigenvalue)
from tutorial.progress import track
from tutorial.validate import check_range


@dataclasses.dataclass(frozen=True)
class Setting:
    label: str
    batch_size: int
    lr: float
    steps: int


@dataclasses.dataclass(frozen=True)
class MinimumReport:
    label: str
    seed: int
    train_loss: float
    train_acc: float
    val_acc: float
    sharpness: float          # Keskar's phi(x, eps), percent
    top_eigenvalue: float     # largest Hessian eigenvalue of the training loss


def train_solutions(data, settings, n_seeds=2, seed=0):
    """``{label: [params of seed 0, params of seed 1, ...]}`` (lists of NumPy arrays)."""
    solutions = {}
    for s in track(settings, f"training {n_seeds} seeds per setting"):
        _, net = train_family(data, s.batch_size, [s.lr] * n_seeds, max_steps=s.steps,
                              seed=seed, stop="never", same_init=False, targets=(1.0,),
                              return_net=True)
        solutions[s.label] = [[p.data().asnumpy() for p in net.member_params(g)]
                              for g in range(n_seeds)]
    return solutions


class _AllThere(Exception):
    """Raised by ``train_to_loss``'s hook to end training once every model got there."""


def train_to_loss(data, setting, losses, seed=0):
    """Model g of ``setting`` at the first step its training loss is at most ``losses[g]``.

    The models are trained as :func:`train_solutions` trains them (model g from seed g's
    initial weights, the same batches), one per entry of ``losses``, and the loss on the
    whole training set is measured after every update; training ends once every model got
    there. Returns ``[(step, params) or None, ...]``, None for a model that does not get
    there within ``setting.steps``.
    """
    if isinstance(losses, str) or not np.iterable(losses) or len(losses) == 0:
        raise ValueError(f"losses must be a list of training losses, one per model, got "
                         f"{losses!r}")
    losses = [check_range(f"losses[{g}]", loss, 0.0) for g, loss in enumerate(losses)]
    X = nd.array(data.X_train)
    y = nd.broadcast_to(nd.array(data.y_train).expand_dims(0), (len(losses), data.n_train))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    found = [None] * len(losses)

    def grab(step, net):
        whole = loss_fn(net(X), y).asnumpy()            # one mean loss per model
        for g, target in enumerate(losses):
            if found[g] is None and whole[g] <= target:
                found[g] = (step, [p.data().asnumpy() for p in net.member_params(g)])
        if all(f is not None for f in found):
            raise _AllThere

    try:
        train_family(data, setting.batch_size, [setting.lr] * len(losses),
                     max_steps=setting.steps, seed=seed, stop="never", same_init=False,
                     targets=(1.0,), on_step=grab)
    except _AllThere:
        pass
    return found


def measure(data, solutions, eps=1e-3):
    """One :class:`MinimumReport` per solution, in the order of ``solutions``."""
    train = MLPLoss(data.X_train, data.y_train, data.X_train.shape[1])
    val = MLPLoss(data.X_val, data.y_val, data.X_train.shape[1])
    reports = []
    for label, per_seed in track(solutions.items(), "sharpness and top eigenvalue per setting"):
        for seed, params in enumerate(per_seed):
            loss, acc = train.loss_and_accuracy(params)
            reports.append(MinimumReport(label, seed, loss, acc, val.loss_and_accuracy(params)[1],
                                         sharpness(params, train, eps=eps),
                                         top_hessian_eigenvalue(params, train)))
    return reports


def curvature_along_training(data, batch_size, lr, measure_at, schedule=None, seed=0):
    """Train one model; at steps ``measure_at`` return ``(step, training loss, lambda_max)``.

    ``lr`` and ``schedule`` as in :func:`tutorial.largebatch.runs.train_family`. Compare
    lambda_max with 2 (1 + momentum) / lr, the largest curvature that heavy-ball momentum
    at rate lr survives on a quadratic.
    """
    train = MLPLoss(data.X_train, data.y_train, data.X_train.shape[1])
    captured = {}

    def grab(step, net):
        if step in measure_at:
            captured[step] = [p.data().asnumpy() for p in net.member_params(0)]

    train_family(data, batch_size, [lr], schedule=schedule, max_steps=max(measure_at) or 1,
                 seed=seed, stop="never", targets=(1.0,), on_step=grab)
    return [(step, train(params)[0], top_hessian_eigenvalue(params, train))
            for step, params in sorted(captured.items())]


def interpolation_curves(data, params_a, params_b, alphas):
    """Train loss and validation accuracy along (1 - alpha) a + alpha b: two arrays."""
    train = MLPLoss(data.X_train, data.y_train, data.X_train.shape[1])
    val = MLPLoss(data.X_val, data.y_val, data.X_train.shape[1])
    train_loss = [loss for loss, _ in interpolate(params_a, params_b, alphas,
                                                  train.loss_and_accuracy)]
    val_acc = [acc for _, acc in interpolate(params_a, params_b, alphas, val.loss_and_accuracy)]
    return np.array(train_loss), np.array(val_acc)
