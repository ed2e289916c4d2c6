"""What pipelining costs and saves on this machine: time, bubble and activation memory against m.

For each schedule and number of micro-batches m, :func:`sweep` runs one training step's
forward and backward (no update, so every repeat sees the same weights) and reports

- the wall time of the step and the bubble measured on the devices running at the same
  time (:func:`~tutorial.parallel.pipeline.executor.run`, ``concurrent=True``), medians
  over ``repeats`` runs;
- the same schedule replayed on p devices of their own
  (:func:`~tutorial.parallel.pipeline.timing.replay`): for each m, one table of task
  times, shared by every schedule (:func:`task_durations`: the tasks run ``repeats``
  times one at a time, nothing else running, and every task is given the shortest time
  of its stage and kind, F or B, over those runs), so slow tasks (another process, or
  another notebook, taking the core) do not stretch the replay: noise only adds time. Its bubble, its span, and its speed-up over one
  device running the same tasks back to back (= p x (1 - bubble)): what p independent
  devices would do with this machine's task times;
- the activations the busiest stage holds for its backward, in bytes: the most
  micro-batches it held at once (counted during the run) x what it keeps per sample x
  the micro-batch size x 4 bytes.
"""

import dataclasses

import numpy as np

from tutorial.parallel.pipeline.executor import microbatches, run
from tutorial.parallel.pipeline.schedules import schedule
from tutorial.parallel.pipeline.timing import replay, replay_bubble, shortest_durations, span
from tutorial.progress import Progress
from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class Point:
    name: str
    microbatches: int
    seconds: float              # median wall time of the step, stages running together
    bubble: float               # median measured bubble, stages running together
    replayed_bubble: float      # shortest task times (one at a time), replayed on p devices
    replayed_seconds: float     # the replayed step's span
    one_device_seconds: float   # the same tasks back to back on one device
    activation_bytes: int       # held by the busiest stage at its peak
    example: object             # one concurrent Run, for the timeline

    @property
    def seconds_per_sample(self):
        return self.seconds / self.example.samples

    @property
    def replayed_speedup(self):
        """One device's time for the step's tasks over the replayed span on p devices."""
        return self.one_device_seconds / self.replayed_seconds


def activation_bytes(stages, result, microbatch_size, itemsize=4):
    """Bytes of activations the busiest stage of ``result`` held at its peak."""
    return max(held * stages.activation_floats(s) * microbatch_size * itemsize
               for s, held in enumerate(result.peak_held))


def task_durations(stages, plan, parts, repeats):
    """{(stage, kind): shortest seconds} of ``plan``'s tasks, each run alone, ``repeats`` times."""
    alone = []
    for _ in range(repeats):
        alone.append(run(stages, plan, parts, update=None, concurrent=False))
        stages.zero_grad()
    return shortest_durations(*alone)


def sweep(stages, X, y, names=("gpipe", "1f1b"), ms=(1, 4, 16), repeats=3):
    """{name: [Point for each m]} on ``stages`` with the batch (X, y); see the module doc.

    The task times are measured once per m and replayed for every schedule, so the
    replayed columns of two schedules at the same m differ by the schedule alone.
    """
    repeats = check_count("repeats", repeats, what="runs per point")
    out = {name: [] for name in names}
    with Progress(f"pipeline sweep: {len(names)} schedules x {len(ms)} micro-batch counts",
                  total=len(names) * len(ms)) as progress:
        for m in ms:
            parts = microbatches(X, y, m)
            table = task_durations(stages, schedule(names[0], len(stages), m), parts, repeats)
            for name in names:
                plan = schedule(name, len(stages), m)
                runs = []
                for _ in range(repeats):
                    runs.append(run(stages, plan, parts, update=None))
                    stages.zero_grad()
                times = replay(plan, lambda task: table[task.stage, task.kind])
                out[name].append(Point(
                    name, m, float(np.median([r.seconds for r in runs])),
                    float(np.median([r.bubble for r in runs])),
                    replay_bubble(plan, times), span(times),
                    sum(table[t.stage, t.kind] for t in plan.tasks),
                    activation_bytes(stages, runs[-1], len(X) // m), runs[-1]))
                progress.advance(f"{name}, m={m}")
    return out
