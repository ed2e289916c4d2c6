"""Breaking update locking: a pipeline that updates each stage as soon as its gradient arrives.

Backpropagation is *update locked*: a stage may update only once the forward pass has
reached the top and the backward pass has come back. Three ways to train on a stream of
micro-batches, all run by :func:`~tutorial.parallel.pipeline.executor.run`:

- ``sequential``  plain SGD, one micro-batch at a time through all stages (the naive
                  schedule, a step after every micro-batch): fresh gradients, no overlap;
- ``sync``        GPipe steps of m micro-batches, one update per step: the same updates
                  as one device on batches m times larger, a bubble every step;
- ``async``       one long 1F1B schedule that is never flushed, each stage updating right
                  after each backward (the MSRA and PipeDream idea): no bubble but once at
                  the ends, and stale weights.

Staleness: stage s runs the forward of a micro-batch, then p - s - 1 backwards of older
micro-batches (each followed by an update) before that micro-batch's own backward, so its
gradient is computed on weights p - s - 1 updates older than the ones it is applied to.
Our backward also uses the *current* weights, not those of the forward (PipeDream stashes
them to fix that; we do not).

>>> from tutorial.parallel.pipeline.schedules import schedule
>>> staleness(schedule("1f1b", 4, 8))
[3, 2, 1, 0]
>>> staleness(schedule("naive", 4, 8))
[0, 0, 0, 0]
"""

import dataclasses
import time
from typing import Optional, Tuple

import numpy as np

from tutorial.finite import TrainingDiverged
from tutorial.parallel.pipeline.executor import run
from tutorial.parallel.pipeline.schedules import gpipe, naive, one_f_one_b
from tutorial.parallel.pipeline.timing import replay, span
from tutorial.validate import check_count, check_range

MODES = ("sequential", "sync", "async")


def staleness(plan):
    """(stages,) the most backward passes a stage runs between a micro-batch's F and its B:
    the staleness of its gradients when every backward is followed by an update."""
    worst = [0] * plan.stages
    for s in range(plan.stages):
        order = plan.order(s)
        forward_at = {}
        for k, task in enumerate(order):
            if task.kind == "F":
                forward_at[task.microbatch] = k
            else:
                between = sum(1 for t in order[forward_at[task.microbatch]:k] if t.kind == "B")
                worst[s] = max(worst[s], between)
    return worst


@dataclasses.dataclass(frozen=True)
class Training:
    """One training run on a stream of micro-batches."""
    mode: str
    losses: np.ndarray       # (micro-batches,) each one's mean loss, in the order computed
    times: np.ndarray        # (micro-batches,) seconds from the start when it was known
    modelled: np.ndarray     # (micro-batches,) the same on p devices of their own: task
                             # times replayed (timing.replay), updates left out
    seconds: float           # the whole run on this machine, updates included
    staleness: Tuple[int, ...]   # updates between a gradient's forward and its update
    diverged: Optional[str] = None   # why the run stopped (TrainingDiverged), else None;
                                     # the micro-batches from there on are NaN

    def to_target(self, target, window=20, modelled=False, stays=False):
        """(micro-batches, seconds) until the mean loss of the last ``window`` micro-batches
        first reaches ``target``; (None, None) if it never does. ``stays``: until it reaches
        the target for good (at or below it from then to the end of the run), so a run that
        dips below the target and climbs back does not count as there. ``modelled``:
        seconds on p devices of their own instead of this machine's."""
        window = check_count("window", window)
        if len(self.losses) < window:
            return None, None
        means = np.convolve(self.losses, np.ones(window) / window, mode="valid")
        below = means <= target
        if stays:
            above = np.flatnonzero(~below)
            below[:above[-1] + 1 if len(above) else 0] = False
        hit = np.flatnonzero(below)
        if not len(hit):
            return None, None
        k = int(hit[0]) + window          # micro-batches seen when the window ends
        return k, float((self.modelled if modelled else self.times)[k - 1])


def train(stages, stream, mode, lr, microbatches=8, concurrent=True, durations=None):
    """Train ``stages`` on ``stream`` (a list of (X, y) micro-batches) in ``mode``, with
    learning rate ``lr`` for every update.

    ``durations`` ({(stage, kind): seconds}, e.g. :func:`~.timing.median_durations`) sets
    the task times of the modelled clock; by default each task's own measured time.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    lr = check_range("lr", lr, 0.0, low_open=True)
    p, n = len(stages), len(stream)
    if mode == "sync":
        m = check_count("microbatches", microbatches, what="per synchronous step")
        if n % m:
            raise ValueError(f"{n} micro-batches do not make whole steps of {m}: give a "
                             f"multiple of {m}")
        plans = [(gpipe(p, m), stream[k:k + m]) for k in range(0, n, m)]
        update = "step"
    else:
        plans = [((naive if mode == "sequential" else one_f_one_b)(p, n), stream)]
        update = "backward"
    losses, times, modelled, start, model_clock = [], [], [], time.perf_counter(), 0.0
    diverged = None
    for plan, part in plans:
        offset = time.perf_counter() - start
        try:
            result = run(stages, plan, part, lr=lr, update=update, concurrent=concurrent)
        except TrainingDiverged as error:       # a rate too large: recorded, not raised
            diverged = str(error)
            for values in (losses, times, modelled):
                values.extend([np.nan] * (n - len(values)))
            break
        took = {t.task: t.end - t.start for t in result.timings}
        replayed = replay(plan, took.__getitem__ if durations is None else
                          (lambda task: durations[task.stage, task.kind]))
        losses.extend(result.losses)
        loss_known = {t.task.microbatch: t for t in result.timings     # last stage's F
                      if t.task.stage == p - 1 and t.task.kind == "F"}
        for i in range(len(part)):
            times.append(offset + loss_known[i].end)
            modelled.append(model_clock + replayed[loss_known[i].task][1])
        model_clock += span(replayed)
    stale = staleness(plans[0][0]) if update == "backward" else [0] * p
    return Training(mode, np.array(losses), np.array(times), np.array(modelled),
                    time.perf_counter() - start, tuple(stale), diverged)
