"""The reference most training tests compare with: MXNet's own ``gluon.Trainer`` on one
device, whole batch, an independent code path from everything the course builds."""

import mxnet as mx
from mxnet import autograd, gluon


def train_one_device(net, batches, steps, optimizer="sgd", **hyper):
    """``steps`` steps of ``optimizer`` (``hyper``: its arguments) on ``net`` with batches
    ``(X, y)`` from the iterator ``batches``; the weights after them, as NumPy arrays."""
    trainer = gluon.Trainer(net.collect_params(), optimizer, hyper)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(steps):
        X, y = next(batches)
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).sum()
        loss.backward()
        trainer.step(len(X))
    return [p.data().asnumpy() for p in net.collect_params().values()]
