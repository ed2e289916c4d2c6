"""A quiz question as data: its options, which of them are right, and why each one is or is not.

Every option carries its own explanation, so feedback can answer the learner's exact
mistake (the misconception behind the option they ticked) without listing the answer.
A question is checked when it is built: every option explained, at least one right.

>>> q = Question("Which are true of data parallelism?", [
...     right("every device holds the whole model", "Only the data is split."),
...     wrong("every device holds other parameters", "That is model parallelism.")])
>>> q.correct
frozenset({0})
>>> Question("Which?", [wrong("a", "No."), wrong("b", "No.")])
Traceback (most recent call last):
...
ValueError: question 'Which?' has no right option: mark at least one with right(...).
"""

import dataclasses
from typing import Tuple


@dataclasses.dataclass(frozen=True)
class Option:
    text: str          # what the learner ticks
    is_right: bool     # part of the answer?
    why: str           # why it is right, or the misconception behind ticking it

    def __post_init__(self):
        for name in ("text", "why"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"option {self.text!r} needs a non-empty {name} string, "
                                 f"got {value!r}.")
        if not isinstance(self.is_right, bool):
            raise ValueError(f"option {self.text!r}: is_right must be True or False, "
                             f"got {self.is_right!r}.")


def right(text, why):
    """An option that belongs to the answer, and why."""
    return Option(text, True, why)


def wrong(text, why):
    """An option that does not, and the misconception behind ticking it."""
    return Option(text, False, why)


@dataclasses.dataclass(frozen=True)
class Question:
    text: str
    options: Tuple[Option, ...]   # in the order the learner sees them

    def __post_init__(self):
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError(f"a question needs a non-empty text, got {self.text!r}.")
        options = tuple(self.options)
        object.__setattr__(self, "options", options)
        if len(options) < 2:
            raise ValueError(f"question {self.text!r} needs at least 2 options, "
                             f"got {len(options)}.")
        for option in options:
            if not isinstance(option, Option):
                raise ValueError(f"question {self.text!r}: every option must be built with "
                                 f"right(text, why) or wrong(text, why), got {option!r}.")
        texts = [option.text for option in options]
        if len(set(texts)) != len(texts):
            raise ValueError(f"question {self.text!r} lists an option twice.")
        if not any(option.is_right for option in options):
            raise ValueError(f"question {self.text!r} has no right option: "
                             "mark at least one with right(...).")

    @property
    def correct(self):
        """The numbers (from 0) of the right options."""
        return frozenset(i for i, option in enumerate(self.options) if option.is_right)


@dataclasses.dataclass(frozen=True)
class Quiz:
    title: str
    questions: Tuple[Question, ...]

    def __post_init__(self):
        if not isinstance(self.title, str) or not self.title.strip():
            raise ValueError(f"a quiz needs a non-empty title, got {self.title!r}.")
        questions = tuple(self.questions)
        object.__setattr__(self, "questions", questions)
        if not questions:
            raise ValueError(f"quiz {self.title!r} has no questions.")
        for question in questions:
            if not isinstance(question, Question):
                raise ValueError(f"quiz {self.title!r}: every question must be a Question, "
                                 f"got {question!r}.")
