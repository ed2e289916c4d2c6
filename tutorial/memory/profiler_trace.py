"""MXNet's profiler timeline, read back: which operator ran on which thread, and when.

``mx.profiler`` writes a Chrome trace (JSON; open it in chrome://tracing or
https://ui.perfetto.dev). Every engine operator is a pair of events ``B`` (begin) and
``E`` (end) with a ``pid`` (the device the profiler files it under), a ``tid`` (the
thread that ran it) and ``ts`` in microseconds. :func:`parse` turns them into
:class:`Event` rows (milliseconds from the first step) and gives each thread a *lane*:
``"Python thread"`` for the thread that issued the work (the one that stamped the
``python`` domain's tasks, see :mod:`tutorial.memory.engine_timeline`), and
``"engine thread N (device)"`` for each of the engine's worker threads.

:func:`classify` sorts operators by name into what a training step does:

- ``communication``: the kvstore's copies between devices (``CopyCPU2CPU``,
  ``CopyGPU2GPU``, ...) and its sums (``ElementwiseSum``); in a net whose backward adds no
  gradients (no layer used twice, as the course's MLP) every ``ElementwiseSum`` is the
  kvstore's reduction;
- ``update``: the optimizer's operator (``sgd_update``, ``multi_sgd_update``, ...);
- ``backward``: ``_backward_*`` operators, and ``ImperativeBulk``: MXNet 1.x bundles up
  to ``MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD`` (15) backward operators of one device
  into one engine operation of that name (``MXNET_EXEC_BULK_EXEC_TRAIN=0`` turns it off);
- ``other``: the engine's bookkeeping (``DeleteVariable``, ``WaitForVar``, ...) and
  ``SetValueOp`` (filling an array with a constant: the ones that start the backward);
- ``forward``: every other operator.

:func:`steps` measures each step on the timeline (all in ms): how long some operator
of each kind ran (``busy``: the union over the lanes), their summed length (``work``),
how long some operator ran at all (``active``), how much communication lies inside the
*backward's span* (from its first operator's start to its last one's end) and how much
ran *beside compute* (at the same instant as a forward or backward operator, on another
thread).

>>> op = lambda ph, name, pid, ts: {"ph": ph, "cat": "operator", "name": name, "pid": pid,
...                                  "tid": 8 + pid, "ts": ts}
>>> trace = {"traceEvents": [
...     {"ph": "b", "cat": "python", "name": "step 0", "id": 1, "tid": 7, "ts": 1000},
...     op("B", "_backward_dot", 0, 1000), op("E", "_backward_dot", 0, 3000),
...     op("B", "CopyCPU2CPU", 1, 2500), op("E", "CopyCPU2CPU", 1, 4000),
...     {"ph": "e", "cat": "python", "name": "step 0", "id": 1, "tid": 7, "ts": 5000}]}
>>> t = parse(trace, devices={0: "cpu(0)", 1: "cpu(1)"})
>>> [(e.kind, e.lane, e.start, e.end) for e in t.events]    # doctest: +NORMALIZE_WHITESPACE
[('backward', 'engine thread 1 (cpu(0))', 0.0, 2.0),
 ('communication', 'engine thread 2 (cpu(1))', 1.5, 3.0)]
>>> s = steps(t)[0]
>>> s.busy["communication"], s.comm_in_backward, s.comm_beside_compute, s.most_at_once
(1.5, 0.5, 0.5, 2)
"""

import json
import os
import re
from typing import NamedTuple

KINDS = ("forward", "backward", "communication", "update", "other")
PYTHON_DOMAIN = "python"          # the profiler domain of the Python thread's tasks
PYTHON_LANE = "Python thread"
BOOKKEEPING = {"DeleteVariable", "WaitForVar", "WaitForAll", "SetValueOp"}


class Event(NamedTuple):
    name: str       # the operator's (or the Python task's) name
    kind: str       # one of KINDS, or "python" for a task of the Python thread
    lane: str       # the thread that ran it
    device: str     # the device the profiler filed it under ("" for Python tasks)
    start: float    # ms from the start of the first step
    end: float


class Trace(NamedTuple):
    events: tuple   # the operators, by start
    lanes: tuple    # lane names: the Python thread first, then the engine threads
    steps: tuple    # (start, end) of each "step N" task of the Python thread, in ms
    issued: tuple   # the Python thread's other tasks (e.g. "backward() issued"), as Events
    threads: tuple = ()   # (tid, lane) for each thread of the trace


class StepTimeline(NamedTuple):
    step: int
    start: float                # ms, the step's task on the trace's clock
    end: float
    busy: dict                  # kind -> ms during which some operator of that kind ran
    work: dict                  # kind -> ms summed over the operators (thread-ms)
    active: float               # ms during which some operator (bookkeeping left out) ran
    backward: tuple             # (first backward start, last backward end), () if none
    comm_in_backward: float     # ms of communication inside the backward's span
    comm_beside_compute: float  # ms of communication at the same instant as forward/backward
    most_at_once: int           # the most operators (bookkeeping left out) running at once
    lanes: tuple                # the lanes that ran forward, backward, communication or update


def classify(name):
    """The kind of an MXNet operator, from its name (see the module's docstring).

    >>> [classify(n) for n in ("FullyConnected", "_backward_Activation", "CopyCPU2CPU",
    ...                        "ElementwiseSum", "multi_sgd_update", "DeleteVariable")]
    ['forward', 'backward', 'communication', 'communication', 'update', 'other']
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be an operator's name such as 'FullyConnected', "
                         f"got {name!r}")
    if name in BOOKKEEPING:
        return "other"
    if re.fullmatch(r"Copy[A-Z]+2[A-Z]+|ElementwiseSum|_copyto|_CrossDeviceCopy|KVStore\w*",
                    name):
        return "communication"
    if "_update" in name:
        return "update"
    if name.startswith("_backward_") or name == "ImperativeBulk":
        return "backward"
    return "forward"


def _device(name):
    """'cpu/0' -> 'cpu(0)'; other process names as they are."""
    found = re.fullmatch(r"(cpu|gpu)/(\d+)", name)
    return f"{found[1]}({found[2]})" if found else name


def _load(trace):
    if isinstance(trace, (str, os.PathLike)):
        try:
            with open(trace) as f:
                trace = json.load(f)
        except (OSError, ValueError) as error:
            raise ValueError(f"trace={str(trace)!r} is not a readable Chrome trace (JSON): "
                             f"{error}") from None
    events = trace.get("traceEvents") if isinstance(trace, dict) else trace
    if not isinstance(events, list):
        raise ValueError("trace must be a Chrome trace: a dict with a 'traceEvents' list "
                         "(what mx.profiler.dump() writes), that list, or a path to the file")
    return events


def parse(trace, devices=None):
    """A :class:`Trace` from a Chrome trace (dict, list of events, or a path).

    ``devices`` = {pid: name} names the profiler's processes; without it the trace's own
    names are used ("cpu/0" becomes "cpu(0)"). MXNet 1.9 files CPU context i under
    process i and has one per core plus two ("cpu pinned/", "cpu shared/"), so on a
    2-core machine cpu(2) and cpu(3) show under those two names: pass ``devices``.
    """
    raw = _load(trace)
    names = {e.get("pid"): _device(e["args"]["name"]) for e in raw
             if e.get("ph") == "M" and e.get("name") == "process_name" and "args" in e}
    names.update(devices or {})
    open_ops, ops, open_tasks, tasks = {}, [], {}, []
    for e in raw:
        ph, cat = e.get("ph"), e.get("cat")
        if cat == "operator" and ph in ("B", "E", "X"):
            key = (e.get("pid"), e.get("tid"))
            if ph == "X":
                ops.append((e["name"], key, e["ts"], e["ts"] + e.get("dur", 0)))
            elif ph == "B":
                open_ops.setdefault(key, []).append(e)
            elif open_ops.get(key):
                begin = open_ops[key].pop()
                ops.append((begin["name"], key, begin["ts"], e["ts"]))
        elif cat == PYTHON_DOMAIN and ph in ("b", "e"):
            key = (e.get("id"), e.get("name"))
            if ph == "b":
                open_tasks[key] = e
            elif key in open_tasks:
                begin = open_tasks.pop(key)
                tasks.append((begin["name"], begin.get("tid"), begin["ts"], e["ts"]))
    if not ops:
        raise ValueError("the trace has no operator events (ph 'B'/'E' with cat 'operator'): "
                         "profile with mx.profiler.set_config(profile_imperative=True, ...) "
                         "and run some operators between set_state('run') and 'stop'")
    origin = min([t[2] for t in tasks if t[0].startswith("step ")] or [o[2] for o in ops])
    python_tids = {t[1] for t in tasks}
    first, served, filed = {}, {}, {}
    for name, (pid, tid), start, _ in sorted(ops, key=lambda o: o[2]):
        first.setdefault(tid, start)
        filed.setdefault(tid, []).append(pid)
        if classify(name) != "other":
            served.setdefault(tid, []).append(pid)
    lane, workers = {tid: PYTHON_LANE for tid in python_tids}, 0
    for tid in sorted(first, key=first.get):
        if tid not in lane:
            workers += 1
            pids = served.get(tid) or filed[tid]
            pid = max(set(pids), key=pids.count)
            lane[tid] = f"engine thread {workers} ({names.get(pid, pid)})"
    ms = lambda ts: (ts - origin) / 1e3  # noqa: E731
    events = sorted((Event(name, classify(name), lane[tid], names.get(pid, str(pid)),
                           ms(start), ms(end)) for name, (pid, tid), start, end in ops),
                    key=lambda e: (e.start, e.end))
    step_tasks = sorted((t for t in tasks if re.fullmatch(r"step \d+", t[0])),
                        key=lambda t: int(t[0].split()[1]))
    issued = tuple(sorted((Event(n, "python", PYTHON_LANE, "", ms(a), ms(b))
                           for n, _, a, b in tasks if not re.fullmatch(r"step \d+", n)),
                          key=lambda e: e.start))
    lanes = ([PYTHON_LANE] if python_tids or PYTHON_LANE in lane.values() else []) + \
        sorted({v for v in lane.values() if v != PYTHON_LANE},
               key=lambda v: int(v.split()[2]))
    return Trace(tuple(events), tuple(lanes),
                 tuple((ms(a), ms(b)) for _, _, a, b in step_tasks), issued,
                 tuple(sorted(lane.items(), key=lambda item: str(item[0]))))


def union(intervals):
    """The intervals merged: a sorted list of disjoint (start, end)."""
    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def length(intervals):
    """Total time covered by the intervals (overlaps counted once).

    >>> length([(0, 2), (1, 3), (5, 6)])
    4
    """
    return sum(b - a for a, b in union(intervals))


def common(first, second):
    """Time covered by both sets of intervals at once.

    >>> common([(0, 4)], [(1, 2), (3, 6)])
    2
    """
    a, b = union(first), union(second)
    return sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)


def most_at_once(intervals):
    """The largest number of intervals open at the same instant (touching ends do not
    count: one operator ending as the next begins is one at a time).

    >>> most_at_once([(0, 1), (1, 2)]), most_at_once([(0, 2), (1, 3), (1.5, 4)])
    (1, 3)
    """
    edges = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    most = running = 0
    for _, change in edges:                     # at a tie the end (-1) sorts first
        running += change
        most = max(most, running)
    return most


def steps(trace):
    """One :class:`StepTimeline` per step task of the trace (the whole trace when it
    has none), from the operators that started inside it."""
    spans = trace.steps or ((min(e.start for e in trace.events),
                             max(e.end for e in trace.events)),)
    out = []
    for i, (start, end) in enumerate(spans):
        ops = [e for e in trace.events if start <= e.start <= end]
        of = {k: [(e.start, e.end) for e in ops if e.kind == k] for k in KINDS}
        back = of["backward"]
        span = (min(a for a, _ in back), max(b for _, b in back)) if back else ()
        out.append(StepTimeline(
            i, start, end, {k: length(v) for k, v in of.items()},
            {k: sum(b - a for a, b in v) for k, v in of.items()},
            length([(e.start, e.end) for e in ops if e.kind != "other"]), span,
            common(of["communication"], [span]) if span else 0.0,
            common(of["communication"], of["forward"] + of["backward"]),
            most_at_once([(e.start, e.end) for e in ops if e.kind != "other"]),
            tuple(sorted({e.lane for e in ops if e.kind != "other"}))))
    return out
