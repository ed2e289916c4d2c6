"""The data-parallel exercise checker accepts right answers, written several ways, and
names each typical mistake. The wrong answers are written as a learner would, apart from
the checker's own table."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.check.data_parallel import check_combine_gradients


def weighted_mean(shard_means, shard_sizes):
    return np.average(np.stack(shard_means), axis=0, weights=shard_sizes)


def loop(shard_means, shard_sizes):
    total = np.zeros_like(shard_means[0])
    for g, n in zip(shard_means, shard_sizes):
        total += g * n
    return total / sum(shard_sizes)


def in_mxnet(shard_means, shard_sizes):        # an NDArray result is accepted too
    sums = [mx.nd.array(g, dtype="float64") * n for g, n in zip(shard_means, shard_sizes)]
    return mx.nd.add_n(*sums) / sum(shard_sizes)


@pytest.mark.parametrize("answer", [weighted_mean, loop, in_mxnet])
def test_right_answers_pass(answer):
    verdict = check_combine_gradients(answer)
    assert verdict.correct, verdict.text


def test_the_checks_split_unevenly_so_the_mean_of_means_fails():
    verdict = check_combine_gradients(lambda means, sizes: sum(means) / len(means))
    assert not verdict.correct and "mean of the shard means" in verdict.text


@pytest.mark.parametrize("answer, what", [
    (lambda means, sizes: np.sum(means, axis=0), "sum of the shard means"),
    (lambda means, sizes: sum(g * n for g, n in zip(means, sizes)), "shard sums not divided"),
    (lambda means, sizes: sum(g * n for g, n in zip(means, sizes)) / len(means),
     "divided by the number of devices"),
    (lambda means, sizes: sum(g * n for g, n in zip(means, sizes)) / max(sizes),
     "divided by the per-device batch"),
    (lambda means, sizes: means[0], "one device's gradient"),
])
def test_each_typical_mistake_is_named(answer, what):
    verdict = check_combine_gradients(answer)
    assert not verdict.correct and verdict.text.startswith(f"Not yet: {what}:"), verdict.text


def test_an_unlisted_mistake_says_where_it_is_off():
    verdict = check_combine_gradients(lambda means, sizes: 1.01 * weighted_mean(means, sizes))
    assert not verdict.correct and "with shards of 3, 3, 2, 2 samples" in verdict.text


def test_inputs_changed_in_place_do_not_change_the_reference():
    def scales_in_place(shard_means, shard_sizes):
        for g, n in zip(shard_means, shard_sizes):
            g *= n
        return sum(shard_means) / sum(shard_sizes)
    assert check_combine_gradients(scales_in_place).correct
