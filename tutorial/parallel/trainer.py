"""Synchronous data-parallel training from scratch, in the deck's four steps.

    1. copy the parameters to every device                     (once, in __init__)
    2. split the batch; forward and backward on each device    (each device: its shard)
    3. aggregate: sum the gradients over devices               (kvstore or allreduce)
    4. update the weights once, broadcast them to the devices  (all copies stay equal)

Normalisation: each device backpropagates the SUM of its samples' losses, step 3 adds
those sums, and step 4 divides by the TOTAL batch (``rescale_grad = 1 / n``). That is
exactly the gradient of the mean loss over the whole batch, so K devices with b samples
each take the same step as one device with K*b samples, also when the split is uneven.
(Averaging per-device means instead would weigh the samples of a smaller shard more.) A net
with SyncBatchNorm is the exception: MXNet weighs each device's statistics equally, so
its batch must split evenly (``tutorial.engine.check_even_shards`` refuses the rest).

BatchNorm's running mean and variance (parameters no gradient touches) are copied to
every device in step 1 and, after step 4, averaged over the devices so every copy is the
same again (:mod:`tutorial.parallel.running_stats` says why and what that average is).

>>> import mxnet as mx
>>> from tutorial.parallel.workload import mlp, digits_batches
>>> net = mlp(seed=0)
>>> trainer = DataParallelTrainer(net, [mx.cpu(0), mx.cpu(1)], learning_rate=0.1)
>>> X, y = next(digits_batches(batch_size=64, seed=0))
>>> report = trainer.step(X, y)
>>> report.step, report.samples, round(report.loss, 1)   # about ln(10) for 10 classes
(1, 64, 2.3)
"""

import time

import mxnet as mx
from mxnet import autograd, gluon

from tutorial.batch_checks import check_batch, check_outputs
from tutorial.devices import check_devices
from tutorial.engine import check_even_shards, check_sync_batchnorm, sync_layers
from tutorial.optim.options import check_optimizer, check_optimizer_options
from tutorial.parallel.aggregation import make_aggregator
from tutorial.finite import check_loss, check_parameters
from tutorial.nn.sync_batchnorm import sync_step
from tutorial.parallel.reports import StepReport
from tutorial.parallel.running_stats import average_over_devices, running_stats
from tutorial.parallel.split import split_batch


def replicate(params, devices):
    """Step 1: one copy of every (initialised) parameter on each device."""
    for param in params:
        param.reset_ctx(devices)


def forward_backward(net, loss_fn, shards):
    """Step 2: each device computes its shard's per-sample losses and their gradient.

    Returns the per-device outputs and losses (still on their devices). ``backward`` on a
    vector of losses adds up the gradients of its entries: a per-device SUM. A net with
    SyncBatchNorm runs inside ``sync_step`` (refused first if it would wait forever).
    """
    devices = [X.context for X, _ in shards]
    with sync_step(net, devices), autograd.record():
        outputs = [net(X) for X, _ in shards]
        losses = [loss_fn(out, y) for out, (_, y) in zip(outputs, shards)]
    for loss in losses:
        loss.backward()
    return outputs, losses


def loss_and_accuracy(outputs, losses, shards):
    """Mean loss and accuracy over all shards (this waits for the devices)."""
    n = sum(y.shape[0] for _, y in shards)
    loss_sum = sum(loss.sum().asscalar() for loss in losses)
    correct = sum((out.argmax(axis=1) == y.astype(out.dtype)).sum().asscalar()
                  for out, (_, y) in zip(outputs, shards))
    return float(loss_sum) / n, float(correct) / n


def forward_on_devices(net, loss_fn, X, y, devices, params, step, lr):
    """Step 2 with its checks: split (X, y) over ``devices``, forward and backward on each,
    and return the batch's mean loss and accuracy. Refuses a batch that does not fit the
    net, and stops with TrainingDiverged at a NaN/inf loss (``step``, ``lr`` name it).
    Both data-parallel trainers (this one and ``concise``'s) start their step with it."""
    labels = check_batch(net, loss_fn, X, y)
    shards = split_batch(X, y, devices)
    outputs, losses = forward_backward(net, loss_fn, shards)
    check_outputs(labels, outputs)
    loss, accuracy = loss_and_accuracy(outputs, losses, shards)
    check_loss(loss, params, step, lr)
    return loss, accuracy


def make_optimizer(optimizer, optimizer_params):
    """An MXNet optimizer from a name and its settings (checked first), or one already built."""
    if isinstance(optimizer, str):
        return mx.optimizer.create(optimizer,
                                   **check_optimizer_options(optimizer, optimizer_params))
    if optimizer_params:
        raise ValueError("pass optimizer settings to the optimizer you built, not here")
    return check_optimizer(optimizer)


class Clock:
    """Seconds between laps; waits for the devices first when ``timed`` (MXNet runs
    asynchronously, so without waiting a lap would time only the queueing)."""

    def __init__(self, timed):
        self.timed = timed
        self.start = self.last = time.perf_counter()

    def lap(self):
        if self.timed:
            mx.nd.waitall()
        now = time.perf_counter()
        lap, self.last = now - self.last, now
        return lap


class DataParallelTrainer:
    """Train ``net`` on ``devices`` with the four steps above; ``step`` returns a report.

    ``aggregation`` is one of ``tutorial.parallel.aggregation.AGGREGATIONS`` ('device',
    'local', 'ps', 'tree', 'butterfly', 'ring'), or a callable ``aggregate(grad_lists)``
    (``tutorial.parallel.compression``). ``optimizer`` is an MXNet optimizer
    name or instance (``tutorial.optim.create(...)`` gives one); its ``rescale_grad`` is
    set to 1/batch at every step.
    """

    def __init__(self, net, devices, optimizer="sgd", aggregation="device", loss=None,
                 **optimizer_params):
        self.net = net
        self.devices = check_devices(devices)
        check_sync_batchnorm(self.devices, net=net)      # refuse what would hang
        self._synced = bool(sync_layers(net))           # SyncBatchNorm needs even shards
        self.optimizer = make_optimizer(optimizer, optimizer_params)
        self.loss_fn = loss or gluon.loss.SoftmaxCrossEntropyLoss()
        self.params = [p for p in net.collect_params().values() if p.grad_req != "null"]
        self.running_stats = running_stats(net)     # BatchNorm's, updated in forward passes
        self.aggregate = make_aggregator(aggregation, self.devices)
        self.aggregation = aggregation
        replicate(self.params + self.running_stats, self.devices)             # step 1
        self._updater = mx.optimizer.get_updater(self.optimizer)
        self.steps_done = 0

    @property
    def learning_rate(self):
        return self.optimizer.learning_rate

    def step(self, X, y, timed=True):
        """One synchronous step on the batch ``(X, y)``.

        Raises :class:`TrainingDiverged` before the update when the loss, a summed
        gradient or a weight is NaN or infinite (``update_s`` includes that check).

        ``X`` must fit the net's first layer and ``y`` hold class indices of its outputs
        (for a classification loss): a ValueError with the fix otherwise.
        """
        check_even_shards(len(X), self.devices, self._synced)
        clock = Clock(timed)
        loss, accuracy = forward_on_devices(self.net, self.loss_fn, X, y, self.devices,  # 2
                                            self.params, self.steps_done + 1, self.learning_rate)
        if callable(self.aggregation):        # a quantiser maps NaN to 0: check before it
            check_parameters(self.params, self.steps_done + 1, self.learning_rate,
                             all_devices=True)
        compute_s = clock.lap()
        self.aggregate([p.list_grad() for p in self.params])                  # step 3
        aggregate_s = clock.lap()
        check_parameters(self.params, self.steps_done + 1, self.learning_rate)
        self._update_and_broadcast(len(X))                                    # step 4
        average_over_devices(self.running_stats)           # one set of BatchNorm statistics
        update_s = clock.lap()
        self.steps_done += 1
        return StepReport(self.steps_done, len(X), loss, accuracy, compute_s, aggregate_s,
                          update_s, time.perf_counter() - clock.start)

    def _update_and_broadcast(self, batch_size):
        self.optimizer.rescale_grad = 1.0 / batch_size       # sum over devices / total batch
        for index, param in enumerate(self.params):
            # one call per parameter, as a kvstore does: MXNet's engine can then run the
            # update of one parameter while it copies the previous one to the devices
            weight = param.list_data()[0]
            self._updater(index, param.list_grad()[0], weight)
            for copy in param.list_data()[1:]:
                weight.copyto(copy)
