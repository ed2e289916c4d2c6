"""The pipeline sweep: structural facts of its measurements, and exact activation memory."""

import mxnet as mx
import pytest

from tutorial.parallel.pipeline.measure import sweep
from tutorial.parallel.pipeline.stages import cut
from tutorial.parallel.workload import digits_batches, mlp


@pytest.fixture(scope="module")
def points():
    X, y = next(digits_batches(32, seed=0))
    stages = cut(mlp(hidden=(16, 16, 16), seed=0), [mx.cpu(i) for i in range(4)])
    floats = max(stages.activation_floats(s) for s in range(4))
    return sweep(stages, X, y, ms=(1, 4, 8), repeats=1), floats


def test_one_microbatch_leaves_three_quarters_idle_however_long_the_tasks(points):
    result, _ = points
    for row in result.values():
        assert row[0].microbatches == 1
        assert row[0].bubble >= 0.75 - 1e-9                # one stage at a time, measured
        assert row[0].replayed_bubble == pytest.approx(0.75)
        assert row[0].replayed_speedup == pytest.approx(1.0)   # m = 1: nothing overlaps


def test_replayed_speedup_is_p_times_the_busy_share(points):
    result, _ = points
    for pt in (pt for row in result.values() for pt in row):
        assert pt.replayed_speedup == pytest.approx(4 * (1 - pt.replayed_bubble))
        assert 1.0 - 1e-9 <= pt.replayed_speedup <= 4.0


def test_activation_memory_is_counted_not_measured(points):
    result, floats = points
    for pt in result["gpipe"]:                             # m micro-batches of 32 / m
        assert pt.activation_bytes == 32 * floats * 4
    for pt in result["1f1b"]:                              # at most 4 of them
        assert pt.activation_bytes == min(pt.microbatches, 4) * (32 // pt.microbatches) \
            * floats * 4
    assert all(0 <= pt.bubble < 1 and pt.seconds > 0 for row in result.values() for pt in row)


def test_every_schedule_replays_the_same_task_times_at_each_m(points):
    """Measured once per m: the schedules' replays differ by the schedule, not by noise."""
    result, _ = points
    for gpipe, one_f_one_b in zip(result["gpipe"], result["1f1b"]):
        assert gpipe.microbatches == one_f_one_b.microbatches
        assert gpipe.one_device_seconds == one_f_one_b.one_device_seconds
