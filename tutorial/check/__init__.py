"""Checks a learner runs: ``python -m tutorial.check`` (or ``make selfcheck``) checks the
setup and reports which exercises pass.

- ``environment``  the setup self-check (versions, data, devices, one training run)
- ``exercises``    the registry: each notebook's exercise, its function and its checker
- checkers, one file per topic: ``optimizers`` (SGD, momentum, Adam), ``capacity``
  (dropout), ``data_parallel``, ``collectives`` (the chain allreduce), ``distributed``
  (parameter server, async SGD), ``large_batch`` (the LARS trust ratio)
- what they share: ``feedback`` (Verdict and the guard around every checker),
  ``answers`` (reading what the learner's function returned), ``mistakes`` (typical
  mistakes as data), ``updates`` (rolling out an optimizer update), ``limits`` (the
  time limit)
- ``extract`` and ``exercise_progress``: a learner's progress, read from their notebooks
"""
