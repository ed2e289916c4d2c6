"""Expert parallelism on K = 1..4 CPU contexts equals the one-device layer: outputs and
gradients (inputs, router, every expert), with even and uneven token splits and expert
placements; with a small capacity factor the same tokens drop; the bytes the all-to-all
sends equal the count from the routing."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.experts.dispatch import place_experts
from tutorial.experts.expert_parallel import (expert_parallel_moe, join_tokens, place_moe,
                                              split_tokens)
from tutorial.experts.moe import init_moe, moe, to_nd
from tutorial.sequence.block import MLP

TOL = dict(rtol=1e-4, atol=1e-5)
TOKENS, MODEL_DIM, HIDDEN = 13, 6, 8
CASES = [  # devices, token sizes (None: even), experts, expert placement (None: even runs), k
    (1, None, 3, None, 1), (2, None, 4, None, 2), (2, [9, 4], 3, (0, 1, 1), 1),
    (3, [2, 5, 6], 5, None, 2), (3, None, 4, (2, 0, 1, 0), 1), (4, [1, 3, 4, 5], 4, None, 2),
    (4, None, 6, (3, 3, 0, 1, 2, 0), 3)]


def devices(k):
    return [mx.cpu(i) for i in range(k)]


def data(experts, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(TOKENS, MODEL_DIM)).astype(np.float32)
    head = rng.normal(size=(TOKENS, MODEL_DIM)).astype(np.float32)
    return init_moe(MODEL_DIM, HIDDEN, experts, seed=seed), x, head


def one_device(weights, x_np, head, k, factor):
    x, w = mx.nd.array(x_np), to_nd(weights)
    for a in [x, w.router] + [a for e in w.experts for a in e]:
        a.attach_grad()
    with autograd.record():
        result = moe(x, w, k, factor)
        (result.output * mx.nd.array(head)).sum().backward()
    return result, [result.output.asnumpy(), x.grad.asnumpy(), w.router.grad.asnumpy()] + [
        a.grad.asnumpy() for e in w.experts for a in e]


def expert_parallel(weights, x_np, head, k, factor, num_devices, sizes, placement):
    pieces = split_tokens(mx.nd.array(x_np), devices(num_devices), sizes)
    placed = place_moe(weights, devices(num_devices), placement)
    for a in pieces + placed.routers + [a for e in placed.experts for a in e]:
        a.attach_grad()
    with autograd.record():
        result = expert_parallel_moe(pieces, placed, k, factor)
        (join_tokens(result.outputs) * mx.nd.array(head)).sum().backward()
    router_grad = sum(r.grad.asnumpy() for r in placed.routers)   # the allreduce
    return result, [join_tokens(result.outputs).asnumpy(),
                    join_tokens([p.grad for p in pieces]).asnumpy(), router_grad] + [
        a.grad.asnumpy() for e in placed.experts for a in e]


def names(experts):
    return ["output", "x", "router"] + [f"expert{e}.{f}" for e in range(experts)
                                        for f in MLP._fields]


@pytest.mark.parametrize("num_devices, sizes, experts, placement, k", CASES)
@pytest.mark.parametrize("factor", [None, 0.6])
def test_equals_one_device_outputs_and_gradients(num_devices, sizes, experts, placement, k,
                                                 factor):
    weights, x, head = data(experts, seed=num_devices + experts)
    one, expected = one_device(weights, x, head, k, factor)
    ours, got = expert_parallel(weights, x, head, k, factor, num_devices, sizes, placement)
    for field in ("experts", "slots", "tokens", "capacity"):   # the same tokens kept, dropped
        assert getattr(ours.routing, field) == getattr(one.routing, field), field
    np.testing.assert_allclose(ours.routing.weights, one.routing.weights, **TOL)
    if factor is None:
        assert ours.routing.dropped == 0
    assert [o.context for o in ours.outputs] == devices(num_devices)
    for name, a, b in zip(names(experts), got, expected):
        np.testing.assert_allclose(a, b, err_msg=name, **TOL)


def test_a_small_capacity_factor_drops_the_same_tokens_on_both():
    weights, x, head = data(4, seed=11)
    one, _ = one_device(weights, x, head, 2, 0.3)
    ours, _ = expert_parallel(weights, x, head, 2, 0.3, 3, [3, 4, 6], None)
    dropped = {(t, e) for t, (row, slots) in enumerate(zip(one.routing.experts,
                                                           one.routing.slots))
               for e, s in zip(row, slots) if s is None}
    assert len(dropped) > 5
    assert dropped == {(t, e) for t, (row, slots) in enumerate(zip(ours.routing.experts,
                                                                   ours.routing.slots))
                       for e, s in zip(row, slots) if s is None}


@pytest.mark.parametrize("num_devices, sizes, experts, placement, k", CASES)
def test_bytes_sent_equal_the_count_from_the_routing(num_devices, sizes, experts, placement,
                                                     k):
    weights, x, head = data(experts, seed=3)
    result, _ = expert_parallel(weights, x, head, k, 1.0, num_devices, sizes, placement)
    where = result.plan.expert_devices
    home = [d for d, (a, b) in enumerate(result.plan.token_ranges) for _ in range(a, b)]
    row_bytes = MODEL_DIM * 4
    there, back = [0] * num_devices, [0] * num_devices
    for t, (row, slots) in enumerate(zip(result.routing.experts, result.routing.slots)):
        for e, s in zip(row, slots):
            if s is not None and where[e] != home[t]:
                there[home[t]] += row_bytes               # the token goes to its expert
                back[where[e]] += row_bytes               # and its output comes back
    assert result.sent == there and result.returned == back
    assert [sum(row) for row in result.plan.counts] == [len(s) for s in result.plan.send]


def test_even_placement_and_split():
    assert place_experts(7, 3) == (0, 0, 0, 1, 1, 2, 2)
    pieces = split_tokens(mx.nd.array(np.arange(14).reshape(7, 2)), devices(3))
    assert [p.shape[0] for p in pieces] == [3, 2, 2]
    assert [p.context for p in pieces] == devices(3)
    assert join_tokens(pieces).asnumpy().ravel().tolist() == list(range(14))
