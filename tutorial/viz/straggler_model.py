"""Sync against async SGD under one straggler, for every slowdown a slider offers: computed once.

For each slowdown ``s`` of :data:`SLOWDOWNS`, eight workers (the last one ``s`` times
slower) train notebook 09's least-squares problem twice with
:func:`tutorial.parallel.async_sgd.simulate`: **synchronously** (each round waits for
the straggler; the server averages the eight gradients and steps with eight times the
rate, the linear scaling of notebook 08) and **asynchronously** (each gradient applied
the moment it arrives). Compute times are exact (``jitter=0``), so the schedules drawn
from the traces are the simulation's own:

- async: worker k computes from its previous push to its next (the trace's times);
- sync: every worker starts a round together, computes for its duration, then waits for
  the round to end.

>>> model = build_straggler_model(slowdowns=(1, 4), updates=80)
>>> case = model.cases[4]
>>> case.durations
(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0)
>>> [round(float(t), 1) for t in case.sync.time[:3]]          # a round lasts as long as the straggler
[4.0, 8.0, 12.0]
>>> round(idle_share(case), 4)                          # 1 - (7 + 4) / (8 * 4)
0.6562
"""

import dataclasses
from typing import Dict, Tuple

import numpy as np

from tutorial.parallel.async_sgd import Trace, simulate
from tutorial.parallel.least_squares import least_squares
from tutorial.validate import check_count, check_range

SLOWDOWNS = (1, 1.5, 2, 3, 4, 6, 8)     # the slider's values: the straggler's time per gradient
WORKERS = 8
LR_ASYNC = 0.025                        # notebook 09's rate; sync steps with WORKERS times it
TARGET = 0.01                           # loss target: twice the noise floor of the problem
BATCH = 16


@dataclasses.dataclass(frozen=True)
class Straggling:
    slowdown: float
    durations: Tuple[float, ...]       # time per gradient of each worker; the last is slow
    sync: Trace
    asyn: Trace


@dataclasses.dataclass(frozen=True)
class StragglerModel:
    cases: Dict[float, Straggling]     # slowdown -> both runs
    target: float
    calls: int                         # simulations it took to build (tests count them)


def regression_problem(seed=0):
    """Notebook 09's problem: 1,000 samples, 20 features, noise 0.1 (loss floor ~0.005)."""
    from tutorial.data import synthetic_regression

    X, y, _, _ = synthetic_regression(1000, w=np.linspace(-2, 2, 20), b=0.0, noise=0.1,
                                      seed=seed)
    return least_squares(X, y)


def build_straggler_model(slowdowns=SLOWDOWNS, workers=WORKERS, updates=1200, target=TARGET,
                          problem=None, run=simulate):
    """Both runs for every slowdown; ``updates`` async updates, ``updates // workers``
    sync rounds (the same number of gradients). ``run`` is ``simulate`` (tests count it)."""
    workers = check_count("workers", workers, low=2, what="one of them straggles")
    updates = check_count("updates", updates, low=workers, what=f"at least workers={workers}")
    check_range("target", target, 0.0, low_open=True)
    if not slowdowns:
        raise ValueError("slowdowns must offer at least one value, e.g. (1, 2, 4)")
    for i, s in enumerate(slowdowns):
        check_range(f"slowdowns[{i}]", s, 1.0)
    problem = regression_problem() if problem is None else problem
    cases, calls = {}, 0
    for s in slowdowns:
        durations = tuple([1.0] * (workers - 1) + [float(s)])
        common = dict(durations=durations, batch_size=BATCH, seed=0)
        sync = run(problem, lr=LR_ASYNC * workers, updates=updates // workers, mode="sync",
                   **common)
        asyn = run(problem, lr=LR_ASYNC, updates=updates, **common)
        cases[s] = Straggling(s, durations, sync, asyn)
        calls += 2
    return StragglerModel(cases, target, calls)


def idle_share(case):
    """The share of the workers' time a synchronous round spends waiting for the slowest."""
    d = np.asarray(case.durations)
    return float(1.0 - d.sum() / (len(d) * d.max()))


def sync_bars(case, horizon):
    """``(worker, start, end, waiting)`` of every synchronous round that starts before
    ``horizon``: each worker computes for its duration, then waits for the round's end."""
    bars, start = [], 0.0
    for end in case.sync.time:
        if start >= horizon:
            break
        for k, d in enumerate(case.durations):
            bars.append((k, start, start + d, False))
            if start + d < end:
                bars.append((k, start + d, float(end), True))
        start = float(end)
    return bars


def async_bars(case, horizon):
    """``(worker, start, end, staleness)`` of every asynchronous gradient started before
    ``horizon``: worker k computes from its previous push (or 0) to its next."""
    bars, last = [], {}
    for t, k, tau in zip(case.asyn.time, case.asyn.worker, case.asyn.staleness):
        start = last.get(int(k), 0.0)
        if start < horizon:
            bars.append((int(k), start, float(t), int(tau)))
        last[int(k)] = float(t)
    return bars


@dataclasses.dataclass(frozen=True)
class Summary:
    slowdown: float
    sync_time: float            # simulated time to loss <= target (inf: never)
    async_time: float
    idle: float                 # share of worker time sync spends waiting
    straggler_staleness: float  # mean staleness of the straggler's async gradients
    others_staleness: float     # mean staleness of everyone else's

    @property
    def speedup(self):
        return self.sync_time / self.async_time


def summarize(model, slowdown):
    """The numbers a slide states for one slowdown, from the stored traces."""
    case = model.cases[slowdown]
    slow = case.asyn.worker == len(case.durations) - 1
    return Summary(slowdown, case.sync.time_to_loss(model.target),
                   case.asyn.time_to_loss(model.target), idle_share(case),
                   float(case.asyn.staleness[slow].mean()),
                   float(case.asyn.staleness[~slow].mean()))
