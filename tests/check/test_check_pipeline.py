"""The GPipe exercise checker: the instructor's solution passes, each typical mistake is named
without giving the answer away, and garbage comes back as a Verdict within the time limit."""

import re
import signal
import time

import numpy as np
import pytest

from bounded import within
from instructor.solutions import gpipe_schedule
from tutorial.check.feedback import Verdict
from tutorial.check import pipeline
from tutorial.check.pipeline import CASES, check_gpipe
from tutorial.parallel.pipeline import schedules as sch

LIMIT_S = 0.5
SECRET = re.compile(r"s \+ i|m \+ p - 1 \+|2\s*\(m \+ p - 1\)")    # the solution's formulas


def rows(plan):
    return [(t.tick, t.stage, t.microbatch, t.kind) for t in plan.tasks]


def forward_order_backwards(p, m):          # also correct: backwards in micro-batch order
    tasks = [(s + i, s, i, "F") for s in range(p) for i in range(m)]
    return tasks + [(m + p - 1 + (p - 1 - s) + i, s, i, "B") for s in range(p) for i in range(m)]


def test_the_solution_and_other_valid_gpipe_orders_pass():
    for answer in (gpipe_schedule, forward_order_backwards):
        verdict = check_gpipe(answer)
        assert verdict.correct, verdict.text


def helper_of_its_own(p, m):
    return sch.schedule("gpipe", p, m)


@pytest.mark.parametrize("answer", [
    lambda p, m: rows(sch.gpipe(p, m)),                      # the reference the notebook imported
    lambda p, m: sch.gpipe(p, m).tasks,
    lambda p, m: iter(rows(sch.gpipe(p, m))),
    lambda p, m: rows(sch.schedule("gpipe", p, m)),          # through the dispatcher
    lambda p, m: rows(helper_of_its_own(p, m)),              # through a function of its own
    sch.gpipe,                                               # the reference itself
])
def test_an_answer_that_runs_the_course_gpipe_is_refused_and_told_why(answer):
    verdict = check_gpipe(answer)
    assert not verdict.correct
    assert "course's own GPipe" in verdict.text and "yourself" in verdict.text
    assert not SECRET.search(verdict.text)


def test_watching_the_calls_leaves_the_profiler_as_it_found_it():
    import sys

    def outer(frame, event, arg):                            # someone else's profiler
        return None

    sys.setprofile(outer)
    try:
        check_gpipe(gpipe_schedule)
        check_gpipe(lambda p, m: rows(sch.gpipe(p, m)))
        assert sys.getprofile() is outer
    finally:
        sys.setprofile(None)


# the course's other schedules, computed ahead (the checker refuses sch.place, which they
# call, during the answer) for the fixed cases only (the parametrized test draws no others)
NAIVE = {case: rows(sch.naive(*case)) for case in CASES}
ONE_F_ONE_B = {case: rows(sch.one_f_one_b(*case)) for case in CASES}


def late_by_one(p, m):
    out = gpipe_schedule(p, m)
    return [(t + 1 if k == "B" else t, s, i, k) for t, s, i, k in out]


def spins(*args):
    while True:
        pass


def raises(*args):
    raise RuntimeError("boom")


@pytest.mark.parametrize("answer, phrase", [
    (lambda p, m: [(s + i, s, i, "F") for s in range(p) for i in range(m)],
     "never runs a backward"),
    (lambda p, m: [(i, s, i, "F") for s in range(p) for i in range(m)] +
     [(m + i, s, i, "B") for s in range(p) for i in range(m)],
     "at the same tick as the stage before"),
    (lambda p, m: [(s + i, s, i, "F") for s in range(p) for i in range(m)] +
     [(m + p - 1 + s + i, s, i, "B") for s in range(p) for i in range(m)],
     "runs on stage 0 before stage 1"),
    (lambda p, m: NAIVE[p, m], "it is the naive one"),
    (lambda p, m: ONE_F_ONE_B[p, m], "but it is 1F1B"),
    (lambda p, m: rows(sch.naive(p, m)), "it is the naive one"),   # calls place, not refused
    (lambda p, m: rows(sch.one_f_one_b(p, m)), "but it is 1F1B"),
    (lambda p, m: [(t + 1, s, i, k) for t, s, i, k in gpipe_schedule(p, m)], "Ticks count from 0"),
    (late_by_one, "valid but takes .* ticks, 1 more than it needs"),
    (lambda p, m: gpipe_schedule(p, m)[:-1], "B of micro-batch 1 never runs on stage 1"),
    (lambda p, m: gpipe_schedule(p, m) + gpipe_schedule(p, m)[:1], "lists a task twice"),
    (lambda p, m: [(t, s, i, k.lower()) for t, s, i, k in gpipe_schedule(p, m)], "kind 'f'"),
    (lambda p, m: [(t, s, i) for t, s, i, k in gpipe_schedule(p, m)], "tuple of four"),
    (lambda p, m: [(float("nan"), 0, 0, "F")], "tick nan; use a whole number"),
    (lambda p, m: [(0.5, 0, 0, "F")], "tick 0.5"),
    (lambda p, m: [(0, p, 0, "F")], "stage 2; use a whole number from 0 to 1"),
    (lambda p, m: [], "returned no tasks"),
    (lambda p, m: None, "returned None"),
    (lambda p, m: "F0 F1", "returned a str"),
    (lambda p, m: np.zeros(3), "contains 0.0; each task must be a tuple of four"),
    (lambda p, m: 42, "returned an int"),
    (raises, "raised RuntimeError: boom"),
    (spins, f"did not return within {LIMIT_S:g} s"),
    (None, "but got None"),
    (float("nan"), r"got a float \(nan\)"),
    ("text", "got the text 'text'"),
    (np.zeros(3), r"NumPy array of shape \(3,\)"),
])
def test_mistakes_and_garbage_get_a_verdict_that_names_them(answer, phrase, monkeypatch):
    monkeypatch.setattr(pipeline, "_drawn_cases", lambda rng: ())
    with within(30, "check_gpipe"):
        verdict = check_gpipe(answer, time_limit_s=LIMIT_S)
    assert isinstance(verdict, Verdict) and verdict.correct is False
    assert verdict.text.startswith("Not yet:"), verdict.text
    assert re.search(phrase, verdict.text), verdict.text
    assert not SECRET.search(verdict.text), verdict.text
    assert signal.getitimer(signal.ITIMER_REAL)[0] == pytest.approx(0)


def test_an_endless_generator_is_stopped_by_the_time_limit():
    def endless(p, m):
        def tasks():
            while True:
                yield (0, 0, 0, "F")
        return tasks()

    started = time.monotonic()
    with within(30, "check_gpipe"):
        verdict = check_gpipe(endless, time_limit_s=LIMIT_S)
    assert not verdict.correct and "did not return within" in verdict.text
    assert time.monotonic() - started < 20


def test_the_checker_reference_is_gpipe_itself():
    from tutorial.check.pipeline import _gpipe_rows
    for p in range(1, 7):
        for m in range(1, 9):
            assert sorted(_gpipe_rows(p, m)) == sorted(rows(sch.gpipe(p, m)))


def test_the_drawn_cases_are_the_same_for_one_answer_and_differ_between_answers():
    from tutorial.check.own_work import case_rng
    from tutorial.check.pipeline import _drawn_cases
    assert _drawn_cases(case_rng(gpipe_schedule)) == _drawn_cases(case_rng(gpipe_schedule))
    assert _drawn_cases(case_rng(gpipe_schedule)) != _drawn_cases(case_rng(late_by_one))


def test_answers_that_take_the_course_tasks_ahead_of_the_check_are_refused():
    from tutorial.check import pipeline
    fixed = {case: rows(sch.gpipe(*case)) for case in pipeline.CASES}   # precomputed
    order = lambda m: [(i, "F") for i in range(m)] + [(i, "B") for i in reversed(range(m))]
    for answer in (lambda p, m: fixed[p, m],
                   lambda p, m: rows(sch.place("x", p, [order(m)] * p))):
        verdict = check_gpipe(answer)
        assert not verdict.correct, verdict.text
    assert not hasattr(pipeline, "_GPIPE")                   # no table of answers to read


def test_an_order_timed_by_the_replay_is_refused():
    """timing.replay (notebook 10 names it) computes the earliest ticks of any order: an answer
    that writes only GPipe's order with dummy ticks and replays it would pass otherwise."""
    from tutorial.parallel.pipeline import timing

    def replayed(p, m):
        tasks = [sch.Task(0, s, i, k) for s in range(p) for i, k in
                 [(i, "F") for i in range(m)] + [(i, "B") for i in reversed(range(m))]]
        plan = sch.Schedule("mine", p, m, tuple(tasks))
        starts = timing.replay(plan, lambda task: 1.0)
        return [(int(start), t.stage, t.microbatch, t.kind) for t, (start, _) in starts.items()]

    verdict = check_gpipe(replayed)
    assert not verdict.correct and "timing.replay" in verdict.text, verdict.text
