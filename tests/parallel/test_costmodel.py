"""The closed-form alpha-beta-gamma formulas against the times of the real schedules."""

import math

import numpy as np
import pytest

from tutorial.parallel import costmodel
from tutorial.parallel.collectives import schedule

LENGTH = 720720                       # divisible by every node count up to 16: even chunks


@pytest.mark.parametrize("algorithm", costmodel.ALGORITHMS)
def test_formula_equals_the_schedules_time_for_every_node_count(algorithm):
    rng = np.random.default_rng(3)
    for n in range(1, 17):
        alpha, beta, gamma = rng.uniform(1e-6, 1e-4), rng.uniform(1e-10, 1e-8), \
            rng.uniform(0, 1e-9)
        plan = schedule(algorithm, n, LENGTH, 4)
        modelled = costmodel.schedule_time(plan, alpha, beta, gamma)
        predicted = costmodel.predict(algorithm, n, LENGTH * 4, alpha, beta, gamma)
        assert modelled == pytest.approx(predicted, rel=1e-12), (algorithm, n)


@pytest.mark.parametrize("servers", [1, 2, 3, 4, 6])
def test_sharded_parameter_server_formula(servers):
    plan = schedule("ps", 6, LENGTH, 4, servers=servers)
    assert costmodel.schedule_time(plan, 2e-5, 1e-9, 3e-10) == pytest.approx(
        costmodel.predict("ps", 6, LENGTH * 4, 2e-5, 1e-9, 3e-10, servers=servers))


def test_bounds_hold_and_ring_and_butterfly_reach_them():
    nbytes, alpha, beta = 4e6, 1e-5, 1e-9
    for n in range(2, 17):
        for algorithm in costmodel.ALGORITHMS:
            a, b, _ = costmodel.cost_terms(algorithm, n, nbytes)
            assert a * alpha >= costmodel.latency_lower_bound(n, alpha) - 1e-15
            assert b * beta >= costmodel.bandwidth_lower_bound(n, nbytes, beta) - 1e-15
        ring_bytes = costmodel.cost_terms("ring", n, nbytes)[1]
        assert ring_bytes * beta == pytest.approx(
            costmodel.bandwidth_lower_bound(n, nbytes, beta))
        if n & (n - 1) == 0:
            assert costmodel.cost_terms("butterfly", n, nbytes)[0] == math.log2(n)


def test_the_seeds_claims_follow_from_the_model():
    big = 64e6
    # ring: bandwidth cost nearly independent of N (at most twice n, whatever N is)
    ring = [costmodel.predict("ring", n, big, 0.0, 1e-9) for n in (2, 4, 8, 16)]
    assert max(ring) / min(ring) < 2
    # one parameter server: grows linearly with N (its link is the bottleneck)
    ps = [costmodel.predict("ps", n, big, 0.0, 1e-9) for n in (2, 4, 8, 16)]
    assert ps == pytest.approx([ps[0] * (n - 1) for n in (2, 4, 8, 16)])
    # butterfly: half the steps of the tree (log2 N against 2 log2 N)
    for n in (2, 4, 8, 16):
        assert 2 * len(schedule("butterfly", n, 8).steps) == len(schedule("tree", n, 8).steps)


def test_straggler_slows_every_ring_step():
    n, alpha, beta, slowdown = 8, 1e-5, 1e-9, 4.0
    plan = schedule("ring", n, LENGTH, 4)
    chunk = LENGTH * 4 / n
    slow = costmodel.step_times(plan, alpha, beta, slow_node=3, slowdown=slowdown)
    assert slow == pytest.approx([alpha + chunk * beta * slowdown] * (2 * (n - 1)))
    # in the tree, a leaf is only on the deepest level's two steps
    tree = schedule("tree", 7, LENGTH, 4)
    fast = costmodel.step_times(tree, alpha, beta)
    slowed = costmodel.step_times(tree, alpha, beta, slow_node=0, slowdown=slowdown)
    changed = [i for i, (a, b) in enumerate(zip(fast, slowed)) if b > a]
    assert changed == [0, 3]


def test_bandwidth_reporting_like_nccl_tests():
    assert costmodel.algbw(1e6, 1e-3) == pytest.approx(1e9)
    assert costmodel.busbw(1e6, 1e-3, 8) == pytest.approx(1e9 * 2 * 7 / 8)
    assert costmodel.busbw(1e6, 1e-3, 1) == 0


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="unknown algorithm 'mesh'"):
        costmodel.predict("mesh", 4, 1e6, 1e-5, 1e-9)
    with pytest.raises(ValueError, match="num_nodes must be a whole number"):
        costmodel.predict("ring", 0, 1e6, 1e-5, 1e-9)
    with pytest.raises(ValueError, match="servers must be from 1 to 4"):
        costmodel.predict("ps", 4, 1e6, 1e-5, 1e-9, servers=5)
    with pytest.raises(ValueError, match=r"slowdown=0.5 is out of range: use a number in "
                                         r"\[1.0, inf\)"):
        costmodel.step_times(schedule("ring", 2, 4), 1e-5, 1e-9, slow_node=0, slowdown=0.5)


@pytest.mark.parametrize("call, message", [
    (lambda: costmodel.predict("ring", 4, float("nan"), 1e-5, 1e-9), "nbytes=nan is out of range"),
    (lambda: costmodel.predict("ring", 4, -1, 1e-5, 1e-9), "nbytes=-1 is out of range"),
    (lambda: costmodel.predict("ring", 4, 1e6, -1e-5, 1e-9), "alpha=-1e-05 is out of range"),
    (lambda: costmodel.predict("ring", 4.0, 1e6, 1e-5, 1e-9), "num_nodes must be a whole number"),
    (lambda: costmodel.predict("ps", 4, 1e6, 1e-5, 1e-9, servers=0), "servers must be a whole"),
    (lambda: costmodel.latency_lower_bound(0, 1e-5), "num_nodes must be a whole number >= 1"),
    (lambda: costmodel.bandwidth_lower_bound(0, 1e6, 1e-9), "num_nodes must be a whole number"),
    (lambda: costmodel.algbw(1e6, 0.0), r"seconds=0.0 is out of range: use a number in \(0.0"),
    (lambda: costmodel.busbw(1e6, 1e-3, 0), "num_nodes must be a whole number >= 1"),
])
def test_sizes_and_times_that_would_give_garbage_or_a_raw_error_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
