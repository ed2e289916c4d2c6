"""Bad counts, shapes, factors and placements give a ValueError/TypeError sentence that
names the argument and a fix, before anything is computed."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.experts import expert_parallel as ep, moe as moe_module
from tutorial.experts.all_to_all import replay, schedule
from tutorial.experts.capacity import dropped_fractions, expert_capacity
from tutorial.experts.dispatch import check_expert_devices, dispatch_plan, place_experts
from tutorial.experts.exchange import all_to_all
from tutorial.experts.gating import (gate_weights, load_balancing_loss, route,
                                     router_probabilities)
from tutorial.experts.moe import init_moe, moe, moe_reference, to_nd

CPUS = [mx.cpu(0), mx.cpu(1)]
P = np.full((4, 3), 1 / 3)


@pytest.mark.parametrize("counts, message", [
    ([], r"counts must be a K x K table"),
    ([[1, 2]], r"counts must be square: counts\[0\] must list 1 counts"),
    ([[1, 2], [3]], r"counts\[1\] must list 2 counts"),
    ([[1, -1], [0, 0]], r"counts\[0\]\[1\] must be a whole number >= 0 \(rows to send\), got -1"),
    ([[1, 0.5], [0, 0]], r"counts\[0\]\[1\] must be a whole number >= 0"),
])
def test_schedule_refuses_bad_counts(counts, message):
    with pytest.raises(ValueError, match=message):
        schedule(counts)


def test_schedule_and_replay_refuse_bad_sizes():
    with pytest.raises(ValueError, match="row_bytes must be a whole number >= 1"):
        schedule([[1]], row_bytes=0)
    with pytest.raises(ValueError, match=r"inputs hold \[2, 1\] rows but the schedule's "
                                         r"counts say \[1, 1\]"):
        replay(schedule([[1, 0], [0, 1]]), [np.zeros((2, 1)), np.zeros((1, 1))])


def nd(rows, ctx=mx.cpu(0), width=2):
    return mx.nd.zeros((rows, width), ctx=ctx)


@pytest.mark.parametrize("inputs, devices, error, message", [
    (nd(2), None, TypeError, "inputs must be a list of NDArrays"),
    ([nd(1)], None, ValueError, "inputs lists 1 nodes but counts 2"),
    ([None, nd(1, CPUS[1])], None, ValueError, r"inputs\[0\] is None but counts\[0\] "
                                               r"sends 1 rows"),
    ([np.zeros((1, 2)), nd(1, CPUS[1])], None, TypeError, r"inputs\[0\] is a ndarray"),
    ([nd(3), nd(1, CPUS[1])], None, ValueError, r"inputs\[0\] must have shape \(rows, "
                                                r"features\) with 1 rows"),
    ([nd(1), nd(1, CPUS[1], width=3)], None, ValueError, "one width and dtype"),
    ([nd(1), nd(1)], CPUS, ValueError, r"inputs\[1\] is on cpu\(0\) but devices\[1\]"),
])
def test_all_to_all_refuses_inputs_that_do_not_fit(inputs, devices, error, message):
    with pytest.raises(error, match=message):
        all_to_all(inputs, [[1, 0], [0, 1]], devices)


def test_all_to_all_needs_devices_when_a_node_is_empty():
    with pytest.raises(ValueError, match="pass devices="):
        all_to_all([nd(1), None], [[1, 0], [0, 0]])


@pytest.mark.parametrize("factor", [0, -1.0, float("nan"), float("inf"), "1.0", True])
def test_capacity_factor_must_be_a_positive_number_or_none(factor):
    with pytest.raises(ValueError, match=r"capacity_factor=.* is out of range: use a finite "
                                         r"number > 0 .* or None for no limit"):
        expert_capacity(6, 3, 1, factor)
    with pytest.raises(ValueError, match="capacity_factor"):
        route(P, 1, factor)


def test_k_and_factor_lists():
    with pytest.raises(ValueError, match="k=4 is larger than the 3 experts: .*use k <= 3"):
        route(P, k=4)
    with pytest.raises(ValueError, match="k must be a whole number >= 1"):
        route(P, k=0)
    with pytest.raises(TypeError, match=r"capacity_factors must be a list .*write \[1.0\]"):
        dropped_fractions(route(P), 1.0)


def test_gating_refuses_bad_shapes():
    with pytest.raises(ValueError, match=r"x has model_dim 4 but router 3 rows"):
        router_probabilities(mx.nd.zeros((2, 4)), mx.nd.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"x must have 2 axes \(tokens, model_dim\)"):
        router_probabilities(mx.nd.zeros((4,)), mx.nd.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"probabilities must have 2 axes"):
        route(np.ones(3) / 3)
    with pytest.raises(ValueError, match="probabilities hold NaN"):
        route(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="experts must list k experts for each of the 4"):
        gate_weights(mx.nd.array(P), [[0], [1]])
    with pytest.raises(ValueError, match=r"probabilities have shape \(2, 3\) but the routing "
                                         r"is of 4 tokens"):
        load_balancing_loss(mx.nd.array(P[:2]), route(P))
    with pytest.raises(ValueError, match=r"alpha=-1 is out of range"):
        load_balancing_loss(mx.nd.array(P), route(P), alpha=-1)


def test_moe_refuses_bad_shapes_before_computing(monkeypatch):
    w = init_moe(4, 6, 3)
    monkeypatch.setattr(moe_module, "router_probabilities",
                        lambda *a: pytest.fail("computed before checking"))
    calls = (lambda x, k, f: moe(mx.nd.array(x), to_nd(w), k, f),
             lambda x, k, f: moe_reference(x, w, k, f))
    for call in calls:
        with pytest.raises(ValueError, match=r"x must have 2 axes \(tokens, model_dim\) .*"
                                             r"x.reshape\(\(-1, model_dim\)\)"):
            call(np.zeros((2, 3, 4), np.float32), 1, 1.0)
        with pytest.raises(ValueError, match=r"weights.router must have shape \(5, experts\)"):
            call(np.zeros((3, 5), np.float32), 1, 1.0)
    with pytest.raises(ValueError, match="k=4 is larger than the 3 experts"):
        moe(mx.nd.zeros((3, 4)), to_nd(w), k=4)
    with pytest.raises(ValueError, match="capacity_factor=nan"):
        moe(mx.nd.zeros((3, 4)), to_nd(w), capacity_factor=float("nan"))
    with pytest.raises(ValueError, match=r"the router scores 3 experts but weights.experts "
                                         r"holds 2"):
        moe(mx.nd.zeros((3, 4)), to_nd(w._replace(experts=w.experts[:2])))
    bad = w._replace(experts=(w.experts[0]._replace(second_bias=np.zeros(5)),) + w.experts[1:])
    with pytest.raises(ValueError, match=r"weights.experts\[0\].second_bias must have shape "
                                         r"\(4,\)"):
        moe(mx.nd.zeros((3, 4)), to_nd(bad))


def test_placement_refuses_more_devices_than_experts_and_idle_devices():
    with pytest.raises(ValueError, match="num_devices=4 is more than the 3 experts: every "
                                         "device needs an expert"):
        place_experts(3, 4)
    with pytest.raises(ValueError, match=r"num_devices=3 is more than the 2 experts"):
        ep.place_moe(init_moe(4, 6, 2), [mx.cpu(i) for i in range(3)])
    with pytest.raises(ValueError, match=r"devices \[1\] hold no expert"):
        check_expert_devices((0, 0, 2), 3, 3)
    with pytest.raises(ValueError, match=r"expert_devices\[1\]=2 but there are 2 devices"):
        check_expert_devices((0, 2, 1), 3, 2)
    with pytest.raises(ValueError, match="must give a device to each of the 3 experts, got 2"):
        check_expert_devices((0, 1), 3, 2)
    with pytest.raises(ValueError, match="token_counts add up to 3 but the routing is of 4"):
        dispatch_plan(route(P), (0, 1, 1), (1, 2))


def test_expert_parallel_refuses_pieces_that_do_not_fit():
    placed = ep.place_moe(init_moe(4, 6, 3), CPUS)
    x = mx.nd.zeros((5, 4))
    with pytest.raises(ValueError, match="pieces must be a list of 2 NDArrays"):
        ep.expert_parallel_moe([x], placed)
    with pytest.raises(ValueError, match=r"pieces\[1\] is on cpu\(0\) but device 1's router "
                                         r"on cpu\(1\)"):
        ep.expert_parallel_moe([x, x], placed)
    pieces = ep.split_tokens(x, CPUS)
    with pytest.raises(ValueError, match="k=5 is larger than the 3 experts"):
        ep.expert_parallel_moe(pieces, placed, k=5)
    with pytest.raises(ValueError, match=r"weights.router must have shape \(3, experts\)"):
        ep.expert_parallel_moe(ep.split_tokens(mx.nd.zeros((5, 3)), CPUS), placed)
    with pytest.raises(ValueError, match="3 devices but only 2 tokens"):
        ep.split_tokens(mx.nd.zeros((2, 4)), [mx.cpu(i) for i in range(3)])
    with pytest.raises(ValueError, match=r"sizes must give each of the 2 devices at least one "
                                         r"of the 5 tokens, got \[5, 0\]"):
        ep.split_tokens(x, CPUS, [5, 0])
    moved = placed._replace(experts=(placed.experts[0], placed.experts[1],
                                     placed.experts[0]))          # expert 2 left on cpu(0)
    with pytest.raises(ValueError, match=r"expert 2 belongs on device 1 \(cpu\(1\)\) but its "
                                         r"weights are on cpu\(0\): use place_moe"):
        ep.expert_parallel_moe(pieces, moved)


@pytest.mark.parametrize("rows, says", [
    (np.zeros((2, 3)), "token 0's row sums to 0"),
    (np.array([[2.0, -1.0, 0.5], [0.2, 0.3, 0.5]]), "token 0's row sums to 1.5 .*least entry -1"),
    (np.array([[0.2, 0.3, 0.5], [-3.0, -2.0, -1.0]]), "token 1's row sums to -6"),
])
def test_routing_takes_a_softmax_not_raw_scores(rows, says):
    from tutorial.experts.gating import route
    with pytest.raises(ValueError, match="probabilities must be a softmax.*" + says):
        route(rows, k=2)
