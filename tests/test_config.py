import pytest

from tutorial import config
from tutorial.viz.quiz import Question, grade, quiz

Q = Question("Which are true of data parallelism?",
             ["data is distributed", "each core owns parameters", "fewer nodes"], {0, 2})


def test_grade_accepts_exactly_the_right_set():
    assert grade(Q, {0, 2}).correct
    partial = grade(Q, {0})
    assert not partial.correct and "missed 'fewer nodes'" in partial.text
    wrong = grade(Q, {0, 1, 2})
    assert not wrong.correct and "'each core owns parameters'" in wrong.text


def test_bad_question_is_refused():
    with pytest.raises(ValueError, match="out of range"):
        Question("?", ["a"], {3})


def test_quiz_widget_gives_feedback_on_click():
    box = quiz([Q])
    block = box.children[1]
    checkboxes = [c for c in block.children if c.__class__.__name__ == "Checkbox"]
    button, feedback = block.children[-1].children
    checkboxes[0].value = checkboxes[2].value = True
    button.click()
    assert "Correct" in feedback.value
    checkboxes[2].value = False
    button.click()
    assert "Not yet" in feedback.value


@pytest.mark.parametrize("value,fast", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_fast_mode_is_read_from_one_variable(value, fast):
    assert config.fast_mode({"TUTORIAL_FAST": value}) is fast
    assert config.pick(10, 1, {"TUTORIAL_FAST": value}) == (1 if fast else 10)
