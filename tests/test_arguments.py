"""Public functions the notebooks call refuse sizes, counts and rates that would fail deep
in MXNet or NumPy (or quietly give garbage), with a message saying what to pass."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.largebatch.noise_scale import noise_scale_along_training
from tutorial.largebatch.recipes import compare_recipes
from tutorial.largebatch.runs import Dataset, train_family
from tutorial.parallel.collectives import measure
from tutorial.parallel.split import split_sizes
from tutorial.viz.race import race_model

rng = np.random.default_rng(0)
TINY = Dataset(rng.normal(size=(20, 4)).astype(np.float32), np.arange(20) % 3,
               rng.normal(size=(6, 4)).astype(np.float32), np.arange(6) % 3)


def never_called(*args, **kwargs):
    raise AssertionError("validation must come before any run")


@pytest.mark.parametrize("call, message", [
    (lambda: split_sizes(10, np.int64(0)), "k must be a whole number >= 1 .*got 0"),
    (lambda: split_sizes(2.5, 2), "n must be a whole number >= 0 .*got 2.5"),
    (lambda: measure.make_arrays([mx.cpu()], float("nan")), "nbytes=nan is out of range"),
    (lambda: measure.median_seconds(lambda: None, 0), "repeats must be a whole number >= 1"),
    (lambda: measure.measure([mx.cpu()], [1024], repeats=0), "repeats must be a whole number"),
    (lambda: measure.measure([mx.cpu()], [-8]), r"sizes\[0\]=-8 is out of range"),
    (lambda: measure.measure([mx.cpu()], [1024], methods="ring"), "methods must be a list"),
    (lambda: measure.measure([], [1024]), "devices is empty"),
])
def test_parallel_helpers_refuse_bad_sizes(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("kwargs, message", [
    ({"lrs": []}, "lrs must be a non-empty list"),
    ({"lrs": ["0.1"]}, r"lrs\[0\]='0.1' is out of range"),
    ({"lrs": [0.1, float("inf")]}, r"lrs\[1\]=inf is out of range: use a finite number"),
    ({"batch_size": 0}, "batch_size must be a whole number from 1 to the 20 training examples"),
    ({"batch_size": 21}, "batch_size must be a whole number from 1 to the 20"),
    ({"targets": ()}, "targets must be a non-empty list of accuracies"),
    ({"targets": (95,)}, r"targets\[0\]=95 is out of range: use a number in \(0.0, 1.0\]"),
    ({"check_every": 0}, "check_every must be a whole number >= 1"),
    ({"max_steps": 2.0}, "max_steps must be a whole number >= 1"),
    ({"diverge_factor": float("nan")}, "diverge_factor=nan is out of range"),
])
def test_train_family_checks_everything_before_training(kwargs, message):
    args = dict(batch_size=4, lrs=[0.1], max_steps=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        train_family(TINY, on_step=never_called, **args)


def test_train_family_wants_a_dataset():
    with pytest.raises(TypeError, match="data must be a Dataset"):
        train_family((TINY.X_train, TINY.y_train), 4, [0.1])


def test_train_family_takes_numpy_counts():
    (run,) = train_family(TINY, np.int64(4), [np.float32(0.1)], max_steps=2, stop="never",
                          hidden=(8,))
    assert run.batch_size == 4 and run.steps_run == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"warmup_steps": 0}, "warmup_steps must be a whole number >= 1"),
    ({"steps": "300"}, "steps must be a whole number >= 1"),
    ({"base_lr": -0.1}, "base_lr=-0.1 is out of range"),
    ({"target": 0.0}, r"target=0.0 is out of range: use a number in \(0.0, 1.0\]"),
])
def test_compare_recipes_checks_before_training(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compare_recipes(TINY, [4], **kwargs)


@pytest.mark.parametrize("measure_at, message", [
    ([], "measure_at must list at least one step"),
    ([0, -5], "each step in measure_at must be a whole number >= 0, got -5"),
])
def test_noise_scale_along_training_needs_steps_to_measure_at(measure_at, message):
    with pytest.raises(ValueError, match=message):
        noise_scale_along_training(TINY, 0.1, 4, measure_at)


@pytest.mark.parametrize("kwargs, message", [
    ({"steps": 0}, "steps must be a whole number >= 1"),
    ({"lrs": (0.1, -0.2)}, r"lrs\[1\]=-0.2 is out of range"),
    ({"momentums": (0.9, 1.0)}, r"momentums\[1\]=1.0 is out of range: use a number in "
                                r"\[0.0, 1.0\)"),
])
def test_race_model_checks_its_grid_before_running(kwargs, message):
    with pytest.raises(ValueError, match=message):
        race_model("rosenbrock", runner=never_called, **kwargs)
