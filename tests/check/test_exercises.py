"""Every course notebook holds exactly the exercise that tutorial/check/exercises.py
registers for it, and no notebook gives an exercise's answer away."""

import ast
from pathlib import Path

import nbformat
import pytest

from instructor import solutions
from tutorial.check.exercises import EXERCISES, METADATA_KEY, by_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
COURSE = [p for p in NOTEBOOKS if p.stem != "00_setup"]     # every one has an exercise


def checker_calls(source):
    """Names of the check_* functions a cell calls, with the names passed to them."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [(node.func.id if isinstance(node.func, ast.Name) else node.func.attr,
             [a.id for a in node.args if isinstance(a, ast.Name)])
            for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")).startswith("check_")]


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.stem)
def test_each_notebook_has_exactly_its_registered_exercise(path):
    exercise = by_notebook(path.stem)
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and checker_calls(c.source)]
    assert len(cells) == 1, f"{path.name}: {len(cells)} cells call a checker"
    cell = cells[0]
    assert checker_calls(cell.source) == [(exercise.checker_name, [exercise.function])]
    assert exercise.import_line in cell.source.splitlines()
    defined = [n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)]
    assert defined == [exercise.function]
    assert cell.metadata.get(METADATA_KEY) == {"exercise": exercise.function}
    marked = [c for c in nb.cells if METADATA_KEY in c.metadata
              and "exercise" in c.metadata[METADATA_KEY]]
    assert marked == [cell]
    others = [c for c in nb.cells if c is not cell and f"def {exercise.function}(" in c.source]
    assert others == [], f"{path.name} defines {exercise.function} outside its exercise cell"


def test_every_registered_exercise_is_in_a_course_notebook_once():
    assert sorted(e.notebook for e in EXERCISES) == [p.stem for p in COURSE]
    assert len({e.function for e in EXERCISES}) == len(EXERCISES)
    for exercise in EXERCISES:
        assert callable(exercise.checker())


def test_an_unregistered_notebook_is_named():
    with pytest.raises(ValueError, match="no exercise is registered for notebook '10_new'"):
        by_notebook("10_new")


def _texts(cell):
    yield cell.source
    for output in cell.get("outputs", []):
        yield output.get("text", "")
        yield str(output.get("data", {}).get("text/plain", ""))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_notebook_prints_or_states_an_answer(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        bare = "".join("".join(_texts(cell)).split())
        for function, phrases in solutions.GIVEAWAYS.items():
            found = [p for p in phrases if p in bare]
            assert not found, f"{path.name}, cell {cell.get('id')}: {found} gives {function} away"


def test_no_quiz_gives_an_answer_away():
    """A quiz shows its explanations in the notebook (after a second wrong attempt)."""
    from tutorial.quizzes import QUIZZES
    for topic, quiz in QUIZZES.items():
        for question in quiz.questions:
            texts = [question.text] + [t for o in question.options for t in (o.text, o.why)]
            bare = "".join("".join(texts).split())
            for function, phrases in solutions.GIVEAWAYS.items():
                found = [p for p in phrases if p in bare]
                assert not found, f"quiz {topic!r}, {question.text!r}: {found} gives " \
                                  f"{function} away"
