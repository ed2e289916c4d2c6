"""Recomputation (gradient checkpointing, Chen et al. 2016; GPipe's memory saving).

The forward keeps only the input of each *segment* (its boundary); the backward walks the
segments from the last, re-runs each segment's forward from its boundary to get the
activations inside it, and back-propagates through it. Activations held at once::

    without:   every layer's output, n layers x B x w numbers
    segments:  k boundaries + the n / k activations of one segment, (k + n / k) x B x w,
               smallest at k = √n: 2√n x B x w  (the "√n rule"), for one more forward

The segments are data (:func:`segments`: (start, stop) layer ranges); one segment per
layer is training without recomputation. :func:`gradients` runs an MLP of
:mod:`~tutorial.memory.layers` that way and returns its gradients and the activations it
held (a :class:`~tutorial.memory.ledger.Ledger`); :class:`RecomputingStages` does the same
for a stage of notebook 10's pipeline: it keeps only the stage's input per micro-batch.

>>> segments(9, 3)
((0, 3), (3, 6), (6, 9))
>>> sqrt_segments(16)
((0, 4), (4, 8), (8, 12), (12, 16))
"""

import math

import mxnet as mx

from tutorial.memory import layers as L
from tutorial.memory.ledger import PASSING, Ledger
from tutorial.parallel.collectives import chunk_bounds
from tutorial.parallel.pipeline.stages import Stages
from tutorial.validate import check_count


def segments(layers, count):
    """``count`` consecutive ranges of layers, sizes differing by at most one."""
    layers = check_count("layers", layers)
    count = check_count("count", count, what="segments")
    if count > layers:
        raise ValueError(f"{count} segments for {layers} layers: at most one per layer")
    return chunk_bounds(layers, count)


def sqrt_segments(layers):
    """The √n rule: about √n segments of about √n layers."""
    return segments(layers, max(1, round(math.sqrt(layers))))


def gradients(params, X, y, plan):
    """Gradients of the mean softmax cross-entropy of the MLP ``params`` ([(W, b), ...] on
    one context) on (X, y), with only ``plan``'s segment boundaries kept in the forward.

    Returns ([(dW, db), ...], loss, ledger): ``ledger.peak_by_kind(0)["activations"]`` is
    the most bytes of activations held at once, ``ledger.peak(0)`` the most of all the
    arrays the backward holds (activations, the gradient passed down, the weights'
    gradients kept so far); the weights themselves are not in it.
    """
    n = len(params)
    plan = [tuple(seg) for seg in plan]
    if not plan or plan[0][0] != 0 or plan[-1][1] != n or any(a >= b for a, b in plan) \
            or any(b != c for (_, b), (c, _) in zip(plan, plan[1:])):
        raise ValueError(f"plan {plan} must be consecutive non-empty ranges covering 0..{n}")
    L.check_rows(X, y, params[0][0].shape[1])
    ctx = params[0][0].context
    book = Ledger(1)
    x = mx.nd.array(X, ctx=ctx)
    boundaries = {}
    for start, stop in plan:                          # forward: keep only boundaries
        boundaries[start] = x
        book.hold(0, "activations", ("boundary", start), x)
        for l in range(start, stop):
            x = L.forward(x, *params[l], last=l == n - 1)
    upstream, loss = L.loss_grad(x, mx.nd.array(y, ctx=ctx), len(X))
    x = None                                          # the scores: done with
    book.hold(0, PASSING, "upstream", upstream)
    grads = [None] * n
    for start, stop in reversed(plan):                # backward, one segment at a time
        inside = [boundaries.pop(start)]
        for l in range(start, stop - 1):              # recompute the segment's activations
            inside.append(L.forward(inside[-1], *params[l], last=False))
            book.hold(0, "activations", ("inside", l), inside[-1])
        for l in reversed(range(start, stop)):
            upstream, dw, db = L.backward(inside[l - start], *params[l], upstream,
                                          last=l == n - 1, need_input_grad=l > 0)
            grads[l] = (dw, db)
            book.hold(0, "gradients", l, grads[l])
            book.hold(0, PASSING, "upstream", upstream)
            inside[l - start] = None                  # layer l's input: let go
            book.drop(0, "activations", ("inside", l - 1))
        book.drop(0, "activations", ("boundary", start))
    mx.nd.waitall()
    return grads, loss, book


class RecomputingStages(Stages):
    """Notebook 10's :class:`~tutorial.parallel.pipeline.stages.Stages`, recomputing: a
    forward is not recorded, so a stage keeps only its input per micro-batch (and the
    labels on the last); the backward re-runs the stage's forward under autograd."""

    def __init__(self, blocks, devices, loss=None):
        super().__init__(blocks, devices, loss)
        self._inputs = {}                   # id(out) -> (x_in, labels, scale)

    def activation_floats(self, s):
        """Numbers stage ``s`` keeps per sample until its backward: its input only."""
        return self.widths[s]

    def forward(self, s, x, y=None, scale=1.0):
        device = self.devices[s]
        x_in = x.copyto(device) if isinstance(x, mx.nd.NDArray) else mx.nd.array(x, ctx=device)
        out = self.blocks[s](x_in)                  # not recorded: nothing inside is kept
        if s == len(self.blocks) - 1:
            labels = y.copyto(device) if isinstance(y, mx.nd.NDArray) else \
                mx.nd.array(y, ctx=device)
            out = self.loss(out, labels) * scale
        self._inputs[id(out)] = (x_in, y, scale)
        return x_in, out

    def backward(self, s, x_in, out, grad=None):
        x_in, y, scale = self._inputs.pop(id(out))
        x_again, out_again = super().forward(s, x_in, y, scale)     # recorded, this time
        return super().backward(s, x_again, out_again, grad)


def recomputing(stages):
    """The same blocks on the same devices, recomputing (from a ``pipeline.stages.cut``)."""
    return RecomputingStages(stages.blocks, stages.devices, stages.loss)
