"""The quiz widget: per question, checkboxes, Check, Show answer and a feedback area.

The questions and their explanations live in :mod:`tutorial.quizzes`, the rules in
:func:`tutorial.quizzes.grading.grade`; the widget keeps one number per question (the
attempt to pass to the grader) and draws what the grader returns with :func:`render`.
A notebook's quiz cell is one line, ``quiz_for("sgd")``, so the answers stay out of sight.

>>> from tutorial.quizzes.grading import grade
>>> from tutorial.quizzes.question import Question, right, wrong
>>> q = Question("2 + 2?", [right("4", "Count it."), wrong("5", "One too many.")])
>>> print(render(grade(q, {1})))   # doctest: +NORMALIZE_WHITESPACE
<div class="tutorial-quiz-feedback" style="line-height:1.45;margin-top:4px">\
<b style="color:#b35900">Not yet.</b> 1 right option is still unticked. One more wrong \
answer shows the full answer.<ul style="margin:4px 0 0 0;padding-left:1.4em">\
<li style="list-style:none;text-indent:-1.1em"><b style="color:#b35900">✗</b> <i>5</i>: \
One too many.</li></ul></div>
"""

import html

from tutorial.quizzes import Question, Quiz, quiz_named
from tutorial.quizzes.grading import ANSWER, EMPTY, NOT_YET, RIGHT, grade, show_answer

GREEN, ORANGE, BLUE, GREY = "#1a7f37", "#b35900", "#0550ae", "#57606a"
HEADLINE_COLOUR = {RIGHT: GREEN, NOT_YET: ORANGE, ANSWER: BLUE, EMPTY: GREY}
INSTRUCTIONS = ("Tick every option that is right, then press Check. A second wrong answer, "
                "or Show answer, shows every option with its explanation.")


def render(feedback):
    """The HTML of one :class:`~tutorial.quizzes.grading.Feedback`: headline, then a list."""
    esc = html.escape
    head = (f'<b style="color:{HEADLINE_COLOUR[feedback.verdict]}">{esc(feedback.headline)}'
            f'</b>' + (f" {esc(feedback.hint)}" if feedback.hint else ""))
    items = "".join(
        '<li style="list-style:none;text-indent:-1.1em">'
        f'<b style="color:{GREEN if note.is_right else ORANGE}">'
        f'{"✓" if note.is_right else "✗"}</b> <i>{esc(note.option)}</i>: {esc(note.why)}</li>'
        for note in feedback.notes)
    listed = f'<ul style="margin:4px 0 0 0;padding-left:1.4em">{items}</ul>' if items else ""
    return (f'<div class="tutorial-quiz-feedback" style="line-height:1.45;margin-top:4px">'
            f"{head}{listed}</div>")


# A quiz shown from its saved frame (its cell has not run in this kernel) has every control
# disconnected, and ipywidgets marks each with a red broken-link icon (about 90 in a quiz):
# keep the one on the quiz itself. The <style> travels in the header, so the rule holds
# wherever the frame is drawn (a notebook, the deck, an export).
CSS_CLASS = "tutorial-quiz"
ONE_BROKEN_LINK = (f"<style>.{CSS_CLASS} .jupyter-widgets-disconnected::before "
                   "{ display: none; }</style>")


def _block(css_class, inner):
    """A div that wraps its text at a normal line height (widgets use 28 px lines)."""
    return f'<div class="{css_class}" style="line-height:1.4;padding:3px 0">{inner}</div>'


def question_view(number, question):
    """One question's widgets; the callbacks call the grader and draw its feedback."""
    import ipywidgets as w

    boxes = [w.Checkbox(value=False, indent=False, layout=w.Layout(width="28px", flex="none"))
             for _ in question.options]
    rows = [w.HBox([box, w.HTML(_block("tutorial-quiz-option", html.escape(option.text)),
                                layout=w.Layout(flex="1 1 auto"))],
                   layout=w.Layout(align_items="center"))
            for box, option in zip(boxes, question.options)]
    check = w.Button(description="Check", button_style="primary")
    reveal = w.Button(description="Show answer")
    feedback = w.HTML()
    attempt = 1

    def draw(result):
        nonlocal attempt
        attempt = result.next_attempt
        feedback.value = render(result)

    def on_check(_):
        draw(grade(question, {i for i, box in enumerate(boxes) if box.value}, attempt))

    def on_reveal(_):
        draw(show_answer(question, attempt))

    check.on_click(on_check)
    reveal.on_click(on_reveal)
    text = w.HTML(_block("tutorial-quiz-question",
                         f"<b>{number}. {html.escape(question.text)}</b>"))
    return w.VBox([text, *rows, w.HBox([check, reveal]), feedback],
                  layout=w.Layout(margin="0 0 14px 0"))


def quiz(questions, title="Quiz"):
    """The widget for a :class:`~tutorial.quizzes.Quiz`, or for a list of questions."""
    import ipywidgets as w

    if isinstance(questions, Quiz):
        title, questions = questions.title, questions.questions
    questions = list(questions) if isinstance(questions, (list, tuple)) else []
    if not questions or not all(isinstance(q, Question) for q in questions):
        raise ValueError("quiz() needs a Quiz or a non-empty list of Question objects, "
                         f"got {questions!r}.")
    header = w.HTML(f"<h4>{html.escape(title)}</h4>"
                    + _block("tutorial-quiz-instructions", f"<i>{html.escape(INSTRUCTIONS)}</i>")
                    + ONE_BROKEN_LINK)    # last: the text form (its first 110 characters) stays
    box = w.VBox([header, *(question_view(n, q) for n, q in enumerate(questions, 1))])
    box.add_class(CSS_CLASS)
    return box


def quiz_for(topic):
    """The quiz of a notebook's topic (a name in :data:`tutorial.quizzes.QUIZZES`)."""
    return quiz(quiz_named(topic))
