"""Every exercise checker answers garbage with a clear Verdict, within its time limit.

One table of bad answers (not a function at all, a function that raises, returns the
wrong thing, is still the stub, or never returns) is fed to the checker of every exercise
in ``tutorial.check.exercises``. Each must come back as ``Verdict(correct=False, "Not
yet: ...")`` naming the mistake, without a traceback and without giving the answer away
(``instructor/solutions.py``'s GIVEAWAYS). Every call runs under ``within``: a checker
that hangs fails the test instead of hanging the run.
"""

import os
import re
import signal
import sys
import threading
import time

import numpy as np
import pytest

from bounded import within
from instructor import solutions
from tutorial.check import distributed
from tutorial.check.exercises import EXERCISES
from tutorial.check.feedback import Verdict
from tutorial.check.limits import TimeLimitExceeded, time_limit

LIMIT_S = 1.0       # room for a process start and the replay on a loaded machine
CHECKERS = {e.function: e.checker() for e in EXERCISES}


def gives_away(text, function):
    """The first GIVEAWAYS phrase of ``function`` in ``text`` (spaces ignored), or None."""
    bare = "".join(text.split())
    return next((p for p in solutions.GIVEAWAYS[function] if p in bare), None)


def raises(*args, **kwargs):
    raise RuntimeError("boom")


def spins(*args, **kwargs):
    while True:
        pass


def sleeps(*args, **kwargs):
    while True:
        time.sleep(0.01)


def stub(*args, **kwargs):
    raise NotImplementedError


def swallows_everything(*args, **kwargs):
    while True:
        try:
            time.sleep(0.01)
        except Exception:                 # a learner's blanket except must not hide the limit
            pass


def swallows_with_bare_except(*args, **kwargs):
    while True:
        try:
            time.sleep(0.01)
        except:                           # noqa: E722 (a bare except swallows even the limit)
            pass


def loops_in_c(*args, **kwargs):
    return sum(range(10**10))             # one C call: no Python signal handler runs inside


def exits(*args, **kwargs):
    sys.exit("bye")


def interrupts(*args, **kwargs):
    raise KeyboardInterrupt


def ends_the_process(*args, **kwargs):
    os._exit(3)


GARBAGE = [  # name, answer, expected phrase (or {exercise: phrase}, one for every exercise)
    ("None", None, "but got None. Run the cell that defines"),
    ("nan", float("nan"), r"got a float \(nan\), which looks like a result, not a function"),
    ("text", "my_answer", "got the text 'my_answer', not a function. Pass the function itself"),
    ("int", 3, r"got an int \(3\), which looks like a result"),
    ("array", np.zeros(5), r"got a NumPy array of shape \(5,\), which looks like a result"),
    ("raises", raises, "raised RuntimeError: boom"),
    ("spins", spins, f"did not return within {LIMIT_S:g} s \\(an infinite loop\\?\\)"),
    ("sleeps", sleeps, f"did not return within {LIMIT_S:g} s"),
    ("swallows", swallows_everything, f"did not return within {LIMIT_S:g} s"),
    ("bare except", swallows_with_bare_except, f"did not return within {LIMIT_S:g} s"),
    ("C-level loop", loops_in_c, f"did not return within {LIMIT_S:g} s"),
    ("sys.exit", exits, r"called sys.exit\('bye'\), which would end the notebook's kernel"),
    ("KeyboardInterrupt", interrupts, "raised KeyboardInterrupt"),
    ("os._exit", ends_the_process, r"ended the process it ran in \(exit code 3"),
    ("stub", stub, "Not written yet: replace the `raise NotImplementedError`"),
    ("returns None", lambda *a, **k: None, {
        "piecewise_constant_lr":
            r"piecewise_constant_lr\(0, \[100, 150\], \[0.1, 0.01, 0.001\]\) returned None",
        "clip_by_global_norm": "on the case 'three arrays, clipped' returned None: end your",
        "adam_step": "must return \\(w, m, v\\)",
        "dropout": r"dropout\(x, 0.5, rng\) returned None for the dropped-out x",
        "combine_gradients": "returned None for the combined gradient",
        "chain": r"chain\(2, 8, itemsize=4\) returned a NoneType; return a Schedule",
        "step_batch": r"step_batch\(2, 32\) returned None",
        "trust_ratio": r"name='dense0_weight'\) returned None",
        "staleness_lr": r"staleness_lr\(0.1, 0\) returned None",
        "gpipe_schedule": r"gpipe_schedule\(2, 2\) returned None",
        "sync_mean_var": r"on the case '2 equal shards' returned NoneType",
        "post_local_schedule": r"post_local_schedule\(8, 4, 0\) returned None",
        "zero_bytes": r"zero_bytes\(1000, 4, 0, 2\) returned None",
        "merge_partials": r"merge_partials\(a, b\) on the case 'one row, by hand' returned None"}),
    ("returns text", lambda *a, **k: "abc", {
        "piecewise_constant_lr": "returned a str; return one plain number, the learning rate",
        "clip_by_global_norm": "returned a str; return a list of NumPy arrays, one per gradient",
        "adam_step": "it returned str",
        "dropout": "returned a str for the dropped-out x",
        "combine_gradients": "returned a str for the combined gradient",
        "chain": "returned a str; return a Schedule",
        "step_batch": r"step_batch\(2, 32\) returned a str",
        "trust_ratio": "returned a str",
        "staleness_lr": r"staleness_lr\(0.1, 0\) returned a str",
        "gpipe_schedule": r"gpipe_schedule\(2, 2\) returned a str",
        "sync_mean_var": "returned str; return the pair",
        "post_local_schedule": r"post_local_schedule\(8, 4, 0\) returned a str",
        "zero_bytes": "returned 'abc'; return three numbers",
        "merge_partials": r"returned a str; return the partial \(m, l, o\)"}),
    ("wrong shape", lambda *a, **k: np.zeros(3), {
        "piecewise_constant_lr": "returned a ndarray; return one plain number",
        "clip_by_global_norm": "returned a ndarray; return a list of NumPy arrays",
        "adam_step": "it returned ndarray",
        "dropout": r"with shape \(3,\); it must have shape \(500, 400\)",
        "combine_gradients": r"with shape \(3,\); it must have shape \(6,\)",
        "chain": "returned a ndarray; return a Schedule",
        "step_batch": "returned a ndarray", "trust_ratio": "returned a ndarray",
        "staleness_lr": "returned a ndarray",
        "gpipe_schedule": r"contains 0.0; each task must be a tuple of four",
        "sync_mean_var": "returned ndarray; return the pair",
        "post_local_schedule": r"contains a step outside 1 .. 8",
        "zero_bytes": r"returned \(0.0, 0.0, 0.0\)",
        "merge_partials": r"returned a ndarray of shape \(3,\); return the partial \(m, l, o\)"}),
    ("state of wrong shape", lambda *a, **k: (np.zeros(5),) + (np.zeros(2),) * 2, {
        "adam_step": r"returned m with shape \(2,\)"}),
]
CASES = [(exercise, name, answer, phrase if isinstance(phrase, str) else phrase[exercise])
         for name, answer, phrase in GARBAGE for exercise in CHECKERS
         if isinstance(phrase, str) or exercise in phrase]


def test_the_garbage_table_covers_every_registered_exercise():
    for name, _, phrase in GARBAGE:
        if isinstance(phrase, dict) and name != "state of wrong shape":
            assert set(phrase) == set(CHECKERS), name


@pytest.mark.parametrize("checker, name, answer, phrase", CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_every_checker_explains_every_garbage_answer(checker, name, answer, phrase):
    with within(30, f"{checker} on {name}"):
        verdict = CHECKERS[checker](answer, time_limit_s=LIMIT_S)
    assert isinstance(verdict, Verdict) and verdict.correct is False
    assert verdict.text.startswith(("Not yet:", "Not written yet:")), verdict.text
    assert gives_away(verdict.text, checker) is None, verdict.text
    assert pytest.approx(0) == signal.getitimer(signal.ITIMER_REAL)[0]   # timer disarmed
    assert re.search(phrase, verdict.text), verdict.text


def test_a_checker_in_another_thread_runs_without_a_limit():
    check, right = CHECKERS["step_batch"], solutions.step_batch
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


def test_what_the_answer_printed_is_shown_with_the_verdict(capsys):
    def chatty(*args, **kwargs):
        print("my debug line")
        raise RuntimeError("boom")

    with within(30, "a checker on a printing answer"):
        verdict = CHECKERS["step_batch"](chatty, time_limit_s=LIMIT_S)
    assert "raised RuntimeError: boom" in verdict.text
    assert "my debug line" in capsys.readouterr().out


def test_what_an_endless_answer_printed_before_it_was_stopped_is_shown(capsys):
    def chatty_forever(*args, **kwargs):
        print("still going", flush=True)
        while True:
            pass

    with within(30, "a checker on a printing endless answer"):
        verdict = CHECKERS["step_batch"](chatty_forever, time_limit_s=LIMIT_S)
    assert "did not return within" in verdict.text
    assert "still going" in capsys.readouterr().out
