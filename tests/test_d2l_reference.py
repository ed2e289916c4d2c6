"""The course's pieces equal d2l's: split_batch, try_all_gpus, the Residual block."""

import mxnet as mx
import numpy as np
import pytest

from tutorial import d2l_reference, devices
from tutorial.nn.resnet import resnet
from tutorial.parallel.split import split_batch

DEVICES = [mx.cpu(0), mx.cpu(1), mx.cpu(2)]


def test_split_batch_gives_d2l_shards_on_an_even_batch():
    X = mx.nd.array(np.random.default_rng(0).normal(size=(12, 5)))
    y = mx.nd.arange(12)
    theirs_X, theirs_y = d2l_reference.split_batch(X, y, DEVICES)
    ours = split_batch(X, y, DEVICES)
    for (x, t), tx, ty, device in zip(ours, theirs_X, theirs_y, DEVICES):
        assert x.context == tx.context == device
        assert (x.asnumpy() == tx.asnumpy()).all() and (t.asnumpy() == ty.asnumpy()).all()


def test_the_gpus_we_train_on_are_the_gpus_d2l_would_use():
    """d2l counts the GPUs MXNet sees; the course also drops GPUs MXNet cannot run on
    (devices.gpu_report), so ours is a subset of d2l's, in the same order."""
    ours, theirs = devices.try_all_gpus(), d2l_reference.try_all_gpus()
    assert all(isinstance(c, mx.Context) for c in theirs)
    assert [c for c in theirs if c in ours] == ours


@pytest.mark.parametrize("training", [True, False])
def test_our_residual_block_is_d2ls(training):
    net = resnet(seed=3)
    block = net[2]                     # stage 1: keeps its shape, as d2l's block does
    X = mx.nd.array(np.random.default_rng(1).normal(size=(4, 8, 14, 14)).astype(np.float32))
    with mx.autograd.train_mode() if training else mx.autograd.predict_mode():
        ours = block(X).asnumpy()
    theirs = d2l_reference.residual_forward(block, X, training).asnumpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert not mx.util.is_np_array() and not mx.util.is_np_shape()   # scope restored


def test_the_residual_comparison_can_fail():
    net = resnet(seed=3)
    block = net[2]
    X = mx.nd.ones((2, 8, 14, 14))
    before = d2l_reference.residual_forward(block, X).asnumpy()
    w = block.body2[0].weight
    w.set_data(w.data() * 1.01)
    assert not np.allclose(before, d2l_reference.residual_forward(block, X).asnumpy())
    with pytest.raises(ValueError, match="shortcut"):
        d2l_reference.residual_forward(net[3], mx.nd.ones((2, 8, 14, 14)))
