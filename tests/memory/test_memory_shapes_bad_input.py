"""The memory library's second round of bad input (issue 35, probed again after the first
fixes): shapes that do not fit, sizes that split into nothing, the wrong kind of argument.
Each gets a sentence naming the argument, never MXNet's "Shape inconsistent", an empty
shard or a bare TypeError/StopIteration."""

import math

import matplotlib
import mxnet as mx
import numpy as np
import pytest

from tutorial.memory import layers as L
from tutorial.memory import recompute
from tutorial.memory import tensor_parallel as tp
from tutorial.memory.buckets import buckets
from tutorial.memory.footprint import footprint
from tutorial.memory.mixed_precision import train
from tutorial.memory.overlap import OverlapTrainer
from tutorial.memory.zero import ZeroTrainer
from tutorial.optim.adaptive import TutorialAdam
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.viz import memory_model

matplotlib.use("Agg")
DEVICES = [mx.cpu(0), mx.cpu(1)]


def _params(widths=(6, 5, 3)):
    mx.random.seed(0)
    net = L.mlp(list(widths))
    net.initialize(mx.init.Xavier())
    return [(mx.nd.array(w), mx.nd.array(b)) for w, b in L.from_gluon(net)]


@pytest.mark.parametrize("shape, says", [
    ((63,), "each sample has 63 features .* first layer takes 64"),
    (64, r"sample_shape must be one sample's shape as a tuple, e\.g\. \(64,\)"),
    ((), "sample_shape must be one sample's shape"),
    ((0,), r"sample_shape\[0\] must be a whole number >= 1"),
])
def test_footprint_refuses_a_sample_shape_the_net_cannot_take(shape, says):
    net = L.mlp([64, 32, 10])
    net.initialize()
    with pytest.raises(ValueError, match=says):
        footprint(net, shape, batch=8, devices=2, stage=1)


def test_zero_trainer_refuses_fewer_labels_than_samples_and_a_shared_optimizer():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(8, 6)).astype(np.float32), rng.integers(0, 3, 8).astype(np.float32)
    trainer = ZeroTrainer([(w.asnumpy(), b.asnumpy()) for w, b in _params()], DEVICES, 1,
                          lambda: TutorialAdam(learning_rate=0.01))
    with pytest.raises(ValueError, match="X has 8 samples but y 5 labels"):
        trainer.step(X, y[:5])
    with pytest.raises(TypeError, match="make_optimizer must make a fresh optimizer .* not one "
                                        "optimizer \\(TutorialAdam\\)"):
        ZeroTrainer([(w.asnumpy(), b.asnumpy()) for w, b in _params()], DEVICES, 1,
                    TutorialAdam(learning_rate=0.01))


@pytest.mark.parametrize("X, y, says", [
    (np.zeros((4, 5), np.float32), np.zeros(4), r"X must be \(samples, 6\).* got shape \(4, 5\)"),
    (np.zeros((0, 6), np.float32), np.zeros(0), r"at least one sample.* got shape \(0, 6\)"),
    (np.zeros((4, 6), np.float32), np.zeros(3), "X has 4 samples but y 3 labels"),
])
def test_recompute_refuses_a_batch_that_does_not_fit(X, y, says):
    with pytest.raises(ValueError, match=says):
        recompute.gradients(_params(), X, y, [(0, 1), (1, 2)])


def test_tensor_parallel_needs_a_unit_per_device_and_rows_that_fit_w1():
    with pytest.raises(ValueError, match="8 tensor-parallel devices for 4 hidden units: .* "
                                         "at most 4 devices"):
        tp.split(4, 8)
    rng = np.random.default_rng(0)
    W1, b1, W2, b2 = rng.normal(size=(8, 6)), np.zeros(8), rng.normal(size=(3, 8)), np.zeros(3)
    parts = tp.shard(W1, b1, W2, b2, DEVICES)
    with pytest.raises(ValueError, match=r"X must be \(samples, 6\)"):
        tp.forward_backward(parts, np.zeros((4, 5)), np.zeros(4))
    with pytest.raises(ValueError, match="X has 4 samples but 2 labels"):
        tp.forward_backward(parts, np.zeros((4, 6)), np.zeros(2))


def test_the_memory_demo_counts_only_what_its_run_button_can_run():
    with pytest.raises(ValueError, match="at least one unit; use at most 4 devices"):
        memory_model.tensor_widths((64, 4, 10), 8)
    with pytest.raises(ValueError, match="smallest bias has only 2 elements: use at most 2"):
        memory_model.build_memory_model(widths=(64, 4, 2), batch=8, devices=(8,), tensor=(1,))


@pytest.mark.parametrize("size, says", [
    ("64", r"bucket_bytes='64' is out of range"),
    (float("-inf"), "bucket_bytes=-inf is out of range"),
    (float("nan"), "bucket_bytes=nan is out of range"),
    (-1, "bucket_bytes=-1 is out of range"),
])
def test_bucket_sizes_must_be_numbers_of_bytes(size, says):
    with pytest.raises(ValueError, match=says):
        buckets([("w", 40)], size)
    assert buckets([("w", 40), ("b", 8)], math.inf) == (("w", "b"),)     # one bucket: valid


def test_overlap_trainer_refuses_a_bucket_size_given_as_text():
    with pytest.raises(ValueError, match=r"bucket_bytes='1024' is out of range"):
        OverlapTrainer(mlp((16,), seed=0), DEVICES, bucket_bytes="1024")


def test_mixed_precision_takes_a_list_and_says_when_the_batches_run_out():
    batches = digits_batches(32, seed=0)
    pairs = [next(batches), next(batches)]
    run = train(lambda: mlp((16,), seed=0), DEVICES, pairs, 2)           # a list: fine
    assert len(run.losses) == 2
    with pytest.raises(ValueError, match="batches ran out after 1 of the 3 steps"):
        train(lambda: mlp((16,), seed=0), DEVICES, iter(pairs[:1]), 3)
    with pytest.raises(TypeError, match="batches must give \\(X, y\\) pairs"):
        train(lambda: mlp((16,), seed=0), DEVICES, 5, 1)


@pytest.mark.parametrize("peak, bandwidth, says", [
    (0, 1e10, "peak=0 is out of range"),
    (1e11, float("nan"), "bandwidth=nan is out of range"),
])
def test_the_roofline_is_not_drawn_from_a_peak_or_bandwidth_that_is_no_speed(peak, bandwidth,
                                                                              says):
    import matplotlib.pyplot as plt

    from tutorial.viz import roofline_plot
    fig, ax = plt.subplots()
    try:
        with pytest.raises(ValueError, match=says):
            roofline_plot.draw(ax, peak, bandwidth, [])
    finally:
        plt.close(fig)
