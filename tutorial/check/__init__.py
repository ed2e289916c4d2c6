"""Checks a learner runs: ``python -m tutorial.check`` (or ``make selfcheck``) checks the
setup and reports which exercises pass; the exercise checkers (one file per topic) say
what is wrong with an answer.

- ``environment``  the setup self-check: versions, data, devices, one real training run
- ``exercises``    the registry: each notebook's exercise, its function and its checker
- checkers, one file per topic: ``learning_rates`` (a piecewise-constant schedule),
  ``gradient_clipping`` (clipping by the global norm), ``optimizers`` (Adam), ``capacity``
  (dropout), ``data_parallel`` (combining the devices' gradients), ``collectives`` (the
  chain allreduce), ``distributed`` (parameter server, async SGD), ``large_batch`` (the
  LARS trust ratio), ``pipeline`` (GPipe's schedule as data), ``sync_batchnorm`` (the
  whole batch's BatchNorm statistics from the devices' own), ``scaling_out`` (post-local
  SGD's averaging schedule), ``memory`` (one device's bytes under each ZeRO stage),
  ``sequence`` (the online softmax's merge of two partial attentions)
- ``feedback``     the Verdict a checker returns, and the guard every checker runs behind
- ``answers``      reading what the learner's function returned, or saying why not
- ``mistakes``     typical mistakes as data: wrong answers written as code
- ``updates``      an optimizer update rolled out next to a NumPy reference
- ``limits``       a time limit for a learner's code, so a checker cannot hang a notebook
- ``isolate``      a learner's code run in a forked child killed at a deadline, with
  every process it started
- ``replay``       a "correct" from that child confirmed here, on a replay of the answer's calls
- ``unpickle``     what the child sends back, read as plain data only
- ``own_work``     refuses an answer that calls the reference it is checked against, and
  seeds the cases a checker draws from the answer
- ``extract`` and ``exercise_progress``: a learner's progress, read from their notebooks
"""
