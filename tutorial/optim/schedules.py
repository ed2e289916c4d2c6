"""Learning-rate schedules as pure ``step -> lr`` callables, and one adapter for Gluon.

How steps count: ``step`` is the number of updates already made, so the **first update is
step 0** (as in optax). MXNet's schedulers are called with ``num_update``, which is 1 at
the first update; :func:`as_lr_scheduler` passes ``num_update - 1``, so schedule(0) is
the learning rate of the first update in both worlds.

Each schedule is a small frozen object (picklable, so an optimizer holding one can be
sent to a kvstore); calling it twice with the same step gives the same value.

>>> s = warmup(cosine(0.4, total_steps=100), warmup_steps=10)
>>> [round(s(t), 4) for t in (0, 9, 10, 109)]      # first, end of warmup, next, last
[0.04, 0.4, 0.3999, 0.0]
>>> round(polynomial(alpha=1.0, beta=4.0)(0), 3)     # alpha / sqrt(beta + t)
0.5
"""

import math
from dataclasses import dataclass
from typing import Callable, Tuple

import mxnet as mx

from tutorial.validate import check_count, check_range


@dataclass(frozen=True)
class Constant:
    lr: float

    def __call__(self, step):
        return self.lr


@dataclass(frozen=True)
class PiecewiseConstant:
    boundaries: Tuple[int, ...]
    values: Tuple[float, ...]

    def __call__(self, step):
        return self.values[sum(step >= b for b in self.boundaries)]


@dataclass(frozen=True)
class Polynomial:
    alpha: float
    beta: float

    def __call__(self, step):
        return self.alpha / math.sqrt(self.beta + step)


@dataclass(frozen=True)
class Exponential:
    lr0: float
    decay: float

    def __call__(self, step):
        return self.lr0 * self.decay ** step


@dataclass(frozen=True)
class Cosine:
    lr0: float
    total_steps: int
    final_lr: float

    def __call__(self, step):
        progress = min(step, self.total_steps) / self.total_steps
        return self.final_lr + (self.lr0 - self.final_lr) * (1 + math.cos(math.pi * progress)) / 2


@dataclass(frozen=True)
class Warmup:
    schedule: Callable
    warmup_steps: int
    start_lr: float

    def __call__(self, step):
        if step >= self.warmup_steps - 1:
            return self.schedule(step - (self.warmup_steps - 1))
        peak = self.schedule(0)
        return self.start_lr + (peak - self.start_lr) * (step + 1) / self.warmup_steps


def constant(lr):
    """lr at every step."""
    check_range("lr", lr, 0.0)
    return Constant(lr)


def piecewise_constant(boundaries, values):
    """values[i] for boundaries[i-1] <= step < boundaries[i] (one more value than boundaries).

    >>> s = piecewise_constant([100, 150], [0.1, 0.01, 0.001])
    >>> s(0), s(99), s(100), s(150)
    (0.1, 0.1, 0.01, 0.001)
    """
    boundaries, values = tuple(boundaries), tuple(values)
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_constant needs one more value than boundaries: got "
                         "%d boundaries and %d values." % (len(boundaries), len(values)))
    boundaries = tuple(check_count("boundaries[%d]" % i, b, what="a step at which lr changes")
                       for i, b in enumerate(boundaries))
    for i in range(1, len(boundaries)):
        if boundaries[i] <= boundaries[i - 1]:
            kind = "twice" if boundaries[i] == boundaries[i - 1] else "out of order"
            raise ValueError("boundaries %r: step %d comes %s; list each step at which lr "
                             "changes once, in increasing order (e.g. [100, 150])."
                             % (boundaries, boundaries[i], kind))
    values = tuple(check_range("values[%d]" % i, v, 0.0) for i, v in enumerate(values))
    return PiecewiseConstant(boundaries, values)


def polynomial(alpha, beta):
    """alpha / sqrt(beta + step): the deck's canonical decay for convex problems."""
    check_range("alpha", alpha, 0.0)
    check_range("beta", beta, 0.0, low_open=True)
    return Polynomial(alpha, beta)


def exponential(lr0, decay):
    """lr0 · decay^step (the deck: "not recommended", it decays too fast)."""
    check_range("lr0", lr0, 0.0)
    check_range("decay", decay, 0.0, 1.0, low_open=True)
    return Exponential(lr0, decay)


def cosine(lr0, total_steps, final_lr=0.0):
    """Half a cosine from lr0 at step 0 down to final_lr at step total_steps (and after):
    lr(t) = final_lr + (lr0 - final_lr)·(1 + cos(π·min(t, total_steps)/total_steps))/2.
    """
    check_range("lr0", lr0, 0.0)
    check_range("final_lr", final_lr, 0.0)
    total_steps = check_count("total_steps", total_steps)
    return Cosine(lr0, total_steps, final_lr)


def warmup(schedule, warmup_steps, start_lr=0.0):
    """Linear warmup from start_lr up to schedule(0), then ``schedule`` carries on.

    With n = warmup_steps, step t < n gets start_lr + (schedule(0) - start_lr)·(t + 1)/n:
    the first update (t = 0) already moves one n-th up the ramp, so no update is wasted
    at lr = start_lr (even when start_lr = 0); the last warmup step t = n - 1 reaches
    schedule(0), and step t >= n - 1 gets schedule(t - n + 1). Through
    :func:`as_lr_scheduler` this is exactly MXNet's ``warmup_steps``/``warmup_begin_lr``
    of its Cosine and Poly schedulers (tests/optim/test_schedules.py).
    """
    if not callable(schedule):
        raise TypeError("warmup needs a schedule (a function step -> lr), got %r." % (schedule,))
    warmup_steps = check_count("warmup_steps", warmup_steps)
    check_range("start_lr", start_lr, 0.0)
    return Warmup(schedule, warmup_steps, start_lr)


class ReduceOnPlateau:
    """The deck's "useful hack": keep lr until validation stops improving, then cut it.

    Stateful by nature (it remembers the best metric), so it is the one schedule that is
    not a pure function of the step: call ``observe(metric)`` once per evaluation; it
    returns the lr to use next. Calling the object with a step returns the current lr,
    so it also plugs into :func:`as_lr_scheduler`.

    >>> plateau = ReduceOnPlateau(lr=0.1, factor=0.5, patience=2)
    >>> [plateau.observe(loss) for loss in [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.94]]
    [0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05]
    """

    def __init__(self, lr, factor=0.1, patience=10, threshold=1e-4, mode="min", min_lr=0.0):
        check_range("lr", lr, 0.0, low_open=True)
        check_range("factor", factor, 0.0, 1.0, low_open=True, high_open=True)
        check_range("min_lr", min_lr, 0.0)
        if mode not in ("min", "max"):
            raise ValueError("mode=%r: use 'min' (a loss) or 'max' (an accuracy)." % (mode,))
        check_count("patience", patience, low=0, what="evaluations without improvement")
        self.lr, self.factor, self.patience = lr, factor, patience
        self.threshold, self.mode, self.min_lr = threshold, mode, min_lr
        self.best, self.bad_evaluations = None, 0

    def _improved(self, metric):
        if self.best is None:
            return True
        if self.mode == "min":
            return metric < self.best - self.threshold
        return metric > self.best + self.threshold

    def observe(self, metric):
        """Record one validation metric; returns the (possibly reduced) learning rate."""
        if self._improved(metric):
            self.best, self.bad_evaluations = metric, 0
        else:
            self.bad_evaluations += 1
            if self.bad_evaluations > self.patience:
                self.lr = max(self.lr * self.factor, self.min_lr)
                self.bad_evaluations = 0
        return self.lr

    def __call__(self, step):
        return self.lr


class ScheduleAdapter(mx.lr_scheduler.LRScheduler):
    """An ``mx.lr_scheduler.LRScheduler`` that asks ``schedule(num_update - 1)``."""

    def __init__(self, schedule):
        super().__init__(base_lr=schedule(0))
        self.schedule = schedule

    def __call__(self, num_update):
        return self.schedule(max(num_update - 1, 0))


def as_lr_scheduler(schedule):
    """Wrap a ``step -> lr`` schedule for ``lr_scheduler=`` of an optimizer / gluon.Trainer.

    MXNet calls it with num_update = 1 at the first update: that maps to step 0. Give the
    optimizer no ``learning_rate`` as well (MXNet would overwrite base_lr with it).

    >>> sched = as_lr_scheduler(warmup(constant(0.1), warmup_steps=4))
    >>> [round(sched(n), 3) for n in (1, 4, 5)]
    [0.025, 0.1, 0.1]
    """
    if not callable(schedule):
        raise TypeError("as_lr_scheduler needs a function step -> lr, got %r." % (schedule,))
    return ScheduleAdapter(schedule)
