"""Solution to the model-parallel notebook's exercise: GPipe's schedule as data.

Stage s starts the forward of micro-batch i at tick s + i (one tick after stage s - 1
started it). The last stage's forwards end at tick m + p - 1; the backwards then run in
reverse micro-batch order from the last stage down: stage s runs the backward of
micro-batch i at tick (m + p - 1) + (p - 1 - s) + (m - 1 - i). The step takes 2(m + p - 1)
ticks.

>>> from tutorial.check.pipeline import check_gpipe
>>> check_gpipe(gpipe_schedule).correct
True
"""


def gpipe_schedule(stages, microbatches):
    p, m = stages, microbatches
    tasks = [(s + i, s, i, "F") for s in range(p) for i in range(m)]
    tasks += [(m + p - 1 + (p - 1 - s) + (m - 1 - i), s, i, "B")
              for s in range(p) for i in range(m)]
    return tasks
