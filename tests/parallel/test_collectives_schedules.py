"""Schedules as data: the seeds' worked examples, step counts and bytes against the theory."""

import dataclasses
import math

import mxnet as mx
import numpy as np
import pytest

from tutorial.parallel.collectives import (bytes_received, bytes_sent, contributions,
                                           schedule, values)
from tutorial.parallel.collectives.execute import run_schedule
from tutorial.parallel.collectives.tree import parent_of

NAMES = ["ps", "tree", "butterfly", "ring"]


def _run_prefix(plan, steps, start):
    """Run the first ``steps`` steps of ``plan`` on real NDArrays holding ``start``."""
    prefix = dataclasses.replace(plan, steps=plan.steps[:steps])
    arrays = [mx.nd.array(row, ctx=mx.cpu(i)) for i, row in enumerate(start)]
    return np.stack([a.asnumpy() for a in run_schedule(arrays, prefix)])


@pytest.mark.parametrize("name", NAMES + ["ps-sharded"])
def test_everyone_contributes_exactly_once_for_every_node_count(name):
    for n in range(1, 17):
        for length in (1, n, 2 * n + 1, 720720):
            options = {"servers": min(3, n)} if name == "ps-sharded" else {}
            plan = schedule(name.split("-")[0], n, length, **options)
            final = contributions(plan)[-1]
            nonempty = [c for c, (a, b) in enumerate(plan.chunks) if b > a]
            assert (final[:, nonempty, :] == 1).all(), (name, n, length)


def test_tree_over_seven_nodes_is_the_transcripts_example():
    plan = schedule("tree", 7, 1)
    expected = [[1, 2, 3, 4, 5, 6, 7],
                [1, 2, 3, 4, 8, 13, 7],      # 1, 2 -> 5 gives 8; 3, 4 -> 6 gives 13
                [1, 2, 3, 4, 8, 13, 28],     # 8 + 13 + 7 = 28
                [1, 2, 3, 4, 28, 28, 28],    # broadcast, first step
                [28] * 7]                    # broadcast, second step
    assert values(plan)[:, :, 0].tolist() == expected
    assert [s.phase for s in plan.steps] == ["reduce", "reduce", "broadcast", "broadcast"]
    start = np.arange(1, 8, dtype=np.float32).reshape(7, 1)
    for k, row in enumerate(expected):                # the real executor, step by step
        assert _run_prefix(plan, k, start)[:, 0].tolist() == row


def test_butterfly_over_four_nodes_is_the_transcripts_example():
    plan = schedule("butterfly", 4, 1)
    expected = [[1, 2, 3, 4], [3, 3, 7, 7], [10, 10, 10, 10]]
    assert values(plan)[:, :, 0].tolist() == expected
    start = np.arange(1, 5, dtype=np.float32).reshape(4, 1)
    for k, row in enumerate(expected):
        assert _run_prefix(plan, k, start)[:, 0].tolist() == row


def test_butterfly_folds_extra_nodes_when_the_count_is_not_a_power_of_two():
    plan = schedule("butterfly", 6, 1)
    assert values(plan)[:, :, 0].tolist() == [
        [1, 2, 3, 4, 5, 6], [6, 8, 3, 4, 5, 6], [14, 14, 7, 7, 5, 6],
        [21, 21, 21, 21, 5, 6], [21] * 6]


def test_ring_over_four_nodes_step_by_step():
    """Node i holds i + 1 in each of its 4 chunks; rows are nodes, columns chunks."""
    plan = schedule("ring", 4, 4)
    expected = [
        [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]],
        [[1, 1, 1, 5], [3, 2, 2, 2], [3, 5, 3, 3], [4, 4, 7, 4]],          # reduce-scatter
        [[1, 1, 8, 5], [3, 2, 2, 7], [6, 5, 3, 3], [4, 9, 7, 4]],
        [[1, 10, 8, 5], [3, 2, 10, 7], [6, 5, 3, 10], [10, 9, 7, 4]],      # node i: chunk i+1
        [[10, 10, 8, 5], [3, 10, 10, 7], [6, 5, 10, 10], [10, 9, 7, 10]],  # all-gather
        [[10, 10, 8, 10], [10, 10, 10, 7], [6, 10, 10, 10], [10, 9, 10, 10]],
        [[10] * 4] * 4]
    assert values(plan).tolist() == expected
    start = np.repeat(np.arange(1, 5, dtype=np.float32)[:, None], 4, axis=1)
    for k, table in enumerate(expected):
        assert _run_prefix(plan, k, start).tolist() == table


@pytest.mark.parametrize("n", range(1, 17))
def test_step_counts_match_the_theory(n):
    log2 = math.log2(n)
    assert len(schedule("ring", n, 1000).steps) == 2 * (n - 1)
    assert len(schedule("ps", n, 1000).steps) == (2 if n > 1 else 0)
    p = 2 ** int(math.floor(log2))
    butterfly = len(schedule("butterfly", n, 1000).steps)
    assert butterfly == (int(log2) if p == n else int(math.log2(p)) + 2)
    # tree: 2 steps per level; the depth found by walking up parent links from every node
    def hops(node):
        count = 0
        while parent_of(node, n) is not None:
            node, count = parent_of(node, n), count + 1
        return count
    assert len(schedule("tree", n, 1000).steps) == 2 * max(hops(v) for v in range(n))
    assert max(hops(v) for v in range(n)) == math.floor(log2)


@pytest.mark.parametrize("n", range(2, 17))
def test_bytes_each_node_sends_match_the_theory(n):
    length, itemsize = 720720, 4                     # divisible by every n <= 16
    nbytes = length * itemsize
    ring = schedule("ring", n, length, itemsize)
    assert bytes_sent(ring) == [2 * (n - 1) * nbytes // n] * n
    assert bytes_received(ring) == [2 * (n - 1) * nbytes // n] * n
    ps = schedule("ps", n, length, itemsize)
    assert bytes_received(ps)[0] == bytes_sent(ps)[0] == (n - 1) * nbytes
    assert bytes_sent(ps)[1:] == [nbytes] * (n - 1)
    sharded = schedule("ps", n, length, itemsize, servers=n)
    assert bytes_sent(sharded) == bytes_sent(ring)   # S = N moves the ring's volume
    if n & (n - 1) == 0:
        assert bytes_sent(schedule("butterfly", n, length, itemsize)) == \
            [int(math.log2(n)) * nbytes] * n


@pytest.mark.parametrize("n,length", [(3, 10), (5, 3), (16, 1), (7, 1001)])
def test_ring_with_uneven_chunks_moves_every_chunk_n_minus_1_times_per_phase(n, length):
    ring = schedule("ring", n, length, 4)
    sizes = [b - a for a, b in ring.chunks]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == length
    assert sum(bytes_sent(ring)) == 2 * (n - 1) * length * 4
    assert len(ring.steps) == 2 * (n - 1)
    for step in ring.steps:                          # only to the right neighbour
        assert all(t.destination == (t.source + 1) % n for t in step.transfers)
        assert len({t.source for t in step.transfers}) == len(step.transfers)


def test_schedules_are_pure_and_cached():
    assert schedule("ring", 5, 11) is schedule("ring", 5, 11)
    assert schedule("ring", 5, 11) == schedule("ring", 5, 11, 4)
    with pytest.raises(ValueError, match="num_nodes must be a whole number"):
        schedule("ring", 0, 11)
