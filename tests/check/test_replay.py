"""An answer that tampers with the checker in the process it runs in does not pass: the
verdict is confirmed where the answer never ran (the answer's calls replayed), and the
profiler that notices calls of the reference cannot be switched off."""

import sys

import numpy as np
import pytest

from instructor.solutions import post_local_schedule, zero_bytes
from tutorial.check import memory, mistakes, own_work, scaling_out
from tutorial.check.memory import check_zero_bytes
from tutorial.check.scaling_out import check_post_local_schedule


def wrong(P, K, stage, copies):
    return 1.0, 2.0, 3.0


def same_always_true(P, K, stage, copies):
    memory.same = mistakes.same = lambda *args, **kwargs: True
    return wrong(P, K, stage, copies)


def allclose_always_true(P, K, stage, copies):
    np.allclose = lambda *args, **kwargs: True
    return wrong(P, K, stage, copies)


def reference_that_agrees(P, K, stage, copies):
    memory._expected = wrong
    return wrong(P, K, stage, copies)


@pytest.mark.parametrize("answer", [same_always_true, allclose_always_true,
                                    reference_that_agrees])
def test_a_wrong_answer_that_rebinds_the_checkers_helpers_does_not_pass(answer):
    verdict = check_zero_bytes(answer)
    assert not verdict.correct, verdict.text
    assert memory.same is mistakes.same and np.allclose is not None    # the kernel's untouched


def profiler_off(P, K, stage, copies):
    sys.setprofile(None)
    return memory._expected(P, K, stage, copies)


def profiler_off_quietly(P, K, stage, copies):
    try:
        sys.setprofile(None)
    except Exception:
        pass
    return memory._expected(P, K, stage, copies)


def refusal_off(P, K, stage, copies):
    memory.refuse_if_called = lambda *args, **kwargs: None
    return memory._expected(P, K, stage, copies)


def watch_of_its_own(P, K, stage, copies):
    with own_work.watching(wrong):
        return memory._expected(P, K, stage, copies)


@pytest.mark.parametrize("answer, says", [
    (profiler_off, "raised RuntimeError: the checker watches which functions your answer "
                   "calls: leave sys.setprofile alone"),
    (profiler_off_quietly, "calls the library's reference"),
    (refusal_off, "calls the library's reference"),
    (watch_of_its_own, "calls the library's reference"),
])
def test_an_answer_that_hides_its_call_of_the_reference_is_refused(answer, says):
    verdict = check_zero_bytes(answer)
    assert not verdict.correct and says in verdict.text, verdict.text


def test_an_answer_that_rebinds_another_checkers_reference_does_not_pass():
    def no_steps(T, H, S):
        scaling_out.averaging_steps = lambda T, H, S: []
        return []

    verdict = check_post_local_schedule(no_steps)
    assert not verdict.correct, verdict.text
    assert check_post_local_schedule(post_local_schedule).correct


def test_a_right_answer_still_passes_and_the_kernel_keeps_its_profiler():
    def outer(frame, event, arg):
        return None

    sys.setprofile(outer)
    try:
        assert check_zero_bytes(zero_bytes).correct
        assert sys.getprofile() is outer
    finally:
        sys.setprofile(None)
