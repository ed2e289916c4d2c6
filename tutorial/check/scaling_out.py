"""Exercise checker for the scaling-out notebook: post-local SGD's averaging schedule.

The learner writes ``post_local_schedule(steps, period, switch)``: the steps (counted
from 1) after which the K workers average their weights. Every step up to ``switch``
averages (synchronous SGD); after it, every ``period``-th step counted from the switch;
and the last step always, so that the run ends with one model. The reference is
:func:`tutorial.parallel.local_sgd.averaging_steps`, which the notebook imports: an answer
that calls it is refused (:mod:`tutorial.check.own_work`), and besides its fixed cases the
checker draws others, seeded by the answer's code, so a table of the reference's answers
made before the answer was written cannot pass either, and one answer always meets the
same cases. Typical mistakes are data.

>>> print(check_post_local_schedule(lambda T, H, S: [t for t in range(1, T + 1)
...     if t <= S or (t - S) % H == 0 or t == T]).text[:60])
Correct: synchronous up to the switch, every H steps after i
>>> from tutorial.parallel.local_sgd import averaging_steps
>>> print(check_post_local_schedule(averaging_steps).text[:60])     # the reference itself
Not yet: your post_local_schedule calls the library's refere
>>> print(check_post_local_schedule(lambda T, H, S: [t for t in range(1, T + 1)
...                                                  if t % H == 0 or t == T]).text[:40])
Not yet: the switch is ignored: up to an
"""

import numbers
import random

from tutorial.check.answers import Wrong, call
from tutorial.check.feedback import Verdict, checker, shown
from tutorial.check.mistakes import Mistake, first_match
from tutorial.check.own_work import case_rng, refuse_if_called, watching
from tutorial.parallel.local_sgd import averaging_steps

CASES = ((8, 4, 0), (8, 4, 3), (6, 4, 0), (20, 4, 6), (8, 1, 3), (4, 2, 10), (16, 16, 0),
         (10, 3, 2))
DRAWN = 4          # cases drawn from the answer's seed, beyond CASES


def drawn_cases(count=DRAWN, rng=None):
    """``count`` cases (steps, period, switch) drawn from ``rng`` (the check passes one seeded
    by the answer; by default the operating system's randomness)."""
    rng = rng or random.SystemRandom()
    cases = []
    for _ in range(count):
        steps = rng.randint(30, 400)
        cases.append((steps, rng.randint(2, 16), rng.randint(0, steps // 2)))
    return tuple(cases)


def _steps(T):
    return range(1, T + 1)


MISTAKES = (
    Mistake("the last step is missing",
            "when H does not divide the steps after the switch, the workers still hold "
            "different weights at the end. The run must end with one model.",
            lambda T, H, S: [t for t in _steps(T) if t <= S or (t - S) % H == 0]),
    Mistake("the switch is ignored",
            "up to and including step `switch` the workers average after every step "
            "(that is the synchronous phase of post-local SGD).",
            lambda T, H, S: [t for t in _steps(T) if t % H == 0 or t == T]),
    Mistake("H counted from step 0",
            "after the switch, the local phase starts afresh: the first average comes H "
            "steps after the switch, not at the next multiple of H.",
            lambda T, H, S: [t for t in _steps(T) if t <= S or t % H == 0 or t == T]),
    Mistake("the synchronous phase is missing",
            "the steps up to `switch` average too, after every step.",
            lambda T, H, S: [t for t in _steps(T) if t > S and ((t - S) % H == 0 or t == T)]),
    Mistake("steps counted from 0",
            "the first step is step 1 (as in MXNet's update counter); shift your steps by one.",
            lambda T, H, S: [t - 1 for t in _steps(T) if t <= S or (t - S) % H == 0 or t == T]),
)


def _as_steps(value, label):
    """The learner's answer as a list of whole numbers, or Wrong saying what it was."""
    if value is None:
        raise Wrong(f"{label} returned None: end your function with `return ...` (the list "
                    f"of steps after which the workers average)")
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise Wrong(f"{label} returned a {type(value).__name__}; return a list of whole step "
                    f"numbers such as [4, 8]")
    steps = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, numbers.Real) \
                or float(item) != int(item):
            raise Wrong(f"{label} returned a list containing {shown(item)}; each entry must be a "
                        f"whole step number such as 4")
        steps.append(int(item))
    return steps


@checker("post_local_schedule", "post_local_schedule(steps, period, switch) with three whole "
                                "numbers, returning a list of step numbers")
def check_post_local_schedule(post_local_schedule):
    """``post_local_schedule(steps, period, switch)``: the averaging steps of post-local SGD."""
    cases = CASES + drawn_cases(rng=case_rng(post_local_schedule))
    with watching(averaging_steps, copies=True) as seen:
        answers = [call(post_local_schedule, f"post_local_schedule{case}", *case)
                   for case in cases]
    refuse_if_called(seen, "post_local_schedule")
    got = [_as_steps(answer, f"post_local_schedule{case}") for answer, case in zip(answers, cases)]
    want = [list(averaging_steps(*case)) for case in cases]
    if got == want:
        return Verdict(True, "Correct: synchronous up to the switch, every H steps after it, "
                             "and one final average so the run ends with a single model.")
    mistake = first_match(MISTAKES, got, lambda wrong: [list(wrong(*c)) for c in cases],
                          agree=lambda a, b: a == b)
    if mistake:
        return mistake.verdict()
    case, steps = next((c, g) for c, g, w in zip(cases, got, want) if g != w)
    T, H, S = case
    shown = steps if len(steps) <= 24 else f"[{', '.join(map(str, steps[:20]))}, ...]"
    if any(not 1 <= t <= T for t in steps):
        raise Wrong(f"post_local_schedule{case} returned {shown}, which contains a step "
                    f"outside 1 .. {T}")
    if steps != sorted(set(steps)):
        raise Wrong(f"post_local_schedule{case} returned {shown}; list each step once, in "
                    f"increasing order")
    raise Wrong(f"post_local_schedule{case} returned {shown}. With steps={T}, period={H}, "
                f"switch={S}: which steps average in the synchronous phase, which after it, "
                f"and is the last step among them?")
