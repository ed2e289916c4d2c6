"""ZeRO stages 0-3 against one device, as CS336's autograder checks a sharded optimizer:
10 Adam steps on K CPU contexts equal unsharded Gluon training to float32 rounding; the
bytes held and sent equal the hand-worked counts of :mod:`tutorial.memory.footprint`."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.memory import layers as L
from tutorial.memory.footprint import footprint
from tutorial.memory.sharding import all_gather, reduce_scatter, shards
from tutorial.memory.zero import ZeroTrainer
from tutorial.optim.adaptive import TutorialAdam

WIDTHS = [12, 8, 16, 5]       # the middle layer is the largest: peaks depend on the order
LR = 0.01


def data(seed=0, n=24):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, WIDTHS[0])).astype(np.float32),
            rng.integers(0, WIDTHS[-1], n).astype(np.float32))


def fresh_net(seed=1):
    mx.random.seed(seed)
    net = L.mlp(WIDTHS)
    net.initialize(mx.init.Xavier())
    return net


def one_device(steps, optimizer="tutorialadam", lr=LR):
    """The reference: Gluon's Sequential and Trainer (the course's Adam unless ``optimizer``
    names another), whole batch."""
    net = fresh_net()
    trainer = gluon.Trainer(net.collect_params(), optimizer, {"learning_rate": lr})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    for t in range(steps):
        X, y = data(t)
        with autograd.record():
            out = loss(net(mx.nd.array(X)), mx.nd.array(y))
        out.backward()
        trainer.step(len(X))
    return [a for pair in L.from_gluon(net) for a in pair]


def sharded(stage, k, steps):
    trainer = ZeroTrainer(L.from_gluon(fresh_net()), [mx.cpu(i) for i in range(k)], stage,
                          lambda: TutorialAdam(learning_rate=LR))
    for t in range(steps):
        trainer.step(*data(t))
    return trainer


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_ten_adam_steps_equal_one_device(stage, k):
    expected = one_device(10)
    got = sharded(stage, k, 10).full_weights()
    moved = max(np.abs(a - b).max() for a, b in zip(expected, [a for pair in L.from_gluon(
        fresh_net()) for a in pair]))
    assert moved > 1e-2                         # the weights did move: the check can fail
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_wrong_shard_update_is_caught():
    trainer = sharded(1, 2, 1)
    trainer.weights[0][0][0, 0] += 1e-3             # one element of device 0's copy off
    assert not np.allclose(trainer.full_weights()[0], one_device(1)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_held_and_sent_bytes_are_the_counted_ones(stage):
    k, X = 3, data()[0]
    trainer = sharded(stage, k, 2)
    counted = footprint(fresh_net(), (WIDTHS[0],), len(X), k, stage, optimizer="adam")
    for d in range(k):
        peak = trainer.ledger.peak_by_kind(d)
        assert (peak["weights"], peak["gradients"], peak["optimizer state"],
                peak["activations"]) == counted[d][:4]
    assert trainer.sent == [f.sent for f in counted]


def test_stage_one_sends_what_an_allreduce_sends_and_stage_three_half_more():
    sent = {s: footprint(fresh_net(), (12,), 24, 4, s)[0].sent for s in (0, 1, 2, 3)}
    assert sent[0] == sent[1] == sent[2]
    assert sent[3] == pytest.approx(1.5 * sent[0], rel=0.01)


def test_hand_worked_counts():
    # mlp 3 -> 4 -> 2: 12 + 4 + 8 + 2 = 26 parameters, 104 bytes; one sample leaves
    # 3 + 4 + 2 = 9 numbers. Two devices, batch 4, Adam (two copies per weight).
    net = L.mlp([3, 4, 2])
    net.initialize()
    rows = {s: tuple(footprint(net, (3,), 4, 2, s, "adam")[0]) for s in range(4)}
    assert rows[0] == (104, 104, 208, 72, 104)
    # stage 1: every gradient whole (26) + the first weight's shard (6 of 12), copied out
    # beside it by the in-place reduce-scatter before the whole one goes = 32 numbers
    assert rows[1] == (104, 128, 104, 72, 104)
    # stage 2: the first layer's 16 gradients whole + its weight's shard (6) + 5 of the
    # second's 10 = 27 numbers
    assert rows[2] == (104, 108, 104, 72, 104)
    # stage 3: weights too, 13 own numbers + the first layer's 16 gathered beside them;
    # it sends a reduce-scatter and two all-gathers of 52 bytes each
    assert rows[3] == (116, 108, 104, 72, 156)
    assert footprint(net, (3,), 4, 2, 1, "sgd")[0].optimizer_state == 0
    assert footprint(net, (3,), 4, 2, 0, "momentum")[0].optimizer_state == 104


def test_reduce_scatter_then_all_gather_is_an_allreduce():
    k, n = 3, 10
    xs = [mx.nd.arange(n, ctx=mx.cpu(d)) * (d + 1) for d in range(k)]
    pieces, _ = reduce_scatter(xs)
    full = [mx.nd.zeros(n, ctx=mx.cpu(d)) for d in range(k)]
    for f, p, s in zip(full, pieces, shards(n, k)):
        f[s.start:s.stop] = p
    all_gather(full)
    for f in full:
        assert f.asnumpy().tolist() == (np.arange(n) * 6).tolist()


def test_shards_cover_every_element_once():
    for n, k in [(10, 4), (7, 7), (100, 3)]:
        covered = sorted(i for s in shards(n, k) for i in range(s.start, s.stop))
        assert covered == list(range(n))


def test_running_statistics_are_not_trainable_parameters():
    from mxnet.gluon import nn
    from tutorial.memory.footprint import layer_sizes
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3), nn.BatchNorm(in_channels=4))
    net.initialize()
    assert layer_sizes(net) == [[12, 4], [4, 4]]       # gamma, beta; not mean, variance


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_plain_sgd_steps_equal_one_device_so_the_gradients_scale_is_right(stage):
    """Adam hardly sees a gradient's scale (it divides by its own RMS), so a ZeroTrainer
    that summed the devices' gradients instead of averaging them would pass the Adam test;
    plain SGD moves each weight by exactly lr times the gradient and would not."""
    lr, steps = 0.5, 5
    expected = one_device(steps, "sgd", lr)
    zero = ZeroTrainer(L.from_gluon(fresh_net()), [mx.cpu(i) for i in range(3)], stage,
                       lambda: mx.optimizer.SGD(learning_rate=lr))
    for t in range(steps):
        zero.step(*data(t))
    for a, b in zip(zero.full_weights(), expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
