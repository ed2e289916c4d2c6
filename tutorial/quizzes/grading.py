"""Grading one question: a pure function from what the learner ticked to what to show.

1. A right answer: "Right.", with the explanation of every right option.
2. A wrong answer: the misconception behind each option ticked wrongly, and how many right
   options are still unticked, never which.
3. The second wrong answer (``attempt == REVEAL_AT``), or :func:`show_answer`: every
   option, right or not, with its explanation.

``attempt`` numbers the learner's answers to one question, counting wrong ones only: 1 for
the first answer, then :attr:`Feedback.next_attempt`. An empty selection is not an
answer. The widget keeps that one number and draws the :class:`Feedback`; nothing else.

>>> from tutorial.quizzes.question import Question, right, wrong
>>> q = Question("Which hold for data parallelism?", [
...     right("each device holds the whole model", "Only the data is split."),
...     right("devices exchange gradients", "They sum them at every step."),
...     wrong("each device holds other parameters", "That is model parallelism.")])
>>> first = grade(q, {2})
>>> print(first.text)
Not yet. 2 right options are still unticked. One more wrong answer shows the full answer.
  ✗ each device holds other parameters: That is model parallelism.
>>> print(grade(q, {0, 2}, first.next_attempt).text)
Not yet. Here is the full answer:
  ✓ each device holds the whole model: Only the data is split.
  ✓ devices exchange gradients: They sum them at every step.
  ✗ each device holds other parameters: That is model parallelism.
>>> print(grade(q, {0, 1}).text)
Right.
  ✓ each device holds the whole model: Only the data is split.
  ✓ devices exchange gradients: They sum them at every step.
"""

import dataclasses
import numbers
from typing import NamedTuple, Tuple

from tutorial.validate import check_count

REVEAL_AT = 2   # the wrong answer that brings the full answer
RIGHT, NOT_YET, ANSWER, EMPTY = "right", "not yet", "answer", "empty"   # verdicts


class Note(NamedTuple):
    option: str
    is_right: bool
    why: str


@dataclasses.dataclass(frozen=True)
class Feedback:
    verdict: str              # RIGHT, NOT_YET, ANSWER or EMPTY
    headline: str
    hint: str                 # how many right options are unticked, what comes next
    notes: Tuple[Note, ...]   # the options explained, in the question's order
    next_attempt: int         # pass this as ``attempt`` to the next grade()

    @property
    def text(self):
        """The feedback as plain text, one option per line."""
        lines = [" ".join(filter(None, (self.headline, self.hint)))]
        lines += [f"  {'✓' if note.is_right else '✗'} {note.option}: {note.why}"
                  for note in self.notes]
        return "\n".join(lines)


def grade(question, selected, attempt=1):
    """Feedback on ticking the options numbered ``selected`` (from 0), at answer ``attempt``."""
    chosen = _selection(question, selected)
    attempt = check_count("attempt", attempt)
    if not chosen:
        return Feedback(EMPTY, "Tick at least one option, then press Check.", "", (), attempt)
    if chosen == question.correct:
        return Feedback(RIGHT, "Right.", "", _notes(question, chosen), attempt)
    if attempt >= REVEAL_AT:
        return _answer(question, "Not yet. Here is the full answer:", attempt + 1)
    ticked_wrongly = chosen - question.correct
    return Feedback(NOT_YET, "Not yet.", _hint(len(question.correct - chosen)),
                    _notes(question, ticked_wrongly), attempt + 1)


def show_answer(question, attempt=1):
    """The full answer, whatever was ticked; wrong answers after it show it again."""
    attempt = check_count("attempt", attempt)
    return _answer(question, "The answer:", max(attempt, REVEAL_AT))


def _answer(question, headline, next_attempt):
    return Feedback(ANSWER, headline, "", _notes(question, range(len(question.options))),
                    next_attempt)


def _notes(question, numbers):
    return tuple(Note(option.text, option.is_right, option.why)
                 for i, option in enumerate(question.options) if i in set(numbers))


def _hint(missed):
    if missed == 0:
        unticked = "Every right option is ticked, but not only those."
    elif missed == 1:
        unticked = "1 right option is still unticked."
    else:
        unticked = f"{missed} right options are still unticked."
    return f"{unticked} One more wrong answer shows the full answer."


def _selection(question, selected):
    """``selected`` as a frozenset of option numbers, or a ValueError saying what is wrong."""
    count = len(question.options)
    try:
        if isinstance(selected, (str, bytes)):
            raise TypeError
        chosen = frozenset(selected)
    except TypeError:
        raise ValueError(f"selected must be a set of option numbers 0 to {count - 1}, "
                         f"got {selected!r}.") from None
    for i in chosen:
        if not isinstance(i, numbers.Integral) or isinstance(i, bool) or not 0 <= i < count:
            raise ValueError(f"selected must hold option numbers 0 to {count - 1} of "
                             f"{question.text!r}, got {i!r}.")
    return chosen
