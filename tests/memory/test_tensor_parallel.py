"""The Megatron MLP on K CPU contexts equals one device: output, loss, every gradient."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.memory import tensor_parallel as tp
from tutorial.memory.layers import mlp
from tutorial.parallel.pipeline.data_or_model import compare, conv_stack, dense_stack


def setup(seed=0, widths=(6, 10, 4), n=8):
    mx.random.seed(seed)
    net = mlp(list(widths))
    net.initialize(mx.init.Xavier())
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, widths[0])).astype(np.float32)
    y = rng.integers(0, widths[-1], n).astype(np.float32)
    return net, X, y


def one_device(net, X, y):
    x = mx.nd.array(X)
    x.attach_grad()
    with autograd.record():
        out = net(x)
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(out, mx.nd.array(y)).mean()
    loss.backward()
    return out.asnumpy(), float(loss.asscalar()), x.grad.asnumpy()


@pytest.mark.parametrize("k", [1, 2, 3])
def test_megatron_mlp_equals_one_device(k):
    net, X, y = setup()
    W1, b1 = net[0].weight.data().asnumpy(), net[0].bias.data().asnumpy()
    W2, b2 = net[1].weight.data().asnumpy(), net[1].bias.data().asnumpy()
    out, loss, dX = one_device(net, X, y)
    got = tp.forward_backward(tp.shard(W1, b1, W2, b2, [mx.cpu(i) for i in range(k)]), X, y)
    assert got.loss == pytest.approx(loss, rel=1e-5)
    for d, (a, b) in enumerate(tp.split(W1.shape[0], k)):
        np.testing.assert_allclose(got.output[d].asnumpy(), out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got.input_grad[d].asnumpy(), dX, rtol=1e-5, atol=1e-6)
        g = got.grads[d]
        np.testing.assert_allclose(g["W1"].asnumpy(), net[0].weight.grad().asnumpy()[a:b],
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g["b1"].asnumpy(), net[0].bias.grad().asnumpy()[a:b],
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g["W2"].asnumpy(), net[1].weight.grad().asnumpy()[:, a:b],
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g["b2"].asnumpy(), net[1].bias.grad().asnumpy(),
                                   rtol=1e-5, atol=1e-6)


def test_sends_one_allreduce_of_the_output_and_one_of_the_input_gradient():
    net, X, y = setup(n=8)
    arrays = [p.data().asnumpy() for p in net.collect_params().values()]
    got = tp.forward_backward(tp.shard(*arrays, [mx.cpu(i) for i in range(2)]), X, y)
    # a ring on 2 devices sends 2(N-1)/N = all of each message: 8 x 4 outputs forward,
    # 8 x 6 input gradients backward, 4 bytes each
    assert got.sent == [(8 * 4 + 8 * 6) * 4] * 2


def test_a_wrong_split_is_caught():
    net, X, y = setup()
    W1, b1, W2, b2 = [p.data().asnumpy() for p in net.collect_params().values()]
    parts = tp.shard(W1, b1, W2, b2, [mx.cpu(0), mx.cpu(1)])
    parts[1] = (parts[1][0], parts[1][1], parts[1][2] * 0, parts[1][3])   # lose half of W2
    out, _, _ = one_device(net, X, y)
    assert not np.allclose(tp.forward_backward(parts, X, y).output[0].asnumpy(), out,
                           rtol=1e-5, atol=1e-6)


def test_bytes_per_step_against_data_and_pipeline_parallelism():
    dense, conv = dense_stack([1024] * 9), conv_stack(channels=256, size=28, layers=8)
    # 8 dense layers: 4 pairs, 4 forward + 3 backward allreduces of 256 x 1024 numbers
    assert tp.bytes_per_step(dense, 256, 4) == 1.5 * 4 * 256 * 1024 * 7
    for stack in (dense, conv):
        c = compare(stack, batch=256, devices=4)
        assert tp.bytes_per_step(stack, 256, 4) > c.model_bytes   # more than the pipeline cut
    assert tp.bytes_per_step(dense, 256, 4) < compare(dense, 256, 4).data_bytes
    assert tp.bytes_per_step(conv, 256, 4) > compare(conv, 256, 4).data_bytes
    assert tp.bytes_per_step(dense, 256, 1) == 0
