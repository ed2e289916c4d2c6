"""Ring attention's measured load: the clock runs where the schedule computes, nowhere else
(no assertion on how long anything takes: tests never assert on wall time)."""

import time

import mxnet as mx
import numpy as np
import pytest

from tutorial.sequence import ring_timing
from tutorial.sequence.ring_schedule import FULLY
from tutorial.sequence.ring_timing import (MAX_ELEMENTS, clock_for, critical_path, imbalance,
                                           time_ring)


@pytest.mark.parametrize("placement", ["plain", "zigzag"])
@pytest.mark.parametrize("k", [2, 3])
def test_a_device_is_timed_exactly_where_it_computes(placement, k):
    t = time_ring(24, k, causal=True, placement=placement, heads=1, head_dim=4, repeats=2)
    assert t.seconds.shape == (k, k)
    for s, step in enumerate(t.plan.steps):
        for w in step:
            assert (t.seconds[s, w.device] == 0) == (w.mask == FULLY)


def test_critical_path_and_imbalance_by_hand():
    seconds = np.array([[1.0, 3.0], [2.0, 0.0]])
    assert critical_path(seconds) == 5.0                 # max 3, then max 2
    assert imbalance(seconds.sum(axis=0)) == 1.0         # 3 and 3
    assert imbalance([1, 3]) == 1.5


def test_sizes_past_the_limit_are_refused_before_anything_is_allocated():
    with pytest.raises(ValueError, match="shorter seq_len"):
        time_ring(2 ** 16, 2, heads=16)
    assert MAX_ELEMENTS == 2 ** 26
    with pytest.raises(ValueError, match="repeats"):
        time_ring(8, 2, repeats=0)


def test_cpu_contexts_are_timed_on_the_process_cpu_clock_and_gpus_on_the_wall():
    assert clock_for([mx.cpu(0), mx.cpu(1)]) == ("CPU", time.process_time)
    assert clock_for([mx.gpu(0), mx.gpu(1)]) == ("wall", time.perf_counter)   # no GPU needed
    assert clock_for([mx.cpu(0), mx.gpu(0)])[0] == "wall"


def test_time_off_the_cpu_is_not_billed_to_a_device(monkeypatch):
    """A sleep stands for another program holding the cores during a device's turn: the
    wall clock would bill the device 50 ms for it; its CPU seconds stay its own work."""
    attend = ring_timing.attend

    def attend_then_lose_the_core(*args):
        time.sleep(0.05)
        return attend(*args)

    monkeypatch.setattr(ring_timing, "attend", attend_then_lose_the_core)
    t = time_ring(16, 2, causal=False, heads=1, head_dim=4, repeats=1)
    assert t.clock == "CPU"
    assert t.seconds.min() > 0                      # every device computed every step
    assert t.seconds.max() < 0.025                  # and none was billed the 50 ms sleep
