"""Throughput bookkeeping with a fake clock and counted steps: never wall time."""

import numpy as np
import pytest

from tutorial.parallel.throughput import (Measurement, efficiency, measure, measure_scaling,
                                          scaling_table, synthetic_batches)


class FakeClock:
    """Each read advances by ``tick`` seconds; records which reads came after a wait."""

    def __init__(self, tick=1.0):
        self.now, self.tick, self.events = 0.0, tick, []

    def __call__(self):
        self.events.append("clock")
        self.now += self.tick
        return self.now

    def wait(self):
        self.events.append("wait")


def test_warmup_steps_are_run_but_not_counted():
    calls, clock = [], FakeClock(tick=2.0)
    m = measure(lambda X, y: calls.append(len(X)), synthetic_batches(3), steps=4, warmup=2,
                clock=clock, wait=clock.wait)
    assert calls == [3] * 6
    assert (m.images, m.seconds, m.images_per_s) == (12, 2.0, 6.0)
    assert clock.events == ["wait", "clock", "wait", "clock"]   # the devices drained first


def test_synthetic_batches_repeat_one_batch_of_images():
    batches = synthetic_batches(5, seed=1)
    (X1, y1), (X2, y2) = next(batches), next(batches)
    assert X1.shape == (5, 1, 28, 28) and X1.dtype == np.float32 and y1.shape == (5,)
    assert X1 is X2 and y1 is y2


def test_efficiency_is_one_for_linear_scaling_and_one_over_k_for_none():
    assert efficiency(400.0, 4, 100.0) == 1.0
    assert efficiency(100.0, 4, 100.0) == 0.25


def test_scaling_table_divides_by_k_times_the_one_device_run_of_the_same_kind():
    ms = {("real", 4, 1): Measurement(100, 1.0), ("real", 4, 2): Measurement(300, 2.0),
          ("synthetic", 4, 1): Measurement(200, 1.0), ("synthetic", 4, 2): Measurement(200, 1.0)}
    rows = {(r.inputs, r.devices): r.efficiency for r in scaling_table(ms)}
    assert rows == {("real", 1): 1.0, ("real", 2): 0.75,
                    ("synthetic", 1): 1.0, ("synthetic", 2): 0.5}


def test_a_missing_reference_is_explained():
    with pytest.raises(ValueError, match="one-device reference"):
        scaling_table({("real", 4, 2): Measurement(10, 1.0)})


def test_measure_scaling_always_measures_one_device_and_feeds_k_times_b():
    seen = []

    def make_step(devices):
        return lambda X, y: seen.append((len(devices), len(X)))

    rows = measure_scaling(make_step, device_counts=[2], per_device_batches=[3],
                           inputs=["synthetic"], steps=2, warmup=0, repeats=1,
                           make_devices=lambda k: list(range(k)), wait=lambda: None)
    assert sorted(set(seen)) == [(1, 3), (2, 6)]
    assert [(r.devices, r.per_device_batch) for r in rows] == [(1, 3), (2, 3)]


@pytest.mark.parametrize("kwargs, words", [
    ({"steps": 0}, "steps"), ({"warmup": -1}, "warmup")])
def test_bad_counts_are_explained(kwargs, words):
    with pytest.raises(ValueError, match=words):
        measure(lambda X, y: None, synthetic_batches(2), **{"steps": 1, **kwargs})


def test_unknown_inputs_are_explained():
    with pytest.raises(ValueError, match="'real' and/or 'synthetic'"):
        measure_scaling(lambda d: None, [1], [2], inputs=["imagenet"])


def test_the_fastest_of_the_repeats_counts():
    """A fake clock that makes the second round of K = 2 twice as fast as its first."""
    ticks = iter([0.0, 1.0, 0.0, 4.0, 0.0, 1.0, 0.0, 2.0])   # K=1, K=2, K=1, K=2
    rows = measure_scaling(lambda devices: (lambda X, y: None), [2], [4], inputs=["real"],
                           steps=1, warmup=0, repeats=2, make_devices=lambda k: list(range(k)),
                           real_batches=synthetic_batches, clock=lambda: next(ticks),
                           wait=lambda: None)
    assert [(r.devices, r.images_per_s, r.efficiency) for r in rows] == [(1, 4.0, 1.0),
                                                                          (2, 4.0, 0.5)]


@pytest.mark.parametrize("args, says", [
    ((float("nan"), 2, 100.0), "tau_k=nan is out of range: use a finite number"),
    ((float("inf"), 2, 100.0), "tau_k=inf is out of range"),
    ((-5.0, 2, 100.0), "tau_k=-5.0 is out of range"),
    ((100.0, 2, float("nan")), "tau_ref=nan is out of range: use a finite number"),
    ((100.0, 2, float("inf")), "tau_ref=inf is out of range"),
    ((100.0, 2, 0.0), "tau_ref=0.0 is out of range"),
])
def test_efficiency_refuses_throughputs_that_are_not_finite(args, says):
    with pytest.raises(ValueError, match=says):
        efficiency(*args)
