"""The instructor's solutions pass their checkers, and every typical mistake a checker
lists is named when a learner makes it, without the answer in the message."""

import importlib

import pytest

from instructor import solutions
from tutorial.check.exercises import EXERCISES
from tutorial.check.mistakes import Mistake
from tutorial.check.updates import UpdateRule


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.function)
def test_every_solution_passes_its_checker(exercise):
    verdict = exercise.checker()(getattr(solutions, exercise.function))
    assert verdict.correct and verdict.started, verdict.text
    assert verdict.text.startswith("Correct:")


def test_there_is_one_solution_and_one_giveaway_list_per_exercise():
    names = {e.function for e in EXERCISES}
    defined = {n for n, f in vars(solutions).items()
               if callable(f) and getattr(f, "__module__", "") == solutions.__name__}
    assert defined == names and set(solutions.GIVEAWAYS) == names


def _mistakes(module):
    """Every Mistake a checker module lists (in tables, or in its UpdateRules)."""
    found = []
    for value in vars(module).values():
        if isinstance(value, UpdateRule):
            found += value.mistakes
        elif isinstance(value, tuple) and value and all(isinstance(m, Mistake) for m in value):
            found += value
    return list(dict.fromkeys(found))


LISTED = [(module, mistake) for module in sorted({e.module for e in EXERCISES})
          for mistake in _mistakes(importlib.import_module(f"tutorial.check.{module}"))]


@pytest.mark.parametrize("module, mistake", LISTED, ids=[f"{m}-{x.what}" for m, x in LISTED])
def test_every_listed_mistake_is_named_and_keeps_the_answer_hidden(module, mistake):
    exercises = [e for e in EXERCISES if e.module == module]
    verdicts = {e.function: e.checker()(mistake.answer) for e in exercises}
    named = [f for f, v in verdicts.items() if v.text == mistake.verdict().text]
    assert named, f"no checker in {module} names {mistake.what!r}: {verdicts}"
    bare = "".join(mistake.verdict().text.split())
    for function in named:
        assert not any(p in bare for p in solutions.GIVEAWAYS[function]), mistake.verdict().text


def test_every_checker_module_lists_its_mistakes():
    assert all(_mistakes(importlib.import_module(f"tutorial.check.{e.module}"))
               for e in EXERCISES if e.module != "capacity")   # dropout: by statistics
