"""The warmup runs of compare_recipes with and without Goyal's momentum correction, against
hand-written momentum on the same batches: corrected, the step is lr_t times a buffer of raw
gradients (lr outside, PyTorch's form); uncorrected, the buffer folds in each step's own
rate (MXNet's form). The two differ exactly when the rate changes, i.e. during the ramp."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.largebatch.runs import Dataset, train_family
from tutorial.optim.scaling import warmup_scaled


def _toy(n=120, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int32) + (X[:, 1] > 0.5).astype(np.int32)
    return Dataset(X[:90], y[:90], X[90:], y[90:])


def _by_hand(data, start, batches, ramp, corrected, mu=0.9):
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(8, activation="relu", in_units=6), gluon.nn.Dense(3, in_units=8))
    net.initialize()
    params = list(net.collect_params().values())
    for p, w in zip(params, start):
        p.set_data(mx.nd.array(w))
    buffers = [np.zeros_like(w) for w in start]
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for t, idx in enumerate(batches):
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(data.X_train[idx])), mx.nd.array(data.y_train[idx]))
        loss.backward()
        lr = ramp(t)
        for p, v in zip(params, buffers):
            g = p.grad().asnumpy() / len(idx)
            if corrected:                    # u = mu u + g;  w -= lr_t u
                v *= mu
                v += g
                p.set_data(p.data() - mx.nd.array(lr * v))
            else:                            # v = mu v - lr_t g;  w += v
                v *= mu
                v -= lr * g
                p.set_data(p.data() + mx.nd.array(v))
    return [p.data().asnumpy() for p in params]


@pytest.mark.parametrize("corrected", [False, True])
def test_warmup_run_equals_momentum_by_hand(corrected):
    data, batch, steps, seed = _toy(), 16, 10, 2
    ramp = warmup_scaled(0.05, 4, batch, warmup_steps=6)       # 0.05 -> 0.2 over 6 steps
    start = {}

    def grab(step, net):
        if step == 0:
            start["w"] = [p.data().asnumpy() for p in net.member_params(0)]

    _, family = train_family(data, batch, [1.0], hidden=(8,), max_steps=steps, stop="never",
                             seed=seed, schedule=ramp, targets=(1.0,), on_step=grab,
                             return_net=True, optimizer_kw={"momentum": 0.9,
                                                            "momentum_correction": corrected})
    rng, per_epoch, batches = np.random.default_rng(seed), len(data.X_train) // batch, []
    for step in range(steps):
        if step % per_epoch == 0:
            order = rng.permutation(len(data.X_train))
        k = step % per_epoch
        batches.append(order[k * batch:(k + 1) * batch])
    expected = _by_hand(data, start["w"], batches, ramp, corrected)
    other = _by_hand(data, start["w"], batches, ramp, not corrected)
    ours = [p.data().asnumpy() for p in family.member_params(0)]
    for a, b in zip(ours, expected):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert max(float(np.abs(a - b).max()) for a, b in zip(ours, other)) > 1e-3
