"""Every exercise checker answers garbage with a clear Verdict, within its time limit.

One table of bad answers (not a function at all, a function that raises, returns the
wrong thing, or never returns) is fed to every checker. Each must come back as
``Verdict(correct=False, "Not yet: ...")`` naming the mistake, without a traceback and
without giving the answer away. Every call runs under ``within``: a checker that hangs
fails the test instead of hanging the run.
"""

import re
import signal
import threading
import time

import numpy as np
import pytest

from bounded import within
from tutorial.check import capacity, distributed, optimizers
from tutorial.check.limits import TimeLimitExceeded, time_limit

LIMIT_S = 0.5
CHECKERS = {   # checker, a right answer, text that would give the answer away
    "sgd": (optimizers.check_sgd, lambda w, g, lr, lam: (1 - 2 * lr * lam) * w - lr * g,
            "2*lr*lam) w - lr"),
    "momentum": (optimizers.check_momentum,
                 lambda w, g, s, lr, mu: (w - (mu * s + lr * g), mu * s + lr * g), "mu*s + lr*g"),
    "adam": (optimizers.check_adam, None, "sqrt(v_hat) + eps"),
    "dropout": (capacity.check_dropout,
                lambda x, rate, rng: x * (rng.uniform(size=x.shape) >= rate) / (1 - rate),
                "* keep / (1 - rate)"),
    "step_batch": (distributed.check_step_batch, lambda W, b: W * b, "W * b"),
    "staleness_lr": (distributed.check_staleness_lr, lambda lr, tau: lr / max(1, tau),
                     "lr / max(1, staleness)"),
}


def raises(*args, **kwargs):
    raise RuntimeError("boom")


def spins(*args, **kwargs):
    while True:
        pass


def sleeps(*args, **kwargs):
    while True:
        time.sleep(0.01)


def swallows_everything(*args, **kwargs):
    while True:
        try:
            time.sleep(0.01)
        except Exception:                 # a learner's blanket except must not hide the limit
            pass


STATEFUL = {"momentum", "adam"}
GARBAGE = [  # name, answer, expected phrase (or {checker: phrase})
    ("None", None, "but got None. Run the cell that defines"),
    ("nan", float("nan"), r"got a float \(nan\), which looks like a result, not a function"),
    ("text", "my_answer", "got the text 'my_answer', not a function. Pass the function itself"),
    ("int", 3, r"got an int \(3\), which looks like a result"),
    ("array", np.zeros(5), r"got a NumPy array of shape \(5,\), which looks like a result"),
    ("raises", raises, "raised RuntimeError: boom"),
    ("spins", spins, f"did not return within {LIMIT_S:g} s \\(an infinite loop\\?\\)"),
    ("sleeps", sleeps, f"did not return within {LIMIT_S:g} s"),
    ("swallows", swallows_everything, f"did not return within {LIMIT_S:g} s"),
    ("returns None", lambda *a, **k: None, {
        "sgd": "returned None for w: end it with `return", "momentum": "must return \\(w, s\\)",
        "adam": "must return \\(w, m, v\\)", "dropout": "dropout returned None",
        "step_batch": "returned None", "staleness_lr": "returned None"}),
    ("returns text", lambda *a, **k: "abc", {
        "sgd": "returned a str for w; return a NumPy array of numbers",
        "momentum": "it returned str", "adam": "it returned str",
        "dropout": "dropout returned a str", "step_batch": r"step_batch\(2, 32\) returned a str",
        "staleness_lr": r"staleness_lr\(0.1, 0\) returned a str"}),
    ("wrong shape", lambda *a, **k: np.zeros(3), {
        "sgd": r"returned w with shape \(3,\); it must keep the shape",
        "momentum": "it returned ndarray", "adam": "it returned ndarray",
        "dropout": r"shaped like x \(500, 400\), got \(3,\)",
        "step_batch": "returned a ndarray", "staleness_lr": "returned a ndarray"}),
    ("state of wrong shape", lambda *a, **k: (np.zeros(5),) + (np.zeros(2),) * 2, {
        "momentum": "must return \\(w, s\\)", "adam": r"returned m with shape \(2,\)"}),
]
CASES = [(checker, name, answer, phrase if isinstance(phrase, str) else phrase[checker])
         for name, answer, phrase in GARBAGE for checker in CHECKERS
         if isinstance(phrase, str) or checker in phrase]


@pytest.mark.parametrize("checker, name, answer, phrase", CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_every_checker_explains_every_garbage_answer(checker, name, answer, phrase):
    check, _, secret = CHECKERS[checker]
    with within(30, f"{checker} on {name}"):
        verdict = check(answer, time_limit_s=LIMIT_S)
    assert isinstance(verdict, optimizers.Verdict) and verdict.correct is False
    assert verdict.text.startswith(("Not yet:", "Not written yet:")), verdict.text
    assert secret not in verdict.text
    assert pytest.approx(0) == signal.getitimer(signal.ITIMER_REAL)[0]   # timer disarmed
    assert re.search(phrase, verdict.text), verdict.text


def test_right_answers_still_pass_behind_the_guard():
    for name, (check, right, _) in CHECKERS.items():
        if right is not None:
            assert check(right).correct, name


def test_a_checker_in_another_thread_runs_without_a_limit():
    check, right, _ = CHECKERS["step_batch"]
    out = []
    worker = threading.Thread(target=lambda: out.append(check(right, time_limit_s=LIMIT_S)))
    worker.start()
    worker.join(30)
    assert out and out[0].correct


def test_the_limit_puts_back_an_outer_timer_and_handler():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 5.0)
        with time_limit(1.0):
            pass
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < left <= 5.0
        with within(30, "the outer timer"):
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            while not fired:
                time.sleep(0.01)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf"), "5"])
def test_a_bad_time_limit_is_refused(seconds):
    with pytest.raises(ValueError, match="time_limit_s=.* is out of range"):
        distributed.check_step_batch(lambda W, b: W * b, time_limit_s=seconds)
    with pytest.raises(ValueError, match="seconds=.* is out of range"), time_limit(seconds):
        pass


def test_time_limit_exceeded_is_not_an_exception():
    assert not issubclass(TimeLimitExceeded, Exception)
