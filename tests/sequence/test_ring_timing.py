"""Ring attention's measured load: the clock runs where the schedule computes, nowhere else
(no assertion on how long anything takes: tests never assert on wall time)."""

import numpy as np
import pytest

from tutorial.sequence.ring_schedule import FULLY
from tutorial.sequence.ring_timing import MAX_ELEMENTS, critical_path, imbalance, time_ring


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
