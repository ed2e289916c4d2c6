"""Exercise checker for the SGD notebook: a piecewise-constant learning-rate schedule.

``piecewise_constant_lr(step, boundaries, values)`` is the rate at ``step`` (0 at the first
update): ``values[0]`` before ``boundaries[0]``, ``values[i]`` from ``boundaries[i-1]`` on,
so a step equal to a boundary already gets the new value. The reference is the library's
:func:`tutorial.optim.schedules.piecewise_constant`. The learner's function runs on a
table of cases (steps just before, at and after each boundary, with zero to three
boundaries); what it returns in each case, or how it failed, is compared with the
reference and with every typical mistake. Calling the reference itself does not count.

>>> def piecewise_constant_lr(step, boundaries, values):
...     return schedules.piecewise_constant(boundaries, values)(step)
>>> print(check_piecewise_constant_lr(piecewise_constant_lr).text)
Not yet: your function calls the library's piecewise_constant, the reference it is checked against: work out the rate from boundaries and values yourself.
>>> print(check_piecewise_constant_lr(lambda step, boundaries, values: values[0]).text)
Not yet: the rate never changes: your function always returns values[0]; after each boundary the schedule moves on to the next value.
"""

import numpy as np

from tutorial.check.answers import Wrong, as_number, call
from tutorial.check.feedback import Verdict, checker, shown
from tutorial.check.mistakes import Mistake, first_match
from tutorial.check.own_work import watching
from tutorial.optim import schedules

SCHEDULES = (      # (boundaries, values, steps to ask about)
    ((100, 150), (0.1, 0.01, 0.001), (0, 1, 99, 100, 101, 149, 150, 151, 1000)),
    ((5,), (0.5, 0.05), (0, 4, 5, 6)),
    ((2, 4, 8), (0.8, 0.4, 0.2, 0.1), (0, 1, 2, 3, 4, 7, 8)),
    ((3, 6), (0.01, 0.1, 0.01), (2, 3, 5, 6)),      # a rate may go up again (a restart)
    ((), (0.3,), (0, 7)),                            # no boundary: a constant rate
)
CASES = tuple((step, b, v) for b, v, steps in SCHEDULES for step in steps)


def _piece(step, boundaries, shift=0, strict=False):
    """How many boundaries ``step + shift`` has reached (passed, if ``strict``)."""
    return sum((step + shift > b) if strict else (step + shift >= b) for b in boundaries)


def _no_last_value(step, boundaries, values):
    for b, value in zip(boundaries, values):
        if step < b:
            return value
    return None                                      # falls off the end of the loop


MISTAKES = (
    Mistake("changes one step late",
            "at a step equal to a boundary your rate is still the old one. The boundaries "
            "are the steps at which the rate changes: boundaries[0] is the first step with "
            "values[1].",
            lambda step, b, v: v[_piece(step, b, strict=True)]),
    Mistake("changes one step early",
            "your rate changes one step before each boundary. Steps count the updates "
            "already made, so the first update is step 0 (MXNet's num_update would be 1 "
            "there).",
            lambda step, b, v: v[_piece(step, b, shift=1)]),
    Mistake("one value per boundary",
            "there is one more value than boundaries: values[0] holds from step 0 until "
            "the first boundary, and each boundary starts the next value.",
            lambda step, b, v: v[_piece(step, b) - 1]),
    Mistake("the last value is missing",
            "your function returns None from the last boundary on: after the loop over "
            "the boundaries, the rate is the last value, for ever.",
            _no_last_value),
    Mistake("values used as factors",
            "values are the rates themselves, not factors to multiply together (MXNet's "
            "MultiFactorScheduler works with a factor; this schedule does not).",
            lambda step, b, v: float(np.prod(v[:_piece(step, b) + 1]))),
    Mistake("the index of the piece, not its rate",
            "you return which piece the step is in (0, 1, 2, ...); return that piece's "
            "value.",
            lambda step, b, v: _piece(step, b)),
    Mistake("the rate never changes",
            "your function always returns values[0]; after each boundary the schedule "
            "moves on to the next value.",
            lambda step, b, v: v[0]),
)


def _label(step, boundaries, values):
    return f"piecewise_constant_lr({step}, {list(boundaries)}, {list(values)})"


def _outcome(function, case):
    """What ``function`` gives on ``case``: a float, or the one-sentence reason it cannot
    be read (it raised, returned None, a string, nan, ...)."""
    step, boundaries, values = case
    label = _label(*case)
    try:
        return as_number(call(function, label, step, list(boundaries), list(values)), label,
                         "one plain number, the learning rate")
    except Wrong as wrong:
        return str(wrong)


def _agree(got, want):
    return all(g == w if isinstance(g, str) or isinstance(w, str) else
               np.isclose(g, w, rtol=1e-6, atol=1e-12) for g, w in zip(got, want))


def _boundaries(n):
    return f"{n} boundary" if n == 1 else f"{n} boundaries"


def _outcomes(function):
    return [_outcome(function, case) for case in CASES]


@checker("piecewise_constant_lr", "piecewise_constant_lr(step, boundaries, values) with a "
                                  "whole number step >= 0 and two lists, returning one number")
def check_piecewise_constant_lr(piecewise_constant_lr):
    """``piecewise_constant_lr(step, boundaries, values)``: the library's piecewise_constant."""
    want = [schedules.piecewise_constant(b, v)(step) for step, b, v in CASES]
    with watching(schedules.PiecewiseConstant.__call__) as seen:    # the reference's rule
        got = _outcomes(piecewise_constant_lr)
    if seen.called:
        raise Wrong("your function calls the library's piecewise_constant, the reference it "
                    "is checked against: work out the rate from boundaries and values "
                    "yourself")
    if _agree(got, want):
        return Verdict(True, f"Correct: your schedule gives the reference rate at all "
                             f"{len(CASES)} steps, on {len(SCHEDULES)} schedules with 0 to "
                             f"{max(len(b) for b, _, _ in SCHEDULES)} boundaries.")
    mistake = first_match(MISTAKES, got, _outcomes, agree=_agree)
    if mistake:
        return mistake.verdict()
    two = [i for i, (_, b, _) in enumerate(CASES) if len(b) == 2]
    if _agree([got[i] for i in two], [want[i] for i in two]):
        case = next(c for c, g, w in zip(CASES, got, want) if not _agree([g], [w]))
        raise Wrong(f"your schedule is right with two boundaries, like the notebook's, but "
                    f"not with {_boundaries(len(case[1]))}: look at {_label(*case)}. Loop over the "
                    f"boundaries instead of naming each one")
    failed = next((g for g in got if isinstance(g, str)), None)
    if failed:
        raise Wrong(failed)
    case, value = next((c, g) for c, g, w in zip(CASES, got, want) if not _agree([g], [w]))
    raise Wrong(f"{_label(*case)} returned {shown(value)}, which no usual mistake explains: work "
                f"out by hand which piece step {case[0]} is in, and compare")
