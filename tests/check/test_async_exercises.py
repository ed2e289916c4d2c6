"""The exercise checkers of the parameter-server and async-SGD notebooks name each mistake."""

import pytest

from tutorial.check.distributed import check_staleness_lr, check_step_batch


@pytest.mark.parametrize("answer, correct, phrase", [
    (lambda W, b: W * b, True, "Correct"),
    (lambda W, b: b, False, "W times too large"),
    (lambda W, b: W, False, "W ignores how many samples"),
    (lambda W, b: 1, False, "no normalisation"),
    (lambda W, b: None, False, "returned None"),
    (lambda W, b: 1 / 0, False, "raised ZeroDivisionError"),
    (lambda W, b: W * b + 1, False, "for W=2 workers of b=32 samples you return 65."),
    (lambda W, b: [W * b], False, "returned a list"),
])
def test_step_batch_checker(answer, correct, phrase):
    verdict = check_step_batch(answer)
    assert verdict.correct is correct and phrase in verdict.text


@pytest.mark.parametrize("answer, correct, phrase", [
    (lambda lr, tau: lr / max(1, tau), True, "Correct"),
    (lambda lr, tau: lr / tau, False, "keep the full lr"),
    (lambda lr, tau: lr / (tau + 1), False, "step 99"),
    (lambda lr, tau: lr * max(1, tau), False, "LARGER"),
    (lambda lr, tau: lr / max(1, tau) ** 2, False, "square"),
    (lambda lr, tau: lr, False, "staleness ignored"),
    (lambda lr, tau: lr / max(1, tau) + 0.01, False, "staleness_lr(0.1, 0) returned 0.11, "
                                                     "expected 0.1"),
    (lambda lr, tau: float("nan"), False, "returned nan"),
    (lambda lr, tau: None, False, "returned None"),
])
def test_staleness_lr_checker(answer, correct, phrase):
    verdict = check_staleness_lr(answer)
    assert verdict.correct is correct and phrase in verdict.text


def test_calling_the_staleness_aware_rate_is_refused_however_it_is_reached():
    from tutorial.parallel import async_sgd
    from tutorial.parallel.async_sgd import staleness_aware_lr as alias

    def imports_it(lr, staleness):
        from tutorial.parallel.async_sgd import staleness_aware_lr
        return staleness_aware_lr(lr, staleness)

    for answer in (async_sgd.staleness_aware_lr, lambda lr, tau: alias(lr, tau), imports_it):
        verdict = check_staleness_lr(answer)
        assert not verdict.correct and "calls the library's reference" in verdict.text
    assert check_staleness_lr(lambda lr, tau: lr / max(1, tau)).correct   # the watch is off again
