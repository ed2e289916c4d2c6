"""Bad shapes and counts give a ValueError sentence that names the argument and a fix,
before any computation."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.sequence.attention import (Projections, attention, attention_reference,
                                         multi_head_attention)
from tutorial.sequence.online_softmax import partial
from tutorial.sequence.placement import place
from tutorial.sequence.ring_attention import ring_attention, run, split_sequence
from tutorial.sequence.ring_schedule import schedule


def zeros(*shape):
    return mx.nd.zeros(shape)


CPUS = [mx.cpu(0), mx.cpu(1)]


@pytest.mark.parametrize("q, k, v, message", [
    (zeros(2, 5, 4), zeros(2, 5, 4), zeros(2, 5, 4),
     r"q must have 4 axes \(batch, heads, seq, head_dim\), got shape \(2, 5, 4\): for one "
     r"sequence and one head use q.reshape"),
    (zeros(1, 1, 5, 4), zeros(1, 1, 5, 3), zeros(1, 1, 5, 3),
     "q and k must have the same head_dim .*got 4 and 3"),
    (zeros(1, 1, 5, 4), zeros(1, 1, 5, 4), zeros(1, 1, 6, 4),
     r"k and v must have the same seq length \(axis 2\), got 5 and 6"),
    (zeros(1, 2, 5, 4), zeros(1, 1, 5, 4), zeros(1, 1, 5, 4),
     r"q, k and v must agree on \(batch, heads\)"),
])
def test_attention_refuses_inputs_that_do_not_fit(q, k, v, message):
    with pytest.raises(ValueError, match=message):
        attention(q, k, v)
    with pytest.raises(ValueError, match=message):
        attention_reference(q.asnumpy(), k.asnumpy(), v.asnumpy())
    with pytest.raises(ValueError, match=message):
        partial(q, k, v)


def test_the_reference_refuses_an_empty_axis():
    # (MXNet's classic NDArrays cannot have one: a 0 in a shape means "unknown" there)
    empty, full = np.zeros((1, 1, 0, 4)), np.zeros((1, 1, 5, 4))
    with pytest.raises(ValueError, match=r"q has an empty axis, shape \(1, 1, 0, 4\)"):
        attention_reference(empty, full, full)


def test_partial_refuses_a_mask_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"mask must have shape \(seq_q, seq_k\) = \(3, 4\)"):
        partial(zeros(1, 1, 3, 2), zeros(1, 1, 4, 2), zeros(1, 1, 4, 2), np.ones((4, 3)))


@pytest.mark.parametrize("heads, weights, message", [
    (3, [(8, 8)] * 4, "heads=3 does not divide model_dim=8: choose heads among the divisors"),
    (0, [(8, 8)] * 4, "heads must be a whole number >= 1, got 0"),
    (2, [(8, 8)] * 3 + [(8, 4)], r"weights.output must have shape \(model_dim, model_dim\)"),
])
def test_multi_head_attention_refuses_bad_heads_and_weights(heads, weights, message):
    with pytest.raises(ValueError, match=message):
        multi_head_attention(zeros(1, 4, 8), Projections(*(zeros(*s) for s in weights)), heads)


@pytest.mark.parametrize("call, message", [
    (lambda: place(4, 5), r"num_devices=5 is larger than the sequence \(4 positions\): use at "
                          r"most 4 devices"),
    (lambda: place(8, 2.5),
     r"num_devices must be a whole number >= 1 \(devices on the ring\), got 2.5"),
    (lambda: place(8, 0), "num_devices must be a whole number >= 1"),
    (lambda: place(0, 1), "seq_len must be a whole number >= 1, got 0"),
    (lambda: place(8, 2, "striped"), r"placement must be one of \('plain', 'zigzag'\), got "
                                     r"'striped'"),
    (lambda: schedule(8, 2, position_bytes=0), "position_bytes must be a whole number >= 1"),
    (lambda: schedule(3, 4, causal=True), "num_devices=4 is larger than the sequence"),
    (lambda: split_sequence(zeros(1, 1, 3, 2), [mx.cpu(i) for i in range(4)]),
     r"num_devices=4 is larger than the sequence \(3 positions\)"),
    (lambda: split_sequence(zeros(3, 2), CPUS), "x must have 4 axes"),
])
def test_placements_and_schedules_refuse_impossible_sizes(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def pieces(seq_len=7, placement="plain", head_dim=2):
    return split_sequence(zeros(1, 2, seq_len, head_dim), CPUS, placement)


@pytest.mark.parametrize("call, message", [
    (lambda: ring_attention(pieces(), pieces(), pieces(), placement="zigzag"),
     r"queries\[0\] holds 4 positions, but the zigzag placement of 7 positions on 2 devices "
     r"gives device 0 3: cut it with split_sequence\(x, devices, 'zigzag'\)"),
    (lambda: ring_attention(pieces(), pieces(head_dim=3), pieces()),
     "q and k must have the same head_dim .*got 2 and 3"),
    (lambda: ring_attention(pieces(), pieces()[:1], pieces()),
     "keys must be a list of 2 NDArrays, one per device as queries"),
    (lambda: ring_attention(zeros(1, 2, 7, 2), pieces(), pieces()),
     "queries must be a non-empty list of NDArrays"),
    (lambda: ring_attention(pieces(), pieces()[::-1], pieces()[::-1]),
     r"keys\[0\] holds 3 positions but queries\[0\] 4: cut queries, keys and values with "
     r"the same split_sequence"),
    (lambda: ring_attention(pieces(), [p.as_in_context(CPUS[0]) for p in pieces()], pieces()),
     r"keys\[1\] is on cpu\(0\) but queries\[1\] on cpu\(1\)"),
    (lambda: run(schedule(7, 3), pieces(), pieces(), pieces()),
     r"queries has 2 pieces but the plan 3 devices: build the plan with "
     r"schedule\(seq_len, 2\)"),
    (lambda: ring_attention(pieces(), pieces(), [pieces()[0], pieces(head_dim=3)[1]]),
     r"values\[1\] has shape \(1, 2, 3, 3\) and values\[0\] \(1, 2, 4, 2\): every device "
     r"must agree"),
])
def test_ring_attention_refuses_pieces_that_do_not_fit(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("causal", ["False", "True", 1, None])
def test_causal_must_be_true_or_false_not_a_truthy_string(causal):
    from tutorial.sequence.ring_schedule import schedule
    from tutorial.sequence.ring_timing import time_ring
    with pytest.raises(ValueError, match="causal must be True or False"):
        schedule(8, 2, causal=causal)
    with pytest.raises(ValueError, match="causal must be True or False"):
        time_ring(8, 2, causal=causal, heads=1, head_dim=4, repeats=1)


def test_ring_timing_refuses_inputs_past_its_limit_before_drawing_them():
    from tutorial.sequence.ring_timing import MAX_INPUT, time_ring
    with pytest.raises(ValueError, match="queries, keys and values would hold 268,435,456 "
                                         "numbers each"):
        time_ring(2 ** 20, 256)
    assert MAX_INPUT == 2 ** 24
