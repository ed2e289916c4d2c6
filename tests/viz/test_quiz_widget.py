"""The quiz widget, clicked in Python: it draws what the grader says, and holds no answer
before the learner asks (its state is saved with the notebook)."""

import ipywidgets as w
import pytest

from tutorial.quizzes import QUIZZES
from tutorial.quizzes.question import Question, right, wrong
from tutorial.viz.quiz import quiz, quiz_for, render

Q = Question("Which hold for data parallelism?", [
    right("each device holds the whole model", "Only the data is split."),
    right("devices exchange gradients", "They sum them at every step."),
    wrong("each device holds other parameters", "That is model parallelism.")])


def walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


class View:
    """The parts of one question's view, found by type."""

    def __init__(self, block):
        parts = list(walk(block))
        self.boxes = [p for p in parts if isinstance(p, w.Checkbox)]
        self.check, self.reveal = [p for p in parts if isinstance(p, w.Button)]
        self.feedback = block.children[-1]

    def answer(self, *numbers):
        for i, box in enumerate(self.boxes):
            box.value = i in numbers
        self.check.click()
        return self.feedback.value


def views(widget):
    return [View(block) for block in widget.children[1:]]


def test_wrong_then_wrong_again_reveals_then_right():
    [view] = views(quiz([Q], title="T"))
    first = view.answer(2)
    assert "Not yet." in first and "That is model parallelism." in first
    assert "2 right options are still unticked" in first
    assert "Only the data is split." not in first
    second = view.answer(0, 2)
    assert "Here is the full answer" in second
    assert all(o.why in second for o in Q.options)
    done = view.answer(0, 1)
    assert "Right." in done and "That is model parallelism." not in done


def test_show_answer_reveals_every_option_at_once():
    [view] = views(quiz([Q]))
    view.reveal.click()
    assert all(o.why in view.feedback.value for o in Q.options)


def test_each_question_keeps_its_own_attempts():
    first, second = views(quiz([Q, Q]))
    first.answer(2)
    assert "Here is the full answer" in first.answer(2)
    assert "Not yet." in second.answer(2) and "Here is the full answer" not in second.feedback.value


@pytest.mark.parametrize("topic", sorted(QUIZZES))
def test_a_fresh_quiz_holds_no_explanation(topic):
    widget = quiz_for(topic)
    assert len(views(widget)) == len(QUIZZES[topic].questions)
    state = " ".join(str(p.get_state()) for p in walk(widget))
    for question in QUIZZES[topic].questions:
        for option in question.options:
            assert option.why not in state


def test_text_is_escaped():
    q = Question("Is <b> bold?", [right("<i>", "a < b & c"), wrong("x", "no")])
    widget = quiz([q])
    [view] = views(widget)
    assert "&lt;b&gt;" in widget.children[1].children[0].value
    assert "a &lt; b &amp; c" in view.answer(0)


def test_render_colours_right_and_wrong():
    from tutorial.quizzes.grading import show_answer
    shown = render(show_answer(Q))
    assert shown.count("✓") == 2 and shown.count("✗") == 1


def test_quiz_refuses_what_is_not_a_question():
    with pytest.raises(ValueError, match="non-empty list of Question"):
        quiz(["What is SGD?"])
    with pytest.raises(ValueError, match="non-empty list of Question"):
        quiz(None)
    with pytest.raises(ValueError, match="no quiz on"):
        quiz_for("nope")


def test_a_saved_quiz_keeps_one_broken_link_mark_not_one_per_control():
    from tutorial.quizzes import QUIZZES, quiz_named
    from tutorial.viz.quiz import CSS_CLASS, ONE_BROKEN_LINK, quiz

    box = quiz(quiz_named(sorted(QUIZZES)[0]))
    assert CSS_CLASS in box._dom_classes
    assert box.children[0].value.endswith(ONE_BROKEN_LINK)
    assert f".{CSS_CLASS} .jupyter-widgets-disconnected::before" in ONE_BROKEN_LINK
