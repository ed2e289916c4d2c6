"""Data against model parallelism: the cost model's bytes are counted independently, and its
verdicts follow the transcript (few weights: data parallel; huge layers: model parallel)."""

import pytest

from tutorial.parallel import costmodel
from tutorial.parallel.pipeline.data_or_model import compare, conv_stack, data_bytes, dense_stack


def test_bytes_are_the_gradients_and_the_activations_at_the_cut():
    widths = [100, 200, 200, 10]
    c = compare(dense_stack(widths), batch=32, devices=2, microbatches=4, alpha=0, beta=1e-9)
    weights = 100 * 200 + 200 + 200 * 200 + 200 + 200 * 10 + 10
    assert c.parameters == weights
    assert c.data_bytes == pytest.approx(2 * (2 - 1) / 2 * 4 * weights)   # ring on 2 nodes
    assert c.model_bytes == 2 * 4 * 32 * 200                              # one cut, both ways
    assert c.data_weight_bytes == 4 * weights
    assert c.model_weight_bytes < c.data_weight_bytes


def test_data_bytes_are_the_comparisons_whatever_the_batch():
    net = dense_stack([100, 200, 200, 10])
    for batch in (1, 32, 4096):
        assert compare(net, batch=batch, devices=3).data_bytes == data_bytes(net, 3)
    assert data_bytes(net, 3) == pytest.approx(4 / 3 * 4 * 62410)
    assert data_bytes(net, 8) == pytest.approx(7 / 4 * 4 * 62410)   # more devices than layers
    assert data_bytes(net, 1) == 0


def test_one_device_is_the_same_for_both():
    c = compare(dense_stack([64, 64, 10]), batch=16, devices=1)
    assert c.data_seconds == pytest.approx(c.model_seconds)
    assert c.data_bytes == c.model_bytes == 0


def test_data_parallel_time_is_compute_over_n_plus_the_ring():
    net = conv_stack(channels=64, size=8, layers=4)
    c = compare(net, batch=64, devices=4, alpha=1e-5, beta=1e-9, flops=1e12)
    compute = 3 * sum(layer.flops for layer in net) * 64 / 4 / 1e12
    ring = costmodel.predict("ring", 4, 4 * c.parameters, 1e-5, 1e-9)
    assert c.data_seconds == pytest.approx(compute + ring)


def test_few_weights_favour_data_and_huge_layers_favour_model_parallelism():
    assert compare(conv_stack(256, 28, 8), batch=256, devices=4).winner == "data"
    assert compare(dense_stack([8192] * 9), batch=256, devices=4).winner == "model"
    ratios = [compare(dense_stack([w] * 9), 256, 4).data_bytes /
              compare(dense_stack([w] * 9), 256, 4).model_bytes for w in (256, 1024, 4096)]
    assert ratios == sorted(ratios)           # weights grow as w^2, activations as w


def test_data_parallel_efficiency_falls_with_the_number_of_nodes():
    net = conv_stack(256, 28, 16)
    one = compare(net, batch=256, devices=1).data_seconds
    efficiency = [one / (n * compare(net, 256, n).data_seconds) for n in (2, 4, 8, 16)]
    assert efficiency == sorted(efficiency, reverse=True)


@pytest.mark.parametrize("kwargs, message", [
    (dict(layers=dense_stack([4, 4]), batch=0, devices=2), "batch must be a whole number"),
    (dict(layers=dense_stack([4, 4]), batch=8, devices=2), "cannot cut 1 layer\\(s\\) into 2"),
    (dict(layers=dense_stack([4, 4, 4]), batch=8, devices=2, flops=0), "flops=0 is out of range"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compare(**kwargs)
    with pytest.raises(ValueError, match="at least an input and an output width"):
        dense_stack([10])
