"""Expert parallelism against one device: agreement found, and a fault found."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.experts import equivalence, expert_parallel
from tutorial.experts.moe import init_moe


@pytest.mark.parametrize("k, capacity_factor", [(1, None), (2, 1.0), (2, 0.5)])
def test_expert_parallel_agrees_with_one_device(k, capacity_factor):
    w = init_moe(model_dim=6, hidden=8, num_experts=4, seed=0)
    x = np.random.default_rng(1).normal(size=(11, 6)).astype(np.float32)
    e = equivalence.moe_errors(w, x, [mx.cpu(i) for i in range(3)], k, capacity_factor)
    assert e.output < 1e-5 and e.gradients < 1e-5 and e.same_drops


def test_a_wrong_expert_is_seen(monkeypatch):
    real = expert_parallel.run_experts

    def swapped(received, groups, experts):
        return real(received, groups, tuple(reversed(experts)))

    monkeypatch.setattr(expert_parallel, "run_experts", swapped)
    w = init_moe(model_dim=6, hidden=8, num_experts=4, seed=0)
    x = np.random.default_rng(1).normal(size=(11, 6)).astype(np.float32)
    e = equivalence.moe_errors(w, x, [mx.cpu(0), mx.cpu(1)], 1, None)
    assert e.output > 1e-2
