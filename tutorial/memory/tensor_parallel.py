"""Tensor parallelism inside a layer: the Megatron MLP (Shoeybi et al. 2019, section 3).

Two layers y = relu(X A + a) B + b, A the first weight (in x hidden), B the second
(hidden x out). Device i of K holds a block of hidden units h_i (:func:`split`):

    A by columns:  z_i = relu(X A[:, h_i] + a[h_i])     no communication (ReLU is per unit)
    B by rows:     y_i = z_i B[h_i, :]                   a partial sum of y
    forward:       y = allreduce(y_i) + b                one allreduce of B x out numbers
    backward:      every device has dy (they all hold y, so they all compute the loss):
                   dB[h_i] = z_iᵀ dy,  dz_i = dy B[h_i]ᵀ ⊙ (z_i > 0),  dA[:, h_i] = Xᵀ dz_i
                   dX = allreduce(dz_i A[:, h_i]ᵀ)    one allreduce of B x in numbers

Gluon stores a Dense weight as (out, in), so "A by columns" is ``W1`` by rows and "B by
rows" is ``W2`` by columns. Each device holds 1/K of both weights, but the whole batch.

:func:`bytes_per_step` counts what a stack of layers (notebook 10's ``dense_stack`` and
``conv_stack``) sends when its layers are paired this way: per pair one allreduce of the
pair's output forward and, unless the pair reads the data, one of its input backward.

>>> split(10, 3)
((0, 4), (4, 7), (7, 10))
"""

from typing import List, NamedTuple

import mxnet as mx
from mxnet import autograd, gluon

from tutorial.memory.layers import check_rows
from tutorial.parallel.collectives import allreduce, bytes_sent, chunk_bounds
from tutorial.validate import check_count

ITEMSIZE = 4


def split(hidden, devices):
    """The hidden units (start, stop) each device owns: the sharding, as data."""
    hidden, devices = check_count("hidden", hidden), check_count("devices", devices)
    if devices > hidden:
        raise ValueError(f"{devices} tensor-parallel devices for {hidden} hidden units: each "
                         f"device needs at least one unit; use at most {hidden} devices")
    return chunk_bounds(hidden, devices)


class Result(NamedTuple):
    """One forward and backward of the tensor-parallel MLP."""
    output: List[mx.nd.NDArray]     # y on every device (equal)
    loss: float                     # mean softmax cross-entropy of the batch
    grads: List[dict]               # per device: W1, b1, W2 (its block), b2 (whole)
    input_grad: List[mx.nd.NDArray]  # dX on every device (equal)
    sent: List[int]                 # bytes each device sent (two allreduces)


def shard(W1, b1, W2, b2, devices):
    """Per device (W1 rows, b1 block, W2 columns, b2 whole), from NumPy arrays."""
    parts = []
    for (a, b), ctx in zip(split(W1.shape[0], len(devices)), devices):
        parts.append((mx.nd.array(W1[a:b], ctx=ctx), mx.nd.array(b1[a:b], ctx=ctx),
                      mx.nd.array(W2[:, a:b], ctx=ctx), mx.nd.array(b2, ctx=ctx)))
    return parts


def forward_backward(parts, X, labels):
    """Run the MLP split as ``parts`` (from :func:`shard`) on the batch (X, labels), NumPy."""
    check_rows(X, labels, parts[0][0].shape[1], layer="W1", y_name="")
    sent = [0] * len(parts)
    xs, partial, zs = [], [], []
    for w1, c1, w2, _ in parts:                      # forward up to the partial sums
        x = mx.nd.array(X, ctx=w1.context)
        for a in (x, w1, c1, w2):
            a.attach_grad()
        with autograd.record():
            z = mx.nd.relu(mx.nd.FullyConnected(x, w1, c1, num_hidden=w1.shape[0]))
            y = mx.nd.FullyConnected(z, w2, no_bias=True, num_hidden=w2.shape[0])
        xs.append(x), zs.append(z), partial.append(y)
    summed = allreduce([y.detach() for y in partial], "ring")          # forward allreduce
    sent = [s + t for s, t in zip(sent, bytes_sent(summed.schedule))]
    outputs, dys, loss = [], [], 0.0
    for (_, _, _, b2), y in zip(parts, summed.arrays):
        out = (y + b2).detach()
        out.attach_grad()
        with autograd.record():
            mean = gluon.loss.SoftmaxCrossEntropyLoss()(
                out, mx.nd.array(labels, ctx=out.context)).mean()
        mean.backward()
        outputs.append(out), dys.append(out.grad)
        loss = float(mean.asscalar())
    for y, dy in zip(partial, dys):
        y.backward(dy)                               # dW1, db1, dW2 and dX_i, locally
    summed = allreduce([x.grad for x in xs], "ring")                   # backward allreduce
    sent = [s + t for s, t in zip(sent, bytes_sent(summed.schedule))]
    grads = [{"W1": w1.grad, "b1": c1.grad, "W2": w2.grad, "b2": dy.sum(axis=0)}
             for (w1, c1, w2, _), dy in zip(parts, dys)]
    return Result(outputs, loss, grads, summed.arrays, sent)


def bytes_per_step(layers, batch, devices, itemsize=ITEMSIZE):
    """Bytes each device sends per step when ``layers`` (``data_or_model.Layer``: parameters,
    outputs per sample, flops) are split in (column, row) pairs over ``devices`` devices:
    a ring allreduce sends 2(N-1)/N of the message.

    An unpaired last layer is computed whole on every device and sends nothing.
    """
    n, batch = check_count("devices", devices), check_count("batch", batch)
    messages = []
    for p in range(len(layers) // 2):
        messages.append(layers[2 * p + 1].outputs)            # forward: the pair's output
        if p > 0:                                             # backward: its input's gradient
            messages.append(layers[2 * p - 1].outputs)
    return 2 * (n - 1) / n * itemsize * batch * sum(messages)
