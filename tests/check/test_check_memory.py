"""The ZeRO bytes checker: the solution passes, every typical mistake is named, and the
checker's cases tell the mistakes apart."""

import math
import re

import pytest

from instructor.solutions import zero_bytes
from mistake_table import mistake_table_tests
from tutorial.check.memory import CASES, MISTAKES, check_zero_bytes

test_the_solution_passes, test_each_mistake_is_named, test_the_cases_tell_every_mistake_apart = \
    mistake_table_tests(check_zero_bytes, zero_bytes, CASES, MISTAKES)


def test_wrong_shapes_of_answer():
    assert "three numbers" in check_zero_bytes(lambda P, K, s, c: 4 * P).text
    assert "None" in check_zero_bytes(lambda P, K, s, c: None).text
    assert not check_zero_bytes(lambda P, K, s, c: (1.0, 2.0, 3.0)).correct



def test_calling_the_reference_is_refused_however_it_is_reached():
    from tutorial.check import memory
    from tutorial.check.memory import _expected as alias

    def imports_it(P, K, s, c):
        from tutorial.check.memory import _expected
        return _expected(P, K, s, c)

    bytes_wrong = next(m for m in MISTAKES if "bytes per number" in m.what)
    put_right = lambda P, K, s, c: tuple(4 * x for x in bytes_wrong.answer(P, K, s, c))
    for answer in (memory._expected, lambda P, K, s, c: alias(P, K, s, c), imports_it, put_right):
        verdict = check_zero_bytes(answer)
        assert not verdict.correct and "calls the library's reference" in verdict.text
    assert check_zero_bytes(zero_bytes).correct                       # and it is switched off


def test_a_table_of_the_fixed_cases_does_not_pass():
    table = {case: zero_bytes(*case) for case in CASES}              # computed ahead
    verdict = check_zero_bytes(lambda *case: table.get(case, (0.0, 0.0, 0.0)))
    assert not verdict.correct


def test_the_drawn_cases_are_the_same_for_one_answer_and_differ_between_answers():
    from tutorial.check.memory import _drawn_cases
    from tutorial.check.own_work import case_rng
    one, other = (lambda P, K, s, c: None), (lambda P, K, s, c: (P, K))
    assert _drawn_cases(case_rng(one)) == _drawn_cases(case_rng(one))
    assert _drawn_cases(case_rng(one)) != _drawn_cases(case_rng(other))
    assert all(10 ** 3 <= P <= 10 ** 9 and 2 <= K <= 1024 for P, K, _, _ in
               _drawn_cases(case_rng(one)))


def floored(P, K, stage, copies):                 # whole bytes: 4 * P // K
    return tuple(math.floor(x) for x in zero_bytes(P, K, stage, copies))


def ceiled(P, K, stage, copies):
    return tuple(math.ceil(x) for x in zero_bytes(P, K, stage, copies))


def whole_parameters(P, K, stage, copies):        # a device holds whole numbers
    share = P // K
    weights = 4 * (share if stage >= 3 else P)
    gradients = 4 * (share if stage >= 2 else P)
    return weights, gradients, 4 * copies * (share if stage >= 1 else P)


@pytest.mark.parametrize("answer", [floored, ceiled, whole_parameters])
def test_whole_bytes_pass_every_time(answer):
    for _ in range(3):
        verdict = check_zero_bytes(answer)
        assert verdict.correct, verdict.text


def right_on_small_models_only(P, K, stage, copies):
    """Right on the fixed cases (P of 1000 or 1001), half as much again in the weights'
    bytes on every drawn one (P from 1000 to 10^9): wrong by far more than any rounding,
    whichever cases this Python's bytecode seeds."""
    exact = zero_bytes(P, K, stage, copies)
    return exact if P <= 1001 else (exact[0] * 1.5, exact[1], exact[2])


def test_one_answer_gets_one_verdict_that_says_what_differs():
    texts = {check_zero_bytes(right_on_small_models_only).text for _ in range(3)}
    assert len(texts) == 1
    text = texts.pop()
    assert re.search(r"zero_bytes\((\d+), (\d+), (\d), (\d)\) returned \(.*\): [\d,.]+ "
                     r"bytes for the weights, expected [\d,.]+ bytes \(\1 parameters x 4 bytes",
                     text), text


def test_a_wrong_answer_is_told_in_a_sentence_that_ends_once():
    text = check_zero_bytes(lambda P, K, s, c: (4.0 * P / K, 4.0 * P, 4.0 * c * P)).text
    assert "which of the three kinds" in text
    assert text.endswith(".") and not text.endswith("?.") and not text.endswith("..")
