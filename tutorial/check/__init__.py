"""Checks a learner runs: ``python -m tutorial.check`` (or ``make selfcheck``) checks the
setup; the exercise checkers (one file per topic) say what is wrong with an answer."""
