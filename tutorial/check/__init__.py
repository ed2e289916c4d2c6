"""Checks a learner runs: ``python -m tutorial.check`` (or ``make selfcheck``) checks the
setup; the exercise checkers (one file per topic) say what is wrong with an answer.

- ``environment``  the setup self-check: versions, data, devices, one real training run
- ``feedback``     the Verdict a checker returns, and the guard every checker runs behind
- ``limits``       a time limit for a learner's code, so a checker cannot hang a notebook
- ``optimizers``   the optimizer exercises: updates rolled out next to a NumPy reference
- ``capacity``     the dropout exercise
- ``distributed``  the parameter-server and asynchronous-SGD exercises
"""
