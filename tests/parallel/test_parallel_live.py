"""The dashboard's training loop and its stop logic, driven without a browser."""

import threading
import time

import mxnet as mx
import pytest

from tutorial.parallel.live import BackgroundRun, RunConfig, live_training
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.viz.dashboard import TrainingDashboard

TWO = [mx.cpu(0), mx.cpu(1)]
SMALL = dict(devices=2, per_device_batch=8, hidden=(16,), steps=12)


def wait_for(condition, limit_s=120):
    deadline = time.monotonic() + limit_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_runs_every_step_and_trains_like_the_trainer():
    config = RunConfig(**SMALL)
    losses = [r.loss for r in live_training(config, TWO)]
    trainer = DataParallelTrainer(mlp((16,), seed=0), TWO, learning_rate=config.learning_rate)
    batches = digits_batches(16, seed=0)
    expected = [trainer.step(*next(batches)).loss for _ in range(config.steps)]
    assert losses == expected


def test_stop_between_steps_ends_after_exactly_k_reports():
    stop = threading.Event()
    seen = []
    for report in live_training(RunConfig(**SMALL), TWO, stop):
        seen.append(report.step)
        if len(seen) == 4:
            stop.set()
    assert seen == [1, 2, 3, 4]


@pytest.mark.parametrize("rule, factor", [("none", 1.0), ("linear", 4.0), ("sqrt", 2.0)])
def test_learning_rate_scaling_rules(rule, factor):
    config = RunConfig(devices=4, per_device_batch=32, lr_rule=rule, base_lr=0.1, base_batch=32)
    assert config.learning_rate == pytest.approx(0.1 * factor)


def test_config_errors_name_the_choices():
    with pytest.raises(ValueError, match="lr_rule must be one of none, linear, sqrt"):
        RunConfig(lr_rule="cubic")
    with pytest.raises(ValueError, match="per_device_batch must be a whole number >= 1"):
        RunConfig(per_device_batch=0)


def test_background_run_stops_cleanly():
    reports = []
    finished = []

    def on_report(report):
        reports.append(report)
        if len(reports) == 3:
            run.stop()

    run = BackgroundRun(lambda stop: live_training(RunConfig(**SMALL), TWO, stop), on_report,
                        lambda status, message: finished.append((status, message)))
    run.start()
    assert run.join(timeout=120)
    assert [r.step for r in reports] == [1, 2, 3]
    assert finished == [("stopped", "")] and run.status == "stopped"


def test_background_run_reports_a_diverging_run():
    finished = []
    config = RunConfig(**dict(SMALL, base_lr=1e12, lr_rule="none", steps=30))
    run = BackgroundRun(lambda stop: live_training(config, TWO, stop), lambda r: None,
                        lambda status, message: finished.append((status, message))).start()
    assert run.join(timeout=120)
    assert finished[0][0] == "failed" and "Lower the learning rate" in finished[0][1]


def test_dashboard_runs_to_the_end_and_draws():
    view = TrainingDashboard(max_devices=2)
    view.batch.value, view.steps.value = 8, 10
    run = view.start(devices=TWO)
    assert view.run_button.disabled and not view.stop_button.disabled
    assert run.join(timeout=120)
    assert len(view.reports) == 10 and view.progress.value == 10
    assert view.figure.value[:4] == b"\x89PNG"
    assert "finished" in view.summary.value
    assert not view.run_button.disabled and view.stop_button.disabled


def test_dashboard_stop_button_stops_between_steps():
    view = TrainingDashboard(max_devices=2)
    view.batch.value, view.steps.value = 8, 2000
    run = view.start(devices=TWO)
    assert wait_for(lambda: len(view.reports) >= 3)
    view.stop_button.click()
    assert run.join(timeout=120)
    assert run.status == "stopped" and 3 <= len(view.reports) < 2000
    assert view.progress.value == len(view.reports) == view.reports[-1].step
    assert "stopped between two steps" in view.summary.value


def test_dashboard_shows_why_devices_are_missing(monkeypatch):
    import tutorial.viz.dashboard as dashboard
    from tutorial.devices import training_devices
    one_gpu = lambda n: training_devices(n, gpus=[mx.gpu(0)])  # noqa: E731  a 1-GPU machine
    monkeypatch.setattr(dashboard, "training_devices", one_gpu)
    view = TrainingDashboard(max_devices=4)
    view.devices.value = 3
    assert view.start() is None and view.run is None
    assert "asked for 3 devices but this machine has 1 usable GPU" in view.summary.value
    assert not view.run_button.disabled
