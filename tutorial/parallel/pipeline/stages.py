"""A network cut into stages, each stage's parameters on its own device.

Model parallelism as the lecture defines it: every device holds *different*
parameters and sees the same data. A ``gluon.nn.Sequential`` of layers is cut into p
contiguous stages (balanced by parameter count) and stage s's parameters move to
``devices[s]``. The forward pass copies each stage's output to the next device; the
backward pass copies the gradient of that output back. Each stage records its own small
autograd graph: its input is a fresh array with ``attach_grad()``, so the gradient that
arrives at its output, pushed through ``out.backward(grad)``, leaves as ``x_in.grad``,
the gradient the previous stage needs.

>>> import mxnet as mx
>>> from tutorial.parallel.workload import mlp
>>> cuts = balanced_cuts([10, 100, 100, 10], 2)
>>> cuts
[(0, 2), (2, 4)]
>>> stages = cut(mlp(hidden=(8, 8, 8), seed=0), [mx.cpu(0), mx.cpu(1)])
>>> [len(b) for b in stages.blocks], stages.devices   # 520 parameters, then 72 + 72 + 90
([1, 3], [cpu(0), cpu(1)])
>>> stages.widths                      # input width of each stage, then the output's
[64, 8, 10]
"""

import mxnet as mx
from mxnet import autograd, gluon

from tutorial.batch_checks import check_features, check_labels, is_classification, net_shape
from tutorial.devices import check_devices


def layer_costs(net):
    """Parameters of each layer of ``net``: the work per sample of a Dense layer."""
    return [sum(p.shape[0] * p.shape[1] if len(p.shape) == 2 else p.shape[0]
                for p in layer.collect_params().values()) for layer in net]


def balanced_cuts(costs, stages):
    """Contiguous (start, stop) layer ranges, one per stage, minimising the largest stage's cost."""
    n = len(costs)
    if not 1 <= stages <= n:
        raise ValueError(f"cannot cut {n} layer(s) into {stages} stages: each stage needs at "
                         f"least one layer. Use 1 to {n} stages (devices), or a deeper network.")
    prefix = [0]
    for c in costs:
        prefix.append(prefix[-1] + c)
    # best[k][j]: the smallest possible largest stage when the first j layers form k stages
    inf = float("inf")
    best = [[inf] * (n + 1) for _ in range(stages + 1)]
    start = [[0] * (n + 1) for _ in range(stages + 1)]
    best[0][0] = 0
    for k in range(1, stages + 1):
        for j in range(k, n + 1):
            for i in range(k - 1, j):
                worst = max(best[k - 1][i], prefix[j] - prefix[i])
                if worst < best[k][j]:
                    best[k][j], start[k][j] = worst, i
    cuts, j = [], n
    for k in range(stages, 0, -1):
        cuts.append((start[k][j], j))
        j = start[k][j]
    return cuts[::-1]


class Stages:
    """``blocks[s]`` (a Sequential of consecutive layers) with its parameters on ``devices[s]``.

    The last stage ends with ``loss`` (per sample). Parameters accumulate gradients
    (``grad_req='add'``) until :meth:`zero_grad`, so micro-batches add up to one batch.
    """

    def __init__(self, blocks, devices, loss=None):
        self.blocks, self.devices = list(blocks), list(devices)
        self.loss = loss or gluon.loss.SoftmaxCrossEntropyLoss()
        for block in self.blocks:
            block.collect_params().setattr("grad_req", "add")

    def __len__(self):
        return len(self.blocks)

    def params(self, s):
        """Stage ``s``'s parameters (on ``devices[s]``)."""
        return list(self.blocks[s].collect_params().values())

    @property
    def widths(self):
        """Features entering each stage, then the network's output width."""
        dense = [layer for block in self.blocks for layer in block]
        firsts = [block[0].weight.shape[1] for block in self.blocks]
        return firsts + [dense[-1].weight.shape[0]]

    def check_batch(self, X, y, where="the batch"):
        """A ValueError naming ``where`` if ``(X, y)`` does not fit the first stage's
        input or the last stage's classes."""
        try:
            check_features(self.blocks[0], X)
            if is_classification(self.loss):
                check_labels(y, net_shape(self.blocks[-1])[2])
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    def activation_floats(self, s):
        """Numbers stage ``s`` keeps per sample until its backward: its input and each
        layer's output."""
        return self.widths[s] + sum(layer.weight.shape[0] for layer in self.blocks[s])

    def forward(self, s, x, y=None, scale=1.0):
        """Run stage ``s`` on ``x`` (from any device). Returns (x_in, out): ``out`` is the
        activation for stage s + 1, or on the last stage the per-sample loss times ``scale``."""
        device = self.devices[s]
        x_in = x.copyto(device) if isinstance(x, mx.nd.NDArray) else mx.nd.array(x, ctx=device)
        if s > 0:                        # the data needs no gradient
            x_in.attach_grad()
        with autograd.record():
            out = self.blocks[s](x_in)
            if s == len(self.blocks) - 1:
                if y is None:
                    raise ValueError("the last stage needs the labels y to compute the loss")
                labels = y.copyto(device) if isinstance(y, mx.nd.NDArray) else \
                    mx.nd.array(y, ctx=device)
                out = self.loss(out, labels) * scale
        return x_in, out

    def backward(self, s, x_in, out, grad=None):
        """Backward of stage ``s`` given the gradient of its output (from any device);
        on the last stage ``grad`` is None (``out`` is the loss). Returns ``x_in.grad``
        (None on stage 0)."""
        if grad is None:
            out.backward()
        else:
            out.backward(grad.copyto(self.devices[s]))
        return x_in.grad

    def predict(self, X):
        """Class scores of ``X`` (NumPy), on the last device: a forward pass, not recorded."""
        x = mx.nd.array(X, ctx=self.devices[0])
        for block, device in zip(self.blocks, self.devices):
            x = block(x.as_in_context(device))
        return x

    def accuracy(self, X, y):
        """Share of the rows of ``X`` whose predicted class is ``y``."""
        return float((self.predict(X).argmax(axis=1).asnumpy() == y).mean())

    def zero_grad(self, s=None):
        for k in range(len(self.blocks)) if s is None else [s]:
            for p in self.params(k):
                p.zero_grad()

    def sgd(self, s, lr):
        """w <- w - lr * grad on stage ``s``, then zero its gradients."""
        for p in self.params(s):
            weight = p.data(self.devices[s])
            weight -= lr * p.grad(self.devices[s])
        self.zero_grad(s)


def cut(net, devices, cuts=None, loss=None):
    """Move ``net``'s layers onto ``devices`` as :class:`Stages` (``cuts`` default: balanced).

    The layers are moved, not copied: build a second net with the same seed as the
    one-device reference.
    """
    devices = check_devices(devices)
    layers = list(net)
    if not layers:
        raise ValueError("the network has no layers to cut: give a gluon.nn.Sequential of layers")
    other = next((layer for layer in layers if not isinstance(layer, gluon.nn.Dense)), None)
    if other is not None:
        raise ValueError(f"the pipeline cuts a Sequential of Dense layers (its stages are "
                         f"balanced by their weights and pass on 2-D activations), but this "
                         f"network has a {_kind(other)}: cut an MLP such as "
                         f"tutorial.parallel.workload.mlp(...) instead")
    if cuts is None:
        cuts = balanced_cuts(layer_costs(layers), len(devices))
    _check_cuts(cuts, len(layers), len(devices))
    blocks = []
    for (a, b), device in zip(cuts, devices):
        block = gluon.nn.Sequential()
        for layer in layers[a:b]:
            block.add(layer)
        block.collect_params().reset_ctx(device)
        blocks.append(block)
    return Stages(blocks, devices, loss)


def _kind(layer):
    """The layer's class, or the first non-Dense class inside it (a ResNet's Conv2D)."""
    inner = [child for child in layer._children.values()] if layer._children else []
    while inner and isinstance(inner[0], (gluon.nn.Sequential, gluon.nn.HybridSequential)):
        inner = list(inner[0]._children.values()) + inner[1:]
    return type(inner[0] if inner else layer).__name__


def _check_cuts(cuts, layers, stages):
    cuts = [tuple(c) for c in cuts]
    if len(cuts) != stages:
        raise ValueError(f"{len(cuts)} cuts for {stages} devices: give one (start, stop) "
                         f"range of layers per device")
    expected = 0
    for a, b in cuts:
        if a != expected or b <= a:
            raise ValueError(f"cuts {cuts} must be consecutive, non-empty ranges that start at "
                             f"layer 0, e.g. [(0, 2), (2, {layers})]")
        expected = b
    if expected != layers:
        raise ValueError(f"cuts {cuts} end at layer {expected}, but the network has {layers} "
                         f"layers: the last range must stop at {layers}")
