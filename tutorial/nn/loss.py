"""A classifier's loss on a batch: its gradients (one backward pass) and its mean value.

``gradients_of`` is the autograd idiom every training step starts with: record the
forward pass, call ``backward()``. Afterwards each parameter's ``grad()`` holds the
gradient of the batch's *summed* loss; ``trainer.step(len(X))`` (or a from-scratch update
that divides by the batch size) turns it into the mean. The loss is softmax
cross-entropy unless another Gluon loss is given.

>>> import mxnet as mx, numpy as np
>>> net = mx.gluon.nn.Dense(2, in_units=3, use_bias=False)
>>> net.initialize(mx.init.Zero())
>>> X, y = np.ones((4, 3), np.float32), np.zeros(4)
>>> round(mean_loss(net, X, y), 4)            # equal scores: log 2
0.6931
>>> _ = gradients_of(net, X, y)
>>> net.weight.grad().asnumpy().round(4)      # sum over 4 examples of (p - onehot) x
array([[-2., -2., -2.],
       [ 2.,  2.,  2.]], dtype=float32)
"""

import mxnet as mx
from mxnet import autograd, gluon

from tutorial.batch_checks import check_batch


def _context(net):
    """The device of the net's first parameter (the CPU for a net without parameters)."""
    params = list(net.collect_params().values())
    return params[0].list_ctx()[0] if params else mx.cpu()


def _forward(net, X, y, loss_fn):
    check_batch(net, loss_fn, X, y)
    ctx = _context(net)
    return loss_fn(net(mx.nd.array(X, ctx=ctx)), mx.nd.array(y, ctx=ctx))


def gradients_of(net, X, y, loss_fn=None):
    """One forward and backward pass on the batch ``(X, y)`` (NumPy arrays or NDArrays).

    Each parameter's ``grad()`` then holds the gradient of the SUM of the batch's losses.
    Returns the per-example losses (an NDArray; reading it waits for the computation).
    """
    loss_fn = loss_fn or gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = _forward(net, X, y, loss_fn)
    loss.backward()
    return loss


def mean_loss(net, X, y, loss_fn=None):
    """The mean loss over all rows of ``(X, y)``, in prediction mode, as a float."""
    loss_fn = loss_fn or gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.predict_mode():
        return float(_forward(net, X, y, loss_fn).mean().asscalar())
