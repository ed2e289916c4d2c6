"""The memory quiz: its numbers are what tutorial.memory counts."""

from tutorial.check.memory import _expected
from tutorial.memory.recompute import sqrt_segments
from tutorial.quizzes.memory import QUIZ


def right_options(number):
    return {o.text for o in QUIZ.questions[number].options if o.is_right}


def test_the_megabytes_are_the_zero_table():
    mb = {s: sum(_expected(1_000_000, 4, s, 2)) / 1e6 for s in range(4)}
    assert mb == {0: 16.0, 1: 10.0, 2: 7.0, 3: 4.0}
    assert any("16 MB" in t for t in right_options(0))
    assert any("10 MB" in t for t in right_options(0))


def test_sixteen_layers_in_four_segments_hold_seven_outputs():
    plan = sqrt_segments(16)
    assert len(plan) == 4
    assert len(plan) + max(b - a for a, b in plan) - 1 == 7
