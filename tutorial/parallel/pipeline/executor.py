"""Run a pipeline schedule for real, one stage per device, and time every task.

``run(stages, plan, batches, lr)`` carries out a :class:`~.schedules.Schedule` on
:class:`~.stages.Stages`: ``F`` of micro-batch i on stage s runs the stage on the
activations stage s - 1 produced (copied to its device), ``B`` pushes the gradient that
stage s + 1 sent back through the stage and sends the gradient of its input on.

``concurrent=True`` gives every stage a thread that runs its own tasks in the
schedule's order and waits only for its inputs, as p devices do; MXNet computes on each
device's own engine worker. Python calls into MXNet are made one at a time (a lock), the
waits are not, so devices work at the same time. The clock starts once every thread has
made a first, tiny MXNet call (a new thread's first call costs milliseconds), and the
micro-batches are on their devices before it starts. ``concurrent=False`` runs the tasks
one after the other in tick order. Each task's start and end are read from one clock:
start when its inputs are ready and it is issued, end when its outputs (and on a
backward, the stage's weight gradients) are computed.

Before any work, every micro-batch must fit the stages (features, class labels) and hold
finite values; a NaN or infinite loss, gradient or weight stops the run with
``TrainingDiverged``: before the update with ``update='step'``, after the run with
``update='backward'`` (whose updates happen inside it).

``update='step'``: gradients accumulate over the m micro-batches (each loss is divided by
the step's total number of samples) and every stage takes one SGD step at the end: the
synchronous pipeline, whose update equals one device's on the whole batch.
``update='backward'``: each stage takes an SGD step right after each backward, with the
loss of that micro-batch alone: the asynchronous pipeline of
:mod:`~tutorial.parallel.pipeline.async_pipeline`.
"""

import dataclasses
import threading
import time
from typing import Tuple

import mxnet as mx
import numpy as np
from mxnet import autograd

from tutorial.finite import TrainingDiverged, check_parameters
from tutorial.parallel.pipeline.schedules import Schedule, Task, dependencies
from tutorial.validate import as_host_array, check_count, check_range

UPDATES = ("step", "backward", None)
WAIT_LIMIT_S = 120.0       # a stage that waits longer than this for an input gives up


@dataclasses.dataclass(frozen=True)
class Timing:
    """When one task ran, in seconds from the start of the run."""
    task: Task
    start: float
    end: float


@dataclasses.dataclass(frozen=True)
class Run:
    """What one run of a schedule did."""
    schedule: Schedule
    timings: Tuple[Timing, ...]      # one per task, in the schedule's order
    losses: Tuple[float, ...]        # mean loss of each micro-batch (weights before any update)
    peak_held: Tuple[int, ...]       # most micro-batches each stage kept for its backward
    samples: int

    @property
    def seconds(self):
        return max(t.end for t in self.timings)

    @property
    def busy(self):
        """(stages,) seconds each stage spent on its tasks."""
        busy = [0.0] * self.schedule.stages
        for t in self.timings:
            busy[t.task.stage] += t.end - t.start
        return busy

    @property
    def bubble(self):
        """Measured share of the stages' time spent idle: 1 - busy / (p x span)."""
        return 1 - sum(self.busy) / (self.schedule.stages * self.seconds)


def microbatches(X, y, m):
    """Cut the batch (X, y) into ``m`` micro-batches of equal size: a list of (X_i, y_i)."""
    m = check_count("microbatches", m, what="parts of the batch")
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}: give one label per sample")
    if len(X) % m:
        raise ValueError(f"{m} micro-batches do not divide a batch of {len(X)} samples: "
                         f"choose m among the divisors of {len(X)}, or another batch size")
    size = len(X) // m
    return [(X[k * size:(k + 1) * size], y[k * size:(k + 1) * size]) for k in range(m)]


class _Work:
    """The state of one run: stashed activations, messages between stages, losses."""

    def __init__(self, stages, plan, batches, lr, update):
        self.stages, self.plan, self.lr, self.update = stages, plan, lr, update
        first, last = stages.devices[0], stages.devices[-1]        # the data is there already
        self.batches = [(mx.nd.array(xb, ctx=first), mx.nd.array(yb, ctx=last))
                        for xb, yb in batches]
        mx.nd.waitall()
        total = sum(len(xb) for xb, _ in batches)
        self.scales = [1.0 / (total if update != "backward" else len(xb)) for xb, _ in batches]
        self.stash, self.sent, self.losses = {}, {}, {}
        self.held = [0] * plan.stages
        self.peak = [0] * plan.stages

    def do(self, task):
        """Issue one task; return the arrays to wait for."""
        s, i, last = task.stage, task.microbatch, task.stage == self.plan.stages - 1
        if task.kind == "F":
            x = self.batches[i][0] if s == 0 else self.sent.pop((s - 1, i, "F"))
            x_in, out = self.stages.forward(s, x, self.batches[i][1] if last else None,
                                            self.scales[i])
            self.stash[s, i] = (x_in, out)
            self.held[s] += 1
            self.peak[s] = max(self.peak[s], self.held[s])
            if last:
                self.losses[i] = out
            else:
                self.sent[s, i, "F"] = out
            return [out]
        x_in, out = self.stash.pop((s, i))
        grad = self.stages.backward(s, x_in, out, None if last else self.sent.pop((s + 1, i, "B")))
        self.held[s] -= 1
        if s > 0:
            self.sent[s, i, "B"] = grad
        if self.update == "backward":
            self.stages.sgd(s, self.lr)
        params = self.stages.params(s)
        ctx = self.stages.devices[s]
        return ([grad] if s > 0 else []) + [p.data(ctx) for p in params] + \
            [p.grad(ctx) for p in params]


def _serially(plan, work, clock):
    times, t0 = {}, clock()
    for task in plan.tasks:
        start = clock() - t0
        for array in work.do(task):
            array.wait_to_read()
        times[task] = (start, clock() - t0)
    return times


def _first_call(device):
    """A tiny recorded computation: the first MXNet call from a new thread costs
    milliseconds (the C API sets up its per-thread state), which no task should pay."""
    x = mx.nd.ones((1, 1), ctx=device)
    x.attach_grad()
    with autograd.record():
        y = (x * 2).sum()
    y.backward()
    x.grad.wait_to_read()


def _concurrently(plan, work, clock, wait_limit_s):
    """{task: (start, end)} with one thread per stage; the clock starts once every thread
    has made its first MXNet call."""
    done = {(t.stage, t.microbatch, t.kind): threading.Event() for t in plan.tasks}
    lock, abort, failures, times = threading.Lock(), threading.Event(), [], {}
    origin = []
    ready = threading.Barrier(plan.stages, action=lambda: origin.append(clock()))

    def await_input(key, task):
        deadline = time.monotonic() + wait_limit_s
        while not done[key].wait(0.02):
            if abort.is_set():
                raise RuntimeError("stopped: another stage failed")
            if time.monotonic() > deadline:
                raise RuntimeError(f"stage {task.stage} waited more than {wait_limit_s:g} s for "
                                   f"{key[2]} of micro-batch {key[1]} from stage {key[0]}")

    def stage_thread(s):
        try:
            with lock:
                _first_call(work.stages.devices[s])
            ready.wait(wait_limit_s)
            t0 = origin[0]
            for task in plan.order(s):
                for key in dependencies(s, task.microbatch, task.kind, plan.stages):
                    if key[0] != s:
                        await_input(key, task)
                start = clock() - t0
                with lock:
                    pending = work.do(task)
                for array in pending:
                    array.wait_to_read()
                times[task] = (start, clock() - t0)
                done[s, task.microbatch, task.kind].set()
        except BaseException as error:           # reported by the main thread below
            failures.append(error)
            abort.set()
            ready.abort()

    threads = [threading.Thread(target=stage_thread, args=(s,), daemon=True)
               for s in range(plan.stages)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        first = next((f for f in failures if "another stage failed" not in str(f)
                      and not isinstance(f, threading.BrokenBarrierError)), failures[0])
        raise first
    return times


def run(stages, plan, batches, lr=None, update="step", concurrent=True,
        wait_limit_s=WAIT_LIMIT_S, clock=time.perf_counter):
    """Run ``plan`` on ``stages`` with ``batches`` (m (X, y) pairs of NumPy arrays or
    NDArrays); see the module doc."""
    if not isinstance(plan, Schedule):
        raise ValueError(f"plan must be a Schedule (e.g. schedules.schedule('gpipe', p, m)), "
                         f"got {type(plan).__name__}")
    if plan.stages != len(stages):
        raise ValueError(f"the schedule is for {plan.stages} stages but the network is cut into "
                         f"{len(stages)}: build the schedule with stages={len(stages)}")
    if len(batches) != plan.microbatches:
        raise ValueError(f"the schedule has {plan.microbatches} micro-batches but got "
                         f"{len(batches)}: cut the batch with microbatches(X, y, "
                         f"{plan.microbatches})")
    if update not in UPDATES:
        raise ValueError(f"update must be one of {UPDATES}, got {update!r}")
    if update is not None:
        lr = check_range("lr", lr, 0.0, low_open=True)
    wait_limit_s = check_range("wait_limit_s", wait_limit_s, 0.0, low_open=True)
    batches = as_numpy(batches)
    for k, (X, y) in enumerate(batches):
        stages.check_batch(X, y, f"micro-batch {k}")
    params = [p for s in range(len(stages)) for p in stages.params(s)]
    check_parameters(params, step=1, learning_rate=lr or 0.0, gradients=False)
    work = _Work(stages, plan, batches, lr, update)
    times = (_concurrently(plan, work, clock, wait_limit_s) if concurrent
             else _serially(plan, work, clock))
    losses = tuple(float(work.losses[i].sum().asscalar()) / work.scales[i] / len(batches[i][0])
                   for i in range(plan.microbatches))
    _check_finite_run(losses, params, update, lr)
    if update == "step":
        for s in range(len(stages)):
            stages.sgd(s, lr)
    timings = tuple(Timing(t, *times[t]) for t in plan.tasks)
    return Run(plan, timings, losses, tuple(work.peak), int(sum(len(xb) for xb, _ in batches)))


def _check_finite_run(losses, params, update, lr):
    """TrainingDiverged before the synchronous update (gradients and weights), or after
    the asynchronous one (its weights), if a loss, gradient or weight is NaN or infinite."""
    bad = next((i for i, loss in enumerate(losses) if not np.isfinite(loss)), None)
    if bad is not None and update is not None:
        raise TrainingDiverged(f"the loss of micro-batch {bad} became {losses[bad]}, so "
                               f"the run stopped{' before the update' if update == 'step' else ''}"
                               f". Lower the learning rate (it is {lr:g}) and run again.")
    if update == "step":
        check_parameters(params, step=1, learning_rate=lr)
    elif update == "backward":
        check_parameters(params, step=2, learning_rate=lr, gradients=False)


def as_numpy(batches):
    """Check micro-batches are (X, y) pairs of one width; return them as NumPy arrays
    (NDArrays are copied to NumPy)."""
    out = []
    for k, pair in enumerate(batches):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"micro-batch {k} must be an (X, y) pair")
        X, y = np.asarray(as_host_array(pair[0]), dtype=np.float32), \
            np.asarray(as_host_array(pair[1]))
        bad = ~np.isfinite(X.reshape(len(X), -1)).all(axis=1) if X.ndim else ~np.isfinite(X)
        if bad.any():
            raise ValueError(f"micro-batch {k} holds NaN or an infinity in X (row "
                             f"{int(np.argmax(bad))}): clean the data before training")
        out.append((X, y))
    return out
