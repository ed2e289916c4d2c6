"""Splitting a batch over devices: sizes, order, placement, and the clear errors."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.parallel.split import split_batch, split_sizes


@pytest.mark.parametrize("n, k", [(8, 2), (10, 4), (7, 7), (100, 3), (5, 1)])
def test_sizes_cover_the_batch_and_differ_by_at_most_one(n, k):
    sizes = split_sizes(n, k)
    assert sum(sizes) == n and len(sizes) == k
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)      # the first devices take the extras


def test_shards_are_consecutive_rows_on_their_devices():
    devices = [mx.cpu(0), mx.cpu(1), mx.cpu(2)]
    X = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int32)
    shards = split_batch(X, y, devices)
    assert [Xi.context for Xi, _ in shards] == devices
    np.testing.assert_array_equal(np.concatenate([Xi.asnumpy() for Xi, _ in shards]), X)
    np.testing.assert_array_equal(np.concatenate([yi.asnumpy() for _, yi in shards]), y)
    assert [len(yi) for _, yi in shards] == [4, 3, 3]


def test_ndarray_input_is_moved_not_converted():
    X = mx.nd.ones((4, 3), dtype="float64")
    shards = split_batch(X, mx.nd.zeros(4), [mx.cpu(0), mx.cpu(1)])
    assert shards[1][0].dtype == np.float64 and shards[1][0].context == mx.cpu(1)


def test_fewer_samples_than_devices_says_what_to_do():
    with pytest.raises(ValueError, match=r"batch of 3 sample\(s\) over 4 devices.*at least 4"):
        split_batch(np.zeros((3, 2)), np.zeros(3), [mx.cpu(i) for i in range(4)])


def test_labels_must_match_samples():
    with pytest.raises(ValueError, match="one label per sample"):
        split_batch(np.zeros((4, 2)), np.zeros(3), [mx.cpu(0)])
