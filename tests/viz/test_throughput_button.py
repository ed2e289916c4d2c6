"""The deck's throughput button: rows as they are measured, Stop, failures, and real numbers.

Most tests drive the widget with a stand-in for the measurement (same protocol: a
generator of (K, Measurement) given the plan and a stop event); the last one times the
real ResNet on two CPU contexts.
"""

import threading

import pytest

from forbid import forbid
from tutorial.parallel import throughput
from tutorial.parallel.throughput import Measurement
from tutorial.viz import throughput_button as tb

WAIT_S = 30
ROWS = [(1, Measurement(320, 1.0)), (2, Measurement(480, 1.0)), (4, Measurement(640, 1.0))]


def finish(demo):
    assert demo.run.join(WAIT_S), "the measuring thread did not end"


def test_each_row_is_measured_once_and_the_efficiency_is_against_one_device():
    demo = tb.ThroughputDemo(measure_all=lambda plan, stop: iter(ROWS), on_gpus=False)
    demo.start()
    finish(demo)
    rows = demo.table.value
    assert "K = 2: 480 images/s, efficiency τ_K / (K τ_1) = 0.75" in rows
    assert "K = 4: 640 images/s, efficiency τ_K / (K τ_1) = 0.50" in rows
    assert "done in" in demo.status.value and "2.00×" in demo.status.value
    assert "add no compute" in demo.status.value          # CPU contexts: said plainly
    assert demo.chart.value.count("<rect") == 2 * len(ROWS)


def test_on_cpu_contexts_the_verdict_follows_the_measured_ratio():
    slower = ROWS[:1] + [(k, Measurement(m.images, m.seconds * k * 2)) for k, m in ROWS[1:]]
    assert "2.00×" in tb.verdict_text(ROWS, on_gpus=False)
    assert "the gain is the cores kept busier" in tb.verdict_text(ROWS, on_gpus=False)
    said = tb.verdict_text(slower, on_gpus=False)
    assert "gain" not in said and "the cost of splitting the batch" in said, said


def test_on_gpus_the_verdict_is_a_speed_up():
    assert tb.verdict_text(ROWS, on_gpus=True) == "4 GPUs process 2.00× the images per second of one."
    assert "sharing this machine's cores" in tb.plan_text(tb.Plan(), on_gpus=False)
    assert "GPUs" in tb.plan_text(tb.Plan(), on_gpus=True)


def test_drawing_a_row_never_measures(monkeypatch):
    calls = forbid(monkeypatch, (throughput, "measure"), (tb, "resnet_step"))
    demo = tb.ThroughputDemo(measure_all=lambda plan, stop: iter(()), on_gpus=False)
    for row in ROWS:
        demo._add_row(row)
    demo._finish("finished", "")
    assert calls == [] and demo.table.value.count("K = ") == 3


def test_stop_ends_between_two_device_counts():
    entered, released, measured = threading.Event(), threading.Event(), []

    def make_step(devices):
        measured.append(len(devices))
        entered.set()
        released.wait(WAIT_S)
        return lambda X, y: None

    def measure_all(plan, stop):
        return tb.measurements(plan, stop, make_step=make_step, make_devices=lambda k: [None] * k,
                               measure=lambda step, batches, steps, warmup: Measurement(8, 1.0))

    demo = tb.ThroughputDemo(measure_all=measure_all, on_gpus=False)
    demo.start()
    assert entered.wait(WAIT_S)
    demo.stop()
    released.set()
    finish(demo)
    assert measured == [1]                 # the K in progress finished; no K after it began
    assert "stopped after" in demo.status.value and "1 of 3 rows" in demo.status.value
    assert demo.start_button.disabled is False


def test_a_failure_is_shown_with_its_fallback():
    def measure_all(plan, stop):
        yield ROWS[0]
        raise ValueError("asked for 4 devices but this machine has 2 usable GPU(s)")

    demo = tb.ThroughputDemo(measure_all=measure_all, on_gpus=False)
    demo.start()
    finish(demo)
    assert "failed after" in demo.status.value and "2 usable GPU(s)" in demo.status.value
    assert "notebook 11" in demo.status.value


def test_bad_device_counts_are_refused_before_anything_runs():
    with pytest.raises(ValueError, match="device count"):
        tb.ThroughputDemo(plan=tb.Plan(counts=(1, 0)), on_gpus=False)


@pytest.mark.slow
def test_the_real_measurement_times_the_resnet_on_each_device_count():
    plan = tb.Plan(counts=(1, 2), per_device_batch=4, steps=1, warmup=1)
    rows = list(tb.measurements(plan, threading.Event()))
    assert [k for k, _ in rows] == [1, 2]
    assert [m.images for _, m in rows] == [4, 8]          # one timed step of K * b images
    assert all(m.seconds > 0 for _, m in rows)


@pytest.mark.parametrize("gpus, counts, on_gpus", [(0, (1, 2, 4), False), (2, (1, 2), True),
                                                   (3, (1, 2), True), (4, (1, 2, 4), True)])
def test_a_machine_with_fewer_gpus_than_four_measures_the_counts_it_has(monkeypatch, gpus,
                                                                        counts, on_gpus):
    import mxnet as mx
    import tutorial.devices
    monkeypatch.setattr(tutorial.devices, "try_all_gpus",
                        lambda: [mx.gpu(i) for i in range(gpus)])
    demo = tb.ThroughputDemo(measure_all=lambda plan, stop: iter(()))
    assert demo.plan.counts == counts and demo.on_gpus is on_gpus
    assert ("GPUs" in demo.status.value) is on_gpus
