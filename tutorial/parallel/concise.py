"""The concise path: ``gluon.Trainer`` with a kvstore does steps 3 and 4 for us.

    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': lr},
                            kvstore='device')
    ...backward on every device...
    trainer.step(batch_size)          # batch_size = the TOTAL batch over all devices

``trainer.step(n)`` sums the gradients over devices in the kvstore and multiplies by
``1/n``; passing the per-device batch would make every step K times too large.

``update_on_kvstore``: with several devices MXNet defaults it to True. The kvstore then
runs the optimizer itself: it takes the gradients in and hands new *weights* back, so
the summed gradient never sits on the devices, and ``allreduce_grads()`` / ``update()``
(the two halves of ``step``, for e.g. clipping the summed gradient) refuse to run. Ask
for ``update_on_kvstore=False`` to split the step: the kvstore then only sums
gradients, and every device applies the same update to its own copy.

BatchNorm's running mean and variance are not the trainer's business: every device keeps
the statistics of its own shards, and the copies drift apart (``DataParallelTrainer``
averages them after each step; see :mod:`tutorial.parallel.running_stats`).

>>> import mxnet as mx
>>> from tutorial.parallel.workload import mlp
>>> t = GluonDataParallel(mlp(seed=0), [mx.cpu(0), mx.cpu(1)], learning_rate=0.1)
>>> t.update_on_kvstore
True
>>> allreduce_then_update(t.trainer, 64)
Traceback (most recent call last):
...
RuntimeError: allreduce_grads() refused: this gluon.Trainer has update_on_kvstore=True ...
"""

import time

from mxnet import gluon

from tutorial.devices import check_devices
from tutorial.engine import check_even_shards, check_sync_batchnorm, sync_layers
from tutorial.optim.options import check_optimizer_options
from tutorial.parallel.aggregation import check_aggregation
from tutorial.finite import check_parameters
from tutorial.parallel.reports import StepReport
from tutorial.parallel.trainer import Clock, forward_on_devices, make_optimizer

_REFUSED = (
    "{call} refused: this gluon.Trainer has update_on_kvstore=True (MXNet's default with "
    "several devices), so the kvstore applies the optimizer itself and hands back new weights; "
    "the summed gradient never reaches the devices for you to use. Create the trainer with "
    "update_on_kvstore=False (e.g. GluonDataParallel(..., update_on_kvstore=False)) to split "
    "trainer.step(n) into allreduce_grads() and update(n).")


def gluon_trainer(net, devices, optimizer="sgd", kvstore="device", update_on_kvstore=None,
                  **optimizer_params):
    """A ``gluon.Trainer`` for ``net`` replicated on ``devices``, with a clear NCCL check."""
    devices = check_devices(devices)
    check_sync_batchnorm(devices, net=net)              # refuse what would hang
    if isinstance(optimizer, str):       # gluon.Trainer builds it, with its param_dict
        optimizer_params = check_optimizer_options(optimizer, optimizer_params)
    else:
        optimizer = make_optimizer(optimizer, optimizer_params)
    if isinstance(kvstore, str):
        check_aggregation(kvstore)
    net.collect_params().reset_ctx(devices)
    return gluon.Trainer(net.collect_params(), optimizer, optimizer_params or None,
                         kvstore=kvstore, update_on_kvstore=update_on_kvstore)


def allreduce_then_update(trainer, batch_size):
    """``trainer.step`` in its two halves, with the refusal explained."""
    for call, run in (("allreduce_grads()", trainer.allreduce_grads),
                      ("update()", lambda: trainer.update(batch_size))):
        try:
            run()
        except AssertionError as error:
            raise RuntimeError(_REFUSED.format(call=call)) from error


class GluonDataParallel:
    """The same steps as ``DataParallelTrainer``, with ``gluon.Trainer`` doing 3 and 4.

    Reports the kvstore's work (aggregation, and the update too when it runs on the
    kvstore) as ``aggregate_s``. Before ``trainer.step`` it checks every device's
    gradients and the weights for NaN and infinities (one number read back per step).
    """

    def __init__(self, net, devices, optimizer="sgd", kvstore="device", update_on_kvstore=None,
                 loss=None, **optimizer_params):
        self.net = net
        self.devices = check_devices(devices)
        self.loss_fn = loss or gluon.loss.SoftmaxCrossEntropyLoss()
        self.trainer = gluon_trainer(net, self.devices, optimizer, kvstore, update_on_kvstore,
                                     **optimizer_params)
        self.trainer._init_kvstore()   # decide update_on_kvstore now, so we can report it
        self.params = [p for p in net.collect_params().values() if p.grad_req != "null"]
        self.steps_done = 0
        self._synced = bool(sync_layers(net))           # SyncBatchNorm needs even shards

    @property
    def update_on_kvstore(self):
        return bool(self.trainer._update_on_kvstore)

    @property
    def learning_rate(self):
        return self.trainer.learning_rate

    def step(self, X, y, timed=True):
        check_even_shards(len(X), self.devices, self._synced)
        clock = Clock(timed)
        loss, accuracy = forward_on_devices(self.net, self.loss_fn, X, y, self.devices,
                                            self.params, self.steps_done + 1, self.learning_rate)
        check_parameters(self.params, self.steps_done + 1, self.learning_rate, all_devices=True)
        compute_s = clock.lap()
        self.trainer.step(len(X))                   # the TOTAL batch, not the per-device one
        aggregate_s = clock.lap()
        self.steps_done += 1
        return StepReport(self.steps_done, len(X), loss, accuracy, compute_s, aggregate_s, 0.0,
                          time.perf_counter() - clock.start)

