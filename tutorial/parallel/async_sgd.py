"""Asynchronous SGD, simulated exactly: W workers of given speeds and one parameter server.

Synchronous SGD waits, every step, for the slowest worker. Asynchronous SGD does not:

    a worker pulls the weights w at server version v, spends its compute time on a
    minibatch gradient g(w_v), and pushes it; the server applies it AT ONCE
        w <- w - lr(tau) * g(w_v),   tau = (server version now) - v,
    and the worker pulls again. tau, the staleness, counts the updates OTHER workers
    applied while this gradient was being computed (0: it is fresh).

Time is simulated (an event queue, ties broken by worker index), never measured, so a
run is a pure function of its arguments and seed. Modes:

- ``mode="sync"``: each round every worker computes on the same w; the server applies
  the mean of the W gradients; the round lasts as long as the slowest worker.
- ``mode="async"``: Downpour SGD with one server shard (Dean et al., 2012); with
  ``local_steps=k`` a replica takes k SGD steps on its own copy and pushes the sum of
  its k gradients (Downpour's n_push = n_fetch = k). On a sparse problem, where each
  gradient touches a few coordinates, this is Hogwild (Niu et al., 2011): shared memory,
  componentwise adds, no locks. ``conflicts`` reports, per update, the fraction of the
  coordinates it writes that another update wrote since they were read.
- ``lr_rule="staleness"``: Zhang et al. (2016) divide the learning rate by the staleness,
  ``lr / max(1, tau)``.

>>> from tutorial.parallel.least_squares import least_squares
>>> p = least_squares([[1.0]], [0.0], w0=[1.0])          # f(w) = w**2 / 2, gradient w
>>> t = simulate(p, durations=[1, 2], lr=0.5, updates=4)
>>> t.time.tolist(), t.worker.tolist(), t.staleness.tolist()
([1.0, 2.0, 2.0, 3.0], [0, 0, 1, 0], [0, 0, 2, 1])
>>> t.weights[:, 0].tolist()
[0.5, 0.25, -0.25, -0.375]
"""

import dataclasses
import heapq

import numpy as np

from tutorial.parallel.least_squares import Problem
from tutorial.validate import check_count, check_range

MODES, LR_RULES = ("sync", "async"), ("constant", "staleness")


def staleness_aware_lr(lr, staleness):
    """Zhang et al.: a gradient ``staleness`` updates old gets ``lr / staleness`` (fresh: lr).

    >>> staleness_aware_lr(0.1, 0), staleness_aware_lr(0.1, 1), staleness_aware_lr(0.1, 10)
    (0.1, 0.1, 0.01)
    """
    return lr / max(1, staleness)


def batch_rows(n, batch_size, seed):
    """Endless minibatches of row indices: each epoch a fresh permutation of n rows."""
    n = check_count("n", n, what="rows to draw from")
    batch_size = check_count("batch_size", batch_size, what=f"at most n={n}")
    if batch_size > n:
        raise ValueError(f"batch_size={batch_size} is larger than the {n} rows: "
                         f"use a batch_size from 1 to {n}")
    return _epochs(n, batch_size, seed)


def _epochs(n, batch_size, seed):
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(n)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]


@dataclasses.dataclass(frozen=True)
class Trace:
    """One row per server update (numpy arrays of equal length)."""
    mode: str
    time: np.ndarray        # simulated time at which the update was applied
    worker: np.ndarray      # who pushed it (-1: a synchronous round of all workers)
    staleness: np.ndarray   # updates applied by others between its pull and its push
    lr: np.ndarray          # learning rate it was applied with
    loss: np.ndarray        # full-data loss after the update
    conflicts: np.ndarray   # fraction of the coordinates it wrote that changed since read
    weights: np.ndarray     # (updates, d) weights after each update
    gradients: int          # minibatch gradients computed in all (work done)
    diverged: bool          # stopped early: the loss blew up

    def time_to_loss(self, target):
        """Simulated time of the first update reaching ``loss <= target`` (inf: never)."""
        hit = np.flatnonzero(self.loss <= target)
        return float(self.time[hit[0]]) if len(hit) else float("inf")


def _check(problem, durations, lr, updates, mode, lr_rule, batch_size, local_steps):
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if lr_rule not in LR_RULES:
        raise ValueError(f"lr_rule must be one of {LR_RULES}, got {lr_rule!r}")
    if not isinstance(problem, Problem):
        raise TypeError(f"problem must be a Problem, e.g. least_squares(X, y); got "
                        f"{type(problem).__name__}")
    if isinstance(durations, str) or not np.iterable(durations) or len(durations) < 1:
        raise ValueError(f"durations: one positive compute time per worker, got {durations!r}")
    for k, d in enumerate(durations):
        check_range(f"durations[{k}]", d, 0.0, low_open=True)
    for name, value in (("updates", updates), ("batch_size", batch_size),
                        ("local_steps", local_steps)):
        check_count(name, value)
    if batch_size > len(problem.y):
        raise ValueError(f"batch_size={batch_size} is larger than the problem's "
                         f"{len(problem.y)} rows: use a batch_size from 1 to {len(problem.y)}")
    check_range("lr", lr, 0.0, low_open=True)


def simulate(problem, durations, lr, updates, mode="async", lr_rule="constant", batch_size=1,
             jitter=0.0, comm_time=0.0, local_steps=1, seed=0, blowup=1e4):
    """Run ``updates`` server updates; return a :class:`Trace`.

    ``durations[k]``: worker k's time per gradient; each is multiplied by a seeded
    lognormal factor ``exp(jitter * N(0, 1))`` (``jitter=0``: exactly). ``comm_time``: the
    push and pull of one update (per round in sync mode). Minibatches are drawn in the
    order computations start (in sync mode: worker 0 to W-1 within a round). A run that
    drives a weight above ``blowup`` in absolute value stops early (``diverged``).
    """
    _check(problem, durations, lr, updates, mode, lr_rule, batch_size, local_steps)
    for name, value in (("jitter", jitter), ("comm_time", comm_time)):
        check_range(name, value, 0.0)
    check_range("blowup", blowup, 0.0, low_open=True)
    run = _Run(problem, _compute_times(durations, jitter, seed),
               batch_rows(len(problem.y), batch_size, seed), lr, len(durations), comm_time)
    log = _Log(blowup)
    if mode == "sync":
        _synchronous(run, log, updates)
    else:
        _asynchronous(run, log, updates, lr_rule, local_steps)
    return log.trace(mode, problem, run.gradients)


def _compute_times(durations, jitter, seed):
    """cost(k): worker k's time for one gradient, with its seeded lognormal jitter."""
    timing = np.random.default_rng([seed, 1])

    def cost(k):
        return durations[k] * float(np.exp(jitter * timing.standard_normal()))
    return cost


@dataclasses.dataclass
class _Run:
    """What every update reads: the problem, the clock, the minibatches; and the work done."""
    problem: Problem
    cost: object            # cost(k) -> seconds for one gradient of worker k
    batches: object         # an endless iterator of row-index minibatches
    lr: float
    workers: int
    comm_time: float
    gradients: int = 0      # minibatch gradients computed so far

    def gradient(self, w):
        self.gradients += 1
        return self.problem.grad(w, next(self.batches))


class _Log:
    """The trace's rows, one per server update; ``add`` says when a weight blew up."""

    def __init__(self, blowup):
        self.blowup, self.diverged = blowup, False
        self.rows = {"time": [], "worker": [], "staleness": [], "lr": [], "conflicts": [],
                     "weights": []}

    def add(self, t, k, tau, rate, conflict, w):
        for key, value in zip(self.rows, (t, k, tau, rate, conflict, w.copy())):
            self.rows[key].append(value)
        self.diverged = not np.all(np.abs(w) <= self.blowup)   # also catches inf and nan
        return self.diverged

    def trace(self, mode, problem, gradients):
        arrays = {key: np.array(value) for key, value in self.rows.items()}
        arrays["weights"] = arrays["weights"].reshape(-1, len(problem.w0))
        with np.errstate(over="ignore", invalid="ignore"):
            loss = problem.losses(arrays["weights"])
        return Trace(mode, loss=loss, gradients=gradients, diverged=self.diverged, **arrays)


def _synchronous(run, log, updates):
    """Rounds: every worker computes on the same w, the server applies their mean."""
    w, t = run.problem.w0.copy(), 0.0
    for _ in range(updates):
        spent = [run.cost(k) for k in range(run.workers)]
        grads = [run.gradient(w) for _ in range(run.workers)]
        w = w - run.lr * np.mean(grads, axis=0)
        t += max(spent) + run.comm_time
        if log.add(t, -1, 0, run.lr, 0.0, w):
            return


def _asynchronous(run, log, updates, lr_rule, local_steps):
    """An event queue of pushes: the earliest is applied at once, its worker pulls again."""
    w = run.problem.w0.copy()
    version, last_write = 0, np.full(len(w), -1)
    pending, queue = {}, []

    def start(k, t):          # worker k pulls w and computes local_steps gradients
        local, total, touched, spent = w.copy(), np.zeros(len(w)), [], 0.0
        for _ in range(local_steps):
            picked = next(run.batches)
            g = run.problem.grad(local, picked)
            local -= run.lr * g
            total += g
            touched.append(run.problem.support(picked))
            spent += run.cost(k)
        run.gradients += local_steps
        pending[k] = (version, total, np.unique(np.concatenate(touched)))
        heapq.heappush(queue, (t + spent + run.comm_time, k))

    for k in range(run.workers):
        start(k, 0.0)
    for _ in range(updates):
        t, k = heapq.heappop(queue)
        read, g, support = pending.pop(k)
        tau = version - read
        rate = staleness_aware_lr(run.lr, tau) if lr_rule == "staleness" else run.lr
        w = w - rate * g
        conflict = float(np.mean(last_write[support] >= read)) if len(support) else 0.0
        last_write[support] = version
        version += 1
        if log.add(t, k, tau, rate, conflict, w):
            return
        start(k, t)
