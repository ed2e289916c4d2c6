"""Expert parallelism run for real: experts spread over K contexts, two all-to-alls.

Every device holds a copy of the router (data parallel), some of the experts
(:func:`~tutorial.experts.dispatch.place_experts`) and its own slice of the tokens. One
layer is five moves:

1. each device scores its tokens (softmax of x W_g) and the batch's routing is decided
   (:func:`~tutorial.experts.gating.route`; the same tokens drop as on one device);
2. all-to-all: each token goes to the device of every expert it keeps
   (:func:`~tutorial.experts.exchange.all_to_all`, the
   :class:`~tutorial.experts.dispatch.DispatchPlan`'s ``counts``);
3. each device runs its experts on the rows it received;
4. the reverse all-to-all (``counts`` transposed) brings the outputs home;
5. each device sums its tokens' outputs with their gate weights.

Autograd records both all-to-alls, so the backward pass runs them in reverse: gradients
go to the experts' devices and back. Each device's router copy gets the gradient of its
own tokens; their sum (an allreduce in training) is the one-device gradient.

>>> from tutorial.experts.moe import init_moe, moe, to_nd
>>> devices = [mx.cpu(0), mx.cpu(1)]
>>> w = init_moe(model_dim=4, hidden=8, num_experts=3, seed=0)
>>> x = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
>>> result = expert_parallel_moe(split_tokens(mx.nd.array(x), devices),
...                              place_moe(w, devices), k=2)
>>> [o.shape for o in result.outputs], result.plan.expert_devices
([(3, 4), (2, 4)], (0, 0, 1))
>>> one = moe(mx.nd.array(x), to_nd(w), k=2).output.asnumpy()
>>> bool(np.abs(join_tokens(result.outputs).asnumpy() - one).max() < 1e-5)
True
"""

from typing import List, NamedTuple, Tuple

import mxnet as mx
import numpy as np

from tutorial.experts.all_to_all import transpose
from tutorial.experts.capacity import check_capacity_factor, check_k
from tutorial.experts.dispatch import (DispatchPlan, check_expert_devices, dispatch_plan,
                                       place_experts)
from tutorial.experts.exchange import all_to_all
from tutorial.experts.gating import Routing, gate_weights, route, router_probabilities
from tutorial.experts.moe import MoEWeights, check_tokens, check_weights, combine
from tutorial.parallel.collectives.schedule import chunk_bounds
from tutorial.sequence.block import MLP, mlp


class PlacedMoE(NamedTuple):
    """A mixture of experts spread over devices (NDArrays)."""
    routers: List[mx.nd.NDArray]    # a copy of the router on every device
    experts: Tuple[MLP, ...]        # expert e's weights, on device expert_devices[e]
    expert_devices: Tuple[int, ...]


class ExpertParallelResult(NamedTuple):
    outputs: List[mx.nd.NDArray]          # per device: (its tokens, model_dim)
    routing: Routing                      # the batch's routing
    plan: DispatchPlan                    # who sent which rows where
    probabilities: List[mx.nd.NDArray]    # per device: (its tokens, experts)
    sent: List[int]                       # bytes each device sent to the experts
    returned: List[int]                   # bytes each device sent back


def place_moe(weights, devices, expert_devices=None):
    """``weights`` (NumPy, :func:`~tutorial.experts.moe.init_moe`) on ``devices``: the
    router on all of them, expert e on ``devices[expert_devices[e]]`` (default: even runs)."""
    if not isinstance(devices, (list, tuple)) or not devices:
        raise ValueError("devices must be a non-empty list of contexts, e.g. "
                         "[mx.cpu(i) for i in range(2)]")
    router = np.asarray(weights.router)
    check_weights(weights, router.shape[0] if router.ndim == 2 else -1)
    num_experts = len(weights.experts)
    if expert_devices is None:
        expert_devices = place_experts(num_experts, len(devices))
    expert_devices = check_expert_devices(expert_devices, num_experts, len(devices))
    return PlacedMoE([mx.nd.array(router, ctx=ctx) for ctx in devices], tuple(
        MLP(*(mx.nd.array(a, ctx=devices[d]) for a in expert))
        for expert, d in zip(weights.experts, expert_devices)), expert_devices)


def split_tokens(x, devices, sizes=None):
    """x (tokens, model_dim) cut into consecutive slices, one per device (``sizes`` rows
    each; default: sizes that differ by at most one)."""
    check_tokens(x)
    if sizes is None:
        if len(devices) > x.shape[0]:
            raise ValueError(f"{len(devices)} devices but only {x.shape[0]} tokens: give "
                             f"every device at least one token")
        sizes = [b - a for a, b in chunk_bounds(x.shape[0], len(devices))]
    if len(sizes) != len(devices) or sum(sizes) != x.shape[0] or min(sizes) < 1:
        raise ValueError(f"sizes must give each of the {len(devices)} devices at least one "
                         f"of the {x.shape[0]} tokens, got {list(sizes)}")
    stops = np.cumsum(sizes)
    return [mx.nd.slice_axis(x, axis=0, begin=int(b - n), end=int(b)).as_in_context(ctx)
            for n, b, ctx in zip(sizes, stops, devices)]


def join_tokens(pieces):
    """The inverse of :func:`split_tokens`, on the first piece's context."""
    ctx = pieces[0].context
    return mx.nd.concat(*[p.as_in_context(ctx) for p in pieces], dim=0)


def check_pieces(pieces, placed, k, capacity_factor):
    if not isinstance(pieces, (list, tuple)) or len(pieces) != len(placed.routers):
        raise ValueError(f"pieces must be a list of {len(placed.routers)} NDArrays, one per "
                         f"device the experts were placed on: split_tokens(x, devices)")
    for d, (x, router) in enumerate(zip(pieces, placed.routers)):
        check_tokens(x)
        if x.context != router.context:
            raise ValueError(f"pieces[{d}] is on {x.context} but device {d}'s router on "
                             f"{router.context}: split_tokens(x, devices) with the devices "
                             f"given to place_moe")
    check_weights(MoEWeights(placed.routers[0], placed.experts), pieces[0].shape[1])
    for e, (expert, d) in enumerate(zip(placed.experts, placed.expert_devices)):
        if expert.first.context != pieces[d].context:
            raise ValueError(f"expert {e} belongs on device {d} ({pieces[d].context}) but "
                             f"its weights are on {expert.first.context}: use place_moe")
    check_k(k, len(placed.experts))
    check_capacity_factor(capacity_factor)


def run_experts(received, groups, experts):
    """Each expert on its rows of ``received``: the outputs, in the order they arrived."""
    if received is None:
        return None
    outputs, order = [], []
    for e, positions in groups:
        everything = list(positions) == list(range(received.shape[0]))
        rows = received if everything else mx.nd.take(
            received, mx.nd.array(positions, ctx=received.context, dtype="int32"))
        outputs.append(mlp(rows, experts[e]))                   # (its rows, model_dim)
        order.extend(positions)
    done = outputs[0] if len(outputs) == 1 else mx.nd.concat(*outputs, dim=0)
    if order == sorted(order):
        return done
    back = mx.nd.array(np.argsort(order), ctx=received.context, dtype="int32")
    return mx.nd.take(done, back)                                # arrival order


def expert_parallel_moe(pieces, placed, k=1, capacity_factor=1.0):
    """The layer over the devices of ``placed``: pieces[d] (tokens_d, model_dim) on device d."""
    check_pieces(pieces, placed, k, capacity_factor)
    devices = [x.context for x in pieces]
    probabilities = [router_probabilities(x, r) for x, r in zip(pieces, placed.routers)]
    routing = route(np.concatenate([p.asnumpy() for p in probabilities]), k, capacity_factor)
    plan = dispatch_plan(routing, placed.expert_devices, [x.shape[0] for x in pieces])
    outgoing = [mx.nd.take(x, mx.nd.array(rows, ctx=x.context, dtype="int32")) if rows
                else None for x, rows in zip(pieces, plan.send)]
    there = all_to_all(outgoing, plan.counts, devices)
    processed = [run_experts(received, groups, placed.experts)
                 for received, groups in zip(there.outputs, plan.receive)]
    back = all_to_all(processed, transpose(plan.counts), devices)
    model_dim = pieces[0].shape[1]
    outputs = []
    for d, (start, stop) in enumerate(plan.token_ranges):
        gates = gate_weights(probabilities[d], routing.experts[start:stop])   # (tokens_d, k)
        outputs.append(combine(back.outputs[d], plan.combine[d], gates, model_dim))
    return ExpertParallelResult(outputs, routing, plan, probabilities, there.sent, back.sent)
