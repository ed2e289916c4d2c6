"""The three tests every checker with a table of typical mistakes gets: the solution
passes, each mistake is named by its own verdict, and the checker's cases tell every
mistake (and the solution) apart. A test module binds them to its checker:

    test_the_solution_passes, test_each_mistake_is_named, test_the_cases_tell_every_mistake_apart = \\
        mistake_table_tests(check, solution, CASES, MISTAKES)
"""

import pytest


def mistake_table_tests(check, solution, cases, mistakes, key=lambda answer: answer):
    """The three test functions; ``key`` makes one answer hashable (e.g. ``tuple``)."""

    def test_the_solution_passes():
        assert check(solution).correct

    @pytest.mark.parametrize("mistake", mistakes, ids=lambda m: m.what)
    def test_each_mistake_is_named(mistake):
        verdict = check(mistake.answer)
        assert not verdict.correct and verdict.text == mistake.verdict().text

    def test_the_cases_tell_every_mistake_apart():
        answers = [tuple(key(m.answer(*case)) for case in cases) for m in mistakes]
        answers.append(tuple(key(solution(*case)) for case in cases))
        assert len(set(answers)) == len(answers)

    return test_the_solution_passes, test_each_mistake_is_named, test_the_cases_tell_every_mistake_apart
