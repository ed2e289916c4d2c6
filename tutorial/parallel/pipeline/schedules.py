"""A pipeline's schedule as data: which stage runs which micro-batch's F or B, at each tick.

A network is cut into p **stages**, one per device; a batch is cut into m **micro-batches**.
Stage s can run the forward ``F`` of micro-batch i once stage s - 1 has finished it (its
activations arrive), and the backward ``B`` of i once it ran ``F`` of i itself and stage
s + 1 has finished ``B`` of i (the gradient arrives). Every task takes one tick here; the
executor (:mod:`~tutorial.parallel.pipeline.executor`) measures what they really take.

Each schedule is a pure function ``(stages, microbatches) -> Schedule``. It fixes the
order in which every stage runs its tasks, and each task starts at the first tick at
which its stage is free and its inputs are there:

- ``naive``   no pipelining: micro-batch i runs forward and backward through all stages
              before micro-batch i + 1 starts (gradient accumulation on one device at a time);
- ``gpipe``   all m forwards, then all m backwards (Huang et al., 2019): the gradients
              are accumulated and the weights updated once, synchronously;
- ``1f1b``    one forward, one backward (PipeDream-Flush, Narayanan et al., 2021): stage s
              runs p - s - 1 forwards to fill the pipe, then alternates F and B.

The tests, the executor, the Gantt chart and the animation all read these tasks.

>>> plan = schedule("gpipe", stages=2, microbatches=2)
>>> [(t.tick, t.stage, t.microbatch, t.kind) for t in plan.tasks][:4]
[(0, 0, 0, 'F'), (1, 0, 1, 'F'), (1, 1, 0, 'F'), (2, 1, 1, 'F')]
>>> plan.ticks, bubble(plan), bubble_formula(2, 2)
(6, 0.3333333333333333, 0.3333333333333333)
>>> print(grid(schedule("1f1b", 3, 4)))
stage 0: F0 F1 F2 .  .  B0 F3 B1 .  B2 .  B3
stage 1: .  F0 F1 .  B0 F2 B1 F3 B2 .  B3 .
stage 2: .  .  F0 B0 F1 B1 F2 B2 F3 B3 .  .
"""

import dataclasses
from typing import Tuple

from tutorial.validate import check_count

KINDS = ("F", "B")          # forward, backward


@dataclasses.dataclass(frozen=True, order=True)
class Task:
    """One unit of work: at ``tick``, ``stage`` runs ``kind`` ('F' or 'B') of ``microbatch``."""
    tick: int
    stage: int
    microbatch: int
    kind: str


@dataclasses.dataclass(frozen=True)
class Schedule:
    """Every task of one training step, sorted by (tick, stage)."""
    name: str
    stages: int              # p
    microbatches: int        # m
    tasks: Tuple[Task, ...]

    @property
    def ticks(self):
        """Ticks from the first task's start to the last one's end."""
        return 1 + max(t.tick for t in self.tasks)

    def order(self, stage):
        """The tasks of ``stage`` in the order it runs them."""
        return [t for t in self.tasks if t.stage == stage]


def dependencies(stage, microbatch, kind, stages):
    """The (stage, micro-batch, kind) tasks that must finish before this one can start."""
    if kind == "F":
        return [(stage - 1, microbatch, "F")] if stage > 0 else []
    needs = [(stage, microbatch, "F")]
    if stage < stages - 1:
        needs.append((stage + 1, microbatch, "B"))
    return needs


def place(name, stages, orders):
    """A :class:`Schedule` in which each stage runs ``orders[s]`` ((micro-batch, kind) pairs)
    in that order, each task at the first tick its stage and its inputs are ready."""
    finished, free, position, tasks = {}, [0] * stages, [0] * stages, []
    while len(tasks) < sum(map(len, orders)):
        placed = 0
        for s in range(stages):
            if position[s] == len(orders[s]):
                continue
            i, kind = orders[s][position[s]]
            needs = dependencies(s, i, kind, stages)
            if all(n in finished for n in needs):
                tick = max([free[s]] + [finished[n] for n in needs])
                tasks.append(Task(tick, s, i, kind))
                finished[s, i, kind] = free[s] = tick + 1
                position[s] += 1
                placed += 1
        if not placed:
            raise ValueError(f"the task orders of {name!r} wait on each other forever")
    return Schedule(name, stages, len(orders[0]) // 2, tuple(sorted(tasks)))


def naive(stages, microbatches):
    """No pipelining: F then B of each micro-batch through all stages, one at a time."""
    return place("naive", stages, [[(i, k) for i in range(microbatches) for k in KINDS]
                                   for _ in range(stages)])


def gpipe(stages, microbatches):
    """GPipe: all forwards, then all backwards (last micro-batch first)."""
    order = [(i, "F") for i in range(microbatches)] + \
            [(i, "B") for i in reversed(range(microbatches))]
    return place("gpipe", stages, [order] * stages)


def one_f_one_b(stages, microbatches):
    """1F1B: stage s fills the pipe with p - s - 1 forwards, then alternates F and B."""
    orders = []
    for s in range(stages):
        warm = min(stages - s - 1, microbatches)
        order = [(i, "F") for i in range(warm)]
        for i in range(microbatches - warm):
            order += [(warm + i, "F"), (i, "B")]
        orders.append(order + [(i, "B") for i in range(microbatches - warm, microbatches)])
    return place("1f1b", stages, orders)


SCHEDULES = {"naive": naive, "gpipe": gpipe, "1f1b": one_f_one_b}


def schedule(name, stages, microbatches):
    """The schedule ``name`` ('naive', 'gpipe' or '1f1b') for p stages and m micro-batches."""
    if name not in SCHEDULES:
        raise ValueError(f"unknown schedule {name!r}: choose one of "
                         f"{', '.join(map(repr, SCHEDULES))}")
    stages = check_count("stages", stages, what="devices the network is cut over")
    microbatches = check_count("microbatches", microbatches, what="parts of the batch")
    return SCHEDULES[name](stages, microbatches)


def problems(plan):
    """What is wrong with a schedule ([] when every task runs once, in a valid order)."""
    found, seen, when = [], set(), {}
    for t in plan.tasks:
        key = (t.stage, t.microbatch, t.kind)
        if key in when:
            found.append(f"stage {t.stage} runs {t.kind} of micro-batch {t.microbatch} twice")
        when[key] = t.tick
        if (t.tick, t.stage) in seen:
            found.append(f"stage {t.stage} runs two tasks at tick {t.tick}")
        seen.add((t.tick, t.stage))
    for s in range(plan.stages):
        for i in range(plan.microbatches):
            for kind in KINDS:
                if (s, i, kind) not in when:
                    found.append(f"{kind} of micro-batch {i} never runs on stage {s}")
    for (s, i, kind), tick in sorted(when.items(), key=lambda item: item[1]):
        for need in dependencies(s, i, kind, plan.stages):
            if need in when and when[need] >= tick:
                found.append(f"stage {s} runs {kind} of micro-batch {i} at tick {tick}, but "
                             f"{need[2]} of micro-batch {i} on stage {need[0]} only ends at "
                             f"tick {when[need] + 1}")
    return found


def busy(plan):
    """(stages,) number of ticks each stage works."""
    counts = [0] * plan.stages
    for t in plan.tasks:
        counts[t.stage] += 1
    return counts


def bubble(plan):
    """Share of the stages' ticks spent idle: (p x ticks - busy) / (p x ticks)."""
    total = plan.stages * plan.ticks
    return (total - sum(busy(plan))) / total


def bubble_formula(stages, microbatches):
    """(p - 1) / (m + p - 1): the bubble of GPipe and 1F1B when F and B take equal time."""
    return (stages - 1) / (microbatches + stages - 1)


def held(plan):
    """(ticks, stages) list of lists: micro-batches whose activations a stage holds at each
    tick (its F has started, its B has not yet finished)."""
    start = {(t.stage, t.microbatch, t.kind): t.tick for t in plan.tasks}
    table = [[0] * plan.stages for _ in range(plan.ticks)]
    for (s, i, kind), tick in start.items():
        if kind == "F":
            for k in range(tick, start.get((s, i, "B"), plan.ticks - 1) + 1):
                table[k][s] += 1
    return table


def peak_held(plan):
    """(stages,) the most micro-batches of activations each stage holds at once."""
    return [max(row[s] for row in held(plan)) for s in range(plan.stages)]


def grid(plan):
    """The schedule as text: one row per stage, one column per tick ('.' = idle)."""
    width = len(str(plan.microbatches - 1)) + 2
    cells = [[".".ljust(width)] * plan.ticks for _ in range(plan.stages)]
    for t in plan.tasks:
        cells[t.stage][t.tick] = f"{t.kind}{t.microbatch}".ljust(width)
    return "\n".join(f"stage {s}: " + "".join(row).rstrip() for s, row in enumerate(cells))
