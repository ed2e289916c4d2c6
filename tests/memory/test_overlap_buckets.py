"""Buckets and timelines as data: hand-worked cases."""

import math

import pytest

from tutorial.memory.buckets import Event, buckets, summary

PARAMS = [("w3", 40), ("b3", 4), ("w2", 400), ("b2", 40), ("w1", 256), ("b1", 16)]


def test_buckets_close_once_they_hold_enough():
    assert buckets(PARAMS, 44) == (("w3", "b3"), ("w2",), ("b2", "w1"), ("b1",))
    assert buckets(PARAMS, 45) == (("w3", "b3", "w2"), ("b2", "w1"), ("b1",))


def test_bucket_extremes():
    assert buckets(PARAMS, 0) == tuple((name,) for name, _ in PARAMS)
    assert buckets(PARAMS, math.inf) == (tuple(name for name, _ in PARAMS),)
    assert buckets([], 10) == ()


def test_buckets_keep_backward_order_and_every_parameter_once():
    for size in (1, 50, 300, 10 ** 6):
        flat = [name for group in buckets(PARAMS, size) for name in group]
        assert flat == [name for name, _ in PARAMS]


def test_refuses_a_negative_bucket():
    with pytest.raises(ValueError, match="bucket_bytes"):
        buckets(PARAMS, -1)


def test_summary_by_hand():
    events = [Event("compute", "forward", 0.0, 1.0),
              Event("compute", "backward layer 2", 1.0, 2.0),
              Event("communication", "bucket 0", 1.5, 3.0),
              Event("compute", "backward layer 1", 2.0, 2.5),
              Event("communication", "bucket 1", 3.0, 4.0),
              Event("compute", "update", 4.0, 4.5)]
    s = summary(events)
    assert (s.compute_s, s.communication_s, s.step_s) == (3.0, 2.5, 4.5)
    assert (s.hidden_s, s.exposed_s) == (1.0, 1.5)       # 1.5 .. 2.5 overlaps compute


def test_summary_with_no_overlap():
    events = [Event("compute", "backward layer 1", 0.0, 1.0),
              Event("communication", "bucket 0", 1.0, 2.0)]
    assert summary(events).hidden_s == 0.0


def test_events_refuse_nonsense():
    with pytest.raises(ValueError, match="lane"):
        Event("network", "x", 0.0, 1.0)
    with pytest.raises(ValueError, match="before it starts"):
        Event("compute", "x", 1.0, 0.5)
