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

A step refuses a batch that does not fit the net (features, class labels) with a
ValueError, and stops with :class:`~tutorial.finite.TrainingDiverged`, naming the step,
before the update when the loss, a gradient or a weight is NaN or infinite
(:mod:`~tutorial.memory.diverged`). Stages 1 to 3 need every parameter to have at least
one element per device (each device owns a non-empty shard): more devices are refused.

Each layer's backward re-runs its forward under autograd (:func:`~.layers.backward`) so
that a layer's weights can be let go between its forward and its backward.
"""

import mxnet as mx
import numpy as np

from tutorial.batch_checks import check_labels
from tutorial.devices import check_devices
from tutorial.memory import diverged
from tutorial.memory import layers as L
from tutorial.memory.ledger import PASSING, WORKSPACE, Ledger
from tutorial.memory.sharding import all_gather, gather_shards, reduce_scatter, shards
from tutorial.parallel.collectives import bind, bytes_sent
from tutorial.validate import check_count

MAX_DEVICES = 64      # contexts one process runs a step on, in turn

STAGES = {0: "data parallel (allreduce)", 1: "ZeRO-1: optimizer state sharded",
          2: "ZeRO-2: + gradients sharded", 3: "ZeRO-3 / FSDP: + weights sharded"}


def workspace(optimizer):
    """The arrays ``optimizer`` keeps between updates (the course's optimizers' ``u`` and
    ``scratch``; none for an optimizer without a ``workspace`` method)."""
    return optimizer.workspace() if callable(getattr(optimizer, "workspace", None)) else []


def _flat(a):
    return a.reshape((-1,))


def _name(i):
    return f"layer {i // 2 + 1}'s {'weight' if i % 2 == 0 else 'bias'}"


def check_stage(stage):
    """``stage`` if it is 0, 1, 2 or 3 (an int: not True, not 1.0); else a ValueError."""
    if isinstance(stage, bool) or not isinstance(stage, (int, np.integer)) or stage not in STAGES:
        raise ValueError(f"stage must be a whole number 0, 1, 2 or 3 (the ZeRO stage; 0 is "
                         f"plain data parallelism), got {stage!r}")
    return int(stage)


def check_params(params):
    """The shapes of ``params`` = [(W, b), ...] (Gluon's layout, W: out x in), each layer's
    input the previous one's output; a ValueError with the fix otherwise."""
    hint = "pass [(W, b), ...], one pair per layer, e.g. tutorial.memory.layers.from_gluon(net)"
    if isinstance(params, (str, bytes)) or not hasattr(params, "__len__") or not len(params):
        raise ValueError(f"params must be a non-empty list of (weight, bias) pairs: {hint}")
    shapes = []
    for l, pair in enumerate(params):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"params[{l}] is not a (weight, bias) pair: {hint}")
        w, b = (np.shape(a) for a in pair)
        if len(w) != 2 or b != w[:1] or (shapes and w[1] != shapes[-2][0]) or 0 in w:
            raise ValueError(f"params[{l}] has a weight of shape {w} and a bias of shape {b}: "
                             f"a layer needs a weight (out, in) and a bias (out,), its in the "
                             f"previous layer's out; {hint}")
        shapes += [w, b]
    return shapes


class ZeroTrainer:
    """``params`` ([(W, b), ...] as NumPy) replicated or sharded over ``devices`` by ``stage``.

    ``make_optimizer()`` returns a fresh optimizer (one per device, e.g.
    ``lambda: TutorialAdam(learning_rate=0.01)``). :meth:`step` trains on one batch.
    """

    def __init__(self, params, devices, stage, make_optimizer):
        stage = check_stage(stage)
        if not callable(make_optimizer) or hasattr(make_optimizer, "create_state"):
            raise TypeError(f"make_optimizer must make a fresh optimizer for each device, e.g. "
                            f"lambda: TutorialAdam(learning_rate=0.01), not one optimizer "
                            f"({type(make_optimizer).__name__}): devices must not share state")
        self.shapes = check_params(params)                            # W0, b0, W1, b1, ...
        self.devices, self.stage = check_devices(devices), stage
        self.k = len(self.devices)
        if self.k > MAX_DEVICES:
            raise ValueError(f"{self.k} devices is more than this trainer takes ({MAX_DEVICES}): "
                             f"each runs its own part of every step in this one process; count "
                             f"larger K with tutorial.memory.model_states.per_device instead")
        smallest = min(range(len(self.shapes)), key=lambda i: np.prod(self.shapes[i]))
        size = int(np.prod(self.shapes[smallest]))
        if stage >= 1 and size < self.k:
            raise ValueError(f"stage {stage} gives each of the {self.k} devices a shard of every "
                             f"parameter, but {_name(smallest)} has only {size} elements: use "
                             f"at most {size} devices, or stage 0")
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
        self.steps_done = 0

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
        the batch's mean loss. TrainingDiverged (naming the step) before the update when
        the loss, a gradient or a weight is NaN or infinite.

        Every array is let go as soon as the step no longer needs it, and the ledger is
        told at that moment: an activation once its layer's backward is done, a gathered
        weight once its layer has run, a whole gradient once its shard is copied out.
        """
        n = check_count("batch", len(X), low=self.k, what="samples, at least one per device")
        features = self.shapes[0][1]
        if np.ndim(X) != 2 or np.shape(X)[1] != features:
            raise ValueError(f"X must be (samples, {features}) for this net's first layer, got "
                             f"shape {np.shape(X)}")
        if len(y) != n:
            raise ValueError(f"X has {n} samples but y {len(y)} labels: give one label per "
                             f"sample")
        check_labels(y, self.shapes[-1][0])
        step = self.steps_done + 1
        rate = getattr(self.optimizers[0], "learning_rate", None)
        mine = [(f"{_name(i)} on device {d}", w)
                for d in range(self.k) if d == 0 or self.stage == 3
                for i, w in enumerate(self.weights[d])]
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
            gathered = self._release(gathered)
        loss, upstream = 0.0, []
        for d, (a, b) in enumerate(zip(cuts, cuts[1:])):
            grad, part = L.loss_grad(acts[d].pop(), mx.nd.array(y[a:b], ctx=self.devices[d]), n)
            upstream.append(grad)
            self.ledger.hold(d, PASSING, "upstream", grad)
            self.ledger.drop(d, "activations", layers - 1)          # the scores
            loss += part
        diverged.check_loss(loss / n, step, rate, X, mine)
        grads = [[None] * len(self.shapes) for _ in range(self.k)]
        for l in reversed(range(layers)):                     # backward, layer by layer
            gathered = self._gather(l)
            for d in range(self.k):
                upstream[d], dw, db = L.backward(acts[d][l], *self._layer(d, l, gathered),
                                                 upstream[d], last=l == layers - 1,
                                                 need_input_grad=l > 0)
                grads[d][2 * l], grads[d][2 * l + 1] = dw, db
                self.ledger.hold(d, "gradients", 2 * l, dw)
                self.ledger.hold(d, "gradients", 2 * l + 1, db)
                self.ledger.hold(d, PASSING, "upstream", upstream[d])
                acts[d][l] = None                             # layer l's input: done
                self.ledger.drop(d, "activations", l - 1)
            gathered = self._release(gathered)
            if self.stage >= 2:              # reduce-scatter now, keep only the own shard
                for i in (2 * l, 2 * l + 1):
                    self._reduce_scatter(grads, i)
        if self.stage == 0:
            for i in range(len(self.shapes)):                 # in place: no copy is made
                bound = bind([grads[d][i] for d in range(self.k)], "ring")
                bound()
                self._count(bytes_sent(bound.schedule))
        elif self.stage == 1:
            for i in range(len(self.shapes)):
                self._reduce_scatter(grads, i)
        diverged.check_arrays([(f"the gradient of {_name(i)} on device {d}", g)
                               for d in range(self.k) for i, g in enumerate(grads[d])] + mine,
                              step, rate, X)
        for d in range(self.k):
            for i in range(len(self.shapes)):
                self.optimizers[d].update(i, self._updated(d, i), grads[d][i], self.states[d][i])
            self.ledger.hold(d, WORKSPACE, "all", workspace(self.optimizers[d]))
            grads[d] = None
            for i in range(len(self.shapes)):
                self.ledger.drop(d, "gradients", i)
                self.ledger.drop(d, "gradients", ("shard", i))
        if self.stage in (1, 2):
            for i in range(len(self.shapes)):
                self._count(all_gather([self.weights[d][i] for d in range(self.k)]))
        mx.nd.waitall()
        self.steps_done = step
        return loss / n

    def _release(self, gathered):
        """Stage 3: let go of a layer's gathered weights (None, to assign back)."""
        if gathered is not None:
            for d in range(self.k):
                self.ledger.drop(d, "weights", "gathered")
        return None

    def _reduce_scatter(self, grads, i):
        """Parameter i's gradient, reduce-scattered in place; each device keeps a copy of
        its shard (held beside the whole gradient for a moment), then lets the whole go."""
        pieces, sent = reduce_scatter([grads[d][i] for d in range(self.k)], in_place=True)
        self._count(sent)
        for d in range(self.k):
            self.ledger.hold(d, "gradients", ("shard", i), pieces[d])
            grads[d][i] = pieces[d]
            self.ledger.drop(d, "gradients", i)

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
