"""A learner's progress is read from their notebooks without changing them: "passes" for
the instructor's solution, "not started" for the stub, "not yet" with the checker's first
sentence for a wrong answer, one clear line for a broken notebook, and an endless loop
stops at the time limit."""

import inspect
import json
import os
import runpy
import shutil
import textwrap
from pathlib import Path

import pytest

from bounded import within
from instructor import solutions
from tutorial.check import environment, exercise_progress
from tutorial.check.exercises import EXERCISES, METADATA_KEY, by_notebook
from tutorial.check.limits import can_limit

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LIMIT_S = 0.5


def exercise_cell(nb, function):
    return next(c for c in nb["cells"]
                if c.get("metadata", {}).get(METADATA_KEY, {}).get("exercise") == function)


def with_answer(folder, stem, code, keep_marker=True):
    """Put ``code`` in place of the stub's definition in the copy of ``stem`` in ``folder``."""
    exercise = by_notebook(stem)
    path = folder / f"{stem}.ipynb"
    nb = json.loads(path.read_text())
    cell = exercise_cell(nb, exercise.function)
    lines = "".join(cell["source"]).splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {exercise.function}("))
    stop = next(i for i in range(start + 1, len(lines))
                if lines[i].strip() and not lines[i].startswith((" ", "#")))
    cell["source"] = "".join(lines[:start]) + code.rstrip("\n") + "\n\n\n" + "".join(lines[stop:])
    if not keep_marker:
        del cell["metadata"][METADATA_KEY]
    path.write_text(json.dumps(nb))


@pytest.fixture
def copies(tmp_path):
    for exercise in EXERCISES:
        shutil.copy(NOTEBOOKS / f"{exercise.notebook}.ipynb", tmp_path)
    return tmp_path


def statuses(folder, seconds=LIMIT_S):
    return {row.function: row.status for row in exercise_progress.progress(folder, seconds)}


def test_the_committed_stubs_are_not_started_and_the_notebooks_stay_unchanged():
    paths = [NOTEBOOKS / f"{e.notebook}.ipynb" for e in EXERCISES]
    before = [(p.read_bytes(), os.stat(p).st_mtime_ns) for p in paths]
    found = statuses(NOTEBOOKS, seconds=5.0)
    assert found == {e.function: "not started" for e in EXERCISES}
    assert [(p.read_bytes(), os.stat(p).st_mtime_ns) for p in paths] == before


def test_the_instructors_solutions_pass(copies):
    for exercise in EXERCISES:
        with_answer(copies, exercise.notebook,
                    inspect.getsource(getattr(solutions, exercise.function)))
    assert statuses(copies, seconds=5.0) == {e.function: "passes" for e in EXERCISES}


def test_a_wrong_answer_gets_the_checkers_first_sentence(copies):
    with_answer(copies, "01_sgd", "def piecewise_constant_lr(step, boundaries, values):\n"
                                  "    return values[sum(step > b for b in boundaries)]\n")
    with_answer(copies, "07_parameter_server",
                "def step_batch(num_workers, batch_per_worker):\n    return batch_per_worker\n")
    found = statuses(copies)
    assert found["piecewise_constant_lr"] == ("not yet: changes one step late: at a step equal "
                                              "to a boundary your rate is still the old one.")
    assert found["step_batch"] == ("not yet: normalised by the per-worker batch: the server "
                                   "SUMS the W workers' gradients, so every step would be W "
                                   "times too large (like lr * W).")


def test_only_the_definitions_and_the_imports_they_use_run(copies):
    code = textwrap.dedent('''\
        import not_a_module_anyone_has
        SCALE = 1 / 0

        def helper(rate):
            return 1 / (1 - rate)

        def dropout(x, rate, rng):
            return x * (rng.uniform(size=x.shape) >= rate) * helper(rate)
        ''')
    with_answer(copies, "04_capacity", code, keep_marker=False)
    # a right answer's check takes a process start, the answer and its replay: room for a
    # loaded machine (the limit itself is tested with endless loops below)
    assert statuses(copies, seconds=5.0)["dropout"] == "passes"


@pytest.mark.skipif(not can_limit(), reason="the time limit needs SIGALRM in the main thread")
def test_an_endless_loop_stops_at_the_limit(copies):
    with_answer(copies, "09_async_sgd", "def staleness_lr(lr, staleness):\n    while True:\n"
                                        "        pass\n")
    endless_default = "def clip_by_global_norm(grads, max_norm=[0 for _ in iter(int, 1)]):\n"
    with_answer(copies, "02_momentum", endless_default + "    return grads\n")
    c_level_default = "def adam_step(w, g, m, v, t, lr, b1, b2, eps, n=sum(range(10**10))):\n"
    with_answer(copies, "03_adaptive", c_level_default + "    return w, m, v\n")
    with within(30, "progress with endless loops"):
        found = statuses(copies)
    assert found["staleness_lr"].startswith(f"not yet: your staleness_lr did not return within "
                                            f"{LIMIT_S:g} s")
    assert found["clip_by_global_norm"] == (f"cannot check: defining clip_by_global_norm did "
                                            f"not finish within {LIMIT_S:g} s")
    assert found["adam_step"] == (f"cannot check: defining adam_step did not finish within "
                                  f"{LIMIT_S:g} s")


def test_broken_notebooks_get_one_clear_line(copies):
    (copies / "01_sgd.ipynb").write_text('{"cells": [')
    (copies / "02_momentum.ipynb").unlink()
    with_answer(copies, "03_adaptive", "def adam_step(w, g, m, v, t, lr, beta1, beta2, eps):\n"
                                       "    return w -\n")
    nb = json.loads((copies / "05_data_parallel.ipynb").read_text())
    nb["cells"] = [c for c in nb["cells"] if "def combine_gradients" not in "".join(c["source"])]
    (copies / "05_data_parallel.ipynb").write_text(json.dumps(nb))
    (copies / "06_allreduce.ipynb").write_text("[]")
    found = statuses(copies)
    assert found["piecewise_constant_lr"].startswith("cannot check: 01_sgd.ipynb is not a "
                                                     "valid notebook file")
    assert found["clip_by_global_norm"] == "cannot check: 02_momentum.ipynb is missing"
    assert found["adam_step"].startswith("cannot check: the exercise cell does not parse "
                                         "(invalid syntax, line ")
    assert found["combine_gradients"] == ("cannot check: no exercise cell for combine_gradients "
                                          "(a code cell with `def combine_gradients`)")
    assert found["chain"] == "cannot check: 06_allreduce.ipynb is not a valid notebook file (no " \
                             "list of cells)"
    assert found["dropout"] == "not started"


def test_an_exit_in_the_learners_code_does_not_end_the_self_check(copies):
    with_answer(copies, "09_async_sgd", "def staleness_lr(lr, staleness):\n"
                                        "    raise SystemExit(3)\n")
    assert statuses(copies)["staleness_lr"].startswith("not yet: your staleness_lr called "
                                                       "sys.exit(3)")


def test_the_report_counts_passes_and_says_exercises_do_not_fail_the_self_check():
    rows = [exercise_progress.Row("01_sgd", "piecewise_constant_lr", "passes"),
            exercise_progress.Row("02_momentum", "clip_by_global_norm", "not yet: squared norm.")]
    text = exercise_progress.report(rows)
    assert "1 of 2 exercises pass" in text and "not a failure" in text
    assert "02_momentum          clip_by_global_norm   not yet: squared norm." in text


@pytest.mark.parametrize("setup_ok, code", [(True, 0), (False, 1)])
def test_selfcheck_exits_on_the_setup_checks_alone(monkeypatch, capsys, setup_ok, code):
    monkeypatch.setattr(environment, "run_checks",
                        lambda: [environment.Result("python", setup_ok, "3.11")])
    monkeypatch.setattr(exercise_progress, "progress", lambda: [
        exercise_progress.Row(e.notebook, e.function, "not started") for e in EXERCISES])
    with pytest.raises(SystemExit) as stop:
        runpy.run_module("tutorial.check", run_name="__main__")
    assert stop.value.code == code
    out = capsys.readouterr().out
    assert "Your exercises" in out and f"0 of {len(EXERCISES)} exercises pass" in out and "not a failure" in out
