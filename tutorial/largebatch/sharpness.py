"""Sharp and flat minima (Keskar et al. 2017): a sharpness measure and 1-D interpolation.

Keskar et al.'s sharpness of a minimum x of the training loss f is the largest rise of f
in a small box around x, relative to 1 + f(x), in percent:

    phi(x, eps) = 100 * (max_{y in C} f(x + y) - f(x)) / (1 + f(x)),
    C = { y : |y_i| <= eps * (|x_i| + 1) }          (a box scaled to each weight)

They maximise with L-BFGS-B; we use projected sign-gradient ascent from a seeded random
point of the box (each step moves every coordinate by a quarter of its box half-width,
then clips back into the box), which finds the corner that a locally convex loss rises
most towards. Either way it is a lower
bound on the true maximum: compare numbers measured the same way, never across methods.

The 1-D interpolation evaluates f((1 - alpha) x_a + alpha x_b) on a line through two
solutions (alpha = 0 is x_a, 1 is x_b, beyond shows the outside of each).

>>> import numpy as np
>>> a = np.array([1.0, 4.0])                         # f(x) = sum(a * x^2), minimum at 0
>>> f = lambda x: (float(np.sum(a * x[0] ** 2)), [2 * a * x[0]])
>>> round(sharpness([np.zeros(2)], f, eps=0.1), 3)   # max at the corner: 100 * 5 * 0.01 / 1
5.0
>>> round(top_hessian_eigenvalue([np.ones(2)], f), 3)      # Hessian diag(2, 8)
8.0
>>> [round(v[0], 2) for v in interpolate([np.zeros(2)], [np.ones(2)], [0, 0.5, 1], f)]
[0.0, 1.25, 5.0]
"""

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon, nd

from tutorial.largebatch.mlp_family import MLPFamily


def sharpness(params, loss_and_grads, eps=1e-3, steps=20, seed=0):
    """Keskar's phi(x, eps) for parameters ``params`` (list of arrays).

    ``loss_and_grads(list_of_arrays) -> (loss, list_of_gradients)`` gives the training
    loss and its gradient at any point (NumPy arrays in, NumPy arrays out).
    """
    if not eps > 0:
        raise ValueError(f"eps must be a positive box size (Keskar et al. use 1e-3 and 5e-4), "
                         f"got {eps!r}")
    x = [np.asarray(p, dtype=np.float64) for p in params]
    radius = [eps * (np.abs(p) + 1.0) for p in x]
    f0, _ = loss_and_grads(x)
    rng = np.random.default_rng(seed)
    y = [r * rng.uniform(-0.5, 0.5, size=r.shape) for r in radius]
    best = f0
    for _ in range(steps):
        f, grads = loss_and_grads([p + d for p, d in zip(x, y)])
        best = max(best, f)
        y = [np.clip(d + 0.25 * r * np.sign(g), -r, r) for d, g, r in zip(y, grads, radius)]
    best = max(best, loss_and_grads([p + d for p, d in zip(x, y)])[0])
    return 100.0 * (best - f0) / (1.0 + f0)


def top_hessian_eigenvalue(params, loss_and_grads, iterations=20, h=1e-3, seed=0):
    """Largest eigenvalue of the Hessian of f at ``params``, by power iteration.

    Power iteration finds the eigenvalue of largest *magnitude*: near a minimum that is the
    largest positive one; far from it a strongly negative one can come out.

    Hessian-vector products come from central differences of gradients,
    H v ~ (grad f(x + h v) - grad f(x - h v)) / (2 h) with |v| = 1. Unlike phi, this
    measures curvature only: a point that is not yet a minimum (gradient not zero) does
    not look sharper for it.
    """
    x = [np.asarray(p, dtype=np.float64) for p in params]
    rng = np.random.default_rng(seed)
    v = [rng.normal(size=p.shape) for p in x]
    eigenvalue = 0.0
    for _ in range(iterations):
        norm = np.sqrt(sum(float(np.sum(d * d)) for d in v))
        v = [d / norm for d in v]
        _, g_plus = loss_and_grads([p + h * d for p, d in zip(x, v)])
        _, g_minus = loss_and_grads([p - h * d for p, d in zip(x, v)])
        hv = [(a - b) / (2 * h) for a, b in zip(g_plus, g_minus)]
        eigenvalue = sum(float(np.sum(a * b)) for a, b in zip(v, hv))   # Rayleigh quotient
        v = hv
    return eigenvalue


def interpolate(params_a, params_b, alphas, evaluate):
    """``evaluate`` at (1 - alpha) a + alpha b for each alpha in ``alphas``."""
    return [evaluate([(1 - alpha) * np.asarray(a) + alpha * np.asarray(b)
                      for a, b in zip(params_a, params_b)]) for alpha in alphas]


class MLPLoss:
    """Training loss, its gradient and accuracy of one MLP at any parameters (NumPy in/out).

    ``params`` are in :meth:`MLPFamily.member_params` order; one full-batch pass each call.
    """

    def __init__(self, X, y, in_units, hidden=(128, 128), classes=10, ctx=None):
        ctx = ctx or mx.cpu()
        self.net = MLPFamily(1, in_units, hidden=hidden, classes=classes)
        self.net.initialize(ctx=ctx)
        self.params = self.net.member_params(0)
        self.X, self.y = nd.array(X, ctx=ctx), nd.array(y, ctx=ctx).expand_dims(0)
        self.loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def _set(self, params):
        for p, value in zip(self.params, params):
            p.set_data(nd.array(value, dtype="float32"))

    def __call__(self, params):
        self._set(params)
        with autograd.record():
            loss = self.loss_fn(self.net(self.X), self.y)
        loss.backward()
        return float(loss.asscalar()), [p.grad().asnumpy().astype(np.float64)
                                        for p in self.params]

    def loss_and_accuracy(self, params):
        self._set(params)
        out = self.net(self.X)
        loss = float(self.loss_fn(out, self.y).asscalar())
        acc = float((out.argmax(axis=-1) == self.y).mean().asscalar())
        return loss, acc


class NetLoss:
    """Like :class:`MLPLoss` for any trained Gluon ``net``: loss and gradients at any values
    of its trainable parameters (those with a gradient, in ``collect_params`` order).

    BatchNorm normalises with its running statistics, so the loss is a function of the
    weights alone: each BatchNorm layer is switched to ``use_global_stats`` while this
    object measures (prediction mode alone is not enough: MXNet 1.9's BatchNorm then
    back-propagates as if it had used the batch's statistics). Setting parameters
    overwrites the net's weights; :meth:`restore` puts back the weights and the layers.
    No Dropout: the loss runs in training mode.
    """

    def __init__(self, net, X, y):
        self.net = net
        self.params = [p for p in net.collect_params().values() if p.grad_req != "null"]
        self.original = [p.data().asnumpy() for p in self.params]
        ctx = self.params[0].list_ctx()[0]
        self.X, self.y = nd.array(X, ctx=ctx), nd.array(y, ctx=ctx)
        self.loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        self.norms = [b for b in _blocks(net) if isinstance(b, gluon.nn.BatchNorm)]
        self.flags = [b._kwargs["use_global_stats"] for b in self.norms]
        _use_global_stats(net, self.norms, [True] * len(self.norms))

    def _set(self, params):
        for p, value in zip(self.params, params):
            p.set_data(nd.array(value, dtype="float32"))

    def restore(self):
        """The net's own weights and BatchNorm settings back."""
        self._set(self.original)
        _use_global_stats(self.net, self.norms, self.flags)

    def __call__(self, params):
        self._set(params)
        with autograd.record():
            loss = self.loss_fn(self.net(self.X), self.y).mean()
        loss.backward()
        return float(loss.asscalar()), [p.grad().asnumpy().astype(np.float64)
                                        for p in self.params]


def _blocks(block):
    yield block
    for child in block._children.values():
        yield from _blocks(child)


def _use_global_stats(net, norms, flags):
    for norm, flag in zip(norms, flags):
        norm._kwargs["use_global_stats"] = flag
    for b in _blocks(net):              # hybridized graphs were built with the old setting
        if isinstance(b, gluon.HybridBlock):
            b._clear_cached_op()
