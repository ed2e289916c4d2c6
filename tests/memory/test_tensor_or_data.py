"""The crossover batch of tensor against data parallelism: hand-worked numbers, and the
course's own byte counts cross there."""

import math

import pytest

from tutorial.memory.tensor_or_data import crossover_batch
from tutorial.memory.tensor_parallel import bytes_per_step
from tutorial.parallel.pipeline.data_or_model import conv_stack, data_bytes, dense_stack

DENSE = dense_stack([1024] * 9)
CONV = conv_stack(channels=256, size=28, layers=8)


def test_a_two_layer_mlp_by_hand():
    # 3 -> 4 -> 5: 3*4 + 4 + 4*5 + 5 = 41 weights; one pair, whose input is the data: one
    # allreduce of its 5 outputs per sample, forward only. 41 / 5 = 8.2 samples.
    assert crossover_batch(dense_stack([3, 4, 5]), devices=2) == pytest.approx(8.2, rel=1e-12)


def test_the_notebooks_stacks_by_hand():
    # 8 x (1024^2 + 1024) weights; 4 forward + 3 backward allreduces of 1024 numbers a sample
    assert crossover_batch(DENSE, 4) == pytest.approx(8 * 1025 / 7, rel=1e-12)      # 1171.4
    # 8 x (9 x 256^2 + 256) weights; 7 allreduces of a 28 x 28 x 256 map a sample
    assert crossover_batch(CONV, 4) == pytest.approx(8 * 2305 / (7 * 784), rel=1e-12)  # 3.36


@pytest.mark.parametrize("stack", [DENSE, CONV, dense_stack([64, 512, 512, 10]),
                                   dense_stack([100] * 4)], ids=["dense", "conv", "mlp", "odd"])
@pytest.mark.parametrize("devices", [2, 3, 4])
def test_the_byte_counts_cross_there(stack, devices):
    b = crossover_batch(stack, devices)
    below, above = math.floor(b), math.floor(b) + 1
    assert below >= 1
    data = data_bytes(stack, devices)            # compare()'s data-parallel bytes
    assert bytes_per_step(stack, below, devices) <= data < bytes_per_step(stack, above, devices)


def test_it_does_not_depend_on_the_devices_and_grows_with_the_width():
    assert crossover_batch(DENSE, 2) == pytest.approx(crossover_batch(DENSE, 8), rel=1e-12)
    widths = (256, 1024, 4096)
    got = [crossover_batch(dense_stack([w] * 9), 4) for w in widths]
    assert got == pytest.approx([8 * (w + 1) / 7 for w in widths], rel=1e-12)


def test_fewer_layers_than_devices_are_fine():
    assert crossover_batch(dense_stack([3, 4, 5]), devices=8) == pytest.approx(8.2, rel=1e-12)


def test_a_single_layer_sends_nothing_and_one_device_is_refused():
    assert crossover_batch(dense_stack([10, 10]), 4) == math.inf
    with pytest.raises(ValueError, match="devices must be a whole number >= 2"):
        crossover_batch(DENSE, 1)
