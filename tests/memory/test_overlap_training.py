"""Overlapped training equals non-overlapped training and one device; the timeline's order."""

import mxnet as mx
import numpy as np
import pytest

from gluon_reference import train_one_device
from tutorial.memory.overlap import OverlapTrainer, measure
from tutorial.parallel.workload import digits_batches, mlp

DEVICES = [mx.cpu(0), mx.cpu(1)]
HIDDEN = (32, 32, 32)


def weights(trainer, ctx):
    return [p.data(ctx).asnumpy() for p in trainer.net.collect_params().values()]


def one_device(steps, lr=0.1):
    return train_one_device(mlp(HIDDEN, seed=0), digits_batches(48, seed=0), steps, "sgd",
                            learning_rate=lr)


@pytest.mark.parametrize("bucket_bytes", [0, 4096, float("inf")])
def test_overlap_equals_no_overlap_bit_for_bit_and_one_device(bucket_bytes):
    runs = {}
    for overlap in (True, False):
        trainer = OverlapTrainer(mlp(HIDDEN, seed=0), DEVICES, bucket_bytes, overlap)
        batches = digits_batches(48, seed=0)
        losses = [trainer.step(*next(batches))[0] for _ in range(5)]
        runs[overlap] = (losses, weights(trainer, DEVICES[0]), weights(trainer, DEVICES[1]))
    assert runs[True][0] == runs[False][0]
    for a, b, c in zip(runs[True][1], runs[False][1], runs[True][2]):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)              # every device holds the same weights
    for ours, theirs in zip(runs[True][1], one_device(5)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_buckets_follow_the_backward():
    trainer = OverlapTrainer(mlp(HIDDEN, seed=0), DEVICES, bucket_bytes=0)
    names = [group[0] for group in trainer.bucket_names]
    layers = [p.name for layer in list(trainer.net)[::-1]
              for p in list(layer.collect_params().values())[::-1]]
    assert names == layers and names[0].endswith("bias")      # last layer's bias first


@pytest.mark.parametrize("overlap", [True, False])
def test_timeline_order(overlap):
    trainer = OverlapTrainer(mlp(HIDDEN, seed=0), DEVICES, bucket_bytes=4096, overlap=overlap)
    _, events = trainer.step(*next(digits_batches(48, seed=0)))
    compute = [e.name for e in events if e.lane == "compute"]
    assert compute == ["forward", "backward layer 4", "backward layer 3", "backward layer 2",
                       "backward layer 1", "update"]
    comm = [e for e in events if e.lane == "communication"]
    assert [e.name for e in comm] == [f"bucket {i}" for i in range(len(trainer.bucket_names))]
    end = {e.name: e.end for e in events}
    # causality: a bucket starts after the backward that finished its last gradient ...
    layer_of = {p.name: len(trainer.layers) - i for i, params in
                enumerate(trainer.layer_params) for p in params}
    for e, names in zip(comm, trainer.bucket_names):
        last = min(layer_of[n] for n in names)
        assert e.start >= end[f"backward layer {last}"]
    # ... the update after every bucket; without overlap, every bucket after the backward
    assert end["update"] >= max(e.end for e in comm)
    if not overlap:
        assert min(e.start for e in comm) >= end["backward layer 1"]


def test_measure_gives_both_timelines():
    timelines = measure(lambda: mlp(HIDDEN, seed=0), DEVICES, digits_batches(48, seed=0),
                        bucket_bytes=4096, steps=2)
    assert sorted(timelines) == [False, True] and all(len(t) == 2 for t in timelines.values())


def test_refuses_no_devices():
    with pytest.raises(ValueError, match="devices"):
        OverlapTrainer(mlp(HIDDEN, seed=0), [])
