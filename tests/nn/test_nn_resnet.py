"""The small ResNet: shapes, seeded weights, the norm choice, a reference forward pass, bad input."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon
from mxnet.gluon.contrib.nn import SyncBatchNorm

from bounded import within
from tutorial import engine
from tutorial.data import load_mnist5k_images
from tutorial.nn.fit import fit
from tutorial.nn.resnet import NORMS, norm_layers, resnet
from tutorial.parallel.batchnorm_devices import first_step
from tutorial.parallel.workload import mnist_batches


def _weights(net):
    return [p.data().asnumpy() for p in net.collect_params().values()]


@pytest.mark.parametrize("norm", NORMS)
def test_every_norm_maps_images_to_class_scores(norm):
    net = resnet(norm=norm, channels=(4, 8))
    assert net(mx.nd.zeros((3, 1, 28, 28))).shape == (3, 10)


def test_the_norm_argument_picks_the_layer():
    assert {type(n) for n in norm_layers(resnet(norm="batch"))} == {gluon.nn.BatchNorm}
    assert all(isinstance(n, SyncBatchNorm) for n in norm_layers(resnet("sync", num_devices=2)))
    assert norm_layers(resnet(norm=None)) == []
    # stem + 2 per block + the one projection shortcut, per stage layout (1 block each)
    assert len(norm_layers(resnet(blocks=2))) == 1 + 2 * 4 + 1


def test_same_seed_same_weights_and_another_seed_other_weights():
    a, b, c = _weights(resnet(seed=3)), _weights(resnet(seed=3)), _weights(resnet(seed=4))
    assert all((x == y).all() for x, y in zip(a, b))
    assert any((x != z).any() for x, z in zip(a, c))


def test_batch_and_sync_nets_start_equal():
    for x, y in zip(_weights(resnet("batch", seed=5)), _weights(resnet("sync", seed=5))):
        assert (x == y).all()


def test_weights_are_he_uniform_and_batchnorm_starts_at_identity():
    net = resnet(channels=(16, 32), seed=0)
    for name, param in net.collect_params().items():
        value = param.data().asnumpy()
        if name.endswith("weight"):
            limit = np.sqrt(6.0 / np.prod(value.shape[1:]))
            assert np.abs(value).max() <= limit
            if value.size > 1000:      # uniform(-l, l) has standard deviation l / sqrt(3)
                assert value.std() == pytest.approx(limit / np.sqrt(3), rel=0.1)
        else:
            expected = 1.0 if name.endswith(("gamma", "running_var")) else 0.0
            assert (value == expected).all(), name


def test_one_residual_block_matches_numpy():
    """The first residual block, recomputed with NumPy from its weights (training-mode BN)."""
    net = resnet(channels=(4, 8), seed=1)
    x = np.random.default_rng(0).uniform(size=(5, 4, 14, 14)).astype(np.float32)
    block = net[2]
    with autograd.record():
        out = block(mx.nd.array(x)).asnumpy()

    def conv_bn(h, seq):
        w = seq[0].weight.data().asnumpy()
        k = w.shape[-1]
        pad = np.pad(h, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
        conv = np.zeros((h.shape[0], w.shape[0]) + h.shape[2:], np.float64)
        for i in range(k):
            for j in range(k):
                patch = pad[:, :, i:i + h.shape[2], j:j + h.shape[3]]
                conv += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
        mean = conv.mean(axis=(0, 2, 3), keepdims=True)
        var = conv.var(axis=(0, 2, 3), keepdims=True)
        return (conv - mean) / np.sqrt(var + 1e-5)

    expected = np.maximum(conv_bn(np.maximum(conv_bn(x, block.body1), 0), block.body2) + x, 0)
    np.testing.assert_allclose(out, expected, atol=2e-4)


def test_a_few_sgd_steps_lower_the_training_loss():
    net = resnet(seed=0)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    batches = mnist_batches(64, seed=0)
    X0, y0 = (mx.nd.array(a) for a in next(batches))
    first = loss_fn(net(X0), y0).mean().asscalar()
    for _ in range(60):
        X, y = (mx.nd.array(a) for a in next(batches))
        with autograd.record():
            loss = loss_fn(net(X), y)
        loss.backward()
        trainer.step(len(X))
    assert loss_fn(net(X0), y0).mean().asscalar() < 0.75 * first


def test_mnist_images_are_unit_scaled_one_channel_images():
    X, y = load_mnist5k_images()
    assert X.shape == (5000, 1, 28, 28) and X.dtype == np.float32 and y.shape == (5000,)
    assert X.min() == 0.0 and X.max() == 1.0
    assert np.bincount(y).tolist() == [500] * 10


@pytest.mark.parametrize("kwargs, words", [
    ({"norm": "group"}, "norm='group'"),
    ({"channels": 8}, "two widths"),
    ({"channels": (8, 0)}, "channels[1]"),
    ({"blocks": 0}, "blocks"),
    ({"num_devices": 0}, "num_devices"),
])
def test_bad_arguments_are_explained(kwargs, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)")):
        resnet(**kwargs)


def test_a_sync_net_refuses_a_training_forward_outside_the_trainers():
    net = resnet("sync", num_devices=2, channels=(4, 8))
    with within(30, "a training-mode forward"), pytest.raises(
            ValueError, match="SyncBatchNorm layers wait for num_devices=2 devices"):
        with autograd.record():
            net(mx.nd.zeros((2, 1, 28, 28)))
    assert net(mx.nd.zeros((2, 1, 28, 28))).shape == (2, 10)     # prediction mode: no wait


def test_fit_refuses_a_sync_net_built_for_several_devices():
    X, y = load_mnist5k_images()
    net = resnet("sync", num_devices=2, channels=(4, 8))
    with within(30, "fit"), pytest.raises(ValueError, match="wait for num_devices=2 devices"):
        fit(net, X[:16], y[:16], X[:8], y[:8], epochs=1, batch_size=8)


def test_a_sync_net_for_one_device_trains_anywhere():
    X, y = load_mnist5k_images()
    net = resnet("sync", num_devices=1, channels=(4, 8))
    with within(60, "fit"):
        fit(net, X[:16], y[:16], X[:8], y[:8], epochs=1, batch_size=8)


def test_a_sync_net_cannot_be_hybridized():
    with pytest.raises(ValueError, match="runs imperatively"):
        resnet("sync", num_devices=2, channels=(4, 8)).hybridize()


def test_first_step_refuses_sync_without_the_engine_settings(monkeypatch):
    for name in (engine.THREADS_VAR, engine.TEMP_VAR):
        monkeypatch.delenv(name, raising=False)
    with within(30, "first_step"), pytest.raises(ValueError, match="allow_sync_batchnorm"):
        first_step([mx.cpu(0), mx.cpu(1)], 2, modes=("sync",), channels=(4, 8))


@pytest.mark.parametrize("shape", [(2, 784), (2, 28, 28), (2, 3, 28, 28), (2, 1, 8, 8)])
def test_images_of_another_shape_are_refused_with_a_sentence(shape):
    with pytest.raises(ValueError, match=r"takes images of shape \(N, 1, 28, 28\)"):
        resnet(channels=(4, 8))(mx.nd.zeros(shape))
