"""The post-local SGD schedule checker: the solution passes, every typical mistake is
named, and the mistakes are told apart by the checker's cases."""

from instructor.solutions import post_local_schedule
from mistake_table import mistake_table_tests
from tutorial.check.scaling_out import CASES, MISTAKES, check_post_local_schedule

test_the_solution_passes, test_each_mistake_is_named, test_the_cases_tell_every_mistake_apart = \
    mistake_table_tests(check_post_local_schedule, post_local_schedule, CASES, MISTAKES, key=tuple)


def test_an_unsorted_answer_and_a_tuple_answer():
    text = check_post_local_schedule(lambda T, H, S: post_local_schedule(T, H, S)[::-1]).text
    assert "increasing order" in text
    assert check_post_local_schedule(lambda T, H, S: tuple(post_local_schedule(T, H, S))).correct


def test_calling_the_reference_is_refused_however_it_is_reached():
    from tutorial.parallel import local_sgd
    from tutorial.parallel.local_sgd import averaging_steps as alias

    def imports_it(T, H, S):
        from tutorial.parallel.local_sgd import averaging_steps
        return list(averaging_steps(T, H, S))

    for answer in (local_sgd.averaging_steps, lambda T, H, S: list(alias(T, H, S)), imports_it):
        verdict = check_post_local_schedule(answer)
        assert not verdict.correct and "calls the library's reference" in verdict.text
    assert check_post_local_schedule(post_local_schedule).correct     # and it is switched off
