"""The deck's cluster button: one cluster at a time, a deadline, Stop, and a clear status.

Most tests drive the widget with a stand-in for ``train_on_cluster`` (same signature) that
reports steps through ``on_poll`` and waits for the test's signal, so they check the
widget's states without five processes; the last one starts a real two-worker cluster.
"""

import threading
import time

import numpy as np
import pytest

from tutorial.parallel.ps.cluster import ClusterError
from tutorial.parallel.ps.train import WorkerRun
from tutorial.viz import cluster_button as cb

WAIT_S = 30


def fake_runs(steps, same=True):
    params = [np.ones((3, 2)), np.zeros(2)]
    other = params if same else [p + 0.5 for p in params]
    return [WorkerRun(i, i, list(np.linspace(2.0, 0.5, steps)), 0.8, p, "", 1.0)
            for i, p in enumerate((params, other))]


class StandIn:
    """Reports steps 1, 2, ... through on_poll until released (or until on_poll raises)."""

    def __init__(self, outcome=None):
        self.calls, self.release, self.polled = [], threading.Event(), threading.Event()
        self.outcome, self.raised = outcome, None

    def __call__(self, job, kvstore, num_workers, num_servers, timeout, on_poll):
        self.calls.append(dict(job=job, kvstore=kvstore, workers=num_workers,
                               servers=num_servers, timeout=timeout))
        step = 0
        try:
            while not self.release.is_set():
                step = min(step + 1, job.steps)
                on_poll([step, max(step - 1, 0)])
                self.polled.set()
                time.sleep(0.02)
        except Exception as error:          # what the launcher would do: stop, re-raise
            self.raised = error
            raise
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return fake_runs(job.steps, same=kvstore == "dist_sync")


def finish(demo):
    assert demo.run.join(WAIT_S), "the cluster thread did not end"


def test_a_second_start_is_refused_while_a_cluster_runs():
    runner = StandIn()
    demo = cb.ClusterDemo(steps=20, deadline_s=45, runner=runner)
    demo.start()
    assert runner.polled.wait(WAIT_S)
    assert demo.start_button.disabled and not demo.stop_button.disabled
    demo.start()                                  # a second press, e.g. a double click
    assert "already running" in demo.notice.value
    time.sleep(cb.REDRAW_EVERY_S + 0.1)
    assert "of 45 s" in demo.status.value         # the deadline is on screen
    runner.release.set()
    finish(demo)
    assert len(runner.calls) == 1
    assert runner.calls[0]["timeout"] == 45 and runner.calls[0]["workers"] == 2
    assert "done in" in demo.status.value and "identical weights on both workers" \
        " (each pulled the same sum): True" in demo.result.value
    assert not demo.start_button.disabled and demo.stop_button.disabled
    assert [bar.value for bar in demo.bars] == [20, 20]


def test_after_a_run_start_launches_again():
    runner = StandIn()
    runner.release.set()
    demo = cb.ClusterDemo(steps=5, runner=runner)
    demo.start()
    finish(demo)
    demo.kvstore.value = "dist_async"
    demo.start()
    finish(demo)
    assert [c["kvstore"] for c in runner.calls] == ["dist_sync", "dist_async"]
    assert "the workers' weights differ" in demo.result.value


def test_stop_makes_the_launcher_stop_everything():
    runner = StandIn()
    demo = cb.ClusterDemo(steps=20, runner=runner)
    demo.start()
    assert runner.polled.wait(WAIT_S)
    demo.stop()
    finish(demo)
    assert isinstance(runner.raised, cb.Stopped)  # raised inside on_poll, seen by the launcher
    assert "stopped by Stop" in demo.status.value
    assert not demo.start_button.disabled


def test_a_failed_cluster_says_what_failed_and_where_to_look():
    error = ClusterError("worker 1 exited with code 1 after step 5: RuntimeError: deliberate "
                         "crash; the other processes (scheduler) were stopped.")
    runner = StandIn(outcome=error)
    runner.release.set()
    demo = cb.ClusterDemo(steps=20, runner=runner)
    demo.crash.value = True
    assert "Worker 1 will fail after step 5" in demo.status.value
    demo.start()
    finish(demo)
    assert runner.calls[0]["job"].crash_worker == 1
    assert "deliberate crash" in demo.status.value and "notebook 07" in demo.status.value
    assert all(bar.bar_style == "danger" for bar in demo.bars)
    assert not demo.start_button.disabled


def test_status_lines_are_pure_functions_of_the_reports():
    plan = cb.Plan("dist_async", steps=4, deadline_s=30)
    assert cb.running_text(plan, [2, 3], 1.04) == \
        "running for 1.0 s of 30 s: worker 0 at step 2/4, worker 1 at step 3/4"
    lines = cb.done_text(plan, fake_runs(4, same=False), 2.0)
    assert lines[0] == "done in 2.0 s, all 2 workers finished 4 steps:"
    assert lines[1] == "rank 0: last loss 0.500, accuracy of its final weights 0.800"
    svg = cb.loss_svg(fake_runs(4))
    assert svg.count("<polyline") == 2 and "step 4" in svg
    assert "&#9632; worker 0</tspan>" in svg and "&#9632; worker 1</tspan>" in svg  # the key


@pytest.mark.slow    # runs a real cluster
def test_the_button_starts_a_real_cluster_and_reports_it():
    demo = cb.ClusterDemo(steps=3, deadline_s=90)
    demo.start()
    assert demo.run.join(120), "the real cluster outlived its deadline"
    assert "done in" in demo.status.value, demo.status.value
    assert "identical weights on both workers (each pulled the same sum): True" \
        in demo.result.value


class HorovodStandIn(StandIn):
    """Horovod's runner: same reports through on_poll, ranks instead of kvstore and servers."""

    def __call__(self, job, num_ranks, timeout, on_poll):
        return super().__call__(job, "horovod", num_ranks, 0, timeout, on_poll)


def test_horovod_is_a_third_engine_with_its_own_launcher():
    runner, horovod = StandIn(), HorovodStandIn()
    demo = cb.ClusterDemo(steps=5, runner=runner, horovod_runner=horovod, engines=cb.ENGINES)
    demo.kvstore.value = "horovod"
    assert "2 ranks = 2 processes" in demo.status.value     # the plan shown before Start
    horovod.release.set()
    demo.start()
    finish(demo)
    assert runner.calls == [] and [c["workers"] for c in horovod.calls] == [2]
    assert "identical weights on both ranks (each applied the same allreduced average): " \
        "False" in demo.result.value                        # the stand-in's ranks differ


def test_the_offered_engines_are_checked():
    with pytest.raises(ValueError, match="engines must be some of dist_sync, dist_async, horovod"):
        cb.ClusterDemo(runner=StandIn(), engines=("dist_sync", "gloo"))
    assert cb.ClusterDemo(runner=StandIn()).kvstore.options == ("dist_sync", "dist_async")


@pytest.mark.slow    # runs two real Horovod ranks
def test_the_button_starts_real_horovod_ranks():
    from horovod_needed import require_horovod

    require_horovod()
    demo = cb.ClusterDemo(steps=3, deadline_s=90, engines=("horovod",))
    demo.start()
    assert demo.run.join(120), "the Horovod ranks outlived their deadline"
    assert "done in" in demo.status.value, demo.status.value
    assert "identical weights on both ranks (each applied the same allreduced average): True" \
        in demo.result.value
