"""Exercise checkers for the parameter-server and asynchronous-SGD notebooks.

Each runs the learner's function on a few cases next to the reference and, when they
part, names the typical mistake (a :class:`tutorial.check.mistakes.Mistake`) it matches.

>>> print(check_step_batch(lambda num_workers, batch_per_worker: num_workers * batch_per_worker))
Correct: trainer.step with that number makes dist_sync take the same step as one process with the whole batch.
>>> print(check_step_batch(lambda num_workers, batch_per_worker: batch_per_worker).text)
Not yet: normalised by the per-worker batch: the server SUMS the W workers' gradients, so every step would be W times too large (like lr * W). Over how many samples is that sum taken?
>>> print(check_staleness_lr(lambda lr, staleness: lr / max(1, staleness)))
Correct: a fresh gradient keeps lr, one that is tau updates old gets lr / tau.

The staleness checker's reference, :func:`tutorial.parallel.async_sgd.staleness_aware_lr`,
sits in the module whose ``simulate`` the notebook imports: an answer that calls it is
refused (:mod:`tutorial.check.own_work`).

>>> print(check_staleness_lr(staleness_aware_lr).text[:55])      # the reference itself
Not yet: your staleness_lr calls the library's referenc
"""

from tutorial.check.answers import Wrong, as_number, call
from tutorial.check.feedback import Verdict, checker, shown
from tutorial.check.mistakes import Mistake, first_match, same
from tutorial.check.own_work import refuse_if_called, watching
from tutorial.parallel.async_sgd import staleness_aware_lr

STEP_CASES = ((2, 32), (4, 16), (1, 64), (8, 3))
STALENESS_CASES = ((0.1, 0), (0.1, 1), (0.4, 2), (0.3, 10), (1.0, 7))

STEP_MISTAKES = (
    Mistake("normalised by the per-worker batch",
            "the server SUMS the W workers' gradients, so every step would be W times too "
            "large (like lr * W). Over how many samples is that sum taken?",
            lambda W, b: b),
    Mistake("the number of workers alone",
            "W ignores how many samples each gradient sums over; the server's sum covers "
            "every sample of every worker.",
            lambda W, b: W),
    Mistake("no normalisation", "trainer.step(1) leaves the summed gradient unscaled: every "
                                "step would be as large as the batch is big.",
            lambda W, b: 1),
)

STALENESS_MISTAKES = (
    Mistake("one too many", "lr / (staleness + 1) halves the rate of a gradient only one "
                            "update old. In the post's example a gradient computed at step 99 "
                            "and applied at step 100 keeps the full lr.",
            lambda lr, tau: lr / (tau + 1)),
    Mistake("multiplied", "you multiply by the staleness: older gradients would get LARGER "
                          "steps. Divide instead.",
            lambda lr, tau: lr * max(1, tau)),
    Mistake("squared", "dividing by the square of the staleness is a valid idea (the post "
                       "mentions it) but Zhang et al. divide by the staleness itself.",
            lambda lr, tau: lr / max(1, tau) ** 2),
    Mistake("staleness ignored", "every gradient keeps lr: a stale one should get a smaller "
                                 "rate, the staler the smaller.",
            lambda lr, tau: lr),
)


def _answers(function, name, cases):
    return [as_number(call(function, f"{name}{case}", *case), f"{name}{case}")
            for case in cases]


@checker("step_batch", "step_batch(num_workers, batch_per_worker) with two whole numbers, "
                       "returning one number")
def check_step_batch(step_batch):
    """``step_batch(num_workers, batch_per_worker)``: the n each worker passes to
    ``trainer.step(n)``."""
    got = _answers(step_batch, "step_batch", STEP_CASES)
    if same(got, [W * b for W, b in STEP_CASES], rtol=0, atol=0):
        return Verdict(True, "Correct: trainer.step with that number makes dist_sync take "
                             "the same step as one process with the whole batch.")
    mistake = first_match(STEP_MISTAKES, got,
                          lambda wrong: [wrong(*case) for case in STEP_CASES])
    if mistake:
        return mistake.verdict()
    (W, b), value = next((c, v) for c, v in zip(STEP_CASES, got) if v != c[0] * c[1])
    raise Wrong(f"for W={W} workers of b={b} samples you return {value:g}. The server sums "
                f"gradients over how many samples?")


@checker("staleness_lr", "staleness_lr(lr, staleness) with a float lr and a whole number "
                         "staleness >= 0, returning one number")
def check_staleness_lr(staleness_lr):
    """``staleness_lr(lr, staleness)``: Zhang et al.'s staleness-aware learning rate."""
    try:
        with watching(staleness_aware_lr) as seen:
            got = _answers(staleness_lr, "staleness_lr", STALENESS_CASES)
    except Wrong as wrong:
        if "ZeroDivision" not in str(wrong):
            raise
        raise Wrong(f"{wrong}. A fresh gradient has staleness 0: it should keep the full lr "
                    f"(dividing by 0 is not the rule for it)") from None
    refuse_if_called(seen, "staleness_lr")
    want = [staleness_aware_lr(*case) for case in STALENESS_CASES]
    if same(got, want, rtol=1e-12, atol=1e-15):
        return Verdict(True, "Correct: a fresh gradient keeps lr, one that is tau updates old "
                             "gets lr / tau.")
    mistake = first_match(STALENESS_MISTAKES, got,
                          lambda wrong: [wrong(*case) for case in STALENESS_CASES])
    if mistake:
        return mistake.verdict()
    case, value, expected = next((c, g, w) for c, g, w in zip(STALENESS_CASES, got, want)
                                 if not same(g, w, rtol=1e-12, atol=1e-15))
    raise Wrong(f"staleness_lr{case} returned {shown(value)}, expected {shown(expected)}")
