"""Bad sizes give a clear error at the call instead of a hang or a raw traceback.

Every call that used to hang runs under ``within``, so a regression fails the test
instead of hanging the test run.
"""

import mxnet as mx
import numpy as np
import pytest

from bounded import within
from tutorial import data
from tutorial.parallel import async_sgd, equivalence, least_squares, step_time
from tutorial.parallel.workload import digits_batches

TINY = (np.zeros((5, 2), np.float32), np.zeros(5, np.int32))
DEVICES = [mx.cpu(0), mx.cpu(1)]


@pytest.mark.parametrize("batch_size, message", [
    (-1, "batch_size must be a whole number >= 1 .*got -1"),
    (0, "batch_size must be a whole number >= 1 .*got 0"),
    (2.5, "batch_size must be a whole number >= 1 .*got 2.5"),
    (6, "batch_size 6 is larger than the 5 samples; use at most 5"),
])
def test_digits_batches_refuses_impossible_batches(batch_size, message):
    with within(20, "digits_batches"), pytest.raises(ValueError, match=message):
        next(digits_batches(batch_size, data=TINY))


def test_digits_batches_refuses_data_without_rows():
    empty = (np.zeros((0, 2), np.float32), np.zeros(0, np.int32))
    with within(20, "digits_batches"), pytest.raises(ValueError, match="data has no rows"):
        next(digits_batches(1, data=empty))


@pytest.mark.parametrize("kwargs, message", [
    ({"per_device_batch": -4}, "per_device_batch must be a whole number >= 1, got -4"),
    ({"per_device_batch": 0}, "per_device_batch must be a whole number >= 1, got 0"),
    ({"total_batch": 1}, r"total_batch must be a whole number >= 2 \(at least one sample for "
                         r"each of the 2 devices\), got 1"),
    ({"per_device_batch": 8, "steps": 0}, "steps must be a whole number >= 1, got 0"),
    ({}, "give per_device_batch .* or total_batch"),
])
def test_compare_refuses_bad_batches_before_training(kwargs, message):
    with within(60, "compare"), pytest.raises(ValueError, match=message):
        equivalence.compare("scratch", "local", DEVICES, **kwargs)


@pytest.mark.parametrize("batches, message", [
    ([4, -1], "per_device_batch must be a whole number >= 1, got -1"),
    ([0], "per_device_batch must be a whole number >= 1, got 0"),
    (8, "per_device_batches must be a list of batch sizes"),
    ([1000], "batch_size 2000 is larger than the 1797 samples"),
])
def test_step_time_measure_refuses_bad_batches(batches, message):
    with within(60, "measure"), pytest.raises(ValueError, match=message):
        step_time.measure(DEVICES, batches, steps=1, warmup=0, hidden=(8,))


def test_layouts_refuse_a_zero_batch():
    model = step_time.StepTimeModel(1e-3, 1e-4, 3e-3)
    with pytest.raises(ValueError, match="per_device_batch must be a whole number >= 1, got 0"):
        step_time.layouts(model, 1024, [0, 64])


def one_row_problem():
    return least_squares.least_squares([[1.0]], [0.0], w0=[1.0])


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_simulate_refuses_a_batch_larger_than_the_data(mode):
    with within(20, "simulate"), pytest.raises(ValueError, match="batch_size=3 is larger than "
                                                                 "the problem's 1 rows"):
        async_sgd.simulate(one_row_problem(), [1.0], lr=0.1, updates=2, batch_size=3, mode=mode)


def test_a_problem_without_rows_is_refused():
    with pytest.raises(ValueError, match=r"X must be a table of n >= 1 rows .*\(0, 2\)"):
        least_squares.least_squares(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match=r"y must hold one target per row of X"):
        least_squares.least_squares(np.zeros((3, 2)), np.zeros(2))


@pytest.mark.parametrize("n, batch_size, message", [
    (0, 1, "n must be a whole number >= 1"),
    (3, 5, "batch_size=5 is larger than the 3 rows"),
    (3, 0, "batch_size must be a whole number >= 1"),
])
def test_batch_rows_refuses_what_would_loop_forever(n, batch_size, message):
    with within(20, "batch_rows"), pytest.raises(ValueError, match=message):
        next(async_sgd.batch_rows(n, batch_size, seed=0))


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size must be a whole number >= 1 .*got 0"),
    ({"batch_size": -3}, "batch_size must be a whole number >= 1 .*got -3"),
])
def test_minibatches_refuse_bad_batches_at_the_call(kwargs, message):
    X, y = TINY
    with pytest.raises(ValueError, match=message):
        data.minibatches(X, y, **kwargs)           # no next(): the call itself says so


def test_minibatches_and_split_refuse_mismatched_rows():
    X, y = TINY
    with pytest.raises(ValueError, match="X has 5 rows but y has 4"):
        data.minibatches(X, y[:4], 2)
    with pytest.raises(ValueError, match=r"val_fraction=nan is out of range"):
        data.train_val_split(X, y, float("nan"))


@pytest.mark.parametrize("line, number", [
    ("not-a-digest  pkg:sklearn/x.csv", 2),
    ("0" * 64, 2),                                      # no file name
    ("0" * 63 + "  short.csv", 2),
])
def test_a_malformed_checksum_line_names_file_line_and_format(tmp_path, line, number):
    sums = tmp_path / "SHA256SUMS"
    sums.write_text("# comment\n" + line + "\n")
    with pytest.raises(data.DataError, match=rf"SHA256SUMS, line {number}: .* is not a checksum "
                                             rf"line; .*64 hex digits.*two spaces.*path"):
        data.verified_path("pkg:sklearn/x.csv", checksums=sums)


def test_a_file_listed_twice_is_named(tmp_path):
    sums = tmp_path / "SHA256SUMS"
    sums.write_text(("0" * 64 + "  a.csv\n") * 2)
    with pytest.raises(data.DataError, match="line 2: a.csv is listed twice"):
        data.verified_path("a.csv", checksums=sums)
