"""The simple gradient noise scale B_simple = tr(Sigma) / |G|^2 (McCandlish et al. 2018).

G is the full-batch gradient, Sigma the covariance of one example's gradient. A minibatch
of B examples estimates G with noise of size tr(Sigma) / B; the batch at which the noise
is as large as the signal |G|^2 is B_simple, a cheap predictor of the critical batch size.
Early in training every example pushes the same way (|G| large, B_simple small); near a
minimum G shrinks while examples still disagree, so B_simple grows.

Measured here exactly, for a finite training set of N examples: G from one pass over all
of them, and tr(Sigma) from the N // b disjoint minibatches of size b of one seeded
permutation. For sampling without replacement, E|g_b - G|^2 = tr(Sigma)/b * (N-b)/(N-1)
(Sigma the population covariance), so

    tr(Sigma) = b * mean_k |g_k - G|^2 * (N - 1) / (N - b).

With b = 1 the mean runs over every example and the estimate is exact.
"""

import dataclasses

import numpy as np
from mxnet import autograd, gluon, nd

from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class NoiseScale:
    trace_sigma: float   # tr(Sigma): summed per-example gradient variance
    grad_sq: float       # |G|^2: squared norm of the full-batch gradient
    batch_size: int      # the b used to estimate tr(Sigma)

    @property
    def b_simple(self):
        return self.trace_sigma / self.grad_sq


def _gradients(net, X, y, loss_fn):
    """Per-model flattened gradient of the mean loss over (X, y): array (G, n_params)."""
    with autograd.record():
        loss = loss_fn(net(X), nd.broadcast_to(y.expand_dims(0), (net.n_models, len(y))))
    loss.backward()
    return np.stack([np.concatenate([p.grad().asnumpy().ravel() for p in net.member_params(g)])
                     for g in range(net.n_models)])


def noise_scale(net, X, y, batch_size=16, seed=0, chunk=512):
    """A :class:`NoiseScale` for every model of an :class:`MLPFamily` ``net`` on (X, y)."""
    n = len(X)
    if not isinstance(batch_size, int) or not 1 <= batch_size < n:
        raise ValueError(f"batch_size must be a whole number from 1 to {n - 1} (fewer than "
                         f"the {n} examples, or there is no noise to measure), got {batch_size!r}")
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    ctx = net.member_params(0)[0].list_ctx()[0]
    X, y = nd.array(X, ctx=ctx), nd.array(y, ctx=ctx)
    full = sum(_gradients(net, X[i:i + chunk], y[i:i + chunk], loss_fn) * len(y[i:i + chunk])
               for i in range(0, n, chunk)) / n                       # (G, P)
    order = np.random.default_rng(seed).permutation(n)
    sq_dev = []
    for k in range(n // batch_size):
        idx = nd.array(order[k * batch_size:(k + 1) * batch_size], ctx=ctx)
        g = _gradients(net, nd.take(X, idx), nd.take(y, idx), loss_fn)
        sq_dev.append(((g - full) ** 2).sum(axis=1))
    trace = batch_size * np.mean(sq_dev, axis=0) * (n - 1) / (n - batch_size)
    return [NoiseScale(float(t), float(gs), batch_size)
            for t, gs in zip(trace, (full ** 2).sum(axis=1))]


def per_example_reference(grads):
    """tr(Sigma) and |G|^2 from a (N, n_params) array of per-example gradients (NumPy)."""
    grads = np.asarray(grads, dtype=np.float64)
    mean = grads.mean(axis=0)
    return float(((grads - mean) ** 2).sum(axis=1).mean()), float((mean ** 2).sum())


def noise_scale_along_training(data, lr, batch_size, measure_at, *, measure_batch=16,
                               seed=0, optimizer="momentum"):
    """Train one model and measure B_simple on the training set at steps ``measure_at``.

    Returns ``[(step, NoiseScale), ...]``; step 0 is the initial model.
    """
    from tutorial.largebatch.runs import train_family

    measure_at = sorted({check_count("each step in measure_at", s, low=0) for s in measure_at})
    if not measure_at:
        raise ValueError("measure_at must list at least one step to measure at, e.g. [0, 100]")
    found = []

    def on_step(step, net):
        if step in measure_at:
            (ns,) = noise_scale(net, data.X_train, data.y_train, measure_batch, seed=seed)
            found.append((step, ns))

    train_family(data, batch_size, [lr], optimizer=optimizer, max_steps=max(measure_at) or 1,
                 seed=seed, stop="never", on_step=on_step, targets=(1.0,))
    return found
