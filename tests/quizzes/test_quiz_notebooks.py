"""The notebooks show quizzes without their answers.

Each notebook after 00_setup has one quiz cell, ``quiz_for("topic")`` with its source collapsed;
no cell types a question out, and nothing saved in a notebook (sources, outputs, widget
state) contains an explanation, which would give the answer away.
"""

import json
import re

import nbformat
import pytest

from tutorial.jupyter.lab import NOTEBOOKS
from tutorial.quizzes import QUIZZES

QUIZ_CELL = re.compile(r'from tutorial\.viz\.quiz import quiz_for\n+quiz_for\("(\w+)"\)')
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
WITH_QUIZ = [p for p in PATHS if p.name[:2] != "00"]   # every notebook after the setup


def quiz_cells(nb):
    return [c for c in nb.cells
            if c.cell_type == "code" and re.search(r"\bquiz(_for)?\(", c.source)]


def strings(value):
    """Every string in a notebook's JSON, wherever it sits."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@pytest.mark.parametrize("path", WITH_QUIZ, ids=[p.stem for p in WITH_QUIZ])
def test_each_notebook_has_one_hidden_quiz_cell_on_a_registered_topic(path):
    cells = quiz_cells(nbformat.read(path, as_version=4))
    assert len(cells) == 1, f"{path.name}: {len(cells)} quiz cells"
    match = QUIZ_CELL.fullmatch(cells[0].source.strip())
    assert match, f"{path.name}: the quiz cell should only call quiz_for: {cells[0].source!r}"
    assert match.group(1) in QUIZZES
    assert cells[0].metadata.get("jupyter", {}).get("source_hidden") is True


def test_every_registered_quiz_is_shown_by_one_notebook():
    shown = [QUIZ_CELL.search(c.source).group(1) for p in WITH_QUIZ
             for c in quiz_cells(nbformat.read(p, as_version=4))]
    assert sorted(shown) == sorted(QUIZZES)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_no_cell_types_out_a_question_or_its_options(path):
    nb = nbformat.read(path, as_version=4)
    options = {o.text for quiz in QUIZZES.values() for q in quiz.questions
               for o in q.options if len(o.text) > 12}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        assert "Question(" not in cell.source, f"{path.name}: a question typed in a cell"
        if cell in quiz_cells(nb):
            assert not [o for o in options if o in cell.source]


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_nothing_saved_in_a_notebook_contains_an_explanation(path):
    saved = "\n".join(strings(json.loads(path.read_text(encoding="utf-8"))))
    for quiz in QUIZZES.values():
        for question in quiz.questions:
            for option in question.options:
                assert option.why not in saved, (path.name, option.text)
