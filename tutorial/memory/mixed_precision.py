"""Mixed-precision data-parallel training from scratch: float16 storage, float32 master weights.

MXNet 1.9.1 runs float16 ``FullyConnected`` only on a GPU (on a CPU context it raises
"float16 fully connected layer is currently only supported by CuDNN version", though on a
GPU the layer runs through cuBLAS), so here
each device *stores* float16 (its weights and the gradients it sends are float16
values) and *computes* in float32, the precision that runs. One step, per device k:

    1. w_k = float16(master)                 the weights each device holds (2 bytes each)
    2. loss_k = S * (sum of its samples' losses) / n      S: the loss scale
    3. g_k = float16(d loss_k / d w)         backward in float32, then stored as float16
    4. g = allreduce(g_1 .. g_K)             the course's ring, on float16: half the bytes
    5. g = float32(g) / S                    unscale in float32
    6. if g is finite: master -= lr * momentum(g);  the scaler sees whether it was

When training stops: a step whose gradients are not finite is skipped only to let the
scaler lower the scale, so the run raises :class:`~tutorial.finite.TrainingDiverged`
(naming the step) instead of skipping for ever when

- the batch holds a NaN or an infinity (no scale can fix that);
- the loss itself is NaN or infinite (the forward runs in float32 before any scaling,
  so no scale can fix it: a NaN in the master weights, or divergence);
- the gradients are not finite and there is no scaler (nothing would change next step);
- they are not finite at the scaler's ``min_scale`` (it cannot lower the scale further);
- ``MAX_SKIPPED`` steps in a row were skipped (a scaler that backs off too slowly).

Labels that are not classes of the net are refused with a ValueError before the step.

``scaler=None`` and ``dtype="float32"`` give plain float32 data-parallel training, the
reference the tests and the notebook compare against. The update is SGD with momentum
``v = mu v + g; w -= lr v`` (PyTorch's convention; MXNet folds lr into v, the same for a
constant lr).

>>> import mxnet as mx
>>> from tutorial.memory.loss_scaling import DynamicLossScaler
>>> from tutorial.parallel.workload import mlp, digits_batches
>>> run = train(lambda: mlp((16,), seed=0), [mx.cpu(0), mx.cpu(1)], digits_batches(32),
...             steps=3, scaler=DynamicLossScaler(init_scale=1024.0), dtype="float16")
>>> run.scales, run.applied, run.bytes_sent[0] * 2 == train_bytes(run.sizes, 2, "float32")
([1024.0, 1024.0, 1024.0], [True, True, True], True)
"""

import dataclasses
from typing import List

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

from tutorial import batch_checks
from tutorial.finite import TrainingDiverged
from tutorial.memory import diverged
from tutorial.memory.precision import BYTES
from tutorial.parallel.collectives import allreduce, bytes_sent, schedule
from tutorial.parallel.split import split_batch
from tutorial.validate import check_count, check_range

DTYPES = ("float16", "float32")
MAX_SKIPPED = 50     # skipped steps in a row before the run stops (see the docstring)


@dataclasses.dataclass
class Run:
    losses: List[float]          # mean loss of each step's batch (unscaled)
    scales: List[float]          # the loss scale each step used (1.0 without a scaler)
    applied: List[bool]          # False where the step was skipped (inf/NaN gradients)
    bytes_sent: List[int]        # bytes each device sent in each step's allreduces
    master: List[np.ndarray]     # the float32 master weights at the end
    sizes: List[int]             # elements of each parameter


def train_bytes(sizes, num_devices, dtype, algorithm="ring"):
    """Bytes one device sends in a step's allreduces (one per parameter), from the schedules."""
    item = BYTES[dtype]
    return sum(bytes_sent(schedule(algorithm, num_devices, n, item))[0] for n in sizes)


def _check(devices, steps, lr, momentum, dtype):
    if not devices:
        raise ValueError("devices is empty: pass a list of contexts, e.g. [mx.cpu(0), mx.cpu(1)]")
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be 'float16' or 'float32', got {dtype!r}")
    check_count("steps", steps)
    check_range("lr", lr, 0.0, low_open=True)
    check_range("momentum", momentum, 0.0, 1.0, high_open=True)


def _stop_skipping(scaler, scale, skipped, step, lr):
    """TrainingDiverged when skipping this step (not finite at ``scale``) cannot help."""
    if scale <= getattr(scaler, "min_scale", 0.0):
        raise TrainingDiverged(
            f"the gradients of step {step} are not finite even at the scaler's smallest loss "
            f"scale (min_scale={scaler.min_scale:g}), so skipping more steps cannot help. "
            f"Lower the learning rate (it is {lr:g}; try {lr / 2:g} or less) and run again.")
    if skipped >= MAX_SKIPPED:
        raise TrainingDiverged(
            f"the loss scaler skipped {skipped} steps in a row (steps {step - skipped + 1} to "
            f"{step}, the last at scale {scale:g}): the gradients are not finite whatever the "
            f"scale. Start from a smaller init_scale, back off faster (backoff_factor=0.5) "
            f"or lower the learning rate (it is {lr:g}), and run again.")


def train(make_net, devices, batches, steps, scaler=None, dtype="float16", lr=0.1,
          momentum=0.9, algorithm="ring"):
    """``steps`` steps of the loop in the module docstring; returns a :class:`Run`."""
    _check(devices, steps, lr, momentum, dtype)
    net, loss_fn = make_net(), gluon.loss.SoftmaxCrossEntropyLoss()
    params = list(net.collect_params().values())
    if not params:
        raise ValueError("make_net() returned a net without parameters: give it a net to train, "
                         "e.g. lambda: tutorial.parallel.workload.mlp((32,), seed=0)")
    master = [p.data().astype("float32").copy() for p in params]
    velocity = [mx.nd.zeros_like(w) for w in master]
    for p in params:
        p.reset_ctx(devices)
    state = scaler.init() if scaler is not None else None
    run = Run([], [], [], [], [], [int(np.prod(p.shape)) for p in params])
    skipped, batches = 0, batch_checks.batch_stream(batches)
    for step in range(1, steps + 1):
        scale = state.scale if state is not None else 1.0
        for p, w in zip(params, master):                         # 1. weights as stored
            p.set_data(w.astype(dtype).astype("float32"))
        X, y = batch_checks.next_batch(batches, step, steps, "digits_batches(32)")
        batch_checks.check_batch(net, loss_fn, X, y)
        shards = split_batch(X, y, devices)
        with autograd.record():                                   # 2.
            losses = [loss_fn(net(Xk), yk).sum() for Xk, yk in shards]
            scaled = [loss * (scale / len(X)) for loss in losses]
        loss = float(sum(loss.asscalar() for loss in losses)) / len(X)
        diverged.check_loss(loss, step, lr, X, [(f"the master copy of {p.name}", w)
                                               for p, w in zip(params, master)])
        autograd.backward(scaled)
        grads, sent = [], 0
        for p in params:                                          # 3. and 4.
            result = allreduce([g.astype(dtype) for g in p.list_grad()], algorithm)
            sent += bytes_sent(result.schedule)[0]
            grads.append(result.arrays[0].astype("float32").as_in_context(mx.cpu()) / scale)
        finite = all(bool(np.isfinite(g.asnumpy()).all()) for g in grads)   # 5.
        applied = finite
        if not finite:                   # a NaN in the batch: no scale can fix it
            diverged.check_batch(X, step)
        if state is None and not finite:
            diverged.check_arrays([(f"the gradient of {p.name}", g)
                                   for p, g in zip(params, grads)], step, lr, X)
        if state is not None:
            state, applied = scaler.update(state, finite)
            skipped = 0 if applied else skipped + 1
            if not finite:
                _stop_skipping(scaler, scale, skipped, step, lr)
        if applied:                                               # 6.
            for w, v, g in zip(master, velocity, grads):
                v[:] = momentum * v + g
                w[:] = w - lr * v
        run.losses.append(loss)
        run.scales.append(float(scale))
        run.applied.append(bool(applied))
        run.bytes_sent.append(int(sent))
    run.master = [w.asnumpy() for w in master]
    return run


def gradients(net, X, y, scale=1.0):
    """float32 gradients (NumPy) of ``scale`` times the mean loss of (X, y) on one device."""
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).mean() * scale
    loss.backward()
    return [p.grad().asnumpy() for p in net.collect_params().values()]
