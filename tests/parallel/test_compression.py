"""Gradient compression: the from-scratch 2-bit quantiser (with its residual) pinned
against MXNet's compressed 'device' kvstore, the payload bytes, and training with each
scheme (signSGD's vote: test_sign_sgd.py)."""

import mxnet as mx
import numpy as np
import pytest

from bounded import within
from tutorial.compare import relative_difference
from tutorial.finite import TrainingDiverged
from tutorial.parallel.compression import (MXNetTwoBitAggregation, TwoBitAggregation,
                                           payload_bytes, two_bit_quantise)
from tutorial.parallel.sign_sgd import majority_vote
from tutorial.parallel.compression_study import bytes_per_step, train_scheme
from tutorial.parallel.scaling_workload import ScalingJob
from tutorial.parallel.trainer import DataParallelTrainer

SHAPE = (37,)


def gradients(rng, workers, threshold):
    """Random gradients, with values exactly at +-threshold and just below it."""
    grads = [rng.normal(scale=threshold, size=SHAPE).astype(np.float32) for _ in range(workers)]
    grads[0][:4] = [threshold, -threshold, np.nextafter(np.float32(threshold), 0), 0.0]
    return grads


def mxnet_compressed_sums(steps_of_grads, threshold):
    """What MXNet's compressed 'device' kvstore hands back, step after step."""
    workers = len(steps_of_grads[0])
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": threshold})
    kv.init(0, mx.nd.zeros(SHAPE))
    sums = []
    for grads in steps_of_grads:
        out = [mx.nd.zeros(SHAPE, ctx=mx.cpu(k)) for k in range(workers)]
        kv.pushpull(0, [mx.nd.array(g, ctx=mx.cpu(k)) for k, g in enumerate(grads)], out=out)
        sums.append(out[0].asnumpy())
    return sums


@pytest.mark.parametrize("workers, threshold", [(1, 0.5), (3, 0.5), (2, 0.25)])
def test_quantiser_with_its_residual_equals_mxnet_over_several_steps(workers, threshold):
    rng = np.random.default_rng(workers)
    steps_of_grads = [gradients(rng, workers, threshold) for _ in range(6)]
    theirs = mxnet_compressed_sums(steps_of_grads, threshold)
    residuals = [np.zeros(SHAPE, np.float32) for _ in range(workers)]
    for grads, their_sum in zip(steps_of_grads, theirs):
        ours = 0
        for k, g in enumerate(grads):
            q, residuals[k] = two_bit_quantise(g, residuals[k], threshold)
            ours = ours + q
        assert np.array_equal(ours, their_sum)       # bit for bit, at every step


def test_what_was_not_sent_stays_in_the_residual():
    rng = np.random.default_rng(0)
    r, sent, total = np.zeros(5, np.float32), 0, 0
    for _ in range(10):
        g = rng.normal(size=5).astype(np.float32)
        q, r = two_bit_quantise(g, r, 0.5)
        assert set(np.unique(q)) <= {-0.5, 0.0, 0.5}
        sent, total = sent + q, total + g
    np.testing.assert_allclose(sent + r, total, atol=1e-5)


def test_the_quantiser_refuses_a_residual_of_another_shape_and_a_bad_threshold():
    with pytest.raises(ValueError, match="one residual per parameter"):
        two_bit_quantise(np.ones(3), np.zeros(4), 0.5)
    with pytest.raises(ValueError, match="threshold"):
        two_bit_quantise(np.ones(3), np.zeros(3), 0.0)


def test_a_local_kvstore_refuses_compression_and_a_device_one_accepts_it_on_cpus():
    with pytest.raises(Exception, match="not supported for this type of kvstore"):
        mx.kv.create("local").set_gradient_compression({"type": "2bit", "threshold": 0.5})
    assert MXNetTwoBitAggregation(0.5).kvstore.type == "device"


@pytest.mark.parametrize("size, scheme, nbytes", [(16, "2bit", 4), (17, "2bit", 8),
                                                   (16, "sign", 4), (17, "sign", 8),
                                                   (10, "none", 40), (1, "2bit", 4)])
def test_payload_bytes_pack_values_into_32_bit_words(size, scheme, nbytes):
    assert payload_bytes(size, scheme) == nbytes


def test_bytes_per_step_push_compressed_and_pull_32_bit_weights_except_for_signs():
    shapes = [(64, 64), (64,), (10, 64), (10,)]
    assert bytes_per_step(shapes, "none") == (4 * 4810, 4 * 4810)
    assert bytes_per_step(shapes, "2bit") == (4 * (256 + 4 + 40 + 1), 4 * 4810)
    assert bytes_per_step(shapes, "sign") == (4 * (256 + 4 + 40 + 1),) * 2   # -1, 0, +1
    with pytest.raises(ValueError, match="scheme must be one of"):
        payload_bytes(10, "1bit")


JOB = ScalingJob(steps=15, batch_per_worker=8, workers=3, learning_rate=0.5, hidden=(16,))
DEVICES = [mx.cpu(k) for k in range(3)]


def test_training_with_the_scratch_quantiser_equals_mxnets_compressed_kvstore():
    ours = train_scheme(JOB, DEVICES, "2bit", threshold=0.5, source="scratch")
    theirs = train_scheme(JOB, DEVICES, "2bit", threshold=0.5, source="mxnet")
    plain = train_scheme(JOB, DEVICES, "none")
    assert relative_difference(list(ours.params), list(theirs.params)) < 1e-6
    assert relative_difference(list(ours.params), list(plain.params)) > 1e-3


def test_a_scheme_needs_one_device_per_worker_and_a_known_name():
    with pytest.raises(ValueError, match="one device per worker"):
        train_scheme(JOB, DEVICES[:2], "none")
    with pytest.raises(ValueError, match="scheme must be"):
        train_scheme(JOB, DEVICES, "4bit")


def test_the_quantiser_refuses_a_nan_gradient_instead_of_keeping_it_in_the_residual():
    with pytest.raises(TrainingDiverged, match="gradient holds NaN .*value 1"):
        two_bit_quantise([0.1, np.nan], [0.0, 0.0], threshold=0.5)
    with pytest.raises(TrainingDiverged, match="residual holds an infinity"):
        two_bit_quantise([0.1, 0.2], [0.0, np.inf], threshold=0.5)


def test_a_trainer_with_two_bit_aggregation_stops_on_a_nan_input():
    job = ScalingJob(steps=2, batch_per_worker=8, workers=2, learning_rate=0.3, hidden=(16,))
    trainer = DataParallelTrainer(job.net(), [mx.cpu(0), mx.cpu(1)], "sgd",
                                  TwoBitAggregation(0.5), learning_rate=0.3)
    X, y = next(job.batches())
    X = X.copy()
    X[2, 7] = np.nan
    with within(60, "step"), pytest.raises(TrainingDiverged, match="gradient of .* at step 1"):
        trainer.step(X, y, timed=False)


@pytest.mark.parametrize("threshold", [float("nan"), -1.0, 0.0, float("inf")])
def test_mxnets_compressed_kvstore_refuses_a_bad_threshold_with_a_sentence(threshold):
    job = ScalingJob(steps=1, batch_per_worker=8, workers=2, learning_rate=0.3, hidden=(16,))
    with within(60, "train_scheme"), pytest.raises(ValueError,
                                                   match="threshold=.* is out of range"):
        train_scheme(job, [mx.cpu(0), mx.cpu(1)], "2bit", threshold=threshold, source="mxnet")


@pytest.mark.parametrize("grads, says", [
    ([], "majority_vote needs the gradients of at least one worker"),
    ([[1.0, 2.0], [1.0]], "worker 1's gradient has shape \\(1,\\) but worker 0's \\(2,\\)"),
])
def test_majority_vote_refuses_no_workers_and_ragged_shapes(grads, says):
    with pytest.raises(ValueError, match=says):
        majority_vote(grads)


def test_the_quantiser_takes_ndarrays_like_the_rest_of_the_api():
    g, r = [0.3, 0.6, -0.7, 1.5], [0.1, 0.0, 0.0, 0.0]
    q, left = two_bit_quantise(mx.nd.array(g), mx.nd.array(r), 0.5)
    q_np, left_np = two_bit_quantise(np.array(g), np.array(r), 0.5)
    assert isinstance(q, np.ndarray) and isinstance(left, np.ndarray)
    np.testing.assert_array_equal(q, q_np)
    np.testing.assert_array_equal(left, left_np)
