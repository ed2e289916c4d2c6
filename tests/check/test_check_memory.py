"""The ZeRO bytes checker: the solution passes, every typical mistake is named, and the
checker's cases tell the mistakes apart."""

import pytest

from instructor.solutions import zero_bytes
from tutorial.check.memory import CASES, MISTAKES, check_zero_bytes


def test_the_solution_passes():
    assert check_zero_bytes(zero_bytes).correct


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.what)
def test_each_mistake_is_named(mistake):
    verdict = check_zero_bytes(mistake.answer)
    assert not verdict.correct and verdict.text == mistake.verdict().text


def test_the_cases_tell_every_mistake_apart():
    answers = [tuple(m.answer(*case) for case in CASES) for m in MISTAKES]
    answers.append(tuple(zero_bytes(*case) for case in CASES))
    assert len(set(answers)) == len(answers)


def test_wrong_shapes_of_answer():
    assert "three numbers" in check_zero_bytes(lambda P, K, s, c: 4 * P).text
    assert "None" in check_zero_bytes(lambda P, K, s, c: None).text
    assert not check_zero_bytes(lambda P, K, s, c: (1.0, 2.0, 3.0)).correct

