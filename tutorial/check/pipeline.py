"""Exercise checker for the model-parallel notebook: the GPipe schedule, written as data.

The learner writes ``gpipe_schedule(stages, microbatches)`` returning a list of
``(tick, stage, microbatch, kind)`` tuples, kind 'F' or 'B'. It is right when, for every
case below, each task runs once, no stage runs two tasks at one tick, every task waits
for its inputs (:func:`tutorial.parallel.pipeline.schedules.problems`), every stage runs
all its forwards before its backwards, and the step takes no more ticks than GPipe
needs. Typical mistakes are data (:data:`MISTAKES`, each a wrong answer written as
code): the checker names the one whose tasks the answer gives; otherwise it names the
first symptom of one it shows (:data:`SYMPTOMS`), or the first problem it finds.

The notebook has imported the course's own GPipe (``sch.gpipe``), so an answer that
returns its tasks would pass whatever the learner understood: the checker watches the
calls the answer makes (:func:`_runs_reference`) and refuses one that reaches it, however
it got there (``sch.gpipe``, ``sch.schedule("gpipe", ...)``, a helper of its own). The
exercise's point is the ticks, not only the order, so ``sch.place`` and ``timing.replay``
(which place any order at its earliest ticks) are refused too. An answer could still precompute the course's
tasks before the check: besides the fixed :data:`CASES`, the checker draws cases
(:func:`_drawn_cases`) from a range too large to tabulate, seeded by the answer's code (one
answer, one set of cases, one verdict), and its reference is a private formula
(:func:`_gpipe_rows`), not a table an answer could read.

>>> from tutorial.parallel.pipeline.schedules import gpipe
>>> print(check_gpipe(lambda p, m: [(t.tick, t.stage, t.microbatch, t.kind)
...                                  for t in gpipe(p, m).tasks]).text[:80])
Not yet: your gpipe_schedule gets its tasks from the course's own GPipe schedule
>>> print(check_gpipe(lambda p, m: [(i, s, i, k) for s in range(p) for i in range(m)
...                                 for k in "F"]).text[:60])
Not yet: your schedule never runs a backward. GPipe's step i
"""

import math
import numbers

from tutorial.check.feedback import Verdict, checker, shown
from tutorial.check.mistakes import Mistake
from tutorial.check.own_work import case_rng, watching
from tutorial.parallel.pipeline import schedules as sch
from tutorial.parallel.pipeline import timing

CASES = ((2, 2), (3, 4), (4, 8), (1, 3), (4, 1))
DRAWN = 3                            # cases drawn at check time, besides CASES
DRAWN_STAGES, DRAWN_MICRO = (5, 48), (9, 96)   # their ranges: thousands of (p, m) pairs


def _drawn_cases(rng):
    """DRAWN (p, m) pairs drawn from ``rng`` (seeded by the answer)."""
    return tuple((rng.randint(*DRAWN_STAGES), rng.randint(*DRAWN_MICRO)) for _ in range(DRAWN))


def _rows(plan):
    return {(t.tick, t.stage, t.microbatch, t.kind) for t in plan.tasks}


def _ticks(rows):
    return {(stage, micro, kind): tick for tick, stage, micro, kind in rows}


def _same_tick_on_two_stages(rows, p, m):   # forgets that stage s waits for stage s - 1
    at = _ticks(rows)
    return any(at.get((s, i, "F")) is not None and at.get((s, i, "F")) == at.get((s - 1, i, "F"))
               for s in range(1, p) for i in range(m))


def _backward_from_stage_zero(rows, p, m):  # runs the backward pass the wrong way round
    at = _ticks(rows)
    return any(at.get((0, i, "B"), -1) < at.get((1, i, "B"), -1) and (0, i, "B") in at
               for i in range(m) if p > 1)


def _tasks(plan, shift=0):
    return [(t.tick + shift, t.stage, t.microbatch, t.kind) for t in plan.tasks]


def _gpipe_rows(p, m):
    """GPipe's tasks from its closed form (tested against ``sch.gpipe``), computed when asked
    so that no table of answers sits in this module: the forward of micro-batch i reaches
    stage s at tick s + i; the backwards start after the last forward leaves stage p - 1,
    last micro-batch first, and go back one stage per tick."""
    last_forward = m + p - 1
    return [(s + i, s, i, "F") for s in range(p) for i in range(m)] + \
        [(last_forward + (p - 1 - s) + (m - 1 - i), s, i, "B") for s in range(p) for i in range(m)]


MISTAKES = (   # typical wrong answers, each named when an answer gives exactly its tasks
    Mistake("forwards only",
            "your schedule never runs a backward. GPipe's step is all the forwards, then all "
            "the backwards, and the backward of a micro-batch runs on every stage too.",
            lambda p, m: [(s + i, s, i, "F") for s in range(p) for i in range(m)]),
    Mistake("same tick on two stages",
            "a stage starts a micro-batch's forward at the same tick as the stage before it, "
            "but its input is that stage's output, which is not there yet.",
            lambda p, m: [(i, s, i, "F") for s in range(p) for i in range(m)]
            + [(m + (p - 1 - s) + (m - 1 - i), s, i, "B") for s in range(p) for i in range(m)]),
    Mistake("backward from stage 0",
            "your backward pass runs on stage 0 before stage 1. The gradient flows the other "
            "way: the last stage computes the loss, so it runs a micro-batch's backward first.",
            lambda p, m: [(s + i, s, i, "F") for s in range(p) for i in range(m)]
            + [(m + p - 1 + s + (m - 1 - i), s, i, "B") for s in range(p) for i in range(m)]),
    Mistake("naive",
            "your schedule is valid, but it is the naive one: each micro-batch goes through "
            "all stages, forward and backward, before the next one starts. In GPipe stage 0 "
            "starts the next forward as soon as it has finished one.",
            lambda p, m: _tasks(sch.naive(p, m))),
    Mistake("1F1B",
            "your schedule is valid and as short as GPipe's, but it is 1F1B: stages run some "
            "backwards before all their forwards. GPipe runs every forward of the step first.",
            lambda p, m: _tasks(sch.one_f_one_b(p, m))),
    Mistake("ticks from 1",
            "your first task runs at tick 1. Ticks count from 0 here, like Python's indices, "
            "and stage 0 has nothing to wait for.",
            lambda p, m: [(t + 1, s, i, k) for t, s, i, k in _gpipe_rows(p, m)]),
)

SYMPTOMS = (   # what a partly wrong answer shows: (detects(rows, p, m) on some case, message)
    (lambda rows, p, m: all(r[3] == "F" for r in rows), MISTAKES[0].explain),
    (_same_tick_on_two_stages, MISTAKES[1].explain),
    (_backward_from_stage_zero, MISTAKES[2].explain),
    (lambda rows, p, m: min(r[0] for r in rows) >= 1, MISTAKES[5].explain),
)


# what the answer must not run: the course's GPipe, and the placer that computes its ticks
# (unless the course's naive or 1F1B schedule calls it: those are mistakes the checker names)
REFERENCES = (sch.gpipe, sch.place, timing.replay)
OTHER_SCHEDULES = (sch.naive, sch.one_f_one_b)

CALLS_REFERENCE = (
    "your gpipe_schedule gets its tasks from the course's own GPipe schedule (sch.gpipe, "
    "imported at the top of the notebook), from sch.place or from timing.replay, which "
    "compute the earliest ticks for any order: the ticks are the exercise, so it would pass whatever you wrote around it. "
    "Build the list yourself, from the rule: every task starts at the first tick its stage "
    "is free and its input has arrived, all forwards first. sch.grid draws what you build.")


def _runs_reference(call):
    """(call(), True if the course's GPipe ran during it), watching every Python call."""
    with watching(*REFERENCES, unless_called_from=OTHER_SCHEDULES) as seen:
        value = call()
    return value, seen.called


def _as_rows(value, p, m):
    """(set of rows, None) or (None, what is wrong with ``value``)."""
    call = f"gpipe_schedule({p}, {m})"
    if value is None:
        return None, f"{call} returned None; end your function with `return tasks`."
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        kind = type(value).__name__
        return None, (f"{call} returned {'an' if kind[0] in 'aeiou' else 'a'} {kind}; return "
                      f"a list of (tick, stage, microbatch, kind) tuples.")
    rows = []
    for item in value:
        if isinstance(item, sch.Task):
            item = (item.tick, item.stage, item.microbatch, item.kind)
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 4:
            return None, (f"{call} contains {shown(item):.40}; each task must be a tuple of four: "
                          f"(tick, stage, microbatch, kind).")
        tick, stage, micro, kind = item
        for name, number, high in (("tick", tick, None), ("stage", stage, p),
                                   ("microbatch", micro, m)):
            whole = isinstance(number, numbers.Real) and not isinstance(number, bool) and \
                math.isfinite(number) and number == int(number)
            if not whole or number < 0 or (high is not None and number >= high):
                limit = f" from 0 to {high - 1}" if high is not None else " >= 0"
                return None, (f"{call} has a task with {name} {shown(number)}; use a whole "
                              f"number{limit}.")
        if kind not in sch.KINDS:
            return None, (f"{call} has a task of kind {shown(kind)}; use 'F' for a forward and 'B' "
                          f"for a backward.")
        rows.append((int(tick), int(stage), int(micro), kind))
    if not rows:
        return None, f"{call} returned no tasks."
    return rows, None


def _verdict_for(rows_by_case):
    """The first thing wrong on any case, or None if every case is right."""
    for (p, m), rows in rows_by_case.items():
        plan = sch.Schedule("yours", p, m, tuple(sorted(sch.Task(*r) for r in rows)))
        found = sch.problems(plan)
        if found:
            return f"for p={p}, m={m}: {found[0]}."
        for s in range(p):
            kinds = [t.kind for t in plan.order(s)]
            if "".join(kinds) != "F" * m + "B" * m:
                return (f"for p={p}, m={m}, stage {s} runs a backward before its last forward; "
                        f"GPipe runs all forwards of the step first.")
        best = max(r[0] for r in _gpipe_rows(p, m)) + 1
        if plan.ticks > best or min(r[0] for r in rows) > 0:
            return (f"for p={p}, m={m} your schedule is valid but takes {plan.ticks} ticks, "
                    f"{plan.ticks - best} more than it needs: some task starts later than its "
                    f"stage and its input allow.")
    return None


@checker("gpipe_schedule", "gpipe_schedule(stages, microbatches) with two whole numbers >= 1, "
                           "returning a list of (tick, stage, microbatch, kind) tuples")
def check_gpipe(gpipe_schedule):
    """``gpipe_schedule(stages, microbatches)``: GPipe's tasks, (tick, stage, micro-batch, kind)."""
    rows_by_case = {}
    for p, m in CASES + _drawn_cases(case_rng(gpipe_schedule)):
        try:
            value, copied = _runs_reference(lambda: gpipe_schedule(p, m))
        except NotImplementedError:                # the stub: the guard says "not written"
            raise
        except Exception as error:                 # the learner's code may raise anything
            return Verdict(False, f"Not yet: gpipe_schedule({p}, {m}) raised "
                                  f"{type(error).__name__}: {error}.")
        if copied:
            return Verdict(False, "Not yet: " + CALLS_REFERENCE)
        rows, problem = _as_rows(value, p, m)
        if problem:
            return Verdict(False, "Not yet: " + problem)
        if len(rows) != len(set(rows)):
            return Verdict(False, f"Not yet: gpipe_schedule({p}, {m}) lists a task twice.")
        rows_by_case[p, m] = set(rows)
    for mistake in MISTAKES:
        if all(set(mistake.answer(p, m)) == rows for (p, m), rows in rows_by_case.items()):
            return mistake.verdict()
    for detects, message in SYMPTOMS:
        if any(detects(rows, p, m) for (p, m), rows in rows_by_case.items()):
            return Verdict(False, "Not yet: " + message)
    problem = _verdict_for(rows_by_case)
    if problem:
        return Verdict(False, "Not yet: " + problem)
    return Verdict(True, "Correct: every stage runs all its forwards, then its backwards, and "
                         "each task starts as soon as its input has arrived.")
