"""ZeRO and mixed precision on bad input: a sentence with the fix, or TrainingDiverged
naming the step, never a silent NaN, steps skipped for ever or a raw MXNet error."""

import mxnet as mx
import numpy as np
import pytest

from bounded import within
from tutorial.finite import TrainingDiverged
from tutorial.memory import layers as L
from tutorial.memory import mixed_precision
from tutorial.memory.loss_scaling import DynamicLossScaler
from tutorial.memory.mixed_precision import train
from tutorial.memory.zero import ZeroTrainer
from tutorial.optim.adaptive import TutorialAdam
from tutorial.parallel.workload import digits_batches, mlp

DEVICES = [mx.cpu(0), mx.cpu(1)]
WIDTHS = [6, 5, 3]


def adam():
    return TutorialAdam(learning_rate=0.01)


def params(widths=WIDTHS):
    mx.random.seed(0)
    net = L.mlp(widths)
    net.initialize(mx.init.Xavier())
    return L.from_gluon(net)


def batch(n=8, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, WIDTHS[0])).astype(np.float32),
            rng.integers(0, WIDTHS[-1], n).astype(np.float32))


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_zero_nan_data_stops_with_training_diverged(stage):
    trainer = ZeroTrainer(params(), DEVICES, stage, adam)
    trainer.step(*batch())
    X, y = batch(seed=1)
    X[5, 2] = np.nan
    before = trainer.full_weights()
    with within(60, "a ZeRO step on NaN data"), pytest.raises(
            TrainingDiverged, match=r"the batch of step 2 holds NaN \(sample 5\)"):
        trainer.step(X, y)
    for w, w0 in zip(trainer.full_weights(), before):           # the update was not applied
        np.testing.assert_array_equal(w, w0)


@pytest.mark.parametrize("stage", [0, 3])
def test_zero_nan_weight_stops_naming_it(stage):
    weights = params()
    weights[1][0][0, 0] = np.nan
    with pytest.raises(TrainingDiverged,
                       match=r"layer 2's weight on device \d holds NaN at step 1"):
        ZeroTrainer(weights, DEVICES, stage, adam).step(*batch())


def test_zero_diverging_rate_stops_naming_the_step():
    trainer = ZeroTrainer(params(), DEVICES, 1, lambda: TutorialAdam(learning_rate=1e30))
    with pytest.raises(TrainingDiverged, match=r"at step \d+, so training stopped before the "
                                               r"update. Lower the learning rate \(it is 1e\+30"):
        for seed in range(20):
            trainer.step(*batch(seed=seed))


def test_zero_refuses_labels_beyond_the_classes_and_wrong_features():
    X, y = batch()
    y[3] = 3
    trainer = ZeroTrainer(params(), DEVICES, 1, adam)
    with pytest.raises(ValueError, match=r"label 3 \(sample 3\) is not a class of this net: "
                                         r"labels must be whole numbers 0 to 2"):
        trainer.step(X, y)
    with pytest.raises(ValueError, match=r"X must be \(samples, 6\) for this net's first layer"):
        trainer.step(X[:, :4], batch()[1])


@pytest.mark.parametrize("bad", [True, 1.0, -1, 4, "1", None])
def test_zero_refuses_a_stage_that_is_not_an_int_0_to_3(bad):
    with pytest.raises(ValueError, match=f"stage must be a whole number 0, 1, 2 or 3 .*got "
                                         f"{bad!r}"):
        ZeroTrainer(params(), DEVICES, bad, adam)


@pytest.mark.parametrize("bad, message", [
    ([], "params must be a non-empty list of \\(weight, bias\\) pairs"),
    ([(np.zeros((3, 2)),)], r"params\[0\] is not a \(weight, bias\) pair"),
    ([(np.zeros((3, 2)), np.zeros(4))], r"params\[0\] has a weight of shape \(3, 2\) and a "
                                        r"bias of shape \(4,\)"),
])
def test_zero_refuses_bad_params(bad, message):
    with pytest.raises(ValueError, match=message):
        ZeroTrainer(bad, DEVICES, 0, adam)


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_zero_refuses_more_devices_than_a_parameter_has_elements(stage):
    devices = [mx.cpu(i) for i in range(4)]
    with pytest.raises(ValueError, match=f"stage {stage} gives each of the 4 devices a shard of "
                                         f"every parameter, but layer 2's bias has only 3 "
                                         f"elements: use at most 3 devices, or stage 0"):
        ZeroTrainer(params(), devices, stage, adam)


def test_zero_stage_0_still_runs_on_more_devices_than_elements():
    trainer = ZeroTrainer(params(), [mx.cpu(i) for i in range(4)], 0, adam)
    assert np.isfinite(trainer.step(*batch()))


def make_net():
    return mlp((16,), seed=0)


def with_nan(batches, sample=2):
    for X, y in batches:
        X = X.copy()
        X[sample, 3] = np.nan
        yield X, y


@pytest.mark.parametrize("kwargs", [{}, {"dtype": "float32"},
                                    {"scaler": DynamicLossScaler()}])
def test_mixed_precision_nan_data_stops_at_once(kwargs):
    with within(60, "mixed precision on NaN data"), pytest.raises(
            TrainingDiverged, match=r"the batch of step 1 holds NaN \(sample 2\)"):
        train(make_net, DEVICES, with_nan(digits_batches(32, seed=0)), 30, **kwargs)


def test_mixed_precision_without_a_scaler_stops_at_the_first_overflow():
    with pytest.raises(TrainingDiverged, match=r"at step \d+, so training stopped before the "
                                               r"update. Lower the learning rate"):
        train(make_net, DEVICES, digits_batches(32, seed=0), 30, lr=1e6)


def test_mixed_precision_stops_when_even_the_smallest_scale_overflows():
    scaler = DynamicLossScaler(init_scale=2.0 ** 40, max_scale=2.0 ** 40, min_scale=2.0 ** 36)
    with pytest.raises(TrainingDiverged, match="the gradients of step 5 are not finite even at "
                                               "the scaler's smallest loss scale"):
        train(make_net, DEVICES, digits_batches(32, seed=0), 30, scaler=scaler)


def test_mixed_precision_stops_after_too_many_skipped_steps(monkeypatch):
    monkeypatch.setattr(mixed_precision, "MAX_SKIPPED", 4)
    scaler = DynamicLossScaler(init_scale=2.0 ** 40, max_scale=2.0 ** 40, backoff_factor=0.99)
    with pytest.raises(TrainingDiverged, match=r"the loss scaler skipped 4 steps in a row "
                                               r"\(steps 1 to 4"):
        train(make_net, DEVICES, digits_batches(32, seed=0), 30, scaler=scaler)


def test_mixed_precision_refuses_labels_beyond_the_classes():
    def bad_labels():
        for X, y in digits_batches(32, seed=0):
            y = y.copy()
            y[1] = 12
            yield X, y
    with pytest.raises(ValueError, match=r"label 12 \(sample 1\) is not a class of this net"):
        train(make_net, DEVICES, bad_labels(), 2)


def test_mixed_precision_refuses_a_net_without_parameters():
    with pytest.raises(ValueError, match="make_net\\(\\) returned a net without parameters"):
        train(lambda: mx.gluon.nn.Sequential(), DEVICES, digits_batches(32, seed=0), 2)
