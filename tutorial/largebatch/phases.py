"""Training plans as data: epochs in phases, each with its batch size and learning rate.

A plan is a tuple of :class:`Phase`; epoch ``e`` of a plan runs ``n_train // batch_size``
updates (the last partial batch is dropped, as in :mod:`tutorial.largebatch.runs`).
Four plans, all pure functions of their arguments:

- :func:`constant`:   one batch size, one rate;
- :func:`warm_start`: Keskar et al.'s (2017) small-batch warm start: ``switch_epoch``
  epochs at a small batch, then the rest at a large one;
- :func:`decay_lr`:   the rate divided by ``factor`` at each milestone epoch (a step decay);
- :func:`grow_batch`: Smith et al.'s (2018) "don't decay the learning rate, increase the
  batch size": the batch multiplied by ``factor`` at the same milestones, the rate kept.
  Once the batch would pass ``max_batch`` the rate is decayed instead (their recipe, too).

Between ``decay_lr`` and ``grow_batch`` every epoch has the same ratio lr / batch up to
the constant: the noise scale of SGD, g = lr N / B, that Smith et al. argue sets the
trajectory. The grown plan takes far fewer steps for the same epochs:

>>> plan = grow_batch(epochs=6, batch_size=32, lr=0.1, milestones=(2, 4), factor=4)
>>> [(e, b, lr, steps) for e, b, lr, _, steps in plan_table(plan, n_train=1024)]
[(0, 32, 0.1, 32), (1, 32, 0.1, 32), (2, 128, 0.1, 8), (3, 128, 0.1, 8), (4, 512, 0.1, 2), (5, 512, 0.1, 2)]
>>> total_steps(plan, 1024), total_steps(decay_lr(6, 32, 0.1, (2, 4), 4), 1024)
(84, 192)
"""

import dataclasses
from typing import Tuple

from tutorial.validate import check_count, check_range


@dataclasses.dataclass(frozen=True)
class Phase:
    epochs: int        # how many epochs this phase lasts
    batch_size: int    # examples per update
    lr: float          # learning rate of every update in it

    def __post_init__(self):
        check_count("epochs", self.epochs, what="epochs in a phase")
        check_count("batch_size", self.batch_size, what="examples per update")
        check_range("lr", self.lr, 0.0, low_open=True)


Plan = Tuple[Phase, ...]


def constant(epochs, batch_size, lr):
    """One phase: ``epochs`` epochs at ``batch_size`` and ``lr``."""
    return (Phase(epochs, batch_size, lr),)


def warm_start(epochs, small_batch, large_batch, switch_epoch, small_lr, large_lr):
    """``switch_epoch`` epochs at ``small_batch``, the remaining ones at ``large_batch``.

    >>> [(p.epochs, p.batch_size) for p in warm_start(5, 32, 512, 1, 0.05, 0.2)]
    [(1, 32), (4, 512)]
    """
    check_count("switch_epoch", switch_epoch, what="small-batch epochs before the switch")
    if switch_epoch >= epochs:
        raise ValueError(f"switch_epoch ({switch_epoch}) must be before the last epoch "
                         f"({epochs} epochs), or the large batch never runs")
    return (Phase(switch_epoch, small_batch, small_lr),
            Phase(epochs - switch_epoch, large_batch, large_lr))


def _check_milestones(epochs, milestones, factor):
    check_range("factor", factor, 1.0, low_open=True)
    if list(milestones) != sorted(set(milestones)) or not all(0 < m < epochs for m in milestones):
        raise ValueError(f"milestones must be increasing epochs between 1 and {epochs - 1}, "
                         f"got {tuple(milestones)!r}")


def _phases(epochs, milestones, settings):
    bounds = (0, *milestones, epochs)
    return tuple(Phase(b - a, batch, lr) for (a, b), (batch, lr)
                 in zip(zip(bounds, bounds[1:]), settings))


def decay_lr(epochs, batch_size, lr, milestones, factor):
    """The rate divided by ``factor`` at each milestone epoch; the batch kept."""
    _check_milestones(epochs, milestones, factor)
    return _phases(epochs, milestones,
                   [(batch_size, lr / factor ** k) for k in range(len(milestones) + 1)])


def grow_batch(epochs, batch_size, lr, milestones, factor, max_batch=None):
    """The batch multiplied by ``factor`` at each milestone; past ``max_batch``, the rate
    divided instead (so lr / batch falls by ``factor`` at every milestone either way).

    >>> [(p.batch_size, p.lr) for p in grow_batch(4, 100, 0.1, (1, 2, 3), 2, max_batch=400)]
    [(100, 0.1), (200, 0.1), (400, 0.1), (400, 0.05)]
    """
    _check_milestones(epochs, milestones, factor)
    max_batch = max_batch or batch_size * factor ** len(milestones)
    settings, batch, rate = [(batch_size, lr)], batch_size, lr
    for _ in milestones:
        if batch * factor <= max_batch:
            batch = int(round(batch * factor))
        else:
            rate = rate / factor
        settings.append((batch, rate))
    return _phases(epochs, milestones, settings)


def steps_per_epoch(n_train, batch_size):
    """Updates in one epoch: ``n_train // batch_size`` (the partial batch is dropped)."""
    if batch_size > n_train:
        raise ValueError(f"batch_size {batch_size} is larger than the {n_train} training "
                         f"examples: an epoch would have no full batch")
    return n_train // batch_size


def plan_table(plan, n_train):
    """One row per epoch: ``(epoch, batch_size, lr, first_step, steps)``; steps count from 1."""
    rows, epoch, step = [], 0, 1
    for phase in plan:
        per_epoch = steps_per_epoch(n_train, phase.batch_size)
        for _ in range(phase.epochs):
            rows.append((epoch, phase.batch_size, phase.lr, step, per_epoch))
            epoch, step = epoch + 1, step + per_epoch
    return rows


def total_steps(plan, n_train):
    """Updates the whole plan makes on ``n_train`` examples."""
    return sum(row[-1] for row in plan_table(plan, n_train))
