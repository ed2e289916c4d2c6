"""Exercise checkers for the parameter-server and asynchronous-SGD notebooks.

Each runs the learner's function on a few cases next to the reference and, when they
part, names the typical mistake it matches.

>>> print(check_step_batch(lambda num_workers, batch_per_worker: num_workers * batch_per_worker))
Correct: trainer.step(W * b) makes dist_sync take the same step as one process with the whole batch.
>>> print(check_step_batch(lambda num_workers, batch_per_worker: batch_per_worker).text)
Not yet: you normalise by the per-worker batch b. The server SUMS the W workers' gradients, so every step would be W times too large (like lr * W). Pass the total batch W * b.
>>> print(check_staleness_lr(lambda lr, staleness: lr / max(1, staleness)))
Correct: a fresh gradient keeps lr, one that is tau updates old gets lr / tau.
"""

from tutorial.check.feedback import Verdict, checker
from tutorial.parallel.async_sgd import staleness_aware_lr
from tutorial.validate import is_number

STEP_CASES = ((2, 32), (4, 16), (1, 64), (8, 3))
STALENESS_CASES = ((0.1, 0), (0.1, 1), (0.4, 2), (0.3, 10), (1.0, 7))


def _call(fn, args):
    try:
        return fn(*args), None
    except Exception as error:                   # the learner's code may raise anything
        return None, f"{type(error).__name__}: {error}"


def _not_a_number(name, args, value, what):
    """A message when the learner's function returned something other than one number."""
    if value is None:
        return f"Not yet: your function returned None; return {what}."
    if is_number(value):
        return None
    call = f"{name}({', '.join(map(repr, args))})"
    return (f"Not yet: {call} returned a {type(value).__name__}; return {what}, one plain "
            f"number such as 0.1 or 64.")


@checker("step_batch", "step_batch(num_workers, batch_per_worker) with two whole numbers, "
                       "returning one number")
def check_step_batch(step_batch):
    """``step_batch(num_workers, batch_per_worker)``: the n each worker passes to
    ``trainer.step(n)``."""
    answers = {}
    for W, b in STEP_CASES:
        got, error = _call(step_batch, (W, b))
        if error:
            return Verdict(False, f"Not yet: step_batch({W}, {b}) raised {error}.")
        problem = _not_a_number("step_batch", (W, b), got, "a number")
        if problem:
            return Verdict(False, problem)
        answers[(W, b)] = got
    if all(answers[(W, b)] == W * b for W, b in STEP_CASES):
        return Verdict(True, "Correct: trainer.step(W * b) makes dist_sync take the same step "
                             "as one process with the whole batch.")
    if all(answers[(W, b)] == b for W, b in STEP_CASES):
        return Verdict(False, "Not yet: you normalise by the per-worker batch b. The server SUMS "
                              "the W workers' gradients, so every step would be W times too "
                              "large (like lr * W). Pass the total batch W * b.")
    if all(answers[(W, b)] == W for W, b in STEP_CASES):
        return Verdict(False, "Not yet: W alone ignores how many samples each gradient sums "
                              "over. The server's sum covers W * b samples.")
    W, b = next((W, b) for W, b in STEP_CASES if answers[(W, b)] != W * b)
    return Verdict(False, f"Not yet: for W={W} workers of b={b} samples you return "
                          f"{answers[(W, b)]!r}. The server sums gradients over how many samples?")


@checker("staleness_lr", "staleness_lr(lr, staleness) with a float lr and a whole number "
                         "staleness >= 0, returning one number")
def check_staleness_lr(staleness_lr):
    """``staleness_lr(lr, staleness)``: Zhang et al.'s staleness-aware learning rate."""
    got = {}
    for lr, tau in STALENESS_CASES:
        value, error = _call(staleness_lr, (lr, tau))
        if error:
            hint = (" A fresh gradient has staleness 0: it should keep the full lr (divide by "
                    "max(1, staleness))." if "ZeroDivision" in error else "")
            return Verdict(False, f"Not yet: staleness_lr({lr}, {tau}) raised {error}.{hint}")
        problem = _not_a_number("staleness_lr", (lr, tau), value, "the rate")
        if problem:
            return Verdict(False, problem)
        got[(lr, tau)] = float(value)

    def close(expected):
        return all(abs(got[c] - expected(*c)) <= 1e-12 * max(1.0, abs(expected(*c)))
                   for c in STALENESS_CASES)

    if close(staleness_aware_lr):
        return Verdict(True, "Correct: a fresh gradient keeps lr, one that is tau updates old "
                             "gets lr / tau.")
    if close(lambda lr, tau: lr / (tau + 1)):
        return Verdict(False, "Not yet: lr / (staleness + 1) halves the rate of a gradient only "
                              "one update old. In the post's example a gradient computed at step "
                              "99 and applied at step 100 keeps lr / 1.")
    if close(lambda lr, tau: lr * max(1, tau)):
        return Verdict(False, "Not yet: you multiply by the staleness: older gradients would get "
                              "LARGER steps. Divide instead.")
    if close(lambda lr, tau: lr / max(1, tau) ** 2):
        return Verdict(False, "Not yet: dividing by the square of the staleness is a valid idea "
                              "(the post mentions it) but Zhang et al. divide by the staleness.")
    lr, tau = next(c for c in STALENESS_CASES if abs(got[c] - staleness_aware_lr(*c)) > 1e-12)
    return Verdict(False, f"Not yet: staleness_lr({lr}, {tau}) returned {got[(lr, tau)]!r}, "
                          f"expected {staleness_aware_lr(lr, tau)!r}.")
