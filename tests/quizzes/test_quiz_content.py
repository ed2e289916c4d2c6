"""The quizzes as data: every registered quiz valid, complete, and worded for learners.

The course notes' own quiz (the boxes they tick) is the independent reference for the
questions taken from it.
"""

import re
from pathlib import Path

import pytest

import tutorial.quizzes as quizzes
from tutorial.quizzes import QUIZZES, quiz_named
from tutorial.quizzes.question import Option, Question, Quiz, right, wrong

# The course notes' quiz: question, then the options they tick and those they leave empty.
# (Their last batch option reads "2034 nodes"; 1024 is the lecture's, and adds up.)
COURSE_NOTES_QUIZ = {
    "best describes the model": ({"Underfitting"}, {"Overfitting", "Good fit"}),
    "high training error": ({"Bigger model", "Train longer"},
                            {"More data", "More regularization, such as dropout and weight "
                             "decay"}),
    "true of a data-parallel approach": (
        {"The algorithm distributes the data between various cores",
         "A data-parallel approach is useful when there are smaller number of nodes in the "
         "cluster"},
        {"Each core is responsible for estimating different parameter(s)",
         "A data-parallel approach is useful when the number of parameters to be estimated "
         "is large"}),
    "total batch size to be 1024": (
        {"16 nodes each with a node batch size of 64", "512 nodes each with a node batch "
         "size of 2"},
        {"2 nodes each with a node batch size of 512", "1024 nodes each with a node batch "
         "size of 1"}),
    "issues with asynchronous stochastic gradient descent": (
        {"requires more epochs to train", "requires more hypertuning",
         "has not been shown to scale"},
        {"does not overcome communication delays"}),
}


def all_questions():
    return [q for quiz in QUIZZES.values() for q in quiz.questions]


def learner_texts(quiz):
    yield quiz.title
    for q in quiz.questions:
        yield q.text
        for option in q.options:
            yield option.text
            yield option.why


def test_every_topic_module_is_registered_under_its_own_name():
    folder = Path(quizzes.__file__).parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "question", "grading"}
    assert set(QUIZZES) == modules
    for topic, quiz in QUIZZES.items():
        assert isinstance(quiz, Quiz) and quiz is quiz_named(topic)


@pytest.mark.parametrize("topic", sorted(QUIZZES))
def test_every_registered_quiz_validates(topic):
    quiz = QUIZZES[topic]
    rebuilt = Quiz(quiz.title, [Question(q.text, [Option(o.text, o.is_right, o.why)
                                                  for o in q.options])
                                for q in quiz.questions])
    assert rebuilt == quiz
    for q in quiz.questions:
        assert q.correct and all(o.why.strip() for o in q.options)


@pytest.mark.parametrize("topic", sorted(QUIZZES))
def test_learner_facing_text_names_no_seed_file_and_no_math_markup(topic):
    for text in learner_texts(QUIZZES[topic]):
        assert not re.search(r"seed|transcript", text, re.I), text
        assert "$" not in text, text    # ipywidgets' HTML would typeset it as LaTeX


@pytest.mark.parametrize("stem", sorted(COURSE_NOTES_QUIZ))
def test_the_course_notes_quiz_is_asked_with_their_answers(stem):
    ticked, empty = COURSE_NOTES_QUIZ[stem]
    found = [q for q in all_questions() if stem in q.text]
    assert found, f"no quiz asks the course notes' question on {stem!r}"
    for q in found:
        for start in ticked | empty:
            [option] = [o for o in q.options if start in o.text]
            assert option.is_right == (start in ticked), (stem, option.text)


def test_a_question_two_notebooks_ask_is_defined_once():
    texts = [q.text for q in all_questions()]
    for text in set(texts):
        same = {id(q) for q in all_questions() if q.text == text}
        assert len(same) == 1, f"{text!r} is written out twice"


def test_an_unknown_topic_lists_the_known_ones():
    with pytest.raises(ValueError, match="the topics are: sgd, momentum"):
        quiz_named("sdg")
    with pytest.raises(ValueError, match="no quiz on"):
        quiz_named(["sgd"])


@pytest.mark.parametrize("build,message", [
    (lambda: right("a", ""), "non-empty why"),
    (lambda: wrong("", "why"), "non-empty text"),
    (lambda: Option("a", 1, "why"), "True or False"),
    (lambda: Question("?", [wrong("a", "no"), wrong("b", "no")]), "no right option"),
    (lambda: Question("?", [right("a", "yes")]), "at least 2 options"),
    (lambda: Question("?", [right("a", "yes"), wrong("a", "no")]), "twice"),
    (lambda: Question("?", [right("a", "yes"), "b"]), "right\\(text, why\\)"),
    (lambda: Question(" ", [right("a", "yes"), wrong("b", "no")]), "non-empty text"),
    (lambda: Quiz("T", []), "no questions"),
    (lambda: Quiz("T", ["What?"]), "must be a Question"),
])
def test_a_malformed_quiz_is_refused_with_a_sentence(build, message):
    with pytest.raises(ValueError, match=message):
        build()
