"""Synthetic gradients (Jaderberg et al., 2017): stage 0 updates without waiting for stage 1.

Two stages on two devices. Stage 0 computes h = f0(x) and hands h on. Instead of waiting
for the gradient dL/dh to come back, it asks a small **synthetic-gradient module** M
next to it for a prediction, g_hat = M(h, y) (conditioned on the label, "cDNI"; M is
linear and starts at zero, so stage 0 starts by standing still), and updates at once.
When the true g = dL/dh arrives from stage 1, it only trains M: minimise
||M(h, y) - g||^2. Stage 0 is decoupled; M is the only part still update locked.

``mode`` compares three ways to train the same network on the same batches:

- ``backprop``   stage 0 is updated with the true g (the reference);
- ``synthetic``  stage 0 is updated with M's prediction; M learns from the true g;
- ``frozen``     stage 0 is never updated: only stage 1 learns (on random features).

The synthetic run is only worth it if it beats ``frozen``; the measurement in the
notebook says by how much, and how far it stays from ``backprop``.
"""

import dataclasses

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

from tutorial.validate import check_count, check_range

MODES = ("backprop", "synthetic", "frozen")


@dataclasses.dataclass(frozen=True)
class SyntheticRun:
    mode: str
    losses: np.ndarray        # (steps,) training loss of each batch
    cosine: np.ndarray        # (steps,) cos(g_hat, g) per batch (synthetic mode, finite
                              # gradients; else NaN)
    accuracy: float           # on the held-out rows at the end


def _predictor(width, classes, device):
    """M: a linear map from [h, one-hot y] to a guess of dL/dh, initialised to zero."""
    module = gluon.nn.Dense(width, in_units=width + classes)
    module.initialize(mx.init.Zero(), ctx=device)
    return module


def _cosine(a, b):
    """cos(a, b) in float64; NaN once either holds a non-finite number (a run gone wild)."""
    a, b = (v.asnumpy().ravel().astype(np.float64) for v in (a, b))
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return float("nan")
    norms = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / norms) if norms > 0 else 0.0


def train(stages, batches, mode, lr, lr_predictor=None, validation=None, classes=10):
    """Train a two-stage ``stages`` on ``batches`` ((X, y) pairs); see the module docstring."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if len(stages) != 2:
        raise ValueError(f"synthetic gradients here decouple 2 stages; got {len(stages)}: "
                         f"cut the network over 2 devices")
    lr = check_range("lr", lr, 0.0, low_open=True)
    lr_predictor = lr if lr_predictor is None else check_range("lr_predictor", lr_predictor, 0.0,
                                                               low_open=True)
    check_count("batches", len(batches), what="(X, y) pairs to train on")
    width = stages.widths[1]
    dev0 = stages.devices[0]
    module = _predictor(width, classes, dev0)
    module.collect_params().setattr("grad_req", "write")
    losses, cosines = [], []
    for X, y in batches:
        scale = 1.0 / len(X)
        h_in, h = stages.forward(0, X)
        onehot = mx.nd.one_hot(mx.nd.array(y, ctx=dev0), classes)
        g_hat = module(mx.nd.concat(h.detach(), onehot, dim=1))     # per-sample dloss/dh
        if mode == "synthetic":                     # stage 0 moves now, on the guess
            stages.backward(0, h_in, h, g_hat * scale)
            stages.sgd(0, lr)
        x1, loss = stages.forward(1, h, y, scale)
        g = stages.backward(1, x1, loss)            # the true dL/dh (sum over the batch)
        stages.sgd(1, lr)
        if mode == "backprop":
            stages.backward(0, h_in, h, g)
            stages.sgd(0, lr)
        elif mode == "frozen":
            stages.zero_grad(0)
        if mode == "synthetic":                     # M learns from the true gradient
            target = g.copyto(dev0) / scale            # per sample, as M predicts it
            with autograd.record():
                guess = module(mx.nd.concat(h.detach(), onehot, dim=1))
                miss = ((guess - target) ** 2).sum(axis=1).mean()
            miss.backward()
            for p in module.collect_params().values():
                weight = p.data(dev0)
                weight -= lr_predictor * p.grad(dev0)
            cosines.append(_cosine(g_hat, target))
        else:
            cosines.append(float("nan"))
        losses.append(float(loss.sum().asscalar()) / scale / len(X))
    accuracy = stages.accuracy(*validation) if validation is not None else float("nan")
    return SyntheticRun(mode, np.array(losses), np.array(cosines), accuracy)
