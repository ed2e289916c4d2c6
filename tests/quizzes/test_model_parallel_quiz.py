"""The model-parallel quiz: its numbers are what the library computes."""

from fractions import Fraction

import pytest

from tutorial.parallel.pipeline import schedules as sch
from tutorial.parallel.pipeline.data_or_model import compare, conv_stack, dense_stack
from tutorial.parallel.pipeline.timing import speedup_async, speedup_sync
from tutorial.quizzes.model_parallel import QUIZ


def right_options(number):
    return {o.text for o in QUIZ.questions[number].options if o.is_right}


def test_the_bubble_question_is_the_schedule():
    assert right_options(1) == {"3/15 = 20 %"}
    plan = sch.gpipe(4, 12)
    assert Fraction(4 * plan.ticks - len(plan.tasks), 4 * plan.ticks) == Fraction(3, 15)
    assert sch.bubble(sch.naive(4, 12)) == 0.75


def test_the_1f1b_question_is_the_schedule():
    assert max(sch.peak_held(sch.one_f_one_b(4, 12))) == 4
    assert max(sch.peak_held(sch.gpipe(4, 12))) == 12
    assert sch.one_f_one_b(4, 12).ticks == sch.gpipe(4, 12).ticks


def test_the_msra_question_is_the_timing_model():
    assert len(right_options(4)) == 2 and all("about" in text for text in right_options(4))
    assert speedup_sync(4, 14) == pytest.approx(3.29, abs=0.005)
    assert speedup_async(4, imbalance=1.21) == pytest.approx(3.31, abs=0.005)
    assert speedup_sync(4, 4) == pytest.approx(2.29, abs=0.005)
    assert speedup_async(4) == 4


def test_the_course_notes_question_is_the_cost_model():
    conv = conv_stack(256, 28, 16)
    one = compare(conv, 256, 1).data_seconds
    eff = [one / (n * compare(conv, 256, n).data_seconds) for n in (2, 16)]
    assert eff[0] > eff[1]
    assert compare(dense_stack([8192] * 9), 256, 4).winner == "model"
