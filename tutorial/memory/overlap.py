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
This is what MXNet's kvstore does with ``priority=`` (later layers' gradients first)
and what the lecture's IntelCaffe does: "most of the communication is hidden in the
computation". On one machine the two "streams" share the same cores, so the overlap
hides less than on devices with their own links.
"""

import queue
import threading
import time

import mxnet as mx
from mxnet import autograd, gluon

from tutorial.memory.buckets import Event, buckets
from tutorial.parallel.collectives import allreduce
from tutorial.parallel.split import split_batch
from tutorial.validate import check_range


def _stamp(events, lane, name, origin, start):
    events.append(Event(lane, name, start - origin, time.perf_counter() - origin))


class OverlapTrainer:
    """Plain SGD on ``devices``; ``step(X, y)`` returns (mean loss, timeline events)."""

    def __init__(self, net, devices, bucket_bytes=float("inf"), overlap=True, lr=0.1,
                 algorithm="ring"):
        if not devices:
            raise ValueError("devices is empty: pass a list of contexts, e.g. "
                             "[mx.cpu(0), mx.cpu(1)]")
        self.layers = list(net)
        self.net, self.devices, self.overlap = net, list(devices), bool(overlap)
        self.lr = check_range("lr", lr, 0.0, low_open=True)
        self.algorithm = algorithm
        self.loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        for p in net.collect_params().values():
            p.reset_ctx(self.devices)
        # parameters in the order backward produces their gradients: last layer first
        self.layer_params = [list(layer.collect_params().values())[::-1]
                             for layer in self.layers[::-1]]
        order = [p for params in self.layer_params for p in params]
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

    def _communicate(self, work, events, origin):
        while True:
            item = work.get()
            if item is None:
                return
            index, names = item
            start = time.perf_counter()
            self._allreduce_bucket(names)
            _stamp(events, "communication", f"bucket {index}", origin, start)

    def step(self, X, y):
        origin = time.perf_counter()
        events, comm_events, work = [], [], queue.Queue()
        shards = split_batch(X, y, self.devices)
        start = time.perf_counter()
        records = self._forward(shards)
        for _, outputs, loss in records:
            loss.wait_to_read()
        _stamp(events, "compute", "forward", origin, start)
        stream = threading.Thread(target=self._communicate, args=(work, comm_events, origin))
        if self.overlap:
            stream.start()
        pending, ready, queued = list(enumerate(self.bucket_names)), set(), []
        for depth, params in enumerate(self.layer_params):
            layer = len(self.layers) - 1 - depth
            start = time.perf_counter()
            for inputs, outputs, loss in records:
                if depth == 0:
                    loss.backward()
                else:
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
        if self.overlap:
            work.put(None)
            stream.join()
        else:
            for item in queued:
                work.put(item)
            work.put(None)
            self._communicate(work, comm_events, origin)
        start = time.perf_counter()
        n = len(X)
        for p in self.by_name.values():
            for ctx in self.devices:
                w = p.data(ctx)
                w[:] = w - (self.lr / n) * p.grad(ctx)
                w.wait_to_read()
        _stamp(events, "compute", "update", origin, start)
        loss = sum(float(r[2].asscalar()) for r in records) / n
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
