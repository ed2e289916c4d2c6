"""Sizes past a stated limit are refused before anything is allocated; the loss scaler,
the underflow count, the roofline and the amp probe refuse values that would mislead."""

import tracemalloc

import numpy as np
import pytest

from bounded import within
from tutorial.memory import amp_probe, roofline
from tutorial.memory import roofline_measure as measure
from tutorial.memory.footprint import MAX_DEVICES, footprint
from tutorial.memory.layers import mlp
from tutorial.memory.loss_scaling import DynamicLossScaler
from tutorial.memory.precision import underflow
from tutorial.viz import memory_model


@pytest.mark.parametrize("call, message", [
    (lambda: measure.peak_flops(50000), r"d=50000 is too large to measure here: use d <= 4096"),
    (lambda: measure.bandwidth(2 ** 40), r"nbytes=1099511627776 is too large .* <= 268435456"),
    (lambda: measure.operations(2 ** 30, 64), r"n=1073741824 is too large .*n <= 16777216"),
    (lambda: measure.operations(1024, 50000), r"d=50000 is too large .*d <= 4096"),
    (lambda: measure.ladder(1000), r"d=1000 is too large .*d <= 256 \(the first rung makes"),
    (lambda: measure.operations(1024, 64, batch=10 ** 6),
     r"batch=1000000 x units=1024 is 1,024,000,000 numbers.*a batch of at most 16,384"),
    (lambda: measure.peak_flops(0), "d must be a whole number >= 1, got 0"),
    (lambda: measure.bandwidth(2), "nbytes must be a whole number >= 4, got 2"),
])
def test_roofline_measurements_refuse_sizes_before_allocating(call, message):
    tracemalloc.start()
    try:
        with within(20, "a refused measurement"), pytest.raises(ValueError, match=message):
            call()
        assert tracemalloc.get_traced_memory()[1] < 2 ** 20
    finally:
        tracemalloc.stop()


def test_zero_trainer_refuses_more_devices_than_it_runs_before_building_anything():
    import mxnet as mx

    from tutorial.memory.zero import MAX_DEVICES as MOST, ZeroTrainer

    def never():
        raise AssertionError("an optimizer was made before the devices were checked")

    params = [(np.ones((4, 3), np.float32), np.zeros(4, np.float32))]
    with pytest.raises(ValueError, match=f"{MOST + 1} devices is more than this trainer "
                                         f"takes \\({MOST}\\).*model_states.per_device"):
        ZeroTrainer(params, [mx.cpu(i) for i in range(MOST + 1)], 0, never)


def test_footprint_refuses_more_devices_than_it_counts_quickly():
    net = mlp([64, 256, 256, 10])
    net.initialize()
    with within(5, "footprint(devices=1024)"), pytest.raises(
            ValueError, match="devices=1024 is more than footprint counts: use at most 128"):
        footprint(net, (64,), batch=1024, devices=1024, stage=3)
    assert len(footprint(net, (64,), batch=MAX_DEVICES, devices=MAX_DEVICES, stage=3)) == \
        MAX_DEVICES


@pytest.mark.parametrize("stage", [True, 1.0, 4])
def test_footprint_refuses_a_stage_that_is_not_an_int_0_to_3(stage):
    net = mlp([3, 4, 2])
    net.initialize()
    with pytest.raises(ValueError, match=f"stage must be a whole number 0, 1, 2 or 3, got "
                                         f"{stage!r}"):
        footprint(net, (3,), batch=4, devices=2, stage=stage)


def test_memory_demo_refuses_a_model_too_large_to_build(monkeypatch):
    def no_build(*args, **kwargs):
        raise AssertionError("the net was built before the size was checked")
    monkeypatch.setattr(memory_model.layers, "mlp", no_build)
    with within(5, "build_memory_model"), pytest.raises(
            ValueError, match=r"widths=\(64, 40000, 40000, 10\) make an MLP of 1,603,040,010 "
                              r"parameters, more than the demo builds to count \(at most "
                              r"10,000,000\)"):
        memory_model.build_memory_model(widths=(64, 40000, 40000, 10))
    with pytest.raises(ValueError, match="widths must list at least two layer widths"):
        memory_model.build_memory_model(widths=(64,))


@pytest.mark.parametrize("flag", [float("nan"), "False", 0, None])
def test_loss_scaler_requires_a_real_bool(flag):
    scaler = DynamicLossScaler(init_scale=8.0)
    with pytest.raises(TypeError, match="finite must be True or False"):
        scaler.update(scaler.init(), flag)
    with pytest.raises(TypeError, match=r"finite_flags\[1\] must be True or False"):
        scaler.schedule([True, flag])
    assert scaler.update(scaler.init(), np.bool_(False))[1] is False


@pytest.mark.parametrize("init", [0.5, 2.0 ** 30])
def test_loss_scaler_refuses_a_start_outside_its_bounds(init):
    with pytest.raises(ValueError, match=r"init_scale=.* is outside \[min_scale, max_scale\] = "
                                         r"\[1.0, 16777216.0\]"):
        DynamicLossScaler(init_scale=init)


@pytest.mark.parametrize("gradients, scale, message", [
    ([np.ones(3)], float("nan"), "scale=nan is out of range: use a finite number in"),
    ([np.ones(3)], 0.0, r"scale=0.0 is out of range: use a number in \(0.0, inf\)"),
    ([], 1.0, "gradients must be a non-empty list of arrays"),
])
def test_underflow_refuses_bad_input(gradients, scale, message):
    with pytest.raises(ValueError, match=message):
        underflow(gradients, scale)


@pytest.mark.parametrize("kwargs, message", [
    ({"peak": float("nan")}, "peak=nan is out of range"),
    ({"bandwidth": 0.0}, "bandwidth=0.0 is out of range"),
    ({"peak": -1.0}, "peak=-1.0 is out of range"),
])
def test_attainable_refuses_a_roof_that_is_not_positive(kwargs, message):
    args = {"intensity": 1.0, "peak": 1e11, "bandwidth": 1e10, **kwargs}
    with pytest.raises(ValueError, match=message):
        roofline.attainable(**args)


@pytest.mark.parametrize("seconds", [0.0, -1.0, float("nan")])
def test_a_measured_point_refuses_a_time_that_is_not_positive(seconds):
    with pytest.raises(ValueError, match="seconds=.* is out of range"):
        measure.Point(roofline.dot(10), seconds)


def test_an_operation_refuses_zero_bytes():
    with pytest.raises(ValueError, match="bytes must be a whole number >= 1"):
        roofline.Operation("nothing", 0, 0)


@pytest.mark.parametrize("timeout", [0, -5, float("nan")])
def test_amp_probe_refuses_a_timeout_that_is_not_positive(timeout):
    with pytest.raises(ValueError, match="timeout=.* is out of range"):
        amp_probe.probe(timeout=timeout)


def test_amp_probe_past_its_timeout_says_so_in_one_line():
    with pytest.raises(TimeoutError) as error:
        amp_probe.probe(timeout=0.01)
    message = str(error.value)
    assert "\n" not in message and len(message) < 200
    assert message.startswith("the amp probe (bfloat16) did not finish within timeout=0.01 s")


def test_ring_allreduce_refuses_fewer_numbers_than_nodes():
    with pytest.raises(ValueError, match=r"n must be a whole number >= 4 \(at least one number "
                                         r"per node\), got 2"):
        roofline.ring_allreduce(2, 4)
