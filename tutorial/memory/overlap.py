"""Data-parallel SGD that sends each bucket of gradients while the backward goes on.

One step on K devices (the digits MLP, a ``Sequential`` of Dense layers):

    1. forward, layer by layer, on every device (each layer's input detached, so that
       the backward can be run one layer at a time, as notebook 10's pipeline does)
    2. backward, last layer first; when a layer's gradients are done on every device,
       they join the open bucket (:func:`tutorial.memory.buckets.buckets`)
    3. a full bucket is handed to a second thread, the *communication stream*, which
       flattens it on each device, allreduces it with the course's ring and writes the
       sums back                                          (``overlap=True``)
       -- or every bucket waits until the whole backward is done   (``overlap=False``)
    4. when all buckets are summed, every device updates its copy: w -= lr * sum / n

Each layer's backward and each bucket's allreduce is waited for and stamped, so a step
returns its timeline as a list of :class:`~tutorial.memory.buckets.Event`. Both modes
run the same operations in the same order on the same numbers: their weights are equal
bit for bit, and equal one device's SGD on the whole batch (the tests check both).
A step stops with :class:`~tutorial.finite.TrainingDiverged` (naming the step) before
the update when the loss, a summed gradient or a weight is NaN or infinite. Frozen
parameters (``grad_req='null'``) are left out: never sent, never updated. The
communication thread is a daemon, and ``step`` always stops and joins it before it
returns or raises (an error, Ctrl-C); an error in that thread is raised again by ``step``.

MXNet gets the same effect from its asynchronous engine: ``backward()`` returns before
the work is done, and a kvstore push depends only on its own gradient, so it starts as
soon as that gradient is written (``gluon.Trainer`` pushes parameter i with
``priority=-i``, which favours the *first* parameters when several wait, the ones the
next forward needs first; :mod:`tutorial.memory.engine_timeline` profiles it). The
lecture's IntelCaffe does the same: "most of the communication is hidden in the
computation". On one machine the two "streams" share the same cores, so the overlap
hides less than on devices with their own links.
"""

import queue
import threading
import time

import mxnet as mx
from mxnet import autograd, gluon

from tutorial.batch_checks import check_batch, check_labels
from tutorial.finite import check_loss, check_parameters
from tutorial.memory import diverged
from tutorial.memory.buckets import Event, buckets
from tutorial.parallel.collectives import allreduce
from tutorial.parallel.collectives.dispatch import ALGORITHMS
from tutorial.parallel.split import split_batch
from tutorial.validate import check_range


def _trainable(layer):
    """The layer's parameters that train (``grad_req='null'``: frozen, left out)."""
    params = list(layer.collect_params().values())
    added = [p.name for p in params if p.grad_req == "add"]
    if added:
        raise ValueError(f"parameter {added[0]} has grad_req='add': OverlapTrainer writes "
                         f"every step's gradients afresh; set grad_req='write' (or 'null' to "
                         f"freeze it)")
    return [p for p in params if p.grad_req != "null"]


def _check(net, devices, overlap, algorithm):
    if not devices:
        raise ValueError("devices is empty: pass a list of contexts, e.g. "
                         "[mx.cpu(0), mx.cpu(1)]")
    if not isinstance(net, (gluon.nn.Sequential, gluon.nn.HybridSequential)):
        raise TypeError(f"net must be a Sequential of layers (its backward runs layer by "
                        f"layer), got {type(net).__name__}")
    if not isinstance(overlap, bool):
        raise TypeError(f"overlap must be True or False, got {overlap!r}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, "
                         f"got {algorithm!r}")


def _stamp(events, lane, name, origin, start):
    events.append(Event(lane, name, start - origin, time.perf_counter() - origin))


class OverlapTrainer:
    """Plain SGD on ``devices``; ``step(X, y)`` returns (mean loss, timeline events)."""

    def __init__(self, net, devices, bucket_bytes=float("inf"), overlap=True, lr=0.1,
                 algorithm="ring"):
        _check(net, devices, overlap, algorithm)
        self.layers = list(net)
        self.net, self.devices, self.overlap = net, list(devices), overlap
        self.lr = check_range("lr", lr, 0.0, low_open=True)
        self.algorithm = algorithm
        self.loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        # trainable parameters in the order backward produces their gradients: last layer first
        self.layer_params = [_trainable(layer)[::-1] for layer in self.layers[::-1]]
        order = [p for params in self.layer_params for p in params]
        if not order:
            raise ValueError("the net has no trainable parameter (every grad_req is 'null'): "
                             "unfreeze at least one, e.g. net[-1].collect_params()"
                             ".setattr('grad_req', 'write')")
        for p in net.collect_params().values():
            p.reset_ctx(self.devices)
        self.steps_done = 0
        self.bucket_names = buckets([(p.name, 4 * p.data().size) for p in order],
                                    bucket_bytes)
        self.by_name = {p.name: p for p in order}

    def _forward(self, shards):
        """Per device: each layer's detached input and output, and the loss (recorded)."""
        records = []
        with autograd.record():
            for X, y in shards:
                inputs, outputs, x = [], [], X
                for i, layer in enumerate(self.layers):
                    if i > 0:
                        x = x.detach()
                        x.attach_grad()
                    inputs.append(x)
                    x = layer(x)
                    outputs.append(x)
                records.append((inputs, outputs, self.loss_fn(x, y).sum()))
        return records

    def _allreduce_bucket(self, names):
        """Flatten the bucket on each device, sum it over the devices, write it back."""
        params = [self.by_name[n] for n in names]
        flats = [mx.nd.concat(*[p.grad(ctx).reshape((-1,)) for p in params], dim=0)
                 for ctx in self.devices]
        summed = allreduce(flats, self.algorithm).arrays
        for ctx, flat in zip(self.devices, summed):
            start = 0
            for p in params:
                g = p.grad(ctx)
                g[:] = flat[start:start + g.size].reshape(g.shape)
                start += g.size
            g.wait_to_read()

    def _communicate(self, work, events, origin, failed=None):
        """Allreduce the buckets put on ``work`` until None; an error (in the thread) is
        put in ``failed`` for ``step`` to raise, and ends the loop."""
        try:
            while True:
                item = work.get()
                if item is None:
                    return
                index, names = item
                start = time.perf_counter()
                self._allreduce_bucket(names)
                _stamp(events, "communication", f"bucket {index}", origin, start)
        except Exception as error:          # noqa: BLE001 -- raised again in step
            if failed is None:
                raise
            failed.append(error)

    def _backward(self, records, events, origin, work, failed):
        """Backward, last layer first; each bucket whose gradients are all done is queued
        (and, with overlap, put on ``work`` at once). Returns the buckets in order."""
        pending, ready, queued = list(enumerate(self.bucket_names)), set(), []
        for depth, params in enumerate(self.layer_params):
            if failed:
                break                            # the communication thread failed: stop
            layer = len(self.layers) - 1 - depth
            start = time.perf_counter()
            for inputs, outputs, loss in records:
                if depth == 0:
                    loss.backward()
                elif layer > 0 or params:        # a frozen first layer needs no backward
                    outputs[layer].backward(inputs[layer + 1].grad)
            for p in params:
                for ctx in self.devices:
                    p.grad(ctx).wait_to_read()
            _stamp(events, "compute", f"backward layer {layer + 1}", origin, start)
            ready.update(p.name for p in params)
            while pending and ready.issuperset(pending[0][1]):
                queued.append(pending.pop(0))
                if self.overlap:
                    work.put(queued[-1])
        return queued

    def step(self, X, y):
        """One step on (X, y): (the batch's mean loss, the timeline's events).

        Raises :class:`~tutorial.finite.TrainingDiverged` before the update when the loss,
        a summed gradient or a weight is NaN or infinite, and a ValueError with the fix
        when the batch does not fit the net (features, class labels).
        """
        labels = check_batch(self.net, self.loss_fn, X, y)
        step = self.steps_done + 1
        diverged.check_batch(X, step)             # NaN data: the data's fault, said so
        origin = time.perf_counter()
        events, comm_events, work, failed = [], [], queue.Queue(), []
        shards = split_batch(X, y, self.devices)
        start = time.perf_counter()
        records = self._forward(shards)
        for _, outputs, loss in records:
            loss.wait_to_read()
        _stamp(events, "compute", "forward", origin, start)
        if labels is not None:
            check_labels(labels, records[0][1][-1].shape[-1])
        n = len(X)
        loss = sum(float(r[2].asscalar()) for r in records) / n
        params = list(self.by_name.values())
        check_loss(loss, params, step, self.lr)
        stream = threading.Thread(target=self._communicate, daemon=True,
                                  args=(work, comm_events, origin, failed),
                                  name="overlap-communication")
        try:
            if self.overlap:
                stream.start()
            queued = self._backward(records, events, origin, work, failed)
        finally:                       # on an error or Ctrl-C too: no thread outlives step
            if stream.is_alive():
                work.put(None)
                stream.join()
        if failed:
            raise failed[0]
        if not self.overlap:
            for item in queued:
                work.put(item)
            work.put(None)
            self._communicate(work, comm_events, origin)
        check_parameters(params, step, self.lr)
        start = time.perf_counter()
        for p in self.by_name.values():
            for ctx in self.devices:
                w = p.data(ctx)
                w[:] = w - (self.lr / n) * p.grad(ctx)
                w.wait_to_read()
        _stamp(events, "compute", "update", origin, start)
        self.steps_done = step
        return loss, sorted(events + comm_events, key=lambda e: e.start)


def measure(make_net, devices, batches, bucket_bytes, steps=10, lr=0.1):
    """Timelines of ``steps`` steps with and without overlap, the two taking turns (so a
    burst of load from other programs slows both alike): {True: [...], False: [...]}."""
    trainers = {mode: OverlapTrainer(make_net(), devices, bucket_bytes, mode, lr)
                for mode in (True, False)}
    timelines = {True: [], False: []}
    for _ in range(steps):
        X, y = next(batches)
        for mode, trainer in trainers.items():
            timelines[mode].append(trainer.step(X, y)[1])
    return timelines
