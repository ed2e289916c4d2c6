"""A real cluster, started from a button, with its deadline on screen.

**Start** launches notebook 07's cluster (a scheduler, two servers and two workers, five
processes on 127.0.0.1 talking over TCP through ps-lite) training the digits MLP with
``dist_sync`` or ``dist_async``, or notebook 12's two Horovod ranks (two processes summing
their gradients over Gloo's ring, ``hvd.DistributedTrainer``) training the same job. It runs
in a thread (:class:`~tutorial.parallel.live.BackgroundRun`), so the kernel stays free for
**Stop** and for the rest of the deck:

- the launcher's deadline stops every process past ``deadline_s`` seconds, whatever
  happens (:func:`tutorial.parallel.ps.cluster.run_cluster`,
  :func:`tutorial.parallel.hvd.launcher.run_horovod`);
- Stop makes the next poll raise, which stops every process at once;
- a second Start while a cluster runs is refused, saying so; the button is disabled too;
- "crash worker 1" runs the job with a deliberate failure after step 5, to show how the
  launcher stops everyone and says who failed.

The status lines are pure functions of what the run reported (tests call them without a
browser); the widget only sets them.

>>> print(plan_text(Plan("dist_sync", steps=20, deadline_s=60)))  # doctest: +NORMALIZE_WHITESPACE
dist_sync: 1 scheduler + 2 servers + 2 workers = 5 processes on 127.0.0.1,
20 steps per worker; deadline 60 s, then every process is stopped.
>>> print(running_text(Plan("dist_sync", steps=20, deadline_s=60), [7, 6], 3.24))
running for 3.2 s of 60 s: worker 0 at step 7/20, worker 1 at step 6/20
>>> print(plan_text(Plan("horovod", steps=20, deadline_s=60)))  # doctest: +NORMALIZE_WHITESPACE
horovod: 2 ranks = 2 processes on 127.0.0.1 averaging gradients over Gloo's ring,
20 steps per worker; deadline 60 s, then every process is stopped.
"""

import dataclasses
import threading
import time

import numpy as np

from tutorial.viz.projector import TEXT_PX
from tutorial.viz.run_buttons import RunButtons, status_line
from tutorial.viz.saved_frame import one_mark


WORKERS, SERVERS = 2, 2
ENGINES = ("dist_sync", "dist_async", "horovod")     # two ps-lite kvstores, Horovod's ring
CRASH_AFTER = 5
REDRAW_EVERY_S = 0.25


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one press of Start launches."""
    kvstore: str               # one of ENGINES
    steps: int
    deadline_s: float
    crash: bool = False        # worker 1 fails on purpose after CRASH_AFTER steps

    def job(self):
        from tutorial.parallel.ps.digits_job import DigitsJob

        return DigitsJob(steps=self.steps, batch_per_worker=32, learning_rate=0.5,
                         hidden=(64,), seed=0, crash_worker=1 if self.crash else None,
                         crash_after_step=CRASH_AFTER if self.crash else 0)


class Stopped(Exception):
    """Raised in the launcher's poll when Stop was pressed: the launcher stops everyone."""


def plan_text(plan):
    crash = f" Worker 1 will fail after step {CRASH_AFTER}." if plan.crash else ""
    if plan.kvstore == "horovod":
        return (f"horovod: {WORKERS} ranks = {WORKERS} processes on 127.0.0.1 averaging gradients "
                f"over Gloo's ring, {plan.steps} steps per worker; deadline "
                f"{plan.deadline_s:g} s, then every process is stopped.{crash}")
    return (f"{plan.kvstore}: 1 scheduler + {SERVERS} servers + {WORKERS} workers = "
            f"{1 + SERVERS + WORKERS} processes on 127.0.0.1, {plan.steps} steps per worker; "
            f"deadline {plan.deadline_s:g} s, then every process is stopped.{crash}")


def running_text(plan, steps, elapsed):
    where = ", ".join(f"worker {i} at step {s}/{plan.steps}" for i, s in enumerate(steps))
    return f"running for {elapsed:.1f} s of {plan.deadline_s:g} s: {where}"


def done_text(plan, runs, elapsed):
    """One line per worker and what the run shows (sync: identical weights)."""
    from tutorial.parallel.ps.train import max_relative_difference

    who = "ranks" if plan.kvstore == "horovod" else "workers"
    lines = [f"done in {elapsed:.1f} s, all {len(runs)} {who} finished {plan.steps} steps:"]
    for run in runs:
        lines.append(f"rank {run.rank}: last loss {run.losses[-1]:.3f}, accuracy of its "
                     f"final weights {run.accuracy:.3f}")
    gap = max_relative_difference(runs[1].params, runs[0].params)
    if plan.kvstore == "dist_sync":
        lines.append(f"identical weights on both workers (each pulled the same sum): {gap == 0.0}")
    elif plan.kvstore == "horovod":
        lines.append(f"identical weights on both ranks (each applied the same allreduced "
                     f"average): {gap == 0.0}")
    else:
        lines.append(f"the workers' weights differ (relative difference {gap:.1e}): each "
                     f"pulled whatever the servers held at its own moment")
    return lines


def failed_text(message, elapsed):
    return (f"failed after {elapsed:.1f} s (the launcher stopped every process): {message} "
            f"Fallback: notebook 07, section 3 (ps-lite), or notebook 12 (Horovod) shows a "
            f"saved run.")


def loss_svg(runs, width=560, height=210):
    """Each worker's loss per step, one polyline per rank (pure drawing)."""
    losses = [np.asarray(r.losses, dtype=float) for r in runs]
    top = max(float(np.max(v)) for v in losses) or 1.0
    steps = max(len(v) for v in losses)
    left, bottom = 56, height - 2 * TEXT_PX - 16         # two lines of text below the plot
    marks, key = [], []
    for run, v, colour in zip(runs, losses, ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")):
        key.append(f"<tspan fill='{colour}'>&#9632; worker {run.rank}</tspan>")   # as the bars say
        x = left + np.arange(len(v)) / max(steps - 1, 1) * (width - left - 10)
        y = 10 + (1 - v / top) * (bottom - 10)
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(x, y))
        marks.append(f"<polyline points='{pts}' fill='none' stroke='{colour}' stroke-width='2'>"
                     f"<title>rank {run.rank}</title></polyline>")
    return (f"<svg width='{width}' height='{height}' font-family='sans-serif' "
            f"font-size='{TEXT_PX}'><rect x='{left}' y='10' width='{width - left - 10}' "
            f"height='{bottom - 10}' fill='none' stroke='#999'/>"
            f"<text x='{left - 6}' y='{10 + TEXT_PX * 0.7:.0f}' text-anchor='end'>{top:.2f}</text>"
            f"<text x='{left - 6}' y='{bottom}' text-anchor='end'>0</text>"
            f"<text x='{left}' y='{bottom + TEXT_PX + 4}'>step 1</text><text x='{width - 10}' "
            f"y='{bottom + TEXT_PX + 4}' text-anchor='end'>step {steps}</text>"
            f"{''.join(marks)}<text x='{(left + width) / 2:.0f}' y='{height - 4}' "
            f"text-anchor='middle'>loss of each worker on its own rows: {' '.join(key)}"
            f"</text></svg>")


class ClusterDemo:
    """The widget. ``runner`` is :func:`tutorial.parallel.ps.train.train_on_cluster` and
    ``horovod_runner`` :func:`tutorial.parallel.hvd.train.train_with_horovod`; tests pass
    stand-ins with the same signatures. ``engines``: the choices offered, from ENGINES."""

    def __init__(self, steps=20, deadline_s=60.0, runner=None, horovod_runner=None,
                 engines=ENGINES[:2]):
        import ipywidgets as w

        if runner is None:
            from tutorial.parallel.ps.train import train_on_cluster as runner
        unknown = [e for e in engines if e not in ENGINES]
        if unknown or not engines:
            raise ValueError(f"engines must be some of {', '.join(ENGINES)}; got {engines!r}")
        self.steps, self.deadline_s, self.runner = steps, deadline_s, runner
        self.horovod_runner = horovod_runner
        self.kvstore = w.ToggleButtons(options=list(engines), value=engines[0],
                                       description="engine")
        self.crash = w.Checkbox(value=False, description=f"crash worker 1 after step "
                                f"{CRASH_AFTER}", indent=False)
        self.buttons = RunButtons("Start cluster", width="170px")
        self.start_button, self.stop_button = self.buttons.start_button, self.buttons.stop_button
        self.bars = [w.IntProgress(value=0, min=0, max=steps, description=f"worker {i}")
                     for i in range(WORKERS)]
        self.status, self.notice, self.result = w.HTML(), w.HTML(), w.HTML()
        for widget, name in ((self.start_button, "start"), (self.stop_button, "stop"),
                             (self.status, "status"), (self.notice, "notice"),
                             (self.result, "result")):
            widget.add_class(f"cluster-{name}")            # for a browser test to find
        self.buttons.on_start(self.start)
        for control in (self.kvstore, self.crash):
            control.observe(lambda _: self._show_plan(), names="value")
        self._started, self._last_draw = 0.0, 0.0
        self._lock = threading.Lock()
        self._show_plan()
        self.widget = w.VBox([w.HBox([self.kvstore, self.crash]),
                              w.HBox([self.start_button, self.stop_button, *self.bars]),
                              self.status, self.notice, self.result])
        self.widget.add_class("cluster-demo")
        one_mark(self.widget)

    def plan(self):
        return Plan(self.kvstore.value, self.steps, self.deadline_s, self.crash.value)

    def _show_plan(self):
        if not self.running:
            self.status.value = status_line("ready. " + plan_text(self.plan()))

    @property
    def run(self):
        return self.buttons.run

    @property
    def running(self):
        return self.buttons.running

    def start(self):
        """What Start does: launch in a thread and return at once; refuse a second start."""
        with self._lock:
            if self.running:
                elapsed = time.monotonic() - self._started
                self.notice.value = status_line(
                    f"already running (started {elapsed:.0f} s ago): one cluster at a time; "
                    f"wait for it or press Stop.", "#b35900")
                return self.run
            plan, self._started = self.plan(), time.monotonic()
            self.notice.value, self.result.value = "", ""
            for bar in self.bars:
                bar.value, bar.bar_style = 0, ""
            self.status.value = status_line("starting: " + plan_text(plan))
            return self.buttons.launch(lambda stop: self._launch(plan, stop),
                                       lambda runs: self._draw_done(plan, runs),
                                       self._draw_end)

    def stop(self):
        self.buttons.stop()

    def _launch(self, plan, stop):
        """The thread's work: one cluster run; yields its WorkerRuns once, if it finished."""
        def polled(steps):
            if stop.is_set():
                raise Stopped("stopped by the Stop button")
            self._draw_progress(plan, steps)

        try:
            if plan.kvstore == "horovod":
                runs = self._horovod()(plan.job(), num_ranks=WORKERS, timeout=plan.deadline_s,
                                       on_poll=polled)
            else:
                runs = self.runner(plan.job(), kvstore=plan.kvstore, num_workers=WORKERS,
                                   num_servers=SERVERS, timeout=plan.deadline_s,
                                   on_poll=polled)
        except Stopped:
            return                                    # BackgroundRun reports 'stopped'
        yield runs

    def _horovod(self):
        if self.horovod_runner is None:
            from tutorial.parallel.hvd.train import train_with_horovod
            self.horovod_runner = train_with_horovod
        return self.horovod_runner

    def _draw_progress(self, plan, steps):
        now = time.monotonic()
        if now - self._last_draw < REDRAW_EVERY_S:
            return
        self._last_draw = now
        with self.widget.hold_sync():
            for bar, s in zip(self.bars, steps):
                bar.value = min(s, plan.steps)
            self.status.value = status_line(running_text(plan, steps, now - self._started))

    def _draw_done(self, plan, runs):
        elapsed = time.monotonic() - self._started
        with self.widget.hold_sync():
            for bar in self.bars:
                bar.value, bar.bar_style = plan.steps, "success"
            lines = done_text(plan, runs, elapsed)
            self.status.value = status_line(lines[0], "green")
            self.result.value = (loss_svg(runs) + "".join(status_line(t) for t in lines[1:]))

    def _draw_end(self, status, message):
        elapsed = time.monotonic() - self._started
        with self.widget.hold_sync():
            if status == "stopped":
                self.status.value = status_line(
                    f"stopped by Stop after {elapsed:.1f} s; every process was stopped.", "#b35900")
            elif status == "failed":
                for bar in self.bars:
                    bar.bar_style = "danger"
                self.status.value = status_line(failed_text(message, elapsed), "#b30000")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
