"""Schedules on a clock: p independent devices running tasks of given durations.

:func:`replay` lays a schedule's tasks out in seconds: each stage runs its tasks in the
schedule's order, each as soon as its stage is free and its inputs have arrived (plus
``link`` seconds for a message between devices). With every F taking t_f and every B
t_b on every stage, GPipe and 1F1B take (m + p - 1)(t_f + t_b) and their bubble is
(p - 1) / (m + p - 1) whatever t_f and t_b are; the tests check that.

The speed-up of p devices over one (one device runs the m micro-batches' F and B back
to back):

=====================  ==========================================================
synchronous pipeline    p m / (m + p - 1): the bubble is paid once per step
asynchronous pipeline   p / (imbalance x (1 + comm)): no flush, so no bubble; the
                        slowest stage sets the pace (imbalance = slowest / mean stage)
                        and each stage also sends (comm = transfer / compute time)
=====================  ==========================================================

>>> from tutorial.parallel.pipeline.schedules import schedule
>>> plan = schedule("gpipe", 3, 4)
>>> span(replay(plan, lambda task: 1.0 if task.kind == "F" else 2.0))   # (4 + 2) x 3
18.0
>>> round(speedup_sync(4, 14), 2), speedup_async(4)
(3.29, 4.0)
"""

import numpy as np

from tutorial.parallel.pipeline.schedules import dependencies
from tutorial.validate import check_count, check_range


def replay(plan, duration, link=0.0):
    """{task: (start, end)} when each task takes ``duration(task)`` seconds on its own device."""
    check_range("link", link, 0.0)
    finished, free, times = {}, [0.0] * plan.stages, {}
    queues = [plan.order(s) for s in range(plan.stages)]
    position = [0] * plan.stages
    while len(times) < len(plan.tasks):
        before = len(times)
        for s in range(plan.stages):
            while position[s] < len(queues[s]):
                task = queues[s][position[s]]
                needs = dependencies(s, task.microbatch, task.kind, plan.stages)
                if not all(n in finished for n in needs):
                    break
                start = max([free[s]] + [finished[n] + (link if n[0] != s else 0.0)
                                         for n in needs])
                end = start + float(duration(task))
                times[task] = (start, end)
                finished[s, task.microbatch, task.kind] = free[s] = end
                position[s] += 1
        if len(times) == before:
            raise ValueError(f"the stages of {plan.name!r} wait on each other forever")
    return times


def _durations(runs, pick):
    took = {}
    for t in (t for r in runs for t in r.timings):
        took.setdefault((t.task.stage, t.task.kind), []).append(t.end - t.start)
    return {key: float(pick(values)) for key, values in took.items()}


def median_durations(result, *more):
    """{(stage, kind): median seconds} of the tasks of one or more measured runs: a duration
    table that :func:`replay` can use for any schedule on the same stages
    (``table[t.stage, t.kind]``)."""
    return _durations((result, *more), np.median)


def shortest_durations(result, *more):
    """{(stage, kind): shortest seconds} of the tasks of one or more measured runs, the time
    a task takes when nothing else competes for the core: noise on a shared machine only
    ever adds time, so the shortest of many runs is the estimate it moves least. A table
    for :func:`replay`, like :func:`median_durations`."""
    return _durations((result, *more), min)


def span(times):
    """Seconds from the first start to the last end."""
    return max(end for _, end in times.values()) - min(start for start, _ in times.values())


def replay_bubble(plan, times):
    """Idle share of the p stages over the replayed span."""
    busy = sum(end - start for start, end in times.values())
    return 1 - busy / (plan.stages * span(times))


def speedup_sync(stages, microbatches):
    """p m / (m + p - 1): a synchronous pipeline (GPipe or 1F1B) over one device."""
    p = check_count("stages", stages)
    m = check_count("microbatches", microbatches)
    return p * m / (m + p - 1)


def speedup_async(stages, imbalance=1.0, comm=0.0):
    """p / (imbalance (1 + comm)): an asynchronous pipeline in its steady state."""
    p = check_count("stages", stages)
    imbalance = check_range("imbalance", imbalance, 1.0)
    comm = check_range("comm", comm, 0.0)
    return p / (imbalance * (1 + comm))


def microbatches_for(stages, speedup):
    """The m at which a synchronous pipeline of p stages reaches ``speedup`` (< p)."""
    p = check_count("stages", stages)
    s = check_range("speedup", speedup, 0.0, p, low_open=True, high_open=True)
    return s * (p - 1) / (p - s)
