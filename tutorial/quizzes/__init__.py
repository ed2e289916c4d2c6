"""The course's quizzes as data, one module per topic, and the grader.

- ``question``  :class:`Question` (its options, each right or wrong, each with why), ``Quiz``
- ``grading``   ``grade(question, selected, attempt)``: what feedback to show, pure
- ``sgd``, ``momentum``, ``adaptive``, ``capacity``, ``data_parallel``, ``allreduce``,
  ``parameter_server``, ``large_batch``, ``async_sgd``, ``model_parallel``,
  ``large_batch_cnn``, ``scaling_out``, ``memory``, ``sequences``: one ``QUIZ`` each

:data:`QUIZZES` maps a topic, the name of its module, to its :class:`Quiz`; a notebook shows
one with ``tutorial.viz.quiz.quiz_for(topic)``. The questions come from the workshop deck,
the lecture, the course notes, the large-batch lecture notes and the async-SGD post, and
from what each notebook measures.

>>> quiz_named("sgd").title
'Stochastic gradient descent'
>>> quiz_named("sdg")   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: no quiz on 'sdg'; the topics are: sgd, momentum, adaptive, ..., sequences.
"""

from tutorial.quizzes import (adaptive, allreduce, async_sgd, capacity, data_parallel,
                              large_batch, large_batch_cnn, memory, model_parallel,
                              momentum, parameter_server, scaling_out, sequences, sgd)
from tutorial.quizzes.question import Question, Quiz

_TOPICS = (sgd, momentum, adaptive, capacity, data_parallel, allreduce, parameter_server,
           large_batch, async_sgd, model_parallel, large_batch_cnn,
           scaling_out, memory, sequences)   # notebook order
QUIZZES = {module.__name__.rpartition(".")[2]: module.QUIZ for module in _TOPICS}


def quiz_named(topic):
    """The :class:`Quiz` on ``topic``, or a ValueError that lists the topics."""
    if not isinstance(topic, str) or topic not in QUIZZES:
        raise ValueError(f"no quiz on {topic!r}; the topics are: {', '.join(QUIZZES)}.")
    return QUIZZES[topic]


__all__ = ["QUIZZES", "Question", "Quiz", "quiz_named"]
