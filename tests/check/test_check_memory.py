"""The ZeRO bytes checker: the solution passes, every typical mistake is named, and the
checker's cases tell the mistakes apart."""

from instructor.solutions import zero_bytes
from mistake_table import mistake_table_tests
from tutorial.check.memory import CASES, MISTAKES, check_zero_bytes

test_the_solution_passes, test_each_mistake_is_named, test_the_cases_tell_every_mistake_apart = \
    mistake_table_tests(check_zero_bytes, zero_bytes, CASES, MISTAKES)


def test_wrong_shapes_of_answer():
    assert "three numbers" in check_zero_bytes(lambda P, K, s, c: 4 * P).text
    assert "None" in check_zero_bytes(lambda P, K, s, c: None).text
    assert not check_zero_bytes(lambda P, K, s, c: (1.0, 2.0, 3.0)).correct

