"""Bad input to the pipeline gets a ValueError with a sentence, never a deep traceback or a hang."""

import mxnet as mx
import numpy as np
import pytest

from bounded import within
from tutorial.finite import TrainingDiverged
from tutorial.nn.resnet import resnet
from tutorial.parallel.pipeline import schedules as sch
from tutorial.parallel.pipeline.async_pipeline import train
from tutorial.parallel.pipeline.executor import microbatches, run
from tutorial.parallel.pipeline.stages import balanced_cuts, cut
from tutorial.parallel.pipeline.timing import microbatches_for, speedup_async, speedup_sync
from tutorial.parallel.workload import mlp

DEVICES = [mx.cpu(0), mx.cpu(1)]


@pytest.fixture
def stages():
    return cut(mlp(hidden=(16, 16), seed=0), DEVICES)


@pytest.mark.parametrize("devices, message", [
    ([], "no devices given"),
    ([mx.cpu(i) for i in range(4)], "cannot cut 3 layer\\(s\\) into 4 stages"),
    ([mx.cpu(0), mx.cpu(0)], "devices repeat"),
    (["cpu0"], "is not an MXNet context"),
    (2, "must be a list of MXNet contexts"),
])
def test_cutting_over_impossible_devices(devices, message):
    with pytest.raises(ValueError, match=message):
        cut(mlp(hidden=(16, 16), seed=0), devices)


@pytest.mark.parametrize("cuts, message", [
    ([(0, 1)], "1 cuts for 2 devices"),
    ([(0, 2), (1, 3)], "consecutive, non-empty ranges"),
    ([(0, 1), (1, 2)], "end at layer 2, but the network has 3"),
    ([(0, 0), (0, 3)], "consecutive, non-empty"),
])
def test_bad_cuts(cuts, message):
    with pytest.raises(ValueError, match=message):
        cut(mlp(hidden=(16, 16), seed=0), DEVICES, cuts=cuts)


def test_zero_stages_and_too_many_stages():
    with pytest.raises(ValueError, match="cannot cut 3 layer"):
        balanced_cuts([1, 2, 3], 0)
    with pytest.raises(ValueError, match="Use 1 to 3 stages"):
        balanced_cuts([1, 2, 3], 4)


def test_microbatches_that_do_not_divide_the_batch():
    X, y = np.zeros((10, 64)), np.zeros(10)
    with pytest.raises(ValueError, match="3 micro-batches do not divide a batch of 10"):
        microbatches(X, y, 3)
    with pytest.raises(ValueError, match="microbatches must be a whole number >= 1"):
        microbatches(X, y, 0)
    with pytest.raises(ValueError, match="X has 10 rows but y has 9"):
        microbatches(X, y[:9], 2)


def test_run_refuses_a_plan_that_does_not_fit(stages):
    X, y = np.zeros((8, 64), np.float32), np.zeros(8)
    with pytest.raises(ValueError, match="schedule is for 3 stages but the network is cut into 2"):
        run(stages, sch.gpipe(3, 2), microbatches(X, y, 2), lr=0.1)
    with pytest.raises(ValueError, match="has 4 micro-batches but got 2"):
        run(stages, sch.gpipe(2, 4), microbatches(X, y, 2), lr=0.1)
    with pytest.raises(ValueError, match="plan must be a Schedule"):
        run(stages, "gpipe", microbatches(X, y, 2), lr=0.1)
    with pytest.raises(ValueError, match="lr=nan is out of range"):
        run(stages, sch.gpipe(2, 2), microbatches(X, y, 2), lr=float("nan"))
    with pytest.raises(ValueError, match="update must be one of"):
        run(stages, sch.gpipe(2, 2), microbatches(X, y, 2), lr=0.1, update="later")
    with pytest.raises(ValueError, match="micro-batch 1 must be an \\(X, y\\) pair"):
        run(stages, sch.gpipe(2, 2), [(X, y), X], lr=0.1)


def test_a_micro_batch_whose_features_do_not_fit_the_net_is_refused_before_any_work(stages):
    X, y = np.zeros((8, 64), np.float32), np.zeros(8)
    wrong_width = [(X[:4], y[:4]), (np.zeros((4, 7), np.float32), y[4:])]
    with within(60, "run"), pytest.raises(ValueError, match="micro-batch 1: each sample has 7 "
                                                            "features .* first layer takes 64"):
        run(stages, sch.gpipe(2, 2), wrong_width, lr=0.1, concurrent=True, wait_limit_s=20)


@pytest.mark.parametrize("update", ["step", "backward"])
def test_a_nan_input_is_refused_before_it_reaches_the_weights(stages, update):
    X, y = np.ones((8, 64), np.float32), np.zeros(8)
    X[5, 3] = np.nan
    before = [p.data().asnumpy() for s in range(2) for p in stages.params(s)]
    with within(60, "run"), pytest.raises(ValueError, match="micro-batch 1 holds NaN or an "
                                                            "infinity in X \\(row 1\\)"):
        run(stages, sch.gpipe(2, 2), microbatches(X, y, 2), lr=0.1, update=update)
    after = [p.data().asnumpy() for s in range(2) for p in stages.params(s)]
    assert all((a == b).all() for a, b in zip(before, after))


@pytest.mark.parametrize("update", ["step", "backward"])
def test_a_nan_weight_stops_the_run_with_training_diverged(stages, update):
    X, y = np.ones((8, 64), np.float32), np.zeros(8)
    weight = stages.params(1)[0]
    weight.set_data(mx.nd.full(weight.shape, np.nan, ctx=weight.list_ctx()[0]))
    with within(60, "run"), pytest.raises(TrainingDiverged, match=weight.name):
        run(stages, sch.gpipe(2, 2), microbatches(X, y, 2), lr=0.1, update=update)


@pytest.mark.parametrize("label, says", [(10, "label 10 \\(sample 1\\) is not a class"),
                                         (-1, "label -1"), (2.5, "label 2.5")])
def test_labels_outside_the_classes_are_refused(stages, label, says):
    X, y = np.ones((8, 64), np.float32), np.zeros(8)
    y[5] = label
    with within(60, "run"), pytest.raises(ValueError, match=f"micro-batch 1: {says}"):
        run(stages, sch.gpipe(2, 2), microbatches(X, y, 2), lr=0.1)


@pytest.mark.parametrize("limit", [0, -1, float("nan"), float("inf"), "5"])
def test_a_wait_limit_that_is_not_a_positive_number_is_refused(stages, limit):
    X, y = np.ones((8, 64), np.float32), np.zeros(8)
    with within(60, "run"), pytest.raises(ValueError, match="wait_limit_s=.* is out of range"):
        run(stages, sch.gpipe(2, 2), microbatches(X, y, 2), lr=0.1, wait_limit_s=limit)


def test_a_resnet_cannot_be_cut_into_pipeline_stages():
    with pytest.raises(ValueError, match="cuts a Sequential of Dense layers.*Conv2D"):
        cut(resnet("batch", seed=0), DEVICES)


def test_training_arguments(stages):
    stream = [(np.zeros((4, 64), np.float32), np.zeros(4))] * 6
    with pytest.raises(ValueError, match="mode must be one of"):
        train(stages, stream, "hogwild", 0.1)
    with pytest.raises(ValueError, match="6 micro-batches do not make whole steps of 4"):
        train(stages, stream, "sync", 0.1, microbatches=4)
    with pytest.raises(ValueError, match="lr=-0.1 is out of range"):
        train(stages, stream, "async", -0.1)


def test_timing_model_arguments():
    with pytest.raises(ValueError, match="stages must be a whole number"):
        speedup_sync(0, 4)
    with pytest.raises(ValueError, match="imbalance=0.5 is out of range"):
        speedup_async(4, imbalance=0.5)
    with pytest.raises(ValueError, match="speedup=4 is out of range"):
        microbatches_for(4, 4)


def test_ndarray_micro_batches_run_like_numpy_ones(stages):
    X = np.random.default_rng(0).normal(size=(8, 64)).astype(np.float32)
    y = np.arange(8) % 10
    plan = sch.gpipe(2, 2)
    numpy_run = run(stages, plan, microbatches(X, y, 2), update=None, concurrent=False)
    nd_batches = microbatches(mx.nd.array(X), mx.nd.array(y), 2)
    with within(60, "run"):
        nd_run = run(stages, plan, nd_batches, update=None, concurrent=False)
    np.testing.assert_allclose(nd_run.losses, numpy_run.losses, rtol=1e-6)
