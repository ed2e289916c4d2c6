"""A learner's progress: which exercises pass, read from their notebooks.

For each exercise of :mod:`tutorial.check.exercises`, take the function out of the
learner's notebook (:mod:`tutorial.check.extract`: read-only, only its definitions run)
and run its checker under a time limit. The status is ``passes``, ``not started`` (the
stub still raises NotImplementedError), ``not yet: <the checker's first sentence>``, or
``cannot check: <why>`` (a missing or broken notebook, a cell that does not parse).
``make selfcheck`` and notebook 00_setup print the same table; an unfinished exercise
never makes the self-check fail.

>>> print(report([Row("01_sgd", "piecewise_constant_lr", "passes"),
...               Row("02_momentum", "clip_by_global_norm", "not started")]))
notebook             exercise              status
01_sgd               piecewise_constant_lr passes
02_momentum          clip_by_global_norm   not started
1 of 2 exercises pass. Exercises do not count in the self-check: an unfinished one is not a failure.
"""

import dataclasses
from pathlib import Path

from tutorial.check.answers import first_sentence
from tutorial.check.exercises import EXERCISES
from tutorial.check.extract import Unreadable, load_function

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
TIME_LIMIT_S = 5.0      # per exercise, for defining it and for checking it


@dataclasses.dataclass(frozen=True)
class Row:
    notebook: str
    function: str
    status: str

    @property
    def passes(self):
        return self.status == "passes"


def status(exercise, notebooks=NOTEBOOKS, seconds=TIME_LIMIT_S):
    """The status of one exercise in the learner's copy of its notebook (one line)."""
    try:
        function = load_function(Path(notebooks) / f"{exercise.notebook}.ipynb",
                                 exercise.function, seconds)
        verdict = exercise.checker()(function, time_limit_s=seconds)
    except Unreadable as why:
        return f"cannot check: {why}"
    except (Exception, SystemExit) as error:  # a broken install, exit() in their code:
        return f"cannot check: {type(error).__name__}: {error}"  # keep the other rows
    if not verdict.started:
        return "not started"
    if verdict.correct:
        return "passes"
    return f"not yet: {first_sentence(verdict.text.partition(':')[2].strip())}"


def progress(notebooks=NOTEBOOKS, seconds=TIME_LIMIT_S):
    """One :class:`Row` per registered exercise, in course order."""
    return [Row(e.notebook, e.function, status(e, notebooks, seconds)) for e in EXERCISES]


def report(rows):
    """The rows as a table, with how many pass."""
    width = max([len("exercise")] + [len(r.function) for r in rows])
    lines = [f"{'notebook':20s} {'exercise':{width}s} status"]
    lines += [f"{r.notebook:20s} {r.function:{width}s} {r.status}" for r in rows]
    lines.append(f"{sum(r.passes for r in rows)} of {len(rows)} exercises pass. Exercises do "
                 f"not count in the self-check: an unfinished one is not a failure.")
    return "\n".join(lines)
