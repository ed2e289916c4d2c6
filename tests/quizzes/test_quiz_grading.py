"""The grader's rules, on every question of every registered quiz and every selection.

A wrong first answer explains each option ticked wrongly and only counts the right options
still unticked; the second wrong answer or Show answer reveals every option; a right
answer explains the right options. The rules are checked on all subsets of every
question's options, so a question whose explanations would give the answer away fails.
"""

import itertools

import pytest

from tutorial.quizzes import QUIZZES
from tutorial.quizzes.grading import (ANSWER, EMPTY, NOT_YET, REVEAL_AT, RIGHT, grade,
                                      show_answer)
from tutorial.quizzes.question import Question, right, wrong

QUESTIONS = [(f"{topic}-{n}", q) for topic, quiz in QUIZZES.items()
             for n, q in enumerate(quiz.questions, 1)]
Q = Question("Which hold for data parallelism?", [
    right("each device holds the whole model", "Only the data is split."),
    right("devices exchange gradients", "They sum them at every step."),
    wrong("each device holds other parameters", "That is model parallelism."),
    wrong("it needs one device per example", "Any split of the batch works.")])


def selections(question):
    numbers = range(len(question.options))
    return [frozenset(s) for k in range(1, len(question.options) + 1)
            for s in itertools.combinations(numbers, k)]


@pytest.mark.parametrize("name,question", QUESTIONS, ids=[n for n, _ in QUESTIONS])
def test_a_wrong_answer_explains_the_ticks_without_revealing_the_answer(name, question):
    for chosen in selections(question):
        if chosen == question.correct:
            continue
        feedback = grade(question, chosen, attempt=1)
        ticked_wrongly = chosen - question.correct
        missed = question.correct - chosen
        assert feedback.verdict == NOT_YET and feedback.next_attempt == 2
        assert [n.option for n in feedback.notes] == \
            [question.options[i].text for i in sorted(ticked_wrongly)]
        assert all(not n.is_right and n.why for n in feedback.notes)
        said = " ".join([feedback.headline, feedback.hint] + [n.why for n in feedback.notes])
        hidden = [question.options[i].text for i in missed]
        assert not any(text in said for text in hidden), (chosen, feedback.text)
        if missed:
            assert f"{len(missed)} right option" in feedback.hint


@pytest.mark.parametrize("name,question", QUESTIONS, ids=[n for n, _ in QUESTIONS])
def test_the_second_wrong_answer_and_show_answer_reveal_every_option(name, question):
    wrong_choice = next(s for s in selections(question) if s != question.correct)
    first = grade(question, wrong_choice, attempt=1)
    for feedback in (grade(question, wrong_choice, first.next_attempt),
                     show_answer(question)):
        assert feedback.verdict == ANSWER
        assert [n.option for n in feedback.notes] == [o.text for o in question.options]
        assert {i for i, n in enumerate(feedback.notes) if n.is_right} == question.correct
        assert all(n.why == o.why for n, o in zip(feedback.notes, question.options))


@pytest.mark.parametrize("name,question", QUESTIONS, ids=[n for n, _ in QUESTIONS])
def test_a_right_answer_explains_the_right_options(name, question):
    feedback = grade(question, question.correct, attempt=REVEAL_AT + 3)
    assert feedback.verdict == RIGHT
    assert [n.why for n in feedback.notes] == \
        [o.why for o in question.options if o.is_right]


def test_attempts_count_wrong_answers_only():
    assert grade(Q, {0, 1}, attempt=1).next_attempt == 1      # right: nothing to count
    assert grade(Q, set(), attempt=1).verdict == EMPTY
    assert grade(Q, set(), attempt=1).next_attempt == 1       # empty: not an answer
    first = grade(Q, {0}, attempt=1)
    assert first.verdict == NOT_YET and first.next_attempt == REVEAL_AT
    assert "1 right option is still unticked" in first.text
    assert grade(Q, {0}, attempt=first.next_attempt).verdict == ANSWER


def test_ticking_every_right_option_and_a_wrong_one_says_so():
    feedback = grade(Q, {0, 1, 3})
    assert "Every right option is ticked" in feedback.hint
    assert [n.option for n in feedback.notes] == ["it needs one device per example"]


def test_after_show_answer_a_wrong_answer_shows_it_again():
    revealed = show_answer(Q, attempt=1)
    assert grade(Q, {2}, revealed.next_attempt).verdict == ANSWER


@pytest.mark.parametrize("selected", ["01", None, 3, {4}, {-1}, {True}, {0.0}, [[0]]])
def test_a_bad_selection_gets_a_sentence(selected):
    with pytest.raises(ValueError, match="option numbers 0 to 3"):
        grade(Q, selected)


@pytest.mark.parametrize("attempt", [0, -1, 1.5, "2", None, True])
def test_a_bad_attempt_gets_a_sentence(attempt):
    with pytest.raises(ValueError, match="attempt must be a whole number"):
        grade(Q, {0}, attempt)
