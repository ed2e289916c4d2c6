"""The all-to-all: its pairwise-exchange schedule, the bytes by hand, the result against a
NumPy transpose of the blocks (replayed without devices and run on K = 1..4 contexts),
and its gradient against the reverse all-to-all."""

import itertools

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.experts.all_to_all import (bytes_received, bytes_sent, held, replay, reverse,
                                         schedule, transpose, transpose_reference)
from tutorial.experts.exchange import all_to_all

TOL = dict(rtol=1e-6, atol=1e-6)        # copies only: float32 values come through exactly


def random_counts(k, seed, empty=True):
    """K x K counts, uneven, with empty blocks when ``empty`` (never a node with no rows)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0 if empty else 1, 4, size=(k, k))
    for i in range(k):
        counts[i, i] = max(counts[i, i], 1)       # every node sends and receives something
    return counts.tolist()


def node_inputs(counts, width=3, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(sum(row), width)).astype(np.float32) for row in counts]


def devices(k):
    return [mx.cpu(i) for i in range(k)]


CASES = [(k, seed) for k in (1, 2, 3, 4) for seed in (0, 1, 2)]


def test_pairwise_exchange_four_nodes_by_hand():
    plan = schedule([[1] * 4] * 4, row_bytes=8)
    assert [step.shift for step in plan.steps] == [1, 2, 3]
    assert [[(m.source, m.destination) for m in step.messages] for step in plan.steps] == [
        [(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 2), (1, 3), (2, 0), (3, 1)],
        [(0, 3), (1, 0), (2, 1), (3, 2)]]
    assert [(m.source, m.destination, m.nbytes) for m in plan.kept] == [
        (0, 0, 0), (1, 1, 0), (2, 2, 0), (3, 3, 0)]
    assert bytes_sent(plan) == bytes_received(plan) == [3 * 8] * 4


@pytest.mark.parametrize("k, seed", CASES)
def test_each_step_every_node_sends_and_receives_at_most_once(k, seed):
    plan = schedule(random_counts(k, seed), row_bytes=4)
    assert len(plan.steps) == k - 1
    for step in plan.steps:
        assert all(m.destination == (m.source + step.shift) % k for m in step.messages)
        assert len({m.source for m in step.messages}) == len(step.messages)
        assert len({m.destination for m in step.messages}) == len(step.messages)
        assert all(m.rows > 0 for m in step.messages)          # empty blocks never travel


@pytest.mark.parametrize("k, seed", CASES)
def test_bytes_equal_the_hand_count(k, seed):
    counts, row_bytes = random_counts(k, seed), 12
    plan = schedule(counts, row_bytes)
    assert bytes_sent(plan) == [sum(c for j, c in enumerate(row) if j != i) * row_bytes
                                for i, row in enumerate(counts)]
    assert bytes_received(plan) == [sum(counts[i][j] for i in range(k) if i != j) * row_bytes
                                    for j in range(k)]


@pytest.mark.parametrize("k, seed", CASES)
def test_replay_equals_the_transpose_of_the_blocks(k, seed):
    counts = random_counts(k, seed)
    inputs = node_inputs(counts, seed=seed)
    frames = replay(schedule(counts), inputs)
    assert len(frames) == k
    for ours, theirs in zip(frames[-1], transpose_reference(inputs, counts)):
        np.testing.assert_array_equal(ours, theirs)
    assert np.isnan(frames[0][0]).any() == (sum(counts[i][0] for i in range(1, k)) > 0)


def test_held_after_each_step_three_nodes_by_hand():
    plan = schedule([[1, 1, 0], [0, 1, 1], [1, 1, 1]])
    assert held(plan) == [((0,), (1,), (2,)),
                          ((0, 2), (0, 1), (1, 2)),           # shift 1: 0->1, 1->2, 2->0
                          ((0, 2), (0, 1, 2), (1, 2))]        # shift 2: 2->1 (0->2 empty)


def test_a_hand_worked_transpose_with_an_empty_node():
    inputs = [np.array([[1], [2]]), np.zeros((0, 1)), np.array([[3], [4], [5]])]
    out = transpose_reference(inputs, [[0, 2, 0], [0, 0, 0], [1, 0, 2]])
    assert [o.ravel().tolist() for o in out] == [[3], [1, 2], [4, 5]]
    final = replay(schedule([[0, 2, 0], [0, 0, 0], [1, 0, 2]]), inputs)[-1]
    assert [o.ravel().tolist() for o in final] == [[3], [1, 2], [4, 5]]


@pytest.mark.parametrize("k, seed", CASES)
def test_on_contexts_equals_the_reference_and_the_gradient_is_the_reverse(k, seed):
    counts = random_counts(k, seed)
    inputs = node_inputs(counts, seed=seed)
    arrays = [mx.nd.array(x, ctx=ctx) for x, ctx in zip(inputs, devices(k))]
    heads = node_inputs(transpose(counts), seed=seed + 10)   # one per output
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        result = all_to_all(arrays, counts)
        losses = [(o * mx.nd.array(h, ctx=o.context)).sum()
                  for o, h in zip(result.outputs, heads)]
    autograd.backward(losses)
    assert [o.context for o in result.outputs] == devices(k)
    for ours, theirs in zip(result.outputs, transpose_reference(inputs, counts)):
        np.testing.assert_allclose(ours.asnumpy(), theirs, **TOL)
    back = transpose_reference(heads, transpose(counts))     # the reverse all-to-all
    for a, expected in zip(arrays, back):
        np.testing.assert_allclose(a.grad.asnumpy(), expected, **TOL)
    assert result.sent == bytes_sent(schedule(counts, row_bytes=3 * 4))


def test_forward_then_reverse_gives_the_inputs_back():
    counts = random_counts(4, 7)
    arrays = [mx.nd.array(x, ctx=ctx) for x, ctx in zip(node_inputs(counts), devices(4))]
    there = all_to_all(arrays, counts)
    home = all_to_all(there.outputs, transpose(counts))
    for a, b in zip(arrays, home.outputs):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert reverse(reverse(there.schedule)) == there.schedule
    assert home.sent == bytes_received(there.schedule)


def test_a_node_with_nothing_to_send_or_receive_is_none():
    counts = [[1, 0, 2], [0, 0, 0], [1, 0, 1]]       # node 1 sends and receives nothing
    inputs = [mx.nd.array([[1.0], [2.0], [3.0]], ctx=mx.cpu(0)), None,
              mx.nd.array([[4.0], [5.0]], ctx=mx.cpu(2))]
    result = all_to_all(inputs, counts, devices(3))
    assert result.outputs[1] is None
    assert [o.asnumpy().ravel().tolist() for o in (result.outputs[0], result.outputs[2])] == [
        [1.0, 4.0], [2.0, 3.0, 5.0]]
    assert result.sent == [8, 0, 4]


def test_row_bytes_follow_the_dtype():
    counts = [[0, 2], [1, 0]]
    arrays = [mx.nd.zeros((2, 5), ctx=mx.cpu(0), dtype="float64"),
              mx.nd.zeros((1, 5), ctx=mx.cpu(1), dtype="float64")]
    assert all_to_all(arrays, counts).sent == [2 * 5 * 8, 1 * 5 * 8]


def test_every_block_lands_once_whatever_the_counts():
    for counts in itertools.product(range(2), repeat=4):
        table = [list(counts[:2]), list(counts[2:])]
        plan = schedule(table)
        delivered = sorted((m.source, m.destination) for m in plan.kept) + sorted(
            (m.source, m.destination) for step in plan.steps for m in step.messages)
        assert sorted(delivered) == sorted((i, j) for i in range(2) for j in range(2)
                                           if table[i][j])
