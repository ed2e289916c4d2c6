"""The compute/communication model: fitted against NumPy, and the overlap arithmetic by hand."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.parallel.step_time import Measurement, StepTimeModel, fit, layouts, measure


def test_fit_recovers_a_known_line_and_median_communication():
    rng = np.random.default_rng(0)
    sizes = [1, 2, 4, 8, 16, 32, 64]
    comm = [2e-3, 3e-3, 2.5e-3, 9e-3, 2.2e-3, 2.8e-3, 2.6e-3]    # one outlier
    update = [1e-3, 1.2e-3, 0.9e-3, 1.1e-3, 5e-3, 1e-3, 1.05e-3]
    data = [Measurement(2, b, 1e-3 + 2e-5 * b + rng.normal(0, 1e-6), c, u, 0.0)
            for b, c, u in zip(sizes, comm, update)]
    model = fit(data)
    slope, intercept = np.polyfit(sizes, [m.compute_s for m in data], 1)
    assert model.per_sample_s == pytest.approx(slope, rel=1e-6)
    assert model.fixed_s == pytest.approx(intercept, rel=1e-6)
    assert model.communication_s == pytest.approx(np.median(comm))
    assert model.update_s == pytest.approx(np.median(update))


def test_overlap_takes_the_max_and_no_overlap_the_sum():
    model = StepTimeModel(fixed_s=1.0, per_sample_s=0.5, communication_s=5.0)
    assert model.step_s(4, overlap=True) == 5.0       # compute 3 < comm 5
    assert model.step_s(4, overlap=False) == 8.0
    assert model.step_s(20, overlap=True) == 11.0     # compute 11 > comm 5
    assert model.hidden_from() == 8.0                 # 1 + 0.5 b = 5
    assert not model.is_hidden(7) and model.is_hidden(8)
    with_update = StepTimeModel(fixed_s=1.0, per_sample_s=0.5, communication_s=5.0, update_s=2.0)
    assert with_update.step_s(4, overlap=True) == 7.0     # the update never overlaps
    assert with_update.step_s(4, overlap=False) == 10.0
    assert with_update.communication_share(4) == 0.5


def test_layouts_of_1024():
    model = StepTimeModel(fixed_s=1e-4, per_sample_s=1e-4, communication_s=2e-3)
    one, sixteen = layouts(model, 1024, [1, 64])
    assert (one.nodes, sixteen.nodes) == (1024, 16)
    assert not one.hidden and sixteen.hidden
    assert one.step_s == pytest.approx(2e-3) and sixteen.step_s == pytest.approx(6.5e-3)
    assert one.device_s_per_sample == pytest.approx(2e-3)          # 1024 * 2 ms / 1024
    assert sixteen.device_s_per_sample == pytest.approx(16 * 6.5e-3 / 1024)
    grown = layouts(model, 1024, [1], communication=lambda n: 1e-5 * n)[0]
    assert grown.communication_s == pytest.approx(1.024e-2)


def test_layouts_refuse_a_batch_that_does_not_divide():
    with pytest.raises(ValueError, match="not a multiple"):
        layouts(StepTimeModel(0, 1, 1), 1024, [3])


def test_fit_needs_two_sizes():
    with pytest.raises(ValueError, match="two or more"):
        fit([Measurement(2, 4, 1.0, 1.0, 0.0, 2.0)])


def test_measure_reports_each_batch_size():
    rows = measure([mx.cpu(0), mx.cpu(1)], [1, 4], steps=2, warmup=1, hidden=(16,))
    assert [(m.devices, m.per_device_batch) for m in rows] == [(2, 1), (2, 4)]
    for m in rows:
        assert 0 < m.compute_s <= m.total_s and m.aggregate_s > 0
        assert m.time_per_sample_s == pytest.approx(m.total_s / (2 * m.per_device_batch))
