"""Quiz questions with feedback: a pure grader and a widget view that calls it.

Questions mark every correct option, as the course's quizzes do ("select all that
apply"). :func:`grade` is pure, so the answers are tested without a browser.

>>> q = Question("Which are data-parallel?", ["shard data", "shard parameters"], {0})
>>> grade(q, {0}).correct
True
>>> print(grade(q, {1}).text)
Not yet. You chose 'shard parameters', which is not right. You missed 'shard data'.
"""

import dataclasses
import html
from typing import FrozenSet, Sequence


@dataclasses.dataclass(frozen=True)
class Question:
    text: str
    options: Sequence[str]
    correct: FrozenSet[int]          # indices of the right options (0-based)
    explain: str = ""                # shown once the answer is right

    def __post_init__(self):
        object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "correct", frozenset(self.correct))
        bad = [i for i in self.correct if not 0 <= i < len(self.options)]
        if bad:
            raise ValueError(f"correct option index {bad[0]} is out of range for "
                             f"{len(self.options)} options in {self.text!r}")


@dataclasses.dataclass(frozen=True)
class Feedback:
    correct: bool
    text: str


def grade(question, selected):
    """Compare the chosen option indices with the right ones and say what differs."""
    selected = frozenset(selected)
    wrong = sorted(selected - question.correct)
    missed = sorted(question.correct - selected)
    if not wrong and not missed:
        return Feedback(True, "Correct. " + question.explain if question.explain else "Correct.")
    parts = ["Not yet."]
    if wrong:
        names = ", ".join(repr(question.options[i]) for i in wrong)
        parts.append(f"You chose {names}, which {'is' if len(wrong) == 1 else 'are'} not right.")
    if missed:
        names = ", ".join(repr(question.options[i]) for i in missed)
        parts.append(f"You missed {names}.")
    return Feedback(False, " ".join(parts))


def quiz(questions, title="Quiz"):
    """A widget with one block per question: checkboxes, a Check button and feedback."""
    import ipywidgets as w

    blocks = [w.HTML(f"<h4>{html.escape(title)}</h4>"
                     "<i>Tick every option that is right, then press Check.</i>")]
    for number, question in enumerate(questions, 1):
        boxes = [w.Checkbox(value=False, description=opt, indent=False,
                            layout=w.Layout(width="auto")) for opt in question.options]
        button = w.Button(description="Check", button_style="primary")
        feedback = w.HTML()

        def on_click(_, question=question, boxes=boxes, feedback=feedback):
            chosen = {i for i, box in enumerate(boxes) if box.value}
            result = grade(question, chosen)
            colour = "green" if result.correct else "#b35900"
            feedback.value = f"<span style='color:{colour}'>{html.escape(result.text)}</span>"

        button.on_click(on_click)
        blocks.append(w.VBox([w.HTML(f"<b>{number}. {html.escape(question.text)}</b>"),
                              *boxes, w.HBox([button, feedback])]))
    return w.VBox(blocks)
