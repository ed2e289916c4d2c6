"""ZeRO (Rajbhandari et al. 2020), stages 0-3, built from the ring's two phases.

K devices train one MLP (:mod:`~tutorial.memory.layers`) on K slices of every batch with
the course's Adam (``TutorialAdam``, any ``ChainOptimizer`` works). Each parameter is
flattened and cut into the ring's K chunks; device d *owns* the chunk the ring's
reduce-scatter leaves complete on it (:func:`~tutorial.memory.sharding.shards`)::

    stage 0  plain data parallelism: allreduce every gradient (reduce-scatter + all-gather),
             every device updates all weights with all of Adam's state
    stage 1  optimizer state sharded: reduce-scatter the gradients, device d updates only
             its shard of the weights with its shard of the state, all-gather the weights
    stage 2  + gradients sharded: each layer's gradient is reduce-scattered as soon as its
             backward is done, and only the device's shard of it is kept
    stage 3  + weights sharded (FSDP): a device keeps only its shard of each weight; a
             layer's weight is all-gathered just before its forward, dropped, and
             all-gathered again just before its backward

Stages 1 and 2 send what the allreduce sends, 2(K-1)/K of the parameters per device;
stage 3 sends one more all-gather, 3(K-1)/K. What each device holds is tracked by a
:class:`~tutorial.memory.ledger.Ledger` (the arrays the step keeps alive, in bytes).

Each layer's backward re-runs its forward under autograd (:func:`~.layers.backward`) so
that a layer's weights can be let go between its forward and its backward.
"""

import mxnet as mx
import numpy as np

from tutorial.memory import layers as L
from tutorial.memory.ledger import Ledger
from tutorial.memory.sharding import all_gather, gather_shards, reduce_scatter, shards
from tutorial.parallel.collectives import allreduce, bytes_sent
from tutorial.validate import check_count

STAGES = {0: "data parallel (allreduce)", 1: "ZeRO-1: optimizer state sharded",
          2: "ZeRO-2: + gradients sharded", 3: "ZeRO-3 / FSDP: + weights sharded"}


def _flat(a):
    return a.reshape((-1,))


class ZeroTrainer:
    """``params`` ([(W, b), ...] as NumPy) replicated or sharded over ``devices`` by ``stage``.

    ``make_optimizer()`` returns a fresh optimizer (one per device, e.g.
    ``lambda: TutorialAdam(learning_rate=0.01)``). :meth:`step` trains on one batch.
    """

    def __init__(self, params, devices, stage, make_optimizer):
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {sorted(STAGES)}, got {stage!r}")
        self.devices, self.stage = list(devices), stage
        self.k = len(self.devices)
        self.shapes = [a.shape for pair in params for a in pair]     # W0, b0, W1, b1, ...
        self.plan = [shards(int(np.prod(s)), self.k) for s in self.shapes]
        self.ledger = Ledger(self.k)
        self.optimizers = [make_optimizer() for _ in self.devices]
        flat = [a for pair in params for a in pair]
        self.weights, self.states = [], []           # per device: one array per parameter
        for d, ctx in enumerate(self.devices):
            if stage == 3:     # only the shard: elements start:stop of the flattened weight
                mine = [mx.nd.array(a.reshape(-1)[p[d].start:p[d].stop], ctx=ctx)
                        for a, p in zip(flat, self.plan)]
            else:
                mine = [mx.nd.array(a, ctx=ctx) for a in flat]
            self.weights.append(mine)
            self.states.append([self.optimizers[d].create_state(i, self._updated(d, i))
                                for i in range(len(flat))])
            self.ledger.hold(d, "weights", "all", mine)
            self.ledger.hold(d, "optimizer state", "all", self.states[d])
        self.sent = [0] * self.k                     # bytes each device sent, last step

    def _updated(self, d, i):
        """The slice of parameter i that device d updates (a view of its weight)."""
        w = self.weights[d][i]
        if self.stage in (0, 3):
            return w
        s = self.plan[i][d]
        return _flat(w)[s.start:s.stop]

    def _layer(self, d, l, gathered):
        return (gathered[0][d], gathered[1][d]) if gathered else \
            (self.weights[d][2 * l], self.weights[d][2 * l + 1])

    def _gather(self, l):
        """Stage 3: layer l's weight and bias, whole, on every device (bytes counted)."""
        if self.stage != 3:
            return None
        out = []
        for i in (2 * l, 2 * l + 1):
            full, sent = gather_shards([self.weights[d][i] for d in range(self.k)],
                                       self.shapes[i])
            self._count(sent)
            out.append(full)
        for d in range(self.k):
            self.ledger.hold(d, "weights", "gathered", [out[0][d], out[1][d]])
        return out

    def _count(self, sent):
        self.sent = [a + b for a, b in zip(self.sent, sent)]

    def step(self, X, y):
        """One step on the batch (X, y) (NumPy), split evenly over the devices; returns
        the batch's mean loss."""
        n = check_count("batch", len(X), low=self.k, what="samples, at least one per device")
        cuts = np.linspace(0, n, self.k + 1).astype(int)
        self.sent = [0] * self.k
        layers = len(self.shapes) // 2
        acts = [[mx.nd.array(X[a:b], ctx=c)] for a, b, c in zip(cuts, cuts[1:], self.devices)]
        for d in range(self.k):
            self.ledger.hold(d, "activations", -1, acts[d][0])       # the input, for layer 0
        for l in range(layers):                               # forward, layer by layer
            gathered = self._gather(l)
            for d in range(self.k):
                acts[d].append(L.forward(acts[d][-1], *self._layer(d, l, gathered),
                                         last=l == layers - 1))
                self.ledger.hold(d, "activations", l, acts[d][-1])
            for d in range(self.k):
                self.ledger.drop(d, "weights", "gathered")
        loss, upstream = 0.0, []
        for d, (a, b) in enumerate(zip(cuts, cuts[1:])):
            grad, part = L.loss_grad(acts[d].pop(), mx.nd.array(y[a:b], ctx=self.devices[d]), n)
            upstream.append(grad)
            loss += part
        grads = [[None] * len(self.shapes) for _ in range(self.k)]
        for l in reversed(range(layers)):                     # backward, layer by layer
            gathered = self._gather(l)
            for d in range(self.k):
                upstream[d], dw, db = L.backward(acts[d][l], *self._layer(d, l, gathered),
                                                 upstream[d], last=l == layers - 1,
                                                 need_input_grad=l > 0)
                grads[d][2 * l], grads[d][2 * l + 1] = dw, db
                self.ledger.drop(d, "activations", l)
                self.ledger.drop(d, "activations", l - 1)
                self.ledger.hold(d, "gradients", l, [dw, db])
                self.ledger.drop(d, "weights", "gathered")
            if self.stage >= 2:              # reduce-scatter now, keep only the own shard
                for i in (2 * l, 2 * l + 1):
                    self._reduce_scatter(grads, i)
                for d in range(self.k):
                    self.ledger.hold(d, "gradients", l, [grads[d][2 * l], grads[d][2 * l + 1]])
        if self.stage == 0:
            for i in range(len(self.shapes)):
                summed = allreduce([grads[d][i] for d in range(self.k)], "ring")
                self._count(bytes_sent(summed.schedule))
                for d in range(self.k):
                    grads[d][i] = summed.arrays[d]
        elif self.stage == 1:
            for i in range(len(self.shapes)):
                self._reduce_scatter(grads, i)
        for d in range(self.k):
            for i in range(len(self.shapes)):
                self.optimizers[d].update(i, self._updated(d, i), grads[d][i], self.states[d][i])
            self.ledger.drop(d, "gradients", "all")
        if self.stage in (1, 2):
            for i in range(len(self.shapes)):
                self._count(all_gather([self.weights[d][i] for d in range(self.k)]))
        for d in range(self.k):
            for l in range(layers):
                self.ledger.drop(d, "gradients", l)
        mx.nd.waitall()
        return loss / n

    def _reduce_scatter(self, grads, i):
        pieces, sent = reduce_scatter([grads[d][i] for d in range(self.k)])
        self._count(sent)
        for d in range(self.k):
            grads[d][i] = pieces[d]

    def full_weights(self):
        """Every parameter, whole, as NumPy (device 0's copy, or the shards joined)."""
        if self.stage != 3:
            return [w.asnumpy() for w in self.weights[0]]
        out = []
        for i, shape in enumerate(self.shapes):
            flat = np.empty(int(np.prod(shape)), dtype=np.float32)
            for d, s in enumerate(self.plan[i]):
                flat[s.start:s.stop] = self.weights[d][i].asnumpy()
            out.append(flat.reshape(shape))
        return out
