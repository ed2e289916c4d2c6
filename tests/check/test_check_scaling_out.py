"""The post-local SGD schedule checker: the solution passes, every typical mistake is
named, and the mistakes are told apart by the checker's cases."""

from instructor.solutions import post_local_schedule
from mistake_table import mistake_table_tests
from tutorial.check.scaling_out import CASES, MISTAKES, check_post_local_schedule, drawn_cases

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


def test_a_table_of_the_references_answers_made_before_the_check_does_not_pass():
    from tutorial.parallel.local_sgd import averaging_steps
    table = {case: list(averaging_steps(*case)) for case in CASES}    # no call during the check
    verdict = check_post_local_schedule(lambda T, H, S: table[(T, H, S)])
    assert not verdict.correct


def test_a_copy_compiled_from_the_references_source_is_refused():
    import inspect
    from tutorial.parallel import local_sgd
    namespace = {}
    exec(inspect.getsource(local_sgd.averaging_steps), vars(local_sgd).copy(), namespace)
    copy = namespace["averaging_steps"]
    assert copy.__code__ is not local_sgd.averaging_steps.__code__
    verdict = check_post_local_schedule(copy)
    assert not verdict.correct and "calls the library's reference" in verdict.text


def test_the_drawn_cases_change_from_check_to_check_and_stay_in_range():
    draws = {drawn_cases() for _ in range(5)}
    assert len(draws) > 1
    assert all(30 <= T <= 400 and 2 <= H <= 16 and 0 <= S <= T // 2
               for cases in draws for T, H, S in cases)
