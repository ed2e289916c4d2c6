"""The piecewise-constant schedule exercise: its reference (the library's schedule) against
a table worked by hand and against MXNet's own MultiFactorScheduler; right answers pass,
and mistakes written the way a learner would write them are named, never with the answer.
"""

import bisect
import re

import mxnet as mx
import numpy as np
import pytest

from instructor import solutions
from tutorial.check import learning_rates
from tutorial.check.learning_rates import check_piecewise_constant_lr as check
from tutorial.optim import schedules

# boundaries [100, 150], values [0.1, 0.01, 0.001]: the rate changes AT steps 100 and 150
BY_HAND = {0: 0.1, 1: 0.1, 99: 0.1, 100: 0.01, 101: 0.01, 149: 0.01, 150: 0.001, 1000: 0.001}


def test_the_reference_matches_the_table_worked_by_hand():
    schedule = schedules.piecewise_constant([100, 150], [0.1, 0.01, 0.001])
    assert {step: schedule(step) for step in BY_HAND} == BY_HAND


def test_the_reference_matches_mxnets_multi_factor_scheduler():
    # MXNet counts updates from 1 (num_update) and changes the rate once num_update > step
    mxnet = mx.lr_scheduler.MultiFactorScheduler(step=[5, 9], factor=0.5, base_lr=0.8)
    ours = schedules.piecewise_constant([5, 9], [0.8, 0.4, 0.2])
    assert [mxnet(step + 1) for step in range(14)] == [ours(step) for step in range(14)]


def test_the_checker_asks_about_every_boundary_and_both_its_neighbours():
    for boundaries, _, steps in learning_rates.SCHEDULES:
        for b in boundaries:
            assert {b - 1, b} <= set(steps), (boundaries, b)
    assert {len(b) for b, _, _ in learning_rates.SCHEDULES} == {0, 1, 2, 3}


def _loop(step, boundaries, values):
    for boundary, value in zip(boundaries, values):
        if step < boundary:
            return value
    return values[-1]


@pytest.mark.parametrize("answer", [
    solutions.piecewise_constant_lr, _loop,
    lambda step, boundaries, values: values[bisect.bisect_right(boundaries, step)],
    lambda step, boundaries, values: np.float32(values[int(np.searchsorted(
        np.array(boundaries, dtype=int), step, side="right"))]) * 1.0,
])
def test_right_answers_pass(answer):
    verdict = check(answer)
    assert verdict.correct, verdict.text


def _two_pieces_named(step, boundaries, values):
    if step < boundaries[0]:
        return values[0]
    if step < boundaries[1]:
        return values[1]
    return values[2]


def _no_final_return(step, boundaries, values):
    for boundary, value in zip(boundaries, values):
        if step < boundary:
            return value


def _as_factors(step, boundaries, values):        # MultiFactorScheduler's way
    lr = values[0]
    for boundary, factor in zip(boundaries, values[1:]):
        if step >= boundary:
            lr *= factor
    return lr


@pytest.mark.parametrize("answer, what", [
    (lambda step, b, v: v[sum(step > x for x in b)], "changes one step late"),
    (lambda step, b, v: v[bisect.bisect_left(b, step)], "changes one step late"),
    (lambda step, b, v: v[sum(step + 1 >= x for x in b)], "changes one step early"),
    (lambda step, b, v: v[bisect.bisect_right(b, step) - 1], "one value per boundary"),
    (_no_final_return, "the last value is missing"),
    (_as_factors, "values used as factors"),
    (lambda step, b, v: bisect.bisect_right(b, step), "the index of the piece, not its rate"),
    (lambda step, b, v: v[0], "the rate never changes"),
])
def test_mistakes_are_named_without_the_answer(answer, what):
    verdict = check(answer)
    assert not verdict.correct and verdict.text.startswith(f"Not yet: {what}:"), verdict.text
    assert not any(p in "".join(verdict.text.split())
                   for p in solutions.GIVEAWAYS["piecewise_constant_lr"])


def test_a_schedule_written_for_two_boundaries_is_told_to_loop():
    text = check(_two_pieces_named).text
    assert "right with two boundaries" in text and "not with 1 boundary" in text


@pytest.mark.parametrize("answer, phrase", [
    (lambda step, b, v: float("nan"), r"returned nan"),
    (lambda step, b, v: v, "returned a list"),
    (lambda step, b, v: v[len(b) + 1], r"piecewise_constant_lr\(0, \[100, 150\], .* raised "
                                       r"IndexError"),
    (lambda step, b, v: 1.01 * solutions.piecewise_constant_lr(step, b, v),
     "returned 0.101, which no usual mistake explains"),
])
def test_unusable_and_unexplained_answers_get_one_clear_sentence(answer, phrase):
    verdict = check(answer)
    assert not verdict.correct and verdict.text.startswith("Not yet:")
    assert re.search(phrase, verdict.text), verdict.text


def test_a_learner_who_changes_the_lists_does_not_spoil_the_other_cases():
    def pops(step, boundaries, values):
        lr = values[bisect.bisect_right(boundaries, step)]
        boundaries.clear()
        values.clear()
        return lr
    assert check(pops).correct


def test_calling_the_librarys_schedule_is_not_an_answer():
    from tutorial.optim import schedules
    from tutorial.optim.schedules import PiecewiseConstant
    verdict = check(lambda step, b, v: schedules.piecewise_constant(b, v)(step))
    assert not verdict.correct and "calls the library's piecewise_constant" in verdict.text
    verdict = check(lambda step, b, v: PiecewiseConstant(tuple(b), tuple(v))(step))
    assert not verdict.correct, verdict.text
    assert schedules.piecewise_constant([1], [0.5, 0.1])(1) == 0.1   # the class is restored
